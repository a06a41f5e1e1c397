"""What real `uiautomator dump` files share, measured on the fixtures in fixtures/dumps.

These are the properties the simulator's dumps are held to (one window per dump, its package
at the root, the attribute set and order, NAF, bounds nested in their parents); each test
states the fact as the fixtures show it. SOURCES.md says where every file comes from.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from dump_profile import DumpProfile, parse_bounds, profile

from gui_gym.android.ui import DUMP_ATTRIBUTES

DUMPS = Path(__file__).parent / "fixtures" / "dumps"

CLASSIC_ATTRS = DUMP_ATTRIBUTES
RECENT_ATTRS = (*CLASSIC_ATTRS, "drawing-order", "hint")
U2_ATTRS = (*CLASSIC_ATTRS[:-1], "visible-to-user", "bounds", "drawing-order", "hint", "display-id")

# Which dumper wrote each file (SOURCES.md explains how they are told apart).
CLASSIC = [
    "launcher_home_pixel_1080x2400.xml",
    "settings_app_list_compose_1080x2400.xml",
    "settings_switch_page_compose_1080x2400.xml",
    "maps_dialog_parentpanel_1080x1920.xml",
    "maps_preference_switches_1080x1920.xml",
    "launcher_widgets_landscape_2000x1128.xml",
]
RECENT = [
    "permission_dialog_1080x2400.xml",
    "appcompat_alertdialog_list_1080x2400.xml",
    "popup_menu_1080x2400.xml",
    "app_settings_toolbar_naf_1080x2400.xml",
    "messages_conversation_1080x2400.xml",
]
U2 = ["settings_subpage_u2_two_windows_1080x2400.xml"]
UIAUTOMATOR_DUMP = CLASSIC + RECENT
ALL = UIAUTOMATOR_DUMP + U2

# Windows smaller than the display: a dialog or popup is dumped on its own, rooted at its bounds.
DIALOG_WINDOWS = {
    "maps_dialog_parentpanel_1080x1920.xml": ((157, 569, 922, 1286), (1080, 1920)),
    "permission_dialog_1080x2400.xml": ((28, 432, 1052, 1968), (1080, 2400)),
    "appcompat_alertdialog_list_1080x2400.xml": ((28, 714, 1052, 1685), (1080, 2400)),
    "popup_menu_1080x2400.xml": ((79, 754, 662, 1132), (1080, 2400)),
}
FULL_SCREEN_APPS = [f for f in ALL if f not in DIALOG_WINDOWS]

NAF_EXCLUDED = (
    "android.widget.GridView",
    "android.widget.GridLayout",
    "android.widget.ListView",
    "android.widget.TableLayout",
)


def _text(name: str) -> str:
    return (DUMPS / name).read_text(encoding="utf-8")


def _tree(name: str) -> ET.Element:
    return ET.fromstring((DUMPS / name).read_bytes())


def _profile(name: str) -> DumpProfile:
    return profile(_text(name))


def test_every_fixture_is_listed_once_and_documented() -> None:
    on_disk = sorted(p.name for p in DUMPS.glob("*.xml"))
    assert sorted(ALL) == on_disk
    sources = (DUMPS / "SOURCES.md").read_text(encoding="utf-8")
    for name in on_disk:
        assert f"`{name}`" in sources, f"{name} has no row in SOURCES.md"
        assert (DUMPS / name).stat().st_size < 40_000


@pytest.mark.parametrize("name", ALL)
def test_dump_is_a_hierarchy_of_nodes_with_a_rotation(name: str) -> None:
    tree = _tree(name)
    assert tree.tag == "hierarchy"
    assert tree.get("rotation") in {"0", "1", "2", "3"}
    assert {el.tag for el in tree.iter()} == {"hierarchy", "node"}


@pytest.mark.parametrize("name", UIAUTOMATOR_DUMP)
def test_uiautomator_dump_holds_one_window_rooted_at_its_package(name: str) -> None:
    p = _profile(name)
    assert p.top_level_nodes == 1
    root = _tree(name)[0]
    assert root.get("index") == "0"
    assert root.get("class") == "android.widget.FrameLayout"
    assert p.root_package == root.get("package") != ""


def test_uiautomator2_dump_holds_one_top_level_node_per_window() -> None:
    tree = _tree(U2[0])
    windows = [(w.get("package"), parse_bounds(w.get("bounds", ""))) for w in tree]
    assert windows == [
        ("com.android.settings", (0, 0, 1080, 2400)),
        ("com.android.systemui", (0, 0, 1080, 132)),
    ]
    for window in tree:
        assert {n.get("package") for n in window.iter("node")} == {window.get("package")}


@pytest.mark.parametrize("name", ALL)
def test_one_package_per_window_except_app_widgets(name: str) -> None:
    p = _profile(name)
    if name == "launcher_widgets_landscape_2000x1128.xml":
        # App widgets are RemoteViews inflated in the launcher but reported under the
        # package that published them.
        assert p.root_package == "com.teslacoilsw.launcher"
        assert set(p.packages) == {
            "com.teslacoilsw.launcher",
            "com.arlosoft.macrodroid",
            "com.yahoo.mobile.client.android.weather",
            "com.android.chrome",
        }
        assert p.class_histogram["android.appwidget.AppWidgetHostView"] == 6
    elif name in U2:
        assert set(p.packages) == {"com.android.settings", "com.android.systemui"}
    else:
        assert set(p.packages) == {p.root_package}


@pytest.mark.parametrize(
    ("names", "expected"),
    [(CLASSIC, CLASSIC_ATTRS), (RECENT, RECENT_ATTRS), (U2, U2_ATTRS)],
    ids=["classic", "recent", "uiautomator2"],
)
def test_attribute_order_is_fixed_per_dumper(names: list[str], expected: tuple[str, ...]) -> None:
    for name in names:
        p = _profile(name)
        assert p.attribute_order == expected, name
        assert p.uniform_attribute_order, name


@pytest.mark.parametrize("name", ALL)
def test_naf_comes_first_and_marks_unlabelled_clickable_nodes(name: str) -> None:
    p = _profile(name)
    assert p.naf_always_first
    for node in _tree(name).iter("node"):
        if node.get("NAF") is None:
            continue
        assert node.get("NAF") == "true"
        assert node.get("clickable") == node.get("enabled") == "true"
        assert node.get("text") == node.get("content-desc") == ""
        assert not node.get("class", "").endswith(NAF_EXCLUDED)
        assert all(not (d.get("text") or d.get("content-desc")) for d in node.iter("node"))


def _unmarked_naf_candidates(name: str) -> list[ET.Element]:
    """Nodes the NAF rule would flag, judged from the dumped subtree only."""
    found = []
    for node in _tree(name).iter("node"):
        if (
            node.get("NAF") is None
            and node.get("clickable") == node.get("enabled") == "true"
            and not node.get("class", "").endswith(NAF_EXCLUDED)
            and all(not (d.get("text") or d.get("content-desc")) for d in node.iter("node"))
        ):
            found.append(node)
    return found


@pytest.mark.parametrize("name", ALL)
def test_every_unlabelled_clickable_node_is_marked_naf(name: str) -> None:
    unmarked = _unmarked_naf_candidates(name)
    if name == "launcher_widgets_landscape_2000x1128.xml":
        # The dumper's child check also reads children it does not write (invisible ones):
        # this widget host has a labelled child that is hidden, so it escapes NAF.
        assert [n.get("class") for n in unmarked] == ["android.appwidget.AppWidgetHostView"]
    else:
        assert unmarked == []


def test_naf_counts() -> None:
    counts = {name: _profile(name).naf_count for name in ALL}
    assert counts["app_settings_toolbar_naf_1080x2400.xml"] == 1
    assert counts["launcher_widgets_landscape_2000x1128.xml"] == 5
    assert sum(counts.values()) == 6
    naf = next(n for n in _tree("app_settings_toolbar_naf_1080x2400.xml").iter("node") if n.get("NAF"))
    assert naf.get("class") == "android.widget.ImageButton"


@pytest.mark.parametrize("name", ALL)
def test_children_lie_within_their_parents(name: str) -> None:
    assert _profile(name).overflowing_nodes == 0


@pytest.mark.parametrize("name", ALL)
def test_sibling_indices_increase_and_may_skip(name: str) -> None:
    """`index` is the child's position among all children; invisible ones are skipped."""
    for parent in _tree(name).iter("node"):
        indices = [int(c.get("index", "-1")) for c in parent]
        assert indices == sorted(set(indices))
        assert all(i >= 0 for i in indices)


def test_index_gaps_show_skipped_invisible_children() -> None:
    content = next(
        n
        for n in _tree("messages_conversation_1080x2400.xml").iter("node")
        if n.get("resource-id") == "android:id/content"
    )
    assert [c.get("index") for c in content] == ["1"]


@pytest.mark.parametrize("name", list(DIALOG_WINDOWS))
def test_dialogs_and_popups_are_dumped_as_their_own_window(name: str) -> None:
    bounds, (width, height) = DIALOG_WINDOWS[name]
    p = _profile(name)
    assert p.root_bounds == bounds
    left, top, right, bottom = bounds
    assert left > 0 and top > 0 and right < width and bottom < height
    assert p.max_depth <= 14


@pytest.mark.parametrize("name", FULL_SCREEN_APPS)
def test_full_screen_windows_start_at_the_origin_and_are_deep(name: str) -> None:
    p = _profile(name)
    assert p.root_bounds[:2] == (0, 0)
    assert p.max_depth >= 9
    assert p.node_count >= 20


def test_dialog_ids_follow_the_alert_dialog_layout() -> None:
    maps = _profile("maps_dialog_parentpanel_1080x1920.xml").resource_ids
    assert {"android:id/content", "android:id/parentPanel", "android:id/customPanel"} <= maps
    compat = _profile("appcompat_alertdialog_list_1080x2400.xml").resource_ids
    pkg = "hk.edu.hku.cs7506.smartcompanion:id/"
    assert {pkg + "parentPanel", pkg + "topPanel", pkg + "alertTitle", pkg + "select_dialog_listview"} <= compat
    assert "android:id/text1" in compat


def test_preference_rows_use_framework_ids() -> None:
    """AndroidX preference rows: framework ids for the row, the library's id for the switch."""
    ids = _profile("maps_preference_switches_1080x1920.xml").resource_ids
    framework = {"android:id/title", "android:id/summary", "android:id/widget_frame", "android:id/list_container"}
    assert framework <= ids
    assert "com.google.android.apps.maps:id/switchWidget" in ids
    assert "com.google.android.apps.maps:id/recycler_view" in ids
    switches = [
        n
        for n in _tree("maps_preference_switches_1080x1920.xml").iter("node")
        if n.get("class") == "android.widget.Switch"
    ]
    assert len(switches) == 2
    assert all(s.get("checkable") == "true" for s in switches)


def test_compose_test_tags_appear_as_bare_resource_ids() -> None:
    ids = _profile("messages_conversation_1080x2400.xml").resource_ids
    assert {"message_list", "message_text"} <= ids
    assert "com.google.android.apps.messaging:id/compose_message_text" in ids


def test_zero_area_and_offscreen_nodes_are_rare() -> None:
    zero = {name: _profile(name).zero_area_nodes for name in ALL}
    assert zero["maps_preference_switches_1080x1920.xml"] == 1
    empty = [
        n.get("resource-id")
        for n in _tree("maps_preference_switches_1080x1920.xml").iter("node")
        if n.get("bounds") == "[0,0][0,0]"
    ]
    assert empty == ["android:id/navigationBarBackground"]
    assert sum(zero.values()) == 1
    assert all(_profile(name).offscreen_nodes == 0 for name in ALL)


def test_profile_rejects_what_is_not_a_dump() -> None:
    with pytest.raises(ValueError, match="<hierarchy>"):
        profile("<node index='0'/>")
    with pytest.raises(ValueError, match="no <node>"):
        profile('<hierarchy rotation="0"/>')
    with pytest.raises(ValueError, match="bounds"):
        parse_bounds("[0,0,10,10]")
