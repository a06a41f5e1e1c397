"""AndroidWorld's Simple Calendar Pro tasks on the simulated phone (``apps/calendar/androidworld.py``):
the oracle solves AndroidWorld's instances 0-29 through the env, idling and near misses fail, the
start state is the ``events`` table AndroidWorld writes, and the event editor keeps the repetition
as the real app does."""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Callable

import gymnasium as gym
import pytest
from _aw import make, solve, start

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.sim.apps.calendar.androidworld import (
    TEMPLATES,
    SimpleCalendarAddRepeatingEvent,
    addition_valid,
    generate_event,
    october_ts,
    removal_valid,
)
from gui_gym.android.sim.apps.calendar.app import EventEditor
from gui_gym.android.sim.apps.calendar.storage import EVENTS, decode, encode, rows
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.base import Oracle

IDS = [t.id for t in TEMPLATES]
ADD = [t.id for t in TEMPLATES if "Add" in t.id]
DELETE = [t.id for t in TEMPLATES if "Delete" in t.id]


@pytest.mark.parametrize("task_id", IDS)
def test_start_state_is_androidworlds_table(task_id: str) -> None:
    """The served ``events.db`` holds AndroidWorld's rows, every column, ids 1.. in insertion order
    (noise first, then a deletion task's targets, ``SQLiteApp.initialize_task``)."""
    env = make(task_id)
    for seed in (0, 7):
        _, dev = start(env, seed)
        p = env.unwrapped.params
        table = EVENTS.decode(encode(dev.data("calendar")))
        inserted = p["noise_row_objects"] + (p["row_objects"] if task_id in DELETE else [])
        assert table == [{**row, "id": i} for i, row in enumerate(inserted, 1)] == p["before"]


def _after_oracle(task_id: str, seed: int) -> tuple[dict, object]:
    env = make(task_id)
    start(env, seed)
    solve(env)
    return env.unwrapped.params, env.unwrapped.backend.device


@pytest.mark.parametrize("task_id", ADD)
def test_add_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    p, dev = _after_oracle(task_id, 3)
    data = dev.data("calendar")
    assert task.check(dev, p, None, "complete")
    new = data.by_uid(len(p["noise_row_objects"]) + 1)
    for field, wrong in (("end", new.end + dt.timedelta(minutes=15)), ("location", "Room 4B"), ("title", "Lunch")):
        right = getattr(new, field)
        setattr(new, field, wrong)
        assert not task.check(dev, p, None, "complete"), field
        setattr(new, field, right)
        assert task.check(dev, p, None, "complete")
    if data.events[:-1]:  # a noise event changed while adding
        data.events[0].description += " Moved."
        assert not task.check(dev, p, None, "complete")


def test_repeating_event_with_the_editors_leftover_weekday_fails() -> None:
    """The real editor keeps the weekly rule when Daily is chosen after Weekly (``EventActivity.
    setRepeatInterval`` sets a rule only for weekly, monthly, yearly); AndroidWorld compares
    ``repeat_rule`` exactly, so such a daily event fails."""
    task = TASKS["SimpleCalendarAddRepeatingEvent"]
    seed = next(s for s in range(30) if task.sample_seed(s)["repeat_rule"] == "daily")
    p, dev = _after_oracle(task.id, seed)
    assert task.check(dev, p, None, "complete")
    new = dev.data("calendar").by_uid(len(p["noise_row_objects"]) + 1)
    new.rule = 1 << new.start.weekday()
    assert not task.check(dev, p, None, "complete")


@pytest.mark.parametrize("task_id", DELETE)
def test_delete_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    env = make(task_id)
    _, dev = start(env, 4)
    p = env.unwrapped.params
    data = dev.data("calendar")
    targets = [data.by_uid(uid) for uid in p["target_ids"]]
    for e in targets[:-1]:  # all targets but one
        data.events.remove(e)
    assert not task.check(dev, p, None, "complete")
    data.events.remove(targets[-1])
    assert task.check(dev, p, None, "complete")
    data.events[0].title += " (moved)"  # a noise event edited
    assert not task.check(dev, p, None, "complete")
    data.events.pop(0)  # ... or deleted too
    assert not task.check(dev, p, None, "complete")


def test_draws_worked_by_hand() -> None:
    """``datetime_utils.create_random_october_2023_unix_ts`` after ``random.seed(0)``: randint(15, 31)
    = 27, randint(0, 23) = 13, so 2023-10-27 13:00 UTC = 1697414400 (Oct 16 00:00) + 11 days + 13 h;
    ``events_generator.generate_event`` then draws the duration (a quarter-hour multiple, at most an
    hour), the title (a prefix with "with" takes a name) and the description ("We will ...")."""
    r = random.Random(0)
    ts = october_ts(r)
    assert ts == 1697414400 + 11 * 86400 + 13 * 3600 == 1698411600
    e = generate_event(r, ts)
    assert (e["end_ts"] - ts) // 60 in (15, 30, 45, 60) and e["description"].startswith("We will ")
    assert (e["source"], e["id"], e["time_zone"], e["repeat_interval"]) == ("imported-ics", -1, "UTC", 0)
    # calendar_utils.generate_simple_calendar_weekly_repeat_rule: 2 ** (ISO weekday - 1); a
    # weekly event starting Sunday 2023-10-22 has rule 64
    p = next(
        SimpleCalendarAddRepeatingEvent().sample_seed(s)
        for s in range(30)
        if SimpleCalendarAddRepeatingEvent().sample_seed(s)["repeat_rule"] == "weekly"
    )
    (row,) = p["row_objects"]
    start = dt.datetime(1970, 1, 1) + dt.timedelta(seconds=row["start_ts"])
    assert row["repeat_interval"] == 604800 and row["repeat_rule"] == 1 << (start.isoweekday() - 1)


def test_validators_worked_by_hand() -> None:
    """``sqlite_validators.validate_rows_addition_integrity``/``..._removal_integrity``: fuzzy text
    (ratio ≥ 0.9), exact times, one more row, every other row unchanged (ids included)."""
    a = {"id": 1, "start_ts": 0, "end_ts": 900, "title": "Call with HR", "location": "", "description": "We will plan."}
    a.update(repeat_rule=0, repeat_interval=0)
    ref = {**a, "id": -1, "title": "Call with HR.", "start_ts": 3600, "end_ts": 4500}
    new = {**a, "id": 2, "title": "call with hr", "start_ts": 3600, "end_ts": 4500}
    assert addition_valid([a], [a, new], [ref])
    assert not addition_valid([a], [a, {**new, "end_ts": 4501}], [ref])
    assert not addition_valid([a], [{**a, "title": "x"}, new], [ref])
    assert not addition_valid([a], [a, new, {**new, "id": 3}], [ref])
    assert removal_valid([a, new], [a], [2]) and not removal_valid([a, new], [], [2])
    assert not removal_valid([a, new], [a, new], [2]) and not removal_valid([a, new], [a, {**new, "id": 3}], [2])


def _do(env: gym.Env, pick: Callable[[Oracle], str]) -> None:
    """One action chosen on the current screen, as a person would take it."""
    dev = env.unwrapped.backend.device
    _, _, _, _, info = env.step(pick(Oracle(dev, env.unwrapped.params)))
    assert info["format_valid"], info.get("reason")


def test_editor_keeps_the_repetition_as_the_app_does() -> None:
    """Through the editor's UI: Weekly sets the start's weekday; moving the start moves it; the
    "Repeat on" checkboxes add weekdays (stored as their bits, shown on each); Daily after Weekly
    keeps the weekday's bit, as the app's ``EventActivity`` does."""
    env = make("SimpleCalendarAddRepeatingEvent")
    _, dev = start(env, 0)
    _do(env, lambda o: o.launch("Simple Calendar Pro"))
    _do(env, lambda o: o.tap(o.find(desc="New event")))  # Sunday 2023-10-15 16:00
    _do(env, lambda o: o.type("Standup"))
    _do(env, lambda o: o.tap(o.find(role="row", label="Repeat")))
    _do(env, lambda o: o.tap(o.find("Weekly", role="menuitem")))
    editor = dev.top_screen()
    assert isinstance(editor, EventEditor) and editor.rule == 64
    _do(env, lambda o: o.tap(o.find(label="Start date")))
    _do(env, lambda o: o.tap(o.find(role="day", desc="18 October 2023")))  # a Wednesday
    _do(env, lambda o: o.tap(o.find(label="OK", role="textbutton")))
    assert editor.rule == 4
    _do(env, lambda o: o.tap(o.find(role="row", label="Repeat on")))
    _do(env, lambda o: o.tap(o.find("Friday", role="checkbox")))
    _do(env, lambda o: o.tap(o.find(label="OK", role="textbutton")))
    assert editor.rule == 4 | 16 and any(n.text == "Wed, Fri" for n in Oracle(dev, {}).nodes)
    _do(env, lambda o: o.tap(o.find(desc="Save")))
    data = dev.data("calendar")
    standup = data.events[-1]
    assert (rows(data)[-1]["repeat_interval"], rows(data)[-1]["repeat_rule"]) == (604800, 20)
    week = [dt.date(2023, 10, 16) + dt.timedelta(days=i) for i in range(14)]
    assert [d.day for d in week if standup.occurs_on(d)] == [18, 20, 25, 27]
    _do(env, lambda o: o.tap(o.find(desc="New event")))
    _do(env, lambda o: o.type("Run"))
    _do(env, lambda o: o.tap(o.find(role="row", label="Repeat")))
    _do(env, lambda o: o.tap(o.find("Weekly", role="menuitem")))
    _do(env, lambda o: o.tap(o.find(role="row", label="Repeat")))
    _do(env, lambda o: o.tap(o.find("Daily", role="menuitem")))
    _do(env, lambda o: o.tap(o.find(desc="Save")))
    run = rows(data)[-1]
    assert (run["title"], run["repeat_interval"], run["repeat_rule"]) == ("Run", 86400, 64)
    back = decode(encode(data)).events[-1]  # and so read back from the database
    assert (back.repeat, back.repeat_rule, back.occurs_on(dt.date(2023, 10, 19))) == ("daily", 64, True)
