"""The screen as android_env's accessibility forest, and AndroidWorld's element list read from it.

AndroidWorld's agents do not read a ``uiautomator dump``: its environment takes the
accessibility forest that android_env's forwarder app sends (every window on screen, each with
its nodes) and reduces it to ``state.ui_elements``, the list an action's ``index`` refers to.
:func:`to_forest` builds that forest from the simulator's windows, as plain JSON-able data with
the proto's field names; :func:`forest_elements` reduces it the way AndroidWorld does and keeps,
for each element, the node it came from so an ``index`` resolves to a node.

Both are pure functions of their input: nothing here reads or changes a device.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from gui_gym.android.ui import Node, Window

#: ``Window.type`` -> the proto's ``WindowType`` name (the forest carries the name, as proto JSON does).
WINDOW_TYPE_NAMES = {
    "application": "TYPE_APPLICATION",
    "input_method": "TYPE_INPUT_METHOD",
    "system": "TYPE_SYSTEM",
    "accessibility_overlay": "TYPE_ACCESSIBILITY_OVERLAY",
    "split_screen_divider": "TYPE_SPLIT_SCREEN_DIVIDER",
}

# Standard action ids of ``AccessibilityNodeInfo`` (ACTION_FOCUS = 1 << 0 ... ACTION_SET_TEXT = 1 << 21).
ACTION_FOCUS = 1
ACTION_CLEAR_FOCUS = 2
ACTION_SELECT = 4
ACTION_CLEAR_SELECTION = 8
ACTION_CLICK = 16
ACTION_LONG_CLICK = 32
ACTION_ACCESSIBILITY_FOCUS = 64
ACTION_SCROLL_FORWARD = 4096
ACTION_SCROLL_BACKWARD = 8192
ACTION_SET_TEXT = 2097152


# -- the forest ------------------------------------------------------------------------------


def to_forest(windows: Iterable[Window]) -> dict[str, Any]:
    """The accessibility forest of ``windows`` as android_env's forwarder would send it.

    Returns ``{"windows": [...]}`` shaped like ``AndroidAccessibilityForest`` (proto field names,
    every field present, enums by name). Windows come in ascending ``layer`` (the forwarder
    reverses ``getWindows()``, which lists the topmost first); each window's nodes come
    breadth-first from its root, ``unique_id`` numbering them in that order from 0 within the
    window and ``depth`` counting levels from the root.
    """
    return _build(windows)[0]


def _build(windows: Iterable[Window]) -> tuple[dict[str, Any], list[list[Node]]]:
    """The forest and, per forest window, its nodes indexed by ``unique_id``."""
    ordered = sorted(windows, key=lambda w: w.layer)  # stable: equal layers keep their order
    out, sources = [], []
    for w in ordered:
        nodes, src = _tree(w)
        out.append(_window_dict(w, nodes))
        sources.append(src)
    return {"windows": out}, sources


def _window_dict(w: Window, nodes: list[dict[str, Any]]) -> dict[str, Any]:
    try:
        kind = WINDOW_TYPE_NAMES[w.type]
    except KeyError:
        raise ValueError(
            f"window {w.id} has type {w.type!r}; give it one of {sorted(WINDOW_TYPE_NAMES)} (ui.WINDOW_TYPES)"
        ) from None
    return {
        "bounds_in_screen": _rect(w.bounds),
        "display_id": 0,
        "id": w.id,
        "layer": w.layer,
        "title": w.title,
        "window_type": kind,
        "is_accessibility_focused": False,
        "is_active": w.active,
        "is_focused": w.focused,
        "is_in_picture_in_picture_mode": False,
        "tree": {"nodes": nodes},
    }


def _tree(w: Window) -> tuple[list[dict[str, Any]], list[Node]]:
    """The window's nodes level by level, as the forwarder walks them.

    A node gets its id the first time it is met (the root, then each parent's children in
    order), which is also the order nodes are emitted: ``nodes[i]["unique_id"] == i``. A node
    reachable twice is emitted once, as the forwarder's seen-set does.
    """
    ids: dict[int, int] = {id(w.root): 0}
    order: list[Node] = [w.root]
    depth = [0]
    drawing = [0]  # place among siblings: the simulator paints children in order
    queue: deque[int] = deque([0])
    while queue:
        uid = queue.popleft()
        for i, child in enumerate(order[uid].children):
            if id(child) not in ids:
                ids[id(child)] = len(order)
                order.append(child)
                depth.append(depth[uid] + 1)
                drawing.append(i)
                queue.append(ids[id(child)])
    nodes = [
        _node_dict(n, uid, depth[uid], drawing[uid], [ids[id(c)] for c in n.children], w) for uid, n in enumerate(order)
    ]
    return nodes, order


def _node_dict(n: Node, uid: int, depth: int, drawing: int, child_ids: list[int], w: Window) -> dict[str, Any]:
    editable = n.field is not None
    hint = _hint(n)
    # The cursor of a field sits after its text; other nodes have no selection (-1).
    selection = -1 if not editable else 0 if _shows_hint(n) else len(n.text)
    return {
        "unique_id": uid,
        "bounds_in_screen": _rect(n.bounds),
        "class_name": n.cls,
        "content_description": n.desc,
        "hint_text": hint,
        "package_name": n.package or w.package,  # every real node names its package
        "text": n.text,
        "text_selection_start": selection,
        "text_selection_end": selection,
        "view_id_resource_name": n.rid,
        "window_id": w.id,
        "is_checkable": n.checkable,
        "is_checked": n.checked,
        "is_clickable": n.clickable,
        "is_editable": editable,
        "is_enabled": n.enabled,
        "is_focusable": n.focusable,
        "is_focused": n.focused,
        "is_long_clickable": n.long_clickable,
        "is_password": n.password,
        "is_scrollable": n.scrollable,
        "is_selected": n.selected,
        "is_visible_to_user": n.visible,
        "actions": [{"id": a, "label": ""} for a in _actions(n, editable)],
        "child_ids": child_ids,
        "clickable_spans": [],
        "depth": depth,
        "labeled_by_id": 0,
        "label_for_id": 0,
        "drawing_order": drawing,
        "tooltip_text": "",
    }


def _shows_hint(n: Node) -> bool:
    """An empty field shows its hint as its text (widgets.field marks it with the hint style)."""
    return n.field is not None and n.style == "hint"


def _hint(n: Node) -> str:
    """The node's hint: an explicit ``hint`` attribute, else the hint an empty field shows."""
    hint = getattr(n, "hint", None)
    if isinstance(hint, str):
        return hint
    return n.text if _shows_hint(n) else ""


def _actions(n: Node, editable: bool) -> list[int]:
    """The standard actions the node's flags imply, in ascending id order.

    Modelled on a plain View's defaults: every view offers select, clear selection and
    accessibility focus; focus or clear focus when focusable; click and long click when enabled.
    """
    acts = [ACTION_SELECT, ACTION_CLEAR_SELECTION]
    if n.focusable:
        acts.append(ACTION_CLEAR_FOCUS if n.focused else ACTION_FOCUS)
    if n.enabled and n.clickable:
        acts.append(ACTION_CLICK)
    if n.enabled and n.long_clickable:
        acts.append(ACTION_LONG_CLICK)
    acts.append(ACTION_ACCESSIBILITY_FOCUS)
    if n.scrollable:
        acts += [ACTION_SCROLL_FORWARD, ACTION_SCROLL_BACKWARD]
    if editable:
        acts.append(ACTION_SET_TEXT)
    return sorted(acts)


def _rect(b: Sequence[int]) -> dict[str, int]:
    l, t, r, bottom = b
    return {"left": l, "top": t, "right": r, "bottom": bottom}


# -- AndroidWorld's element list ---------------------------------------------------------------


@dataclass
class BoundingBox:
    """A box as AndroidWorld's ``representation_utils.BoundingBox`` (same fields, same order)."""

    x_min: float | int
    x_max: float | int
    y_min: float | int
    y_max: float | int

    @property
    def center(self) -> tuple[float, float]:
        return (self.x_min + self.x_max) / 2.0, (self.y_min + self.y_max) / 2.0

    @property
    def width(self) -> float | int:
        return self.x_max - self.x_min

    @property
    def height(self) -> float | int:
        return self.y_max - self.y_min

    @property
    def area(self) -> float | int:
        return self.width * self.height


@dataclass
class UIElement:
    """One entry of AndroidWorld's ``state.ui_elements``.

    Same class name, fields, order and defaults as AndroidWorld's ``representation_utils.UIElement``,
    so its agents read these unchanged and their prompts (which print ``str(element)``) are the
    same text. The forest path fills ``resource_name`` (not ``resource_id``) and leaves ``tooltip``
    and ``metadata`` unset, as AndroidWorld's does.
    """

    text: str | None = None
    content_description: str | None = None
    class_name: str | None = None
    bbox: BoundingBox | None = None
    bbox_pixels: BoundingBox | None = None
    hint_text: str | None = None
    is_checked: bool | None = None
    is_checkable: bool | None = None
    is_clickable: bool | None = None
    is_editable: bool | None = None
    is_enabled: bool | None = None
    is_focused: bool | None = None
    is_focusable: bool | None = None
    is_long_clickable: bool | None = None
    is_scrollable: bool | None = None
    is_selected: bool | None = None
    is_visible: bool | None = None
    package_name: str | None = None
    resource_name: str | None = None
    tooltip: str | None = None
    resource_id: str | None = None
    metadata: dict[str, Any] | None = None


class ForestElement(NamedTuple):
    """An element of the reduced list with where it came from.

    ``node`` is the simulator node (``None`` when the list was read from a forest dict alone);
    ``window_id`` and ``unique_id`` locate it in the forest either way.
    """

    element: UIElement
    node: Node | None
    window_id: int
    unique_id: int


def forest_elements(
    forest_or_windows: Mapping[str, Any] | Iterable[Window],
    *,
    exclude_invisible: bool = True,
    screen_size: tuple[int, int] | None = None,
) -> list[ForestElement]:
    """AndroidWorld's element list for a forest (or for windows, through :func:`to_forest`).

    Window by window in forest order, node by node in tree order, it keeps the nodes that are
    leaves, carry a content description, or scroll; ``exclude_invisible`` drops those not visible
    to the user. The default is what AndroidWorld's environment passes when it fills
    ``state.ui_elements`` (its function's own default is ``False``). ``screen_size`` (width,
    height) also fills the normalised ``bbox``; AndroidWorld's environment leaves it ``None``.
    """
    if isinstance(forest_or_windows, Mapping):
        return _reduce(forest_or_windows, None, exclude_invisible, screen_size)
    forest, sources = _build(forest_or_windows)
    return _reduce(forest, sources, exclude_invisible, screen_size)


def forest_with_elements(
    windows: Iterable[Window],
    *,
    exclude_invisible: bool = True,
    screen_size: tuple[int, int] | None = None,
) -> tuple[dict[str, Any], list[ForestElement]]:
    """``to_forest(windows)`` and ``forest_elements(windows, ...)``, building the forest once."""
    forest, sources = _build(windows)
    return forest, _reduce(forest, sources, exclude_invisible, screen_size)


def _reduce(
    forest: Mapping[str, Any],
    sources: list[list[Node]] | None,
    exclude_invisible: bool,
    screen_size: tuple[int, int] | None,
) -> list[ForestElement]:
    out = []
    for wi, window in enumerate(forest.get("windows", [])):
        for node in window.get("tree", {}).get("nodes", []):
            if node.get("child_ids") and not node.get("content_description") and not node.get("is_scrollable"):
                continue
            if exclude_invisible and not node.get("is_visible_to_user", False):
                continue
            uid = node.get("unique_id", 0)
            src = sources[wi][uid] if sources is not None else None
            out.append(ForestElement(_element(node, screen_size), src, window.get("id", 0), uid))
    return out


def _element(node: Mapping[str, Any], screen_size: tuple[int, int] | None) -> UIElement:
    """A forest node as AndroidWorld's ``UIElement``: empty strings become ``None``, flags stay."""
    r = node.get("bounds_in_screen", {})
    pixels = BoundingBox(r.get("left", 0), r.get("right", 0), r.get("top", 0), r.get("bottom", 0))
    bbox = None
    if screen_size is not None:
        w, h = screen_size
        bbox = BoundingBox(pixels.x_min / w, pixels.x_max / w, pixels.y_min / h, pixels.y_max / h)
    return UIElement(
        text=node.get("text") or None,
        content_description=node.get("content_description") or None,
        class_name=node.get("class_name") or None,
        bbox=bbox,
        bbox_pixels=pixels,
        hint_text=node.get("hint_text") or None,
        is_checked=node.get("is_checked", False),
        is_checkable=node.get("is_checkable", False),
        is_clickable=node.get("is_clickable", False),
        is_editable=node.get("is_editable", False),
        is_enabled=node.get("is_enabled", False),
        is_focused=node.get("is_focused", False),
        is_focusable=node.get("is_focusable", False),
        is_long_clickable=node.get("is_long_clickable", False),
        is_scrollable=node.get("is_scrollable", False),
        is_selected=node.get("is_selected", False),
        is_visible=node.get("is_visible_to_user", False),
        package_name=node.get("package_name") or None,
        resource_name=node.get("view_id_resource_name") or None,
    )


def dump_elements(root: Node) -> list[ForestElement]:
    """Every node of a dump in pre-order, as AndroidWorld's ``xml_dump_to_ui_elements`` reads a
    ``uiautomator dump`` (its ``A11yMethod.UIAUTOMATOR`` path): ``bbox`` in pixels like
    ``bbox_pixels``, ``resource_id`` (not ``resource_name``) from ``resource-id``, strings kept
    as they are (``""`` stays ``""``), ``is_visible`` true, ``is_editable`` and ``hint_text`` unset.
    An invisible node and what it holds are not in a dump, so not here either."""
    out = []
    for uid, n in enumerate(_dumped_nodes(root)):
        l, t, r, b = n.bounds
        pixels = BoundingBox(l, r, t, b)
        e = UIElement(
            text=n.text,
            content_description=n.desc,
            class_name=n.cls,
            bbox=pixels,
            bbox_pixels=pixels,
            **_flags(n),
            is_visible=True,
            package_name=n.package,
            resource_id=n.rid,
        )
        out.append(ForestElement(e, n, 0, uid))
    return out


def _dumped_nodes(root: Node) -> list[Node]:
    """The nodes a dump writes, in document order: invisible subtrees left out."""
    out, stack = [], [root]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(c for c in reversed(n.children) if c.visible)
    return out


def element_box(e: UIElement) -> tuple[int, int, int, int]:
    """An element's pixel bounds as ``(left, top, right, bottom)``: what an action's ``element`` takes."""
    b = e.bbox_pixels
    if b is None:
        raise ValueError("the element has no pixel bounds")
    return int(b.x_min), int(b.y_min), int(b.x_max), int(b.y_max)


def element_center(e: UIElement) -> tuple[int, int]:
    """The pixel an AndroidWorld ``index`` action touches: ``int`` of ``bbox_pixels.center``."""
    b = e.bbox_pixels
    if b is None:
        raise ValueError("the element has no pixel bounds")
    x, y = b.center
    return int(x), int(y)


def window_elements(windows: Iterable[Window], *, exclude_invisible: bool = True) -> list[ForestElement]:
    """:func:`forest_elements` of ``windows`` without building the forest: the same records in
    the same order (windows by layer, nodes breadth-first), at a fraction of the cost. The env
    reads this every step, so the records are built positionally."""
    out = []
    for w in sorted(windows, key=lambda w: w.layer):
        order = [w.root]
        for n in order:  # breadth-first (a window's nodes form a tree): the list grows while read
            order.extend(n.children)
        for uid, n in enumerate(order):
            if n.children and not n.desc and not n.scrollable:
                continue
            shown = n.visible
            if exclude_invisible and not shown:
                continue
            l, t, r, b = n.bounds
            field = n.field is not None
            e = UIElement(
                n.text or None,
                n.desc or None,
                n.cls or None,
                None,
                BoundingBox(l, r, t, b),
                (_hint(n) or None) if field else None,
                n.checked,
                n.checkable,
                n.clickable,
                field,
                n.enabled,
                n.focused,
                n.focusable,
                n.long_clickable,
                n.scrollable,
                n.selected,
                shown,
                (n.package or w.package) or None,
                n.rid or None,
            )
            out.append(ForestElement(e, n, w.id, uid))
    return out


def _flags(n: Node) -> dict[str, bool]:
    """A node's state flags under ``UIElement``'s names."""
    return {
        "is_checked": n.checked,
        "is_checkable": n.checkable,
        "is_clickable": n.clickable,
        "is_enabled": n.enabled,
        "is_focused": n.focused,
        "is_focusable": n.focusable,
        "is_long_clickable": n.long_clickable,
        "is_scrollable": n.scrollable,
        "is_selected": n.selected,
    }
