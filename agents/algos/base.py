"""What a named algorithm is to the trainer: an object with settings and a few hooks.

The trainer's iteration (:meth:`agents.train.Trainer.iterate`) is one fixed loop; an
:class:`Algorithm` says what differs between algorithms, and nothing else does:

=============================  ======================================================================
``aggregation``, ``clip_*``    how the clipped surrogate is averaged and clipped (``policy_loss``)
``kl_coef``, ``kl_in_reward``  the KL to a frozen reference: in the loss, or (REINFORCE++) in the reward
``returns``                    R(τ): ``sum``, ``spa``, ``mean`` or ``step`` (:mod:`agents.algos.returns`)
``sampler``                    the default group sampler (:mod:`agents.sampling`): ``uniform``, ``fcf``
:meth:`keep_groups`            selection while rolling out (DAPO's dynamic sampling); ``None``: one round
:meth:`advantages`             per-step advantages of a batch of episodes, by groups
:meth:`select`                 the batch the update sees (AdaPR replay, negative pruning)
:meth:`after_update`           bookkeeping once the update is done (AdaPR entry)
=============================  ======================================================================

A new algorithm is a subclass in its own module plus one line in :mod:`agents.algos.registry`.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from agents.algos.adagrpo import ReplayBuffer
    from agents.collect import Episode

__all__ = ["Algorithm", "Round", "broadcast", "by_group"]


@dataclass
class Round:
    """What an algorithm's batch hooks see of one training iteration.

    ``stats`` collects the hooks' metrics (they join the iteration's row in ``metrics.jsonl``).
    """

    iteration: int
    rng: np.random.Generator
    replay: ReplayBuffer[Any]
    replay_gamma: float = 1.0
    prune_ratio: float = 2.0
    stats: dict[str, Any] = field(default_factory=dict)


def by_group(episodes: Sequence[Episode]) -> list[list[int]]:
    """Indices of ``episodes`` per group (``instance.group``), groups in order of first appearance."""
    groups: dict[int, list[int]] = defaultdict(list)
    for i, ep in enumerate(episodes):
        groups[ep.instance.group].append(i)
    return list(groups.values())


def broadcast(episodes: Sequence[Episode], values: Sequence[float]) -> list[np.ndarray]:
    """A trajectory-level advantage per episode, repeated at each of its steps."""
    return [np.full(ep.length, float(v)) for ep, v in zip(episodes, values, strict=True)]


@dataclass(frozen=True)
class Algorithm:
    """A named algorithm (see the module docstring); subclasses override the hooks they need.

    The base class advantage is zero everywhere: a subclass defines :meth:`group_advantages`
    (one group at a time) or :meth:`advantages` (the whole batch at once, as REINFORCE++).
    """

    name: str
    aggregation: str = "trajectory-mean"  # see agents.algos.losses.policy_loss
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0
    sampler: str = "uniform"  # the default group sampler (agents.sampling.SAMPLERS)
    level: str = "trajectory"  # "step": ADMIRE's step-level advantage, where the algorithm has one
    returns: str = "sum"  # R(τ), agents.algos.returns.RETURNS; "step" exactly when level="step"

    #: REINFORCE++: the per-step KL to the reference is part of the reward, not of the loss.
    kl_in_reward = False
    #: whether :meth:`at_level` accepts ``"step"``.
    has_step_level = False
    #: the R(τ) modes this algorithm can train on (:meth:`with_returns`).
    return_modes: tuple[str, ...] = ("sum", "spa", "mean")

    def at_level(self, level: str) -> Algorithm:
        """This algorithm with ``level`` ("trajectory" or "step"); ValueError where it has no such level."""
        if level == self.level:
            return self
        if level not in ("trajectory", "step"):
            raise ValueError(f"level must be 'trajectory' or 'step', got {level!r}")
        if level == "step" and not self.has_step_level:
            raise ValueError(f"the step-level advantage (ADMIRE Eq. 13) applies to grpo and dapo, not {self.name}")
        if level == "step":
            return dataclasses.replace(self, level=level, aggregation="token-mean", returns="step")
        base = type(self)(self.name)  # the algorithm's own trajectory-level settings
        return dataclasses.replace(self, level=level, aggregation=base.aggregation, returns=base.returns)

    def with_returns(self, mode: str | None) -> Algorithm:
        """This algorithm with R(τ) = ``mode`` (``None``: its default); ValueError where it cannot train on it."""
        if mode is None or mode == self.returns:
            return self
        if self.level == "step" or mode == "step":
            raise ValueError(
                f"R(τ) {mode!r} with level {self.level!r}: the step level (ADMIRE Eq. 12-13) normalises step "
                "rewards, not R(τ); use --level step alone, or a trajectory-level R(τ) without it"
            )
        if mode not in self.return_modes:
            raise ValueError(f"{self.name} trains on R(τ) {', '.join(self.return_modes)}, not {mode!r}")
        return dataclasses.replace(self, returns=mode)

    # -- rollout ---------------------------------------------------------------------------
    def keep_groups(self, groups: Sequence[Sequence[Episode]], spa_alpha: float = 1.0) -> list[bool] | None:
        """Which of a rollout round's groups to keep; ``None`` keeps all and ends the rollout."""
        return None

    # -- advantages ------------------------------------------------------------------------
    def advantages(
        self,
        episodes: Sequence[Episode],
        *,
        spa_alpha: float = 1.0,
        gamma: float = 1.0,
        kl: Sequence[np.ndarray] | None = None,
        kl_coef: float = 0.0,
    ) -> list[np.ndarray]:
        """Per-step advantages of each episode (one array per episode, one value per step).

        Groups are the episodes that share ``instance.group``; ``kl`` (with :attr:`kl_in_reward`)
        holds each episode's per-step KL to the reference policy.
        """
        out: list[np.ndarray] = [np.zeros(0)] * len(episodes)
        for idx in by_group(episodes):
            values = self.group_advantages([episodes[i] for i in idx], spa_alpha=spa_alpha)
            for i, v in zip(idx, values, strict=True):
                out[i] = np.asarray(v, dtype=np.float64)
        return out

    def group_advantages(self, episodes: Sequence[Episode], *, spa_alpha: float = 1.0) -> list[np.ndarray]:
        """Per-step advantages of the episodes of one group."""
        return [np.zeros(ep.length) for ep in episodes]

    # -- the batch -------------------------------------------------------------------------
    def select(self, episodes: Sequence[Episode], rnd: Round) -> list[Episode]:
        """The episodes the update trains on (advantages set); default: this round's rollouts."""
        return list(episodes)

    def after_update(self, episodes: Sequence[Episode], rnd: Round) -> None:
        """Called with this round's rollouts once the update is done."""
