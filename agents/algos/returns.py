"""R(τ), the trajectory-level reward an algorithm compares within a group: one explicit choice.

The env contract gives every episode its final per-step rewards split into named components
(:mod:`wrappers.protocol`). Some components are trajectory-level values repeated at every step
(the ``outcome``, MobileRL's ``spa`` adjustment: :attr:`agents.collect.Episode.trajectory_terms`),
the others are earned step by step (ADMIRE's ``format`` and ``milestone``, ProgRM's
``progress``). R(τ) is one of

==========  ====================================================================  ==========================
mode        R(τ)                                                                  default of
==========  ====================================================================  ==========================
``"sum"``   the trajectory terms once + Σ_t the step terms: the undiscounted       ``grpo``, ``rloo``,
            return (ProgRM's REINFORCE++ return at t = 0; for an unshaped env,     ``dapo``, ``reinforce++``
            the outcome)                                                           (per-step returns)
``"spa"``   MobileRL Eq. 2 over the group: the outcome scaled by                   ``adagrpo``
            1 − α(T − T_min)/T for successes (T_min: the group's shortest
            success), + the other terms as in ``"sum"``
``"step"``  no R(τ): each step reward is normalised over all step rewards of      ``level="step"`` of
            its group (ADMIRE Eq. 12-13)                                           ``grpo``/``dapo`` (ADMIRE)
``"mean"``  the mean over steps of the per-step rewards, trajectory terms          none; for comparisons
            included
==========  ====================================================================  ==========================

Why the sum: for the outcome alone it *is* MobileRL's R(τ) = r(s_T, a_T) (the mean of a
broadcast outcome is too, but the mean divides every step term by the episode's length, so a
progress gain of 0.5 is worth less in a longer episode and a failure scores best by collecting the
reachable step credit and stopping at once). ADMIRE's failure credit k/K is paid at *every* step,
so under the sum a long failure collects more of it than a short one: ADMIRE trains it at step
level, and so should its users (``--level step``).

Worked example (by hand, MobileRL Eq. 2, α = 1): a group of two successes of 6 and 8 steps and a
failure; T_min = 6, so R = 1, 1·(1 − 2/8) = 0.75 and 0:

>>> from agents.collect import Episode, Instance
>>> def ep(n, win):
...     o = np.full(n, float(win))
...     return Episode(Instance("T", 0), "T", "easy", [None] * n, o.copy(), {"outcome": o}, win, False, 0)
>>> group_returns([ep(6, True), ep(8, True), ep(3, False)], "spa")
[1.0, 0.75, 0.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from wrappers.protocol import OUTCOME
from wrappers.spa import adjust_group

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["RETURNS", "group_returns", "step_terms", "terminal_rewards", "trajectory_return"]

#: The R(τ) modes (see the module docstring).
RETURNS: tuple[str, ...] = ("sum", "spa", "step", "mean")
SPA_TERM = "spa"


def _trajectory_parts(ep: Episode) -> tuple[np.ndarray, float]:
    """(per-step rewards without the trajectory terms, the trajectory terms' value once)."""
    steps = np.asarray(ep.rewards, dtype=np.float64).copy()
    once = 0.0
    for name in ep.trajectory_terms:
        values = ep.components.get(name)
        if values is None or len(values) != len(steps) or not len(steps):
            continue
        steps -= values
        once += float(values[-1])
    return steps, once


def terminal_rewards(ep: Episode) -> np.ndarray:
    """Per-step rewards with every trajectory term once, at the last step; they sum to R(τ) "sum".

    What REINFORCE++ (ProgRM §2.4) accumulates into per-step returns: a broadcast outcome counted
    at every step would pay a success T times, and SPA's length penalty T times.

    >>> from agents.collect import Episode, Instance
    >>> o, spa = np.ones(3), np.full(3, -1 / 3)
    >>> e = Episode(Instance("T", 0), "T", "easy", [None] * 3, o + spa, {"outcome": o, "spa": spa},
    ...             True, False, 0, trajectory_terms=("outcome", "spa"))
    >>> terminal_rewards(e).round(4).tolist()
    [0.0, 0.0, 0.6667]
    """
    steps, once = _trajectory_parts(ep)
    if len(steps):
        steps[-1] += once
    return steps


def step_terms(ep: Episode) -> float:
    """Σ_t of the step terms alone (everything but the trajectory terms)."""
    steps, _ = _trajectory_parts(ep)
    return float(steps.sum())


def trajectory_return(ep: Episode, mode: str = "sum") -> float:
    """R(τ) of one episode for ``"sum"`` or ``"mean"`` (``"spa"`` needs the group: :func:`group_returns`)."""
    if mode == "sum":
        return float(terminal_rewards(ep).sum())
    if mode == "mean":
        return float(np.mean(ep.rewards)) if len(ep.rewards) else 0.0
    raise ValueError(f"R(τ) mode {mode!r} is defined over a group or not at all; use group_returns")


def group_returns(episodes: Sequence[Episode], mode: str = "sum", spa_alpha: float = 1.0) -> list[float]:
    """R(τ) of each episode of one group (the episodes of one problem instance).

    ``"spa"``: the outcome SPA-adjusted over the group's successes (MobileRL Eq. 2), plus the
    trajectory terms other than ``outcome`` and ``spa`` once and the step terms summed, so shaping
    terms (ADMIRE's milestones, ProgRM's progress) still count. ``"step"`` has no R(τ).
    """
    if mode in ("sum", "mean"):
        return [trajectory_return(ep, mode) for ep in episodes]
    if mode != "spa":
        raise ValueError(f"R(τ) mode must be one of {', '.join(m for m in RETURNS if m != 'step')}, got {mode!r}")
    adjusted = adjust_group(
        [ep.length for ep in episodes],
        [ep.outcome for ep in episodes],
        alpha=spa_alpha,
        successes=[ep.success for ep in episodes],
    )
    out = []
    for ep, spa_outcome in zip(episodes, adjusted, strict=True):
        steps, once = _trajectory_parts(ep)
        for name in (OUTCOME, SPA_TERM):  # replaced by the group's own SPA outcome
            values = ep.components.get(name)
            if name in ep.trajectory_terms and values is not None and len(values) == len(steps) and len(steps):
                once -= float(values[-1])
        out.append(float(spa_outcome + once + steps.sum()))
    return out
