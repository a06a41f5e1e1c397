"""Key input on the phone: where typed keys go (the focused field, or one a page focused by
itself), typing into it, Enter, and a field's name in descriptions. Mixed into
:class:`~gui_gym.android.sim.device.Device`, whose state and screens these methods read."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gui_gym.android.sim.widgets import MAX_FIELD_CHARS, FormHost, Inapplicable

if TYPE_CHECKING:
    from gui_gym.android.sim.device import DeviceState

#: ``type_text(delete=CLEAR_ALL)``: select all, then delete (AndroidWorld's ``clear_text``); a Type's
#: clear deletes ``TYPE_CLEAR_CHARS`` (100 x KEYCODE_DEL, AndroidLab).
CLEAR_ALL = 1 << 30


class KeyInput:
    """The phone's key input (a mixin of :class:`~gui_gym.android.sim.device.Device`: it uses the
    device's ``state``, ``top_screen()``, ``elements()`` and ``invalidate()``)."""

    state: DeviceState

    def focused_host(self) -> tuple[FormHost, str] | None:
        screen = self.top_screen()
        if screen is None:
            return None
        host: FormHost = screen.dialog if screen.dialog is not None else screen
        if host.focus is None:
            return None
        return host, host.focus

    def key_target(self) -> tuple[FormHost, str] | None:
        """Where key input goes: the focused field, or one a page focused by itself (its own
        script, no tap: keys reach it, as ``adb shell input text`` reaches a focused WebView)."""
        fh = self.focused_host()
        screen = self.top_screen()
        if fh is None and screen is not None and screen.dialog is None:
            claim = getattr(screen, "claim_focus", None)
            if claim is not None and claim(self):
                fh = self.focused_host()
        return fh

    def type_text(self, text: str, delete: int = 0, enter: bool = False) -> str:
        """Type ``text`` into the focused field after deleting ``delete`` characters before the
        cursor (the end of the field; :data:`CLEAR_ALL`: select all, then delete), then press Enter
        if ``enter``. Everything is checked before the field changes; an Enter that has nothing
        to do afterwards leaves the text typed and says so, as on a phone."""
        fh = self.key_target()
        if fh is None:
            raise Inapplicable("no text field has focus: tap a field first")
        host, key = fh
        typed = host.on_key_input(self, key, text, delete, enter)  # a page's field takes key input as it is
        if typed is not None:
            return typed
        old = host.form.get(key, "")
        sel = self.state.selection
        whole = sel is not None and sel.whole and sel.on(host, key)  # typing replaces the selection
        kept = "" if whole else old[: max(0, len(old) - delete)]
        if not text and kept == old:
            raise Inapplicable("nothing to type")
        bad = [
            c for c in text if (ord(c) < 0x20 and c not in "\n\t") or 0xD800 <= ord(c) <= 0xDFFF or c in "\ufffe\uffff"
        ]
        if bad:
            raise Inapplicable(f"text contains characters a keyboard cannot type: {bad[:3]!r}")
        if "\n" in text and key not in host.multiline:
            raise Inapplicable(f'"{key}" is a single-line field: type the text without line breaks, then press Enter')
        newline = enter and key in host.multiline  # Enter in a multi-line field is a line break
        if len(kept) + len(text) + newline > MAX_FIELD_CHARS:
            raise Inapplicable(f"the field holds at most {MAX_FIELD_CHARS} characters")
        host.form[key] = kept + text
        self.state.keyboard = True
        label = self.field_label(host, key)
        if kept == old:
            done = f'Type "{text}" into "{label}"'
        elif kept:
            done = f'Delete the last {len(old) - len(kept)} characters of "{label}" and type "{text}"'
        else:
            done = f'Replace the text of "{label}" with "{text}"' if text else f'Clear "{label}"'
        if not enter:
            return done
        self.invalidate()  # Enter's handler sees the typed text
        pressed = self.press_enter()  # a key event: with nothing to do, the text stays typed
        if pressed.startswith("Press Enter"):  # only the key: a line break, the next field, nothing
            return f"{done}; {pressed}"
        return f"{pressed}: {done[0].lower()}{done[1:]}, then Enter"  # Enter acted: that leads

    def field_label(self, host: FormHost, key: str) -> str:
        for n in self.elements():
            if n.field is not None and n.field[0] is host and n.field[1] == key:
                return n.label
        return key

    def _enter(self) -> str:
        fh = self.key_target()
        if fh is None:
            raise Inapplicable("no text field has focus")
        host, key = fh
        if key in host.multiline:
            old = host.form.get(key, "")
            if len(old) + 1 > MAX_FIELD_CHARS:
                raise Inapplicable(f"the field holds at most {MAX_FIELD_CHARS} characters")
            host.form[key] = old + "\n"
            return f'Press Enter for a new line in "{self.field_label(host, key)}"'
        out = host.on_enter(self, key)
        if host.focus is None:
            self.state.keyboard = False
        return out or "Press Enter"

    def press_enter(self) -> str:
        """Press Enter (``input keyevent KEYCODE_ENTER``, AndroidWorld's ``keyboard_enter``).

        A key event a phone always takes, as Back and Home are: with nothing to act on (no field
        has focus, a recipient that is not one contact, a full multi-line field) it changes
        nothing and says so, and is still a valid action that costs a step. The Enter a Type
        (AndroidLab) or input_text (AndroidWorld) presses after its text is this one too, so a
        standalone Enter after MobileRL's Type does what AndroidLab's Type does.
        """
        try:
            return self._enter()
        except Inapplicable as e:
            return f"Press Enter (nothing happens: {e})"
