"""AndroidWorld's information-retrieval (IR) tasks: their definitions, draws, start states and answers.

AndroidWorld defines its IR tasks as data (``information_retrieval/proto/tasks.textproto``): a
prompt, parameters with their possible values, the *relevant state* (the rows that answer the
question, with ``{param}`` slots), exclusion conditions (noise rows that would change the answer
are drawn again) and expectations (how the expected answer follows from the relevant state and how
an answer is compared with it). :data:`DEFINITIONS` holds those of the tasks the phone has, written
by ``tests/android/androidworld_questions_record.py`` from the textproto (no protobuf at run time).

An instance is made as AndroidWorld makes it (``information_retrieval.py``, ``proto_utils.py``,
``datetime_utils.py``, ``calendar_utils.py``, ``task_app_utils.py``), each draw on the same
generator in the same order:

1. :func:`draw_params`: ``generate_random_params``, one ``choice`` per parameter;
2. :func:`initialize_proto`: the parameters are formatted into the relevant rows and the
   exclusions; a ``{x_without_replacement}`` slot draws a value of ``x`` not used yet;
3. :func:`reword_dates`: ``_maybe_replace_date``: every date parameter is reworded for the goal
   ("October 17 2023" becomes "October 17", "this Tuesday", "tomorrow", ...);
4. the app's start state: the relevant rows and noise rows that pass the exclusions, shuffled
   (:func:`calendar_events`: 75 events; :func:`task_rows`: 20 tasks).

The answer is judged by :func:`answer_is_correct`, AndroidWorld's ``check_agent_answer``: split on
every comma, cast to the expectations' types, the same number of answers as expected ones, each
matching one of them (fuzzily for text).

Example (AndroidWorld's instance 1 of ``SimpleCalendarEventsOnDate``):
    >>> import random
    >>> d = definition("SimpleCalendarEventsOnDate")
    >>> r = random.Random(1)
    >>> params = draw_params(d, r)
    >>> params["seed"] = 1
    >>> r = random.Random(1)
    >>> rows, exclusions = initialize_proto(d, params, r)
    >>> reword_dates(params, r)
    >>> params["date"], rows[0]["start_date"], rows[0]["title"]
    ('October 24', 'October 24 2023', 'Scrum meeting')
    >>> answer_is_correct(d, rows, "scrum meeting"), answer_is_correct(d, rows, "Scrum meeting, Bug Bash")
    (True, False)
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import json
import operator
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.calendar.androidworld import (
    ACTIONS,
    ADDITIONAL_NOTES,
    DURATIONS,
    NAMES,
    SUBJECT_DESCRIPTIONS,
    SUBJECTS,
    TITLE_PREFIXES,
)
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME, AndroidWorldTask, fuzzy_match
from gui_gym.android.sim.tasks.base import Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.tasks.base import Oracle
    from gui_gym.android.ui import Node

#: AndroidWorld's date format in IR tasks (``datetime_utils.DATE_FORMAT``).
DATE_FORMAT = "%B %d %Y"
_EPOCH = dt.datetime(1970, 1, 1)

__all__ = [
    "DATE_FORMAT",
    "Definition",
    "InformationTask",
    "PromptQuestion",
    "answer_is_correct",
    "answer_text",
    "calendar_events",
    "definition",
    "draw_params",
    "expected_answers",
    "initialize_proto",
    "reword_dates",
    "show_row",
    "task_rows",
    "with_expected_values",
]

Row = dict[str, str]
Exclusion = tuple[str, str, str]  # (field, operation, value)
#: rows in the order they are inserted, and the positions of the relevant ones among them
Inserted = tuple[list[dict[str, Any]], list[int]]


@dataclass(frozen=True)
class Definition:
    """One IR task as AndroidWorld's textproto defines it."""

    id: str
    prompt: str
    app: str  # the State field: "calendar" or "tasks_app"
    rows_field: str  # "events" or "tasks_app_tasks"
    params: tuple[tuple[str, tuple[str, ...]], ...]  # name, possible values (duplicates weight the draw)
    rows: tuple[tuple[tuple[str, str], ...], ...]  # each row's set fields, in field-number order
    exclusions: tuple[Exclusion, ...]
    expectations: tuple[dict[str, Any], ...]  # match, operation, field (or expected_value), tolerance


@cache
def _data() -> dict[str, Any]:
    text = resources.files("gui_gym.android.sim.tasks").joinpath("androidworld_questions.json").read_text()
    return json.loads(text)


@cache
def definition(task_id: str) -> Definition:
    """AndroidWorld's definition of the IR task ``task_id``."""
    t = _data()["tasks"][task_id]
    return Definition(
        id=task_id,
        prompt=t["prompt"],
        app=t["app"],
        rows_field=t["rows_field"],
        params=tuple((name, tuple(values)) for name, values in t["params"]),
        rows=tuple(tuple((f, v) for f, v in row) for row in t["rows"]),
        exclusions=tuple(tuple(e) for e in t["exclusions"]),
        expectations=tuple(t["expectations"]),
    )


# ----------------------------------------------------------------------------- dates and times


# Set-up parses the same few hundred date and time texts over and over (a Tasks instance ~280 of
# them): strptime is the bulk of a reset, so parses are kept (the texts come from the task data).
@functools.lru_cache(maxsize=4096)
def parse_date(text: str) -> dt.date:
    """``datetime_utils.get_date``: ``"October 17 2023"`` (ValueError otherwise)."""
    return dt.datetime.strptime(text, DATE_FORMAT).date()


@functools.lru_cache(maxsize=4096)
def parse_time(text: str) -> dt.time:
    """``datetime_utils.parse_time``: ``14:40``, ``2:30pm`` or ``2pm`` (ValueError otherwise).

    >>> parse_time("21:45"), parse_time("9:45am"), parse_time("12am")
    (datetime.time(21, 45), datetime.time(9, 45), datetime.time(0, 0))
    """
    for fmt in ("%H:%M", "%I:%M%p", "%I%p"):
        try:
            t = dt.datetime.strptime(text, fmt)
        except ValueError:
            continue
        return dt.time(t.hour, t.minute)
    raise ValueError(f"Time string '{text}' does not match any known format.")


def to_datetime(date_text: str, time_text: str = "") -> dt.datetime:
    """``calendar_utils.convert_str_to_datetime`` (the phone's clock is UTC): a missing time is 00:00."""
    t = parse_time(time_text) if time_text else dt.time(0)
    return dt.datetime.combine(parse_date(date_text), t)


def unix_seconds(when: dt.datetime) -> int:
    """A phone time (naive, UTC) in Unix seconds."""
    return int((when - _EPOCH).total_seconds())


@functools.lru_cache(maxsize=65536)
def from_unix_seconds(seconds: float) -> dt.datetime:
    """A Unix time as a phone time (naive, UTC); kept, as set-up turns the same few thousand
    minutes into datetimes again and again (a datetime is immutable: sharing one is safe)."""
    return _EPOCH + dt.timedelta(seconds=int(seconds))


def random_datetime(
    r: random.Random, window: dt.timedelta = dt.timedelta(days=14), center: dt.datetime = DEVICE_TIME
) -> dt.datetime:
    """``utils/datetime_utils.generate_random_datetime``: a minute in the window around ``center``."""
    start = center - window / 2
    return start + dt.timedelta(minutes=r.randrange(window.days * 24 * 60))


def date_options(date_text: str) -> list[str]:
    """``_generate_nl_date_options``: the ways the goal may say a date, relative to the device's
    Sunday 2023-10-15 (a bare weekday is the past week's or the coming week's)."""
    day, today = parse_date(date_text), DEVICE_TIME.date()
    options = [day.strftime("%B %d"), day.strftime(DATE_FORMAT)]
    if day == today:
        options.append("today")
    if day == today + dt.timedelta(days=1):
        options.append("tomorrow")
    if day == today - dt.timedelta(days=1):
        options.append("yesterday")
    if day > today:
        if (day - today).days <= 7:
            options += [day.strftime("%A"), f"this {day:%A}"]
        elif (day - today).days <= 14:
            options.append(f"the {day:%A} after next")
    if day < today and (today - day).days <= 7:
        options.append(day.strftime("%A"))
    return options


def reword_dates(params: dict[str, Any], r: random.Random) -> None:
    """``_maybe_replace_date``: each date parameter (but ``seed``), in order, reworded at random."""
    for name, value in params.items():
        if name == "seed" or not isinstance(value, str) or not value:
            continue
        try:
            options = date_options(value)
        except ValueError:
            continue  # not a date: nothing drawn
        params[name] = r.choice(options)


# ----------------------------------------------------------------------------- the draws


def draw_params(d: Definition, r: random.Random) -> dict[str, Any]:
    """``generate_random_params``: one value per parameter, in the definition's order."""
    return {name: r.choice(list(values)) for name, values in d.params}


def _remove_used(used: dict[str, Any], pool: list[tuple[str, list[str]]]) -> None:
    """``_remove_used_params``: one occurrence of each used value leaves its parameter's values
    (a fresh list: lists other pools share are left alone)."""
    for i, (name, values) in enumerate(pool):
        if name in used and used[name] in values:
            rest = list(values)
            rest.remove(used[name])
            pool[i] = (name, rest)


@functools.lru_cache(maxsize=1024)
def _slot_names(value: str) -> tuple[str, ...]:
    """The ``x`` of each ``{x_without_replacement}`` slot of ``value``, in order (the values are
    the task data's: a few hundred texts)."""
    return tuple(
        slot[1 : slot.find("_without_replacement")]
        for slot in re.findall(r"\{.+?\}", value)
        if slot.endswith("without_replacement}")
    )


def _without_replacement(value: str, pool: list[tuple[str, list[str]]], r: random.Random) -> str:
    """``_format_without_replacement``: each ``{x_without_replacement}`` slot takes a value of
    ``x`` drawn from the pool, which then loses it."""
    for name in _slot_names(value):
        new = None
        for pname, values in pool:
            if pname == name:
                new = r.choice(list(values))
                _remove_used({name: new}, pool)
                break
        value = value.format(**{name + "_without_replacement": new})
    return value


def _format_field(value: str, params: dict[str, Any], pool: list[tuple[str, list[str]]], r: random.Random) -> str:
    """``_format_field_if_exists``."""
    if "_without_replacement}" in value:
        return _without_replacement(value, pool, r)
    return value.format(**params)


def initialize_proto(d: Definition, params: dict[str, Any], r: random.Random) -> tuple[list[Row], list[Exclusion]]:
    """``proto_utils.initialize_proto``: the relevant rows and the exclusions with the parameters
    filled in, drawing the ``_without_replacement`` slots from ``r``. ``params``' text values are
    formatted with the parameters too (``"Meet with {person}"``), as AndroidWorld does."""
    values = [(name, [v.format(**params) for v in vals]) for name, vals in d.params]
    for name, value in params.items():
        if isinstance(value, str):
            params[name] = value.format(**params)
    # format_relevant_state_with_params removes the used values once, format_state_with_params
    # once more (from its own copy): a value listed twice is gone from the rows' draws.
    outer = list(values)
    _remove_used(params, outer)
    inner = list(outer)
    _remove_used(params, inner)
    rows = [{f: _format_field(v, params, inner, r) for f, v in row} for row in d.rows]
    exclusions = [(f, op, _format_field(v, params, outer, r)) for f, op, v in d.exclusions]
    return rows, exclusions


# ----------------------------------------------------------------------------- expected answers


def field_values(d: Definition, rows: Sequence[Row], name: str) -> list[Any]:
    """``_get_field_values`` over the relevant state: the rows themselves for the list's name,
    else every row's value of the field, in order."""
    if name == d.rows_field:
        return list(rows)
    return [row[name] for row in rows if name in row]


def expected_answers(d: Definition, rows: Sequence[Row]) -> list[Any]:
    """``get_expected_answer``: titles, a count, or dates and times joined into datetimes."""
    out: list[Any] = []
    for e in d.expectations:
        if "expected_value" in e:  # (none of the phone's IR tasks has one)
            return _cast([e["match"]], [e["expected_value"]])
        values = field_values(d, rows, e["field"])
        if e.get("operation") == "SUM":
            return [sum(float(v) for v in values)]
        if e.get("operation") == "COUNT":
            return [len(values)]
        if e["match"] == "STRING_MATCH":
            return list(values)
        if e["match"] == "NUMBER_MATCH":
            return [float(v) for v in values]
        these: list[Any] = []
        if e["match"] == "DATE_MATCH":
            these = [parse_date(v) for v in values]
        elif e["match"] == "TIME_MATCH":
            these = [parse_time(v) for v in values]
        if not out:
            out.extend(these)
        else:
            out = [_combine(a, b) for a, b in zip(out, these, strict=False)]
    return out


def _combine(a: Any, b: Any) -> dt.datetime:
    if isinstance(a, dt.date) and isinstance(b, dt.time):
        return dt.datetime(a.year, a.month, a.day, b.hour, b.minute)
    if isinstance(b, dt.date) and isinstance(a, dt.time):
        return dt.datetime(b.year, b.month, b.day, a.hour, a.minute)
    raise ValueError(f"Unsupported combination: {a} and {b}")


def _cast(matches: list[str], answers: list[str]) -> list[Any]:
    """``_cast_answers_to_type`` (ValueError when an answer is not of the type)."""
    if not matches:
        return answers
    if matches == ["STRING_MATCH"]:
        return [str(a) for a in answers]
    if matches == ["NUMBER_MATCH"]:
        return [float(a) for a in answers]
    if matches == ["DATE_MATCH"]:
        return [parse_date(a) for a in answers]
    if matches == ["TIME_MATCH"]:
        return [dt.datetime.strptime(a, "%H:%M").time() for a in answers]
    if matches == ["DATE_MATCH", "TIME_MATCH"]:
        return [dt.datetime.strptime(a, DATE_FORMAT + " %H:%M") for a in answers]
    raise ValueError(f"Unsupported match types: {matches}")


def answer_is_correct(d: Definition, rows: Sequence[Row], answer: str | None) -> bool:
    """AndroidWorld's ``InformationRetrieval.is_successful`` on the agent's answer: no answer
    fails; otherwise ``check_agent_answer``, a ValueError (an answer of the wrong type) failing."""
    if not answer:
        return False
    answers = [a.strip() for a in answer.split(",")]
    matches = [e["match"] for e in d.expectations]
    try:
        got = _cast(matches, answers)
        want = expected_answers(d, rows)
    except ValueError:
        return False
    compare: Callable[[Any, Any], bool] = lambda x, y: x == y  # noqa: E731
    if "STRING_MATCH" in matches:
        compare = fuzzy_match
    elif "NUMBER_MATCH" in matches and "tolerance" in d.expectations[0]:
        tolerance = d.expectations[0]["tolerance"]
        compare = lambda x, y: abs(x - y) < tolerance  # noqa: E731
    if len(got) != len(want):
        return False
    return all(any(compare(x, y) for y in want) for x in got)


def with_expected_values(d: Definition, params: dict[str, Any]) -> Definition:
    """``d`` with its expectations' ``expected_value`` slots filled from ``params``
    (``_format_success_criteria_with_params``: ``"{is_todo}"`` becomes ``"True"``), as AndroidWorld
    fills them in ``initialize_proto`` before judging (the Notes tasks have them)."""
    if not any("expected_value" in e for e in d.expectations):
        return d
    filled = tuple(
        {**e, "expected_value": e["expected_value"].format(**params)} if "expected_value" in e else e
        for e in d.expectations
    )
    return dataclasses.replace(d, expectations=filled)


def answer_text(d: Definition, rows: Sequence[Row]) -> str:
    """The expected answer as an agent would give it: comma-separated titles, an integer, or a
    date and time as ``October 27 2023 17:20``."""
    parts = []
    for v in expected_answers(d, rows):
        if isinstance(v, dt.datetime):
            parts.append(f"{v:%B} {v.day} {v:%Y %H:%M}")
        elif isinstance(v, float) and v.is_integer():
            parts.append(str(int(v)))
        else:
            parts.append(str(v))
    return ", ".join(parts)


# ----------------------------------------------------------------------------- conditions


def compare(value: Any, operation: str, other: Any) -> bool:
    """``proto_utils.compare``."""
    if operation == "EQUAL_TO":
        return value == other
    if operation == "GREATER_THAN":
        return value > other
    if operation == "GREATER_THAN_OR_EQUAL_TO":
        return value >= other
    if operation == "LESS_THAN":
        return value < other
    if operation == "LESS_THAN_OR_EQUAL_TO":
        return value <= other
    if operation == "CONTAINS":
        return other in str(value)
    raise ValueError(f"Unsupported operator: {operation}")


def event_passes(start: dt.datetime, minutes: int, title: str, exclusions: Sequence[Exclusion]) -> bool:
    """``calendar_utils.check_event_conditions``: False when the event meets *every* exclusion.

    A date (or time) EQUAL_TO means the event's span covers it; with both an EQUAL_TO date and
    time, the two are one moment. Other operators hold when the start or the end meets them."""
    if not exclusions:
        return True
    equal = {f: v for f, op, v in exclusions if op == "EQUAL_TO"}
    moment = None
    if "start_date" in equal and "start_time" in equal:
        moment = dt.datetime.combine(parse_date(equal["start_date"]), parse_time(equal["start_time"]))
    end = start + dt.timedelta(minutes=minutes)
    met = True
    for field, op, value in exclusions:
        if field in ("start_date", "start_time"):
            if moment is not None:
                target, a, b = moment, start, end
            elif field == "start_date":
                target, a, b = parse_date(value), start.date(), end.date()
            else:
                target, a, b = parse_time(value), start.time(), end.time()
            if op == "EQUAL_TO":
                hit = a <= target and b >= target
            else:
                hit = compare(a, op, target) or compare(b, op, target)
            met = met and hit
        elif field == "title":
            met = met and compare(title.lower(), op, value.lower())
    return not met


def task_passes(row: dict[str, Any], exclusions: Sequence[Exclusion]) -> bool:
    """``task_app_utils.check_task_conditions``: False when the task meets every exclusion."""
    if not exclusions:
        return True
    met = True
    for field, op, value in exclusions:
        if field == "due_date":
            due = from_unix_seconds(int(row["dueDate"] / 1000)).date()
            met = met and compare(due, op, parse_date(value))
        if field == "completed_date":
            if value == "0":
                met = met and compare(int(row["completed"]), op, 0)
            else:
                done = from_unix_seconds(int(row["completed"] / 1000)).date()
                met = met and compare(done, op, parse_date(value))
        elif field == "title":
            met = met and compare(row["title"].lower(), op, value.lower())
        elif field == "importance":
            met = met and compare(int(row["importance"]), op, int(value))
    return not met


# ----------------------------------------------------------------------------- Simple Calendar Pro

# ``single/calendar/events_generator``'s vocabulary (noise events' titles and descriptions) is the
# calendar's AndroidWorld data: see gui_gym.android.sim.apps.calendar.androidworld.

#: a relevant event without a duration lasts 30 minutes (``calendar_utils.DEFAULT_DURATION_S``)
DEFAULT_DURATION_S = 1800
#: noise events of an IR calendar task
CALENDAR_NOISE = 75


def event_title(r: random.Random) -> str:
    """``events_generator.generate_event_title``."""
    title = r.choice(TITLE_PREFIXES)
    return f"{title} {r.choice(NAMES) if 'with' in title else r.choice(SUBJECTS)}"


def event_description(r: random.Random) -> str:
    """``events_generator.generate_event_description``."""
    text = f"We will {r.choice(ACTIONS)} {r.choice(SUBJECT_DESCRIPTIONS)}."
    if r.choice([False, True]):
        text += f" {r.choice(ADDITIONAL_NOTES)}"
    return text


def parse_duration(text: str) -> int:
    """``calendar_utils.parse_duration``: seconds of ``"1.5 hours"``, ``"45min"``, ``"30 m"``."""
    if "h" in text:
        return int(3600 * float(text[: text.find("h")].strip()))
    if "m" in text:
        return 60 * int(text[: text.find("m")].strip())
    raise ValueError(f"Invalid duration: {text}")


def relevant_event(row: Row) -> dict[str, Any]:
    """``create_event_from_proto``: an ``events`` row (Unix seconds) of a relevant event."""
    start = unix_seconds(to_datetime(row["start_date"], row.get("start_time", "")))
    duration = parse_duration(row["duration"]) if "duration" in row else DEFAULT_DURATION_S
    return {
        "start_ts": start,
        "end_ts": start + duration,
        "title": row.get("title", ""),
        "location": row.get("location", ""),
        "description": row.get("description", ""),
    }


def noise_event(r: random.Random, exclusions: Sequence[Exclusion], tries: int = 100) -> dict[str, Any]:
    """``generate_random_event``: a 15-60 minute event in the 30 days around the device's clock,
    drawn again while it meets every exclusion."""
    for _ in range(tries):
        start = random_datetime(r, dt.timedelta(days=30))
        minutes = r.choice([15, 30, 45, 60])
        title, description = event_title(r), event_description(r)
        if event_passes(start, minutes, title, exclusions):
            ts = unix_seconds(start)
            return {
                "start_ts": ts,
                "end_ts": ts + minutes * 60,
                "title": title,
                "location": "",
                "description": description,
            }
    raise ValueError("Failed to create a random event that meets the exclusion conditions")


def _shuffled(r: random.Random, relevant: list[dict[str, Any]], noise: list[dict[str, Any]]) -> Inserted:
    items = relevant + noise
    r.shuffle(items)
    where = {id(x): i for i, x in enumerate(items)}
    return items, [where[id(x)] for x in relevant]


def calendar_events(rows: Sequence[Row], exclusions: Sequence[Exclusion], r: random.Random) -> Inserted:
    """``calendar_utils.setup_task_state``: the relevant events and 75 noise events, shuffled, in
    the order they are inserted (ids 1, 2, ...); and where the relevant ones went in that order."""
    relevant = [relevant_event(row) for row in rows]
    test = _event_test(exclusions)
    if test is None:  # exclusions the fast draws do not cover: the reference, one event at a time
        noise = [noise_event(r, exclusions) for _ in range(CALENDAR_NOISE)]
    else:
        noise = _noise_events(r, test, CALENDAR_NOISE)
    return _shuffled(r, relevant, noise)


# -- the same draws, faster -------------------------------------------------------------------
#
# Set-up draws hundreds of noise rows, and most of a reset went to building, formatting and
# comparing datetimes around the draws. The functions below draw exactly what noise_event and
# noise_task draw (the same calls on the generator, in the same order) but keep a time as whole
# minutes since the epoch (every time drawn is a whole minute) and test the exclusions on
# integers: a day is ``minute // 1440``, a time of day ``minute % 1440``, and dates, times and
# datetimes order as those integers do. Exclusions they do not cover (another operator, a value
# that is not a date) go to the reference functions above, errors included.

#: the orderings ``compare`` knows (CONTAINS is text only)
_ORDER: dict[str, Callable[[Any, Any], bool]] = {
    "EQUAL_TO": operator.eq,
    "GREATER_THAN": operator.gt,
    "GREATER_THAN_OR_EQUAL_TO": operator.ge,
    "LESS_THAN": operator.lt,
    "LESS_THAN_OR_EQUAL_TO": operator.le,
}
_DAY = 1440  # minutes


def _minutes(when: dt.datetime) -> int:
    """A whole-minute phone time as minutes since the epoch."""
    seconds = unix_seconds(when)
    if seconds % 60 or when.microsecond:
        raise ValueError(f"{when} is not a whole minute")
    return seconds // 60


def _day(day: dt.date) -> int:
    """A day as days since the epoch (days order as these do)."""
    return (day - _EPOCH.date()).days


#: the minute random_datetime's windows start at: 14 days around the clock (a due date), 30 days
#: around it (an event), 14 days around two weeks ago (a completion); a start date's window
#: (5 days around the due date less 6 days) starts 8.5 days before the due date
_WEEK_AROUND = _minutes(DEVICE_TIME - dt.timedelta(days=7))
_MONTH_AROUND = _minutes(DEVICE_TIME - dt.timedelta(days=15))
_WEEKS_AGO = _minutes(DEVICE_TIME - dt.timedelta(days=21))
_HIDE_BEFORE_DUE = 8 * _DAY + _DAY // 2


def _below(r: random.Random) -> Callable[[int], int]:
    """``r.randrange`` for one bound: ``seq[below(len(seq))]`` draws what ``r.choice(seq)`` draws
    (in CPython's ``random.Random`` both are ``r._randbelow(n)``, called here without the checks
    around it; any other generator goes through its ``randrange``)."""
    return r._randbelow if type(r) is random.Random else r.randrange  # type: ignore[attr-defined]


def _event_test(exclusions: Sequence[Exclusion]) -> Callable[[int, int, str], bool] | None:
    """:func:`event_passes` as a test of (start minute, end minute, title); ``None`` where the
    exclusions use what it does not cover."""
    checks: list[tuple[str, Callable[[Any, Any], bool] | str, Any]] = []
    try:
        equal = {f: v for f, op, v in exclusions if op == "EQUAL_TO"}
        moment = None
        if "start_date" in equal and "start_time" in equal:
            moment = _minutes(dt.datetime.combine(parse_date(equal["start_date"]), parse_time(equal["start_time"])))
        for field, op, value in exclusions:
            if field in ("start_date", "start_time"):
                if op not in _ORDER:
                    return None
                if moment is not None:
                    kind, target = "moment", moment
                elif field == "start_date":
                    kind, target = "date", _day(parse_date(value))
                else:
                    t = parse_time(value)
                    kind, target = "time", t.hour * 60 + t.minute
                checks.append((kind, "covers" if op == "EQUAL_TO" else _ORDER[op], target))
            elif field == "title":
                if op not in _ORDER and op != "CONTAINS":
                    return None
                checks.append(("title", op, value.lower()))
    except ValueError:
        return None

    passes_all = not exclusions  # no exclusion: every event passes; else not when it meets them all

    def test(start: int, end: int, title: str) -> bool:
        for kind, op, target in checks:
            if kind == "title":
                hit = compare(title.lower(), op, target)  # type: ignore[arg-type]
            else:
                if kind == "date":
                    a, b = start // _DAY, end // _DAY
                elif kind == "time":
                    a, b = start % _DAY, end % _DAY
                else:
                    a, b = start, end
                hit = a <= target <= b if op == "covers" else op(a, target) or op(b, target)  # type: ignore[operator]
            if not hit:
                return True  # not every exclusion met
        return passes_all

    return test


def _noise_events(
    r: random.Random, test: Callable[[int, int, str], bool], n: int, tries: int = 100
) -> list[dict[str, Any]]:
    """``n`` of :func:`noise_event`'s events (``test`` its exclusions, from :func:`_event_test`)."""
    below = _below(r)
    out: list[dict[str, Any]] = []
    for _ in range(n):
        for _ in range(tries):
            start = _MONTH_AROUND + below(30 * _DAY)
            end = start + DURATIONS[below(4)]
            prefix = TITLE_PREFIXES[below(len(TITLE_PREFIXES))]
            who = NAMES[below(len(NAMES))] if "with" in prefix else SUBJECTS[below(len(SUBJECTS))]
            title = f"{prefix} {who}"
            action = ACTIONS[below(len(ACTIONS))]
            subject = SUBJECT_DESCRIPTIONS[below(len(SUBJECT_DESCRIPTIONS))]
            note = ADDITIONAL_NOTES[below(len(ADDITIONAL_NOTES))] if below(2) else None
            if test(start, end, title):
                description = f"We will {action} {subject}."
                out.append(
                    {
                        "start_ts": 60 * start,
                        "end_ts": 60 * end,
                        "title": title,
                        "location": "",
                        "description": description if note is None else f"{description} {note}",
                    }
                )
                break
        else:
            raise ValueError("Failed to create a random event that meets the exclusion conditions")
    return out


# ----------------------------------------------------------------------------- Tasks (org.tasks)

#: ``task_app_utils._TASKS``: noise tasks' titles and notes (the TAB in the first note is theirs)
NOISE_TASKS: dict[str, str] = {
    "Grocery Shopping": "Don\t forget milk, eggs, and bread. Also need to pick up snacks for the kids.",
    "Finish Project Proposal": "Deadline is Friday. Need to finalize budget and timeline sections.",
    "Schedule Dentist Appointment": "Teeth cleaning overdue. Call Dr. Smith's office.",
    "Water Plants": "Check moisture level before watering. Fertilize succulents.",
    "Meal Prep for the Week": "Make a grocery list based on planned meals. Cook chicken and chop veggies on Sunday.",
    "Research Vacation Destinations": "Looking for beach destinations with family-friendly activities.",
    "Read 'The Martian'": "Started last week. Aim to finish by next weekend.",
    "Call Grandma": "Catch up on family news. Ask for her famous cookie recipe.",
    "Change Air Filter": "Last changed 3 months ago. Buy a new filter at the hardware store.",
    "Brainstorm Blog Post Ideas": "Need 5 new topics for the next month's content calendar.",
    "Renew Driver's License": "Expires next month. Check DMV website for requirements.",
    "Organize Closet": "Donate old clothes and shoes. Put winter clothes in storage.",
    "Submit Expense Report": "Deadline is Wednesday. Attach receipts for all purchases.",
    "Attend Team Meeting": "Agenda includes project updates and brainstorming new initiatives.",
    "Learn to Play Guitar": "Practice chords for 30 minutes every day. Find online tutorials.",
    "Reply to Emails": "Inbox is overflowing. Prioritize urgent messages and unsubscribe from unwanted lists.",
    "Clean Out Fridge": "Check expiration dates and discard old food. Wipe down shelves.",
    "Create Budget for Next Month": "Track income and expenses. Set savings goals.",
    "Back Up Computer Files": "Use external hard drive or cloud storage. Schedule regular backups.",
    "Take Dog to the Vet": "Annual checkup and vaccinations due.",
}
#: noise tasks of an IR Tasks task
TASKS_NOISE = 20


def task_row(row: Row, remote_id: str = "") -> dict[str, Any]:
    """``create_task_from_proto``: a ``tasks`` row (times in Unix milliseconds; a date without a
    time is 00:00; ``created`` and ``modified`` are ``dueDate - 7*3600``, AndroidWorld's "one week
    before" in the wrong unit; the importance 2 when not given)."""

    def ms(date_key: str, time_key: str) -> int:
        if date_key not in row:
            return 0
        return unix_seconds(to_datetime(row[date_key], row.get(time_key, ""))) * 1000

    due = ms("due_date", "due_time")
    return {
        "title": row.get("title", ""),
        "importance": int(row["importance"]) if "importance" in row else 2,
        "dueDate": due,
        "hideUntil": ms("hide_until_date", "hide_until_time"),
        "completed": ms("completed_date", "completed_time"),
        "created": due - 7 * 3600,
        "modified": due - 7 * 3600,
        "notes": row.get("notes"),
        "remoteId": remote_id,
    }


@functools.lru_cache(maxsize=65536)
def _date_and_time(when: dt.datetime) -> tuple[str, str]:
    """A random minute's date and time texts (noise draws land on a few tens of thousands of
    minutes, formatted again and again)."""
    return when.strftime(DATE_FORMAT), when.strftime("%H:%M")


def noise_task(r: random.Random) -> Row:
    """``_generate_random_task``'s draws, as the proto row it fills."""
    title = r.choice(list(NOISE_TASKS))
    row: Row = {"title": title}
    if r.choice([True, False]):
        row["notes"] = NOISE_TASKS[title]
    row["importance"] = str(r.choice([0, 1, 2, 3]))
    due = random_datetime(r)
    row["due_date"], row["due_time"] = _date_and_time(due)
    hide = random_datetime(r, dt.timedelta(days=5), due - dt.timedelta(days=6))
    row["hide_until_date"], row["hide_until_time"] = _date_and_time(hide)
    if r.choice([True, False]):
        done = random_datetime(r, center=DEVICE_TIME - dt.timedelta(days=14))
        row["completed_date"], row["completed_time"] = _date_and_time(done)
    return row


#: ``uuid.UUID(int=x, version=4)``'s bits: the variant (RFC 4122) and the version
_UUID4_CLEAR = ~((0xC000 << 48) | (0xF000 << 64))
_UUID4_SET = (0x8000 << 48) | (4 << 76)


def _remote_ids(seed: Any) -> Iterator[str]:
    """``remoteId``s as ``str(uuid4().int)``, from a generator of their own (AndroidWorld's come
    from ``os.urandom`` and draw nothing from ``random``), so a seed always gives the same rows.
    (The version and variant bits are set as ``uuid.UUID(int=..., version=4)`` sets them.)"""
    g = random.Random(f"org.tasks remoteId {seed}")
    bits = g.getrandbits
    while True:
        yield str(bits(128) & _UUID4_CLEAR | _UUID4_SET)


def task_rows(rows: Sequence[Row], exclusions: Sequence[Exclusion], r: random.Random, seed: Any = None) -> Inserted:
    """``task_app_utils.setup_task_state``: the relevant tasks and 20 noise tasks that pass the
    exclusions (``get_random_items``: never equal, their ``remoteId``s differ), shuffled, in the
    order they are inserted (``_id`` 1, 2, ...); and where the relevant ones went in that order."""
    ids = _remote_ids(seed)
    tasks = [task_row(row, next(ids)) for row in rows]
    test = _task_test(exclusions)
    draw = (lambda: task_row(noise_task(r), next(ids))) if test is None else _noise_task_draw(r, ids)
    passes = (lambda row: task_passes(row, exclusions)) if test is None else test
    noise: list[dict[str, Any]] = []
    tries = 0
    while len(noise) < TASKS_NOISE:
        candidate = draw()
        tries += 1
        if tries > 10_000:
            raise ValueError("generation exhausted")
        if passes(candidate):
            noise.append(candidate)
    return _shuffled(r, tasks, noise)


#: ``noise_task``'s titles, in the order it draws them from
_NOISE_TITLES = tuple(NOISE_TASKS)
_MS = 60_000  # a minute in milliseconds


def _noise_task_draw(r: random.Random, ids: Iterator[str]) -> Callable[[], dict[str, Any]]:
    """``task_row(noise_task(r), next(ids))``, drawn as the two draw it (see ``_event_test``'s
    section): the title, whether it has notes, the importance, the due minute, the start minute,
    whether it is done and, if so, when."""
    below = _below(r)

    def draw() -> dict[str, Any]:
        title = _NOISE_TITLES[below(len(_NOISE_TITLES))]
        notes = NOISE_TASKS[title] if below(2) == 0 else None  # choice([True, False])
        importance = below(4)  # choice([0, 1, 2, 3])
        due = _WEEK_AROUND + below(14 * _DAY)
        hide = due - _HIDE_BEFORE_DUE + below(5 * _DAY)
        done = _WEEKS_AGO + below(14 * _DAY) if below(2) == 0 else None
        due_ms = due * _MS
        return {
            "title": title,
            "importance": importance,
            "dueDate": due_ms,
            "hideUntil": hide * _MS,
            "completed": 0 if done is None else done * _MS,
            "created": due_ms - 7 * 3600,
            "modified": due_ms - 7 * 3600,
            "notes": notes,
            "remoteId": next(ids),
        }

    return draw


def _task_test(exclusions: Sequence[Exclusion]) -> Callable[[dict[str, Any]], bool] | None:
    """:func:`task_passes` for the rows :func:`_noise_task_draw` makes (times in whole minutes);
    ``None`` where the exclusions use what it does not cover."""
    checks: list[tuple[str, Callable[[Any, Any], bool] | str, Any]] = []
    try:
        for field, op, value in exclusions:
            if field == "due_date":
                if op not in _ORDER:
                    return None
                checks.append(("due", _ORDER[op], _day(parse_date(value))))
            elif field == "completed_date":
                if op not in _ORDER:
                    return None
                if value == "0":
                    checks.append(("completed", _ORDER[op], 0))
                else:
                    checks.append(("done", _ORDER[op], _day(parse_date(value))))
            elif field == "title":
                if op not in _ORDER and op != "CONTAINS":
                    return None
                checks.append(("title", op, value.lower()))
            elif field == "importance":
                if op not in _ORDER:
                    return None
                checks.append(("importance", _ORDER[op], int(value)))
    except ValueError:
        return None
    passes_all = not exclusions
    day_ms = _DAY * _MS

    def test(row: dict[str, Any]) -> bool:
        for kind, op, target in checks:
            if kind == "due":
                hit = op(row["dueDate"] // day_ms, target)  # type: ignore[operator]
            elif kind == "done":
                hit = op(row["completed"] // day_ms, target)  # type: ignore[operator]
            elif kind == "completed":
                hit = op(row["completed"], target)  # type: ignore[operator]
            elif kind == "importance":
                hit = op(row["importance"], target)  # type: ignore[operator]
            else:
                hit = compare(row["title"].lower(), op, target)  # type: ignore[arg-type]
            if not hit:
                return True
        return passes_all

    return test


# ----------------------------------------------------------------------------- the task class


class InformationTask(AndroidWorldTask):
    """An AndroidWorld IR task (``InformationRetrieval``): its template is the definition's prompt;
    :meth:`generate` draws its parameters; :meth:`initialize` fills the relevant state, rewords the
    goal's dates and writes the app's start state (:meth:`write_state`, per app); :meth:`check`
    judges the answer alone, as AndroidWorld does (the app's state plays no part).

    After set-up ``params["relevant"]`` holds the relevant rows as AndroidWorld filled them (dates
    as ``"October 17 2023"``, whatever the goal says): the expected answer follows from them.
    """

    kind: ClassVar[str] = "question"

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.id and "template" not in cls.__dict__:
            cls.template = definition(cls.id).prompt

    @property
    def definition(self) -> Definition:
        return definition(self.id)

    def generate(self, r: random.Random) -> Params:
        return draw_params(self.definition, r)

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        rows, exclusions = initialize_proto(self.definition, params, r)
        reword_dates(params, r)
        params["relevant"] = rows
        self.write_state(dev, params, rows, exclusions, r)

    def write_state(
        self, dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random
    ) -> None:
        """The app's start state: the relevant rows and the noise, drawn from ``r`` (per app)."""
        raise NotImplementedError

    def expected(self, params: Params) -> list[Any]:
        """AndroidWorld's expected answers."""
        return expected_answers(self.definition, params["relevant"])

    def answer(self, params: Params) -> str:
        """The expected answer as the agent gives it (:func:`answer_text`)."""
        return answer_text(self.definition, params["relevant"])

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return answer_is_correct(self.definition, params["relevant"], answer)


class PromptQuestion(InformationTask):
    """An IR task whose goal is its textproto prompt with the parameters filled in (``template``
    is task_metadata.json's)."""

    def instruction(self, params: Params) -> str:
        """AndroidWorld's goal is its textproto prompt (``template`` is task_metadata.json's)."""
        return self.definition.prompt.format(**params)


def show_row(o: Oracle, lst: Node | None, pos: int, row_h: int) -> str | None:
    """The experts' reading of a list whose rows have one height ``row_h`` (its scroll offset
    says which show): a swipe of ``lst`` toward row ``pos`` until it shows whole; ``None`` once it
    does, or where the list does not scroll."""
    if lst is None or lst.on_scroll is None:
        return None
    off, _ = lst.style
    top, view = pos * row_h, lst.bounds[3] - lst.bounds[1]
    if top < off:  # above the rows shown: the finger moves down
        return o.swipe("down", dist="short" if off - top <= view // 4 else "medium", within=lst)
    if top + row_h > off + view:
        return o.swipe("up", dist="short" if top + row_h - off - view <= view // 4 else "medium", within=lst)
    return None
