"""DAPO: GRPO's advantage with clip-higher (ε_high = 0.28), token-mean loss and dynamic sampling."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.algos.advantages import dynamic_sampling_mask
from agents.algos.grpo import GRPO

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["DAPO"]


@dataclass(frozen=True)
class DAPO(GRPO):
    """Groups whose returns are all equal carry no signal: drop them and sample more."""

    aggregation: str = "token-mean"
    clip_high: float = 0.28

    def keep_groups(self, groups: Sequence[Sequence[Episode]]) -> list[bool] | None:
        return dynamic_sampling_mask([[ep.ret for ep in g] for g in groups])
