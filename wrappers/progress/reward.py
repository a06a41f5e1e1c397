"""``ProgressReward``: ProgRM's dense reward from progress gains (Eq. 2).

::

    r_t^(p) = Prog(s_t; g) − Prog(s_{t−k}; g)

with history length ``k`` (1 in ProgRM's main experiments) and ``s_{t−k}`` the state after
reset when ``t < k``. ``Prog`` is a trained :class:`~wrappers.progress.model.ProgressModel`
(a checkpoint path or the model itself) reading the goal, the actions so far and the
current screen, or ``"env"``: the env's own ``info["progress"]`` (oracle progress, for
ablations). The wrapper adds the term ``progress`` to ``info["reward_components"]`` and
reports the model's estimate as ``info["predicted_progress"]``; over an episode the terms
telescope to ``Prog(s_T) − Prog(s_0)`` for ``k = 1``.

:class:`ProgressRewardVector` does the same over a whole ``gymnasium.vector`` env, scoring the
sub-envs together in one batched model call per step (plus one for episodes that just began).

Example (oracle progress: launching Settings reaches one of SystemWifiTurnOn's three milestones):

    >>> import gymnasium as gym, gui_gym
    >>> env = ProgressReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), model="env")
    >>> _ = env.reset(seed=0)
    >>> _, reward, *_, info = env.step('do(action="Launch", app="Settings")')
    >>> round(info["reward_components"]["progress"], 3), round(reward, 3)
    (0.333, 0.333)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from gui_gym.core import contract as C
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.progress.data import action_text
from wrappers.progress.observation import observation_reader
from wrappers.protocol import RewardShaping

__all__ = ["ModelArg", "ProgressReward", "ProgressRewardVector", "load_model", "progress_gains"]

TERM = "progress"
ModelArg = Any  # a checkpoint path, a ProgressModel, or "env"


def progress_gains(values: Sequence[float], k: int = 1) -> list[float]:
    """Eq. 2 over one episode: ``values[t]`` is Prog after step ``t`` (``values[0]``: after reset).

    >>> progress_gains([0.0, 0.25, 0.25, 0.75], k=1)
    [0.25, 0.0, 0.5]
    >>> progress_gains([0.0, 0.25, 0.25, 0.75], k=2)
    [0.25, 0.25, 0.5]
    """
    if k < 1:
        raise ValueError(f"the history length k must be at least 1, got {k}")
    return [float(values[t] - values[max(0, t - k)]) for t in range(1, len(values))]


def load_model(model: ModelArg, device: str) -> Any:
    """A model argument made usable: ``None`` for ``"env"``, a checkpoint path loaded, a model as it is."""
    if isinstance(model, str) and model == "env":
        return None
    if isinstance(model, str | os.PathLike):
        from wrappers.progress.model import ProgressModel

        return ProgressModel.load(model, device=device)
    if not hasattr(model, "predict_texts"):
        raise TypeError(f"model must be a checkpoint path, a ProgressModel or 'env', got {type(model).__name__}")
    return model


class ProgressReward(RewardShaping):
    """Adds ``weight · (Prog(s_t) − Prog(s_{t−k}))`` as the term ``progress`` (ProgRM Eq. 2).

    Args:
        env: any env keeping the gui-gym contract (``info["instruction"]``,
            ``info["action_description"]``); a model reads its observations as its family's
            ``observation_text`` (:func:`~wrappers.progress.observation.observation_reader`).
        model: a :class:`~wrappers.progress.model.ProgressModel` checkpoint path (from
            ``gui-gym progrm train``), a loaded model, or ``"env"`` for ``info["progress"]``.
        k: the history length of Eq. 2 (ProgRM uses 1).
        weight: a scale on the term.
        device: where a checkpoint is loaded.
    """

    def __init__(
        self, env: gym.Env, model: ModelArg = "env", k: int = 1, weight: float = 1.0, device: str = "cpu"
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(  # no deep copy: a rebuilt env shares a loaded model
            self, model=model, k=k, weight=weight, device=device, _disable_deepcopy=True
        )
        super().__init__(env)
        if int(k) < 1:
            raise ValueError(f"the history length k must be at least 1, got {k}")
        self.k, self.weight = int(k), float(weight)
        self.model = load_model(model, device)
        self.observation_text = observation_reader(env)  # what the model reads of a screen
        self.values: list[float] = []  # Prog after reset and after each step of this episode
        self._history: list[str] = []

    def _score(self, info: dict[str, Any]) -> float:
        if self.model is None:
            return float(np.clip(info.get(C.PROGRESS, 0.0), 0.0, 1.0))
        goal = str(info.get(C.INSTRUCTION, self.episode.instruction if self.episode else ""))
        return float(self.model.predict_texts([goal], [self._history], [self.observation_text(self.observation)])[0])

    def begin(self, info: dict[str, Any]) -> None:
        self._history = []
        self.values = [self._score(info)]

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        self._history.append(action_text(step))
        value = self._score(info)
        self.values.append(value)
        if self.model is not None:
            info["predicted_progress"] = value
        return {TERM: self.weight * progress_gains(self.values[-self.k - 1 :], self.k)[-1]}

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        return {TERM: [self.weight * g for g in progress_gains(self.values, self.k)]}


class ProgressRewardVector(gym.vector.VectorWrapper):
    """:class:`ProgressReward` for a vector env, scoring all sub-envs in one model call per step.

    Adds the term to ``infos["reward_components"]["progress"]`` (with its ``"_progress"``
    mask) and the estimates to ``infos["predicted_progress"]``. Supports the ``NEXT_STEP``
    (default) and ``SAME_STEP`` autoreset modes.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> envs = ProgressRewardVector(gym.make_vec("GuiAndroid-v0", num_envs=2, task="SystemWifiTurnOn"), "env")
        >>> _ = envs.reset(seed=0)
        >>> _, rewards, *_ = envs.step(['do(action="Launch", app="Settings")', 'do(action="Home")'])
        >>> rewards.round(3).tolist()
        [0.333, 0.0]
    """

    def __init__(
        self, env: gym.vector.VectorEnv, model: ModelArg = "env", k: int = 1, weight: float = 1.0, device: str = "cpu"
    ) -> None:
        super().__init__(env)
        if int(k) < 1:
            raise ValueError(f"the history length k must be at least 1, got {k}")
        mode = env.metadata.get("autoreset_mode", gym.vector.AutoresetMode.NEXT_STEP)
        if mode not in (gym.vector.AutoresetMode.NEXT_STEP, gym.vector.AutoresetMode.SAME_STEP):
            raise ValueError(f"ProgressRewardVector supports NEXT_STEP and SAME_STEP autoreset, not {mode}")
        self.autoreset_mode = mode
        self.k, self.weight = int(k), float(weight)
        self.model = load_model(model, device)
        self.observation_text = observation_reader(env)
        n = self.num_envs
        self.goals = [""] * n
        self.histories: list[list[str]] = [[] for _ in range(n)]
        self.values: list[list[float]] = [[] for _ in range(n)]
        self._resetting = np.zeros(n, dtype=bool)  # NEXT_STEP: this step resets these envs

    def _scores(self, idx: Sequence[int], obs: Any, infos: dict[str, Any]) -> np.ndarray:
        if not len(idx):
            return np.zeros(0)
        if self.model is None:
            progress = infos.get(C.PROGRESS, np.zeros(self.num_envs))
            return np.clip(np.asarray([progress[i] for i in idx], dtype=np.float64), 0.0, 1.0)
        screens = [self.observation_text(_item(obs, i)) for i in idx]
        return self.model.predict_texts([self.goals[i] for i in idx], [self.histories[i] for i in idx], screens)

    def _begin(self, idx: Sequence[int], obs: Any, infos: dict[str, Any]) -> None:
        for i in idx:
            self.goals[i] = _instruction(obs, infos, i)
            self.histories[i] = []
        for i, v in zip(idx, self._scores(idx, obs, infos), strict=True):
            self.values[i] = [float(v)]

    def reset(self, *, seed: Any = None, options: Any = None) -> tuple[Any, dict[str, Any]]:
        mask = (options or {}).get("reset_mask")  # a partial reset: only these envs start anew
        idx = range(self.num_envs) if mask is None else np.flatnonzero(mask).tolist()
        obs, infos = self.env.reset(seed=seed, options=options)
        self._begin(idx, obs, infos)
        self._resetting[idx] = False
        return obs, infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        obs, rewards, terminated, truncated, infos = self.env.step(actions)
        rewards = np.asarray(rewards, dtype=np.float64).copy()
        n = self.num_envs
        done = np.logical_or(terminated, truncated)
        same_step = self.autoreset_mode == gym.vector.AutoresetMode.SAME_STEP
        stepped = [i for i in range(n) if not self._resetting[i]]  # NEXT_STEP: the others just reset
        # SAME_STEP returns the next episode's first observation; the step's own is in final_obs.
        ended = [i for i in stepped if same_step and done[i]]
        ongoing = [i for i in stepped if i not in ended]
        final_obs, final_info = infos.get("final_obs"), infos.get("final_info") or {}
        terms, estimates = np.zeros(n), np.full(n, np.nan)
        for idx, o, inf in ((ongoing, obs, infos), (ended, final_obs, final_info)):
            for i in idx:
                description = str(_get(inf, "action_description", i, ""))
                valid = bool(_get(inf, "format_valid", i, True))
                self.histories[i].append(action_text(Step("", action_description=description, format_valid=valid)))
            for i, v in zip(idx, self._scores(idx, o, inf), strict=True):
                self.values[i].append(float(v))
                terms[i] = self.weight * progress_gains(self.values[i][-self.k - 1 :], self.k)[-1]
                estimates[i] = v
        rewards += terms
        self._begin([i for i in range(n) if self._resetting[i]] + ended, obs, infos)
        self._resetting = np.zeros(n, dtype=bool) if same_step else done.copy()

        mask = np.zeros(n, dtype=bool)
        mask[stepped] = True
        infos = dict(infos)
        components = dict(infos.get(C.REWARD_COMPONENTS) or {})
        if not components:  # no shaping wrapper inside: the env's reward is the outcome term
            components["outcome"], components["_outcome"] = rewards - terms, mask.copy()
        components[TERM], components[f"_{TERM}"] = terms, mask
        infos[C.REWARD_COMPONENTS] = components
        if self.model is not None:
            infos["predicted_progress"], infos["_predicted_progress"] = estimates, mask
        return obs, rewards, terminated, truncated, infos


def _item(obs: Any, i: int) -> Any:
    if isinstance(obs, dict):
        return {k: v[i] for k, v in obs.items()}
    return obs[i]


def _get(infos: dict[str, Any], key: str, i: int, default: Any) -> Any:
    values = infos.get(key)
    mask = infos.get(f"_{key}")
    if values is None or (mask is not None and not mask[i]):
        return default
    return values[i]


def _instruction(obs: Any, infos: dict[str, Any], i: int) -> str:
    value = _get(infos, "instruction", i, None)
    if value is None and isinstance(obs, dict) and "instruction" in obs:
        value = obs["instruction"][i]
    return str(value or "")
