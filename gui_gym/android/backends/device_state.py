"""A task's state on a real phone: written over adb at the start, read back for the success check.

A device backend builds a task's start state on a *scratch* simulator (the task's own set-up,
drawn from the episode's generator), writes the part each app keeps to the phone, and at the
end reads the phone's state back into that scratch simulator, whose own success check judges
it — as AndroidWorld sets up and judges its tasks on an emulator, and with its commands:

===========  ========================================  ========================================
app          written with                              read with
===========  ========================================  ========================================
settings     ``settings put NAMESPACE KEY VALUE``      ``settings get NAMESPACE KEY``
contacts     ``pm clear com.android.providers.         ``content query --uri content://com.
             contacts``; the Contacts app's INSERT     android.contacts/data/phones``
             intent and its Save button                (name, number, starred)
messages     ``content delete --uri content://sms``;   ``content query --uri content://sms/
             ``content insert --uri content://sms/     inbox`` and ``…/sent``; what was sent in
             inbox|sent --bind …``                     the episode = sent rows not there before
markor       ``rm -rf``, ``mkdir -p``, ``printf %s     ``find DIR -type f -o -type d`` and
             'TEXT' > FILE``, ``touch -d`` under       ``cat`` of each note
             /sdcard/Documents/Markor
===========  ========================================  ========================================

AndroidWorld's Clock tasks are judged from the screen instead (:data:`SCREEN_CHECKS`: the
stopwatch running or paused, a timer entered), after ``pm clear`` of the Clock app at the start,
with AndroidWorld's predicates over the final UI dump and the focused activity. Writing the
contacts and SMS providers needs the rights AndroidWorld's emulators run with (``adb root``).

Every value from a task goes to the shell as one single-quoted word (:func:`shell_quote`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

__all__ = [
    "APP_STATES",
    "MARKOR_DIR",
    "SCREEN_CHECKS",
    "AppState",
    "DeviceError",
    "judging",
    "parse_rows",
    "shell_quote",
]

MARKOR_DIR = "/sdcard/Documents/Markor"
_CONTACTS_URI = "content://com.android.contacts/data/phones"
_CONTACT_ROW = re.compile(r"^display_name=(.*), data1=(.*), starred=(\d+)$", re.S)


class DeviceError(RuntimeError):
    """The device vanished, hung or answered something that is no answer."""


def shell_quote(text: str) -> str:
    """*text* as one single-quoted sh word: nothing in it is expanded or run.

    >>> shell_quote("it's $(here)")
    "'it'\\\\''s $(here)'"
    """
    return "'" + text.replace("'", "'\\''") + "'"


class Phone(Protocol):
    """What the app states need of a device backend."""

    def shell(self, command: str, rstrip: bool = True) -> str: ...

    def tap_text(self, text: str) -> None: ...


def parse_rows(output: str) -> list[str]:
    """The rows of a ``content query`` as the text after ``Row: N `` (a row's value may hold line
    breaks: rows are split at ``\\nRow: `` as AndroidWorld splits them)."""
    text = output.replace("\r\n", "\n").strip("\n")
    if not text or text.startswith("No result found"):
        return []
    if not text.startswith("Row: "):
        raise DeviceError(f"content query answered {text[:60]!r}, not rows")
    rows = []
    for chunk in ("\n" + text).split("\nRow: ")[1:]:
        _, _, rest = chunk.partition(" ")
        rows.append(rest)
    return rows


def _ms(t: dt.datetime) -> int:
    return int(t.replace(tzinfo=dt.UTC).timestamp() * 1000)


class AppState:
    """How one app's data goes to a phone and comes back (see the module docstring)."""

    app = ""

    def put(self, phone: Phone, scratch: Device) -> None:
        raise NotImplementedError

    def read(self, phone: Phone, scratch: Device) -> None:
        raise NotImplementedError


class SettingsState(AppState):
    app = "settings"

    def put(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.settings_keys import ANDROID_KEYS, to_android

        for (namespace, key), name in ANDROID_KEYS.items():
            value = to_android(name, scratch.state.settings[name])
            phone.shell(f"settings put {namespace} {key} {shell_quote(value)}")

    def read(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.settings_keys import ANDROID_KEYS, from_android

        for (namespace, key), name in ANDROID_KEYS.items():
            text = phone.shell(f"settings get {namespace} {key}")
            try:
                scratch.state.settings[name] = from_android(name, text)
            except ValueError:
                raise DeviceError(f"settings get {namespace} {key} answered {text[:40]!r}") from None


class ContactsState(AppState):
    app = "contacts"

    def put(self, phone: Phone, scratch: Device) -> None:
        """Clear the provider, then add each contact with the app's INSERT intent and its Save
        button (AndroidWorld's ``contacts_utils.add_contact``)."""
        if any(c.starred for c in scratch.data("contacts").contacts):
            raise DeviceError("a task that starts with starred contacts cannot be set up over adb")
        phone.shell("pm clear com.android.providers.contacts")
        for c in scratch.data("contacts").contacts:
            phone.shell(
                "am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact "
                f"-e name {shell_quote(c.name)} -e phone {shell_quote(c.phone)}"
            )
            phone.tap_text("save")
            phone.shell("input keyevent KEYCODE_BACK")

    def read(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.sim.apps.contacts.app import Contact, ContactsData

        out = phone.shell(f"content query --uri {_CONTACTS_URI} --projection display_name:data1:starred")
        book = ContactsData()
        for row in parse_rows(out):
            m = _CONTACT_ROW.match(row)
            if m is None:
                raise DeviceError(f"content query answered {row[:60]!r}, not display_name, data1 and starred")
            first, _, last = m.group(1).partition(" ")
            contact = Contact(first, last.strip(), m.group(2))
            contact.starred = m.group(3) == "1"
            book.add(contact)
        scratch.state.data["contacts"] = book


class SmsState(AppState):
    """The telephony provider's SMS (the Messages app shows them)."""

    app = "messages"
    _COLUMNS = "address:date:body"  # body last: it may hold ", " and "="

    def put(self, phone: Phone, scratch: Device) -> None:
        phone.shell("content delete --uri content://sms")
        messages = [(m.time, c.number, m) for c in scratch.data("messages").conversations for m in c.messages]
        for time, number, m in sorted(messages, key=lambda x: x[0]):
            box = "inbox" if m.incoming else "sent"
            phone.shell(
                f"content insert --uri content://sms/{box} --bind {shell_quote('address:s:' + number)} "
                f"--bind {shell_quote('body:s:' + m.text)} --bind date:l:{_ms(time)} --bind read:i:1"
            )
        self.before = self._sent(phone)

    def _rows(self, phone: Phone, box: str) -> list[tuple[str, int, str]]:
        out = phone.shell(f"content query --uri content://sms/{box} --projection {self._COLUMNS}", rstrip=False)
        rows = []
        for row in parse_rows(out):
            m = re.match(r"^address=(.*?), date=(\d+), body=(.*)$", row, re.S)
            if m is None:
                raise DeviceError(f"content query answered {row[:60]!r}, not address, date and body")
            rows.append((m.group(1), int(m.group(2)), m.group(3).rstrip("\n")))
        return rows

    def _sent(self, phone: Phone) -> list[tuple[str, int, str]]:
        return self._rows(phone, "sent")

    def read(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.sim.apps.messages.app import MessagesData

        data = MessagesData()
        sent = self._sent(phone)
        received = self._rows(phone, "inbox")
        for rows, incoming in ((received, True), (sent, False)):
            for address, ms, body in rows:
                when = dt.datetime.fromtimestamp(ms / 1000, dt.UTC).replace(tzinfo=None)
                data.add(address, body, incoming, when)
        earlier = list(getattr(self, "before", []))
        for row in sorted(sent, key=lambda r: r[1]):  # sent in the episode: not there at the start
            if row in earlier:
                earlier.remove(row)
            else:
                data.log.append((row[0], row[2]))
        scratch.state.data["messages"] = data


class MarkorState(AppState):
    """Markor's notebook: the files under :data:`MARKOR_DIR`."""

    app = "markor"

    def put(self, phone: Phone, scratch: Device) -> None:
        d = shell_quote(MARKOR_DIR)
        lines = [f"rm -rf {d} && mkdir -p {d}"]
        for e in sorted(scratch.data("markor").entries.values(), key=lambda e: e.path):
            path = shell_quote(f"{MARKOR_DIR}/{e.path}")
            stamp = shell_quote(e.mtime.strftime("%Y-%m-%d %H:%M:%S"))
            if e.is_dir:
                lines.append(f"mkdir -p {path} && touch -d {stamp} {path}")
            else:
                lines.append(f"printf %s {shell_quote(e.content)} > {path} && touch -d {stamp} {path}")
        for line in lines:
            phone.shell(line)

    def read(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.sim.apps.markor.app import Entry, MarkorData

        old = scratch.data("markor").entries
        listing = phone.shell(f"find {shell_quote(MARKOR_DIR)} -type f -o -type d")
        notebook = MarkorData()
        paths = [p.strip("\r") for p in listing.split("\n") if p.strip("\r")]
        if paths and not all(p.startswith(MARKOR_DIR) for p in paths):
            raise DeviceError(f"find {MARKOR_DIR} answered {listing[:60]!r}")
        files = set(
            phone.shell(f"find {shell_quote(MARKOR_DIR)} -type f").replace("\r", "").split("\n")
        )  # fmt: skip
        for p in sorted(paths):
            rel = p[len(MARKOR_DIR) :].lstrip("/")
            if not rel:
                continue
            is_dir = p not in files
            content = "" if is_dir else phone.shell(f"cat {shell_quote(p)}", rstrip=False)
            mtime = old[rel].mtime if rel in old else scratch.state.now
            notebook.entries[rel] = Entry(rel, is_dir, content, mtime)
        scratch.state.data["markor"] = notebook


#: The apps whose data a device backend writes and reads (settings are written for every task).
APP_STATES: dict[str, type[AppState]] = {
    "settings": SettingsState,
    "contacts": ContactsState,
    "messages": SmsState,
    "markor": MarkorState,
}


# ----------------------------------------------------------------------------- judged from the screen


def _in_clock(activity: str) -> bool:
    return "DeskClock" in activity


def stopwatch_running(elements: Sequence[Node], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: the Clock app shows "Pause" and "Lap"."""
    descs = {n.desc for n in elements}
    return _in_clock(activity) and {"Pause", "Lap"} <= descs


def stopwatch_paused(elements: Sequence[Node], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: the Clock app shows "Start" and the Stopwatch tab (two "Stopwatch")."""
    start = any(n.desc == "Start" for n in elements)
    tabs = sum(n.desc == "Stopwatch" or n.text == "Stopwatch" for n in elements)
    return _in_clock(activity) and start and tabs >= 2


def timer_entered(elements: Sequence[Node], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: a timer of the asked length shows, as text or content description."""
    h, m, s = p["h"], p["m"], p["s"]
    text, desc = f"{h:02d}h {m:02d}m {s:02d}s", f"{h} hours, {m} minutes, {s} seconds"
    return _in_clock(activity) and any(n.text == text or n.desc == desc for n in elements)


def judging(task: Any) -> str:
    """How a task is judged on a device: ``"state"`` (every app it uses is in :data:`APP_STATES`),
    ``"screen"`` (in :data:`SCREEN_CHECKS`) or ``"agent"`` (instruction-only)."""
    if task.id in SCREEN_CHECKS:
        return "screen"
    if all(app in APP_STATES for app in (getattr(task, "apps", None) or (task.app,))):
        return "state"
    return "agent"


#: Tasks judged from the final screen as AndroidWorld judges them (the app is cleared at the start).
SCREEN_CHECKS: dict[str, tuple[str, Callable[[Sequence[Node], str, Mapping[str, Any]], bool]]] = {
    "ClockStopWatchRunning": ("com.google.android.deskclock", stopwatch_running),
    "ClockStopWatchPausedVerify": ("com.google.android.deskclock", stopwatch_paused),
    "ClockTimerEntry": ("com.google.android.deskclock", timer_entered),
}
