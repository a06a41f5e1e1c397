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
(:func:`final_rewards`).

Failures never end a collect call with a bare exception, nor hang it (errors are
``(instance, "task T seed S: why")`` pairs; the trainer counts them as dropped episodes):

* An env that raises, at reset or mid-episode, is caught by its :class:`Slot`: that episode is
  reported in the errors with the exception, the others go on. A sub-env whose reset fails
  :data:`RESET_FAILURES_TO_RETIRE` times in a row takes no more episodes in that call; when
  none is left, the instances not run are reported too.
* A sub-env lost to the vector env, because its async worker process died or because a reset
  or step ran past ``step_timeout_s``, stops that vector env: its workers are ended, a new one
  is built (``rebuild``, which :class:`LocalRollouts` provides) and the episodes under way
  start again. The lost sub-env's episode counts an attempt: it is retried at most
  ``max_retries`` times, then reported ("gave up after N attempts: its worker process died
  (killed by SIGKILL)", "... it ran past step_timeout_s=60s"), as
  :class:`agents.distributed.RayRollouts` does with its actors. A retried episode repeats the
  actions it would have taken (:func:`episode_rng`).
* A sync vector env cannot be recovered from a hang: its sub-envs run in this process, where a
  hung call cannot be stopped. With a timeout its calls run on a helper thread, and a call past
  it raises :class:`EnvTimeoutError` naming the task; the thread stays blocked. Use
  ``vectorization="async"`` to recover from hangs.

``step_timeout_s`` is finite unless ``None`` is passed: :data:`STEP_TIMEOUT_S` (300 s) for a bare
:func:`collect`, 60 s under :class:`LocalRollouts` (and the trainer), so a hung env never hangs
the caller.
"""

from __future__ import annotations

import json
import logging
import queue
import signal
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import wait as connection_wait
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.error import CustomSpaceError
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space, create_empty_array, iterate

from agents.algos.returns import trajectory_return
from agents.policies.base import Decision, TrainablePolicy, history_entry
from gui_gym.core.contract import (
    ACTION_DESCRIPTION,
    DIFFICULTY,
    EPISODE_REWARD_COMPONENTS,
    EPISODE_REWARDS,
    EPISODE_SETTLE,
    EPISODE_TRAJECTORY_TERMS,
    FORMAT_VALID,
    STEP_INDEX,
    SUCCESS,
    TASK,
    TASK_ID,
)
from wrappers.protocol import OUTCOME

log = logging.getLogger(__name__)

__all__ = [
    "EPISODE_CLASSES",
    "RESET_FAILURES_TO_RETIRE",
    "STEP_TIMEOUT_S",
    "EnvTimeoutError",
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
    #: the rewards ``step()`` returned, before the episode's end revised them (EMPO's r_t, whose
    #: discounted returns are :attr:`rewards`)
    step_rewards: np.ndarray | None = None
    #: per step, the index of the expert step it was scored against (experience envs'
    #: ``info["step_index"]``; ``None`` where the env reports none)
    step_indices: np.ndarray | None = None
    #: a learned reward model's score of the final state (the ORM's ``info["orm_score"]``, a
    #: progress model's last ``info["predicted_progress"]``), to track it against ``success``
    rm_score: float | None = None

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
    :class:`Instance` or ``None`` (hold). While holding, ``reset`` and ``step`` return the last
    observation without touching the env, so finished sub-envs wait for the others with no side
    effects on shared reward state; before its first episode a slot holds a blank observation
    of the observation space (a failed first reset leaves nothing else to batch). Exceptions
    from the env are caught and reported as ``info["env_error"]``, at reset or on a step that
    ends the episode. ``busy`` is true while the env is inside ``reset`` or ``step``: it names
    the sub-env a hung sync vector env is stuck in.
    """

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.pending: Instance | None = None
        self.idle = True
        self.busy = False
        self._obs: Any = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        inst, self.pending = self.pending, None
        self.idle = True
        if inst is None:
            return self._held(), {"idle": True}
        try:
            self.busy = True
            obs, info = self.env.reset(seed=inst.seed, options=inst.reset_options())
        except Exception as e:  # any env failure: drop this episode, keep the run
            return self._held(), {"env_error": _describe(e)}
        finally:
            self.busy = False
        self._obs, self.idle = obs, False
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        if self.idle:
            return self._held(), 0.0, False, False, {"idle": True}
        try:
            self.busy = True
            obs, reward, terminated, truncated, info = self.env.step(action)
        except Exception as e:
            self.idle = True
            return self._held(), 0.0, True, False, {"env_error": _describe(e)}
        finally:
            self.busy = False
        self._obs = obs
        return obs, reward, terminated, truncated, info

    def _held(self) -> Any:
        if self._obs is None:
            self._obs = _blank(self.observation_space)
        return self._obs

    def set_epoch(self, epoch: int) -> None:
        """Call ``set_epoch`` on every wrapper inside that has one (ADMIRE's curriculum λ(E))."""
        env: Any = self.env
        while True:
            if hasattr(type(env), "set_epoch"):
                env.set_epoch(epoch)
            if not isinstance(env, gym.Wrapper):
                break
            env = env.env


def _blank(space: gym.Space) -> Any:
    """A member of ``space`` for a slot that has no observation yet (never shown to a policy)."""
    try:
        return next(iter(iterate(batch_space(space, 1), create_empty_array(space, n=1, fn=np.zeros))))
    except CustomSpaceError:  # a space the vector utilities do not know: any member will do
        return space.sample()


def _milestones(info: dict[str, Any]) -> tuple[int, int] | None:
    if "milestones_total" not in info:
        return None
    return int(info.get("milestones_hit", 0)), int(info["milestones_total"])


def _rm_score(info: dict[str, Any]) -> float | None:
    """The learned reward model's score of the final state, where the reward reads one."""
    for key in ("orm_score", "predicted_progress"):
        value = info.get(key)
        if isinstance(value, int | float | np.floating) and not isinstance(value, bool) and np.isfinite(value):
            return float(value)
    return None


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


def _failure(instance: Instance, why: str) -> str:
    """An error message of the errors :func:`collect` returns: the task and seed first."""
    return f"task {instance.task} seed {instance.seed}: {why}"


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
        try:
            return gym.vector.AsyncVectorEnv(fns, autoreset_mode=AutoresetMode.DISABLED)
        except (EOFError, ConnectionError) as e:  # gymnasium only sees the worker's pipe close
            raise RuntimeError(
                "an async sub-env could not be built: its worker process ended while running make_env() "
                "(its traceback is printed above); check that make_env() works in a plain Python process"
            ) from e
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


# -- lost sub-envs: dead or hung workers --------------------------------------------------


class EnvTimeoutError(RuntimeError):
    """A sync vector env's reset or step did not return within the timeout.

    Raised instead of recovering: the hung call runs in this process, where nothing can stop
    it. An async vector env recovers (its workers are killed).
    """


class _Lost(Exception):
    """The vector env cannot go on: ``culprits`` maps the sub-envs at fault to why."""

    def __init__(self, culprits: dict[int, str], recoverable: bool = True, detail: str = "") -> None:
        self.culprits, self.recoverable = culprits, recoverable
        super().__init__(detail or "; ".join(f"sub-env {i}: {why}" for i, why in sorted(culprits.items())))


def _exit_reason(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def _dead_workers(envs: gym.vector.AsyncVectorEnv, settle: float = 0.0) -> dict[int, str]:
    """``{sub-env: why}`` for the async workers that are gone, waiting up to ``settle`` seconds for
    one to show (a worker's pipe can read as closed a moment before its process is reaped)."""
    end = time.monotonic() + settle
    while True:
        dead = {}
        for i, (process, pipe) in enumerate(zip(envs.processes, envs.parent_pipes, strict=True)):
            if pipe is None:  # gymnasium closes a worker's pipe when the worker raised
                dead[i] = "its worker stopped after an exception outside the env (logged above)"
            elif not process.is_alive():
                dead[i] = f"its worker process died ({_exit_reason(process.exitcode)})"
        if dead or time.monotonic() >= end:
            return dead
        time.sleep(0.02)


def _abandon(envs: gym.vector.VectorEnv, spare: Collection[int] = ()) -> None:
    """Shut ``envs`` down without waiting on sub-envs that may be dead or hung.

    Async workers are terminated, then killed (a hung env may ignore SIGTERM); they get no
    ``close``. A sync env's sub-envs are closed except those in ``spare`` (stuck in a call on
    another thread: closing them could block or race it). ``envs.closed`` is set either way.
    """
    if envs.closed:
        return
    envs.closed = True
    if isinstance(envs, gym.vector.AsyncVectorEnv):
        for process in envs.processes:
            if process.is_alive():
                process.terminate()
        for process in envs.processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
        for pipe in envs.parent_pipes:
            if pipe is not None:
                pipe.close()
        return
    for i, env in enumerate(getattr(envs, "envs", ())):
        if i not in spare:
            try:
                env.close()
            except Exception as e:
                log.warning("closing sub-env %d of an abandoned vector env failed: %s", i, _describe(e))


class _CallTimeout(Exception):
    pass


@dataclass
class _Box:
    done: threading.Event = field(default_factory=threading.Event)
    value: Any = None
    error: BaseException | None = None


class _CallThread:
    """A daemon thread that makes a sync vector env's calls, so that the caller can stop waiting.

    A hung call keeps the thread (Python cannot stop a thread); as a daemon it does not keep
    the process alive. Env calls run without autograd, as under :class:`LocalRollouts`.
    """

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], _Box] | None] = queue.SimpleQueue()
        self._last: _Box | None = None
        threading.Thread(target=self._serve, name="gui-gym-sync-env", daemon=True).start()

    def _serve(self) -> None:
        torch = sys.modules.get("torch")  # grad mode is per thread; env calls never need gradients
        if torch is not None:
            torch.set_grad_enabled(False)
        while (job := self._jobs.get()) is not None:
            fn, box = job
            try:
                box.value = fn()
            except BaseException as e:
                box.error = e
            finally:
                box.done.set()

    def call(self, fn: Callable[[], Any], timeout: float) -> Any:
        """``fn()`` on the thread; :class:`_CallTimeout` if it has not returned after ``timeout`` s."""
        box = self._last = _Box()
        self._jobs.put((fn, box))
        if not box.done.wait(timeout):
            raise _CallTimeout
        if box.error is not None:
            raise box.error
        return box.value

    def close(self, wait: float) -> None:
        """End the thread after its call; wait up to ``wait`` s for a call interrupted by an
        exception of the caller (Ctrl-C), so that the env is not closed under it."""
        if self._last is not None:
            self._last.done.wait(wait)
        self._jobs.put(None)


class _Driver:
    """The vector env calls :func:`collect` makes, each bounded by ``timeout`` seconds (None: no bound).

    Raises :class:`_Lost` naming the sub-envs at fault when an async worker died or a call ran
    past the timeout; a sync env's hung call is not ``recoverable``.
    """

    def __init__(self, envs: gym.vector.VectorEnv, timeout: float | None) -> None:
        self.envs, self.timeout = envs, timeout
        self.workers = isinstance(envs, gym.vector.AsyncVectorEnv)
        self._thread = _CallThread() if timeout is not None and not self.workers else None
        self._hung = False
        self.in_call = False  # an async call left unfinished by an exception: the workers are mid-call

    def set_pending(self, pending: list[Instance | None]) -> None:
        if self.workers:
            self._guarded(lambda: self.envs.set_attr("pending", pending))
        else:
            self.envs.set_attr("pending", pending)

    def reset(self, mask: np.ndarray) -> tuple[Any, dict[str, Any]]:
        options = {"reset_mask": mask.copy()}
        if self.workers:
            envs: Any = self.envs
            return self._guarded(lambda: (envs.reset_async(options=options), self._await(), envs.reset_wait())[-1])
        return self._sync(lambda: self.envs.reset(options=options), "reset")

    def step(self, actions: list[str]) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self.workers:
            envs: Any = self.envs
            return self._guarded(lambda: (envs.step_async(actions), self._await(), envs.step_wait())[-1])
        return self._sync(lambda: self.envs.step(actions), "step")

    def close(self) -> None:
        if self._thread is not None:
            self._thread.close(0.0 if self._hung else float(self.timeout or 0.0))

    def _guarded(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` on the async env; an error after which a worker is found gone is a :class:`_Lost`."""
        self.in_call = True
        try:
            result = fn()
        except _Lost:
            raise
        except Exception as e:  # EOFError, BrokenPipeError, or a worker's exception re-raised by gymnasium
            dead = _dead_workers(self.envs, settle=2.0)  # type: ignore[arg-type]
            if not dead:
                raise
            raise _Lost(dead) from e
        self.in_call = False
        return result

    def _await(self) -> None:
        """Wait until every async worker has answered; :class:`_Lost` for workers that died or have
        not answered within the timeout."""
        envs: Any = self.envs
        waiting = {pipe: i for i, pipe in enumerate(envs.parent_pipes) if pipe is not None}
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while waiting:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            for conn in connection_wait(list(waiting), left):  # a dead worker's pipe is ready too (EOF)
                del waiting[conn]  # type: ignore[arg-type]
        lost = {i: f"it ran past step_timeout_s={self.timeout:g}s" for i in waiting.values()}
        lost.update(_dead_workers(envs))
        if lost:
            raise _Lost(lost)

    def _sync(self, fn: Callable[[], Any], what: str) -> Any:
        if self._thread is None:
            return fn()
        try:
            return self._thread.call(fn, float(self.timeout))  # type: ignore[arg-type]
        except _CallTimeout:
            self._hung = True
            why = f"its {what} did not return within step_timeout_s={self.timeout:g}s"
            busy = [i for i, env in enumerate(getattr(self.envs, "envs", ())) if getattr(env, "busy", False)]
            detail = f"the sync vector env's {what}: {why}"
            raise _Lost({i: why for i in busy}, recoverable=False, detail=detail) from None


# -- collect -------------------------------------------------------------------------------


@dataclass
class _Running:
    instance: Instance
    task_id: str = ""
    difficulty: str = "?"
    decisions: list[Decision] = field(default_factory=list)
    history: list[Decision] = field(default_factory=list)  # what the policy sees: patched steps as the expert's
    step_indices: list[int] = field(default_factory=list)  # the expert step each action was scored at
    step_rewards: list[float] = field(default_factory=list)
    descriptions: list[str] = field(default_factory=list)
    invalid: int = 0


#: How many resets in a row a sub-env may fail before it takes no more episodes in a collect call.
RESET_FAILURES_TO_RETIRE = 2
#: :func:`collect`'s default bound on one reset or step of the vector env, in seconds: generous
#: (a real device's reset may take a minute), yet finite, so that a hung env cannot hang the call.
#: Not shorter than :class:`agents.distributed.RayRollouts`' default episode timeout (300 s), which
#: bounds its actors' collect calls and retries their episodes on a fresh actor.
STEP_TIMEOUT_S = 300.0


class _Collector:
    """One :func:`collect` call: a queue of instances over the sub-envs of a vector env."""

    def __init__(
        self,
        envs: gym.vector.VectorEnv,
        policy: TrainablePolicy,
        instances: Sequence[Instance],
        greedy: bool,
        iteration: int,
        on_episode: Callable[[Episode], None] | None,
        step_timeout_s: float | None,
        max_retries: int,
        rebuild: Callable[[], gym.vector.VectorEnv] | None,
    ) -> None:
        self.policy, self.greedy, self.iteration, self.on_episode = policy, greedy, iteration, on_episode
        self.timeout, self.max_retries, self.rebuild = step_timeout_s, max_retries, rebuild
        self.instances = list(instances)
        self.queue: deque[Instance] = deque(self.instances)
        self.done: dict[Instance, Episode] = {}
        self.errors: list[tuple[Instance, str]] = []
        self.tries: dict[Instance, int] = {}  # attempts lost with a dead or hung sub-env
        self.rngs: dict[Instance, np.random.Generator] = {}
        self.stopped = ""  # why the instances still queued at the end were not run
        self._use(envs)

    def _use(self, envs: gym.vector.VectorEnv) -> None:
        self.envs, self.n = envs, envs.num_envs
        self.driver = _Driver(envs, self.timeout)
        self.running: list[_Running | None] = [None] * self.n
        self.obs_rows: list[Any] = [None] * self.n
        self.failed_resets = np.zeros(self.n, dtype=int)  # in a row, per sub-env

    def run(self) -> tuple[list[Episode], list[tuple[Instance, str]]]:
        mask = np.ones(self.n, dtype=bool)
        try:
            while True:
                try:
                    if mask.any():
                        self._start(mask)
                    if all(r is None for r in self.running):
                        break
                    mask = self._step()
                except _Lost as lost:
                    if not self._recover(lost):
                        break
                    mask = np.ones(self.n, dtype=bool)
        finally:
            self.driver.close()
            if self.driver.in_call and not self.envs.closed:  # interrupted (Ctrl-C) or an unforeseen error
                _abandon(self.envs)
        for inst in self.queue:
            self._fail(inst, f"not run: {self.stopped}")
        return [self.done[inst] for inst in self.instances if inst in self.done], self.errors

    def _fail(self, inst: Instance, why: str) -> None:
        log.warning("dropped episode %s: %s", inst, why)
        self.errors.append((inst, _failure(inst, why)))

    def _usable(self) -> np.ndarray:
        return self.failed_resets < RESET_FAILURES_TO_RETIRE

    def _start(self, mask: np.ndarray) -> None:
        """Reset the sub-envs in ``mask`` onto the next queued instances (or hold them)."""
        mask = mask & self._usable()
        while mask.any():
            pending: list[Instance | None] = [None] * self.n
            for i in np.flatnonzero(mask):
                pending[i] = self.queue.popleft() if self.queue else None
            try:
                self.driver.set_pending(pending)
            except _Lost:
                self.queue.extendleft(reversed([p for p in pending if p is not None]))
                raise
            for i in np.flatnonzero(mask):  # under way from here: a lost reset requeues them
                self.running[i] = None if pending[i] is None else _Running(pending[i])  # type: ignore[arg-type]
            obs, infos = self.driver.reset(mask)
            again = np.zeros(self.n, dtype=bool)
            for i in np.flatnonzero(mask):
                if (inst := pending[i]) is not None:
                    again[i] = not self._started(i, inst, obs, _info_at(infos, i))
            mask = again & self._usable() if self.queue else np.zeros(self.n, dtype=bool)
        if self.queue and not self._usable().any():
            self.stopped = f"every sub-env failed at reset {RESET_FAILURES_TO_RETIRE} times in a row"

    def _started(self, i: int, inst: Instance, obs: Any, info: dict[str, Any]) -> bool:
        """Whether sub-env ``i`` started ``inst``; a failed reset is reported (and may retire it)."""
        if "env_error" in info:
            self.running[i] = None
            self.failed_resets[i] += 1
            self._fail(inst, f"the env failed at reset: {info['env_error']}")
            if not self._usable()[i]:
                log.warning(
                    "sub-env %d failed at reset %d times in a row: it takes no more episodes in this collect",
                    i, RESET_FAILURES_TO_RETIRE,
                )  # fmt: skip
            return False
        self.failed_resets[i] = 0
        self.obs_rows[i] = _row(obs, i)
        self.running[i] = _Running(inst, str(info.get(TASK_ID, inst.task)), str(info.get(DIFFICULTY, "?")))
        self.rngs[inst] = episode_rng(inst)  # afresh: a retried episode repeats its actions
        return True

    def _step(self) -> np.ndarray:
        """One batched decision and vector env step; the mask of sub-envs whose episode ended."""
        active = [i for i, r in enumerate(self.running) if r is not None]
        runs: list[_Running] = [self.running[i] for i in active]  # type: ignore[misc]
        picked = self.policy.decide(
            [self.obs_rows[i] for i in active],
            [r.history for r in runs],
            greedy=self.greedy,
            rng=[self.rngs[r.instance] for r in runs],
        )
        actions = [""] * self.n
        for i, d in zip(active, picked, strict=True):
            actions[i] = d.action
        obs, rewards, terms, truncs, infos = self.driver.step(actions)
        finished = np.zeros(self.n, dtype=bool)
        for i, run, d in zip(active, runs, picked, strict=True):
            info = _info_at(infos, i)
            finished[i] = self._record(run, d, float(rewards[i]), bool(terms[i]), bool(truncs[i]), info)
            self.obs_rows[i] = _row(obs, i)
        for i in np.flatnonzero(finished):
            self.running[i] = None
        return finished

    def _record(
        self, run: _Running, d: Decision, reward: float, terminated: bool, truncated: bool, info: dict[str, Any]
    ) -> bool:
        """Add one step to ``run``; whether its episode is over (finished, or dropped on an error)."""
        if "env_error" in info:
            self._fail(run.instance, f"the env failed at step {len(run.decisions) + 1}: {info['env_error']}")
            return True
        run.decisions.append(d)
        run.history.append(history_entry(d, info))
        index = info.get(STEP_INDEX)
        run.step_indices.append(index if isinstance(index, int) and not isinstance(index, bool) else -1)
        run.step_rewards.append(reward)
        run.descriptions.append(str(info.get(ACTION_DESCRIPTION, "")))
        run.invalid += not bool(info.get(FORMAT_VALID, True))
        if not (terminated or truncated):
            return False
        try:
            final, comps = final_rewards(info, run.step_rewards)
        except FloatingPointError as e:
            self._fail(run.instance, str(e))
            return True
        ep = Episode(
            run.instance, run.task_id, run.difficulty, run.decisions, final, comps, bool(info.get(SUCCESS, False)),
            truncated, run.invalid, run.descriptions, self.iteration, milestones=_milestones(info),
            trajectory_terms=_trajectory_terms(info), settle=_settle(info),
            step_rewards=np.asarray(run.step_rewards, dtype=np.float64),
            step_indices=np.asarray(run.step_indices) if min(run.step_indices, default=-1) >= 0 else None,
            rm_score=_rm_score(info),
        )  # fmt: skip
        self.done[run.instance] = ep
        if self.on_episode is not None:
            self.on_episode(ep)
        return True

    def _recover(self, lost: _Lost) -> bool:
        """After ``lost``: abandon the vector env, requeue the episodes under way (retrying or
        reporting those of the sub-envs at fault) and build a new one; False if none can be had."""
        self.driver.close()
        under_way = [(i, r.instance) for i, r in enumerate(self.running) if r is not None]
        if not lost.recoverable:
            _abandon(self.envs, spare=set(lost.culprits) or set(range(self.n)))
            error = self._hang_error(lost, dict(under_way))
            log.error("%s", error)
            raise error
        log.warning(
            "lost a sub-env of the vector env (%s): ending its workers and building a new one; the %d episodes "
            "under way start again", lost, len(under_way),
        )  # fmt: skip
        requeue = []
        for i, inst in under_way:
            if i in lost.culprits:
                tries = self.tries[inst] = self.tries.get(inst, 0) + 1
                if tries > self.max_retries:
                    self._fail(inst, f"gave up after {tries} attempt{'s' * (tries > 1)}: {lost.culprits[i]}")
                    continue
                log.warning("retrying episode %s (attempt %d): %s", inst, tries + 1, lost.culprits[i])
            requeue.append(inst)  # the others were not at fault: they start again, uncounted
        self.queue.extendleft(reversed(requeue))
        _abandon(self.envs)
        if self.rebuild is None:
            self.stopped = f"the vector env was lost ({lost}) and collect got no rebuild to replace it"
            return False
        try:
            envs = self.rebuild()
        except Exception as e:
            self.stopped = f"the vector env was lost ({lost}) and a new one could not be built: {_describe(e)}"
            log.error("could not build a new vector env: %s", _describe(e))
            return False
        self._use(envs)
        return True

    def _hang_error(self, lost: _Lost, where: dict[int, Instance]) -> EnvTimeoutError:
        named = [
            _failure(where[i], f"sub-env {i}: {why}") if i in where else f"sub-env {i}: {why}"
            for i, why in sorted(lost.culprits.items())
        ]
        return EnvTimeoutError(
            f"{'; '.join(named) or lost}. A sync vector env runs its sub-envs in this process, where a hung call "
            "cannot be stopped, so these rollouts stop here: use vectorization='async' (--vectorization async), "
            "whose hung workers are killed and their episodes retried, or raise step_timeout_s if the env is slow"
        )


def collect(
    envs: gym.vector.VectorEnv,
    policy: TrainablePolicy,
    instances: Sequence[Instance],
    greedy: bool = False,
    iteration: int = 0,
    on_episode: Callable[[Episode], None] | None = None,
    *,
    step_timeout_s: float | None = STEP_TIMEOUT_S,
    max_retries: int = 2,
    rebuild: Callable[[], gym.vector.VectorEnv] | None = None,
) -> tuple[list[Episode], list[tuple[Instance, str]]]:
    """Run every instance to the end; ``(episodes in instance order, [(instance, error)] dropped)``.

    ``envs`` comes from :func:`make_vector_env`. ``on_episode`` is called as each episode
    finishes (progress bars). Failures go as the module docstring says: ``step_timeout_s``
    bounds each reset and step of the vector env (default :data:`STEP_TIMEOUT_S`, 300 s;
    ``None``: no bound, and a hung env hangs the call). When it fires on an async env, the
    workers are killed and the episode under way in the hung sub-env is retried at most
    ``max_retries`` times on a new vector env from ``rebuild()``, then reported in the errors
    ("task T seed S: gave up after N attempts: it ran past step_timeout_s=300s"); without
    ``rebuild``, ``envs`` is closed and the episodes not finished are reported ("not run: the
    vector env was lost ..."). On a sync env the hung call cannot be stopped: ``envs`` is
    closed and :class:`EnvTimeoutError` is raised ("task T seed S: sub-env i: its step did not
    return within step_timeout_s=300s. ..."), its thread left blocked. An async env that an
    exception (Ctrl-C) leaves in the middle of a call is closed.
    """
    if step_timeout_s is not None and not step_timeout_s > 0:
        raise ValueError(f"step_timeout_s must be positive or None, got {step_timeout_s}")
    if max_retries < 0:
        raise ValueError(f"max_retries must be >= 0, got {max_retries}")
    if not len(instances):
        return [], []
    collector = _Collector(envs, policy, instances, greedy, iteration, on_episode, step_timeout_s, max_retries, rebuild)
    return collector.run()


class LocalRollouts:
    """Rollouts on this machine over a gymnasium vector env (:func:`collect`).

    :class:`agents.distributed.RayRollouts` has the same interface for Ray actors.

    Args:
        make_env: builds one env (each sub-env is ``Slot(make_env())``).
        num_envs: the number of sub-envs.
        vectorization: ``"sync"`` (all sub-envs in this process) or ``"async"`` (a worker process each).
        step_timeout_s: how long one reset or step of the vector env may take (default 60 s;
            ``None``: no limit). Async: workers still busy then are killed, a new vector env is
            built and the episode retried. Sync: a call hung in this process cannot be
            stopped, so :class:`EnvTimeoutError` names the task and the :meth:`collect` call
            ends (the next call builds new sub-envs); use async to recover from hangs.
        max_retries: how often an episode whose worker died or timed out is retried before it
            is reported in the errors.

    Env exceptions are caught by each :class:`Slot`: the episode is reported in the errors
    and the others go on (see the module docstring). :attr:`restarts` counts the vector envs
    built to replace lost ones; one that cannot be built makes every instance an error.
    """

    def __init__(
        self,
        make_env: Callable[[], gym.Env],
        num_envs: int,
        vectorization: str = "sync",
        step_timeout_s: float | None = 60.0,
        max_retries: int = 2,
    ) -> None:
        if step_timeout_s is not None and not step_timeout_s > 0:
            raise ValueError(f"step_timeout_s must be positive or None, got {step_timeout_s}")
        if int(max_retries) < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        self.step_timeout_s, self.max_retries = step_timeout_s, int(max_retries)
        self.restarts = 0
        self._make_env, self._num_envs, self._vectorization = make_env, num_envs, vectorization
        self._epoch: int | None = None
        self.envs = make_vector_env(make_env, num_envs, vectorization)

    def _replace(self) -> gym.vector.VectorEnv:
        """A new vector env for one that was lost (it is closed already), with the epoch set."""
        self.restarts += 1
        envs = make_vector_env(self._make_env, self._num_envs, self._vectorization)
        if self._epoch is not None:
            envs.call("set_epoch", self._epoch)
        self.envs = envs
        log.warning("built a new %s vector env (restart %d)", self._vectorization, self.restarts)
        return envs

    def collect(
        self, policy: TrainablePolicy, instances: Sequence[Instance], greedy: bool = False, iteration: int = 0
    ) -> tuple[list[Episode], list[tuple[Instance, str]]]:
        """:func:`collect` over this machine's vector env, each reset and step bounded by
        ``step_timeout_s`` (default 60 s): a hung async worker is killed and its episode retried
        or reported; a hung sync env raises :class:`EnvTimeoutError` and the next call builds
        new sub-envs."""
        import torch

        if self.envs.closed:  # lost in an earlier call and not rebuilt then
            try:
                self._replace()
            except Exception as e:
                why = f"not run: no vector env could be built: {_describe(e)}"
                log.error("could not build a new vector env: %s", why)
                return [], [(inst, _failure(inst, why)) for inst in instances]
        if hasattr(policy, "eval"):
            policy.eval()
        try:
            with torch.no_grad():
                return collect(
                    self.envs, policy, instances, greedy=greedy, iteration=iteration,
                    step_timeout_s=self.step_timeout_s, max_retries=self.max_retries, rebuild=self._replace,
                )  # fmt: skip
        finally:
            if hasattr(policy, "train"):
                policy.train()

    def set_epoch(self, epoch: int) -> None:
        """The wrappers' epoch (``Slot.set_epoch``); a vector env built later gets it too."""
        self._epoch = int(epoch)
        if self.envs.closed:
            return
        try:
            self.envs.call("set_epoch", epoch)
        except Exception:
            dead = _dead_workers(self.envs, settle=2.0) if isinstance(self.envs, gym.vector.AsyncVectorEnv) else {}
            if not dead:
                raise
            log.warning("set_epoch found the vector env's workers lost (%s); the next collect builds a new one", dead)
            _abandon(self.envs)

    def close(self) -> None:
        try:
            self.envs.close(timeout=self.step_timeout_s)  # async: a call still pending waits that long at most
        except Exception as e:  # a worker died since the last call: end the others without a word to them
            log.warning("closing the vector env failed (%s); ending its workers", _describe(e))
            _abandon(self.envs)
