"""Simple Calendar Pro's data: its events (:class:`Event`) in a :class:`CalendarData`.

Plain picklable data (the device snapshots it); the screens are in ``app``, the database the real
app keeps on the phone in ``storage``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

PKG = "com.simplemobiletools.calendar.pro"
LABEL = "Simple Calendar Pro"
REPEATS = (
    ("none", "No repetition"),
    ("daily", "Daily"),
    ("weekly", "Weekly"),
    ("monthly", "Monthly"),
    ("yearly", "Yearly"),
)
REPEAT_LABEL = dict(REPEATS)
#: the app's ``repeat_rule`` of a monthly or yearly event repeating on the same day of the month
REPEAT_SAME_DAY = 1
#: the weekdays as the app's weekly ``repeat_rule`` bits name them (Monday 1 ... Sunday 64)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
#: a weekly ``repeat_rule`` with every weekday set (the app shows it as "Every day")
EVERY_DAY_BITS = 127
#: the most days between two starts of a repeating event, less one: a weekly one 7; a monthly one
#: on the 31st 62 (May 31 to July 31); a yearly one on February 29 eight years (2096 to 2104)
_LONGEST_GAP = {"weekly": 6, "monthly": 61, "yearly": 366 * 8}


def implied_rule(repeat: str, start: dt.datetime) -> int:
    """The ``repeat_rule`` the app gives a repetition when it is chosen: the start's weekday bit for
    a weekly one (Monday 1 ... Sunday 64), the same day for a monthly or yearly one, else 0."""
    if repeat == "weekly":
        return 1 << start.weekday()
    return REPEAT_SAME_DAY if repeat in ("monthly", "yearly") else 0


def weekday_names(bits: int, short: bool = False) -> str:
    """The weekdays of a weekly rule as the editor's "Repeat on" row shows them ("Mon, Wed")."""
    if bits & EVERY_DAY_BITS == EVERY_DAY_BITS:
        return "Every day"
    return ", ".join(d[:3] if short else d for i, d in enumerate(WEEKDAYS) if bits >> i & 1)


@dataclass
class Event:
    title: str
    start: dt.datetime
    end: dt.datetime
    description: str = ""
    location: str = ""
    repeat: str = "none"  # a key of REPEATS
    uid: int = 0
    #: the database columns the simulator does not model (reminders, attendees, colour, ...),
    #: kept as a pushed database set them (:mod:`~gui_gym.android.sim.apps.calendar.storage`)
    extra: dict[str, Any] = field(default_factory=dict)
    #: the app's ``repeat_rule`` where it is not the one ``repeat`` implies (:func:`implied_rule`):
    #: the weekdays of a weekly event on several days, or the rule the app's editor leaves on an
    #: event whose repetition was changed from weekly to daily or none; ``None``: the implied one
    rule: int | None = None

    @property
    def repeat_rule(self) -> int:
        """The ``repeat_rule`` the app stores for the event."""
        return implied_rule(self.repeat, self.start) if self.rule is None else self.rule

    def _starts_on(self, day: dt.date) -> bool:
        first = self.start.date()
        if day < first:
            return False
        if self.repeat == "daily":
            return True
        if self.repeat == "weekly":
            # every week on the rule's weekdays (the first occurrence is the event itself)
            return day == first or bool(self.repeat_rule >> day.weekday() & 1)
        if self.repeat == "monthly":
            return day.day == first.day
        if self.repeat == "yearly":
            return (day.month, day.day) == (first.month, first.day)
        return day == first

    def occurs_on(self, day: dt.date) -> bool:
        """Whether an occurrence of the event (repeats included) covers ``day``."""
        first = self.start.date()
        if day < first:  # every occurrence starts on or after the first
            return False
        if self.repeat == "none" and self.end.date() < day and self.end > self.start:
            return False  # over before the day (the last day below is at most the end's)
        last = (self.end - dt.timedelta(microseconds=1)).date() if self.end > self.start else first
        if self.repeat == "none":
            return day <= last
        if self.repeat == "daily":
            return True
        # An occurrence covering ``day`` starts at most ``span`` days before it; looking back one
        # longest gap between starts is enough, however long the event (and never leaves the calendar).
        span = max(0, (last - first).days)
        return any(self._starts_on(day - dt.timedelta(days=k)) for k in range(min(span, _LONGEST_GAP[self.repeat]) + 1))

    def times(self) -> str:
        """The time range shown in the day view, with dates when it spans several days."""
        if self.start.date() == self.end.date():
            return f"{self.start:%H:%M} – {self.end:%H:%M}"
        return f"{self.start:%b %-d, %H:%M} – {self.end:%b %-d, %H:%M}"


@dataclass
class CalendarData:
    events: list[Event] = field(default_factory=list)
    next_uid: int = 1

    def add(self, e: Event) -> Event:
        e.uid = self.next_uid
        self.next_uid += 1
        self.events.append(e)
        return e

    def by_uid(self, uid: int | None) -> Event | None:
        return next((e for e in self.events if e.uid == uid), None)

    def on(self, day: dt.date) -> list[Event]:
        """Events occurring on ``day``, by start time."""
        return sorted((e for e in self.events if e.occurs_on(day)), key=lambda e: (e.start.time(), e.title, e.uid))
