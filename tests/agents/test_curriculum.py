"""UI-Mem's dropout curriculum (Eq. 2-3) by hand, the strata along it, and the uimem sampler."""

from __future__ import annotations

import numpy as np
import pytest

from agents.collect import Episode, Instance
from agents.curriculum import CurriculumConfig, mix, strata
from agents.sampling import GuidanceSampler, make_sampler
from gui_gym.core.contract import GUIDANCE


def test_eq2_and_eq3_by_hand() -> None:
    cfg = CurriculumConfig(theta_start=0.2, theta_end=0.6, strong_min=0.1, strong_max=0.7, none_min=0.2, none_max=0.8)
    # S = 0.3: φ = (0.3 − 0.2) / 0.4 = 0.25; λ_strong = 0.7 − 0.25·0.6 = 0.55; λ_none = 0.2 + 0.25·0.6 = 0.35
    assert mix(0.3, cfg) == pytest.approx((0.55, 0.10, 0.35))
    # below θ_start and above θ_end the clip holds the ends
    assert mix(0.0, cfg) == pytest.approx((0.7, 0.1, 0.2)) and mix(1.0, cfg) == pytest.approx((0.1, 0.1, 0.8))
    with pytest.raises(ValueError, match="theta"):
        CurriculumConfig(theta_start=0.8, theta_end=0.2)
    with pytest.raises(ValueError, match="<= 1"):
        CurriculumConfig(strong_max=0.9, none_min=0.2)


def test_strata_follow_the_curriculum_and_keep_an_unguided_rollout() -> None:
    cfg = CurriculumConfig()
    along = [strata(s, 4, cfg) for s in np.linspace(0, 1, 11)]
    assert along[0] == (2, 1, 1) and along[-1] == (0, 1, 3)
    assert all(sum(c) == 4 and c[2] >= 1 for c in along)
    assert [c[0] for c in along] == sorted((c[0] for c in along), reverse=True)  # strong only falls
    assert [c[2] for c in along] == sorted(c[2] for c in along)  # unguided only rises
    # λ_none^min = 0 would give a group of 4 no unguided rollout: one is kept anyway
    greedy = CurriculumConfig(strong_min=0.5, strong_max=1.0, none_min=0.0, none_max=0.5)
    assert strata(0.0, 4, greedy) == (3, 0, 1) and strata(0.0, 1, greedy) == (0, 0, 1)
    # G = 8 at S = 0.5: λ = (0.25, 0.25, 0.5) → 2, 2, 4
    assert strata(0.5, 8, cfg) == (2, 2, 4)


def _episode(task: str, success: bool) -> Episode:
    return Episode(Instance(task, 1, 0, 0), task, "easy", [], [1.0 if success else 0.0], {}, success, False, 0)


def test_the_sampler_stratifies_groups_and_learns_each_tasks_success() -> None:
    sampler = make_sampler("uimem")
    assert isinstance(sampler, GuidanceSampler)
    batch = sampler.sample(["A", "B"], n_groups=2, group_size=4, rng=np.random.default_rng(0))
    by_group = {}
    for inst in batch:
        by_group.setdefault(inst.group, []).append(inst.options[GUIDANCE])
    assert all(levels == ["strong", "strong", "weak", "none"] for levels in by_group.values())  # S_0 = 0
    for _ in range(30):
        sampler.observe([_episode("A", True), _episode("B", False)])
    assert sampler.success["A"] == pytest.approx(1 - 0.9**30) and sampler.success["B"] == 0.0
    assert sampler.levels("A", 4) == ["weak", "none", "none", "none"]  # mastered: mostly unguided
    assert sampler.levels("B", 4) == ["strong", "strong", "weak", "none"]
    metrics = sampler.end_epoch()
    assert metrics["uimem_strong_share"] == pytest.approx(0.25) and metrics["uimem_none_share"] == pytest.approx(0.5)
    clone = GuidanceSampler()
    clone.load_state_dict(sampler.state_dict())
    assert clone.success == sampler.success and clone.config == sampler.config
