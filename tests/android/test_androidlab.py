"""AndroidLab's task table and metrics: the table as its sources give it, the metrics as its own
functions answer (``androidlab_metrics_record.py``) and as worked by hand."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from gui_gym.android.androidlab import (
    TOTAL_TASKS,
    LabResult,
    lab_tasks,
    reasonable_operation_ratio,
    reversed_redundancy,
    screen_similarity,
    sub_goal_rate,
    summarise,
)
from tests.android.androidlab_metrics_record import SUBGOALS, screens

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "androidlab" / "metrics.json").read_text())


def test_the_table_is_androidlabs_138_tasks() -> None:
    tasks = lab_tasks()
    assert len(tasks) == TOTAL_TASKS == 138
    assert Counter(t.kind for t in tasks.values()) == {"operation": 93, "query": 45}  # its metric_type labels
    assert Counter(t.app for t in tasks.values()) == {
        "bluecoins": 15, "calendar": 14, "Cantook": 12, "clock": 27, "Contacts": 15, "map.me": 15,
        "Pi Music Player": 12, "Settings": 23, "zoom": 5,
    }  # fmt: skip
    assert all(t.human_steps > 0 and t.id.split("_")[0] for t in tasks.values())
    assert tasks["clock_1"].instruction == 'Set an alarm for 3PM with the label "meeting" using Clock.'
    assert tasks["cantook_1"].package == "com.aldiko.android"  # its YAML names none
    assert tasks["bluecoins_1"].human_steps == 3


@pytest.mark.parametrize("case", range(len(SUBGOALS)))
def test_sub_goal_rate_is_androidlabs(case: int) -> None:
    want = FIXTURE["partial_acc"][case]
    flags = want["result"]
    got = sub_goal_rate(LabResult("x", complete=bool(flags.get("complete")), subgoals=flags))
    # print_metric scores a complete task 1 and asks calculate_partial_acc about the others
    assert got == (1.0 if flags.get("complete") else want["partial_acc"])


@pytest.mark.parametrize("name", sorted(FIXTURE["screens"]))
def test_screens_compare_as_androidlabs(name: str) -> None:
    want = FIXTURE["screens"][name]
    seq = screens(np.random.default_rng(0))[name]
    kept = seq[:-1] if len(seq) > 2 else []
    got = [screen_similarity(kept[i], kept[i + 1]) for i in range(len(kept) - 1)]
    assert [None if math.isnan(s) else s for s in got] == pytest.approx(want["similarities"], abs=0)
    assert reasonable_operation_ratio(LabResult("x", False, steps=len(seq), screens=seq)) == want["ror"]


def test_a_run_summarised_by_hand() -> None:
    """Four of 138 tasks (the other 134 missing count as failures):

    - a: complete in 5 steps, human 4 → RRR 0.8; screens all different → ROR 1
    - b: complete in 2 steps, human 3 → RRR 1.5; ROR 1 (two screens: nothing compared)
    - c: failed, flags 1 of 3 hold → Sub-SR 1/3; 4 steps, screens s0 = s1, s1 ≠ s2 (s3 dropped)
      → 1 ineffective of 3 → ROR 2/3
    - d: failed, no flags → 0; 1 step → ROR 1

    SR = 100·2/138; Sub-SR = 100·(1 + 1 + 1/3 + 0)/138; RRR = 100·(0.8 + 1.5)/2 = 115;
    ROR = 100·(1 + 1 + 2/3 + 1)/138.
    """
    x, y = np.zeros((2, 2), np.uint8), np.ones((2, 2), np.uint8)
    results = [
        LabResult("a", True, {"1": True}, steps=5, screens=[x, y, x, y, x]),
        LabResult("b", True, {}, steps=2, screens=[x, x]),
        LabResult("c", False, {"1": True, "2": False, "3": 0}, steps=4, screens=[x, x, y, y]),
        LabResult("d", False, {}, steps=1, screens=[x]),
    ]
    row = summarise(results, human_steps={"a": 4, "b": 3, "c": 9, "d": 2})
    assert row["SR"] == pytest.approx(100 * 2 / 138)
    assert row["Sub-SR"] == pytest.approx(100 * (7 / 3) / 138)
    assert row["RRR"] == pytest.approx(115.0)
    assert row["ROR"] == pytest.approx(100 * (11 / 3) / 138)
    assert (row["tasks"], row["completed"]) == (4, 2)
    assert reversed_redundancy(results[2], 9) is None  # only completed tasks have one
    assert summarise([], human_steps={})["RRR"] == 0.0  # nothing completed
