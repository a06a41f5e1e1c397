"""The Android backend seam: the protocol, the simulator behind it, and the env driven through it."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android import GuiAndroidEnv
from gui_gym.android.actions import Action, parse_action
from gui_gym.android.backends import BACKENDS, AndroidBackend, BackendCapabilityError, make_backend, supports
from gui_gym.android.backends.base import REQUIRED, Episode, Outcome, missing_members
from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.sim.tasks import TASKS, WEB_TASKS
from gui_gym.android.ui import Node


class PlainBackend:
    """A backend with the protocol and nothing more: no snapshots, no oracle, no device.

    It runs the simulator underneath (``inner``, which the test may use to play the expert)
    and counts the calls the env makes, so the test sees the env used the protocol only.
    """

    name = "plain"

    def __init__(self, task_ids: tuple[str, ...] | None = None) -> None:
        self.inner = SimBackend()
        ids = task_ids or tuple(TASKS)
        self._tasks = {tid: TASKS[tid] for tid in ids}
        self.calls: Counter[str] = Counter()

    @property
    def tasks(self) -> Mapping[str, Any]:
        self.calls["tasks"] += 1
        return self._tasks

    def start(self, task_id: str, rng: np.random.Generator, params: Mapping[str, Any] | None = None) -> Episode:
        self.calls["start"] += 1
        return self.inner.start(task_id, rng, params)

    def act(self, action: Action) -> Outcome:
        self.calls["act"] += 1
        return self.inner.act(action)

    def tree(self) -> Node:
        self.calls["tree"] += 1
        return self.inner.tree()

    def elements(self) -> list[Node]:
        self.calls["elements"] += 1
        return self.inner.elements()

    def screenshot(self, size: tuple[int, int]) -> np.ndarray:
        self.calls["screenshot"] += 1
        return self.inner.screenshot(size)

    def milestone_reached(self, index: int) -> bool:
        self.calls["milestone_reached"] += 1
        return self.inner.milestone_reached(index)

    def check(self, answer: str | None, status: str | None) -> bool:
        self.calls["check"] += 1
        return self.inner.check(answer, status)

    def app_opened(self, app: str) -> bool:
        self.calls["app_opened"] += 1
        return self.inner.app_opened(app)

    @property
    def clock(self) -> dt.datetime:
        return self.inner.clock

    def close(self) -> None:
        self.calls["close"] += 1
        self.inner.close()


def _episode(env: gym.Env, seed: int, expert: Any, task: str | None = None) -> list[tuple]:
    """Every (obs, reward, terminated, truncated, info) of one seeded episode played by ``expert``."""
    options = {"task": task} if task else None
    obs, info = env.reset(seed=seed, options=options)
    out: list[tuple] = [(obs, info)]
    while True:
        obs, r, term, trunc, info = env.step(expert())
        out.append((obs, r, term, trunc, info))
        if term or trunc:
            return out


def _assert_same(a: list[tuple], b: list[tuple]) -> None:
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        ox, oy = x[0], y[0]
        assert sorted(ox) == sorted(oy)
        for k in ox:
            if isinstance(ox[k], np.ndarray):
                np.testing.assert_array_equal(ox[k], oy[k])
            else:
                assert ox[k] == oy[k]
        # the infos agree but for the backend each names (info["backend"])
        strip = [{k: v for k, v in i.items() if k != "backend"} if isinstance(i, dict) else i for i in x[1:]]
        want = [{k: v for k, v in i.items() if k != "backend"} if isinstance(i, dict) else i for i in y[1:]]
        assert strip == want


# -- the protocol ---------------------------------------------------------------------------


def test_sim_backend_satisfies_the_protocol() -> None:
    sim = make_backend("sim")
    assert isinstance(sim, SimBackend) and isinstance(sim, AndroidBackend)
    assert missing_members(sim) == []
    assert supports(sim, "snapshot") and supports(sim, "oracle")
    assert set(sim.tasks) == set(TASKS) | set(WEB_TASKS)  # MobileMiniWoB++'s pages too, selected by name


def test_required_members_are_the_protocols_members() -> None:
    declared = {n for n in vars(AndroidBackend) if not n.startswith("_")} | set(AndroidBackend.__annotations__)
    assert set(REQUIRED) == declared
    assert missing_members(object()) == list(REQUIRED)
    assert not isinstance(object(), AndroidBackend)


def test_plain_backend_satisfies_the_protocol_without_capabilities() -> None:
    plain = PlainBackend()
    assert isinstance(plain, AndroidBackend)
    assert not supports(plain, "snapshot") and not supports(plain, "oracle")
    with pytest.raises(ValueError, match="unknown capability"):
        supports(plain, "teleport")


def test_sim_backend_start_act_check_and_snapshot() -> None:
    b = SimBackend()
    ep = b.start("ClockAlarmAdd", np.random.default_rng(3))
    assert ep.task_id == "ClockAlarmAdd" and ep.instruction and len(ep.milestones) >= 2
    assert all(f"<{slot}>" not in " ".join(ep.milestones) for slot in ep.placeholders)
    assert ep.step_limit > 5
    assert not b.milestone_reached(0) and not b.app_opened("clock")
    t0 = b.clock
    snap = b.snapshot()
    out = b.act(Action("launch", app="Clock"))
    assert out.valid and not out.done and b.app_opened("clock") and b.milestone_reached(0)
    assert b.clock > t0
    b.restore(snap)
    assert not b.app_opened("clock") and not b.milestone_reached(0) and b.clock == t0
    bad = b.act(Action("tap", point=(5, 5000)))
    assert not bad.valid and "outside" in bad.reason
    while not (out := b.act(parse_action(b.oracle_action()))).done:
        pass
    assert b.check(out.answer, out.status)
    assert [b.milestone_reached(i) for i in range(len(ep.milestones))] == [True] * len(ep.milestones)
    shot = b.screenshot((108, 240))
    assert shot.shape == (240, 108, 3) and shot.dtype == np.uint8


# -- the env through the backend ------------------------------------------------------------


@pytest.mark.parametrize("obs_mode", ["text", "both"])
def test_explicit_sim_backend_equals_the_default(obs_mode: str) -> None:
    kw = {"obs_mode": obs_mode, "screen_size": (108, 240)}
    default = gym.make("GuiAndroid-v0", **kw)
    explicit = gym.make("GuiAndroid-v0", backend=SimBackend(), **kw)
    assert isinstance(default.unwrapped.backend, SimBackend)
    for seed in range(4):
        a = _episode(default, seed, default.unwrapped.oracle_action)
        b = _episode(explicit, seed, explicit.unwrapped.oracle_action)
        _assert_same(a, b)
        assert a[-1][-1]["success"] and a[-1][1] == 1.0


def test_env_drives_a_backend_through_the_protocol_only() -> None:
    plain = PlainBackend()
    # A backend without windows() shows its tree as one window: compare the dump's element lists.
    env = GuiAndroidEnv(backend=plain, obs_mode="both", screen_size=(108, 240), ui_elements="dump")
    ref = GuiAndroidEnv(obs_mode="both", screen_size=(108, 240), ui_elements="dump")
    for seed, task in ((0, "ContactsAddContact"), (1, "SystemRoaming5GInfeasible"), (2, "ClockAlarmTimeQuestion")):
        got = _episode(env, seed, plain.inner.oracle_action, task)
        want = _episode(ref, seed, ref.oracle_action, task)
        _assert_same(got, want)
        reset_info, last_info = got[0][1], got[-1][-1]
        assert reset_info["difficulty"] == TASKS[task].difficulty
        assert reset_info["task_milestones"] and "placeholders" in reset_info
        assert last_info["success"] and last_info["progress"] == 1.0
        assert last_info["backend"] == "plain" and want[-1][-1]["backend"] == "sim"
    used = set(plain.calls)
    assert {"start", "act", "tree", "screenshot", "milestone_reached", "check", "app_opened"} <= used
    assert used <= set(REQUIRED)
    env.close()
    assert plain.calls["close"] == 1


def test_backend_task_suite_is_the_envs_task_suite() -> None:
    plain = PlainBackend(task_ids=("ClockStopWatchRunning", "SystemWifiTurnOn"))
    env = GuiAndroidEnv(backend=plain)
    seen = {env.reset(seed=s)[1]["task_id"] for s in range(12)}
    assert seen == {"ClockStopWatchRunning", "SystemWifiTurnOn"}
    with pytest.raises(ValueError, match="unknown task id"):
        GuiAndroidEnv(task="ContactsAddContact", backend=plain)
    with pytest.raises(ValueError, match="unknown task id"):
        env.reset(seed=0, options={"task": "ContactsAddContact"})


def test_missing_capabilities_give_clear_errors() -> None:
    plain = PlainBackend()
    env = GuiAndroidEnv(task="ClockStopWatchRunning", backend=plain)
    env.reset(seed=0)
    with pytest.raises(BackendCapabilityError, match=r"snapshot\(\) needs a backend with snapshot support.*'plain'"):
        env.snapshot()
    with pytest.raises(BackendCapabilityError, match="snapshot support"):
        env.restore(b"")
    with pytest.raises(BackendCapabilityError, match=r"oracle_action\(\) needs a backend with oracle support"):
        env.oracle_action()
    with pytest.raises(AttributeError, match="'plain' backend has no simulated device"):
        _ = env.device
    # The error is a NotImplementedError, so callers that probe for an optional feature can catch that.
    assert issubclass(BackendCapabilityError, NotImplementedError)


def test_env_with_a_plain_backend_passes_gymnasiums_checker() -> None:
    env = GuiAndroidEnv(task="easy", backend=PlainBackend(), obs_mode="both", screen_size=(108, 240))
    check_env(env, skip_render_check=True)


def test_snapshot_restore_through_the_sim_backend() -> None:
    env = GuiAndroidEnv(task="ContactsAddContact")
    env.reset(seed=5)
    for _ in range(3):
        env.step(env.oracle_action())
    snap, before = env.snapshot(), env.observe()
    rest = _episode_tail(env)
    env.restore(snap)
    assert env.observe() == before
    assert _episode_tail(env) == rest


def _episode_tail(env: GuiAndroidEnv) -> list[tuple]:
    out = []
    while True:
        obs, r, term, trunc, info = env.step(env.oracle_action())
        out.append((obs, r, term, trunc, info))
        if term or trunc:
            return out


# -- bad backends -----------------------------------------------------------------------------


def test_unknown_backend_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown backend 'adb-typo'; known backends: sim"):
        GuiAndroidEnv(backend="adb-typo")
    with pytest.raises(ValueError, match="known backends"):
        gym.make("GuiAndroid-v0", backend="emulator")
    assert "sim" in BACKENDS


def test_an_object_that_is_no_backend_is_refused() -> None:
    with pytest.raises(TypeError, match=r"object lacks name, tasks, start, act"):
        GuiAndroidEnv(backend=object())
    half = type("Half", (), {k: getattr(PlainBackend, k) for k in REQUIRED if k != "screenshot"})
    with pytest.raises(TypeError, match=r"Half lacks screenshot$"):
        GuiAndroidEnv(backend=half())
