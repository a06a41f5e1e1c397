"""Group rollouts over a ``gymnasium.vector`` env: G trajectories per task instance.

GRPO-family trainers need *groups*: several trajectories of the same problem instance. Here a
group shares its instance through the reset seed (``(task, seed)`` fixes the instance of a
gui-gym task), so group members may run in any sub-env, in any order, on any machine. An
instance may carry more reset options (a sampler's per-rollout guidance, :mod:`agents.sampling`);
they reach ``env.reset(options=...)`` together with the task.

:func:`collect` runs a queue of ``(task, seed, group)`` episodes over the sub-envs of a vector
env: each finished sub-env is reset onto the next queued episode, and sub-envs left without
work wait (:class:`Slot` holds them) until the last episode ends. The policy decides for all
running sub-envs in one batched call, each with its own random generator
(:func:`episode_rng`), so an episode's actions depend only on its seed and the policy, not
on batching, the number of sub-envs or which worker ran it.

Episodes are labelled with the task id and difficulty the env reports at reset (the env
contract's ``task_id`` and ``difficulty``). An episode's per-step rewards are final, as the env
contract defines them: ``episode_rewards`` when a wrapper publishes it, otherwise the sum of
``episode_reward_components``, otherwise the env's outcome broadcast to every step
(:func:`final_rewards`). A sub-env that raises is caught by its :class:`Slot`: the episode is
dropped and logged, the others go on.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from agents.policies.base import Decision, TrainablePolicy
from gui_gym.core.contract import (
    ACTION_DESCRIPTION,
    DIFFICULTY,
    EPISODE_REWARD_COMPONENTS,
    EPISODE_REWARDS,
    EPISODE_SETTLE,
    EPISODE_TRAJECTORY_TERMS,
    FORMAT_VALID,
    SUCCESS,
    TASK,
    TASK_ID,
)
from wrappers.protocol import OUTCOME

log = logging.getLogger(__name__)

__all__ = [
    "EPISODE_CLASSES",
    "Episode",
    "Instance",
    "LocalRollouts",
    "Slot",
    "collect",
    "episode_rng",
    "final_rewards",
    "make_vector_env",
]

#: The classes pickled episodes hold beyond plain data (``gui_gym.core.io.load_plain``): episodes,
#: their instances and decisions, and the decision records of the shipped policies.
EPISODE_CLASSES = (
    ("agents.collect", "Episode"),
    ("agents.collect", "Instance"),
    ("agents.policies.base", "Decision"),
    ("agents.policies.candidate", "CandidateRecord"),
)


@dataclass(frozen=True)
class Instance:
    """One episode to run: a task, the reset seed that fixes its instance, and its group.

    ``options`` are more reset options for this rollout alone (the task option is added to
    them); they are not part of the instance's identity, which ``group`` and ``member`` fix.
    """

    task: str
    seed: int
    group: int = 0
    member: int = 0  # index within the group; with the seed, it seeds the policy's sampling
    options: dict[str, Any] | None = field(default=None, compare=False)

    def reset_options(self) -> dict[str, Any]:
        """What ``env.reset(options=...)`` gets: :attr:`options` with the task.

        >>> Instance("A", 7, options={"hint": 1}).reset_options()
        {'hint': 1, 'task': 'A'}
        """
        return {**(self.options or {}), TASK: self.task}


@dataclass
class Episode:
    """A finished trajectory as trainers see it.

    ``rewards`` are the final per-step rewards (the step-level convention of ADMIRE §3.3 and
    MobileRL §2.2.1: the outcome is broadcast to every step), ``components`` the same per named
    term. :attr:`ret` is the trajectory-level reward R(τ).
    """

    instance: Instance
    task_id: str
    difficulty: str
    decisions: list[Decision]
    rewards: np.ndarray
    components: dict[str, np.ndarray]
    success: bool
    truncated: bool
    invalid: int
    descriptions: list[str] = field(default_factory=list)
    iteration: int = 0
    advantages: np.ndarray | None = None  # per step, set by the algorithm
    milestones: tuple[int, int] | None = None  # (hit, total) when a milestone wrapper reports them
    #: the components that are trajectory-level values repeated at every step (the outcome, SPA)
    trajectory_terms: tuple[str, ...] = (OUTCOME,)
    #: what batch-settled terms need (``info["episode_settle"]``, :func:`wrappers.spec.settle_batch`)
    settle: dict[str, Any] = field(default_factory=dict)
    #: per step, the advantage of each of its tokens, where an algorithm has token-level ones
    token_advantages: list[np.ndarray] | None = None

    @property
    def length(self) -> int:
        return len(self.decisions)

    @property
    def group(self) -> int:
        return self.instance.group

    @property
    def member(self) -> int:
        return self.instance.member

    @property
    def ret(self) -> float:
        """R(τ) as a sum (:func:`agents.algos.returns.trajectory_return`): the trajectory terms once
        plus the step terms; the outcome itself for an unshaped env."""
        from agents.algos.returns import trajectory_return

        return trajectory_return(self)

    def set_component(self, name: str, values: Sequence[float]) -> None:
        """Replace the final per-step values of one term (a batch-settled term); :attr:`rewards` follow."""
        new = np.asarray(values, dtype=np.float64)
        if new.shape != (self.length,) or not np.all(np.isfinite(new)):
            raise ValueError(f"term {name!r} needs {self.length} finite per-step values, got {new.tolist()}")
        old = self.components.get(name, np.zeros(self.length))
        self.rewards = np.asarray(self.rewards, dtype=np.float64) + (new - old)
        self.components[name] = new

    @property
    def outcome(self) -> float:
        out = self.components.get(OUTCOME)
        return float(out[-1]) if out is not None and len(out) else float(self.success)


def final_rewards(info: dict[str, Any], step_rewards: Sequence[float]) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The final per-step rewards of an episode from its last ``info`` (see the module docstring)."""
    n = len(step_rewards)
    comps = info.get(EPISODE_REWARD_COMPONENTS) or {}
    components = {str(k): np.asarray(v, dtype=np.float64) for k, v in comps.items() if len(v) == n}
    if info.get(EPISODE_REWARDS) is not None and len(info[EPISODE_REWARDS]) == n:
        rewards = np.asarray(info[EPISODE_REWARDS], dtype=np.float64)
    elif components:
        rewards = np.sum(list(components.values()), axis=0)
    else:
        rewards = np.full(n, float(sum(step_rewards)))
        components = {OUTCOME: rewards.copy()}
    if not np.all(np.isfinite(rewards)):
        raise FloatingPointError(f"non-finite episode rewards {rewards.tolist()}")
    return rewards, components


def episode_rng(instance: Instance, salt: int = 0) -> np.random.Generator:
    """The policy's random generator for one episode: a function of its seed and group member."""
    return np.random.default_rng([int(instance.seed) & 0xFFFFFFFF, int(instance.member), int(salt) & 0xFFFFFFFF])


class Slot(gym.Wrapper):
    """The outermost wrapper of each sub-env: plays the instance it is told to, holds when idle.

    ``slot.pending`` (set per sub-env with ``VectorEnv.set_attr``) is the next
    :class:`Instance` or ``None`` (hold). While holding, ``step`` returns the last observation
    without touching the env, so finished sub-envs wait for the others with no side effects on
    shared reward state. Exceptions from the env are caught and reported as
    ``info["env_error"]`` on a step that ends the episode.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.pending: Instance | None = None
        self.idle = True
        self._obs: Any = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        inst, self.pending = self.pending, None
        if inst is None:
            self.idle = True
            if self._obs is None:
                self._obs, _ = self.env.reset(seed=seed, options=options)
            return self._obs, {"idle": True}
        self.idle = False
        try:
            self._obs, info = self.env.reset(seed=inst.seed, options=inst.reset_options())
        except Exception as e:  # any env failure: drop this episode, keep the run
            self.idle = True
            return self._obs, {"env_error": _describe(e)}
        return self._obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        if self.idle:
            return self._obs, 0.0, False, False, {"idle": True}
        try:
            obs, reward, terminated, truncated, info = self.env.step(action)
        except Exception as e:
            self.idle = True
            return self._obs, 0.0, True, False, {"env_error": _describe(e)}
        self._obs = obs
        return obs, reward, terminated, truncated, info

    def set_epoch(self, epoch: int) -> None:
        """Call ``set_epoch`` on every wrapper inside that has one (ADMIRE's curriculum λ(E))."""
        env: Any = self.env
        while True:
            if hasattr(type(env), "set_epoch"):
                env.set_epoch(epoch)
            if not isinstance(env, gym.Wrapper):
                break
            env = env.env


def _milestones(info: dict[str, Any]) -> tuple[int, int] | None:
    if "milestones_total" not in info:
        return None
    return int(info.get("milestones_hit", 0)), int(info["milestones_total"])


def _trajectory_terms(info: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(t) for t in (info.get(EPISODE_TRAJECTORY_TERMS) or (OUTCOME,)))


def _settle(info: dict[str, Any]) -> dict[str, Any]:
    """What batch-settled terms published (a JSON text, so that it crosses vector envs intact)."""
    text = info.get(EPISODE_SETTLE)
    if not text:
        return {}
    try:
        data = json.loads(str(text))
    except (ValueError, RecursionError) as e:
        log.warning("ignored a malformed %s from the env: %s", EPISODE_SETTLE, e)
        return {}
    return data if isinstance(data, dict) else {}


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {e} | " + "".join(traceback.format_exception(e)[-3:]).strip()


def make_vector_env(
    make_env: Callable[[], gym.Env], num_envs: int, vectorization: str = "sync"
) -> gym.vector.VectorEnv:
    """``num_envs`` copies of ``make_env()`` each inside a :class:`Slot`, autoreset disabled."""
    if num_envs < 1:
        raise ValueError(f"num_envs must be positive, got {num_envs}")
    fns = [lambda: Slot(make_env()) for _ in range(num_envs)]
    if vectorization == "sync":
        return gym.vector.SyncVectorEnv(fns, autoreset_mode=AutoresetMode.DISABLED)
    if vectorization == "async":
        return gym.vector.AsyncVectorEnv(fns, autoreset_mode=AutoresetMode.DISABLED)
    raise ValueError(f"vectorization must be 'sync' or 'async', got {vectorization!r}")


def _row(batch: Any, i: int) -> Any:
    """Sub-env ``i``'s entry of a batched observation (dicts of per-env sequences)."""
    if isinstance(batch, dict):
        return {k: _row(v, i) for k, v in batch.items()}
    value = batch[i]
    return value.item() if isinstance(value, np.generic) else value


def _info_at(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Sub-env ``i``'s info from a vector env's dict of arrays (keys it did not report are absent)."""
    out = {}
    for key, value in infos.items():
        if key.startswith("_"):
            continue
        mask = infos.get("_" + key)
        if mask is not None and not mask[i]:
            continue
        out[key] = _info_at(value, i) if isinstance(value, dict) else value[i]
    return out


@dataclass
class _Running:
    instance: Instance
    task_id: str = ""
    difficulty: str = "?"
    decisions: list[Decision] = field(default_factory=list)
    step_rewards: list[float] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    invalid: int = 0


def collect(
    envs: gym.vector.VectorEnv,
    policy: TrainablePolicy,
    instances: Sequence[Instance],
    greedy: bool = False,
    iteration: int = 0,
    on_episode: Callable[[Episode], None] | None = None,
) -> tuple[list[Episode], list[tuple[Instance, str]]]:
    """Run every instance to the end; ``(episodes in instance order, [(instance, error)] dropped)``.

    ``envs`` comes from :func:`make_vector_env`. ``on_episode`` is called as each episode
    finishes (progress bars).
    """
    n = envs.num_envs
    queue = list(instances)[::-1]
    running: list[_Running | None] = [None] * n
    done: dict[Instance, Episode] = {}
    errors: list[tuple[Instance, str]] = []
    rngs: dict[Instance, np.random.Generator] = {}
    obs_rows: list[Any] = [None] * n

    def start(mask: np.ndarray) -> None:
        """Reset the sub-envs in ``mask`` onto the next queued instances (or hold them)."""
        while mask.any():
            pending = [None] * n
            for i in np.flatnonzero(mask):
                pending[i] = queue.pop() if queue else None
            envs.set_attr("pending", pending)
            obs, infos = envs.reset(options={"reset_mask": mask.copy()})
            again = np.zeros(n, dtype=bool)
            for i in np.flatnonzero(mask):
                inst = pending[i]
                if inst is None:
                    running[i] = None
                    continue
                info = _info_at(infos, i)
                if "env_error" in info:
                    log.warning("dropped episode %s: the env failed at reset: %s", inst, info["env_error"])
                    errors.append((inst, str(info["env_error"])))
                    again[i] = True  # try the next queued instance on this sub-env
                    continue
                obs_rows[i] = _row(obs, i)
                running[i] = _Running(inst, str(info.get(TASK_ID, inst.task)), str(info.get(DIFFICULTY, "?")))
                rngs[inst] = episode_rng(inst)
            mask = again & bool(queue)

    start(np.ones(n, dtype=bool))
    while any(r is not None for r in running):
        active = [i for i in range(n) if running[i] is not None]
        picked = policy.decide(
            [obs_rows[i] for i in active],
            [running[i].decisions for i in active],  # type: ignore[union-attr]
            greedy=greedy,
            rng=[rngs[running[i].instance] for i in active],  # type: ignore[union-attr]
        )
        actions = [""] * n
        for i, d in zip(active, picked, strict=True):
            actions[i] = d.action
        obs, rewards, terms, truncs, infos = envs.step(actions)
        finished = np.zeros(n, dtype=bool)
        for i, d in zip(active, picked, strict=True):
            run = running[i]
            assert run is not None
            info = _info_at(infos, i)
            if "env_error" in info:
                log.warning("dropped episode %s: the env failed mid-episode: %s", run.instance, info["env_error"])
                errors.append((run.instance, str(info["env_error"])))
                finished[i] = True
                continue
            obs_rows[i] = _row(obs, i)
            run.decisions.append(d)
            run.step_rewards.append(float(rewards[i]))
            run.descriptions.append(str(info.get(ACTION_DESCRIPTION, "")))
            run.invalid += not bool(info.get(FORMAT_VALID, True))
            if terms[i] or truncs[i]:
                finished[i] = True
                try:
                    final, comps = final_rewards(info, run.step_rewards)
                except FloatingPointError as e:
                    log.warning("dropped episode %s: %s", run.instance, e)
                    errors.append((run.instance, str(e)))
                    continue
                ep = Episode(
                    run.instance,
                    run.task_id,
                    run.difficulty,
                    run.decisions,
                    final,
                    comps,
                    bool(info.get(SUCCESS, False)),
                    bool(truncs[i]),
                    run.invalid,
                    run.descriptions,
                    iteration,
                    milestones=_milestones(info),
                    trajectory_terms=_trajectory_terms(info),
                    settle=_settle(info),
                )
                done[run.instance] = ep
                if on_episode is not None:
                    on_episode(ep)
        for i in np.flatnonzero(finished):
            running[i] = None
        if finished.any():
            start(finished)
    ordered = [done[inst] for inst in instances if inst in done]
    return ordered, errors


class LocalRollouts:
    """Rollouts on this machine over a gymnasium vector env (:func:`collect`).

    :class:`agents.distributed.RayRollouts` has the same interface for Ray actors.
    """

    def __init__(self, make_env: Callable[[], gym.Env], num_envs: int, vectorization: str = "sync") -> None:
        self.envs = make_vector_env(make_env, num_envs, vectorization)

    def collect(
        self, policy: TrainablePolicy, instances: Sequence[Instance], greedy: bool = False, iteration: int = 0
    ) -> tuple[list[Episode], list[tuple[Instance, str]]]:
        import torch

        if hasattr(policy, "eval"):
            policy.eval()
        with torch.no_grad():
            episodes, errors = collect(self.envs, policy, instances, greedy=greedy, iteration=iteration)
        if hasattr(policy, "train"):
            policy.train()
        return episodes, errors

    def set_epoch(self, epoch: int) -> None:
        self.envs.call("set_epoch", epoch)

    def close(self) -> None:
        self.envs.close()
