"""Baseline policies: the env's oracle, a uniform random GUI policy, and an ε-noisy oracle."""

from __future__ import annotations

from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from gui_gym.android.actions import Action, format_action
from gui_gym.android.candidates import APPS


class Policy(Protocol):
    """Anything with ``act(obs, info) -> str`` (a text action) and ``reset(seed)``."""

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str: ...


class OraclePolicy:
    """The expert: asks the env for ``oracle_action()`` (an upper bound, not a learner)."""

    def __init__(self, env: gym.Env) -> None:
        if not hasattr(env.unwrapped, "oracle_action"):
            raise TypeError(
                f"{type(env.unwrapped).__name__} has no oracle_action(); the oracle policy needs GuiAndroid-v0"
            )
        self.env = env

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        return self.env.unwrapped.oracle_action()


class RandomPolicy:
    """Uniform over what a person could do on the visible screen.

    Taps a clickable element, long-presses a long-clickable one, types a word of the
    instruction, swipes, goes Back/Home, launches an app, or (rarely) declares the task
    done — all from ``info["ui_elements"]`` and the instruction, never from hidden state.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> env = gym.make("GuiAndroid-v0", task="ContactsFavorite")
        >>> obs, info = env.reset(seed=0)
        >>> pi = RandomPolicy(seed=0)
        >>> isinstance(pi.act(obs, info), str)
        True
    """

    APPS = APPS

    def __init__(self, seed: int | None = None, finish_prob: float = 0.03) -> None:
        self.rng = np.random.default_rng(seed)
        self.finish_prob = finish_prob

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        rng = self.rng
        u = rng.random()
        if u < self.finish_prob:
            return format_action(Action("finish"))
        elements = info.get("ui_elements", [])
        clickable = [e for e in elements if e.is_clickable]
        long_clickable = [e for e in elements if e.is_long_clickable]
        u = rng.random()
        if u < 0.6 and clickable:
            e = clickable[int(rng.integers(len(clickable)))]
            return format_action(Action("tap", element=tuple(e.bbox)))
        if u < 0.65 and long_clickable:
            e = long_clickable[int(rng.integers(len(long_clickable)))]
            return format_action(Action("long_press", element=tuple(e.bbox)))
        if u < 0.75:
            words = str(obs.get("instruction", "")).replace(".", " ").split() or ["hello"]
            return format_action(Action("type", text=words[int(rng.integers(len(words)))]))
        if u < 0.85:
            d = ("up", "down", "left", "right")[int(rng.integers(4))]
            return format_action(Action("swipe", direction=d, dist="medium"))
        if u < 0.93:
            return format_action(Action(("back", "home", "enter")[int(rng.integers(3))]))
        return format_action(Action("launch", app=self.APPS[int(rng.integers(len(self.APPS)))]))


class NoisyOraclePolicy:
    """The oracle, but with probability ``epsilon`` a :class:`RandomPolicy` action instead.

    Collects what progress models need to see (ProgRM App. B-C): successes that take
    detours, partial progress, and failures, all from one policy.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> env = gym.make("GuiAndroid-v0", task="ContactsFavorite")
        >>> obs, info = env.reset(seed=0)
        >>> pi = NoisyOraclePolicy(env, epsilon=0.0)
        >>> pi.act(obs, info) == env.unwrapped.oracle_action()
        True
    """

    def __init__(self, env: gym.Env, epsilon: float = 0.2, seed: int | None = None, finish_prob: float = 0.01) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must lie in [0, 1], got {epsilon}")
        self.oracle = OraclePolicy(env)
        self.random = RandomPolicy(seed=seed, finish_prob=finish_prob)
        self.epsilon = float(epsilon)

    def reset(self, seed: int | None = None) -> None:
        self.random.reset(seed)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self.random.rng.random() < self.epsilon:
            return self.random.act(obs, info)
        return self.oracle.act(obs, info)
