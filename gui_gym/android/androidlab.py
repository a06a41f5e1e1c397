"""AndroidLab (THUDM/Android-Lab): its 138 tasks and its four metrics, as its evaluation computes them.

:func:`lab_tasks` is the benchmark's task table (``data/androidlab_tasks.jsonl``, written from
AndroidLab's sources by ``tests/android/androidlab_table_record.py``): each task's id, app, package,
category, instruction (byte for byte), kind (AndroidLab's ``metric_type``: 93 operations, 45 queries)
and the human step count its RRR divides by.

The metrics (AndroidLab §3.3; ``evaluation/task.py`` and ``generate_result.py``) score a run from
one :class:`LabResult` per task: the judge's final verdict (``complete`` and its numbered sub-goal
flags), the number of judged steps, and the screenshots of those steps.

- **SR**, success rate: ``100 · Σ complete / 138`` (a task without a result counts as failed).
- **Sub-SR**, sub-goal success rate: per task 1 when complete, else the share of its sub-goal flags
  that hold (0 without flags); ``100 · Σ / 138``.
- **RRR**, reversed redundancy ratio: per completed task ``human steps / steps``;
  ``100 · Σ / completed tasks`` (0 when none completed).
- **ROR**, reasonable operation ratio: per task ``1 − ineffective / (steps − 1)`` (1 for one step),
  where an operation is ineffective when the screen did not change: consecutive screenshots of the
  steps but the last two, compared pixel value by pixel value over the values not white in both,
  more than 99.9 % alike; ``100 · Σ / 138``.

>>> r = LabResult("clock_1", complete=True, subgoals={"1": True, "2": True}, steps=4)
>>> sub_goal_rate(r), reversed_redundancy(r, human_steps=3)
(1.0, 0.75)
>>> failed = LabResult("clock_2", complete=False, subgoals={"1": True, "2": False}, steps=6)
>>> summarise([r, failed], total=2, human_steps={"clock_1": 3, "clock_2": 5})
{'SR': 50.0, 'Sub-SR': 75.0, 'RRR': 75.0, 'ROR': 100.0, 'tasks': 2, 'completed': 1}
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

#: AndroidLab's ``--total_num``: what SR, Sub-SR and ROR divide by
TOTAL_TASKS = 138
#: consecutive screenshots more alike than this are one ineffective operation
SAME_SCREEN = 0.999


@dataclass(frozen=True)
class LabTask:
    """One row of AndroidLab's task table."""

    id: str
    app: str  #: the ``APP`` of its YAML, as AndroidLab names it to the agent
    package: str
    category: str | None
    instruction: str
    kind: str  #: ``"operation"`` or ``"query"`` (AndroidLab's labels; six Settings ones contradict their texts)
    human_steps: int


@functools.cache
def lab_tasks() -> dict[str, LabTask]:
    """AndroidLab's 138 tasks by id, in its order (app by app)."""
    text = resources.files("gui_gym.android").joinpath("data/androidlab_tasks.jsonl").read_text(encoding="utf-8")
    rows = (LabTask(**json.loads(line)) for line in text.splitlines() if line.strip())
    return {t.id: t for t in rows}


@dataclass(frozen=True)
class LabResult:
    """One task's outcome as AndroidLab's evaluation sees it.

    ``subgoals`` are the judge's numbered flags at its final verdict (any truthy value holds, as
    AndroidLab tests them); ``steps`` the judged steps (the agent's ``finish`` included);
    ``screens`` the screenshots of those steps, in order (``None``: not recorded, ROR not computed
    from them); a screenshot that could not be read is a 1×1 black image, as AndroidLab reads it.
    """

    task_id: str
    complete: bool
    subgoals: Mapping[str, Any] = field(default_factory=dict)
    steps: int = 0
    screens: Sequence[np.ndarray] | None = None


def sub_goal_rate(result: LabResult) -> float:
    """``calculate_partial_acc``: 1 when complete, else the share of sub-goal flags that hold (0 without any).

    >>> sub_goal_rate(LabResult("x", False, {"1": True, "2": False, "3": "512 MB"}))
    0.6666666666666666
    """
    if result.complete:
        return 1.0
    flags = [v for k, v in result.subgoals.items() if k not in ("complete", "judge_page")]
    return sum(1 for v in flags if v) / len(flags) if flags else 0.0


def reversed_redundancy(result: LabResult, human_steps: int | None) -> float | None:
    """RRR of one task: ``human_steps / steps`` when it completed in at least one step, else ``None``."""
    if not result.complete or result.steps == 0 or human_steps is None:
        return None
    return human_steps / result.steps


def screen_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """The share of equal values among those not white (255) in at least one of the two images
    (NaN when both are white everywhere; 0 when their shapes differ).

    >>> white, grey = np.full((2, 2), 255), np.array([[255, 7], [7, 7]])
    >>> screen_similarity(grey, grey), screen_similarity(white, grey), screen_similarity(grey, np.zeros((1, 1)))
    (1.0, 0.0, 0.0)
    """
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:  # AndroidLab's comparison raises, and scores the pair 0
        return 0.0
    inked = (a != 255) | (b != 255)
    n = int(inked.sum())
    if n == 0:
        return math.nan
    # in single precision, as AndroidLab divides (its > 0.999 test sees the float32 ratio)
    return float(np.float32((inked & (a == b)).sum()) / np.float32(n))


def ineffective_operations(screens: Sequence[np.ndarray]) -> int:
    """Pairs of consecutive screenshots, the last screenshot left out, more than 99.9 % alike
    (none with two screenshots or fewer)."""
    if len(screens) <= 2:
        return 0
    kept = screens[:-1]
    return sum(screen_similarity(kept[i], kept[i + 1]) > SAME_SCREEN for i in range(len(kept) - 1))


def reasonable_operation_ratio(result: LabResult) -> float:
    """ROR of one task: ``1 − ineffective / (steps − 1)``; 1 for a single step (and without screenshots).

    >>> s = [np.zeros((2, 2)), np.zeros((2, 2)), np.ones((2, 2)), np.ones((2, 2))]
    >>> reasonable_operation_ratio(LabResult("x", False, steps=4, screens=s))  # the first two alike
    0.6666666666666667
    """
    if result.steps - 1 == 0 or result.screens is None:
        return 1.0
    return 1.0 - ineffective_operations(result.screens) / (result.steps - 1)


def summarise(
    results: Iterable[LabResult], total: int = TOTAL_TASKS, human_steps: Mapping[str, int] | None = None
) -> dict[str, float | int]:
    """AndroidLab's benchmark row (``generate_result.output_to_excel``): SR, Sub-SR and ROR over
    ``total`` tasks (tasks without a result count as 0), RRR over the completed ones.

    ``human_steps``: task id → the human step count (default: AndroidLab's, from :func:`lab_tasks`).
    """
    if human_steps is None:
        human_steps = {t.id: t.human_steps for t in lab_tasks().values()}
    results = list(results)
    completed = sum(r.complete for r in results)
    rrr = [x for r in results if (x := reversed_redundancy(r, human_steps.get(r.task_id))) is not None]
    return {
        "SR": 100 * completed / total,
        "Sub-SR": 100 * sum(sub_goal_rate(r) for r in results) / total,
        "RRR": 100 * sum(rrr) / completed if completed else 0.0,
        "ROR": 100 * sum(reasonable_operation_ratio(r) for r in results) / total,
        "tasks": len(results),
        "completed": completed,
    }
