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
messages     ``content delete --uri content://sms``;   ``content query --uri content://sms``:
             ``content insert --uri content://sms/     the rows of the telephony provider's
             inbox|sent --bind …`` (a row of           ``sms`` table; what was sent in the
             :func:`~gui_gym.android.sim.apps.         episode = sent rows not there before
             messages.storage.sms_rows` each)
markor       ``rm -rf``, ``mkdir -p``, ``printf %s     ``find DIR -type f -o -type d``,
             'TEXT' > FILE``, ``touch -d`` under       ``cat`` of each note, ``stat -c
             /sdcard/Documents/Markor                  '%Y %n'`` (their times)
===========  ========================================  ========================================

Besides the apps' data, a check reads what AndroidWorld's checks read of the phone itself
(:class:`PhoneState`): the app in front (``am stack list``: AndroidWorld's
``get_current_activity``), the clock (``date +%s``) and, for a task whose set-up puts text on the
clipboard, the clipboard (AndroidWorld's clipper app: ``am start -n ca.zgrs.clipper/.Main``, ``am
broadcast -a clipper.set -e text TEXT`` at the start, ``-a clipper.get`` at the end, then Back).
An app the set-up leaves in front is brought there again at the start (a Simple SMS Messenger
thread with its ``SENDTO`` intent, as AndroidWorld opens it).

AndroidWorld's Clock tasks and ``ContactsNewContactDraft`` are judged from the screen instead
(:data:`SCREEN_CHECKS`: the stopwatch running or paused, a timer entered, the new-contact form
filled in), with AndroidWorld's predicates (the apps' own, in
:mod:`gui_gym.android.sim.apps.clock.androidworld` and
:mod:`gui_gym.android.sim.apps.contacts.androidworld`) over the final screen's accessibility
elements and the focused activity; the Clock app is cleared (``pm clear``) at the start. The
elements come from the accessibility forest where the adb server serves it (``serve-adb``:
``host:gui-gym-a11y:forest``), else from a ``uiautomator dump``, which has no field hints.
Writing the contacts and SMS providers needs the rights AndroidWorld's emulators run with
(``adb root``).

Every value from a task goes to the shell as one single-quoted word (:func:`shell_quote`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gui_gym.android.forest import UIElement
    from gui_gym.android.sim.device import Device

__all__ = [
    "APP_STATES",
    "CLIPPER",
    "MARKOR_DIR",
    "SCREEN_CHECKS",
    "AppState",
    "DeviceError",
    "PhoneState",
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

    def tap_id(self, rid: str) -> None: ...

    def current_activity(self) -> str: ...


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


#: AndroidWorld's clipboard helper app (``adb_utils.set_clipboard_contents``) and its activity.
CLIPPER = "ca.zgrs.clipper/.Main"
_CLIP_DATA = re.compile(r'data="(.*)"\s*$', re.S)


def app_of_package(package: str) -> str | None:
    """The simulator's app whose package is *package* (``None``: the launcher or another app)."""
    from gui_gym.android.sim.apps import APPS

    return next((a.name for a in APPS.values() if a.package == package), None)


class PhoneState:
    """What a check reads of the phone besides the apps' data (see the module docstring): the app
    in front, the clock and, where the set-up put text there, the clipboard."""

    def __init__(self) -> None:
        self.clipboard = False  # the set-up put text on the clipboard: it goes to the phone and back

    def put(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.sim.device import Device

        self.clipboard = scratch.state.clipboard != Device().state.clipboard
        if self.clipboard:
            set_clipboard(phone, scratch.state.clipboard)

    def front(self, phone: Phone, scratch: Device) -> None:
        """The app the set-up left in front (after Home; the launcher: nothing to do): a Simple SMS
        Messenger thread through the ``SENDTO`` intent that opened it (AndroidWorld's
        ``send_sms``), any other app's launch screen through its launcher intent."""
        from gui_gym.android.sim.apps.messages.app import ThreadScreen

        app = scratch.app() if not scratch.state.recents_open else None
        if app is None:
            return
        top = scratch.top_screen()
        if isinstance(top, ThreadScreen):
            body = top.form.get("msg", "")
            extra = f" --es sms_body {shell_quote(body)}" if body else ""
            phone.shell(f"am start -a android.intent.action.SENDTO -d {shell_quote('sms:' + top.number)}{extra}")
        else:
            phone.shell(f"monkey -p {shell_quote(app.package)} -c android.intent.category.LAUNCHER 1")
        focused = next((n for n in scratch.elements() if n.focused and n.field and n.rid), None)
        if focused is not None:  # the field the set-up left focused (the keyboard up): tap it
            phone.tap_id(focused.rid)

    def read(self, phone: Phone, scratch: Device) -> None:
        """The foreground app and the clock first (reading the clipboard brings its helper to the
        front for a moment), then the clipboard."""
        app = app_of_package(phone.current_activity().partition("/")[0])
        if app is None:
            scratch.go_home()
        else:
            scratch.launch(app)  # the app's screens as the scratch has them: checks ask which app
        scratch.state.now = phone_clock(phone)
        if self.clipboard:
            scratch.state.clipboard = get_clipboard(phone)
        scratch.invalidate()


def phone_clock(phone: Phone) -> dt.datetime:
    """The phone's clock (``date +%s``, as AndroidWorld's SMS checks read it), naive UTC."""
    text = phone.shell("date +%s").strip()
    if not text.isdigit():
        raise DeviceError(f"date +%s answered {text[:40]!r}, not seconds")
    return dt.datetime.fromtimestamp(int(text), dt.UTC).replace(tzinfo=None)


def set_clipboard(phone: Phone, text: str) -> None:
    """AndroidWorld's ``set_clipboard_contents``: the clipper app in front, its ``clipper.set``
    broadcast, Back."""
    phone.shell(f"am start -n {CLIPPER}")
    out = phone.shell(f"am broadcast -a clipper.set -e text {shell_quote(text)}")
    phone.shell("input keyevent KEYCODE_BACK")
    if "result=-1" not in out:
        raise DeviceError(f"the clipper app did not set the clipboard ({out.strip()[-60:]!r}); is it installed?")


def get_clipboard(phone: Phone) -> str:
    """AndroidWorld's ``get_clipboard_contents``: the clipper app in front, its ``clipper.get``
    broadcast (the text after ``data=``, between its quotes), Back."""
    phone.shell(f"am start -n {CLIPPER}")
    out = phone.shell("am broadcast -a clipper.get", rstrip=False)
    phone.shell("input keyevent KEYCODE_BACK")
    if "result=-1" not in out:
        raise DeviceError(f"the clipper app did not read the clipboard ({out.strip()[-60:]!r}); is it installed?")
    m = _CLIP_DATA.search(out.rstrip("\r\n"))
    return m.group(1) if m else ""


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
        phone.shell("am force-stop com.google.android.contacts")  # closed again, as the set-up leaves it

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
    """The telephony provider's SMS (the Messages app shows them): the rows of its ``sms`` table,
    one to one with :func:`~gui_gym.android.sim.apps.messages.storage.sms_rows`."""

    app = "messages"
    _COLUMNS = "_id:thread_id:type:read:date:address:body"  # body last: it may hold ", " and "="
    _ROW = re.compile(
        r"^_id=(\d+), thread_id=(\d+|NULL), type=(\d+), read=(\d+|NULL), date=(\d+), address=(.*?), body=(.*)$", re.S
    )

    def __init__(self) -> None:
        self.before: list[tuple[str, int, str]] = []  # the sent rows at the start

    def put(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.sim.apps.messages.storage import RECEIVED, sms_rows

        phone.shell("content delete --uri content://sms")
        for r in sorted(sms_rows(scratch.data("messages")), key=lambda r: r["_id"]):  # the provider numbers them so
            box = "inbox" if r["type"] == RECEIVED else "sent"
            phone.shell(
                f"content insert --uri content://sms/{box} --bind {shell_quote('address:s:' + r['address'])} "
                f"--bind {shell_quote('body:s:' + r['body'])} --bind date:l:{r['date']} "
                f"--bind date_sent:l:{r['date_sent']} --bind read:i:{r['read']} --bind seen:i:{r['seen']}"
            )
        self.before = [(a, ms, body) for _, _, typ, _, ms, a, body in self._rows(phone) if typ == 2]

    def _rows(self, phone: Phone) -> list[tuple[int, int, int, bool, int, str, str]]:
        """``(_id, thread_id, type, read, date, address, body)`` of every row, oldest first."""
        out = phone.shell(f"content query --uri content://sms --projection {self._COLUMNS}", rstrip=False)
        rows = []
        for row in parse_rows(out):
            m = self._ROW.match(row)
            if m is None:
                raise DeviceError(f"content query answered {row[:60]!r}, not {self._COLUMNS.replace(':', ', ')}")
            key, thread, typ, read, ms, address, body = m.groups()
            if typ not in ("1", "2"):
                continue  # drafts, outbox, failed: no message of the app's
            thread_id = 0 if thread == "NULL" else int(thread)
            rows.append((int(key), thread_id, int(typ), read == "1", int(ms), address, body.rstrip("\n")))
        return sorted(rows, key=lambda r: (r[4], r[0]))

    def read(self, phone: Phone, scratch: Device) -> None:
        from gui_gym.android.sim.apps.messages.app import MessagesData
        from gui_gym.android.sim.apps.messages.data import Conversation, Message

        data = MessagesData()
        threads: dict[int, Conversation] = {}
        earlier = list(self.before)
        for key, thread, typ, read, ms, address, body in self._rows(phone):
            conv = threads.get(thread)
            if conv is None:
                conv = threads[thread] = Conversation(address, thread_id=thread)
                data.conversations.append(conv)
            when = dt.datetime.fromtimestamp(ms / 1000, dt.UTC).replace(tzinfo=None)
            conv.messages.append(Message(body, typ == 1, when, read=read, id=key))
            if typ == 2:  # sent in the episode: not there at the start
                if (address, ms, body) in earlier:
                    earlier.remove((address, ms, body))
                else:
                    data.log.append((address, body))
        data.next_id = 1 + max((m.id for c in data.conversations for m in c.messages), default=0)
        data.next_thread = 1 + max((c.thread_id for c in data.conversations), default=0)
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
        paths = sorted(p for p in paths if p[len(MARKOR_DIR) :].lstrip("/"))
        times = self._times(phone, paths)
        for p in paths:
            rel = p[len(MARKOR_DIR) :].lstrip("/")
            is_dir = p not in files
            content = "" if is_dir else phone.shell(f"cat {shell_quote(p)}", rstrip=False)
            mtime = times[p]
            if rel in old and old[rel].mtime.replace(microsecond=0) == mtime:
                mtime = old[rel].mtime  # the phone keeps whole seconds; the set-up's own time stays
            notebook.entries[rel] = Entry(rel, is_dir, content, mtime)
        scratch.state.data["markor"] = notebook

    @staticmethod
    def _times(phone: Phone, paths: list[str]) -> dict[str, dt.datetime]:
        """Each path's modification time (``stat -c '%Y %n'``: whole seconds since the epoch)."""
        times: dict[str, dt.datetime] = {}
        for i in range(0, len(paths), 50):
            chunk = paths[i : i + 50]
            out = phone.shell("stat -c '%Y %n' " + " ".join(shell_quote(p) for p in chunk))
            for line in out.replace("\r", "").split("\n"):
                stamp, _, path = line.partition(" ")
                if stamp.isdigit() and path in chunk:
                    times[path] = dt.datetime.fromtimestamp(int(stamp), dt.UTC).replace(tzinfo=None)
        missing = [p for p in paths if p not in times]
        if missing:
            raise DeviceError(f"stat gave no time for {missing[0]!r}")
        return times


#: The apps whose data a device backend writes and reads (settings are written for every task).
APP_STATES: dict[str, type[AppState]] = {
    "settings": SettingsState,
    "contacts": ContactsState,
    "messages": SmsState,
    "markor": MarkorState,
}


# ----------------------------------------------------------------------------- judged from the screen

#: A screen check: the final screen's accessibility elements (invisible ones too, each saying
#: whether it shows), the focused ``package/activity`` and the task's parameters -> success.
ScreenJudge = Callable[[Sequence["UIElement"], str, Mapping[str, Any]], bool]


def _shown(elements: Sequence[UIElement]) -> list[UIElement]:
    """``state.ui_elements``: what AndroidWorld's environment keeps (invisible elements dropped)."""
    return [e for e in elements if e.is_visible]


def stopwatch_running(elements: Sequence[UIElement], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: the Clock app shows "Pause" and "Lap"."""
    from gui_gym.android.sim.apps.clock import androidworld as clock

    return clock.stopwatch_running(_shown(elements), activity)


def stopwatch_paused(elements: Sequence[UIElement], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: the Clock app shows "Start" and the Stopwatch tab (two "Stopwatch")."""
    from gui_gym.android.sim.apps.clock import androidworld as clock

    return clock.stopwatch_paused(_shown(elements), activity)


def timer_entered(elements: Sequence[UIElement], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: a timer of the asked length shows, as text or content description."""
    from gui_gym.android.sim.apps.clock import androidworld as clock

    return clock.timer_set(_shown(elements), activity, p["hours"], p["minutes"], p["seconds"])


def contact_draft_entered(elements: Sequence[UIElement], activity: str, p: Mapping[str, Any]) -> bool:
    """AndroidWorld's check: fields hinted "First name", "Last name" and "Phone" hold the details
    and the phone label shows (every element of the forest, invisible ones too)."""
    from gui_gym.android.sim.apps.contacts import androidworld as contacts

    return contacts.contact_info_entered(list(elements), p["first"], p["last"], p["phone"], p["phone_label"])


def judging(task: Any) -> str:
    """How a task is judged on a device: ``"screen"`` (in :data:`SCREEN_CHECKS`), ``"state"``
    (every app it uses is in :data:`APP_STATES`) or ``"agent"`` (instruction-only)."""
    if task.id in SCREEN_CHECKS:
        return "screen"
    if all(app in APP_STATES for app in (getattr(task, "apps", None) or (task.app,))):
        return "state"
    return "agent"


#: Tasks judged from the final screen as AndroidWorld judges them: the package cleared at the
#: start (``pm clear``; ``None``: nothing) and the check.
SCREEN_CHECKS: dict[str, tuple[str | None, ScreenJudge]] = {
    "ClockStopWatchRunning": ("com.google.android.deskclock", stopwatch_running),
    "ClockStopWatchPausedVerify": ("com.google.android.deskclock", stopwatch_paused),
    "ClockTimerEntry": ("com.google.android.deskclock", timer_entered),
    "ContactsNewContactDraft": (None, contact_draft_entered),
}
