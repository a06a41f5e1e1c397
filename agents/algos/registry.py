"""The named algorithms: one object each on top of one rollout → advantage → loss core.

===============  ===========================  =======  ===============  =============================================
name             advantage                    R(τ)     loss             extras
===============  ===========================  =======  ===============  =============================================
``grpo``         group-normalised R(τ)        sum      trajectory-mean  MobileRL Eq. 1; ``level="step"``: ADMIRE Eq.
                                                                        12-13 (R(τ) "step", token-mean)
``rloo``         leave-one-out baseline       sum      trajectory-mean
``dapo``         group-normalised R(τ)        sum      token-mean       clip-higher ε_high = 0.28, dynamic sampling
``reinforce++``  token returns − β·k1 KL,     sum      token-mean       KL to the reference in the reward (ProgRM
                 whitened over the batch                                §2.4)
``adagrpo``      group-normalised R(τ)        spa      trajectory-mean  SPA over the group, AdaPR replay, FCF,
                                                                        negative pruning, KL β = 0.001
``empo``         dual-level: step returns at  sum      token-mean       EMPO Eq. 6 on GuiExperience-v0's Eq. 5
                 step t + trajectory totals                             returns, KL β = 1e-4, dynamic sampling η = 0.3
``empo-code``    as empo, the episode term                              the authors' released code
                 per step (released code)
===============  ===========================  =======  ===============  =============================================

R(τ) is :mod:`agents.algos.returns`' choice (``sum``, ``spa``, ``mean``, ``step``); each
algorithm's default is its paper's, and ``algorithm(name, returns=...)`` picks another.
``level="step"`` (GRPO, DAPO) normalises every step reward by the mean and std of all step
rewards of its group (ADMIRE Eq. 13) and averages the loss over all steps (Eq. 12's 1/ΣT_i).

A new algorithm is an :class:`~agents.algos.base.Algorithm` subclass in its own module and
one line here.
"""

from __future__ import annotations

from agents.algos.base import Algorithm
from agents.algos.dapo import DAPO
from agents.algos.empo import EMPO
from agents.algos.grpo import GRPO, AdaGRPO
from agents.algos.reinforce_pp import ReinforcePP
from agents.algos.rloo import RLOO

__all__ = ["ALGORITHMS", "algorithm"]

ALGORITHMS: dict[str, Algorithm] = {
    "grpo": GRPO("grpo"),
    "rloo": RLOO("rloo"),
    "dapo": DAPO("dapo"),
    "reinforce++": ReinforcePP("reinforce++"),
    "adagrpo": AdaGRPO("adagrpo"),
    "empo": EMPO("empo"),
    "empo-code": EMPO("empo-code", variant="released"),
}


def algorithm(name: str, level: str = "trajectory", returns: str | None = None) -> Algorithm:
    """The named algorithm, with ADMIRE's step-level advantage when ``level="step"``, training on
    R(τ) = ``returns`` (``None``: the algorithm's own, :mod:`agents.algos.returns`).

    >>> algorithm("grpo", level="step").level, algorithm("grpo", level="step").aggregation
    ('step', 'token-mean')
    """
    key = name.lower()
    if key not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)} (or 'ppo' for SB3)")
    return ALGORITHMS[key].at_level(level).with_returns(returns)
