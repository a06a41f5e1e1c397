"""Android's text selection: the floating toolbar a long press on a text field opens (Cut, Copy,
Paste, Select all) and what its items do with the field and the phone's clipboard.

The device keeps which field's toolbar shows (:class:`TextSelection` in its state), adds the
toolbar's view tree to the active window (:func:`text_toolbar`) and asks :func:`toolbar_items`
for the items the field's text and the clipboard allow.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gui_gym.android.actions import MAX_QUOTE, clip_text
from gui_gym.android.sim.widgets import (
    FIELD_H,
    KEYBOARD_TOP,
    MAX_FIELD_CHARS,
    NAV_TOP,
    STATUS_H,
    FormHost,
    Inapplicable,
)
from gui_gym.android.ui import SCREEN_W, Node, flatten

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device, DeviceState

TEXT_TOOLBAR_H = 126  # 48 dp at 420 dpi
FLOATING_TOOLBAR_TAG = "floating_toolbar"  # the content description Android gives the toolbar


class TextSelection:
    """The text-selection toolbar's field, ``host.form[key]``, while the toolbar shows: the
    whole text selected (``whole``) or only the cursor, at the end of the text. Plain data in
    :class:`~gui_gym.android.sim.device.DeviceState`, like the screens it points into."""

    def __init__(self, host: FormHost, key: str, whole: bool = False) -> None:
        self.host = host
        self.key = key
        self.whole = whole

    def on(self, host: FormHost, key: str) -> bool:
        """Whether this is the selection of ``host.form[key]``."""
        return self.host is host and self.key == key


def text_toolbar(
    package: str,
    anchor: tuple[int, int, int, int],
    items: Sequence[tuple[str, Callable[[], Any]]],
    bottom: int = NAV_TOP,
) -> Node:
    """Android's floating text-selection toolbar (the view tree of ``FloatingToolbar``'s popup)
    for the text at ``anchor`` (a field's line): a row of menu items ``(title, on_tap)`` above
    it, below it when there is no room, over its end when there is none below ``bottom`` either
    (the keyboard's top while it shows). As on a phone each item is a clickable ``LinearLayout`` whose
    content description is its title, holding a TextView
    ``android:id/floating_toolbar_menu_item_text`` with the title; the panel's description is
    ``floating_toolbar``."""
    widths = [60 + 24 * len(title) for title, _ in items]
    w = sum(widths)
    l, t, r, b = anchor
    x = max(24, min(SCREEN_W - 24 - w, (l + r) // 2 - w // 2))
    y = t - 20 - TEXT_TOOLBAR_H
    if y < STATUS_H + 10:
        y = b + 20
    if y + TEXT_TOOLBAR_H > bottom - 10:
        y = max(STATUS_H + 10, bottom - 10 - TEXT_TOOLBAR_H)
    box = (x, y, x + w, y + TEXT_TOOLBAR_H)
    buttons = []
    for (title, on_tap), iw in zip(items, widths, strict=True):
        label = Node(
            "android.widget.TextView",
            (x + 30, y + 30, x + iw - 30, y + TEXT_TOOLBAR_H - 30),
            title,
            rid="android:id/floating_toolbar_menu_item_text",
            package=package,
            role="text",
            style=40,
        )
        item_box = (x, y, x + iw, y + TEXT_TOOLBAR_H)
        buttons.append(
            Node(
                "android.widget.LinearLayout",
                item_box,
                desc=title,
                package=package,
                on_tap=on_tap,
                focusable=True,
                label=title,
                children=[label],
            )
        )
        x += iw
    panel = Node("android.widget.LinearLayout", box, package=package, children=buttons)
    container = Node(
        "android.widget.RelativeLayout",
        box,
        desc=FLOATING_TOOLBAR_TAG,
        package=package,
        role="panel",
        style="opaque",
        children=[panel],
    )
    return Node("android.widget.LinearLayout", box, package=package, children=[container])


def toolbar_items(state: DeviceState, sel: TextSelection, field: Node) -> list[tuple[str, Callable[[], str]]]:
    """The toolbar's items for ``sel``, in Android's order (``Editor``'s menu: Cut, Copy,
    Paste, Select all): Cut and Copy with the text selected (never in a password field),
    Paste with text on the clipboard, Select all while not all of a non-empty text is."""
    host, key, label = sel.host, sel.key, field.label
    text = host.form.get(key, "")

    def copy(cut: bool) -> str:
        state.clipboard = text
        state.selection = None
        if cut:
            host.form[key] = ""
            return f'Cut "{clip_text(text, MAX_QUOTE)}" from "{label}" to the clipboard'
        return f'Copy "{clip_text(text, MAX_QUOTE)}" from "{label}" to the clipboard'

    def paste() -> str:
        clip = state.clipboard
        if key not in host.multiline:
            clip = clip.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
        new = clip if sel.whole else text + clip
        if len(new) > MAX_FIELD_CHARS:
            raise Inapplicable(f"the field holds at most {MAX_FIELD_CHARS} characters")
        host.form[key] = new
        state.selection = None
        return f'Paste "{clip_text(clip, MAX_QUOTE)}" into "{label}"'

    def select_all() -> str:
        state.selection = TextSelection(host, key, whole=True)
        return f'Select all the text of "{label}"'

    items: list[tuple[str, Callable[[], str]]] = []
    if sel.whole and text and not field.password:
        items += [("Cut", lambda: copy(True)), ("Copy", lambda: copy(False))]
    if state.clipboard:
        items.append(("Paste", paste))
    if text and not sel.whole:
        items.append(("Select all", select_all))
    return items


def add_text_toolbar(dev: Device, root: Node, package: str) -> None:
    """The text-selection toolbar over the active window (``root``: the app's or its dialog's),
    above its field: the window's last view, so a dump of the active window shows it and it is
    drawn and touched first. (On a phone ``FloatingToolbar`` is a popup window of its own; the
    simulator keeps it in the window it belongs to, where the agents reading ``uiautomator dump``
    and the oracles find it too.)"""
    sel, fh = dev.state.selection, dev.focused_host()
    if sel is None or fh is None or not sel.on(*fh):
        return
    field = next((n for n in flatten(root) if n.field is not None and sel.on(*n.field)), None)
    items = toolbar_items(dev.state, sel, field) if field is not None else []
    if items:
        l, t, r, b = field.bounds
        line = (l, t, r, min(b, t + FIELD_H))  # the text's first line, where the selection starts
        bottom = KEYBOARD_TOP if dev.state.keyboard else NAV_TOP
        root.children.append(text_toolbar(package, line, items, bottom=bottom))
