"""DAPO: GRPO's advantage with clip-higher (ε_high = 0.28), token-mean loss and dynamic sampling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.algos.advantages import dynamic_sampling_mask
from agents.algos.grpo import GRPO
from agents.algos.returns import group_returns

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["DAPO"]


@dataclass(frozen=True)
class DAPO(GRPO):
    """Groups whose returns are all equal carry no signal: drop them and sample more."""

    aggregation: str = "token-mean"
    clip_high: float = 0.28

    def keep_groups(self, groups: Sequence[Sequence[Episode]], spa_alpha: float = 1.0) -> list[bool] | None:
        if self.level == "step":  # what the step-level advantage normalises: every step reward of the group
            return dynamic_sampling_mask([np.concatenate([ep.rewards for ep in g]) for g in groups])
        return dynamic_sampling_mask([group_returns(g, self.returns, spa_alpha) for g in groups])
