"""AndroidWorld's information-retrieval tasks on Simple Calendar Pro.

The oracle answers every instance 0-29 through the env, from the day view of the answer's days;
doing nothing or a near miss fails; the start states are AndroidWorld's (digests of the rows its
own set-up inserts, recorded by ``androidworld_questions_record.py``); answers are judged as
AndroidWorld's ``check_agent_answer`` judges them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from _aw import answer_episode

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.sim.apps.calendar.questions import TEMPLATES
from gui_gym.android.sim.apps.calendar.storage import rows
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks import information as ir

IDS = [t.id for t in TEMPLATES]
SEEDS = range(30)
STATES = json.loads((Path(__file__).parent / "fixtures" / "androidworld" / "question_states.json").read_text())


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_answers_every_instance_from_the_screen(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    task = TASKS[task_id]
    for seed in SEEDS:
        info, shown = answer_episode(env, seed)
        assert info["success"] is True and info["progress"] == 1.0, f"seed {seed}"
        p = env.unwrapped.params
        if task_id == "SimpleCalendarNextMeetingWithPerson":  # the row shows its start time
            (e,) = task.relevant(env.unwrapped.device, p)
            assert f"{e.start:%H:%M} – {e.end:%H:%M}" in shown, f"seed {seed}"
        elif task_id != "SimpleCalendarEventsInNextWeek":  # (its first day was on screen before)
            for text in task.expected(p):
                assert text in shown, f"seed {seed}: {text!r} was not on screen when the oracle answered"
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_doing_nothing_fails(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    for seed in range(3):
        env.reset(options={"params": {"seed": seed}})
        *_, term, _, info = env.step("finish()")
        assert term and info["success"] is False
        assert not TASKS[task_id].check(env.unwrapped.device, env.unwrapped.params, "", "complete")
    env.close()


def _start(task_id: str, seed: int) -> tuple[Device, dict[str, Any]]:
    task, dev = TASKS[task_id], Device()
    params = task.sample_seed(seed)
    dev.reset(now=task.clock(np.random.default_rng(0)))
    task.setup(dev, params, np.random.default_rng(0))
    return dev, params


@pytest.mark.parametrize("task_id", [t for t in IDS if t != "SimpleCalendarNextMeetingWithPerson"])
def test_near_misses_fail(task_id: str) -> None:
    """One answer too many, another event's title, one short: the count must match."""
    task = TASKS[task_id]
    for seed in range(5):
        dev, p = _start(task_id, seed)
        want = task.expected(p)
        assert task.check(dev, p, ", ".join(want), "complete")
        assert task.check(dev, p, " " + ",".join(w.lower() for w in want) + ".", "complete")  # fuzzy
        other = next(e.title for e in dev.data("calendar").events if e.title not in want)
        assert not task.check(dev, p, ", ".join([*want, other]), "complete")
        assert not task.check(dev, p, ", ".join([*want[:-1], other]), "complete")
        if len(want) > 1:
            assert not task.check(dev, p, ", ".join(want[:-1]), "complete")


def test_a_meeting_is_answered_as_month_day_year_and_24_hour_time() -> None:
    """``SimpleCalendarNextMeetingWithPerson`` instance 0: "Drinks with Sofia" on October 27 2023
    at "5:20pm". AndroidWorld zips DATE_MATCH(start_date) and TIME_MATCH(start_time) into one
    datetime and parses the answer with ``'%B %d %Y %H:%M'`` after splitting it on commas
    (``proto_utils.check_agent_answer``): ISO text, 12-hour time or a comma after the day fail."""
    dev, p = _start("SimpleCalendarNextMeetingWithPerson", 0)
    task = TASKS["SimpleCalendarNextMeetingWithPerson"]
    assert p["person"] == "Sofia" and task.expected(p) == [dt.datetime(2023, 10, 27, 17, 20)]
    (e,) = task.relevant(dev, p)
    assert (e.title, e.start, e.end) == (
        "Drinks with Sofia",
        dt.datetime(2023, 10, 27, 17, 20),
        e.start + dt.timedelta(minutes=30),
    )
    for answer in ("October 27 2023 17:20", "october 27 2023 17:20", " October 27 2023 17:20 "):
        assert task.check(dev, p, answer, "complete"), answer
    for answer in ("2023-10-27 17:20:00", "October 27, 2023 17:20", "October 27 2023 5:20pm", "Oct 27 2023 17:20"):
        assert not task.check(dev, p, answer, "complete"), answer


def test_the_next_event_is_androidworlds_even_at_midnight() -> None:
    """``SimpleCalendarNextEvent`` instance 0 draws "12:00am": the event is at 00:00 on Sunday, before
    the device's 15:34, so its exclusions (start <= 00:00 and start >= 15:30) cannot both hold and
    later events stay; AndroidWorld still expects its title, and so does the check."""
    dev, p = _start("SimpleCalendarNextEvent", 0)
    task = TASKS["SimpleCalendarNextEvent"]
    (e,) = task.relevant(dev, p)
    assert p["time"] == "12:00am" and e.start == dt.datetime(2023, 10, 15, 0, 0) and e.title == "1-on-1 with Manager"
    later = [x for x in dev.data("calendar").on(dt.date(2023, 10, 15)) if x.start >= dt.datetime(2023, 10, 15, 15, 34)]
    assert later and task.check(dev, p, "1-on-1 with Manager", None)
    assert not task.check(dev, p, later[0].title, None)


@pytest.mark.parametrize("task_id", IDS)
def test_start_states_are_androidworlds(task_id: str) -> None:
    """The 76-78 rows inserted at the start, in order, are those of AndroidWorld's own set-up (its
    75 noise events drawn again while they meet every exclusion, then shuffled)."""
    for seed in STATES["seeds"]:
        dev, _ = _start(task_id, seed)
        table = [{k: v for k, v in r.items() if k not in STATES["left_out"]} for r in rows(dev.data("calendar"))]
        digest = hashlib.sha256(json.dumps(table, sort_keys=True).encode()).hexdigest()
        assert digest == STATES["tasks"][task_id][str(seed)], f"seed {seed}"


def test_goals_reword_dates_as_androidworld_does() -> None:
    """``_maybe_replace_date`` after ``initialize_proto``: the rows keep "October 24 2023", the goal
    says it another way; instance 1 of ``SimpleCalendarEventsOnDate`` (worked through in
    :mod:`gui_gym.android.sim.tasks.information`'s example) says "October 24"."""
    dev, p = _start("SimpleCalendarEventsOnDate", 1)
    assert p["date"] == "October 24" and p["relevant"][0]["start_date"] == "October 24 2023"
    assert TASKS["SimpleCalendarEventsOnDate"].instruction(p).startswith("What events do I have October 24 in")
    assert [e.title for e in dev.data("calendar").on(dt.date(2023, 10, 24))] == ["Scrum meeting"]
    assert ir.answer_is_correct(ir.definition("SimpleCalendarEventsOnDate"), p["relevant"], "Scrum meeting")
