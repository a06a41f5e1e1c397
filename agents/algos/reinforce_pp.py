"""REINFORCE++ (ProgRM §2.4): discounted returns of rewards minus β·KL, whitened over the batch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.algos.advantages import reinforce_pp_advantages
from agents.algos.base import Algorithm
from wrappers.protocol import OUTCOME

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["ReinforcePP", "terminal_rewards"]


def terminal_rewards(ep: Episode) -> np.ndarray:
    """Per-step rewards with the outcome once, at the last step (REINFORCE++ returns sum them)."""
    out = ep.rewards.copy()
    outcome = ep.components.get(OUTCOME)
    if outcome is not None and len(outcome) == len(out):
        out = out - outcome
        out[-1] += outcome[-1]
    return out


@dataclass(frozen=True)
class ReinforcePP(Algorithm):
    """No groups: the KL to the reference enters the per-step reward; token-mean loss, β = 0.001."""

    aggregation: str = "token-mean"
    kl_coef: float = 0.001
    kl_in_reward = True

    def advantages(
        self,
        episodes: Sequence[Episode],
        *,
        spa_alpha: float = 1.0,
        gamma: float = 1.0,
        kl: Sequence[np.ndarray] | None = None,
        kl_coef: float = 0.0,
    ) -> list[np.ndarray]:
        if not episodes:  # an iteration whose envs all failed: nothing to whiten
            return []
        rewards = [terminal_rewards(ep) for ep in episodes]
        adv = reinforce_pp_advantages(rewards, kl=kl, kl_coef=kl_coef if kl is not None else 0.0, gamma=gamma)
        return [np.asarray(a, dtype=np.float64) for a in adv]
