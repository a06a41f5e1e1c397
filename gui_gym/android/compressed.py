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
            LinearLayout;click;Wi-Fi|Off;[0,99,999,188]
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

from gui_gym.android.ui import _BAD_XML, SCREEN_H, SCREEN_W, Node

__all__ = [
    "COMPRESSED_FORMATS",
    "DEFAULT_FORMAT",
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
_ACTIONS = (("clickable", "click"), ("scrollable", "scroll"), ("long_clickable", "long-click"), ("checkable", "check"))


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
        "action",
        "bounds",
        "checkable",
        "checked",
        "children",
        "clickable",
        "cls",
        "desc",
        "focusable",
        "func",
        "long_clickable",
        "out",
        "parent",
        "password",
        "removed",
        "rid",
        "scrollable",
        "selected",
        "text",
    )

    def __init__(self) -> None:
        self.children: list[_V] = []
        self.parent: _V | None = None
        self.removed = False
        self.func = ""
        self.action = ""


class _Ctx(NamedTuple):
    remain: bool  # App. C's remain_nodes: keep off-screen and tiny nodes
    min_w: float  # nodes this narrow or short are dropped (0.5% of the largest node)
    min_h: float


def _functional(
    checkable: bool,
    checked: bool,
    clickable: bool,
    focusable: bool,
    scrollable: bool,
    long_clickable: bool,
    password: bool,
    selected: bool,
) -> bool:
    return checkable or checked or clickable or focusable or scrollable or long_clickable or password or selected


def _on_screen(b: tuple[int, int, int, int], pb: tuple[int, int, int, int] | None, ctx: _Ctx) -> bool:
    """App. C.1 as the code does it: valid bounds, inside the nearest kept ancestor, not tiny."""
    if ctx.remain:
        return True
    x1, y1, x2, y2 = b
    if not (x1 >= 0 and y1 >= 0 and x1 < x2 and y1 < y2):
        return False
    if pb is not None and not (x1 >= pb[0] and y1 >= pb[1] and x2 <= pb[2] and y2 <= pb[3]):
        return False
    return not (x2 - x1 <= ctx.min_w or y2 - y1 <= ctx.min_h)


def _ctx(max_bounds: tuple[int, int, int, int], remain: bool) -> _Ctx:
    w, h = max_bounds[2] - max_bounds[0], max_bounds[3] - max_bounds[1]
    return _Ctx(remain, w * 0.005, h * 0.005)


def _dumped(s: str) -> str:
    """A text as a dump carries it: characters XML cannot hold become U+FFFD."""
    if s.isalnum() or not s:
        return s
    out = s.translate(_BAD_XML)
    if not out.isascii() and any(0xD800 <= ord(c) <= 0xDFFF for c in out):
        out = "".join("\ufffd" if 0xD800 <= ord(c) <= 0xDFFF else c for c in out)
    return out


def _largest(bounds: Iterator[tuple[int, int, int, int]]) -> tuple[int, int, int, int]:
    """The first node of largest area, in document order (the compressor's ``maxBounds``)."""
    best, area = (0, 0, 0, 0), 0
    for b in bounds:
        a = (b[2] - b[0]) * (b[3] - b[1])
        if a > area:
            best, area = b, a
    return best


def _kept_from_tree(nodes: list[Node], pb: tuple[int, int, int, int] | None, ctx: _Ctx, out: list[_V]) -> None:
    """App. C.1-C.2 (``mid_order_remove``): a removed node's children take its place."""
    for n in nodes:
        b = n.bounds
        keep = _on_screen(b, pb, ctx) and (
            n.text
            or n.desc
            or _functional(
                n.checkable,
                n.checked,
                n.clickable,
                n.focusable,
                n.scrollable,
                n.long_clickable,
                n.password,
                n.selected,
            )
        )
        if not keep:
            _kept_from_tree(n.children, pb, ctx, out)
            continue
        v = _V()
        v.cls, v.text, v.desc, v.rid = n.cls.split(".")[-1], _dumped(n.text), _dumped(n.desc), n.rid
        v.checkable, v.checked, v.clickable, v.focusable = n.checkable, n.checked, n.clickable, n.focusable
        v.scrollable, v.long_clickable, v.password, v.selected = n.scrollable, n.long_clickable, n.password, n.selected
        v.bounds = v.out = b
        _kept_from_tree(n.children, b, ctx, v.children)
        out.append(v)


_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")


def _xml_bounds(e: ET.Element) -> tuple[int, int, int, int]:
    m = _BOUNDS.fullmatch(e.get("bounds", ""))
    if m is None:
        raise ValueError(f"a node without integer bounds [x1,y1][x2,y2]: {e.attrib}")
    return int(m[1]), int(m[2]), int(m[3]), int(m[4])


def _kept_from_xml(elems: list[ET.Element], pb: tuple[int, int, int, int] | None, ctx: _Ctx, out: list[_V]) -> None:
    """:func:`_kept_from_tree` for a parsed dump."""
    for e in elems:
        if e.tag != "node":
            continue
        a = e.attrib
        b = _xml_bounds(e)
        t = a.get
        flags = [
            t(k) == "true"
            for k in (
                "checkable",
                "checked",
                "clickable",
                "focusable",
                "scrollable",
                "long-clickable",
                "password",
                "selected",
            )
        ]
        text, desc = t("text", ""), t("content-desc", "")
        if not (_on_screen(b, pb, ctx) and (text or desc or _functional(*flags))):
            _kept_from_xml(list(e), pb, ctx, out)
            continue
        v = _V()
        v.cls, v.text, v.desc, v.rid = t("class", "").split(".")[-1], text, desc, t("resource-id", "")
        v.checkable, v.checked, v.clickable, v.focusable, v.scrollable, v.long_clickable, v.password, v.selected = flags
        v.bounds = v.out = b
        _kept_from_xml(list(e), b, ctx, v.children)
        out.append(v)


def _link(root: _V) -> None:
    for c in root.children:
        c.parent = root
        _link(c)


def _preorder(v: _V) -> Iterator[_V]:
    stack = list(reversed(v.children))
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _attributes(root: _V) -> None:
    """C.3 (``preprocess_attribute``): the texts (``text desc``) and action words of each node."""
    for v in _preorder(root):
        v.func = v.text + (" " + v.desc if v.desc else "")
        words = [word for attr, word in _ACTIONS if getattr(v, attr)]
        v.action = " ".join(words) if words else ("focusable" if v.focusable else "")
        p = v.parent
        if p is not root and p is not None and "material_clock_face" in p.rid:
            v.action += " click"  # the released code's fix for the clock face's numbers


def _fold(root: _V, width: int, height: int) -> None:
    """v3+ ``merge_clickable_subtree``: a clickable node takes its plain descendants' texts."""
    nodes = list(_preorder(root))
    order = [v for v in nodes if v.clickable] + [v for v in nodes if v.long_clickable]
    limit = 0.5 * height * width
    for v in order:
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


# The released code edits an lxml tree while iterating it; these reproduce lxml's semantics.
def _next_sibling(v: _V) -> _V | None:
    p = v.parent
    if p is None:
        return None
    kids = p.children
    i = _index(kids, v) + 1
    return kids[i] if i < len(kids) else None


def _index(kids: list[_V], v: _V) -> int:
    for i, k in enumerate(kids):
        if k is v:
            return i
    return -1


def _children(v: _V) -> Iterator[_V]:
    """lxml's child iterator: the next sibling is fixed when the current one is handed out."""
    cur = v.children[0] if v.children else None
    while cur is not None:
        nxt = _next_sibling(cur)
        yield cur
        cur = nxt


def _insert(parent: _V, index: int, v: _V) -> None:
    """lxml's ``insert``: before the index-th child (negative from the end), else appended."""
    kids = parent.children
    j = index if index >= 0 else len(kids) + index
    target = kids[j] if 0 <= j < len(kids) else None
    if v.parent is not None:
        del v.parent.children[_index(v.parent.children, v)]
    kids = parent.children
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
    keep = (
        len(v.children) > 1
        or v.checkable
        or v.checked
        or v.scrollable
        or v.long_clickable
        or v.password
        or v.selected
        or bool(v.text)
        or bool(v.desc)
    )
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


def _scale(root: _V, width: int, height: int) -> None:
    """v4 ``scale_bound_both_side``: bounds to 0..999; a later node whose scaled box repeats an
    earlier one's keeps its pixel bounds unless it is interactive (as the released code does)."""
    fw, fh = _MAX_LIMIT / width, _MAX_LIMIT / height
    limit = 0.5 * height * width
    raw_of: dict[tuple[int, int, int, int], tuple[int, int, int, int]] = {}
    matchable: dict[tuple[int, int, int, int], bool] = {}
    for v in _preorder(root):
        x1, y1, x2, y2 = b = v.bounds
        area = (x2 - x1) * (y2 - y1)
        if v.clickable or v.long_clickable:
            m = area <= limit
        else:
            m = v.scrollable
        scaled = (int(x1 * fw), int(y1 * fh), int(x2 * fw), int(y2 * fh))
        prev = raw_of.get(scaled)
        if prev is not None:
            if not m:
                continue
            if matchable[prev] and b != prev and area > (prev[2] - prev[0]) * (prev[3] - prev[1]):
                continue
        matchable[b] = m
        raw_of[scaled] = b
        v.out = scaled


def _line(v: _V, pixel_bounds: bool) -> str:
    """``merge_attribute_in_one_line`` (v3 and v4): ``Class;actions states;texts;bounds``."""
    states = ""
    if v.checkable:
        states += " checked" if v.checked else " unchecked"
    if v.password:
        states += " password"
    if v.selected:
        states += " selected"
    x1, y1, x2, y2 = v.out
    box = f"[{x1},{y1}][{x2},{y2}]" if pixel_bounds else f"[{x1},{y1},{x2},{y2}]"
    head = v.cls + ";" if v.cls else ""
    return f"{head}{v.action}{states};{v.func};{box}"


def _render(root: _V, fmt: str) -> str:
    lines: list[str] = []
    released = fmt == "mobilerl"
    step = "    "

    def walk(v: _V, indent: str) -> None:
        for c in v.children:
            line = _line(c, pixel_bounds=not released)
            lines.append(indent + (_TAG.sub("", line) if released else line))
            walk(c, indent + step)

    walk(root, step if released else "")
    if released:
        return "\n".join([MOBILERL_HEADER, *lines])
    return "\n".join(lines)


def _mobilerl(root: _V, fmt: str, width: int, height: int) -> str:
    _link(root)
    _attributes(root)
    if fmt == "mobilerl":
        _fold(root, width, height)
        _drop_wrappers(root, [], root)
        _scale(root, width, height)
    return _render(root, fmt)


# -- gui-gym's indexed form ------------------------------------------------------------------
class _Flat(NamedTuple):
    cls: str
    text: str
    desc: str
    rid: str
    bounds: tuple[int, int, int, int]
    clickable: bool
    long_clickable: bool
    scrollable: bool
    checkable: bool
    checked: bool
    focused: bool
    selected: bool
    enabled: bool


def _indexed(nodes: list[tuple[int, _Flat]]) -> str:
    """``[i] Class "text" desc="…" id=name flags [x1,y1][x2,y2]`` for each informative node, indented
    by the number of informative ancestors; ``nodes`` is (depth, node) in document order."""
    out: list[str] = []
    shown: list[int] = []  # depths of the informative ancestors of the current node
    for idx, (depth, n) in enumerate(nodes):
        while shown and shown[-1] >= depth:
            shown.pop()
        if not (
            n.text or n.desc or n.clickable or n.long_clickable or n.scrollable or n.checkable or n.cls == "EditText"
        ):
            continue
        l, t, r, b = n.bounds
        parts = ["  " * len(shown), f"[{idx}] ", n.cls]
        if n.text:
            parts.append(f' "{_one_line(n.text)}"')
        if n.desc:
            parts.append(f' desc="{_one_line(n.desc)}"')
        if n.rid:
            parts.append(f" id={n.rid.rsplit('/', 1)[-1]}")
        flags = [
            word
            for on, word in (
                (n.clickable, "clickable"),
                (n.long_clickable, "long-clickable"),
                (n.scrollable, "scrollable"),
                (n.checkable, "checked" if n.checked else "unchecked"),
                (n.focused, "focused"),
                (n.selected, "selected"),
                (not n.enabled, "disabled"),
            )
            if on
        ]
        if flags:
            parts.append(" " + ",".join(flags))
        parts.append(f" [{l},{t}][{r},{b}]")
        out.append("".join(parts))
        shown.append(depth)
    return "\n".join(out)


def _one_line(s: str) -> str:
    s = s.replace("\n", "\\n").replace('"', '\\"')
    return s if len(s) <= 200 else s[:197] + "..."


def _flat_tree(root: Node) -> list[tuple[int, _Flat]]:
    out: list[tuple[int, _Flat]] = []
    stack = [(root, 0)]
    while stack:
        n, d = stack.pop()
        out.append(
            (
                d,
                _Flat(
                    n.cls.rsplit(".", 1)[-1],
                    _dumped(n.text),
                    _dumped(n.desc),
                    n.rid,
                    n.bounds,
                    n.clickable,
                    n.long_clickable,
                    n.scrollable,
                    n.checkable,
                    n.checked,
                    n.focused,
                    n.selected,
                    n.enabled,
                ),
            )
        )
        stack.extend((c, d + 1) for c in reversed(n.children))
    return out


def _flat_xml(top: list[ET.Element]) -> list[tuple[int, _Flat]]:
    out: list[tuple[int, _Flat]] = []
    stack = [(e, 0) for e in reversed(top)]
    while stack:
        e, d = stack.pop()
        if e.tag != "node":
            continue
        t = e.get
        out.append(
            (
                d,
                _Flat(
                    t("class", "").rsplit(".", 1)[-1],
                    t("text", ""),
                    t("content-desc", ""),
                    t("resource-id", ""),
                    _xml_bounds(e),
                    *(
                        t(k) == "true"
                        for k in (
                            "clickable",
                            "long-clickable",
                            "scrollable",
                            "checkable",
                            "checked",
                            "focused",
                            "selected",
                        )
                    ),
                    t("enabled", "true") == "true",
                ),
            )
        )
        stack.extend((c, d + 1) for c in reversed(e))
    return out


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
        return _indexed(_flat_tree(root))
    ctx = _ctx(_largest(n.bounds for n in root.walk()), remain_nodes)
    top = _V()
    _kept_from_tree([root], None, ctx, top.children)
    return _mobilerl(top, fmt, width, height)


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
        return _indexed(_flat_xml(top_level))
    everything = (_xml_bounds(e) for e in hierarchy.iter("node"))
    ctx = _ctx(_largest(everything), remain_nodes)
    top = _V()
    _kept_from_xml(top_level, None, ctx, top.children)
    return _mobilerl(top, fmt, width, height)


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
    """A 0..999 box back in pixels: each edge at the first pixel that scales to it."""
    fx, fy = width / _MAX_LIMIT, height / _MAX_LIMIT
    x1, y1, x2, y2 = box
    return math.ceil(x1 * fx), math.ceil(y1 * fy), math.ceil(x2 * fx), math.ceil(y2 * fy)


def is_system_bounds(bounds: tuple[int, int, int, int], height: int = SCREEN_H) -> bool:
    """Whether a box lies in the status bar or the navigation bar band of the screen (how a
    reader of a format without packages or resource ids tells the system bars apart)."""
    return bounds[3] <= 0.04 * height or bounds[1] >= 0.95 * height
