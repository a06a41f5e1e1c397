"""GRPO (MobileRL Eq. 1; ADMIRE's step-level variant, Eq. 12-13) and MobileRL's AdaGRPO.

- :class:`GRPO`: R(τ) (the sum of the rewards, :mod:`agents.algos.returns`) normalised by its
  group's mean and std, the same advantage at every step; ``level="step"`` normalises every
  step reward by the mean and std of all step rewards of its group (ADMIRE Eq. 13) and
  averages the loss over all steps (Eq. 12's 1/ΣT_i).
- :class:`AdaGRPO`: GRPO on the shortest-path-adjusted outcome (SPA over the group's
  successes, MobileRL Eq. 2) plus any shaping terms, with AdaPR positive replay, negative
  pruning to 1:2, failure curriculum sampling and KL β = 0.001.

>>> from agents.algos.registry import algorithm
>>> algorithm("grpo", level="step").aggregation, algorithm("adagrpo").sampler
('token-mean', 'fcf')
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.algos.adagrpo import prune_negatives
from agents.algos.advantages import group_advantages, step_group_advantages
from agents.algos.base import Algorithm, Round, broadcast
from agents.algos.returns import group_returns

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["GRPO", "AdaGRPO", "group_returns"]


@dataclass(frozen=True)
class GRPO(Algorithm):
    """Group-normalised returns; ADMIRE's step-level advantage with ``level="step"``."""

    has_step_level = True

    def group_advantages(self, episodes: Sequence[Episode], *, spa_alpha: float = 1.0) -> list[np.ndarray]:
        if self.level == "step":
            return [np.asarray(v, dtype=np.float64) for v in step_group_advantages([ep.rewards for ep in episodes])]
        return broadcast(episodes, group_advantages(group_returns(episodes, self.returns, spa_alpha)))


@dataclass(frozen=True)
class AdaGRPO(GRPO):
    """MobileRL's AdaGRPO (§2.2): SPA returns, AdaPR replay, negative pruning, FCF, KL β = 0.001.

    :meth:`select` runs AdaPR (MobileRL §2.2.2, App. B): evict stale entries, top the batch up
    with at most γ·N replayed trajectories (about 1:1 with γ = 1), then prunes negatives to
    ``prune_ratio`` per positive (App. B.3.1); :meth:`after_update` offers this round's rollouts
    to the buffer, so nothing is replayed in the round it was collected.
    """

    kl_coef: float = 0.001
    sampler: str = "fcf"
    returns: str = "spa"
    has_step_level = False

    def select(self, episodes: Sequence[Episode], rnd: Round) -> list[Episode]:
        batch = list(episodes)
        rnd.replay.evict(rnd.iteration)
        replayed = rnd.replay.sample(len(batch), rnd.replay_gamma)
        batch += replayed
        rnd.stats["replayed"] = len(replayed)
        if batch:
            keep = prune_negatives([_trajectory_advantage(ep) for ep in batch], rnd.prune_ratio, rnd.rng)
            rnd.stats["pruned"] = len(batch) - len(keep)
            batch = [batch[i] for i in keep]
        return batch

    def after_update(self, episodes: Sequence[Episode], rnd: Round) -> None:
        advantages = [_trajectory_advantage(ep) for ep in episodes]
        rnd.stats["replay_entered"] = rnd.replay.add(list(episodes), advantages, rnd.iteration)
        rnd.stats["replay_size"] = len(rnd.replay)


def _trajectory_advantage(ep: Episode) -> float:
    return float(ep.advantages[0]) if ep.length and ep.advantages is not None else 0.0
