"""The UI tree of one screen and its uiautomator XML (compressed forms: :mod:`gui_gym.android.compressed`).

A :class:`Node` is what ``uiautomator dump`` reports for one view, plus the behaviour the
simulator attaches to it (tap, long press, scroll, text entry). Behaviour is never
serialised: the XML an agent reads carries exactly the attributes a real device's dump has.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

SCREEN_W, SCREEN_H = 1080, 2400
#: System UI's package, and the resource ids (after ``:id/``) of its status and navigation bars.
SYSTEM_PACKAGE = "com.android.systemui"
SYSTEM_IDS = frozenset(
    {"clock", "back", "home", "recent_apps", "overview", "status_bar", "navigation_bar", "navigation_bar_frame"}
)

_XML_HEADER = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"

# Characters XML 1.0 cannot carry; they are shown as U+FFFD in dumps (state keeps the text).
_BAD_XML = {c: "\ufffd" for c in range(0x20) if c not in (0x09, 0x0A, 0x0D)}
_BAD_XML.update({0xFFFE: "\ufffd", 0xFFFF: "\ufffd"})
_SURROGATE = re.compile("[\ud800-\udfff]")  # lone surrogates: no UTF-8 can carry them
_ESCAPE = {
    ord("&"): "&amp;",
    ord("<"): "&lt;",
    ord(">"): "&gt;",
    ord('"'): "&quot;",
    0x0A: "&#10;",
    0x0D: "&#13;",
    0x09: "&#9;",
}


def dumped_text(s: str) -> str:
    """A text as a dump carries it: characters XML cannot hold, and lone surrogates, become U+FFFD."""
    if s.isalnum() or not s:
        return s
    out = s.translate(_BAD_XML)
    return out if out.isascii() else _SURROGATE.sub("\ufffd", out)


def xml_escape(s: str) -> str:
    """Escape an attribute value of :func:`dumped_text`."""
    if s.isalnum() or not s:
        return s
    return dumped_text(s).translate(_ESCAPE)


def _b(v: bool) -> str:
    return "true" if v else "false"


class Node:
    """One view in the hierarchy.

    ``cls`` is the Android class (``android.widget.Button``); ``rid`` the resource id;
    ``desc`` the content description. ``label`` is the human name used in action
    descriptions (defaults to text or desc). ``role`` picks how the renderer draws it.
    """

    __slots__ = (
        "bounds",
        "checkable",
        "checked",
        "children",
        "clickable",
        "cls",
        "desc",
        "enabled",
        "field",
        "focusable",
        "focused",
        "label",
        "long_clickable",
        "on_long_press",
        "on_scroll",
        "on_tap",
        "package",
        "password",
        "picture",
        "rid",
        "role",
        "scrollable",
        "selected",
        "style",
        "text",
        "visible",
    )

    def __init__(
        self,
        cls: str,
        bounds: tuple[int, int, int, int],
        text: str = "",
        *,
        rid: str = "",
        desc: str = "",
        package: str = "",
        clickable: bool = False,
        long_clickable: bool = False,
        checkable: bool = False,
        checked: bool = False,
        focusable: bool = False,
        focused: bool = False,
        scrollable: bool = False,
        enabled: bool = True,
        password: bool = False,
        selected: bool = False,
        visible: bool = True,
        children: list[Node] | None = None,
        on_tap: Callable[[], Any] | None = None,
        on_long_press: Callable[[], Any] | None = None,
        on_scroll: Callable[[str, float], bool | str] | None = None,
        field: Any = None,
        label: str = "",
        role: str = "",
        style: Any = None,
        picture: Callable[[], Any] | None = None,
    ) -> None:
        self.cls = cls
        self.bounds = bounds
        self.text = text
        self.rid = rid
        self.desc = desc
        self.package = package
        self.clickable = clickable or on_tap is not None
        self.long_clickable = long_clickable or on_long_press is not None
        self.checkable = checkable
        self.checked = checked
        self.focusable = focusable
        self.focused = focused
        self.scrollable = scrollable or on_scroll is not None
        self.enabled = enabled
        self.password = password
        self.selected = selected
        self.visible = visible  # an invisible view is in the accessibility tree, not in a dump
        self.children = children if children is not None else []
        self.on_tap = on_tap
        self.on_long_press = on_long_press
        self.on_scroll = on_scroll
        self.field = field
        self.label = label
        self.role = role
        self.style = style
        self.picture = picture  # role "picture": gives the PIL image it shows (pixels only)

    # -- geometry -------------------------------------------------------------------------
    def contains(self, x: int, y: int) -> bool:
        l, t, r, b = self.bounds
        return l <= x < r and t <= y < b

    def center(self) -> tuple[int, int]:
        l, t, r, b = self.bounds
        return (l + r) // 2, (t + b) // 2

    @property
    def name(self) -> str:
        """The human name of this element, for action descriptions."""
        return self.label or self.text or self.desc or self.rid.rsplit("/", 1)[-1]

    def walk(self) -> Iterator[Node]:
        """Pre-order traversal (paint order: later nodes lie on top)."""
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def __repr__(self) -> str:
        return f"Node({self.cls.rsplit('.', 1)[-1]}, {self.name!r}, {self.bounds})"

    def to_dict(self) -> dict[str, Any]:
        """The element as AndroidWorld's ``UIElement`` fields."""
        l, t, r, b = self.bounds
        return {
            "text": self.text or None,
            "content_description": self.desc or None,
            "class_name": self.cls,
            "bbox_pixels": {"x_min": l, "y_min": t, "x_max": r, "y_max": b},
            "is_checkable": self.checkable,
            "is_checked": self.checked,
            "is_clickable": self.clickable,
            "is_editable": self.field is not None,
            "is_enabled": self.enabled,
            "is_focused": self.focused,
            "is_focusable": self.focusable,
            "is_long_clickable": self.long_clickable,
            "is_scrollable": self.scrollable,
            "is_selected": self.selected,
            "package_name": self.package,
            "resource_id": self.rid or None,
        }


#: Window types, as Android's ``AccessibilityWindowInfo`` names them (``TYPE_APPLICATION`` ...).
WINDOW_TYPES = ("application", "input_method", "system", "accessibility_overlay", "split_screen_divider")


@dataclass
class Window:
    """One window on screen, as the accessibility service sees it.

    ``uiautomator dump`` writes the active window's ``root`` alone; AndroidWorld's accessibility
    forest lists every window with its nodes, lowest ``layer`` first (android_env's forwarder
    reverses ``getWindows()``, which lists the topmost first). ``layer`` orders the windows
    (higher is nearer the user); ``type`` is one of :data:`WINDOW_TYPES`.
    """

    id: int
    type: str
    layer: int
    title: str
    package: str
    bounds: tuple[int, int, int, int]
    root: Node
    active: bool = False
    focused: bool = False


def clip(node: Node, top: int, bottom: int) -> Node | None:
    """Drop the parts of ``node`` outside the visible band ``[top, bottom)``, in place.

    Like a real dump, views scrolled or covered off-screen are absent and partly visible
    views report their visible bounds.
    """
    l, t, r, b = node.bounds
    if b <= top or t >= bottom:
        return None
    if t < top or b > bottom:
        node.bounds = (l, max(t, top), r, min(b, bottom))
    kids = []
    for c in node.children:
        c2 = clip(c, top, bottom)
        if c2 is not None:
            kids.append(c2)
    node.children = kids
    return node


def flatten(root: Node) -> list[Node]:
    """All nodes in pre-order: the list AndroidWorld's ``index`` refers to."""
    out: list[Node] = []
    stack = [root]
    while stack:  # walk()'s order, without a generator: read on every tap's hit test
        n = stack.pop()
        out.append(n)
        if n.children:
            stack.extend(reversed(n.children))
    return out


def to_xml(root: Node | list[Node]) -> str:
    """Serialise as ``uiautomator dump`` does (one ``hierarchy``, nested ``node`` elements).

    A list of roots (one per window) becomes sibling top-level nodes, numbered in order, as
    androidx's ``UiDevice.dumpWindowHierarchy`` and uiautomator2 write every window."""
    parts = [_XML_HEADER, '<hierarchy rotation="0">']
    for i, r in enumerate(root if isinstance(root, list) else [root]):
        head, tail = _xml_entry(r)[1:3]
        parts += (head, str(i), tail)
    parts.append("</hierarchy>")
    return "".join(parts)


#: The attributes of a dump's ``node``, in the order AOSP's dumper writes them (``NAF`` comes
#: first when a node has it).
DUMP_ATTRIBUTES = (
    "index", "text", "resource-id", "class", "package", "content-desc", "checkable", "checked", "clickable",
    "enabled", "focusable", "focused", "scrollable", "long-clickable", "password", "selected", "bounds",
)  # fmt: skip
_FLAGS: dict[tuple[bool, ...], str] = {}


def _flags(n: Node) -> str:
    """The ten boolean attributes as XML, memoised: a screen has few distinct combinations."""
    key = (
        n.checkable,
        n.checked,
        n.clickable,
        n.enabled,
        n.focusable,
        n.focused,
        n.scrollable,
        n.long_clickable,
        n.password,
        n.selected,
    )
    out = _FLAGS.get(key)
    if out is None:
        out = _FLAGS[key] = " ".join(f'{k}="{_b(v)}"' for k, v in zip(DUMP_ATTRIBUTES[6:16], key, strict=True))
    return out


# Containers uiautomator never flags as NAF (AOSP AccessibilityNodeInfoDumper).
_NAF_EXCLUDED = (
    "android.widget.GridView",
    "android.widget.GridLayout",
    "android.widget.ListView",
    "android.widget.TableLayout",
)


def is_naf(n: Node) -> bool:
    """Whether ``uiautomator dump`` marks ``n`` ``NAF="true"`` (not accessibility friendly): an
    enabled clickable node with no text and no content description, none in its subtree either,
    and not of an excluded container class."""
    if not (n.clickable and n.enabled) or n.text or n.desc or n.cls.endswith(_NAF_EXCLUDED):
        return False
    return not any(c.text or c.desc for c in n.walk())


# A screen is rebuilt from its state after every action, mostly as the same nodes: each node's
# XML is kept under its content (its attributes and its children's entries), so an unchanged
# subtree, or a whole unchanged window, costs one lookup per node instead of being written again.
# An entry is (id, head, tail, has_text): the node's XML is head + its index + tail; has_text
# says whether its subtree holds a text or a description (what an ancestor's NAF depends on).
_XmlEntry = tuple[int, str, str, bool]
_XML_MEMO: dict[tuple, _XmlEntry] = {}
# An entry's tail holds its whole subtree's XML, so the memo is bounded by the characters it
# holds (about 32 MB), and emptied when full: the screens in use are written again at once.
_XML_MEMO_CHARS = 32_000_000  # about 40 MB of ASCII dumps; more where texts are not Latin-1
_XML_LOCK = threading.Lock()
_xml_chars = 0
_xml_ids = itertools.count()


def _xml_entry(n: Node) -> _XmlEntry:
    kids: list[Any] = []
    kids_text = False
    shown: list[tuple[int, _XmlEntry]] = []
    for i, c in enumerate(n.children):
        if c.visible:
            e = _xml_entry(c)
            kids.append(e[0])
            shown.append((i, e))
            kids_text = kids_text or e[3]
        else:  # left out of the dump, its index stays taken; only its text can reach an ancestor's NAF
            hidden = any(d.text or d.desc for d in c.walk())
            kids.append(-2 if hidden else -1)
            kids_text = kids_text or hidden
    key = (
        n.cls, n.bounds, n.text, n.rid, n.package, n.desc, n.checkable, n.checked, n.clickable, n.enabled,
        n.focusable, n.focused, n.scrollable, n.long_clickable, n.password, n.selected, tuple(kids),
    )  # fmt: skip
    entry = _XML_MEMO.get(key)
    if entry is not None:
        return entry
    naf = n.clickable and n.enabled and not (n.text or n.desc or kids_text) and not n.cls.endswith(_NAF_EXCLUDED)
    l, t, r, b = n.bounds
    tail = (
        f'" text="{xml_escape(n.text)}" resource-id="{n.rid}" class="{n.cls}" package="{n.package}" '
        f'content-desc="{xml_escape(n.desc)}" {_flags(n)} bounds="[{l},{t}][{r},{b}]"'
    )
    if shown:
        tail += ">" + "".join(f"{h}{i}{rest}" for i, (_, h, rest, _) in shown) + "</node>"
    else:
        tail += " />"
    head = '<node NAF="true" index="' if naf else '<node index="'
    entry = (next(_xml_ids), head, tail, bool(n.text or n.desc) or kids_text)
    global _xml_chars
    if len(tail) > _XML_MEMO_CHARS:  # larger than the whole memo: written each time
        return entry
    with _XML_LOCK:  # envs in threads share the memo: its count stays its size
        if _xml_chars + len(tail) > _XML_MEMO_CHARS:
            _XML_MEMO.clear()
            _xml_chars = 0
        _XML_MEMO[key] = entry
        _xml_chars += len(tail)
    return entry
