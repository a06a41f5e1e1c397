"""The simulator's dumps against real ``uiautomator dump`` files of the same kind of screen.

The fixtures (``fixtures/dumps``, origins in its SOURCES.md) are real dumps; ``dump_profile``
measures both. What a real dump has, the simulator's must have: the active window alone, rooted
at its own package; the classic attribute order with ``NAF`` first; children inside their
parents; framework ids in dialogs; realistic depth. Real dumps parsed into nodes and written
again by :func:`~gui_gym.android.ui.to_xml` come back byte for byte, NAF marks included.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import gymnasium as gym
import pytest
from _util import TASK_IDS, find_el, make, tap
from dump_profile import DumpProfile, parse_bounds, profile

from gui_gym.android.actions import parse_action
from gui_gym.android.backends.base import BackendCapabilityError
from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.forest import dump_elements, element_center
from gui_gym.android.sim.widgets import KEYBOARD_PACKAGE
from gui_gym.android.ui import DUMP_ATTRIBUTES, SCREEN_H, SCREEN_W, SYSTEM_PACKAGE, Node, is_naf, to_xml

FIXTURES = Path(__file__).parent / "fixtures" / "dumps"
CLASSIC_ORDER = DUMP_ATTRIBUTES
_BOOLS = {
    "checkable": "checkable", "checked": "checked", "clickable": "clickable", "enabled": "enabled",
    "focusable": "focusable", "focused": "focused", "scrollable": "scrollable", "long-clickable": "long_clickable",
    "password": "password", "selected": "selected",
}  # fmt: skip


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


def classic_fixtures() -> list[str]:
    """The fixtures written by the classic AOSP dumper (17 attributes, NAF first when present)."""
    return [
        p.name
        for p in sorted(FIXTURES.glob("*.xml"))
        if profile(p.read_text(encoding="utf-8")).attribute_order == CLASSIC_ORDER
    ]


def to_nodes(el: ET.Element) -> Node:
    """A dump's ``<node>`` as a simulator node (attributes only; NAF is recomputed, not read)."""
    flags = {attr: el.get(key) == "true" for key, attr in _BOOLS.items()}
    clickable = flags.pop("clickable")
    long_clickable = flags.pop("long_clickable")
    scrollable = flags.pop("scrollable")
    n = Node(
        el.get("class", ""), parse_bounds(el.get("bounds", "")), el.get("text", ""), rid=el.get("resource-id", ""),
        desc=el.get("content-desc", ""), package=el.get("package", ""), clickable=clickable,
        long_clickable=long_clickable, scrollable=scrollable, **flags,
    )  # fmt: skip
    for c in el:
        if c.tag != "node":
            continue
        while len(n.children) < int(c.get("index", "0")):  # a gap: an invisible child was left out
            n.children.append(Node("android.view.View", n.bounds, visible=False))
        n.children.append(to_nodes(c))
    return n


def sim_profile(env: gym.Env) -> DumpProfile:
    return profile(env.unwrapped.observe()["ui"], (SCREEN_W, SCREEN_H))


# ----------------------------------------------------------------------------- the writer


@pytest.mark.parametrize("name", classic_fixtures())
def test_real_dumps_read_into_nodes_are_written_back_byte_for_byte(name: str) -> None:
    """Attribute order, escaping, ``index`` and the NAF rule (recomputed from the tree, never
    copied) all match the real dumper's output."""
    text = fixture(name)
    root = ET.fromstring(text.encode("utf-8"))
    tops = [to_nodes(el) for el in root if el.tag == "node"]
    if name == "launcher_widgets_landscape_2000x1128.xml":
        # This widget escapes NAF through a labelled child the dump leaves out (it is invisible,
        # and nafCheck walks invisible children too): give the node back that hidden child.
        host = next(n for t in tops for n in t.walk() if n.cls == "android.appwidget.AppWidgetHostView" and is_naf(n))
        host.children.append(Node("android.widget.TextView", host.bounds, "hidden", visible=False))
    portrait = re.sub(r'<hierarchy rotation="\d"', '<hierarchy rotation="0"', text, count=1)  # the phone is upright
    assert to_xml(tops if len(tops) > 1 else tops[0]) == portrait


def test_classic_fixtures_cover_a_naf_mark() -> None:
    """At least one real dump with a NAF node is among those written back, so the rule is tested."""
    assert any(profile(fixture(n)).naf_count for n in classic_fixtures())


def test_naf_rule_on_hand_made_nodes() -> None:
    """AOSP's nafCheck: clickable and enabled, no text or description in the node or below it,
    and not one of the excluded container classes."""
    bare = Node("android.widget.ImageButton", (0, 0, 10, 10), clickable=True)
    assert is_naf(bare)
    assert not is_naf(Node("android.widget.ImageButton", (0, 0, 10, 10), clickable=True, desc="Back"))
    assert not is_naf(Node("android.widget.ImageButton", (0, 0, 10, 10), clickable=True, enabled=False))
    labelled = Node("android.widget.LinearLayout", (0, 0, 10, 10), clickable=True)
    labelled.children = [Node("android.widget.FrameLayout", (0, 0, 5, 5), children=[Node("x.T", (0, 0, 1, 1), "hi")])]
    assert not is_naf(labelled)
    assert not is_naf(Node("android.widget.ListView", (0, 0, 10, 10), clickable=True))
    assert to_xml(bare).split("<node ", 1)[1].startswith('NAF="true" index="0"')


# ----------------------------------------------------------------------------- the windows


def test_an_app_screen_is_its_own_window_like_a_real_app_dump() -> None:
    real = profile(fixture("app_settings_toolbar_naf_1080x2400.xml"))
    env = make("SystemWifiTurnOn")
    env.reset(seed=0)
    env.step('do(action="Launch", app="Settings")')
    sim = sim_profile(env)
    for p in (real, sim):
        assert p.top_level_nodes == 1 and p.root_bounds == (0, 0, 1080, 2400)
        assert set(p.packages) == {p.root_package}  # one window, one package
        assert p.overflowing_nodes == 0 and p.uniform_attribute_order
    assert sim.root_package == "com.android.settings" and sim.attribute_order == CLASSIC_ORDER
    assert (
        sim.class_histogram["android.widget.FrameLayout"] >= 2
        and "androidx.recyclerview.widget.RecyclerView" in sim.class_histogram
    )
    assert "com.android.settings:id/recycler_view" in sim.resource_ids and "android:id/content" in sim.resource_ids
    assert sim.max_depth >= 8  # real app windows run 9-19 levels; the old simulator had 4


def test_the_launcher_is_a_window_of_the_launcher_package() -> None:
    real = profile(fixture("launcher_home_pixel_1080x2400.xml"))
    env = make("SystemWifiTurnOn")
    env.reset(seed=0)
    sim = sim_profile(env)
    assert sim.root_package == real.root_package == "com.google.android.apps.nexuslauncher"
    assert sim.top_level_nodes == real.top_level_nodes == 1 and set(sim.packages) == {sim.root_package}
    # App icons are clickable TextViews whose text is their content description, as on a Pixel.
    root = ET.fromstring(env.unwrapped.observe()["ui"].encode())
    icons = [
        n for n in root.iter("node") if n.get("clickable") == "true" and n.get("class") == "android.widget.TextView"
    ]
    assert icons and all(n.get("text") == n.get("content-desc") for n in icons)


@pytest.mark.parametrize(
    "real_name", ["maps_dialog_parentpanel_1080x1920.xml", "appcompat_alertdialog_list_1080x2400.xml"]
)
def test_a_dialog_is_its_own_window_like_a_real_dialog_dump(real_name: str) -> None:
    real = profile(fixture(real_name))
    env = make("ContactsDeleteContact")
    env.reset(seed=0)
    for _ in range(30):  # the oracle until the confirmation dialog (an AlertDialog) is up
        obs, *_ = env.step(env.unwrapped.oracle_action())
        if "android:id/button1" in obs["ui"]:
            break
    sim = sim_profile(env)
    for p in (real, sim):
        assert p.top_level_nodes == 1 and p.root_bounds != (0, 0, p.root_bounds[2], p.root_bounds[3])
        assert p.root_bounds[2] - p.root_bounds[0] < 1080  # a window smaller than the screen
        assert "android:id/content" in p.resource_ids and p.overflowing_nodes == 0
        assert any(r.endswith(":id/parentPanel") for r in p.resource_ids)
    assert sim.root_package == "com.google.android.contacts" and set(sim.packages) == {sim.root_package}
    assert {"android:id/button1", "android:id/button2"} <= sim.resource_ids
    assert sim.max_depth >= 5


def test_keyboard_status_bar_navigation_bar_and_toast_are_not_in_the_dump() -> None:
    env = make("ContactsAddContact")
    env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Launch", app="Contacts")')
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Create contact")))
    dev = env.unwrapped.device
    assert dev.state.keyboard
    ui = env.unwrapped.observe()["ui"]
    assert KEYBOARD_PACKAGE not in ui and SYSTEM_PACKAGE not in ui and "Toast" not in ui
    assert {w.type for w in dev.windows()} == {"application", "input_method", "system"}
    assert sum(w.active for w in dev.windows()) == 1
    # ui_windows="all" writes every window, as uiautomator2 does; the forest holds them too.
    every = gym.make("GuiAndroid-v0", task="ContactsAddContact", ui_windows="all")
    every.reset(seed=0)
    every.unwrapped.restore(env.unwrapped.snapshot())
    full = profile(every.unwrapped.observe()["ui"])
    assert full.top_level_nodes == len(dev.windows()) and {KEYBOARD_PACKAGE, SYSTEM_PACKAGE} <= set(full.packages)


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_oracle_screen_has_the_real_dump_shape(task_id: str) -> None:
    """One window, its own package, children inside parents, nothing off screen, no zero-area
    node: on every screen of every task's oracle run."""
    env = make(task_id)
    obs, _ = env.reset(seed=0)
    for _ in range(200):
        p = profile(obs["ui"], (SCREEN_W, SCREEN_H))
        assert p.top_level_nodes == 1 and set(p.packages) == {p.root_package} != {SYSTEM_PACKAGE}
        assert p.overflowing_nodes == 0 and p.offscreen_nodes == 0 and p.attribute_order == CLASSIC_ORDER
        obs, _, term, trunc, _ = env.step(env.unwrapped.oracle_action())
        if term or trunc:
            break


def test_every_oracle_target_has_an_androidworld_index() -> None:
    """AndroidWorld's agents act by ``index`` into its reduced list: every element the oracle taps
    or long-presses, on every task, is reached by the centre of some element of that list."""
    reached = total = 0
    for task_id in TASK_IDS:
        env = make(task_id)
        _, info = env.reset(seed=0)
        dev = env.unwrapped.device
        for _ in range(200):
            action = env.unwrapped.oracle_action()
            parsed = parse_action(action)
            if parsed.kind in ("tap", "long_press") and parsed.element is not None:
                attr = "on_tap" if parsed.kind == "tap" else "on_long_press"
                target = dev._hit(*parsed.center(), attr)
                total += 1
                reached += any(dev._hit(*element_center(e), attr) is target for e in info["ui_elements"])
            _, _, term, trunc, info = env.step(action)
            if term or trunc:
                break
    assert total > 200 and reached == total, f"{reached} of {total}"


def test_the_merged_view_holds_every_window_under_one_root() -> None:
    env = make("ContactsAddContact", ui_windows="merged")
    env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Launch", app="Contacts")')
    env.step(tap(find_el(info, content_description="Create contact")))  # the keyboard comes up
    p = profile(env.unwrapped.observe()["ui"])
    assert p.top_level_nodes == 1 and p.root_package == SYSTEM_PACKAGE
    assert {"com.google.android.contacts", KEYBOARD_PACKAGE, SYSTEM_PACKAGE} <= set(p.packages)


def test_the_merged_view_needs_a_backend_that_composes_the_screen() -> None:
    class TreeOnly(SimBackend):
        screen = None  # type: ignore[assignment]

    with pytest.raises(BackendCapabilityError, match="screen"):
        GuiAndroidEnv(backend=TreeOnly(), ui_windows="merged")
    GuiAndroidEnv(backend=TreeOnly())  # the other views need no screen()


def test_an_invisible_node_is_in_no_dump_and_no_dump_element() -> None:
    """uiautomator skips a child that is not visible (its index stays taken); so does AndroidWorld's
    reading of the dump."""
    hidden = Node("android.widget.TextView", (0, 0, 5, 5), "hidden", visible=False)
    shown = Node("android.widget.TextView", (5, 0, 10, 5), "shown")
    root = Node("android.widget.FrameLayout", (0, 0, 10, 5), children=[hidden, shown])
    xml = to_xml(root)
    assert "hidden" not in xml and '<node index="1" text="shown"' in xml
    assert [e.element.text for e in dump_elements(root)] == ["", "shown"]
