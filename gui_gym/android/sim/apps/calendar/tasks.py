"""Simple Calendar Pro tasks (AndroidWorld: SimpleCalendarAddOneEvent, SimpleCalendarDeleteEvents, …)."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from gui_gym.android.sim.apps.calendar.app import DayView, EventEditor
from gui_gym.android.sim.apps.calendar.data import LABEL, CalendarData, Event
from gui_gym.android.sim.dialogs import AlertDialog, DatePickerDialog, MenuDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, normalize_answer
from gui_gym.android.sim.tasks.data import EVENT_TITLES, SENTENCES, people, pick

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.ui import Node

LOCATIONS = (
    "Room 4B",
    "City Library",
    "Main Street Clinic",
    "Cafe Aroma",
    "Community Center",
    "Studio 3",
    "Office lobby",
    "Riverside Park",
    "Conference room A",
    "Town Hall",
)
DURATIONS = (30, 45, 60, 90, 120)


def db(dev: Device) -> CalendarData:
    return dev.data("calendar")


def in_app(dev: Device) -> bool:
    return dev.state.foreground == "calendar" and not dev.state.recents_open


def screens(dev: Device) -> list:
    return dev.state.stacks.get("calendar", [])


def calendar_clock(rng: np.random.Generator, days: tuple[int, int] = (1, 26)) -> dt.datetime:
    """A morning between October 2023 and May 2024, on a day of the month in ``[days)``."""
    y, m = divmod(2023 * 12 + 9 + int(rng.integers(8)), 12)
    return dt.datetime(y, m + 1, int(rng.integers(*days)), int(rng.integers(8, 12)), int(rng.integers(60)))


def today(dev: Device) -> dt.date:
    return dev.state.now.date()


def at(day: dt.date, hour: int, minute: int = 0) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute))


def populate(dev: Device, rng: np.random.Generator, n: int, avoid: Iterable[dt.date] = ()) -> None:
    """Add ``n`` one-off background events in the weeks around today, none on an ``avoid`` date."""
    avoid = set(avoid)
    taken = {(e.title, e.start.date()) for e in db(dev).events}
    added = 0
    while added < n:
        day = today(dev) + dt.timedelta(days=int(rng.integers(-6, 45)))
        title = pick(rng, EVENT_TITLES)
        if day in avoid or (title, day) in taken:
            continue
        taken.add((title, day))
        start = at(day, int(rng.integers(7, 20)), pick(rng, (0, 15, 30, 45)))
        location = pick(rng, LOCATIONS) if rng.random() < 0.6 else ""
        db(dev).add(
            Event(
                title, start, start + dt.timedelta(minutes=pick(rng, (30, 45, 60, 90))), pick(rng, SENTENCES), location
            )
        )
        added += 1


def add_day(dev: Device, rng: np.random.Generator, day: dt.date, titles: list[str]) -> list[Event]:
    """One-off events titled ``titles`` on ``day``, at distinct hours, in that order."""
    hours = sorted(int(h) for h in rng.choice(np.arange(8, 19), size=len(titles), replace=False))
    return [
        db(dev).add(
            Event(
                t,
                at(day, h),
                at(day, h) + dt.timedelta(minutes=pick(rng, DURATIONS)),
                pick(rng, SENTENCES),
                pick(rng, LOCATIONS),
            )
        )
        for t, h in zip(titles, hours, strict=True)
    ]


def frozen(dev: Device) -> list[tuple[Any, ...]]:
    """Every event as a plain tuple, to tell later whether any changed."""
    return [(e.uid, e.title, e.start, e.end, e.description, e.location, e.repeat) for e in db(dev).events]


def kept(dev: Device, before: Iterable[tuple[Any, ...]]) -> bool:
    return set(before) <= set(frozen(dev))


def titles_on(dev: Device, day: dt.date) -> list[str]:
    return [e.title for e in db(dev).on(day)]


def titles_in(answer: str | None) -> set[str]:
    """The titles of a comma-separated answer, normalised (``and`` and semicolons also split)."""
    parts = re.split(r",|;|\n|\band\b", answer or "", flags=re.IGNORECASE)
    return {normalize_answer(p) for p in parts} - {""}


def viewing(dev: Device, day: dt.date) -> bool:
    return any(isinstance(s, DayView) and s.date == day for s in screens(dev))


def new_editor(dev: Device) -> EventEditor | None:
    return next((s for s in reversed(screens(dev)) if isinstance(s, EventEditor) and s.uid is None), None)


def editing(dev: Device, uid: int) -> bool:
    return any(isinstance(s, EventEditor) and s.uid == uid for s in screens(dev))


def menu_open(dev: Device, uid: int) -> bool:
    """A long-press menu or delete confirmation for event ``uid`` is showing."""
    return any(
        (isinstance(s, DayView) and s.menu_uid == uid and isinstance(s.dialog, (MenuDialog, AlertDialog)))
        or (isinstance(s, EventEditor) and s.uid == uid and isinstance(s.dialog, AlertDialog))
        for s in screens(dev)
    )


# ----------------------------------------------------------------------------- oracle steps


def pick_date(o: Oracle, d: DatePickerDialog, target: dt.date) -> str:
    """In an open date picker: page to ``target``'s month, tap its day, then OK."""
    cur = d.date
    if (cur.year, cur.month) != (target.year, target.month):
        forward = (target.year, target.month) > (cur.year, cur.month)
        return o.tap(o.find(desc="Next month" if forward else "Previous month"))
    if cur != target:
        return o.tap(o.find(role="day", desc=target.strftime("%-d %B %Y")))
    return o.tap(o.find(label="OK", role="textbutton"))


def pick_time(o: Oracle, t: dt.time) -> str:
    """In an open time picker: type the hour and minute, then OK."""
    act = o.fill_form([("Hour", f"{t.hour:02d}"), ("Minute", f"{t.minute:02d}")])
    return act or o.tap(o.find(label="OK", role="textbutton"))


def go_to_day(o: Oracle, target: dt.date) -> str | None:
    """From anywhere: show ``target`` in the day view (arrows if close, else the date picker);
    ``None`` once it is shown with no dialog open."""
    if o.app != "calendar":
        return o.launch(LABEL)
    s = o.screen
    if not isinstance(s, DayView):
        return o.back()
    if isinstance(s.dialog, DatePickerDialog):
        return pick_date(o, s.dialog, target)
    if s.dialog is not None:
        return o.back()
    delta = (target - s.date).days
    if delta == 0:
        return None
    if abs(delta) <= 2:
        return o.tap(o.find(desc="Next day" if delta > 0 else "Previous day"))
    return o.tap(o.find(rid=":id/top_value"))


def event_row(o: Oracle, title: str) -> Any:
    return o.find(role="row", rid=":id/event_item_holder", label=title)


def reveal_event(o: Oracle, title: str) -> str | None:
    return o.reveal(lambda n: n.role == "row" and n.label == title and n.rid.endswith(":id/event_item_holder"))


def open_event(o: Oracle, uid: int, day: dt.date) -> str | None:
    """From anywhere: open the editor of event ``uid`` on ``day``; ``None`` once it is open."""
    s = o.screen
    if o.app == "calendar" and isinstance(s, EventEditor):
        if s.uid == uid and s.dialog is None:
            return None
        return o.back()
    act = go_to_day(o, day)
    if act is not None:
        return act
    title = db(o.dev).by_uid(uid).title
    return reveal_event(o, title) or o.tap(event_row(o, title))


def delete_step(o: Oracle, uid: int, day: dt.date, is_row: Callable[[Node], bool] | None = None) -> str:
    """One step toward deleting event ``uid`` (shown on ``day``) via its long-press menu; its row is
    found by ``is_row`` when given, else by the event's title."""
    s = o.screen
    if o.app == "calendar" and isinstance(s, EventEditor) and s.uid == uid:
        if isinstance(s.dialog, AlertDialog):
            return o.tap(o.find(label="Delete", role="textbutton"))
        if s.dialog is None:
            return o.tap(o.find(desc="Delete"))
    if o.app == "calendar" and isinstance(s, DayView) and s.menu_uid == uid and s.date == day:
        if isinstance(s.dialog, MenuDialog) and s.dialog.handler == "on_menu":
            return o.tap(o.find("Delete", role="menuitem"))
        if isinstance(s.dialog, AlertDialog):
            return o.tap(o.find(label="Delete", role="textbutton"))
    act = go_to_day(o, day)
    if act is not None:
        return act
    if is_row is not None:
        return o.reveal(is_row) or o.long_press(next((n for n in o.nodes if is_row(n)), None))
    title = db(o.dev).by_uid(uid).title
    return reveal_event(o, title) or o.long_press(event_row(o, title))


# ----------------------------------------------------------------------------- templates


class SimpleCalendarDeleteEventsOnDate(TaskTemplate):
    id = "SimpleCalendarDeleteEventsOnDate"
    app = "calendar"
    difficulty = "hard"
    template = "In Simple Calendar Pro, delete all the calendar events on {date}."
    placeholders: ClassVar[dict[str, str]] = {"Date": "date"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to <Date>", lambda d, p: viewing(d, p["day"])),
        Milestone("Delete one of the events on <Date>", lambda d, p: len(db(d).on(p["day"])) < len(p["titles"])),
        Milestone("Delete all the events on <Date>", lambda d, p: not db(d).on(p["day"])),
    )

    def clock(self, rng: np.random.Generator) -> dt.datetime:
        return calendar_clock(rng)

    def sample(self, rng: np.random.Generator) -> Params:
        return {"offset": int(rng.integers(4, 36)), "titles": pick(rng, EVENT_TITLES, int(rng.integers(2, 4)))}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        p["day"] = today(dev) + dt.timedelta(days=p["offset"])
        p["date"] = p["day"].isoformat()
        populate(dev, rng, 6, avoid=[p["day"]])
        doomed = {e.uid for e in add_day(dev, rng, p["day"], p["titles"])}
        populate(dev, rng, 5, avoid=[p["day"]])
        p["others"] = [t for t in frozen(dev) if t[0] not in doomed]

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not db(dev).on(p["day"]) and kept(dev, p["others"])

    def oracle(self, o: Oracle) -> str:
        day = o.p["day"]
        left = db(o.dev).on(day)
        if not left:
            return o.finish()
        s = o.screen
        menu = s.menu_uid if isinstance(s, DayView) and s.dialog is not None else None
        uid = next((e.uid for e in left if e.uid == menu), left[0].uid)
        return delete_step(o, uid, day)


class SimpleCalendarEventsOnDateQuestion(TaskTemplate):
    id = "SimpleCalendarEventsOnDateQuestion"
    app = "calendar"
    difficulty = "medium"
    kind = "question"
    template = "What events do I have on {date} in Simple Calendar Pro? Answer with their titles separated by commas."
    placeholders: ClassVar[dict[str, str]] = {"Date": "date"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to <Date>", lambda d, p: viewing(d, p["day"])),
    )

    def clock(self, rng: np.random.Generator) -> dt.datetime:
        return calendar_clock(rng, days=(16, 26))  # the asked day lies in the next month

    def sample(self, rng: np.random.Generator) -> Params:
        titles = pick(rng, EVENT_TITLES, 4)
        return {
            "dom": int(rng.integers(1, 15)),
            "titles": titles[: int(rng.integers(2, 4))],
            "weekly": titles[3] if rng.random() < 0.5 else None,
            "weeks_ago": int(rng.integers(1, 4)),
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        y, m = divmod(today(dev).year * 12 + today(dev).month, 12)
        p["day"] = dt.date(y, m + 1, p["dom"])
        p["date"] = p["day"].isoformat()
        populate(dev, rng, 10, avoid=[p["day"]])
        add_day(dev, rng, p["day"], p["titles"])
        if p["weekly"]:
            start = at(p["day"] - dt.timedelta(weeks=p["weeks_ago"]), 7, 30)
            db(dev).add(
                Event(
                    p["weekly"], start, start + dt.timedelta(minutes=45), "Weekly routine.", "Studio 3", repeat="weekly"
                )
            )

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return titles_in(answer) == {normalize_answer(t) for t in titles_on(dev, p["day"])}

    def oracle(self, o: Oracle) -> str:
        act = go_to_day(o, o.p["day"])
        if act is not None:
            return act
        return o.answer(
            ", ".join(n.label for n in o.nodes if n.role == "row" and n.rid.endswith(":id/event_item_holder"))
        )


class SimpleCalendarEventsTomorrowQuestion(SimpleCalendarEventsOnDateQuestion):
    id = "SimpleCalendarEventsTomorrowQuestion"
    difficulty = "easy"
    template = "What events do I have tomorrow in Simple Calendar Pro? Answer with their titles separated by commas."
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to tomorrow, <Date>", lambda d, p: viewing(d, p["day"])),
    )

    def clock(self, rng: np.random.Generator) -> dt.datetime:
        return calendar_clock(rng)

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        p["day"] = today(dev) + dt.timedelta(days=1)
        p["date"] = p["day"].isoformat()
        populate(dev, rng, 10, avoid=[p["day"]])
        add_day(dev, rng, p["day"], p["titles"])
        add_day(dev, rng, today(dev), [t for t in EVENT_TITLES if t not in p["titles"]][:2])


class SimpleCalendarInviteToEvent(TaskTemplate):
    id = "SimpleCalendarInviteToEvent"
    app = "calendar"
    difficulty = "medium"
    kind = "infeasible"
    template = "In Simple Calendar Pro, invite {name} to the event '{title}' on {date}."
    placeholders: ClassVar[dict[str, str]] = {"Date": "date", "Title": "title", "Name": "name"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to <Date>", lambda d, p: viewing(d, p["day"])),
        Milestone('Open the event "<Title>"', lambda d, p: editing(d, p["uid"])),
    )

    def clock(self, rng: np.random.Generator) -> dt.datetime:
        return calendar_clock(rng)

    def sample(self, rng: np.random.Generator) -> Params:
        titles = pick(rng, EVENT_TITLES, int(rng.integers(1, 3)))
        ((first, last),) = people(rng, 1)
        return {"offset": int(rng.integers(3, 36)), "titles": titles, "name": f"{first} {last}"}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        p["day"] = today(dev) + dt.timedelta(days=p["offset"])
        p["date"] = p["day"].isoformat()
        populate(dev, rng, 8, avoid=[p["day"]])
        target = add_day(dev, rng, p["day"], p["titles"])[0]
        p.update(uid=target.uid, title=target.title, before=frozen(dev))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return frozen(dev) == p["before"]

    def oracle(self, o: Oracle) -> str:
        return open_event(o, o.p["uid"], o.p["day"]) or o.infeasible()


TEMPLATES = (
    SimpleCalendarDeleteEventsOnDate,
    SimpleCalendarEventsOnDateQuestion,
    SimpleCalendarEventsTomorrowQuestion,
    SimpleCalendarInviteToEvent,
)
