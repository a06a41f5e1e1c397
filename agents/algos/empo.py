"""EMPO: the dual-level advantage over experience rollouts (EMPO §3.4, Eq. 6, Table 13).

A group is the N rollouts of one experience (``GuiExperience-v0``), whose episodes carry Eq. 5's
discounted returns R_t^i as their final rewards (:attr:`Episode.rewards`) and Eq. 4's rewards
r_t^i as their step rewards (:attr:`Episode.step_rewards`). Eq. 6:

``A(a_t^i) = ω_s·(R_t^i − μ_t)/σ_t + ω_e·(R(τ^i) − μ_τ)/σ_τ``

- the step term normalises R_t^i over the rollouts that reached step index *t* of the same
  experience (μ_t, σ_t);
- the episode term normalises R(τ^i), the trajectory's total reward Σ_t r_t^i (the paper's
  "total trajectory return"; GiGPO's episode-level term, which Eq. 6 follows), over the group's
  trajectories; ω_e = 1 (Table 13), ω_s = 1 (the paper names none; the released code uses 1).

σ is the sample standard deviation (n − 1) plus 10⁻⁶, and a lone value's term is 0, as in the
authors' code (``uis1/core_uis1.py``). ``variant="released"`` reproduces that code where it
departs from the paper: its episode term normalises each step's own reward r_t^i over every step
of every rollout of the experience (a lone value is divided by 1 + 10⁻⁶, in float32); pair it with the
env's ``rule="released"`` (the 0.1 / 0.9 reward split).

The loss is the token-level clipped surrogate (``token-mean``, clip 0.2) with a KL penalty of
β = 10⁻⁴ (Table 13), and dynamic sampling keeps a group only while the standard deviation of its
advantages exceeds η = 0.3 (§3.4: "σ({A(a_t^i)}) > η"; the released code takes that of the
rollouts' first-step returns R_1^i instead, which ``empo-code`` follows), sampling more groups up
to ``TrainConfig.max_resample`` extra rounds.

Worked example (by hand): two rollouts, r = (1, 1) matched throughout, so R = (1.5, 1); and
r = (1, 0.1), mismatched at the end, so R = (1, 0.1). Step 0: R = 1.5, 1 → ±0.25/0.3536 =
±0.7071; step 1: 1, 0.1 → ±0.45/0.6364 = ±0.7071; episode: Σr = 2, 1.1 → ±0.7071. Each step of
the first rollout gets 1.4142, of the second −1.4142:

>>> import numpy as np
>>> returns, rewards = [np.array([1.5, 1.0]), np.array([1.0, 0.1])], [np.array([1.0, 1.0]), np.array([1.0, 0.1])]
>>> a = dual_level_advantages(returns, rewards)
>>> [np.round(x, 4).tolist() for x in a]
[[1.4142, 1.4142], [-1.4142, -1.4142]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.algos.base import Algorithm

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["EMPO", "VARIANTS", "advantage_spread", "dual_level_advantages", "first_step_spread"]

VARIANTS = ("paper", "released")
EPS = 1e-6
#: The released code's divisor for a group of one: its std of 1 plus 10⁻⁶, summed in float32.
_LONE_STD = float(np.float32(1.0) + np.float32(EPS))


def _normalised(values: np.ndarray, lone: float | None = 0.0) -> np.ndarray:
    """(x − mean)/(std₍ₙ₋₁₎ + 10⁻⁶); a lone value becomes *lone* (``None``: itself over 1 + 10⁻⁶,
    the released code's mean 0 and std 1 for a group of one)."""
    if values.size == 1:
        return np.array([values[0] / _LONE_STD if lone is None else lone], dtype=np.float64)
    return (values - values.mean()) / (values.std(ddof=1) + EPS)


def dual_level_advantages(
    returns: Sequence[np.ndarray],
    step_rewards: Sequence[np.ndarray],
    omega_step: float = 1.0,
    omega_episode: float = 1.0,
    variant: str = "paper",
    step_indices: Sequence[np.ndarray] | None = None,
) -> list[np.ndarray]:
    """Eq. 6 for one group: per rollout *i*, per step *t*, from R_t^i (*returns*) and r_t^i.

    *step_indices* give the expert step each action was scored at (default: its position); the
    step term compares the actions taken at one expert step, whichever env step they were (an
    invalid response that the env took as a no-op repeats its expert step)."""
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, got {variant!r}")
    R = [np.asarray(x, dtype=np.float64) for x in returns]
    r = [np.asarray(x, dtype=np.float64) for x in step_rewards]
    if [len(x) for x in R] != [len(x) for x in r]:
        raise ValueError("each rollout needs as many returns as step rewards")
    index = [np.arange(len(x)) for x in R] if step_indices is None else [np.asarray(x) for x in step_indices]
    if [len(x) for x in index] != [len(x) for x in R]:
        raise ValueError("each rollout needs one step index per step")
    out = [np.zeros(len(x)) for x in R]
    for k in sorted({int(v) for x in index for v in x}):  # the step term: the actions at expert step k
        at = [(i, t) for i, x in enumerate(index) for t in np.flatnonzero(x == k)]
        for (i, t), v in zip(at, _normalised(np.array([R[i][t] for i, t in at])), strict=True):
            out[i][t] += omega_step * v
    if variant == "paper":  # the episode term: total rewards over the group's trajectories
        totals = _normalised(np.array([x.sum() for x in r]))
        for i, v in enumerate(totals):
            out[i] += omega_episode * v
    else:  # released code: each step's reward over every step of every rollout
        flat = np.concatenate(r) if r else np.zeros(0)
        if flat.size:
            normed = _normalised(flat, lone=None)
            start = 0
            for i, x in enumerate(r):
                out[i] += omega_episode * normed[start : start + len(x)]
                start += len(x)
    return out


def advantage_spread(advantages: Sequence[np.ndarray]) -> float:
    """The population standard deviation of a group's advantages, every step of every rollout."""
    values = np.concatenate([np.asarray(a, dtype=np.float64) for a in advantages]) if advantages else np.zeros(0)
    return float(values.std()) if values.size else 0.0


def first_step_spread(group: Sequence[Episode]) -> float:
    """The population standard deviation of the rollouts' first-step returns R_1^i (of the last
    action at expert step 0, the one that moved on or ended the episode)."""
    firsts = []
    for ep in group:
        if not ep.length:
            continue
        at = np.flatnonzero(ep.step_indices == 0) if ep.step_indices is not None else np.array([0])
        firsts.append(float(ep.rewards[at[-1] if at.size else 0]))
    return float(np.std(firsts)) if firsts else 0.0


@dataclass(frozen=True)
class EMPO(Algorithm):
    """EMPO's dual-level advantage, token-mean clipped loss, KL β = 10⁻⁴ and dynamic sampling."""

    aggregation: str = "token-mean"
    kl_coef: float = 1e-4
    omega_step: float = 1.0
    omega_episode: float = 1.0
    eta: float = 0.3
    variant: str = "paper"
    return_modes: tuple[str, ...] = ("sum",)

    def keep_groups(self, groups: Sequence[Sequence[Episode]], spa_alpha: float = 1.0) -> list[bool] | None:
        """Dynamic sampling: the paper keeps a group while σ of its advantages A(a_t^i) exceeds η
        (§3.4); the released code while σ of its first-step returns R_1^i does."""
        if self.eta <= 0:
            return None
        if self.variant == "released":
            return [len(g) == 1 or first_step_spread(g) > self.eta for g in groups]
        return [advantage_spread(self.group_advantages(g)) > self.eta for g in groups]

    def group_advantages(self, episodes: Sequence[Episode], *, spa_alpha: float = 1.0) -> list[np.ndarray]:
        step_rewards = [ep.step_rewards if ep.step_rewards is not None else ep.rewards for ep in episodes]
        indices = None
        if all(ep.step_indices is not None for ep in episodes):
            indices = [ep.step_indices for ep in episodes]
        return dual_level_advantages(
            [ep.rewards for ep in episodes], step_rewards, self.omega_step, self.omega_episode, self.variant, indices
        )
