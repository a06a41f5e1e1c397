"""The IR tasks' fast noise draws (``information._noise_events``, ``_noise_task_draw`` and their
exclusion tests) against the reference functions they stand for (``noise_event``, ``noise_task``,
``task_row``, ``event_passes``, ``task_passes``): the same rows from the same generator, for
AndroidWorld's definitions and for exclusions AndroidWorld does not use (other operators, fields
and values, which the reference handles alone)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from gui_gym.android.sim.tasks import information as ir

CALENDAR = [t for t in ir._data()["tasks"] if ir.definition(t).app == "calendar"]
TASKS_APP = [t for t in ir._data()["tasks"] if ir.definition(t).app == "tasks_app"]


def _reference_calendar(rows: list[ir.Row], exclusions: list[ir.Exclusion], r: random.Random) -> ir.Inserted:
    relevant = [ir.relevant_event(row) for row in rows]
    return ir._shuffled(r, relevant, [ir.noise_event(r, exclusions) for _ in range(ir.CALENDAR_NOISE)])


def _reference_tasks(rows: list[ir.Row], exclusions: list[ir.Exclusion], r: random.Random, seed: Any) -> ir.Inserted:
    ids = ir._remote_ids(seed)
    tasks = [ir.task_row(row, next(ids)) for row in rows]
    noise: list[dict[str, Any]] = []
    while len(noise) < ir.TASKS_NOISE:
        candidate = ir.task_row(ir.noise_task(r), next(ids))
        if ir.task_passes(candidate, exclusions):
            noise.append(candidate)
    return ir._shuffled(r, tasks, noise)


def _instance(task_id: str, seed: int) -> tuple[list[ir.Row], list[ir.Exclusion]]:
    d = ir.definition(task_id)
    params = ir.draw_params(d, random.Random(seed))
    params["seed"] = seed
    return ir.initialize_proto(d, params, random.Random(seed))


@pytest.mark.parametrize("task_id", CALENDAR)
def test_calendar_noise_is_the_reference_draws(task_id: str) -> None:
    for seed in range(40):
        rows, exclusions = _instance(task_id, seed)
        assert ir._event_test(exclusions) is not None  # AndroidWorld's exclusions take the fast draws
        want = _reference_calendar(rows, exclusions, random.Random(seed + 1000))
        assert ir.calendar_events(rows, exclusions, random.Random(seed + 1000)) == want


@pytest.mark.parametrize("task_id", TASKS_APP)
def test_tasks_noise_is_the_reference_draws(task_id: str) -> None:
    for seed in range(40):
        rows, exclusions = _instance(task_id, seed)
        assert ir._task_test(exclusions) is not None
        want = _reference_tasks(rows, exclusions, random.Random(seed + 1000), seed)
        assert ir.task_rows(rows, exclusions, random.Random(seed + 1000), seed) == want


OPS = ("EQUAL_TO", "GREATER_THAN", "GREATER_THAN_OR_EQUAL_TO", "LESS_THAN", "LESS_THAN_OR_EQUAL_TO")


def _random_exclusions(g: random.Random, fields: dict[str, list[str]]) -> list[ir.Exclusion]:
    return [
        (field, g.choice((*OPS, "CONTAINS")) if field == "title" else g.choice(OPS), g.choice(values))
        for field, values in g.sample(sorted(fields.items()), g.randint(0, len(fields)))
    ]


def test_event_test_is_event_passes() -> None:
    """Any exclusions of dates, times and titles, on events from the draws' whole range."""
    g = random.Random(0)
    fields = {
        "start_date": ["October 1 2023", "October 15 2023", "October 22 2023", "October 30 2023"],
        "start_time": ["00:00", "9:45am", "15:30", "23:50", "8pm"],
        "title": ["meeting", "Call with Bob", "review", "x"],
        "location": ["anywhere"],  # not an exclusion the check reads
    }
    for _ in range(300):
        exclusions = _random_exclusions(g, fields)
        test = ir._event_test(exclusions)
        assert test is not None
        for _ in range(40):
            start = ir.random_datetime(g, ir.dt.timedelta(days=30))
            minutes = g.choice([15, 30, 45, 60])
            title = ir.event_title(g)
            m = ir._minutes(start)
            assert test(m, m + minutes, title) == ir.event_passes(start, minutes, title, exclusions), exclusions


def test_task_test_is_task_passes() -> None:
    g = random.Random(1)
    fields = {
        "due_date": ["October 8 2023", "October 15 2023", "October 22 2023"],
        "completed_date": ["0", "October 1 2023", "October 3 2023"],
        "title": ["Call Grandma", "call", "Water Plants"],
        "importance": ["0", "2", "3"],
        "notes": ["ignored"],
    }
    for _ in range(300):
        exclusions = _random_exclusions(g, fields)
        test = ir._task_test(exclusions)
        assert test is not None
        draw = ir._noise_task_draw(g, ir._remote_ids(0))
        for _ in range(40):
            row = draw()
            assert test(row) == ir.task_passes(row, exclusions), exclusions


@pytest.mark.parametrize(
    "exclusions",
    [
        [("start_date", "CONTAINS", "October")],  # no order on text for a date: the reference's own error
        [("start_date", "EQUAL_TO", "not a date")],
        [("start_time", "NOT_AN_OPERATOR", "10:00")],
    ],
)
def test_exclusions_the_fast_draws_leave_to_the_reference(exclusions: list[ir.Exclusion]) -> None:
    assert ir._event_test(exclusions) is None
    assert ir._task_test([("due_date", *exclusions[0][1:])]) is None
    outcome: list[Any] = []
    for draw in (ir.calendar_events, _reference_calendar):
        try:
            outcome.append(draw([], exclusions, random.Random(3)))
        except Exception as e:  # the same error, raised at the same draw
            outcome.append((type(e), str(e)))
    assert outcome[0] == outcome[1]


def test_remote_ids_are_uuid4s() -> None:
    import uuid

    g = random.Random("org.tasks remoteId 7")
    want = [str(uuid.UUID(int=g.getrandbits(128), version=4).int) for _ in range(200)]
    ids = ir._remote_ids(7)
    assert [next(ids) for _ in range(200)] == want
