"""What a study's settings learn from never meets what they are evaluated on (agents.study.leakage)."""

from __future__ import annotations

import dataclasses

import pytest

from agents.study.leakage import (
    EXPERIENCE_FILE,
    EXPERIENCE_SEEDS,
    Evaluation,
    LeakageError,
    Source,
    check_disjoint,
    experience_file,
    overlaps,
)
from agents.study.runner import run_study
from agents.study.settings import MODES, setting
from gui_gym.experience.embedded import embedded_experiences

TRAIN, HELDOUT = ["SystemWifiTurnOn", "TasksEditPriority"], ["SystemBluetoothTurnOff"]


def test_overlaps_are_counted_by_seed_for_seen_tasks_and_by_task_for_unseen_ones():
    ev = Evaluation(seen={"A"}, unseen={"B"}, n=4)
    # seeds 0..3 of A are evaluated: 2 and 3 of A's {2, 3, 9} meet them; B is held out at every seed
    assert overlaps(Source("s", {"A": {9, 3, 2}}), ev) == [("A", 2), ("A", 3)]
    assert overlaps(Source("s", {"B": {700}}), ev) == [("B", 700)]
    assert overlaps(Source("s", {"A": range(4, 10**9)}), ev) == []  # a range is never enumerated
    assert overlaps(Source("s", {"A": range(2, 10**9)}), ev) == [("A", 2), ("A", 3)]
    assert overlaps(Source("s", {"C": {0}}), ev) == []  # a task the study does not evaluate


def test_the_embedded_train_split_is_refused_for_empo_and_the_studys_own_seeds_pass():
    """The full study evaluates seeds 0-15; the shipped set's train split is seeds 0-5 of the same tasks."""
    cfg, empo = MODES["full"], setting("empo")
    shipped = [e.id for e in embedded_experiences() if e.meta.get("split") == "train" and e.task in TRAIN]
    with pytest.raises(LeakageError, match=r"expert trajectories: SystemWifiTurnOn/0, SystemWifiTurnOn/1"):
        check_disjoint(cfg, empo, TRAIN, HELDOUT, shipped)
    own = [f"{t}/{s}" for t in TRAIN for s in EXPERIENCE_SEEDS]
    check_disjoint(cfg, empo, TRAIN, HELDOUT, own)
    with pytest.raises(LeakageError, match="SystemBluetoothTurnOff/800000"):  # a held-out task, at any seed
        check_disjoint(cfg, empo, TRAIN, HELDOUT, [*own, "SystemBluetoothTurnOff/800000"])
    with pytest.raises(LeakageError, match="names no task/seed"):
        check_disjoint(cfg, empo, TRAIN, HELDOUT, ["no-seed-here"])


def test_every_setting_of_every_mode_is_disjoint_from_its_evaluation():
    for cfg in MODES.values():
        for s in cfg.setting_list():
            own = [f"{t}/{seed}" for t in TRAIN for seed in EXPERIENCE_SEEDS] if s.env_id else []
            check_disjoint(cfg, s, TRAIN, HELDOUT, own)


def test_an_evaluation_reaching_the_demonstration_seeds_is_refused():
    cfg = dataclasses.replace(MODES["full"], eval_episodes=500_001)  # seeds 0..500000 meet SFT_SEED_BASE
    with pytest.raises(LeakageError, match="behaviour cloning: SystemWifiTurnOn/500000"):
        check_disjoint(cfg, setting("outcome"), TRAIN, HELDOUT)
    with pytest.raises(LeakageError, match="reward-model rollouts"):
        check_disjoint(dataclasses.replace(cfg, warm_start=False), setting("progress-env"), TRAIN, HELDOUT)


def test_the_study_refuses_before_anything_trains(tmp_path):
    cfg = MODES["quick"].with_overrides(train_tasks=",".join(TRAIN), heldout_tasks=",".join(HELDOUT),
                                        settings=("outcome",), eval_episodes=500_001, tier_cuts=None)  # fmt: skip
    with pytest.raises(LeakageError):
        run_study(cfg, tmp_path / "s", progress=False, report=False)
    assert not (tmp_path / "s" / "sft").exists() and not (tmp_path / "s" / "runs").exists()


def test_the_experience_file_is_made_once_and_a_foreign_one_is_refused(tmp_path):
    path = experience_file(tmp_path, TRAIN)
    assert path == tmp_path / EXPERIENCE_FILE
    first = path.read_bytes()
    assert experience_file(tmp_path, TRAIN).read_bytes() == first  # reused, not remade
    with pytest.raises(ValueError, match="delete it to make it again"):
        experience_file(tmp_path, TRAIN[:1])
