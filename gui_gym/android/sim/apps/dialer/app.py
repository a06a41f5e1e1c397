"""Phone (com.google.android.dialer): Google's dialer, as AndroidWorld's emulator has it.

The main screen (``GoogleDialtactsActivity``): the search bar ("Search contacts & places"), the
bottom navigation (Material's navigation bar: ``tab_speed_dial`` "Favorites", ``tab_call_history``
"Recents", ``tab_contacts`` "Contacts"; each item described by its name, holding its icon and
label) and the dial pad button (``dialpad_fab``, described "key pad").

- Favorites: the starred contacts of the contacts app.
- Recents: the calls made, newest first (a row's call button calls again).
- Contacts: "Create new contact" (the Contacts app's editor), then every contact of the contacts
  app by name (read-only here: a tap opens the contact in Contacts).
- The dial pad: the number (``digits``, formatted as you type, US style), the keys ``one`` …
  ``nine``, ``star``, ``zero``, ``pound`` (described "1", "2,ABC" … "0", "*", "#"; a long press on
  0 gives "+"), ``deleteButton`` ("backspace"; a long press clears) and the call button
  (``dialpad_voice_call_button``, described "dial"; with no number it recalls the last one
  dialled). Back closes the dial pad.
- A call: the in-call screen (``com.android.incallui.InCallActivity`` of the same package) with
  the name or number, "Calling…" then the call's time, and "End call" (``incall_end_call``);
  ending it adds the call to Recents.

The dial pad's number takes no typed text here (on a phone it takes hardware keys; the dialer
never raises the on-screen keyboard): dial with the keys.

Database: :class:`DialerData`, the call log (what the contacts provider's ``calls`` table keeps:
number, date, duration, type) and the call in progress.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.widgets import UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.google.android.dialer"
LABEL = "Phone"
ACTIVITY = "com.google.android.dialer.extensions.GoogleDialtactsActivity"
INCALL_ACTIVITY = "com.android.incallui.InCallActivity"
#: the bottom navigation: (title, view id)
TABS = (("Favorites", "tab_speed_dial"), ("Recents", "tab_call_history"), ("Contacts", "tab_contacts"))
#: the dial pad's keys, row by row: (digit, letters, view id)
KEYS = (
    (("1", "", "one"), ("2", "ABC", "two"), ("3", "DEF", "three")),
    (("4", "GHI", "four"), ("5", "JKL", "five"), ("6", "MNO", "six")),
    (("7", "PQRS", "seven"), ("8", "TUV", "eight"), ("9", "WXYZ", "nine")),
    (("*", "", "star"), ("0", "+", "zero"), ("#", "", "pound")),
)
OUTGOING = 2  # CallLog.Calls.OUTGOING_TYPE
CALLING = "Calling\u2026"


@dataclass
class Call:
    """A call log row: number, date (start), duration in seconds, type (outgoing 2)."""

    number: str
    date: dt.datetime
    duration: int = 0
    type: int = OUTGOING
    name: str = ""


@dataclass
class DialerData:
    calls: list[Call] = field(default_factory=list)  # oldest first
    active: Call | None = None  # the call in progress


def _db(dev: Device) -> DialerData:
    return dev.data("dialer")


def _node(cls: str, bounds: tuple[int, int, int, int], text: str = "", **kw: Any) -> Node:
    return Node(cls, bounds, text, package=PKG, **kw)


def format_number(digits: str) -> str:
    """The number as the dial pad shows it while typing (US, libphonenumber's as-you-type
    formatter): ``555-1234``, ``(555) 123-4567``, ``1 555-123-4567``, ``+1 555-123-4567``; other
    shapes (with * or #, too long) stay as typed.

    >>> [format_number(d) for d in ("555", "5551", "5551234", "55512345", "5551234567", "15551234567")]
    ['555', '555-1', '555-1234', '(555) 123-45', '(555) 123-4567', '1 555-123-4567']
    """
    if not digits or any(c in "*#" for c in digits) or "+" in digits[1:]:
        return digits
    if digits.startswith("+1"):
        rest = _grouped(digits[2:])
        return "+1 " + rest if rest is not None and digits[2:] else digits
    if digits.startswith("1") and len(digits) > 1:
        rest = _grouped(digits[1:])
        return "1 " + rest if rest is not None else digits
    if digits.startswith("+"):
        return digits
    n = len(digits)
    if n <= 3:
        return digits
    if n <= 7:
        return f"{digits[:3]}-{digits[3:]}"
    if n <= 10:
        return f"({digits[:3]}) {digits[3:6]}-{digits[6:]}"
    return digits


def _grouped(rest: str) -> str | None:
    """``555-123-4567`` grouping after a country prefix (``None``: too long to group)."""
    n = len(rest)
    if n > 10:
        return None
    if n <= 3:
        return rest
    if n <= 6:
        return f"{rest[:3]}-{rest[3:]}"
    return f"{rest[:3]}-{rest[3:6]}-{rest[6:]}"


def _contacts(dev: Device) -> list[Any]:
    """The contacts app's contacts by name (the dialer reads the contacts provider)."""
    data = dev.state.data.get("contacts")
    return data.sorted() if data is not None else []


def _name_for(dev: Device, number: str) -> str:
    key = "".join(c for c in number if c.isdigit())[-10:]
    for c in _contacts(dev):
        if key and "".join(ch for ch in c.phone if ch.isdigit())[-10:] == key:
            return c.name
    return ""


def place_call(dev: Device, number: str) -> str:
    """Dial ``number``: the in-call screen comes up."""
    call = Call(number, dev.state.now, name=_name_for(dev, number))
    _db(dev).active = call
    dev.push(InCallScreen())
    return f"call {call.name or format_number(number)}"


class DialerMain(Screen):
    """``GoogleDialtactsActivity``: the tabs, or the dial pad over them."""

    def __init__(self) -> None:
        super().__init__()
        self.tab = "Favorites"
        self.dialpad = False
        self.digits = ""

    def screen_name(self) -> str:
        return "Phone/dialpad" if self.dialpad else f"Phone/{self.tab}"

    def build(self, ui: UI, dev: Device) -> None:
        if self.dialpad:
            self._dialpad(ui, dev)
            return
        self._search_bar(ui)
        self._navigation(ui)
        {"Favorites": self._favorites, "Recents": self._recents, "Contacts": self._contacts}[self.tab](ui, dev)
        b = ui.bottom - 60
        ui.add(
            _node(
                "android.widget.ImageButton",
                (SCREEN_W - 230, b - 170, SCREEN_W - 60, b),
                desc="key pad",
                rid=f"{PKG}:id/dialpad_fab",
                clickable=True,
                on_tap=self._open_dialpad,
                role="fab",
                style="dialpad",
            )
        )

    def on_back(self, dev: Device) -> str | None:
        if self.dialpad:
            self.dialpad = False
            return "Press Back to close the dial pad"
        return None

    # -- the main screen -----------------------------------------------------------------
    def _search_bar(self, ui: UI) -> None:
        y = ui.y + 20
        box = (40, y, SCREEN_W - 40, y + 140)
        hint = _node("android.widget.TextView", (140, y + 20, 780, y + 120), "Search contacts & places", role="subtext")
        voice = _node(
            "android.widget.Button", (800, y + 20, 900, y + 120), desc="Start voice search", role="icon", style="mic"
        )
        more = _node(
            "android.widget.ImageView", (910, y + 20, 1010, y + 120), desc="More options", role="icon", style="more"
        )
        ui.add(_node("android.widget.FrameLayout", box, rid=f"{PKG}:id/open_search_bar", children=[hint, voice, more]))
        ui.y = y + 170

    def _navigation(self, ui: UI) -> None:
        h = 190
        y = ui.bottom - h
        w = SCREEN_W // len(TABS)
        for i, (name, view_id) in enumerate(TABS):
            on = name == self.tab
            box = (i * w, y, (i + 1) * w, y + h)
            cx = box[0] + w // 2
            icon = _node(
                "android.widget.ImageView",
                (cx - 36, y + 30, cx + 36, y + 102),
                rid=f"{PKG}:id/navigation_bar_item_icon_view",
            )
            text = _node(
                "android.widget.TextView",
                (box[0], y + 110, box[2], y + 170),
                name,
                rid=f"{PKG}:id/navigation_bar_item_{'large' if on else 'small'}_label_view",
                selected=on,
                role="tab",
            )
            ui.add(
                _node(
                    "android.widget.FrameLayout",
                    box,
                    desc=name,
                    rid=f"{PKG}:id/{view_id}",
                    selected=on,
                    clickable=True,
                    on_tap=lambda n=name: self._select(n),
                    role="tab",
                    label=name,
                    children=[icon, text],
                )
            )
        ui.bottom = y

    def _select(self, tab: str) -> str:
        self.tab = tab
        return f'Open the "{tab}" tab in Phone'

    def _favorites(self, ui: UI, dev: Device) -> None:
        starred = [c for c in _contacts(dev) if c.starred]

        def render(ui: UI, c: Any) -> None:
            ui.row(
                c.name,
                c.phone,
                on_tap=lambda c=c: self._call_contact(dev, c),
                rid=f"{PKG}:id/contact_name",
                icon="avatar",
            )

        ui.scroll_list(self, "favorites", starred, render, empty="No favorites yet", list_id="speed_dial_list")

    def _recents(self, ui: UI, dev: Device) -> None:
        calls = list(reversed(_db(dev).calls))

        def render(ui: UI, call: Call) -> None:
            who = call.name or format_number(call.number)
            when = call.date.strftime("%-I:%M %p")
            row = ui.row(who, f"Outgoing \u00b7 {when}", rid=f"{PKG}:id/call_log_entry", icon="phone")
            t, b = row.bounds[1], row.bounds[3]
            row.children.append(
                _node(
                    "android.widget.ImageView",
                    (SCREEN_W - 160, t + 24, SCREEN_W - 40, b - 24),
                    desc=f"Call {who}",
                    rid=f"{PKG}:id/call_button",
                    clickable=True,
                    on_tap=lambda n=call.number, w=who: f"Tap the call button of {w}: " + place_call(dev, n),
                    role="icon",
                    style="phone",
                )
            )

        ui.scroll_list(self, "recents", calls, render, empty="No recent calls", list_id="new_call_log_recycler_view")

    def _contacts(self, ui: UI, dev: Device) -> None:
        items: list[Any] = ["new", *_contacts(dev)]

        def render(ui: UI, item: Any) -> None:
            if item == "new":
                ui.row(
                    "Create new contact",
                    on_tap=lambda: self._create_contact(dev),
                    rid=f"{PKG}:id/contact_name",
                    icon="add",
                )
            else:
                ui.row(
                    item.name,
                    on_tap=lambda c=item: self._open_contact(dev, c),
                    rid=f"{PKG}:id/contact_name",
                    icon="avatar",
                )

        ui.scroll_list(self, "contacts", items, render, list_id="contacts_list")

    def _create_contact(self, dev: Device) -> str:
        from gui_gym.android.sim.apps.contacts.app import Contact, ContactEditor

        dev.launch("contacts")
        dev.push(ContactEditor(None, Contact("")))
        return 'Tap "Create new contact": the Contacts app opens its editor'

    def _open_contact(self, dev: Device, contact: Any) -> str:
        from gui_gym.android.sim.apps.contacts.app import ContactDetail

        dev.launch("contacts")
        dev.push(ContactDetail(contact.uid))
        return f'Tap "{contact.name}": the Contacts app shows the contact'

    def _call_contact(self, dev: Device, contact: Any) -> str:
        if not contact.phone:
            raise Inapplicable(f"{contact.name} has no phone number")
        return f'Tap "{contact.name}" to ' + place_call(dev, contact.phone)

    def _open_dialpad(self) -> str:
        self.dialpad = True
        return 'Tap the "key pad" button to open the dial pad'

    # -- the dial pad --------------------------------------------------------------------
    def _dialpad(self, ui: UI, dev: Device) -> None:
        top = ui.top
        y = top + 300
        shown = format_number(self.digits)
        digits = _node(
            "android.widget.EditText",
            (60, y, 880, y + 180),
            shown,
            rid=f"{PKG}:id/digits",
            role="text",
            style=64,
            focusable=True,
        )
        kids = [digits]
        if self.digits:
            kids.append(
                _node(
                    "android.widget.ImageButton",
                    (900, y + 30, 1040, y + 150),
                    desc="backspace",
                    rid=f"{PKG}:id/deleteButton",
                    clickable=True,
                    long_clickable=True,
                    on_tap=self._backspace,
                    on_long_press=self._clear,
                    role="icon",
                    style="arrow_left",
                )
            )
        ui.add(
            _node(
                "android.widget.LinearLayout",
                (0, y, SCREEN_W, y + 180),
                rid=f"{PKG}:id/digits_container",
                children=kids,
            )
        )
        y += 240
        rows = []
        for row in KEYS:
            keys = []
            for col, (digit, letters, view_id) in enumerate(row):
                x = 90 + col * 300
                box = (x, y, x + 300, y + 200)
                parts = [
                    _node(
                        "android.widget.TextView",
                        (x, y + 20, x + 300, y + 130),
                        digit,
                        rid=f"{PKG}:id/dialpad_key_number",
                        role="text",
                        style=72,
                    )
                ]
                if letters:
                    parts.append(
                        _node(
                            "android.widget.TextView",
                            (x, y + 130, x + 300, y + 180),
                            letters,
                            rid=f"{PKG}:id/dialpad_key_letters",
                            role="subtext",
                        )
                    )
                keys.append(
                    _node(
                        "android.widget.FrameLayout",
                        box,
                        desc=f"{digit},{letters}" if letters and digit != "0" else digit,
                        rid=f"{PKG}:id/{view_id}",
                        clickable=True,
                        long_clickable=digit == "0",
                        on_tap=lambda d=digit: self._press(d),
                        on_long_press=(lambda: self._press("+")) if digit == "0" else None,
                        label=digit,
                        children=parts,
                    )
                )
            rows.append(_node("android.widget.LinearLayout", (90, y, 990, y + 200), children=keys))
            y += 210
        ui.add(
            _node("android.widget.TableLayout", (90, rows[0].bounds[1], 990, y), rid=f"{PKG}:id/dialpad", children=rows)
        )
        y += 40
        ui.add(
            _node(
                "android.widget.ImageButton",
                (420, y, 660, y + 180),
                desc="dial",
                rid=f"{PKG}:id/dialpad_voice_call_button",
                clickable=True,
                on_tap=lambda: self._dial(dev),
                role="fab",
                style="phone",
            )
        )

    def _press(self, key: str) -> str:
        if len(self.digits) >= 40:
            raise Inapplicable("the number is too long")
        self.digits += key
        return f'Tap "{key}" on the dial pad ({format_number(self.digits)})'

    def _backspace(self) -> str:
        self.digits = self.digits[:-1]
        return f"Delete the last digit ({format_number(self.digits) or 'empty'})"

    def _clear(self) -> str:
        self.digits = ""
        return "Long press backspace to clear the number"

    def _dial(self, dev: Device) -> str:
        if not self.digits:
            calls = _db(dev).calls
            if not calls:
                raise Inapplicable("no number to call: dial one with the keys")
            self.digits = calls[-1].number
            return f'Tap "dial" with no number: the last number dialled ({format_number(self.digits)}) comes back'
        number, self.digits, self.dialpad = self.digits, "", False
        return 'Tap "dial" to ' + place_call(dev, number)


class InCallScreen(Screen):
    """``InCallActivity``: the call in progress and "End call"."""

    activity = INCALL_ACTIVITY

    def build(self, ui: UI, dev: Device) -> None:
        call = _db(dev).active
        if call is None:
            return
        top = ui.top
        secs = int((dev.state.now - call.date).total_seconds())
        status = CALLING if secs < 3 else f"{(secs - 3) // 60}:{(secs - 3) % 60:02d}"
        ui.add(
            _node(
                "android.widget.TextView",
                (60, top + 300, SCREEN_W - 60, top + 420),
                call.name or format_number(call.number),
                rid=f"{PKG}:id/contactgrid_contact_name",
                role="title",
                style=72,
            )
        )
        ui.add(
            _node(
                "android.widget.TextView",
                (60, top + 440, SCREEN_W - 60, top + 520),
                status,
                rid=f"{PKG}:id/contactgrid_status_text",
                role="subtext",
            )
        )
        b = ui.bottom - 200
        ui.add(
            _node(
                "android.widget.ImageButton",
                (420, b - 220, 660, b),
                desc="End call",
                rid=f"{PKG}:id/incall_end_call",
                clickable=True,
                on_tap=lambda: self._end(dev),
                role="fab",
                style="phone",
            )
        )

    def _end(self, dev: Device) -> str:
        db = _db(dev)
        call = db.active
        if call is not None:
            call.duration = max(0, int((dev.state.now - call.date).total_seconds()) - 3)
            db.calls.append(call)
            db.active = None
        dev.pop()
        return 'Tap "End call"'

    def on_back(self, dev: Device) -> str | None:
        return "Press Back (the call goes on: end it with \u201cEnd call\u201d)"


class DialerApp(App):
    name = "dialer"
    label = LABEL
    package = PKG
    activity = ACTIVITY
    aliases = ("dialer|phone",)
    color = (26, 115, 232)
    icon = "phone"

    def initial_data(self) -> DialerData:
        return DialerData()

    def root(self, dev: Device) -> Screen:
        return DialerMain()
