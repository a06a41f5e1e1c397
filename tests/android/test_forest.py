"""The accessibility forest and AndroidWorld's element list, on a screen built by hand.

The screen: a contacts list (app window, layer 0) with the keyboard up (IME window, layer 1)
under the status bar (system window, layer 2). The expected forest and element list below are
worked out by hand from android_env's forwarder (windows by ascending layer, nodes breadth-first,
ids in that order from 0 per window) and AndroidWorld's ``forest_to_ui_elements`` (leaves,
described nodes and scrollable nodes; invisible ones dropped when asked).
"""

from __future__ import annotations

import json

import pytest

from gui_gym.android.forest import BoundingBox, UIElement, forest_elements, forest_with_elements, to_forest
from gui_gym.android.ui import Node, Window

APP_PKG = "com.google.android.contacts"
IME_PKG = "com.google.android.inputmethod.latin"
SYS_PKG = "com.android.systemui"


class HideableNode(Node):
    """A Node that can carry ``visible`` (Node itself has fixed slots and no such flag yet)."""


def _screen() -> tuple[list[Window], dict[str, Node]]:
    """The three windows, topmost first as ``getWindows()`` lists them, and their nodes by name."""
    n: dict[str, Node] = {}
    n["nav"] = Node("android.widget.ImageButton", (0, 63, 147, 210), desc="Open navigation drawer", clickable=True)
    n["title"] = Node("android.widget.TextView", (189, 100, 500, 173), "Contacts")
    n["search"] = Node(
        "android.widget.EditText",
        (520, 90, 1060, 183),
        "Search contacts",
        rid=f"{APP_PKG}:id/search",
        clickable=True,
        focusable=True,
        field=object(),
        style="hint",
    )
    n["toolbar"] = Node(
        "android.view.ViewGroup",
        (0, 63, 1080, 210),
        rid=f"{APP_PKG}:id/toolbar",
        children=[n["nav"], n["title"], n["search"]],
    )
    n["alice"] = Node("android.widget.TextView", (200, 270, 700, 340), "Alice Smith")
    n["row1"] = Node(
        "android.view.ViewGroup", (0, 210, 1080, 400), desc="Alice Smith", clickable=True, children=[n["alice"]]
    )
    n["bob"] = Node("android.widget.TextView", (200, 460, 700, 530), "Bob", rid=f"{APP_PKG}:id/name")
    hidden = HideableNode("android.widget.ImageView", (950, 460, 1030, 530), desc="Starred")
    hidden.visible = False
    n["hidden"] = hidden
    n["row2"] = Node("android.view.ViewGroup", (0, 400, 1080, 590), clickable=True, children=[n["bob"], hidden])
    n["list"] = Node(
        "androidx.recyclerview.widget.RecyclerView",
        (0, 210, 1080, 2337),
        rid=f"{APP_PKG}:id/contact_list",
        scrollable=True,
        children=[n["row1"], n["row2"]],
    )
    n["fab"] = Node(
        "android.widget.ImageButton",
        (870, 2127, 1038, 2295),
        desc="Create contact",
        rid=f"{APP_PKG}:id/floating_action_button",
        package=APP_PKG,
        clickable=True,
    )
    n["app"] = Node("android.widget.FrameLayout", (0, 63, 1080, 2337), children=[n["toolbar"], n["list"], n["fab"]])

    n["q"] = Node("android.view.View", (0, 1550, 108, 1700), desc="q")
    n["w"] = Node("android.view.View", (108, 1550, 216, 1700), desc="w")
    n["enter"] = Node("android.widget.Button", (900, 2150, 1080, 2300), desc="Enter", clickable=True)
    n["ime"] = Node("android.widget.FrameLayout", (0, 1500, 1080, 2337), children=[n["q"], n["w"], n["enter"]])

    n["clock"] = Node("android.widget.TextView", (40, 0, 160, 63), "12:00", rid=f"{SYS_PKG}:id/clock")
    n["wifi"] = Node("android.widget.ImageView", (880, 0, 960, 63), desc="Wifi signal full.")
    n["battery"] = Node("android.widget.ImageView", (960, 0, 1040, 63), desc="Battery 100 percent.")
    n["icons"] = Node("android.widget.LinearLayout", (880, 0, 1040, 63), children=[n["wifi"], n["battery"]])
    n["status"] = Node("android.widget.FrameLayout", (0, 0, 1080, 63), children=[n["clock"], n["icons"]])

    windows = [
        Window(11, "system", 2, "StatusBar", SYS_PKG, (0, 0, 1080, 63), n["status"]),
        Window(8, "input_method", 1, "InputMethod", IME_PKG, (0, 1500, 1080, 2337), n["ime"]),
        Window(5, "application", 0, "Contacts", APP_PKG, (0, 0, 1080, 2400), n["app"], active=True, focused=True),
    ]
    return windows, n


# Breadth-first order of the app window: unique_id -> node name.
APP_BFS = ["app", "toolbar", "list", "fab", "nav", "title", "search", "row1", "row2", "alice", "bob", "hidden"]

# AndroidWorld's list for this screen, as (window id, unique id, node name).
EXPECTED = [
    (5, 2, "list"),  # scrollable, though it has children
    (5, 3, "fab"),  # leaf
    (5, 4, "nav"),
    (5, 5, "title"),
    (5, 6, "search"),
    (5, 7, "row1"),  # content-described, though it has children
    (5, 9, "alice"),
    (5, 10, "bob"),
    (8, 1, "q"),
    (8, 2, "w"),
    (8, 3, "enter"),
    (11, 1, "clock"),
    (11, 3, "wifi"),
    (11, 4, "battery"),
]


def test_windows_come_in_ascending_layer() -> None:
    windows, _ = _screen()
    forest = to_forest(windows)
    ws = forest["windows"]
    assert [w["id"] for w in ws] == [5, 8, 11]
    assert [w["layer"] for w in ws] == [0, 1, 2]
    assert [w["window_type"] for w in ws] == ["TYPE_APPLICATION", "TYPE_INPUT_METHOD", "TYPE_SYSTEM"]
    assert [(w["is_active"], w["is_focused"]) for w in ws] == [(True, True), (False, False), (False, False)]
    assert ws[0]["title"] == "Contacts"
    assert ws[1]["bounds_in_screen"] == {"left": 0, "top": 1500, "right": 1080, "bottom": 2337}


def test_nodes_are_breadth_first_with_ids_depth_and_children() -> None:
    windows, n = _screen()
    app = to_forest(windows)["windows"][0]["tree"]["nodes"]
    assert [node["unique_id"] for node in app] == list(range(12))
    by_name = {name: app[i] for i, name in enumerate(APP_BFS)}
    for name, node in by_name.items():
        assert node["bounds_in_screen"] == dict(zip(("left", "top", "right", "bottom"), n[name].bounds, strict=True))
    assert [node["depth"] for node in app] == [0, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3]
    assert by_name["app"]["child_ids"] == [1, 2, 3]
    assert by_name["toolbar"]["child_ids"] == [4, 5, 6]
    assert by_name["list"]["child_ids"] == [7, 8]
    assert by_name["row1"]["child_ids"] == [9]
    assert by_name["row2"]["child_ids"] == [10, 11]
    assert by_name["bob"]["child_ids"] == []
    assert [node["drawing_order"] for node in app] == [0, 0, 1, 2, 0, 1, 2, 0, 1, 0, 0, 1]
    assert {node["window_id"] for node in app} == {5}


def test_ids_restart_in_every_window() -> None:
    windows, _ = _screen()
    ime, status = to_forest(windows)["windows"][1:]
    assert [(x["unique_id"], x["depth"], x["content_description"]) for x in ime["tree"]["nodes"]] == [
        (0, 0, ""),
        (1, 1, "q"),
        (2, 1, "w"),
        (3, 1, "Enter"),
    ]
    assert [(x["unique_id"], x["depth"], x["child_ids"]) for x in status["tree"]["nodes"]] == [
        (0, 0, [1, 2]),
        (1, 1, []),
        (2, 1, [3, 4]),
        (3, 2, []),
        (4, 2, []),
    ]


def test_node_fields() -> None:
    windows, _ = _screen()
    app = to_forest(windows)["windows"][0]["tree"]["nodes"]
    node = dict(zip(APP_BFS, app, strict=True))
    # A node without a package of its own reports its window's.
    assert node["title"]["package_name"] == APP_PKG and node["fab"]["package_name"] == APP_PKG
    assert node["bob"]["view_id_resource_name"] == f"{APP_PKG}:id/name"
    assert node["bob"]["class_name"] == "android.widget.TextView" and node["bob"]["text"] == "Bob"
    assert node["hidden"]["is_visible_to_user"] is False
    assert all(node[k]["is_visible_to_user"] for k in APP_BFS if k != "hidden")
    # An empty field shows its hint as text and reports it as hint_text; its cursor is at 0.
    assert node["search"]["is_editable"] and node["search"]["hint_text"] == "Search contacts"
    assert (node["search"]["text_selection_start"], node["search"]["text_selection_end"]) == (0, 0)
    assert not node["bob"]["is_editable"] and node["bob"]["hint_text"] == ""
    assert node["bob"]["text_selection_start"] == -1
    assert [a["id"] for a in node["fab"]["actions"]] == [4, 8, 16, 64]
    assert [a["id"] for a in node["list"]["actions"]] == [4, 8, 64, 4096, 8192]
    assert [a["id"] for a in node["search"]["actions"]] == [1, 4, 8, 16, 64, 2097152]


def test_forest_is_plain_json() -> None:
    windows, _ = _screen()
    forest = to_forest(windows)
    assert json.loads(json.dumps(forest)) == forest


def test_element_list_is_androidworlds() -> None:
    windows, n = _screen()
    got = forest_elements(windows)
    assert [(e.window_id, e.unique_id) for e in got] == [(w, u) for w, u, _ in EXPECTED]
    # Each element keeps the very node it came from: an index resolves to a node.
    assert all(e.node is n[name] for e, (_, _, name) in zip(got, EXPECTED, strict=True))
    texts = [e.element.text or e.element.content_description for e in got]
    assert texts == [
        None,
        "Create contact",
        "Open navigation drawer",
        "Contacts",
        "Search contacts",
        "Alice Smith",
        "Alice Smith",
        "Bob",
        "q",
        "w",
        "Enter",
        "12:00",
        "Wifi signal full.",
        "Battery 100 percent.",
    ]


def test_invisible_nodes_kept_when_asked() -> None:
    windows, n = _screen()
    got = forest_elements(windows, exclude_invisible=False)
    assert len(got) == len(EXPECTED) + 1
    assert (got[8].window_id, got[8].unique_id) == (5, 11) and got[8].node is n["hidden"]
    assert got[8].element.is_visible is False


def test_element_fields_and_text() -> None:
    windows, _ = _screen()
    fab = forest_elements(windows)[1].element
    assert fab == UIElement(
        text=None,
        content_description="Create contact",
        class_name="android.widget.ImageButton",
        bbox=None,
        bbox_pixels=BoundingBox(870, 1038, 2127, 2295),
        hint_text=None,
        is_checked=False,
        is_checkable=False,
        is_clickable=True,
        is_editable=False,
        is_enabled=True,
        is_focused=False,
        is_focusable=False,
        is_long_clickable=False,
        is_scrollable=False,
        is_selected=False,
        is_visible=True,
        package_name=APP_PKG,
        resource_name=f"{APP_PKG}:id/floating_action_button",
    )
    # T3A writes each element into its prompt as str(element): the text must be AndroidWorld's.
    bob = forest_elements(windows)[7].element
    assert str(bob) == (
        "UIElement(text='Bob', content_description=None, class_name='android.widget.TextView', bbox=None, "
        "bbox_pixels=BoundingBox(x_min=200, x_max=700, y_min=460, y_max=530), hint_text=None, "
        "is_checked=False, is_checkable=False, is_clickable=False, is_editable=False, is_enabled=True, "
        "is_focused=False, is_focusable=False, is_long_clickable=False, is_scrollable=False, "
        "is_selected=False, is_visible=True, package_name='com.google.android.contacts', "
        "resource_name='com.google.android.contacts:id/name', tooltip=None, resource_id=None, metadata=None)"
    )


def test_index_taps_the_node_it_names() -> None:
    """AndroidWorld taps the centre of ``bbox_pixels``; that point is the resolved node's centre."""
    windows, _ = _screen()
    for e in forest_elements(windows):
        x, y = e.element.bbox_pixels.center
        assert e.node is not None and e.node.contains(int(x), int(y)) and e.node.center() == (int(x), int(y))


def test_screen_size_fills_normalised_bbox() -> None:
    windows, _ = _screen()
    fab = forest_elements(windows, screen_size=(1080, 2400))[1].element
    assert fab.bbox == BoundingBox(870 / 1080, 1038 / 1080, 2127 / 2400, 2295 / 2400)
    assert fab.bbox_pixels == BoundingBox(870, 1038, 2127, 2295)


def test_forest_dict_gives_the_same_list_without_nodes() -> None:
    windows, _ = _screen()
    forest = json.loads(json.dumps(to_forest(windows)))
    from_dict = forest_elements(forest)
    from_windows = forest_elements(windows)
    assert [e.element for e in from_dict] == [e.element for e in from_windows]
    assert [(e.window_id, e.unique_id) for e in from_dict] == [(e.window_id, e.unique_id) for e in from_windows]
    assert all(e.node is None for e in from_dict)


def test_forest_with_elements_is_both_at_once() -> None:
    windows, _ = _screen()
    forest, els = forest_with_elements(windows, exclude_invisible=False)
    assert forest == to_forest(windows)
    assert els == forest_elements(windows, exclude_invisible=False)
    assert all(a.node is b.node for a, b in zip(els, forest_elements(windows, exclude_invisible=False), strict=True))


def test_a_node_reached_twice_is_listed_once() -> None:
    shared = Node("android.widget.TextView", (0, 0, 10, 10), "x")
    a = Node("android.widget.FrameLayout", (0, 0, 10, 10), children=[shared])
    b = Node("android.widget.FrameLayout", (0, 0, 10, 10), children=[shared])
    root = Node("android.widget.FrameLayout", (0, 0, 10, 10), children=[a, b])
    nodes = to_forest([Window(1, "application", 0, "", "p", (0, 0, 10, 10), root)])["windows"][0]["tree"]["nodes"]
    assert [x["unique_id"] for x in nodes] == [0, 1, 2, 3]
    assert nodes[1]["child_ids"] == [3] and nodes[2]["child_ids"] == [3]


def test_unknown_window_type_is_refused() -> None:
    root = Node("android.widget.FrameLayout", (0, 0, 10, 10))
    with pytest.raises(ValueError, match=r"ui\.WINDOW_TYPES"):
        to_forest([Window(1, "dialog", 0, "", "p", (0, 0, 10, 10), root)])
