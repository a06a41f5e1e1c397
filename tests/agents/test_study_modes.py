"""The study's modes name tasks that exist, split them without overlap, and fit their budgets."""

from __future__ import annotations

import math

import pytest

from agents.study.settings import MODES
from gui_gym.android.sim.apps.miniwob.experts import EXPERTS
from gui_gym.android.sim.apps.miniwob.pages import NAMES, SUBSET, class_name


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_modes_training_and_heldout_tasks_are_disjoint(mode: str) -> None:
    cfg = MODES[mode]
    train, heldout = cfg.train_tasks.split(","), cfg.heldout_tasks.split(",")
    assert len(set(train)) == len(train) and len(set(heldout)) == len(heldout)
    assert not set(train) & set(heldout)


def test_quick_miniwob_trains_on_subset_pages_with_experts() -> None:
    """Milestones and the warm start need the oracle: every page is one of the subset's, with an expert."""
    cfg = MODES["quick-miniwob"]
    by_class = {class_name(n): n for n in NAMES}
    for task in (*cfg.train_tasks.split(","), *cfg.heldout_tasks.split(",")):
        page = by_class[task]
        assert page in SUBSET and page in EXPERTS, task
    # ADMIRE's decay reaches as far as 150 of the paper's epochs: 30 iterations × 4 tasks / 8 tasks = 15 epochs
    epochs = cfg.iterations * cfg.tasks_per_iter / len(cfg.train_tasks.split(","))
    assert epochs == 15 and math.isclose(cfg.admire_gamma**epochs, 0.99**150)
    assert cfg.settings == MODES["full-alfworld"].settings  # ADMIRE Table 4's five settings
