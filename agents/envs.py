"""Build a reward-shaped env from a short spec: what ``gui-gym train --reward`` accepts.

A reward spec joins shaping terms with ``+`` (any order; each wraps the one before):

========================  ==========================================================================
``outcome``               the env's own reward (no wrapper)
``milestone``             ADMIRE with the task's annotated milestones ("static", ADMIRE Table 3)
``milestone-adaptive``    ADMIRE with a :class:`~wrappers.MilestoneBook` distilled from successes
``progress``              ProgRM progress reward from the env's milestones ("ProgRM Env")
``progress=PATH``         ProgRM progress reward from a trained progress model checkpoint
``spa``                   MobileRL's shortest-path adjustment with a running T_min per instance
========================  ==========================================================================

e.g. ``milestone+spa``. Shared state (the milestone book, SPA's shortest lengths) is one object
per :class:`RewardState`, shared by every env built from it (the sub-envs of a vector env).

Example:
    >>> env = make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn", reward="milestone+spa")
    >>> [type(w).__name__ for w in wrapper_chain(env)]
    ['ShortestPathReward', 'MilestoneReward']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the env ids)
from wrappers import MilestoneBook, MilestoneReward, ProgressReward, ShortestLengths, ShortestPathReward

__all__ = ["REWARD_TERMS", "RewardState", "make_env", "parse_reward", "wrapper_chain"]

REWARD_TERMS = ("outcome", "milestone", "milestone-adaptive", "progress", "spa")


def parse_reward(spec: str) -> list[tuple[str, str | None]]:
    """``"milestone+progress=ckpt.pt"`` → ``[("milestone", None), ("progress", "ckpt.pt")]``."""
    terms: list[tuple[str, str | None]] = []
    for part in (p.strip() for p in str(spec).split("+")):
        if not part:
            continue
        name, _, arg = part.partition("=")
        name = name.strip().lower()
        if name not in REWARD_TERMS:
            raise ValueError(f"unknown reward term {name!r} in {spec!r}; choose from {', '.join(REWARD_TERMS)}")
        if arg and name != "progress":
            raise ValueError(f"reward term {name!r} takes no argument (got {part!r})")
        if any(n == name for n, _ in terms):
            raise ValueError(f"reward term {name!r} appears twice in {spec!r}")
        terms.append((name, arg.strip() or None))
    if not terms:
        raise ValueError("empty reward spec; use 'outcome' for the env's own reward")
    if {"milestone", "milestone-adaptive"} <= {n for n, _ in terms}:
        raise ValueError("use either 'milestone' (annotated) or 'milestone-adaptive', not both")
    return terms


@dataclass
class RewardState:
    """Reward state that outlives episodes and is shared by all envs of a run."""

    book: MilestoneBook | None = None
    lengths: ShortestLengths | None = None
    models: dict[str, Any] = field(default_factory=dict)  # progress models, loaded once

    def __getstate__(self) -> dict[str, Any]:
        # Checkpoints keep the book and T_min (with everything pending in them); models reload.
        return {"book": self.book, "lengths": self.lengths, "models": {}}


def make_env(
    env_id: str = "GuiAndroid-v0",
    tasks: str | list[str] | None = "easy",
    reward: str = "outcome",
    state: RewardState | None = None,
    spa_alpha: float = 1.0,
    **env_kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id, task=tasks, **env_kwargs)`` wrapped by the terms of ``reward`` in order."""
    terms = parse_reward(reward)
    state = state if state is not None else RewardState()
    env = gym.make(env_id, task=tasks, **env_kwargs)
    for name, arg in terms:
        if name == "milestone":
            env = MilestoneReward(env)
        elif name == "milestone-adaptive":
            if state.book is None:
                state.book = MilestoneBook()
            env = MilestoneReward(env, book=state.book)
        elif name == "progress":
            if arg is None:
                env = ProgressReward(env, model="env")
            else:
                if arg not in state.models:  # one model (and embedding cache) for all envs
                    from wrappers.progress.model import ProgressModel

                    state.models[arg] = ProgressModel.load(arg)
                env = ProgressReward(env, model=state.models[arg])
        elif name == "spa":
            if state.lengths is None:
                state.lengths = ShortestLengths()
            env = ShortestPathReward(env, lengths=state.lengths, alpha=spa_alpha)
    return env


def wrapper_chain(env: gym.Env) -> list[gym.Wrapper]:
    """The reward-shaping wrappers of ``env``, outermost first."""
    from wrappers.protocol import RewardShaping

    out = []
    while isinstance(env, gym.Wrapper):
        if isinstance(env, RewardShaping):
            out.append(env)
        env = env.env
    return out
