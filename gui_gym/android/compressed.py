"""Compressed UI text: MobileRL's formats (its released compressor and its paper's App. C) and
gui-gym's indexed form, from a uiautomator XML dump or from a :class:`~gui_gym.android.ui.Node`
tree. Both inputs give the same text for the same screen, so a real device's dump reads exactly
as the simulator's.

Formats (:data:`COMPRESSED_FORMATS`; ``"compressed"`` names :data:`DEFAULT_FORMAT`):

``"mobilerl"``
    What MobileRL's released agents read: ``UIXMLTree`` of ``android_lab/utils_mobile/xml_tool.py``
    in THUDM/MobileRL at the ``version: "v4"`` its inference configs select. Two header lines,
    then one line per kept node, nested by four spaces per level::

        The screenshot's size is 999x999. The value in bounds is relative to the screenshot's size.
        The tree structure description of the current screenshot is shown:
            LinearLayout;click;Wi-Fi|Off;[0,99,999,189]
                Switch;click check unchecked;OFF;[795,115,962,173]

    A line is ``Class;actions states;texts;[x1,y1,x2,y2]``, bounds scaled to 0-999 of the
    screen. A clickable (or long-clickable) node no larger than half the screen takes the texts
    of its non-interactive descendants (``text desc`` of each, joined by ``|``) and keeps only its
    interactive descendants as children; single-child wrappers without text are then dropped.
``"mobilerl_appc"``
    The paper's App. C (off-screen and redundant nodes removed, attributes simplified), with the
    line syntax of its example: ``TextView;;Audio Recorder;[221,1095][858,1222]`` (pixel bounds,
    no header, no folding: App. C describes none). Where App. C is silent (the order of the flag
    words, nesting), the released code's ``v3`` path is followed.
``"indexed"``
    gui-gym's own form: ``[i] Class "text" desc="…" id=name flags [x1,y1][x2,y2]``, where ``i``
    is the node's position in ``info["ui_elements"]`` (AndroidWorld's ``index``).

Only what a dump carries is read (class, text, content-desc, resource-id, the boolean flags,
bounds, nesting), never the simulator's behaviour. The released compressor's app-specific fixes
for eleven Chinese apps (its ``specialCheck.py``) and its OCR option are not reproduced.

Example:
    >>> from gui_gym.android.ui import Node
    >>> row = Node("android.widget.LinearLayout", (0, 238, 1080, 454), clickable=True, children=[
    ...     Node("android.widget.TextView", (42, 270, 800, 340), "Wi-Fi"),
    ...     Node("android.widget.TextView", (42, 340, 800, 400), "Off")])
    >>> print(compress_tree(Node("android.widget.FrameLayout", (0, 0, 1080, 2400), children=[row])))
    The screenshot's size is 999x999. The value in bounds is relative to the screenshot's size.
    The tree structure description of the current screenshot is shown:
        LinearLayout;click;Wi-Fi|Off;[0,99,999,188]
    >>> compress_xml('<hierarchy><node index="0" text="Audio Recorder" resource-id="" '
    ...     'class="android.widget.TextView" package="p" content-desc="" checkable="false" '
    ...     'checked="false" clickable="false" enabled="true" focusable="false" focused="false" '
    ...     'scrollable="false" long-clickable="false" password="false" selected="false" '
    ...     'bounds="[221,1095][858,1222]" /></hierarchy>', "mobilerl_appc")
    'TextView;;Audio Recorder;[221,1095][858,1222]'
"""

from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import NamedTuple

from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node, dumped_text

__all__ = [
    "COMPRESSED_FORMATS",
    "DEFAULT_FORMAT",
    "MOBILERL_HEADER",
    "CompressedNode",
    "compress_tree",
    "compress_xml",
    "detect_format",
    "is_system_bounds",
    "parse_compressed",
    "resolve_format",
]

#: The compressed formats by name, with the peer each reproduces.
COMPRESSED_FORMATS: dict[str, str] = {
    "mobilerl": "MobileRL's released compressor (THUDM/MobileRL xml_tool.py, version v4 of its configs)",
    "mobilerl_appc": "MobileRL paper, App. C (pixel bounds, no clickable folding)",
    "indexed": "gui-gym: one line per informative node, indexed like info['ui_elements']",
}
#: What ``ui_format="compressed"`` means: the format MobileRL's released agents read.
DEFAULT_FORMAT = "mobilerl"

#: The header the released compressor writes above the tree (``traverse_dict``, version v4).
MOBILERL_HEADER = (
    "The screenshot's size is 999x999. The value in bounds is relative to the screenshot's size.\n"
    "The tree structure description of the current screenshot is shown:"
)
_MAX_LIMIT = 999  # the released compressor scales bounds to 0..999 (``max_limit``)
_TAG = re.compile(r"\[n[0-9a-f]*\]")  # node tags it removes from each line, text included


def resolve_format(fmt: str) -> str:
    """The format a name selects (``"compressed"`` is :data:`DEFAULT_FORMAT`)."""
    name = DEFAULT_FORMAT if fmt == "compressed" else fmt
    if name not in COMPRESSED_FORMATS:
        raise ValueError(f"unknown compressed format {fmt!r}: use 'compressed' or one of {sorted(COMPRESSED_FORMATS)}")
    return name


# -- the view tree the MobileRL pipeline works on --------------------------------------------
class _V:
    """One kept node with the mutable state of the released compressor's passes."""

    __slots__ = (
        "action",  # C.3 action words ("click scroll", "focusable", ...)
        "bounds",
        "children",
        "clickable",
        "cls",
        "func",  # C.3 texts: "text desc", and after folding its descendants' too
        "long_clickable",
        "meaningful",  # kept by remove_redundant_huge_node for its own sake (bar having children)
        "parent",
        "removed",
        "rid",
        "scrollable",
        "states",  # " checked"/" unchecked", " password", " selected"
    )

    def __init__(self) -> None:
        self.children: list[_V] = []
        self.parent: _V | None = None
        self.removed = False
        self.rid = ""


Box = tuple[int, int, int, int]


class _Build(NamedTuple):
    """What one pass over the source needs and gathers."""

    remain: bool  # App. C's remain_nodes: keep off-screen and tiny nodes
    min_w: float  # nodes this narrow or short are dropped (0.5% of the largest node)
    min_h: float
    clicks: list[_V]  # clickable nodes in document order (the folding pass visits them first)
    longs: list[_V]  # long-clickable ones
    largest: list  # [area, bounds] of the first largest node seen, kept or not


def _action(clickable: bool, scrollable: bool, long_clickable: bool, checkable: bool, focusable: bool) -> str:
    """C.3 (``preprocess_attribute``): the words of a node's true actions, else "focusable"."""
    words = [
        w
        for on, w in (
            (clickable, "click"),
            (scrollable, "scroll"),
            (long_clickable, "long-click"),
            (checkable, "check"),
        )
        if on
    ]
    return " ".join(words) if words else ("focusable" if focusable else "")


_ACTION = {
    (a, b, c, d, e): _action(a, b, c, d, e)
    for a in (False, True)
    for b in (False, True)
    for c in (False, True)
    for d in (False, True)
    for e in (False, True)
}


def _largest(bounds: Iterator[Box]) -> Box:
    """The first node of largest area, in document order (the compressor's ``maxBounds``)."""
    best, area = (0, 0, 0, 0), 0
    for b in bounds:
        a = (b[2] - b[0]) * (b[3] - b[1])
        if a > area:
            best, area = b, a
    return best


def _start(largest: Box, remain: bool) -> _Build:
    w, h = largest[2] - largest[0], largest[3] - largest[1]
    return _Build(remain, w * 0.005, h * 0.005, [], [], [0, (0, 0, 0, 0)])


def _same_shape(a: Box, b: Box) -> bool:
    return a[2] - a[0] == b[2] - b[0] and a[3] - a[1] == b[3] - b[1]


def _kept(b: Box, pb: Box | None, build: _Build) -> bool:
    """App. C.1 as the code does it: valid bounds, inside the nearest kept ancestor, not tiny."""
    if build.remain:
        return True
    x1, y1, x2, y2 = b
    if not (0 <= x1 < x2 and 0 <= y1 < y2):
        return False
    if pb is not None and not (x1 >= pb[0] and y1 >= pb[1] and x2 <= pb[2] and y2 <= pb[3]):
        return False
    return not (x2 - x1 <= build.min_w or y2 - y1 <= build.min_h)


def _states(checkable: bool, checked: bool, password: bool, selected: bool) -> str:
    out = (" checked" if checked else " unchecked") if checkable else ""
    return out + (" password" if password else "") + (" selected" if selected else "")


_STATES = {
    (a, b, c, d): _states(a, b, c, d)
    for a in (False, True)
    for b in (False, True)
    for c in (False, True)
    for d in (False, True)
}


def _add(
    parent: _V,
    build: _Build,
    cls: str,
    text: str,
    desc: str,
    rid: str,
    b: Box,
    flags: list[bool],
) -> _V:
    """Attach a kept node (before its children are built: document order) with its C.3 texts
    (``text desc``) and action words; ``flags`` in :data:`_FLAGS` order."""
    checkable, checked, clickable, focusable, scrollable, long_clickable, password, selected = flags
    v = _V()
    v.cls, v.rid, v.bounds = cls, rid, b
    v.clickable, v.scrollable, v.long_clickable = clickable, scrollable, long_clickable
    v.func = text + " " + desc if desc else text
    action = _ACTION[(clickable, scrollable, long_clickable, checkable, focusable)]
    v.action = action + " click" if "material_clock_face" in parent.rid else action  # the clock face's numbers
    v.states = _STATES[(checkable, checked, password, selected)]
    v.meaningful = bool(checkable or checked or scrollable or long_clickable or password or selected or text or desc)
    v.parent = parent
    parent.children.append(v)
    if clickable:
        build.clicks.append(v)
    if long_clickable:
        build.longs.append(v)
    return v


def _from_tree(nodes: list[Node], parent: _V, pb: Box | None, build: _Build) -> None:
    """App. C.1-C.3 (``mid_order_remove``, ``preprocess_attribute``) over a Node tree: a removed
    node's children take its place. (:func:`_kept` inlined: this runs on every step of an env.)"""
    remain, min_w, min_h, clicks, longs, largest = build
    for n in nodes:
        x1, y1, x2, y2 = b = n.bounds
        area = (x2 - x1) * (y2 - y1)
        if area > largest[0]:
            largest[0], largest[1] = area, b
        if (
            remain
            or (
                0 <= x1 < x2
                and 0 <= y1 < y2
                and (pb is None or (x1 >= pb[0] and y1 >= pb[1] and x2 <= pb[2] and y2 <= pb[3]))
                and not (x2 - x1 <= min_w or y2 - y1 <= min_h)
            )
        ) and (
            n.text
            or n.desc
            or n.checkable
            or n.checked
            or n.clickable
            or n.focusable
            or n.scrollable
            or n.long_clickable
            or n.password
            or n.selected
        ):
            text, desc = n.text, n.desc
            if not text.isprintable():
                text = dumped_text(text)
            if not desc.isprintable():
                desc = dumped_text(desc)
            cls = _SHORT.get(n.cls)
            if cls is None:
                cls = _SHORT[n.cls] = n.cls.split(".")[-1]
            ck, cd, cl, fo, sc, lc, pw, se = (
                n.checkable,
                n.checked,
                n.clickable,
                n.focusable,
                n.scrollable,
                n.long_clickable,
                n.password,
                n.selected,
            )
            v = _V()  # what _add does, inlined
            v.cls, v.rid, v.bounds, v.clickable, v.scrollable, v.long_clickable = cls, n.rid, b, cl, sc, lc
            v.func = text + " " + desc if desc else text
            action = _ACTION[(cl, sc, lc, ck, fo)]
            v.action = action + " click" if "material_clock_face" in parent.rid else action
            v.states = _STATES[(ck, cd, pw, se)]
            v.meaningful = bool(ck or cd or sc or lc or pw or se or text or desc)
            v.parent = parent
            parent.children.append(v)
            if cl:
                clicks.append(v)
            if lc:
                longs.append(v)
            if n.children:
                _from_tree(n.children, v, b, build)
        elif n.children:
            _from_tree(n.children, parent, pb, build)


_SHORT: dict[str, str] = {}  # class name -> its last component


_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")
_FLAGS = ("checkable", "checked", "clickable", "focusable", "scrollable", "long-clickable", "password", "selected")


def _xml_bounds(e: ET.Element) -> Box:
    m = _BOUNDS.fullmatch(e.get("bounds", ""))
    if m is None:
        raise ValueError(f"a node without integer bounds [x1,y1][x2,y2]: {e.attrib}")
    return int(m[1]), int(m[2]), int(m[3]), int(m[4])


def _from_xml(elems: list[ET.Element], parent: _V, pb: Box | None, build: _Build) -> None:
    """:func:`_from_tree` for a parsed dump."""
    for e in elems:
        if e.tag != "node":
            continue
        b = _xml_bounds(e)
        get = e.get
        flags = [get(k) == "true" for k in _FLAGS]
        text, desc = get("text", ""), get("content-desc", "")
        if _kept(b, pb, build) and (text or desc or any(flags)):
            cls = get("class", "").split(".")[-1]
            v = _add(parent, build, cls, text, desc, get("resource-id", ""), b, flags)
            _from_xml(list(e), v, b, build)
        else:
            _from_xml(list(e), parent, pb, build)


def _fold(build: _Build, width: int, height: int) -> None:
    """v3+ ``merge_clickable_subtree``: a clickable node no larger than half the screen takes its
    plain descendants' texts and keeps only its interactive descendants, as children."""
    limit = 0.5 * height * width
    for v in build.clicks + build.longs:
        x1, y1, x2, y2 = v.bounds
        if (x2 - x1) * (y2 - y1) <= limit:
            _combine(v)


def _combine(node: _V) -> None:
    keep: list[_V] = []

    def texts(v: _V) -> str:
        out = v.func
        for c in v.children:
            if c.clickable or c.long_clickable or c.scrollable:
                keep.append(c)
            else:
                t = texts(c)
                if t != "":
                    out += "|" + t
        return out

    func = texts(node)
    node.func = func[1:] if func[:1] == "|" else func
    for c in node.children:
        c.parent = None
    node.children = keep
    for c in keep:
        c.parent = node


def _keeps(v: _V) -> bool:
    """Whether ``remove_redundant_huge_node`` keeps a node (none of its flags but clickable and
    focusable, no text and at most one child: a wrapper it may drop)."""
    return v.meaningful or len(v.children) > 1


def _has_droppable(v: _V) -> bool:
    """Whether any node is a wrapper ``remove_redundant_huge_node`` may drop: one it does not
    keep, with grandchildren (the only shape its removal needs; until one goes, nothing moves)."""
    for c in v.children:
        if c.children and ((not _keeps(c) and any(g.children for g in c.children)) or _has_droppable(c)):
            return True
    return False


# The released code edits an lxml tree while iterating it; these reproduce lxml's semantics.
def _index(kids: list[_V], v: _V) -> int:
    for i, k in enumerate(kids):
        if k is v:
            return i
    return -1


def _children(v: _V) -> Iterator[_V]:
    """lxml's child iterator: the next sibling is fixed when the current one is handed out."""
    kids = v.children
    if not kids:
        return
    cur: _V | None = kids[0]
    i = 0
    while cur is not None:
        p = cur.parent
        nxt = None
        if p is not None:
            pk = p.children
            if not (i < len(pk) and pk[i] is cur):
                i = _index(pk, cur)
            if i + 1 < len(pk):
                nxt = pk[i + 1]
        yield cur
        cur = nxt
        i += 1


def _insert(parent: _V, index: int, v: _V) -> None:
    """lxml's ``insert``: before the index-th child (negative from the end), else appended."""
    kids = parent.children
    j = index if index >= 0 else len(kids) + index
    target = kids[j] if 0 <= j < len(kids) else None
    if v.parent is not None:
        del v.parent.children[_index(v.parent.children, v)]
    if target is None:
        kids.append(v)
    else:
        kids.insert(_index(kids, target), v)
    v.parent = parent


def _drop_wrappers(v: _V, parents: list[tuple[_V, bool]], root: _V) -> None:
    """v3+ ``remove_redundant_huge_node``: a text-less single-child ancestor of a meaningful
    node (two levels up or more) is replaced by its child, where the released code puts it."""
    if v is root:
        for c in _children(v):
            _drop_wrappers(c, [*parents, (v, True)], root)
        return
    keep = _keeps(v)
    if keep:
        fresh: list[tuple[_V, bool]] = []
        for p, p_keep in parents[:-1]:
            if not p_keep and not p.removed:
                gp = p.parent
                assert gp is not None
                index = _index(gp.children, v)
                for i, c in enumerate(_children(p)):
                    _insert(gp, index + i, c)
                del gp.children[_index(gp.children, p)]
                p.parent = None
                p.removed = True
            elif not p_keep:
                fresh.append((p, True))
        parents = [*fresh, parents[-1]]
    for c in _children(v):
        _drop_wrappers(c, [*parents, (v, keep)], root)


def _render(root: _V, fmt: str, width: int, height: int) -> str:
    """One line per node (``merge_attribute_in_one_line``), in document order, nested by four
    spaces. The released format scales bounds here (``scale_bound_both_side``, document order
    too): a node whose scaled box repeats an earlier one's keeps its pixels unless it is
    interactive, as the released code does."""
    lines: list[str] = []
    released = fmt == "mobilerl"
    fw, fh = _MAX_LIMIT / width, _MAX_LIMIT / height
    limit = 0.5 * height * width
    raw_of: dict[Box, Box] = {}
    matchable: dict[Box, bool] = {}

    def walk(v: _V, indent: str) -> None:
        for c in v.children:
            head = f"{c.cls};{c.action}{c.states};{c.func};" if c.cls else f"{c.action}{c.states};{c.func};"
            if released:
                x1, y1, x2, y2 = b = c.bounds
                box = (int(x1 * fw), int(y1 * fh), int(x2 * fw), int(y2 * fh))
                prev = raw_of.get(box)
                area = (x2 - x1) * (y2 - y1)
                m = area <= limit if (c.clickable or c.long_clickable) else c.scrollable
                if prev is None or (
                    m and not (matchable[prev] and b != prev and area > (prev[2] - prev[0]) * (prev[3] - prev[1]))
                ):
                    matchable[b] = m
                    raw_of[box] = b
                    x1, y1, x2, y2 = box
                line = f"{head}[{x1},{y1},{x2},{y2}]"
                if "[n" in line:
                    line = _TAG.sub("", line)
            else:
                x1, y1, x2, y2 = c.bounds
                line = f"{head}[{x1},{y1}][{x2},{y2}]"
            lines.append(indent + line)
            if c.children:
                walk(c, indent + "    ")

    walk(root, "    " if released else "")
    if released:
        return "\n".join([MOBILERL_HEADER, *lines])
    return "\n".join(lines)


def _mobilerl(top: _V, build: _Build, fmt: str, width: int, height: int) -> str:
    if fmt == "mobilerl":
        _fold(build, width, height)
        if _has_droppable(top):
            _drop_wrappers(top, [], top)
    return _render(top, fmt, width, height)


# -- gui-gym's indexed form ------------------------------------------------------------------
def _indexed_line(
    idx: int,
    depth: int,
    cls: str,
    text: str,
    desc: str,
    rid: str,
    bounds: Box,
    flags: tuple[bool, ...],
) -> str:
    """``[i] Class "text" desc="…" id=name flags [x1,y1][x2,y2]``; ``flags`` are clickable,
    long-clickable, scrollable, checkable, checked, focused, selected, enabled."""
    clickable, long_clickable, scrollable, checkable, checked, focused, selected, enabled = flags
    parts = ["  " * depth, f"[{idx}] ", cls]
    if text:
        parts.append(f' "{_one_line(text)}"')
    if desc:
        parts.append(f' desc="{_one_line(desc)}"')
    if rid:
        parts.append(f" id={rid.rsplit('/', 1)[-1]}")
    words = [
        w
        for on, w in (
            (clickable, "clickable"),
            (long_clickable, "long-clickable"),
            (scrollable, "scrollable"),
            (checkable, "checked" if checked else "unchecked"),
            (focused, "focused"),
            (selected, "selected"),
            (not enabled, "disabled"),
        )
        if on
    ]
    if words:
        parts.append(" " + ",".join(words))
    l, t, r, b = bounds
    parts.append(f" [{l},{t}][{r},{b}]")
    return "".join(parts)


def _one_line(s: str) -> str:
    s = s.replace("\n", "\\n").replace('"', '\\"')
    return s if len(s) <= 200 else s[:197] + "..."


def _indexed_tree(n: Node, depth: int, out: list[str], counter: list[int]) -> None:
    """One line per informative node (text, description, an action, a check box or a text
    field), indented by its informative ancestors; ``[i]`` counts every node."""
    idx = counter[0]
    counter[0] += 1
    if (
        n.text
        or n.desc
        or n.clickable
        or n.long_clickable
        or n.scrollable
        or n.checkable
        or n.cls == "EditText"
        or n.cls.endswith(".EditText")
    ):
        flags = (n.clickable, n.long_clickable, n.scrollable, n.checkable, n.checked, n.focused, n.selected, n.enabled)
        cls = n.cls.rsplit(".", 1)[-1]
        out.append(_indexed_line(idx, depth, cls, dumped_text(n.text), dumped_text(n.desc), n.rid, n.bounds, flags))
        depth += 1
    for c in n.children:
        _indexed_tree(c, depth, out, counter)


_INDEXED_FLAGS = ("clickable", "long-clickable", "scrollable", "checkable", "checked", "focused", "selected")


def _indexed_xml(e: ET.Element, depth: int, out: list[str], counter: list[int]) -> None:
    """:func:`_indexed_tree` for a parsed dump."""
    if e.tag != "node":
        return
    idx = counter[0]
    counter[0] += 1
    get = e.get
    cls = get("class", "").rsplit(".", 1)[-1]
    text, desc = get("text", ""), get("content-desc", "")
    flags = (*(get(k) == "true" for k in _INDEXED_FLAGS), get("enabled", "true") == "true")
    clickable, long_clickable, scrollable, checkable = flags[:4]
    if text or desc or clickable or long_clickable or scrollable or checkable or cls == "EditText":
        out.append(_indexed_line(idx, depth, cls, text, desc, get("resource-id", ""), _xml_bounds(e), flags))
        depth += 1
    for c in e:
        _indexed_xml(c, depth, out, counter)


# -- public entry points ---------------------------------------------------------------------
def compress_tree(
    root: Node,
    fmt: str = DEFAULT_FORMAT,
    *,
    width: int = SCREEN_W,
    height: int = SCREEN_H,
    remain_nodes: bool = False,
) -> str:
    """The compressed text of a UI tree (the same as :func:`compress_xml` of its dump).

    ``width``/``height`` are the screen's (MobileRL's relative bounds and half-screen rule);
    ``remain_nodes`` keeps off-screen and tiny nodes (App. C.1's ``remain_nodes=True``).
    """
    fmt = resolve_format(fmt)
    if fmt == "indexed":
        lines: list[str] = []
        _indexed_tree(root, 0, lines, [0])
        return "\n".join(lines)
    # The size rule needs the largest node first: guess the root, check while building.
    guess = root.bounds
    build = _start(guess, remain_nodes)
    top = _V()
    _from_tree([root], top, None, build)
    if not _same_shape(build.largest[1], guess):
        build = _start(build.largest[1], remain_nodes)
        top = _V()
        _from_tree([root], top, None, build)
    return _mobilerl(top, build, fmt, width, height)


def compress_xml(
    xml: str,
    fmt: str = DEFAULT_FORMAT,
    *,
    width: int = SCREEN_W,
    height: int = SCREEN_H,
    remain_nodes: bool = False,
) -> str:
    """The compressed text of a uiautomator dump (a real device's or the simulator's).

    Raises ``ValueError`` for text that is not a dump (malformed XML, a node without bounds).
    """
    fmt = resolve_format(fmt)
    try:
        hierarchy = ET.fromstring(xml.encode("utf-8"))
    except ET.ParseError as e:
        raise ValueError(f"not a uiautomator dump: {e}") from None
    if hierarchy.get("width") is not None and hierarchy.get("height") is not None:
        width, height = int(hierarchy.get("width", width)), int(hierarchy.get("height", height))  # as upstream
    top_level = [hierarchy] if hierarchy.tag == "node" else list(hierarchy)
    if fmt == "indexed":
        lines: list[str] = []
        counter = [0]
        for e in top_level:
            _indexed_xml(e, 0, lines, counter)
        return "\n".join(lines)
    everything = (_xml_bounds(e) for e in hierarchy.iter("node"))
    build = _start(_largest(everything), remain_nodes)
    top = _V()
    _from_xml(top_level, top, None, build)
    return _mobilerl(top, build, fmt, width, height)


# -- reading the text back -------------------------------------------------------------------
class CompressedNode(NamedTuple):
    """One node line of a MobileRL-format text (``"mobilerl"`` or ``"mobilerl_appc"``)."""

    depth: int
    cls: str
    #: action words and states: click, scroll, long-click, check, focusable, checked, unchecked,
    #: password, selected
    flags: frozenset[str]
    #: the node's own text (``"text desc"`` when it has both); ``""`` when it has only a description
    text: str
    #: the node's description when it has no text
    desc: str
    #: texts folded in from its descendants (the released format's ``|`` pieces)
    folded: tuple[str, ...]
    #: pixel bounds (relative bounds are scaled back to ``width`` x ``height``)
    bounds: tuple[int, int, int, int]


_APPC_END = re.compile(r";\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$")
_REL_END = re.compile(r";\[(-?\d+),(-?\d+),(-?\d+),(-?\d+)\]$")
_APPC_START = re.compile(r"^[\w$.]*;")


def detect_format(text: str) -> str | None:
    """Which compressed format ``text`` is in, or ``None`` for anything else (XML, prose)."""
    s = text.lstrip()
    if s.startswith(MOBILERL_HEADER.split("\n", 1)[0]):
        return "mobilerl"
    if re.match(r"\[\d+\] ", s):
        return "indexed"
    if _APPC_START.match(s) and any(_APPC_END.search(line) for line in s.splitlines()):
        return "mobilerl_appc"
    return None


def parse_compressed(text: str, *, width: int = SCREEN_W, height: int = SCREEN_H) -> list[CompressedNode]:
    """The node lines of a ``"mobilerl"`` or ``"mobilerl_appc"`` text, in document order.

    A text with a line break continues on the next lines (the released format writes it as
    is); a line is complete once it ends with bounds. Other text gives ``[]``.
    """
    fmt = detect_format(text)
    if fmt not in ("mobilerl", "mobilerl_appc"):
        return []
    lines = text.strip("\n").split("\n")
    if fmt == "mobilerl":
        lines = lines[2:]
    end = _REL_END if fmt == "mobilerl" else _APPC_END
    base = 4 if fmt == "mobilerl" else 0
    out: list[CompressedNode] = []
    pending: list[str] = []
    for line in lines:
        pending.append(line)
        m = end.search(line)
        if m is None:
            continue
        record = "\n".join(pending)
        pending = []
        body = record.lstrip(" ")
        depth = max(0, (len(record) - len(body) - base) // 4)
        cls, _, rest = body[: len(body) - len(m.group(0))].partition(";")
        words, _, texts = rest.partition(";")
        pieces = texts.split("|")
        own = pieces[0]
        box = tuple(int(v) for v in m.groups())
        if fmt == "mobilerl":
            box = _to_pixels(box, width, height)  # type: ignore[arg-type]
        out.append(
            CompressedNode(
                depth=depth,
                cls=cls,
                flags=frozenset(words.split()),
                text="" if own.startswith(" ") else own,
                desc=own.strip() if own.startswith(" ") else "",
                folded=tuple(p.strip() for p in pieces[1:] if p.strip()),
                bounds=box,  # type: ignore[arg-type]
            )
        )
    return out


def _to_pixels(box: tuple[int, int, int, int], width: int, height: int) -> tuple[int, int, int, int]:
    """A 0..999 box back in pixels: each edge at the first pixel that scales to it. A box with a
    value over 999 is already in pixels (the released format keeps some; MobileRL's executor
    reads them the same way, ``modify_relative_bbox``)."""
    if any(v > _MAX_LIMIT for v in box):
        return box
    fx, fy = width / _MAX_LIMIT, height / _MAX_LIMIT
    x1, y1, x2, y2 = box
    return math.ceil(x1 * fx), math.ceil(y1 * fy), math.ceil(x2 * fx), math.ceil(y2 * fy)


def is_system_bounds(bounds: tuple[int, int, int, int], height: int = SCREEN_H) -> bool:
    """Whether a box lies in the status bar or the navigation bar band of the screen (how a
    reader of a format without packages or resource ids tells the system bars apart)."""
    return bounds[3] <= 0.04 * height or bounds[1] >= 0.95 * height
