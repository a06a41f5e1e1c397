"""AndroidWorld's information-retrieval tasks on Simple Calendar Pro (``proto/tasks.textproto``).

Each is defined by AndroidWorld's data (:mod:`gui_gym.android.sim.tasks.information`): the goal
and parameters are drawn as AndroidWorld draws them (dates reworded: "this Tuesday", "October
24", ...), the start state is its relevant events and 75 noise events (noise that would change the
answer drawn again), shuffled and written as the app's ``events`` rows, and the answer is judged
as AndroidWorld's ``check_agent_answer`` judges it. The expert goes to the day of each event of
the answer in the day view, brings its row into view (opens it, for its location) and answers.

Where AndroidWorld's own answer differs from what the calendar shows, the expert gives
AndroidWorld's (``SimpleCalendarNextEvent`` with "12:00am": the relevant event is then at
midnight, before the device's 15:34, and AndroidWorld still expects it).
"""

from __future__ import annotations

import datetime as dt
import random
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.calendar.app import DayView, EventEditor
from gui_gym.android.sim.apps.calendar.data import LABEL, CalendarData, Event
from gui_gym.android.sim.dialogs import DatePickerDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app
from gui_gym.android.sim.tasks.information import (
    Exclusion,
    InformationTask,
    Row,
    calendar_events,
    from_unix_seconds,
    parse_date,
)

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: the columns of AndroidWorld's ``CalendarEvent`` rows that differ from what the app writes
AW_EXTRA = {"source": "imported-ics"}


def _db(dev: Device) -> CalendarData:
    return dev.data("calendar")


def long_date(day: dt.date) -> str:
    return f"{day:%A}, {day:%B} {day.day}, {day.year}"


def days(p: Params) -> list[dt.date]:
    """The days of the answer's events, in order, without repeats."""
    out: list[dt.date] = []
    for row in p["relevant"]:
        d = parse_date(row["start_date"])
        if d not in out:
            out.append(d)
    return sorted(out)


def viewing(dev: Device, day: dt.date) -> bool:
    """The day view of ``day`` is in front."""
    top = dev.top_screen()
    return in_app(dev, "calendar") and isinstance(top, DayView) and top.date == day


def editing(dev: Device, uid: int) -> bool:
    top = dev.top_screen()
    return in_app(dev, "calendar") and isinstance(top, EventEditor) and top.uid == uid


# ----------------------------------------------------------------------------- oracle steps


def go_to_day(o: Oracle, day: dt.date) -> str | None:
    """From anywhere: the day view of ``day`` with nothing over it (the arrows for a day or two
    away, else the "Go to date" picker); ``None`` once it shows."""
    if o.app != "calendar":
        return o.launch(LABEL)
    s = o.screen
    if not isinstance(s, DayView):
        return o.back()
    d = s.dialog
    if isinstance(d, DatePickerDialog):
        if (d.date.year, d.date.month) != (day.year, day.month):
            forward = (day.year, day.month) > (d.date.year, d.date.month)
            return o.tap(o.find(desc="Next month" if forward else "Previous month"))
        if d.date != day:
            return o.tap(o.find(role="day", desc=day.strftime("%-d %B %Y")))
        return o.tap(o.find(label="OK", role="textbutton"))
    if d is not None:
        return o.back()
    delta = (day - s.date).days
    if delta == 0:
        return None
    if abs(delta) <= 2:
        return o.tap(o.find(desc="Next day" if delta > 0 else "Previous day"))
    return o.tap(o.find(rid=":id/top_value"))


def _is_row(n: Any, e: Event) -> bool:
    return n.role == "row" and n.label == e.title and n.rid.endswith(":id/event_item_holder")


def show_event(o: Oracle, e: Event) -> str | None:
    """On its day: scroll the day's list until ``e``'s row shows; ``None`` once it does."""
    return o.reveal(lambda n: _is_row(n, e), list_rid=":id/day_events")


# ----------------------------------------------------------------------------- tasks


class CalendarQuestion(InformationTask):
    """An IR task on Simple Calendar Pro: set-up writes the ``events`` rows; the expert reads the
    day view of each day of the answer."""

    app = "calendar"
    apps = ("calendar",)
    placeholders: ClassVar[dict[str, str]] = {"Day": "day"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "calendar")),
        Milestone("Go to <Day>", lambda d, p: viewing(d, days(p)[0])),
    )

    def write_state(
        self, dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random
    ) -> None:
        data = _db(dev)
        data.events.clear()
        data.next_uid = 1
        inserted, where = calendar_events(rows, exclusions, r)
        events = [
            data.add(
                Event(
                    title=v["title"],
                    start=from_unix_seconds(v["start_ts"]),
                    end=from_unix_seconds(v["end_ts"]),
                    description=v["description"],
                    location=v["location"],
                    extra=dict(AW_EXTRA),
                )
            )
            for v in inserted
        ]
        params["relevant_ids"] = [events[i].uid for i in where]
        for i, day in enumerate(days(params), 1):
            params["day" if i == 1 else f"day{i}"] = long_date(day)

    def relevant(self, dev: Device, p: Params) -> list[Event]:
        db = _db(dev)
        return [e for uid in p["relevant_ids"] if (e := db.by_uid(uid)) is not None]

    def oracle(self, o: Oracle) -> str:
        """Day by day, in order: go to the day, bring its events of the answer into view; on the
        last day, answer. Where it is (the day view's day) says how far it got."""
        if o.app != "calendar":
            return o.launch(LABEL)
        s = o.screen
        if not isinstance(s, DayView):
            return o.back()
        ds, events = days(o.p), self.relevant(o.dev, o.p)
        if s.date in ds:
            i = ds.index(s.date)
            if s.dialog is None:
                for e in sorted((e for e in events if e.start.date() == s.date), key=lambda e: e.start):
                    act = show_event(o, e)
                    if act is not None:
                        return act
                if i == len(ds) - 1:
                    return self.last_step(o)
            target = ds[min(i + 1, len(ds) - 1)]
        else:
            target = next((d for d in ds if d > s.date), ds[-1])
        return go_to_day(o, target) or o.back()

    def last_step(self, o: Oracle) -> str:
        """On the last day of the answer, its rows in view: the answer."""
        return o.answer(self.answer(o.p))


class SimpleCalendarAnyEventsOnDate(CalendarQuestion):
    id = "SimpleCalendarAnyEventsOnDate"
    difficulty = "easy"
    optimal_steps = 4
    tags = ("information_retrieval", "parameterized")


class SimpleCalendarEventOnDateAtTime(CalendarQuestion):
    id = "SimpleCalendarEventOnDateAtTime"
    difficulty = "medium"
    optimal_steps = 3
    tags = ("information_retrieval", "parameterized")


class SimpleCalendarEventsInNextWeek(CalendarQuestion):
    """Two events on two days of Monday 16 to Sunday 22 October: the expert looks at both days."""

    id = "SimpleCalendarEventsInNextWeek"
    difficulty = "easy"
    optimal_steps = 3
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Day": "day", "Day2": "day2"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "calendar")),
        Milestone("Go to <Day>", lambda d, p: viewing(d, days(p)[0])),
        Milestone("Go to <Day2>", lambda d, p: viewing(d, days(p)[-1])),
    )


class SimpleCalendarEventsInTimeRange(CalendarQuestion):
    id = "SimpleCalendarEventsInTimeRange"
    difficulty = "easy"
    optimal_steps = 2
    tags = (
        "complex_ui_understanding",
        "screen_reading",
        "search",
        "transcription",
        "information_retrieval",
        "parameterized",
    )


class SimpleCalendarEventsOnDate(CalendarQuestion):
    id = "SimpleCalendarEventsOnDate"
    difficulty = "medium"
    optimal_steps = 4
    tags = ("information_retrieval", "parameterized")


class SimpleCalendarFirstEventAfterStartTime(CalendarQuestion):
    id = "SimpleCalendarFirstEventAfterStartTime"
    difficulty = "easy"
    optimal_steps = 2
    tags = ("parameterized", "screen_reading")


class SimpleCalendarLocationOfEvent(CalendarQuestion):
    """The location shows in the event's editor: the expert opens the event."""

    id = "SimpleCalendarLocationOfEvent"
    difficulty = "easy"
    optimal_steps = 4
    tags = ("search", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Day": "day", "Title": "title"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "calendar")),
        Milestone("Go to <Day>", lambda d, p: viewing(d, days(p)[0])),
        Milestone('Open the event "<Title>"', lambda d, p: editing(d, p["relevant_ids"][0])),
    )

    def oracle(self, o: Oracle) -> str:
        (e,) = self.relevant(o.dev, o.p)
        if editing(o.dev, e.uid) and o.dialog is None:
            return o.answer(self.answer(o.p))
        if o.app == "calendar" and isinstance(o.screen, EventEditor):
            return o.back()
        act = go_to_day(o, e.start.date()) or show_event(o, e)
        return act or o.tap(o.find(role="row", label=e.title, rid=":id/event_item_holder"))


class SimpleCalendarNextEvent(CalendarQuestion):
    id = "SimpleCalendarNextEvent"
    difficulty = "easy"
    optimal_steps = 4
    tags = ("complex_ui_understanding", "screen_reading", "information_retrieval", "parameterized")


class SimpleCalendarNextMeetingWithPerson(CalendarQuestion):
    """The answer is the meeting's date and time, as ``October 27 2023 17:20``."""

    id = "SimpleCalendarNextMeetingWithPerson"
    difficulty = "medium"
    optimal_steps = 5
    tags = ("information_retrieval", "parameterized")


TEMPLATES = (
    SimpleCalendarAnyEventsOnDate,
    SimpleCalendarEventOnDateAtTime,
    SimpleCalendarEventsInNextWeek,
    SimpleCalendarEventsInTimeRange,
    SimpleCalendarEventsOnDate,
    SimpleCalendarFirstEventAfterStartTime,
    SimpleCalendarLocationOfEvent,
    SimpleCalendarNextEvent,
    SimpleCalendarNextMeetingWithPerson,
)

__all__ = ["TEMPLATES", "CalendarQuestion"]
