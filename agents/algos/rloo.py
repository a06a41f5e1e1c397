"""RLOO: each return against the mean of the other returns of its group (leave-one-out baseline)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.algos.advantages import rloo_advantages
from agents.algos.base import Algorithm, broadcast
from agents.algos.returns import group_returns

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["RLOO"]


@dataclass(frozen=True)
class RLOO(Algorithm):
    """Leave-one-out baseline on R(τ), the same advantage at every step, trajectory-mean loss."""

    def group_advantages(self, episodes: Sequence[Episode], *, spa_alpha: float = 1.0) -> list[np.ndarray]:
        return broadcast(episodes, rloo_advantages(group_returns(episodes, self.returns, spa_alpha)))
