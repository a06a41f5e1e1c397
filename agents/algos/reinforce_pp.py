"""REINFORCE++ (ProgRM §2.4): token returns of the rewards minus β·k1 KL, whitened over the batch.

REINFORCE++ folds the KL to the reference policy into the reward of every token, with the plain
log-ratio (k1) estimate of the sampled token, r_tok = −β·(log π_old(tok) − log π_ref(tok)), and
adds each step's reward at the step's last token: the trajectory terms (the outcome, SPA) once
at the episode's last token (:func:`~agents.algos.returns.terminal_rewards`), the step terms at
their step. Returns run backwards over the tokens, discounted by γ between steps (not between
the tokens of one step); one whitening over every token of the batch gives the advantages.

Worked example (β = 0.5, γ = 1, one episode of two one-token steps, outcome 1, k1 = 0.2 and
−0.4): token rewards −0.1 and 1 + 0.2 = 1.2, returns 1.1 and 1.2, whitened over the two tokens
to −0.7071 and 0.7071:

>>> token_returns(np.array([0.0, 1.0]), [np.array([0.2]), np.array([-0.4])], kl_coef=0.5)
[array([1.1]), array([1.2])]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agents.algos.advantages import finite, whiten
from agents.algos.base import Algorithm
from agents.algos.returns import terminal_rewards

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = ["ReinforcePP", "terminal_rewards", "token_returns"]


def token_returns(
    step_rewards: np.ndarray, kl: Sequence[np.ndarray] | None = None, kl_coef: float = 0.0, gamma: float = 1.0
) -> list[np.ndarray]:
    """Per step, the return at each of its tokens (see the module docstring).

    ``step_rewards[t]`` lands on step t's last token; ``kl[t]`` holds the k1 estimate of each
    token of step t (``None``: one token per step, no KL).
    """
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    rewards = finite(step_rewards, "step rewards", allow_empty=True)
    if kl is not None and len(kl) != len(rewards):
        raise ValueError(f"{len(rewards)} steps but KL for {len(kl)}")
    out: list[np.ndarray] = [np.zeros(0)] * len(rewards)
    acc = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        k = finite(kl[t], f"kl[{t}]") if kl is not None else np.zeros(1)
        tok = -kl_coef * k
        tok[-1] += rewards[t]
        acc *= gamma  # the discount between this step and the next
        ret = np.empty_like(tok)
        for j in range(len(tok) - 1, -1, -1):
            acc += tok[j]
            ret[j] = acc
        out[t] = ret
    return out


@dataclass(frozen=True)
class ReinforcePP(Algorithm):
    """No groups: the k1 KL to the reference enters each token's reward; token-mean loss, β = 0.001.

    R(τ) is always the sum (per-token returns of the step rewards): ``return_modes = ("sum",)``.
    """

    aggregation: str = "token-mean"
    kl_coef: float = 0.001
    kl_in_reward = True
    return_modes: tuple[str, ...] = ("sum",)

    def advantages(
        self,
        episodes: Sequence[Episode],
        *,
        spa_alpha: float = 1.0,
        gamma: float = 1.0,
        kl: Sequence[Sequence[np.ndarray]] | None = None,
        kl_coef: float = 0.0,
    ) -> list[np.ndarray | list[np.ndarray]]:
        """Per episode: per step, one advantage per token (a list of arrays) where ``kl`` gives the
        tokens, one advantage per step (an array) otherwise."""
        if not episodes:  # an iteration whose envs all failed: nothing to whiten
            return []
        if not (np.isfinite(kl_coef) and kl_coef >= 0):
            raise ValueError(f"kl_coef must be a finite number >= 0, got {kl_coef}")
        if kl is not None and len(kl) != len(episodes):
            raise ValueError(f"{len(episodes)} episodes but KL for {len(kl)}")
        per_step = [
            token_returns(terminal_rewards(ep), kl[i] if kl is not None else None, kl_coef, gamma)
            for i, ep in enumerate(episodes)
        ]
        flat = whiten([np.concatenate(steps) if steps else np.zeros(0) for steps in per_step])
        out: list[np.ndarray | list[np.ndarray]] = []
        for steps, adv in zip(per_step, flat, strict=True):
            split = np.split(adv, np.cumsum([len(s) for s in steps])[:-1]) if steps else []
            out.append(list(split) if kl is not None else np.asarray([a[0] for a in split], dtype=np.float64))
        return out
