"""Build a reward-shaped env from a short spec: what ``gui-gym train --reward`` accepts.

A reward spec joins shaping terms with ``+`` (any order; each wraps the one before):

========================  ==========================================================================
``outcome``               the env's own reward (no wrapper)
``orm=PATH``              a learned outcome reward model's verdict instead of the env's check
``milestone``             ADMIRE with the task's annotated milestones ("static", ADMIRE Table 3)
``milestone-adaptive``    ADMIRE with a :class:`~wrappers.MilestoneBook` distilled from successes
``progress``              ProgRM progress reward from the env's milestones ("ProgRM Env")
``progress=PATH``         ProgRM progress reward from a trained progress model checkpoint
``spa``                   MobileRL's shortest-path adjustment with a running T_min per instance
========================  ==========================================================================

e.g. ``milestone+spa``. The milestone terms take ADMIRE's ablation switches (App. B.3) after
``=``, comma-separated: ``base-success`` (k/K also on successes), ``no-base-failure`` (no k/K on
failures), ``no-decay`` (λ stays λ0), e.g. ``milestone-adaptive=no-decay``. ``orm`` replaces
the outcome, so it is always the innermost wrapper whatever its place in the spec.

Shared state (the milestone book, SPA's shortest lengths) is one object per
:class:`RewardState`, shared by every env built from it (the sub-envs of a vector env).

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
from wrappers import AdmireConfig, MilestoneBook, MilestoneReward, ProgressReward, ShortestLengths, ShortestPathReward

__all__ = [
    "MILESTONE_OPTIONS",
    "REWARD_TERMS",
    "RewardState",
    "admire_config",
    "make_env",
    "parse_reward",
    "wrapper_chain",
]

REWARD_TERMS = ("outcome", "orm", "milestone", "milestone-adaptive", "progress", "spa")
#: ADMIRE's ablation switches (App. B.3) as reward-spec options → AdmireConfig fields.
MILESTONE_OPTIONS: dict[str, dict[str, bool]] = {
    "base-success": {"base_on_success": True},
    "no-base-failure": {"base_on_failure": False},
    "no-decay": {"decay": False},
}
_TAKES_PATH = {"progress", "orm"}


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
        if arg and name.startswith("milestone"):
            unknown = [o for o in _options(arg) if o not in MILESTONE_OPTIONS]
            if unknown:
                raise ValueError(
                    f"unknown milestone option {unknown[0]!r} in {part!r}; choose from {', '.join(MILESTONE_OPTIONS)}"
                )
        elif arg and name not in _TAKES_PATH:
            raise ValueError(f"reward term {name!r} takes no argument (got {part!r})")
        if name == "orm" and not arg.strip():
            raise ValueError("reward term 'orm' needs a checkpoint: orm=PATH (an outcome model from gui-gym study)")
        if any(n == name for n, _ in terms):
            raise ValueError(f"reward term {name!r} appears twice in {spec!r}")
        terms.append((name, arg.strip() or None))
    if not terms:
        raise ValueError("empty reward spec; use 'outcome' for the env's own reward")
    if {"milestone", "milestone-adaptive"} <= {n for n, _ in terms}:
        raise ValueError("use either 'milestone' (annotated) or 'milestone-adaptive', not both")
    # The ORM stands in for the env's check: it must see the env's reward before any shaping.
    return sorted(terms, key=lambda t: t[0] != "orm")


def _options(arg: str | None) -> list[str]:
    return [o.strip().lower() for o in (arg or "").split(",") if o.strip()]


def admire_config(arg: str | None) -> AdmireConfig:
    """The :class:`~wrappers.AdmireConfig` of a milestone term's options (``"no-decay,base-success"``)."""
    changes: dict[str, bool] = {}
    for option in _options(arg):
        changes.update(MILESTONE_OPTIONS[option])
    return AdmireConfig(**changes)


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
        if name == "orm":
            from wrappers.progress.outcome import OutcomeModelReward

            env = OutcomeModelReward(env, model=_model(state, arg))
        elif name == "milestone":
            env = MilestoneReward(env, config=admire_config(arg))
        elif name == "milestone-adaptive":
            if state.book is None:
                state.book = MilestoneBook()
            env = MilestoneReward(env, book=state.book, config=admire_config(arg))
        elif name == "progress":
            if arg is None:
                env = ProgressReward(env, model="env")
            else:
                env = ProgressReward(env, model=_model(state, arg))
        elif name == "spa":
            if state.lengths is None:
                state.lengths = ShortestLengths()
            env = ShortestPathReward(env, lengths=state.lengths, alpha=spa_alpha)
    return env


def _model(state: RewardState, path: str) -> Any:
    """The progress / outcome model at ``path``, loaded once for all envs (one embedding cache)."""
    if path not in state.models:
        from wrappers.progress.model import ProgressModel

        state.models[path] = ProgressModel.load(path)
    return state.models[path]


def wrapper_chain(env: gym.Env) -> list[gym.Wrapper]:
    """The reward-shaping wrappers of ``env``, outermost first."""
    from wrappers.protocol import RewardShaping

    out = []
    while isinstance(env, gym.Wrapper):
        if isinstance(env, RewardShaping):
            out.append(env)
        env = env.env
    return out
