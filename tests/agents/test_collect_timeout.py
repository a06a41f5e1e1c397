"""A bare :func:`agents.collect.collect` is bounded by default: its ``step_timeout_s`` default is a
finite number, a sync vector env's calls run under that bound without being asked, and an env
whose step hangs past a short timeout ends the call with a clear error (sync) or is killed and
reported while the other episodes are collected (async) — never a hung call."""

from __future__ import annotations

import inspect
import math
import threading
import time
from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.collect import STEP_TIMEOUT_S, EnvTimeoutError, Instance, LocalRollouts, collect, make_vector_env
from agents.policies.base import Decision

HANG = 7  # the seed whose first step hangs
RELEASE = threading.Event()  # lets a hung sync step return at the end of a test
#: a generous bound for "it does not hang": the timeouts below are 1 s
BOUND_S = 20.0


class Toy(gym.Env):
    """One-step episodes; the step of seed :data:`HANG` sleeps far past the tests' timeouts."""

    observation_space = gym.spaces.Text(32)
    action_space = gym.spaces.Text(64)

    def __init__(self) -> None:
        self.seed_: int | None = None
        self.threads: list[str] = []  # where each call ran

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict]:
        super().reset(seed=seed)
        self.seed_ = seed
        self.threads.append(threading.current_thread().name)
        return "start", {}

    def step(self, action: Any) -> tuple[str, float, bool, bool, dict]:
        self.threads.append(threading.current_thread().name)
        if self.seed_ == HANG:
            RELEASE.wait(60)  # in a worker process nothing sets it: the collector kills the worker
        return "done", 1.0, True, False, {"success": True}


class Finisher:
    def decide(self, observations, histories, greedy=False, rng=None):
        return [Decision("finish()", "finish", np.zeros(1, np.float32)) for _ in observations]


@pytest.fixture(autouse=True)
def _release() -> Iterator[None]:
    RELEASE.clear()
    yield
    RELEASE.set()


def insts(*seeds: int) -> list[Instance]:
    return [Instance("toy", s, g) for g, s in enumerate(seeds)]


def test_the_default_timeouts_are_finite_numbers() -> None:
    default = inspect.signature(collect).parameters["step_timeout_s"].default
    assert isinstance(default, float) and math.isfinite(default) and default > 0
    assert default == STEP_TIMEOUT_S == 300.0
    local = inspect.signature(LocalRollouts).parameters["step_timeout_s"].default
    assert isinstance(local, float) and math.isfinite(local) and local > 0


def test_a_bare_collect_bounds_a_sync_env_without_being_asked() -> None:
    """Bounded calls run on the collector's helper thread, which it can stop waiting for; only an
    explicit ``step_timeout_s=None`` runs them unbounded on the caller's thread."""
    envs = make_vector_env(Toy, 2)
    try:
        episodes, errors = collect(envs, Finisher(), insts(0, 1))
        assert errors == [] and len(episodes) == 2
        calls = [t for env in envs.envs for t in env.unwrapped.threads]
        assert calls and set(calls) == {"gui-gym-sync-env"}
        for env in envs.envs:
            env.unwrapped.threads.clear()
        episodes, errors = collect(envs, Finisher(), insts(2, 3), step_timeout_s=None)
        assert errors == [] and len(episodes) == 2
        assert {t for env in envs.envs for t in env.unwrapped.threads} == {threading.current_thread().name}
    finally:
        envs.close()


def test_a_hung_step_in_a_sync_env_ends_collect_with_a_clear_error() -> None:
    envs = make_vector_env(Toy, 2)
    t0 = time.monotonic()
    with pytest.raises(EnvTimeoutError) as caught:
        collect(envs, Finisher(), insts(0, HANG, 1), step_timeout_s=1.0)
    assert time.monotonic() - t0 < BOUND_S
    text = str(caught.value)
    assert text.startswith(f"task toy seed {HANG}: sub-env 1: its step did not return within step_timeout_s=1s")
    assert "vectorization='async'" in text
    assert envs.closed  # abandoned: the hung sub-env's thread stays blocked until RELEASE


def test_a_hung_step_in_an_async_env_is_killed_reported_and_the_others_collected() -> None:
    envs = make_vector_env(Toy, 2, "async")
    rebuilt: list[gym.vector.VectorEnv] = []

    def rebuild() -> gym.vector.VectorEnv:
        rebuilt.append(make_vector_env(Toy, 2, "async"))
        return rebuilt[-1]

    t0 = time.monotonic()
    try:
        episodes, errors = collect(
            envs, Finisher(), insts(0, HANG, 1), step_timeout_s=1.0, max_retries=0, rebuild=rebuild
        )
    finally:
        for e in [envs, *rebuilt]:
            e.close()
    assert time.monotonic() - t0 < BOUND_S
    assert errors == [
        (insts(0, HANG, 1)[1], f"task toy seed {HANG}: gave up after 1 attempt: it ran past step_timeout_s=1s")
    ]
    assert [ep.instance.seed for ep in episodes] == [0, 1] and all(ep.success for ep in episodes)
    assert len(rebuilt) == 1 and envs.closed
