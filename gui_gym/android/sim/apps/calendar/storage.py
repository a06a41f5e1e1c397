"""Simple Calendar Pro's events as the app keeps them: the ``events`` table of ``events.db``.

The columns, their types and their meanings are the app's (``Event`` of
SimpleMobileTools/Simple-Calendar, the table AndroidWorld's ``calendar_utils`` reads): times in
Unix seconds (the phone's clock is UTC, as AndroidWorld sets it), ``repeat_interval`` in seconds
(``DAY`` 86400, ``WEEK`` 604800, ``MONTH`` 2592001, ``YEAR`` 31536000), ``repeat_rule`` the weekday
bits of a weekly event (Monday 1 ... Sunday 64) or ``REPEAT_SAME_DAY`` (1) for a monthly or yearly
one. Columns the simulator does not model are kept in :attr:`Event.extra` as a pushed database set
them, so a database pulled, edited on a host and pushed back loses nothing. A repetition the
simulator does not model (every two days, the second Monday of the month) is kept in the
database, and the event shows once. :func:`row` and :func:`event` turn one event into its row
and back; :func:`insert` adds a row as AndroidWorld inserts one.

Example:
    >>> import datetime as dt
    >>> data = CalendarData()
    >>> _ = data.add(Event("Standup", dt.datetime(2023, 10, 16, 9), dt.datetime(2023, 10, 16, 9, 30), repeat="weekly"))
    >>> row = EVENTS.decode(encode(data))[0]
    >>> row["start_ts"], row["repeat_interval"], row["repeat_rule"]
    (1697446800, 604800, 1)
    >>> decode(encode(data)).events[0].title
    'Standup'
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from typing import Any

from gui_gym.android.sim.apps.calendar.data import PKG, REPEAT_SAME_DAY, CalendarData, Event, implied_rule
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

#: the app's repeat intervals (seconds) by the simulator's repeat names
INTERVALS = {"none": 0, "daily": 86400, "weekly": 604800, "monthly": 2592001, "yearly": 31536000}
_REPEATS = {v: k for k, v in INTERVALS.items()}

EVENTS = Table(
    "events",
    (
        Column("id", "INTEGER PRIMARY KEY AUTOINCREMENT", None),
        Column("start_ts", "INTEGER NOT NULL", 0),
        Column("end_ts", "INTEGER NOT NULL", 0),
        Column("title", "TEXT NOT NULL", ""),
        Column("location", "TEXT NOT NULL", ""),
        Column("description", "TEXT NOT NULL", ""),
        Column("reminder_1_minutes", "INTEGER NOT NULL", -1),
        Column("reminder_2_minutes", "INTEGER NOT NULL", -1),
        Column("reminder_3_minutes", "INTEGER NOT NULL", -1),
        Column("reminder_1_type", "INTEGER NOT NULL", 0),
        Column("reminder_2_type", "INTEGER NOT NULL", 0),
        Column("reminder_3_type", "INTEGER NOT NULL", 0),
        Column("repeat_interval", "INTEGER NOT NULL", 0),
        Column("repeat_rule", "INTEGER NOT NULL", 0),
        Column("repeat_limit", "INTEGER NOT NULL", 0),
        Column("repetition_exceptions", "TEXT NOT NULL", "[]"),
        Column("attendees", "TEXT NOT NULL", ""),
        Column("import_id", "TEXT NOT NULL", ""),
        Column("time_zone", "TEXT NOT NULL", "UTC"),
        Column("flags", "INTEGER NOT NULL", 0),
        Column("event_type", "INTEGER NOT NULL", 1),
        Column("parent_id", "INTEGER NOT NULL", 0),
        Column("last_updated", "INTEGER NOT NULL", 0),
        Column("source", "TEXT NOT NULL", "simple-calendar"),
        Column("availability", "INTEGER NOT NULL", 0),
        Column("color", "INTEGER NOT NULL", 0),
        Column("type", "INTEGER NOT NULL", 0),
    ),
)
#: the columns an Event models itself; every other one lives in Event.extra
_MODELLED = ("id", "start_ts", "end_ts", "title", "location", "description", "repeat_interval", "repeat_rule")
_COLUMNS = frozenset(c.name for c in EVENTS.columns)
_EPOCH = dt.datetime(1970, 1, 1)
_MAX_ID = 2**62  # room for every id after it (SQLite's INTEGER is 64 bits)
_LAST = int((dt.datetime(9999, 12, 31) - _EPOCH).total_seconds())


def seconds(t: dt.datetime) -> int:
    """A phone time (naive, UTC) as the app stores it: Unix seconds."""
    return int((t - _EPOCH).total_seconds())


def repeat_rule(e: Event) -> int:
    """The app's ``repeat_rule`` of ``e``: its weekdays' bits for a weekly event (Monday 1 ...
    Sunday 64; the start's weekday unless :attr:`Event.rule` says otherwise), the same day of the
    month or year for a monthly or yearly one, else 0 (or the rule the editor left there)."""
    return e.repeat_rule


def row(e: Event) -> dict[str, Any]:
    """The ``events`` row of ``e``: every column, as the app's database holds it."""
    out = {c.name: c.default for c in EVENTS.columns}
    out.update(
        id=e.uid,
        start_ts=seconds(e.start),
        end_ts=seconds(e.end),
        title=e.title,
        location=e.location,
        description=e.description,
        repeat_interval=INTERVALS[e.repeat],
        repeat_rule=repeat_rule(e),
    )
    # what the event does not model; a repetition it does not model only while it shows none
    kept = e.extra if e.repeat == "none" else {k: v for k, v in e.extra.items() if not k.startswith("repeat_")}
    out.update((k, v) for k, v in kept.items() if k not in _MODELLED or k.startswith("repeat_"))
    return out


def rows(data: CalendarData) -> list[dict[str, Any]]:
    """The ``events`` rows of ``data``, by id."""
    return [row(e) for e in sorted(data.events, key=lambda e: e.uid)]


def encode(data: CalendarData) -> bytes:
    return EVENTS.encode(rows(data))


def _time(row: dict[str, Any], name: str) -> dt.datetime:
    v = check_int(row, name)
    if not 0 <= v <= _LAST:
        raise StorageError(f"column {name!r} holds {v}, no time the phone can show (Unix seconds)")
    return _EPOCH + dt.timedelta(seconds=v)


def _modelled_rule(repeat: str, rule: int) -> bool:
    """Whether the simulator shows a ``repeat`` event with ``rule`` as the app does: a weekly one
    on any weekdays, a monthly or yearly one on the same day, a daily or one-off one with any."""
    if repeat == "weekly":
        return 0 < rule <= 127
    if repeat in ("monthly", "yearly"):
        return rule == REPEAT_SAME_DAY
    return True


def event(values: dict[str, Any]) -> Event:
    """The :class:`Event` of one ``events`` row (every column, as :func:`row` gives them or as
    AndroidWorld's ``CalendarEvent`` has them); its ``id`` becomes the uid.
    :class:`StorageError` if the app could not show it."""
    nulls = [c.name for c in EVENTS.columns if values.get(c.name) is None]
    if nulls:
        raise StorageError(f"column(s) {', '.join(nulls)} hold NULL; the app's schema has NOT NULL there")
    start, end = _time(values, "start_ts"), _time(values, "end_ts")
    interval = check_int(values, "repeat_interval")
    rule = check_int(values, "repeat_rule")
    repeat = _REPEATS.get(interval, "none")
    e = Event(
        check_text(values, "title"),
        start,
        end,
        description=check_text(values, "description"),
        location=check_text(values, "location"),
        repeat=repeat,
        uid=check_int(values, "id"),
    )
    e.extra = {k: v for k, v in values.items() if k not in _MODELLED and k in _COLUMNS}
    if interval not in _REPEATS or not _modelled_rule(repeat, rule):  # a repetition the app shows otherwise
        e.extra.update(repeat_interval=interval, repeat_rule=rule)
        e.repeat = "none"
    elif rule != implied_rule(repeat, start):
        e.rule = rule
    return e


def insert(data: CalendarData, values: dict[str, Any]) -> Event:
    """Add one row to ``data`` as ``INSERT INTO events`` without the id does (AndroidWorld's
    ``insert_rows_to_remote_db``): every other column as given, the next id."""
    e = event({**values, "id": data.next_uid})
    return data.add(e)


def decode(raw: bytes) -> CalendarData:
    """The events of an ``events.db``; :class:`StorageError` if the app could not read it (its
    schema, a value of the wrong type or NULL, an id used twice or out of range), so that what is
    read can always be written back."""
    data = CalendarData()
    seen: set[int] = set()
    for values in EVENTS.decode(raw):
        uid = check_int(values, "id")
        if not 1 <= uid <= _MAX_ID or uid in seen:
            raise StorageError(f"id {uid} is {'used twice' if uid in seen else 'out of range'}")
        seen.add(uid)
        data.events.append(event(values))
    data.next_uid = max((e.uid for e in data.events), default=0) + 1
    try:
        encode(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:  # a value the app's schema cannot hold
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


DATABASE = Database("calendar", f"/data/data/{PKG}/databases/events.db", encode, decode, CalendarData)
