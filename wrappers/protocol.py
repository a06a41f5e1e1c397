"""The reward-shaping protocol every wrapper in :mod:`wrappers` keeps.

A shaping wrapper never hides what it did. Each step it adds its own named terms to
``info["reward_components"]`` and returns ``inner reward + its terms``, so the step reward is
always the sum of the components:

- ``"outcome"`` is the env's own reward, put there by the innermost shaping wrapper;
- each wrapper adds its terms under its names (``"format"``, ``"milestone"``, ``"spa"`` …).

Some rewards depend on how the episode ends (ADMIRE's asymmetric credit, MobileRL's SPA): at a
step in the middle of an episode they can only be *provisional*. At the last step every
shaping wrapper therefore also publishes

- ``info["episode_reward_components"]``: each term's final per-step vector for the whole
  episode. The outcome term is the episode's outcome broadcast to every step, the step-level
  convention of ADMIRE §3.3 (Eq. 12-13) and MobileRL §2.2.1;
- ``info["episode_rewards"]``: their element-wise sum — only when some wrapper in the stack
  depends on the outcome. This is the per-step vector a trainer must use in place of the
  provisional step rewards;
- ``info["episode_trajectory_terms"]``: the names of the components that are one
  trajectory-level value repeated at every step (``outcome``, SPA's ``spa``), as opposed to
  rewards earned step by step; a trainer that sums step rewards counts them once
  (:func:`agents.algos.returns.terminal_rewards`);
- ``info["episode_settle"]`` (only from terms a group trainer settles over the whole batch,
  such as ADMIRE's adaptive milestones in batch mode): a JSON text of what each needs
  (:func:`wrappers.spec.settle_batch`).

Wrappers compose in any order: each one reads the components its inner wrappers published and
adds its own. A wrapper reads only the env contract (``task_id``, ``instruction``,
``format_valid``, ``action_kind``, ``action_description``, ``milestones``, ``progress``,
``success``, and at reset ``task_milestones`` / ``placeholders`` when the env has them) and asks
the env's family (:func:`gui_gym.core.family.family_of`) for anything else.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> from wrappers import ShortestPathReward
    >>> env = ShortestPathReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"))
    >>> _ = env.reset(seed=0)
    >>> done = False
    >>> while not done:
    ...     obs, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
    ...     done = term or trunc
    >>> info["reward_components"], info["episode_rewards"]
    ({'outcome': 1.0, 'spa': 0.0}, [1.0, 1.0, 1.0, 1.0])
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, ClassVar, SupportsFloat

import gymnasium as gym
import numpy as np

from gui_gym.core import contract as C
from gui_gym.core.trajectory import Step, Trajectory

OUTCOME = "outcome"


def observation_digest(obs: Any) -> str:
    """A short stable hash of an observation (dicts of text and arrays, or either alone).

    Two equal observations have equal digests; the built-in milestone generator uses them to
    find steps that changed nothing and loops that came back to an earlier screen.
    """
    h = hashlib.blake2b(digest_size=12)

    def feed(x: Any) -> None:
        if isinstance(x, Mapping):
            for k in sorted(x, key=str):
                h.update(str(k).encode())
                feed(x[k])
        elif isinstance(x, np.ndarray):
            h.update(str((x.dtype, x.shape)).encode())
            h.update(np.ascontiguousarray(x).tobytes())
        elif isinstance(x, (list, tuple)):
            for v in x:
                feed(v)
        else:
            h.update(str(x).encode("utf-8", "surrogatepass"))

    feed(obs)
    return h.hexdigest()


class RewardShaping(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Base class of the shaping wrappers: records the episode, merges reward components.

    Subclasses set :attr:`outcome_dependent` and implement

    - :meth:`begin` (optional): called after reset with the reset ``info``;
    - :meth:`step_terms`: this step's provisional terms, ``{name: value}``;
    - :meth:`episode_terms`: at the last step, each term's final per-step vector.

    Subclasses call ``gym.utils.RecordConstructorArgs.__init__(self, **their_kwargs)`` first, so
    that ``env.spec`` can rebuild the stack (``gymnasium.utils.env_checker.check_env`` does).

    :attr:`observation` and :attr:`previous_observation` are the observations after and before
    the step. The episode so far is :attr:`episode`, a :class:`gui_gym.core.Trajectory` whose steps carry
    the action, its kind and description, ``format_valid``, the env's milestones and progress, the
    outcome term as ``reward``, and in ``info`` the digest of the observation after the step
    (``"obs"``); ``meta`` holds the reset-time ``task_milestones``, ``placeholders`` and the
    start digest.
    """

    outcome_dependent: ClassVar[bool] = False
    #: this wrapper's terms that are one trajectory-level value repeated at every step
    trajectory_terms: ClassVar[tuple[str, ...]] = ()
    record_observations: bool = False  # digest each observation (for milestone generation)

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.episode: Trajectory | None = None
        self.observation: Any = None  # the latest observation, and the one before it
        self.previous_observation: Any = None
        self.last_step = False
        self._done = True

    # -- to implement --------------------------------------------------------------------
    def begin(self, info: dict[str, Any]) -> None:
        """A new episode started (``self.episode`` is fresh)."""

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        """Provisional terms of the step just taken (``self.last_step`` tells if it ended the
        episode; then ``self.episode.success`` is set)."""
        raise NotImplementedError

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        raise NotImplementedError

    def settle_payload(self, episode: Trajectory) -> tuple[str, Any] | None:
        """``(term, JSON-able data)`` a batch trainer needs to settle this episode's term, or None."""
        return None

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        meta = {
            "task_milestones": list(info.get(C.TASK_MILESTONES) or []),
            "placeholders": dict(info.get(C.PLACEHOLDERS) or {}),
        }
        if self.record_observations:
            meta["start_obs"] = observation_digest(obs)
        self.episode = Trajectory(
            task_id=str(info.get(C.TASK_ID, "")), instruction=str(info.get(C.INSTRUCTION, "")), seed=seed, meta=meta
        )
        self._done = False
        self.observation, self.previous_observation = obs, None
        self.begin(info)
        return obs, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        if self.episode is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        obs, reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        components = dict(info.get(C.REWARD_COMPONENTS) or {OUTCOME: float(reward)})
        step = Step.from_info(action, info, reward=float(components.get(OUTCOME, 0.0)))
        if self.record_observations:
            step.info["obs"] = observation_digest(obs)
        self.episode.steps.append(step)
        self.previous_observation, self.observation = self.observation, obs
        self.last_step = bool(terminated or truncated)
        if self.last_step:
            self._done = True
            self.episode.success, self.episode.truncated = bool(info.get(C.SUCCESS, False)), bool(truncated)

        own = {name: float(v) for name, v in self.step_terms(step, info).items()}
        components.update(own)
        info[C.REWARD_COMPONENTS] = components
        shaped = float(reward) + sum(own.values())

        if self.last_step:
            ep = self.episode
            vectors = {k: list(v) for k, v in (info.get(C.EPISODE_REWARD_COMPONENTS) or {}).items()}
            if not vectors:  # innermost shaping wrapper: the outcome, broadcast to every step
                vectors[OUTCOME] = [sum(s.reward for s in ep.steps)] * len(ep.steps)
            vectors.update(self.episode_terms(ep))
            info[C.EPISODE_REWARD_COMPONENTS] = vectors
            inner_terms = info.get(C.EPISODE_TRAJECTORY_TERMS) or [OUTCOME]
            info[C.EPISODE_TRAJECTORY_TERMS] = sorted({*map(str, inner_terms), *self.trajectory_terms})
            payload = self.settle_payload(ep)
            if payload is not None:
                settle = json.loads(info[C.EPISODE_SETTLE]) if info.get(C.EPISODE_SETTLE) else {}
                settle[payload[0]] = payload[1]
                info[C.EPISODE_SETTLE] = json.dumps(settle, default=str)
            if self.outcome_dependent or C.EPISODE_REWARDS in info:
                info[C.EPISODE_REWARDS] = [float(sum(col)) for col in zip(*vectors.values(), strict=True)]
        return obs, shaped, terminated, truncated, info


class EpisodeRecorder(RewardShaping):
    """Adds no reward; keeps each finished episode as a :class:`Trajectory` in :attr:`episodes`.

    It records what the shaping wrappers see, observation digests included, which is the input
    the milestone generators take.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> env = EpisodeRecorder(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"))
        >>> _ = env.reset(seed=0)
        >>> _ = env.step('do(action="Launch", app="Settings")')
        >>> env.episode.steps[0].action_description
        'Launch Settings'
    """

    record_observations = True

    def __init__(self, env: gym.Env, keep: int | None = None) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, keep=keep)
        super().__init__(env)
        self.keep = keep
        self.episodes: list[Trajectory] = []

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        return {}

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        self.episodes.append(episode)
        if self.keep is not None:
            del self.episodes[: -self.keep or None]
        return {}
