"""The on-screen keyboard: Gboard's English QWERTY layout, key by key, as its window dumps.

Every key is a view of the input-method window (``com.google.android.inputmethod.latin``) at
Gboard's bounds on a 1080x2400 phone: a ``FrameLayout`` whose content description is what it
types (``key_pos_<row>_<col>``) or names its job (``key_pos_shift`` "Shift", ``key_pos_del``
"Delete", ``key_pos_switch_to_symbol`` "Symbol keyboard", ``key_pos_space`` "Space",
``key_pos_ime_action`` "Enter"). Tapping keys types into the focused field exactly what a Type
action of the same text would, one character per tap, so any text a task needs can be typed:

* letters, with Shift for one capital (a second tap releases it);
* ``?123``: digits and ``@ # $ _ & - + ( ) /``, ``* " ' : ; ! ?``; its ``=\\<`` key the second
  symbols page (``~ ` | • √ π ÷ × ¶ ∆``, ``£ € ¥ ¢ ^ ° = { } \\``, ``% © ® ™ ✓ [ ]``); ``ABC``
  goes back to the letters;
* comma, space, full stop, Delete and Enter on every page.

The keyboard opens on its letters. Not modelled: auto-capitals, suggestions (the header strip is
drawn empty), long-press alternatives, the emoji key (its slot is left out, as Gboard does with
the emoji switch off: the space bar takes it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gui_gym.android.sim.widgets import KEYBOARD_PACKAGE, KEYBOARD_TOP, NAV_TOP, Inapplicable
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PAGES = ("letters", "shifted", "symbols", "more_symbols")

# Gboard's rows on a 1080x2400 screen (the keyboard holder spans 1517-2274; its header 1517-1633)
ROWS_Y = ((1654, 1808), (1808, 1963), (1963, 2118), (2118, 2274))
_PITCH, _LEFT, _RIGHT = 107, 5, SCREEN_W - 5
_WIDE = 160  # Shift, Delete, ?123, Enter: a key and a half

#: the characters of each page's first three rows
CHARS: dict[str, tuple[str, str, str]] = {
    "letters": ("qwertyuiop", "asdfghjkl", "zxcvbnm"),
    "symbols": ("1234567890", "@#$_&-+()/", "*\"':;!?"),
    "more_symbols": ("~`|•√π÷×¶∆", "£€¥¢^°={}\\", "%©®™✓[]"),
}


def _key(rid: str, box: tuple[int, int, int, int], desc: str, on_tap: object, style: str) -> Node:
    return Node(
        "android.widget.FrameLayout",
        box,
        desc=desc,
        package=KEYBOARD_PACKAGE,
        rid=f"{KEYBOARD_PACKAGE}:id/{rid}",
        focusable=True,
        on_tap=on_tap,  # type: ignore[arg-type]
        role="key",
        style=style,
    )


def build_keyboard(dev: Device) -> Node:
    """The keyboard window's views for the page ``dev.state.keys`` shows."""
    page = dev.state.keys
    chars = CHARS["symbols" if page == "symbols" else "more_symbols" if page == "more_symbols" else "letters"]
    upper = page == "shifted"

    def typer(ch: str, name: str = "") -> object:
        def tap() -> str:
            try:
                done = dev.type_text(ch)
            except Inapplicable as e:  # a key a phone takes, even when the field refuses it
                return f'Tap the "{name or ch}" key (nothing happens: {e})'
            if dev.state.keys == "shifted":
                dev.state.keys = "letters"  # Shift holds for one character
            return f'Tap the "{name or ch}" key: {done[0].lower()}{done[1:]}'

        return tap

    def goto(target: str, said: str) -> object:
        def tap() -> str:
            dev.state.keys = target
            return f"Tap {said} on the keyboard"

        return tap

    def delete() -> str:
        try:
            done = dev.type_text("", delete=1)
        except Inapplicable:
            return "Tap Delete (nothing happens: the field is empty)"
        return f"Tap Delete: {done[0].lower()}{done[1:]}"

    def enter() -> str:
        return dev.press_enter()  # the keyboard's own Enter key: the same key event

    holder = Node(
        "android.widget.LinearLayout",
        (0, KEYBOARD_TOP, SCREEN_W, NAV_TOP),
        package=KEYBOARD_PACKAGE,
        rid=f"{KEYBOARD_PACKAGE}:id/keyboard_holder",
        role="keyboard",
        style="opaque",
    )
    area = Node(
        "android.widget.LinearLayout",
        (_LEFT, ROWS_Y[0][0], _RIGHT, ROWS_Y[3][1]),
        package=KEYBOARD_PACKAGE,
        rid=f"{KEYBOARD_PACKAGE}:id/input_area",
    )
    holder.children.append(area)
    rows: list[list[Node]] = [[], [], [], []]
    for r, line in enumerate(chars):
        t, b = ROWS_Y[r]
        if r == 0 or (r == 1 and page not in ("letters", "shifted")):  # ten keys on the pitch
            spans = [(_LEFT + i * _PITCH, _LEFT + (i + 1) * _PITCH) for i in range(len(line))]
        elif r == 1:  # nine letters, centred: a and l take the half-key gaps
            spans = [(_LEFT + _PITCH // 2 + i * _PITCH, _LEFT + _PITCH // 2 + (i + 1) * _PITCH) for i in range(9)]
            spans[0], spans[-1] = (_LEFT, spans[0][1]), (spans[-1][0], _RIGHT)
        else:  # between Shift (or the page key) and Delete
            spans = [(_LEFT + _WIDE + i * _PITCH, _LEFT + _WIDE + (i + 1) * _PITCH) for i in range(len(line))]
        first = 1 if r == 2 else 0  # Shift holds key_pos_2_0's place
        for i, (ch, (left, right)) in enumerate(zip(line, spans, strict=True)):
            shown = ch.upper() if upper else ch
            rows[r].append(_key(f"key_pos_{r}_{i + first}", (left, t, right, b), shown, typer(shown), "char"))
    # The keys beside the characters: (desc, page it goes to, what a tap says, how it is drawn)
    left2 = {
        "letters": ("Shift", "shifted", "Shift", "shift"),
        "shifted": ("Shift", "letters", "Shift off", "shift_on"),
        "symbols": ("More symbols", "more_symbols", "=\\<", "=\\<"),
        "more_symbols": ("Symbol keyboard", "symbols", "?123", "?123"),
    }[page]
    letters = page in ("letters", "shifted")
    left3 = ("Symbol keyboard", "symbols", "?123", "?123") if letters else ("Letter keyboard", "letters", "ABC", "ABC")
    rid3 = "key_pos_switch_to_symbol" if letters else "key_pos_back_to_prime"
    for r, rid, (desc, target, said, style) in ((2, "key_pos_shift", left2), (3, rid3, left3)):
        t, b = ROWS_Y[r]
        rows[r].insert(0, _key(rid, (_LEFT, t, _LEFT + _WIDE, b), desc, goto(target, said), style))
    t, b = ROWS_Y[2]
    rows[2].append(_key("key_pos_del", (_RIGHT - _WIDE - 1, t, _RIGHT, b), "Delete", delete, "delete"))
    t, b = ROWS_Y[3]
    comma, period = _LEFT + _WIDE, _RIGHT - _WIDE - 1 - _PITCH
    rows[3] += [
        _key("key_pos_bottom_symbol_1", (comma, t, comma + _PITCH, b), ",", typer(","), "char"),
        _key("key_pos_space", (comma + _PITCH, t, period, b), "Space", typer(" ", "Space"), "space"),
        _key("key_pos_bottom_symbol_2", (period, t, period + _PITCH, b), ".", typer("."), "char"),
        _key("key_pos_ime_action", (_RIGHT - _WIDE - 1, t, _RIGHT, b), "Enter", enter, "enter"),
    ]
    for r, keys in enumerate(rows):
        area.children.append(
            Node(
                "android.widget.LinearLayout",
                (_LEFT, ROWS_Y[r][0], _RIGHT, ROWS_Y[r][1]),
                package=KEYBOARD_PACKAGE,
                children=keys,
            )
        )
    return holder


def key_path(text: str) -> list[str]:
    """The keys to tap, by content description, that type ``text`` from the letters page: a
    plan an agent or an expert can follow (``"\\n"`` is Enter, which only a multi-line field
    turns into a line break). Raises ``ValueError`` naming the first character no key types.

    >>> key_path("Hi, 5€")
    ['Shift', 'H', 'i', ',', 'Space', 'Symbol keyboard', '5', 'More symbols', '€']
    """
    page, taps = "letters", []
    for ch in text:
        if ch in " ,.\n":
            taps.append({" ": "Space", "\n": "Enter"}.get(ch, ch))
        elif ch.isascii() and ch.isalpha():
            if page != "letters":
                taps.append("Letter keyboard")
                page = "letters"
            taps += ["Shift", ch] if ch.isupper() else [ch]
        elif any(ch in row for row in CHARS["symbols"]):
            if page != "symbols":
                taps.append("Symbol keyboard")  # ?123 from the letters, and from the second symbols page
                page = "symbols"
            taps.append(ch)
        elif any(ch in row for row in CHARS["more_symbols"]):
            if page == "letters":
                taps.append("Symbol keyboard")
            if page != "more_symbols":
                taps.append("More symbols")
                page = "more_symbols"
            taps.append(ch)
        else:
            raise ValueError(f"no key of the keyboard types {ch!r} (at {text.index(ch)} in {text[:40]!r})")
    return taps
