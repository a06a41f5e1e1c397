"""UI-Mem's dynamic dropout curriculum (UI-Mem §3.3, Eq. 2-3): how a group is stratified.

Each group of G rollouts of one task instance is split into strong, weak and unguided rollouts in
the proportions λ_strong, λ_weak, λ_none, which follow the task's success: an exponential moving
average S_t of its outcomes (Alg. 2, ``SR ← γ·SR + (1 − γ)·outcome``). With the normalised
progress φ(S_t) = (S_t − θ_start) / (θ_end − θ_start)::

    λ_strong(S_t) = clip(λ_strong^max − φ(S_t)·Δλ_strong, λ_strong^min, λ_strong^max)      (2)
    λ_none(S_t)   = clip(λ_none^min + φ(S_t)·Δλ_none, λ_none^min, λ_none^max)              (3)

with Δλ = λ^max − λ^min and λ_weak = 1 − λ_strong − λ_none: a task the policy struggles with gets
mostly guided rollouts, a mastered one mostly unguided ones. The counts are λ·G rounded by largest
remainder, and every group keeps at least one unguided rollout (our rule; the paper states none,
but the unguided rollouts are the ones that estimate the policy itself). The sampler that applies
it is :class:`agents.sampling.GuidanceSampler` (``--sampler uimem``).

The paper gives G = 4 and no other constant; :class:`CurriculumConfig` holds ours (γ = 0.9,
θ_start = 0.2, θ_end = 0.8, λ_strong ∈ [0, 0.5], λ_none ∈ [0.25, 0.75]).

>>> cfg = CurriculumConfig()
>>> [tuple(round(x, 3) for x in mix(s, cfg)) for s in (0.0, 0.5, 1.0)]
[(0.5, 0.25, 0.25), (0.25, 0.25, 0.5), (0.0, 0.25, 0.75)]
>>> strata(0.0, 4, cfg), strata(0.5, 4, cfg), strata(1.0, 4, cfg)
((2, 1, 1), (1, 1, 2), (0, 1, 3))
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wrappers.memory.guidance import LEVELS

__all__ = ["LEVELS", "CurriculumConfig", "mix", "strata"]


@dataclass(frozen=True)
class CurriculumConfig:
    """Eq. 2-3's constants (ours: the paper gives none)."""

    ema: float = 0.9  # γ of the success average
    initial: float = 0.0  # S_0 of a task not seen yet
    theta_start: float = 0.2
    theta_end: float = 0.8
    strong_min: float = 0.0
    strong_max: float = 0.5
    none_min: float = 0.25
    none_max: float = 0.75

    def __post_init__(self) -> None:
        if not 0.0 <= self.ema < 1.0:
            raise ValueError(f"ema must be in [0, 1), got {self.ema}")
        if not 0.0 <= self.theta_start < self.theta_end <= 1.0:
            raise ValueError("need 0 <= theta_start < theta_end <= 1")
        if not (0.0 <= self.strong_min <= self.strong_max <= 1.0 and 0.0 <= self.none_min <= self.none_max <= 1.0):
            raise ValueError("the λ bounds must satisfy 0 <= min <= max <= 1")
        if self.strong_max + self.none_min > 1.0 or self.strong_min + self.none_max > 1.0:
            raise ValueError("λ_strong + λ_none must stay <= 1 (λ_weak is the rest)")


def mix(success: float, cfg: CurriculumConfig = CurriculumConfig()) -> tuple[float, float, float]:
    """``(λ_strong, λ_weak, λ_none)`` for a task's EMA success (Eq. 2-3)."""
    phi = (success - cfg.theta_start) / (cfg.theta_end - cfg.theta_start)
    strong = float(np.clip(cfg.strong_max - phi * (cfg.strong_max - cfg.strong_min), cfg.strong_min, cfg.strong_max))
    none = float(np.clip(cfg.none_min + phi * (cfg.none_max - cfg.none_min), cfg.none_min, cfg.none_max))
    return strong, max(0.0, 1.0 - strong - none), none


def strata(success: float, group_size: int, cfg: CurriculumConfig = CurriculumConfig()) -> tuple[int, int, int]:
    """How many of a group's ``group_size`` rollouts get strong, weak and no guidance: λ·G by
    largest remainder (ties to the less guided level), at least one unguided."""
    shares = mix(success, cfg)
    exact = [s * group_size for s in shares]
    counts = [int(np.floor(x)) for x in exact]
    for i in sorted(range(3), key=lambda i: (-(exact[i] - counts[i]), -i))[: group_size - sum(counts)]:
        counts[i] += 1
    if counts[2] == 0 and group_size > 0:  # always one unguided rollout: taken from weak, else strong
        counts[1 if counts[1] else 0] -= 1
        counts[2] = 1
    return counts[0], counts[1], counts[2]
