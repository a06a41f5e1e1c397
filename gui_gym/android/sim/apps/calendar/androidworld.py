"""AndroidWorld's Simple Calendar Pro tasks (``task_evals/single/calendar/calendar.py``).

Every instance is AndroidWorld's: its events are drawn as ``events_generator.generate_event``
draws them (a duration of 15/30/45/60 minutes, then the title, then the description) at a time
drawn as ``datetime_utils.create_random_october_2023_unix_ts`` draws it (a day, then an hour, minute
0, UTC), and the noise events as ``calendar.generate_noise_events`` filters and de-duplicates them
(``sqlite_schema_utils.get_random_items``). Rows are kept as AndroidWorld's ``CalendarEvent`` rows,
every column (``source`` ``imported-ics``, ``id`` -1 until inserted), so the start state is the
``events`` table AndroidWorld's ``SQLiteApp.initialize_task`` writes: the table emptied, the noise
rows inserted in order, then (deletion tasks) the target rows.

The checks are AndroidWorld's validators on the table's rows (every column, ids included):

* adding (``calendar_evaluators.validate_event_addition_integrity`` with ``repeat_rule`` and
  ``repeat_interval``): a row with the target's ``start_ts``, ``end_ts``, ``repeat_rule`` and
  ``repeat_interval`` exactly and its title, location (empty) and description fuzzily
  (``fuzzy_match``), one row more than at the start, and every row of the start unchanged;
* deleting (``sqlite_validators.validate_rows_removal_integrity``): the target rows gone (the
  last rows inserted at the start), every other row unchanged, none added.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.calendar.app import DayView, EventEditor
from gui_gym.android.sim.apps.calendar.data import LABEL, REPEAT_LABEL, CalendarData, Event
from gui_gym.android.sim.apps.calendar.storage import EVENTS, insert, rows, seconds
from gui_gym.android.sim.apps.calendar.storage import row as event_row
from gui_gym.android.sim.apps.calendar.tasks import delete_step as calendar_delete_step
from gui_gym.android.sim.apps.calendar.tasks import (
    in_app,
    menu_open,
    new_editor,
    pick_date,
    pick_time,
    viewing,
)
from gui_gym.android.sim.dialogs import DatePickerDialog, MenuDialog, TimePickerDialog
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME, AndroidWorldTask, fuzzy_match
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

Row = dict[str, Any]

# ----------------------------------------------------------------------------- AndroidWorld's data

#: ``events_generator``'s vocabularies (data, identical to AndroidWorld's)
TITLE_PREFIXES = (
    "Meeting with",
    "Call with",
    "Workshop on",
    "Appointment for",
    "Catch up on",
    "Review session for",
)
NAMES = ("Alice", "Bob", "the Team", "HR", "Dr. Smith", "Marketing")
SUBJECTS = ("Project X", "Annual Report", "Budget Planning", "Campaign")
ACTIONS = (
    "discuss",
    "finalize",
    "plan",
    "celebrate",
    "prepare for",
    "review",
    "explore",
    "understand",
    "organize",
    "strategize about",
)
SUBJECT_DESCRIPTIONS = (
    "upcoming project milestones",
    "marketing strategies",
    "annual budget",
    "product launch",
    "team roles",
    "client feedback",
    "contract details",
    "software updates",
    "business objectives",
)
ADDITIONAL_NOTES = (
    "Please bring relevant documents.",
    "Remember to confirm attendance.",
    "Let's be punctual.",
    "Looking forward to productive discussions.",
    "Snacks will be provided.",
)
DURATIONS = (15, 30, 45, 60)
#: ``calendar._REPEAT_INTERVALS``
REPEAT_INTERVALS = {"daily": 86400, "weekly": 604800}
#: a ``CalendarEvent`` as AndroidWorld makes one: the table's columns with its defaults
#: (``source`` ``imported-ics``; ``id`` -1 until the database gives one)
CALENDAR_EVENT: Row = {**{c.name: c.default for c in EVENTS.columns}, "source": "imported-ics", "id": -1}
#: the columns ``validate_event_addition_integrity`` compares, and the ones it compares fuzzily
COMPARED = ("start_ts", "end_ts", "title", "location", "description", "repeat_rule", "repeat_interval")
FREE_FORM = ("title", "location", "description")
_EPOCH = dt.datetime(1970, 1, 1)


def october_ts(r: random.Random, start_day: int = DEVICE_TIME.day, end_day: int = 31, start_hour: int = 0) -> int:
    """``create_random_october_2023_unix_ts``: a day, then an hour (minute 0), in October 2023, UTC;
    Unix seconds.

    >>> october_ts(random.Random(0))  # randint(15, 31) = 27, randint(0, 23) = 13
    1698411600
    """
    day = r.randint(start_day, end_day)
    hour = r.randint(start_hour, 23)
    return seconds(dt.datetime(DEVICE_TIME.year, DEVICE_TIME.month, day, hour))


def generate_event(r: random.Random, start_ts: int) -> Row:
    """``events_generator.generate_event``: the duration, the title, the description, in that order."""
    end_ts = start_ts + r.choice(DURATIONS) * 60
    title = r.choice(TITLE_PREFIXES)
    title += f" {r.choice(NAMES if 'with' in title else SUBJECTS)}"
    description = f"We will {r.choice(ACTIONS)} {r.choice(SUBJECT_DESCRIPTIONS)}."
    if r.choice([False, True]):
        description += f" {r.choice(ADDITIONAL_NOTES)}"
    return {**CALENDAR_EVENT, "start_ts": start_ts, "end_ts": end_ts, "title": title, "description": description}


def random_items(r: random.Random, n: int, make: Callable[[], Row], keep: Callable[[Row], bool]) -> list[Row]:
    """``sqlite_schema_utils.get_random_items``: ``n`` rows from ``make`` that ``keep`` accepts, none
    equal (every column) to one already taken."""
    out: list[Row] = []
    tries = 0
    while len(out) < n:
        candidate = make()
        tries += 1
        if tries > 10_000:
            raise ValueError(f"could not draw {n} rows")
        if keep(candidate) and candidate not in out:
            out.append(candidate)
    return out


def noise_events(r: random.Random, targets: list[Row], n: int, keep: Callable[[Row], bool] | None = None) -> list[Row]:
    """``calendar.generate_noise_events``: ``n`` events anywhere in October (from day 1), by default
    none titled as a target."""
    if keep is None:
        titles = {t["title"] for t in targets}
        keep = lambda c: c["title"] not in titles  # noqa: E731
    return random_items(r, n, lambda: generate_event(r, october_ts(r, start_day=1)), keep)


def when(ts: int) -> dt.datetime:
    """A row's Unix seconds as the phone's (UTC) time."""
    return _EPOCH + dt.timedelta(seconds=ts)


def start_of(row: Row) -> dt.datetime:
    return when(row["start_ts"])


def db(dev: Device) -> CalendarData:
    return dev.data("calendar")


def addition_valid(before: list[Row], after: list[Row], reference: list[Row]) -> bool:
    """``sqlite_validators.validate_rows_addition_integrity`` with the calendar's fields: each
    reference row matched (``COMPARED`` exactly, ``FREE_FORM`` by ``fuzzy_match``), one row more per
    reference row, every row of ``before`` still in ``after`` unchanged."""

    def matches(ref: Row, row: Row) -> bool:
        return all(fuzzy_match(ref[k], row[k]) if k in FREE_FORM else ref[k] == row[k] for k in COMPARED)

    if not all(any(matches(ref, row) for row in after) for ref in reference):
        return False
    if len(after) != len(before) + len(reference):
        return False
    return all(row in after for row in before)


def removal_valid(before: list[Row], after: list[Row], ids: list[int]) -> bool:
    """``sqlite_validators.validate_rows_removal_integrity`` by ``id``: the rows of ``ids`` gone,
    every other row of ``before`` unchanged, no row added."""
    for row in before:
        if (row["id"] in ids) == (row in after):
            return False
    return all(row in before for row in after)


# ----------------------------------------------------------------------------- adding an event


def _editor_has(dev: Device, test: Callable[[EventEditor], bool]) -> bool:
    s = new_editor(dev)
    return s is not None and test(s)


def _target(p: Params) -> Row:
    return p["row_objects"][0]


def _added(dev: Device, p: Params) -> bool:
    """A row matching the target as the check compares them (whatever else changed)."""
    ref = _target(p)
    # start_ts is COMPARED's first column: only the events that start then can match
    return any(
        all(fuzzy_match(ref[k], row[k]) if k in FREE_FORM else ref[k] == row[k] for k in COMPARED)
        for row in (event_row(e) for e in db(dev).events if ref["start_ts"] == seconds(e.start))
    )


def _add_milestones(repeating: bool) -> tuple[Milestone, ...]:
    ms = [
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Open the form to create a new event", lambda d, p: new_editor(d) is not None),
        Milestone(
            'Enter the title "<Title>"',
            lambda d, p: _editor_has(d, lambda s: fuzzy_match(s.form.get("title", "").strip(), p["event_title"])),
        ),
        Milestone(
            'Enter the description "<Description>"',
            lambda d, p: _editor_has(
                d, lambda s: fuzzy_match(s.form.get("description", "").strip(), p["event_description"])
            ),
        ),
        Milestone(
            "Set the start to <Start>",
            lambda d, p: _editor_has(d, lambda s: seconds(s.start) == _target(p)["start_ts"]),
        ),
        Milestone(
            "Set the end to <End>", lambda d, p: _editor_has(d, lambda s: seconds(s.end) == _target(p)["end_ts"])
        ),
    ]
    if repeating:
        ms.append(
            Milestone(
                "Make the event repeat <Repeat>, forever",
                lambda d, p: _editor_has(
                    d,
                    lambda s: (
                        REPEAT_INTERVALS.get(s.repeat) == _target(p)["repeat_interval"]
                        and s.rule == _target(p)["repeat_rule"]
                    ),
                ),
            )
        )
    ms.append(Milestone('Save the event "<Title>"', _added))
    return tuple(ms)


def add_event_step(o: Oracle, target: Row) -> str:
    """One step toward saving ``target`` (a row) through the new-event editor: title, description,
    start, end, repetition, Save."""
    if o.app != "calendar":
        return o.launch(LABEL)
    start, end = start_of(target), when(target["end_ts"])
    repeat = next((k for k, v in REPEAT_INTERVALS.items() if v == target["repeat_interval"]), "none")
    s = o.screen
    if isinstance(s, EventEditor) and s.uid is None:
        d = s.dialog
        if isinstance(d, DatePickerDialog):
            return pick_date(o, d, (start if d.handler == "on_start_date" else end).date())
        if isinstance(d, TimePickerDialog):
            return pick_time(o, (start if d.handler == "on_start_time" else end).time())
        if isinstance(d, MenuDialog) and d.handler == "on_repeat":
            return o.tap(o.find(REPEAT_LABEL[repeat], role="menuitem"))
        if d is not None:
            return o.back()
        act = o.fill_form([("Title", target["title"]), ("Description", target["description"])])
        if act is not None:
            return act
        if s.form.get("location", "").strip():
            return o.fill("Location", "") or o.back()
        for which, want in (("start", start), ("end", end)):
            have: dt.datetime = getattr(s, which)
            if have != want:
                part = "date" if have.date() != want.date() else "time"
                return o.tap(o.find(label=f"{which.title()} {part}"))
        if s.repeat != repeat:
            return o.tap(o.find(role="row", label="Repeat"))
        return o.tap(o.find(desc="Save"))
    if isinstance(s, DayView) and s.dialog is None:
        return o.tap(o.find(desc="New event"))
    return o.back()


class _AddEvent(AndroidWorldTask):
    """``SimpleCalendarAddOneEvent`` and its variants: one new event, the noise rows kept."""

    app = "calendar"
    apps = ("calendar",)
    placeholders: ClassVar[dict[str, str]] = {
        "Title": "event_title",
        "Description": "event_description",
        "Start": "start_text",
        "End": "end_text",
    }
    milestones = _add_milestones(repeating=False)

    def target(self, r: random.Random) -> Row:
        """``_get_random_target_row``: an event from October 15 on."""
        return generate_event(r, october_ts(r))

    def params_of(self, event: Row, noise: list[Row]) -> Params:
        start = start_of(event)
        return {
            "year": DEVICE_TIME.year,
            "month": DEVICE_TIME.month,
            "day": start.day,
            "hour": start.hour,
            "duration_mins": (event["end_ts"] - event["start_ts"]) // 60,
            "event_title": event["title"],
            "event_description": event["description"],
            "row_objects": [event],
            "noise_row_objects": noise,
            "start_text": f"{start:%Y-%m-%d %H:%M}",
            "end_text": f"{when(event['end_ts']):%Y-%m-%d %H:%M}",
        }

    def generate(self, r: random.Random) -> Params:
        event = self.target(r)
        n_noise = r.randint(0, 20)
        return self.params_of(event, noise_events(r, [event], n_noise))

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        data = db(dev)
        data.events.clear()
        for row in params["noise_row_objects"]:
            insert(data, row)
        params["before"] = rows(data)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return addition_valid(params["before"], rows(db(dev)), params["row_objects"])

    def oracle(self, o: Oracle) -> str:
        if _added(o.dev, o.p):  # saved (after a detour that changed other rows, a failed episode ends)
            return o.finish()
        return add_event_step(o, _target(o.p))


class SimpleCalendarAddOneEvent(_AddEvent):
    id = "SimpleCalendarAddOneEvent"
    template = (
        "In Simple Calendar Pro, create a calendar event on {year}-{month}-{day} at {hour}h with the title "
        "'{event_title}' and the description '{event_description}'. The event should last for {duration_mins} mins."
    )
    difficulty = "hard"
    optimal_steps = 17
    tags = ("data_entry", "complex_ui_understanding", "parameterized")


class SimpleCalendarAddOneEventRelativeDay(_AddEvent):
    id = "SimpleCalendarAddOneEventRelativeDay"
    template = (
        "In Simple Calendar Pro, create a calendar event for this {day_of_week} at {hour}h with the title "
        "'{event_title}' and the description '{event_description}'. The event should last for {duration_mins} mins."
    )
    difficulty = "easy"
    optimal_steps = 17
    tags = ("data_entry", "parameterized")

    def target(self, r: random.Random) -> Row:
        # Monday 16 to Saturday 21 October (``_DAY_RANGE`` 6)
        return generate_event(r, october_ts(r, start_day=DEVICE_TIME.day + 1, end_day=DEVICE_TIME.day + 6))

    def params_of(self, event: Row, noise: list[Row]) -> Params:
        # AndroidWorld's ``goal`` writes the weekday into the parameters
        return {**super().params_of(event, noise), "day_of_week": f"{start_of(event):%A}"}


class SimpleCalendarAddOneEventTomorrow(_AddEvent):
    id = "SimpleCalendarAddOneEventTomorrow"
    template = (
        "In Simple Calendar Pro, create a calendar event for tomorrow at {hour}h with the title '{event_title}' "
        "and the description '{event_description}'. The event should last for {duration_mins} mins."
    )
    difficulty = "easy"
    optimal_steps = 13
    tags = ("data_entry", "parameterized")

    def target(self, r: random.Random) -> Row:
        return generate_event(r, october_ts(r, DEVICE_TIME.day + 1, DEVICE_TIME.day + 1))


class SimpleCalendarAddOneEventInTwoWeeks(_AddEvent):
    id = "SimpleCalendarAddOneEventInTwoWeeks"
    template = (
        "In Simple Calendar Pro, create a calendar event in two weeks from today at {hour}h with the title "
        "'{event_title}' and the description '{event_description}'. The event should last for {duration_mins} mins."
    )
    difficulty = "medium"
    optimal_steps = 10
    tags = ("data_entry", "math_counting", "parameterized")

    def target(self, r: random.Random) -> Row:
        return generate_event(r, october_ts(r, DEVICE_TIME.day + 14, DEVICE_TIME.day + 14))


class SimpleCalendarAddRepeatingEvent(_AddEvent):
    id = "SimpleCalendarAddRepeatingEvent"
    template = (
        "In Simple Calendar Pro, create a recurring calendar event titled '{event_title}' starting on "
        "{year}-{month}-{day} at {hour}h. The event recurs {repeat_rule}, forever, and lasts for {duration_mins} "
        "minutes each occurrence. The event description should be '{event_description}'."
    )
    difficulty = "easy"
    optimal_steps = 14
    tags = ("data_entry", "complex_ui_understanding", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {**_AddEvent.placeholders, "Repeat": "repeat_rule"}
    milestones = _add_milestones(repeating=True)

    def generate(self, r: random.Random) -> Params:
        template = self.target(r)
        repeat = r.choice(list(REPEAT_INTERVALS))
        # ``generate_simple_calendar_weekly_repeat_rule``: 2 ** (ISO weekday - 1), Monday 1 ... Sunday 64
        rule = 1 << (start_of(template).isoweekday() - 1) if repeat == "weekly" else 0
        event = {**template, "repeat_interval": REPEAT_INTERVALS[repeat], "repeat_rule": rule}
        n_noise = r.randint(0, 20)
        return {**self.params_of(event, noise_events(r, [event], n_noise)), "repeat_rule": repeat}


# ----------------------------------------------------------------------------- deleting events


def _gone(dev: Device, ids: list[int]) -> list[int]:
    data = db(dev)
    return [uid for uid in ids if data.by_uid(uid) is None]


def _is_row_of(n: Any, e: Event) -> bool:
    """Whether ``n`` is the day view's row of ``e``: its title and its time range (events may
    share a title)."""
    if n.role != "row" or not n.rid.endswith(":id/event_item_holder") or n.label != e.title:
        return False
    sub = e.times() + ("" if e.repeat == "none" else f" · {REPEAT_LABEL[e.repeat]}")
    return any(c.text == sub for c in n.children)


def delete_step(o: Oracle, uid: int) -> str:
    """One step toward deleting event ``uid``: its day, its row's long-press menu, Delete, confirm."""
    e = db(o.dev).by_uid(uid)
    assert e is not None
    return calendar_delete_step(o, uid, e.start.date(), lambda n: _is_row_of(n, e))


class _DeleteEvents(AndroidWorldTask):
    """``SimpleCalendarDeleteEvents`` and its variants: the target rows (inserted after the noise)
    gone, the others kept."""

    app = "calendar"
    apps = ("calendar",)
    n_rows: ClassVar[int] = 3
    n_noise: ClassVar[int] = 20
    placeholders: ClassVar[dict[str, str]] = {"Date": "date"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to <Date>", lambda d, p: viewing(d, dt.date.fromisoformat(p["date"]))),
        Milestone("Delete one of the events on <Date>", lambda d, p: bool(_gone(d, p["target_ids"]))),
        Milestone(
            "Delete all the events on <Date>", lambda d, p: len(_gone(d, p["target_ids"])) == len(p["target_ids"])
        ),
    )

    def first(self, r: random.Random) -> Row:
        """The event whose day the targets share (drawn, then not used otherwise)."""
        return generate_event(r, october_ts(r))

    def generate(self, r: random.Random) -> Params:
        template = self.first(r)
        day = start_of(template).day
        events = [generate_event(r, october_ts(r, start_day=day, end_day=day)) for _ in range(self.n_rows)]
        days = {start_of(e).day for e in events}
        noise = noise_events(r, events, self.n_noise, keep=lambda c: start_of(c).day not in days)
        return self.params_of(template, events, noise)

    def params_of(self, template: Row, events: list[Row], noise: list[Row]) -> Params:
        start = start_of(template)
        return {
            "year": DEVICE_TIME.year,
            "month": DEVICE_TIME.month,
            "day": start.day,
            "row_objects": events,
            "noise_row_objects": noise,
            "date": f"{start:%Y-%m-%d}",
        }

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        data = db(dev)
        data.events.clear()
        for row in params["noise_row_objects"]:
            insert(data, row)
        targets = [insert(data, row) for row in params["row_objects"]]
        params["before"] = rows(data)
        params["target_ids"] = [e.uid for e in targets]  # the rows inserted last

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return removal_valid(params["before"], rows(db(dev)), params["target_ids"])

    def oracle(self, o: Oracle) -> str:
        left = [uid for uid in o.p["target_ids"] if db(o.dev).by_uid(uid) is not None]
        if not left:
            return o.finish()
        s = o.screen
        opened = s.menu_uid if isinstance(s, DayView) and s.dialog is not None else None
        return delete_step(o, opened if opened in left else left[0])


class SimpleCalendarDeleteEvents(_DeleteEvents):
    id = "SimpleCalendarDeleteEvents"
    template = "In Simple Calendar Pro, delete all the calendar events on {year}-{month}-{day}"
    difficulty = "easy"
    optimal_steps = 7
    tags = ("parameterized", "data_edit")


class SimpleCalendarDeleteEventsOnRelativeDay(_DeleteEvents):
    id = "SimpleCalendarDeleteEventsOnRelativeDay"
    template = "In Simple Calendar Pro, delete all events scheduled for this {day_of_week}."
    difficulty = "medium"
    optimal_steps = 6
    tags = ("data_edit", "parameterized")
    n_rows = 2
    placeholders: ClassVar[dict[str, str]] = {"Date": "date", "Weekday": "day_of_week"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to this <Weekday>, <Date>", lambda d, p: viewing(d, dt.date.fromisoformat(p["date"]))),
        *_DeleteEvents.milestones[2:],
    )

    def first(self, r: random.Random) -> Row:
        # Monday 16 to Saturday 21 October
        return generate_event(r, october_ts(r, start_day=DEVICE_TIME.day + 1, end_day=DEVICE_TIME.day + 6))

    def params_of(self, template: Row, events: list[Row], noise: list[Row]) -> Params:
        return {**super().params_of(template, events, noise), "day_of_week": f"{start_of(template):%A}"}


class SimpleCalendarDeleteOneEvent(_DeleteEvents):
    id = "SimpleCalendarDeleteOneEvent"
    template = (
        "In Simple Calendar Pro, delete the calendar event on {year}-{month}-{day} at {hour}h with the title "
        "'{event_title}'"
    )
    difficulty = "easy"
    optimal_steps = 6
    tags = ("data_edit", "complex_ui_understanding", "parameterized")
    n_rows = 1
    placeholders: ClassVar[dict[str, str]] = {"Date": "date", "Title": "event_title"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d)),
        Milestone("Go to <Date>", lambda d, p: viewing(d, dt.date.fromisoformat(p["date"]))),
        Milestone(
            'Open the options of the event "<Title>"',
            lambda d, p: menu_open(d, p["target_ids"][0]) or bool(_gone(d, p["target_ids"])),
        ),
        Milestone('Delete the event "<Title>"', lambda d, p: bool(_gone(d, p["target_ids"]))),
    )

    def generate(self, r: random.Random) -> Params:
        event = generate_event(r, october_ts(r))
        noise = noise_events(
            r,
            [event],
            self.n_noise,
            keep=lambda c: c["start_ts"] != event["start_ts"] and c["title"] != event["title"],
        )
        start = start_of(event)
        return {
            **self.params_of(event, [event], noise),
            "hour": start.hour,
            "duration_mins": (event["end_ts"] - event["start_ts"]) // 60,
            "event_title": event["title"],
            "event_description": event["description"],
        }


TEMPLATES = (
    SimpleCalendarAddOneEvent,
    SimpleCalendarAddOneEventInTwoWeeks,
    SimpleCalendarAddOneEventRelativeDay,
    SimpleCalendarAddOneEventTomorrow,
    SimpleCalendarAddRepeatingEvent,
    SimpleCalendarDeleteEvents,
    SimpleCalendarDeleteEventsOnRelativeDay,
    SimpleCalendarDeleteOneEvent,
)
