"""Distributed rollouts on Ray: the same interface as :class:`agents.collect.LocalRollouts`.

``RayRollouts(make_env, policy_factory, workers)`` keeps ``workers`` plain Ray actors, each with
one env (a :class:`~agents.collect.Slot`-wrapped single-env vector env) and one copy of the
policy, both built once. Each :meth:`RayRollouts.collect` puts the policy's weights in the
object store once; an actor loads them before its first episode of the call, then plays whole
episodes (one :class:`~agents.collect.Instance` per task) with :func:`agents.collect.collect`.
A queue of instances feeds whichever actor is free (``ray.wait``), so one slow episode does
not hold the others back. Sampling depends only on the instance (:func:`agents.collect.episode_rng`),
so the episodes equal those of ``LocalRollouts`` for the same weights, whichever actor ran them.

Failures never hang a run: an actor that dies, or whose episode runs past
``episode_timeout_s`` (it is killed), is replaced by a fresh one and its instance retried, at
most ``max_retries`` times, then reported in the errors like an env failure (which
:class:`~agents.collect.Slot` already catches inside the actor).

Shared reward state (a :class:`~wrappers.spec.RewardState`: milestone book, SPA's shortest
lengths) is copied into each actor with ``make_env`` and evolves there; it is not merged back.

Example (a local cluster is started when none is running):
    >>> rollouts = RayRollouts(functools.partial(make_env, tasks="easy"),
    ...                        functools.partial(CandidatePolicy), workers=4)  # doctest: +SKIP
    >>> episodes, errors = rollouts.collect(policy, instances)  # doctest: +SKIP
    >>> rollouts.close()  # doctest: +SKIP

On a remote cluster (``address=``) every node needs gui-gym installed (or pass the code with
a ``runtime_env`` in your own ``ray.init`` before building this).
"""

from __future__ import annotations

import logging
import math
import os
import pickle
import re
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

from agents.collect import EPISODE_CLASSES, Episode, Instance, collect, make_vector_env
from agents.policies.base import TrainablePolicy
from gui_gym.core.io import load_plain

log = logging.getLogger(__name__)

__all__ = ["RayRollouts"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
# How many RayRollouts use a local cluster that this module started (shut down with the last).
_OWNED = {"started": False, "users": 0}


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as e:
        raise ImportError(
            'distributed rollouts (--ray / --ray-address) need Ray: pip install "ray>=2.9" '
            "(or drop --ray to roll out on this machine)"
        ) from e
    return ray


class _RolloutWorker:
    """One Ray actor: an env and a policy, built once; plays one episode per :meth:`run` call."""

    def __init__(self, make_env: Callable[[], gym.Env], policy_factory: Callable[[], TrainablePolicy]) -> None:
        self.envs = make_vector_env(make_env, 1)
        self.policy = policy_factory()
        if hasattr(self.policy, "eval"):
            self.policy.eval()  # rollouts never train: no dropout, as LocalRollouts
        self.version: int | None = None
        self.epoch: int | None = None

    def ready(self) -> int:
        return os.getpid()

    def run(
        self, weights: list[Any], version: int, epoch: int | None, instance: Instance, greedy: bool, iteration: int
    ) -> bytes:
        """``pickle.dumps((episodes, errors))`` of :func:`agents.collect.collect` for ``instance``.

        Plain bytes: Ray would hand numpy arrays back as read-only views that pin the object
        store for as long as an episode lives (a replay buffer keeps them for many iterations).
        """
        import ray
        import torch

        if version != self.version:  # weights come wrapped in a list so Ray fetches them only here
            self.policy.load_state_dict(ray.get(weights[0]))
            self.version = version
        if epoch is not None and epoch != self.epoch:
            self.envs.call("set_epoch", epoch)
            self.epoch = epoch
        with torch.no_grad():  # a hung env is bounded by RayRollouts' episode timeout, which kills this actor
            result = collect(self.envs, self.policy, [instance], greedy=greedy, iteration=iteration,
                             step_timeout_s=None)  # fmt: skip
        return pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)


def _cpu_state(policy: TrainablePolicy) -> dict[str, Any]:
    return {k: v.detach().cpu() if hasattr(v, "detach") else v for k, v in policy.state_dict().items()}


class RayRollouts:
    """Rollouts over Ray actors, one env each (see the module docstring).

    Args:
        make_env: builds one env (picklable: a ``functools.partial`` of :func:`wrappers.spec.make_env`).
        policy_factory: builds the policy in each actor (picklable); weights come from ``collect``.
        workers: number of actors.
        address: a running cluster (``"ray://host:10001"``, ``"auto"``); ``None``: the cluster
            this process is connected to, or a local one started here.
        num_cpus_per_worker: the CPUs Ray reserves per actor (fractional: envs mostly wait).
        num_gpus_per_worker: the GPUs per actor (Ray hides GPUs from actors that ask for none,
            so a policy factory that puts the model on ``cuda`` needs this > 0).
        episode_timeout_s: an episode running longer is abandoned, its actor killed and replaced.
        max_retries: how often one instance is retried after its actor died or timed out.
        start_timeout_s: how long to wait for an actor to start before giving up on it.
    """

    def __init__(
        self,
        make_env: Callable[[], gym.Env],
        policy_factory: Callable[[], TrainablePolicy],
        workers: int = 2,
        address: str | None = None,
        num_cpus_per_worker: float = 0.5,
        num_gpus_per_worker: float = 0.0,
        episode_timeout_s: float = 300.0,
        max_retries: int = 2,
        start_timeout_s: float = 300.0,
    ) -> None:
        if int(workers) < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if not num_cpus_per_worker > 0:
            raise ValueError(f"num_cpus_per_worker must be positive, got {num_cpus_per_worker}")
        if num_gpus_per_worker < 0:
            raise ValueError(f"num_gpus_per_worker must be >= 0, got {num_gpus_per_worker}")
        if not (episode_timeout_s > 0 and start_timeout_s > 0):
            raise ValueError("episode_timeout_s and start_timeout_s must be positive")
        if int(max_retries) < 0:
            raise ValueError(f"max_retries must be >= 0, got {max_retries}")
        ray = self._ray = _import_ray()
        self.workers, self.num_cpus_per_worker = int(workers), float(num_cpus_per_worker)
        self.episode_timeout_s, self.max_retries = float(episode_timeout_s), int(max_retries)
        self.start_timeout_s = float(start_timeout_s)
        self.restarts = 0  # actors replaced so far (died or timed out)
        self._make_env, self._policy_factory = make_env, policy_factory
        self._actors: list[Any] = []
        self._starting: dict[Any, tuple[Any, float]] = {}  # ready() ref -> (actor, deadline)
        self._problem = ""  # why the last actor failed to start
        self._epoch: int | None = None
        self._version = 0
        self._closed = False
        if not ray.is_initialized():
            if address is not None:
                ray.init(address=address, ignore_reinit_error=True)
            else:
                # Fractional CPUs are bookkeeping: size the cluster for this machine, and at least
                # for twice our actors (a trainer holds two of these: training and evaluation).
                needed = math.ceil(2 * self.workers * self.num_cpus_per_worker)
                ray.init(
                    num_cpus=max(os.cpu_count() or 1, needed),
                    include_dashboard=False,
                    log_to_driver=False,
                    ignore_reinit_error=True,
                )
            _OWNED["started"] = True
        self._owns = _OWNED["started"]
        _OWNED["users"] += self._owns
        self._remote = ray.remote(_RolloutWorker).options(
            num_cpus=self.num_cpus_per_worker, num_gpus=num_gpus_per_worker, max_restarts=0, max_task_retries=0
        )
        try:
            if self._owns:  # our own local cluster does not grow: say so now instead of waiting
                free = ray.available_resources().get("CPU", 0.0)
                if free + 1e-9 < self.workers * self.num_cpus_per_worker:
                    raise RuntimeError(
                        f"the local Ray cluster has {free:g} free CPUs, too few for {self.workers} rollout actors "
                        f"of {self.num_cpus_per_worker:g} CPU: lower workers or num_cpus_per_worker, or start Ray "
                        "yourself with more CPUs (ray start --head --num-cpus N) and pass --ray-address auto"
                    )
            self._fill()
        except BaseException:
            self.close()
            raise

    @property
    def actors(self) -> list[Any]:
        """The live actor handles (a copy)."""
        return list(self._actors)

    # -- actors ----------------------------------------------------------------------------
    def _start(self, n: int) -> None:
        """Launch ``n`` actors; they join the pool when their ``ready`` ping returns."""
        for _ in range(n):
            actor = self._remote.remote(self._make_env, self._policy_factory)
            self._starting[actor.ready.remote()] = (actor, time.monotonic() + self.start_timeout_s)

    def _started(self, ref: Any) -> Any | None:
        """The actor whose ``ready`` ping ``ref`` returned, now in the pool; None if it failed."""
        actor, _ = self._starting.pop(ref)
        try:
            self._ray.get(ref)
        except self._ray.exceptions.RayError as e:
            self._failed_start(actor, _short(e))
            return None
        self._actors.append(actor)
        return actor

    def _failed_start(self, actor: Any, why: str) -> None:
        self._problem = why
        log.warning("a Ray rollout actor failed to start: %s", why)
        self._ray.kill(actor, no_restart=True)

    def _expire_starts(self) -> None:
        now = time.monotonic()
        for ref, (actor, deadline) in list(self._starting.items()):
            if deadline <= now:
                del self._starting[ref]
                self._failed_start(
                    actor,
                    f"it did not start within start_timeout_s={self.start_timeout_s:g}s (free resources: "
                    f"{self._ray.available_resources()}; each actor asks {self.num_cpus_per_worker:g} CPU)",
                )

    def _fill(self) -> None:
        """Start actors until there are ``workers`` and wait for them; RuntimeError if none is left."""
        ray = self._ray
        self._start(self.workers - len(self._actors) - len(self._starting))
        while self._starting:
            wait = max(0.0, min(d for _, d in self._starting.values()) - time.monotonic())
            ready, _ = ray.wait(list(self._starting), num_returns=len(self._starting), timeout=wait)
            for ref in ready:
                self._started(ref)
            self._expire_starts()
        if not self._actors:
            raise RuntimeError(
                f"could not start any Ray rollout actor: {self._problem}. The actor builds make_env() and "
                "policy_factory(): check that both work in a plain Python process on the cluster's nodes"
            )

    def _drop(self, actor: Any) -> None:
        self._ray.kill(actor, no_restart=True)
        self._actors = [a for a in self._actors if a != actor]

    # -- the LocalRollouts interface --------------------------------------------------------
    def collect(
        self, policy: TrainablePolicy, instances: Sequence[Instance], greedy: bool = False, iteration: int = 0
    ) -> tuple[list[Episode], list[tuple[Instance, str]]]:
        """Run every instance to the end; ``(episodes in instance order, [(instance, error)] dropped)``."""
        if self._closed:
            raise RuntimeError("this RayRollouts is closed; build a new one")
        ray = self._ray
        instances = list(instances)
        if not instances:
            return [], []
        self._fill()
        self._version += 1
        weights = ray.put(_cpu_state(policy))
        results: dict[int, list[Episode]] = {}
        errors: list[tuple[Instance, str]] = []
        tries = [0] * len(instances)
        queue = deque(range(len(instances)))
        free = list(self._actors)
        running: dict[Any, tuple[Any, int, float]] = {}  # result ref -> (actor, instance index, deadline)

        def lost(actor: Any, i: int, why: str) -> None:
            """``actor`` is gone: start a replacement, and retry instance ``i`` or report it."""
            self._drop(actor)
            self._start(1)  # joins when ready; meanwhile the other actors go on
            self.restarts += 1
            tries[i] += 1
            if tries[i] > self.max_retries:
                log.warning("dropped episode %s after %d attempts: %s", instances[i], tries[i], why)
                errors.append((instances[i], f"gave up after {tries[i]} attempt{'s' * (tries[i] > 1)}: {why}"))
            else:
                log.warning("retrying episode %s (attempt %d): %s", instances[i], tries[i] + 1, why)
                queue.appendleft(i)

        finished = False
        try:
            while queue or running:
                while queue and free:
                    actor, i = free.pop(), queue.popleft()
                    ref = actor.run.remote([weights], self._version, self._epoch, instances[i], greedy, iteration)
                    running[ref] = (actor, i, time.monotonic() + self.episode_timeout_s)
                if not running and not self._starting:
                    raise RuntimeError(
                        f"no Ray rollout actor is left for {len(queue)} episodes and none could be started: "
                        f"{self._problem}"
                    )
                refs = [*running, *self._starting]
                deadline = min([d for _, _, d in running.values()] + [d for _, d in self._starting.values()])
                ray.wait(refs, num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
                ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0)  # everything done by now
                for ref in ready:
                    if ref in self._starting:
                        if (actor := self._started(ref)) is not None:
                            free.append(actor)
                        continue
                    actor, i, _ = running.pop(ref)
                    try:
                        episodes, errs = load_plain(ray.get(ref), EPISODE_CLASSES)
                    except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as e:
                        lost(actor, i, f"its actor died ({_short(e)})")
                        continue
                    except ray.exceptions.ObjectLostError as e:
                        lost(actor, i, f"its result was lost ({_short(e)})")
                        continue
                    results[i] = episodes
                    errors.extend(errs)
                    free.append(actor)
                now = time.monotonic()
                for ref, (actor, i, deadline) in list(running.items()):  # none of these is done
                    if deadline <= now:
                        del running[ref]
                        lost(actor, i, f"it ran past episode_timeout_s={self.episode_timeout_s:g}s")
                self._expire_starts()
            finished = True
        finally:
            if not finished:  # an exception (or Ctrl-C): busy actors would finish stale work; end them
                for actor, _, _ in running.values():
                    self._drop(actor)
        return [ep for i in range(len(instances)) for ep in results.get(i, [])], errors

    def set_epoch(self, epoch: int) -> None:
        """The env wrappers' epoch (``Slot.set_epoch``); each actor applies it before its next episode."""
        self._epoch = int(epoch)

    def close(self) -> None:
        """Kill the actors, and shut Ray down if this module started it and nobody else uses it."""
        if self._closed:
            return
        self._closed = True
        ray = self._ray
        if ray.is_initialized():
            for actor in [*self._actors, *(a for a, _ in self._starting.values())]:
                ray.kill(actor, no_restart=True)
        self._actors, self._starting = [], {}
        if self._owns:
            _OWNED["users"] -= 1
            if _OWNED["users"] == 0:
                _OWNED["started"] = False
                if ray.is_initialized():
                    ray.shutdown()

    def __enter__(self) -> RayRollouts:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _short(e: BaseException) -> str:
    """One line for a Ray error: its last line (the original exception, where Ray quotes a
    traceback) and its first (what Ray says happened)."""
    lines = [ln.strip() for ln in _ANSI.sub("", str(e)).splitlines() if ln.strip()]
    if not lines:
        return type(e).__name__
    text = lines[0] if len(lines) == 1 else f"{lines[-1]} [{lines[0]}]"
    return f"{type(e).__name__}: {text}"[:500]
