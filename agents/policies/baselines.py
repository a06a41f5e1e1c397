"""Rollout policies: the env's oracle, a random policy, an ε-noisy oracle, and a trainable policy
as an actor (:class:`ActorPolicy`)."""

from __future__ import annotations

from typing import Any, Protocol

import gymnasium as gym
import numpy as np

from agents.policies.base import history_entry
from gui_gym.core.contract import FINISH
from gui_gym.core.family import EnvFamily, family_of


class Policy(Protocol):
    """Anything with ``act(obs, info) -> str`` (a text action) and ``reset(seed)``."""

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str: ...


class OraclePolicy:
    """The expert: asks the env for ``oracle_action()`` (an upper bound, not a learner)."""

    def __init__(self, env: gym.Env) -> None:
        if not hasattr(env.unwrapped, "oracle_action"):
            raise TypeError(
                f"{type(env.unwrapped).__name__} has no oracle_action(); the oracle policy needs an env that "
                "can compute its expert's next action"
            )
        self.env = env

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        return self.env.unwrapped.oracle_action()


class RandomPolicy:
    """A random policy over what the env's family says can be done now.

    A family may shape its random policy (``random_action(obs, info, rng)``: on the phone, taps
    most often, then typing, swipes, Back/Home and launches, from the visible screen and the
    instruction); otherwise the policy is uniform over the family's admissible actions. With
    probability ``finish_prob`` it declares the task done (``finish_action``). Never reads hidden
    state.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> env = gym.make("GuiAndroid-v0", task="ContactsFavorite")
        >>> obs, info = env.reset(seed=0)
        >>> pi = RandomPolicy("GuiAndroid-v0", seed=0)
        >>> isinstance(pi.act(obs, info), str)
        True
    """

    def __init__(self, family: EnvFamily | str, seed: int | None = None, finish_prob: float = 0.03) -> None:
        self.family = family_of(family)
        self.rng = np.random.default_rng(seed)
        self.finish_prob = finish_prob

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, obs: Any, info: dict[str, Any]) -> str:
        shaped = getattr(self.family, "random_action", None)
        if shaped is not None:
            return shaped(obs, info, self.rng, self.finish_prob)
        candidates = self.family.admissible_actions(obs, info)
        finishes = [c.action for c in candidates if c.action_kind == FINISH]
        if finishes and self.rng.random() < self.finish_prob:
            return finishes[int(self.rng.integers(len(finishes)))]
        others = [c.action for c in candidates if c.action_kind != FINISH] or [c.action for c in candidates]
        if not others:
            raise ValueError(f"the {self.family.name} family lists no admissible action here")
        return others[int(self.rng.integers(len(others)))]


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
        self.random = RandomPolicy(family_of(env), seed=seed, finish_prob=finish_prob)
        self.epsilon = float(epsilon)

    def reset(self, seed: int | None = None) -> None:
        self.random.reset(seed)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self.random.rng.random() < self.epsilon:
            return self.random.act(obs, info)
        return self.oracle.act(obs, info)


class ActorPolicy:
    """A trainable policy (:class:`~agents.policies.base.TrainablePolicy`) as a rollout policy:
    it samples its action (temperature 1; ``greedy=True`` for its argmax) from the episode's own
    history, as the trainer's rollouts do. ProgRM's reward models learn from the actor's rollouts
    (§3.1): this is how the study collects them from its warm-started policy.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> from agents.policies.candidate import CandidatePolicy
        >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")
        >>> pi = ActorPolicy(CandidatePolicy("GuiAndroid-v0", seed=0), seed=0)
        >>> obs, info = env.reset(seed=0)
        >>> pi.reset(0)
        >>> action = pi.act(obs, info)
        >>> isinstance(action, str), len(pi.history)
        (True, 0)
    """

    def __init__(self, policy: Any, greedy: bool = False, seed: int | None = None) -> None:
        self.policy, self.greedy = policy, bool(greedy)
        self.rng = np.random.default_rng(seed)
        self.history: list[Any] = []
        self._pending: Any = None  # the decision whose step's info has not been seen yet

    def reset(self, seed: int | None = None) -> None:
        self.history, self._pending = [], None
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._pending is not None:  # info is what the last action's step reported
            self.history.append(history_entry(self._pending, info))
        self._pending = self.policy.decide([obs], [list(self.history)], greedy=self.greedy, rng=[self.rng])[0]
        return str(self._pending.action)
