"""MobileRL's shortest-path reward adjustment (SPA, paper 003 §2.2.1, Eq. 2).

    R^SPA(s_t, a_t) = r(τ_i)·(1 − α·(T_i − T_min)/T_i),   T_min = min over successful τ_j of |τ_j|

for each successful trajectory τ_i of one problem instance, broadcast to every step; failed
trajectories keep their reward (0: SPA never rewards stopping early). α ∈ (0, 1], 1.0 in
MobileRL's Table 4.

Trainers that roll out a group per instance call :func:`adjust_group`. For one env at a time,
:class:`ShortestPathReward` keeps a running T_min per instance in a :class:`ShortestLengths`
that any number of envs (and processes, with a file) can share; a file damaged during a run is
left as it is and the run's lengths go to a recovery file beside it (:mod:`wrappers.state`).

Example (a group of four rollouts of one instance; the shortest success took 4 steps):

    >>> adjust_group(lengths=[4, 8, 5, 10], outcomes=[1, 1, 0, 1])
    [1.0, 0.5, 0.0, 0.4]
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any, Literal

import gymnasium as gym

from gui_gym.core.trajectory import Step, Trajectory
from wrappers.protocol import RewardShaping
from wrappers.state import SharedState


def spa_reward(outcome: float, length: int, shortest: int, alpha: float = 1.0) -> float:
    """Eq. 2 for one successful trajectory of ``length`` steps when the shortest took ``shortest``."""
    _check_alpha(alpha)
    if length <= 0 or shortest <= 0:
        raise ValueError(f"trajectory lengths must be positive, got length={length}, shortest={shortest}")
    if shortest > length:
        raise ValueError(f"T_min={shortest} cannot exceed this successful trajectory's length {length}")
    return outcome * (1.0 - alpha * (length - shortest) / length)


def adjust_group(
    lengths: Sequence[int],
    outcomes: Sequence[float],
    alpha: float = 1.0,
    successes: Sequence[bool] | None = None,
) -> list[float]:
    """SPA over a group of trajectories of the same instance (Eq. 2).

    ``successes`` defaults to ``outcome == 1`` (MobileRL's T_succ = {τ | r(τ) = 1}). Only the
    successful trajectories are rescaled; the others keep their outcome. Broadcast each value
    to every step of its trajectory.
    """
    if len(lengths) != len(outcomes):
        raise ValueError(f"{len(lengths)} lengths but {len(outcomes)} outcomes")
    succ = [float(r) == 1.0 for r in outcomes] if successes is None else [bool(s) for s in successes]
    if len(succ) != len(lengths):
        raise ValueError(f"{len(lengths)} lengths but {len(succ)} success flags")
    _check_alpha(alpha)
    done = [int(n) for n, s in zip(lengths, succ, strict=True) if s]
    if not done:
        return [float(r) for r in outcomes]
    t_min = min(done)
    return [
        spa_reward(float(r), int(n), t_min, alpha) if s else float(r)
        for n, r, s in zip(lengths, outcomes, succ, strict=True)
    ]


def _check_alpha(alpha: float) -> None:
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"SPA's alpha must be in (0, 1] (MobileRL Eq. 2), got {alpha}")


class ShortestLengths(SharedState):
    """The shortest successful length seen per instance key: SPA's T_min, shared across envs.

    >>> lengths = ShortestLengths()
    >>> lengths.observe("SystemWifiTurnOn|Turn Wi-Fi on.", 6), lengths.observe("SystemWifiTurnOn|Turn Wi-Fi on.", 4)
    (6, 4)
    """

    kind = "spa_shortest_lengths"

    def _empty(self) -> dict[str, Any]:
        return {"shortest": {}}

    def _check(self, doc: dict[str, Any]) -> None:
        table = doc.get("shortest")
        if not isinstance(table, dict):
            raise ValueError("'shortest' must be an object")
        for key, v in table.items():
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"'shortest' must map keys to positive integers; {key!r} has {v!r}")

    def get(self, key: str) -> int | None:
        with self._lock:
            self._refresh()
            return self._data["shortest"].get(key)

    def observe(self, key: str, length: int) -> int:
        """Record a successful trajectory of ``length`` steps; returns the (new) T_min."""
        if length <= 0:
            raise ValueError(f"a successful trajectory has at least one step, got {length}")
        with self._lock:
            self._refresh()
            best = self._data["shortest"].get(key)
            if best is not None and best <= length:
                return best
            with self._change() as data:
                best = data["shortest"].get(key)
                if best is None or length < best:
                    data["shortest"][key] = best = int(length)
                return best

    def __len__(self) -> int:
        with self._lock:
            self._refresh()
            return len(self._data["shortest"])


InstanceKey = Callable[[Trajectory], str]


def instance_key(episode: Trajectory) -> str:
    """The problem instance: task id and instruction (MobileRL's "current problem instance")."""
    return f"{episode.task_id}|{episode.instruction}"


def task_key(episode: Trajectory) -> str:
    """The task template only: all instances of a task share one T_min."""
    return episode.task_id


class ShortestPathReward(RewardShaping):
    """SPA (MobileRL Eq. 2) on any env that keeps the contract; adds the term ``"spa"``.

    The term is the length adjustment R^SPA − r(τ): 0 on every step but the last during the
    episode; at the last step of a successful episode it is −r(τ)·α·(T − T_min)/T, and
    ``info["episode_rewards"]`` broadcasts R^SPA to every step. T_min is the running minimum in
    ``lengths`` over the successful episodes seen so far, this one included; pass the same
    :class:`ShortestLengths` to every env that should share it (a ``path`` shares it between
    processes). ``key="instance"`` (default) keys T_min by task id and instruction, as the paper
    does; ``key="task"`` by task id only; or pass a function of the episode.

    Eq. 2's T_min is the shortest success among the rollouts of the current problem instance:
    a group trainer (:mod:`agents.train`) replaces the running minimum by its group's shortest
    success when it settles the batch (:func:`wrappers.spec.settle_batch`); the running minimum
    is for one env at a time (SB3, evaluation), which has no group.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> env = ShortestPathReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"))
        >>> _ = env.reset(seed=0)
        >>> for a in ['do(action="Home")', 'do(action="Launch", app="Settings")']:
        ...     _ = env.step(a)
        >>> while True:
        ...     obs, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
        ...     if term or trunc:
        ...         break
        >>> len(info["episode_rewards"]), r  # the first success sets T_min: no penalty yet
        (5, 1.0)
    """

    outcome_dependent = True
    trajectory_terms = ("spa",)  # one adjustment of the outcome, repeated at every step

    def __init__(
        self,
        env: gym.Env,
        lengths: ShortestLengths | str | os.PathLike | None = None,
        alpha: float = 1.0,
        key: Literal["instance", "task"] | InstanceKey = "instance",
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            lengths=lengths,
            alpha=alpha,
            key=key,
            _disable_deepcopy=True,  # keep sharing T_min
        )
        super().__init__(env)
        _check_alpha(alpha)
        self.alpha = alpha
        self.lengths = lengths if isinstance(lengths, ShortestLengths) else ShortestLengths(lengths)
        self.key: InstanceKey = {"instance": instance_key, "task": task_key}[key] if isinstance(key, str) else key
        self._final: list[float] = []

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        if not self.last_step:
            return {"spa": 0.0}
        assert self.episode is not None
        outcome = sum(s.reward for s in self.episode.steps)
        length = len(self.episode.steps)
        key = self.key(self.episode)
        adjusted, t_min = outcome, self.lengths.get(key)
        if self.episode.success:
            t_min = self.lengths.observe(key, length)
            adjusted = spa_reward(outcome, length, t_min, self.alpha)
        if t_min is not None:  # absent, not None, until a success: vector envs merge infos into typed arrays
            info["spa_shortest"] = t_min
        self._final = [adjusted - outcome] * length
        return {"spa": adjusted - outcome}

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        return {"spa": list(self._final)}
