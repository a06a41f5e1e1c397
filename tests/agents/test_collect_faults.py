"""Local rollouts with failing envs, over real Sync and Async vector envs built as the trainer
builds them (``LocalRollouts`` of a ``functools.partial`` factory): envs that raise at their
first reset or at every reset, async workers killed mid-rollout (by themselves or from
outside), and sub-envs that hang. Whatever fails, ``collect`` returns (or, for a hung sync
env, raises a clear error), the failed instances are in the errors with their task and
reason, the others are collected, and a retried episode equals the one a clean run gives."""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import pytest
from _util import ScriptedPolicy

from agents.collect import EnvTimeoutError, Episode, Instance, LocalRollouts, collect, make_vector_env
from wrappers.spec import make_env

TASKS = ["SystemWifiTurnOn", "ContactsFavorite"]
MAX_STEPS = 4
# Seeds that make Faulty misbehave (only where it has a marker directory); "once" faults leave a
# file there, so that the retry, in whatever process, runs clean.
KILL, KILL_ONCE, HANG, HANG_ONCE, HANG_RESET_ONCE, KILLED_OUTSIDE = 901, 902, 903, 904, 905, 906
HUNG = threading.Event()  # set by a sync sub-env that hangs (tests wait for it, never sleep)
RELEASE = threading.Event()  # lets hung sync sub-envs return at the end of a test


class Faulty(gym.Wrapper):
    """A GuiAndroid env that fails on the seeds above, or at reset: ``first_reset_fails`` (its
    first reset only), ``broken="all"`` (every reset), ``broken="one"`` (every reset, of the first
    env of the vector env to reset)."""

    def __init__(
        self, env: gym.Env, marker_dir: str | None, first_reset_fails: bool = False, broken: str | None = None
    ) -> None:
        super().__init__(env)
        self.marker_dir, self.first_reset_fails, self.broken = marker_dir, first_reset_fails, broken
        self.resets = self.t = 0
        self.claimed = False
        self.fault: int | None = None

    def _first(self, name: object) -> bool:
        """True for the first caller with this name, in any process (exclusive file creation)."""
        try:
            os.close(os.open(os.path.join(str(self.marker_dir), str(name)), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        return True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        self.resets += 1
        self.t, self.fault = 0, None
        if self.marker_dir is not None:
            self.claimed = self.claimed or (self.broken == "one" and self.resets == 1 and self._first("broken"))
            if self.broken == "all" or self.claimed:
                raise OSError("no emulator answers")
            if self.first_reset_fails and self.resets == 1:
                raise OSError("emulator not booted")
            if seed == HANG_RESET_ONCE and self._first(seed):
                _hang()
            self.fault = seed
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        self.t += 1
        fault = self.fault if self.t == 1 else None
        if fault == KILL or (fault in (KILL_ONCE, KILLED_OUTSIDE) and self._first(fault)):
            if multiprocessing.parent_process() is None:
                raise RuntimeError("Faulty kills only async worker processes")
            if fault == KILLED_OUTSIDE:  # tell the test which process to kill, then wait for it
                Path(str(self.marker_dir), "pid").write_text(str(os.getpid()))
                time.sleep(30)
            os.kill(os.getpid(), signal.SIGKILL)
        if fault == HANG or (fault == HANG_ONCE and self._first(fault)):
            _hang()
        return self.env.step(action)


def _hang() -> None:
    HUNG.set()
    RELEASE.wait()  # never set in a worker process: it hangs until killed


def faulty_env(marker_dir: str | None = None, **faults: Any) -> gym.Env:
    return Faulty(make_env("GuiAndroid-v0", tasks=TASKS, max_steps=MAX_STEPS), marker_dir, **faults)


@pytest.fixture(autouse=True)
def _release_hung_threads() -> Iterator[None]:
    HUNG.clear()
    RELEASE.clear()
    yield
    RELEASE.set()


def instances(seeds: Sequence[int]) -> list[Instance]:
    return [Instance(TASKS[g % len(TASKS)], seed, g, 0) for g, seed in enumerate(seeds)]


def local(tmp_path: Path, vectorization: str, num_envs: int = 2, **kw: Any) -> LocalRollouts:
    """The trainer's way: a picklable factory, a LocalRollouts over it."""
    faults = {k: kw.pop(k) for k in ("first_reset_fails", "broken") if k in kw}
    make = functools.partial(faulty_env, marker_dir=str(tmp_path), **faults)
    return LocalRollouts(make, num_envs, vectorization, **kw)


def key(ep: Episode) -> tuple:
    return (
        ep.instance, ep.task_id, tuple(d.action for d in ep.decisions), tuple(float(d.logp[0]) for d in ep.decisions),
        tuple(ep.rewards.tolist()), ep.success, ep.truncated,
    )  # fmt: skip


def clean(insts: Sequence[Instance]) -> list[tuple]:
    """What a run without faults gives for these instances."""
    envs = make_vector_env(faulty_env, 2)
    try:
        episodes, errors = collect(envs, ScriptedPolicy(), insts)
    finally:
        envs.close()
    assert errors == []
    return [key(ep) for ep in episodes]


def run(rollouts: LocalRollouts, insts: Sequence[Instance]) -> tuple[list[Episode], list[tuple[Instance, str]]]:
    try:
        return rollouts.collect(ScriptedPolicy(), insts)
    finally:
        rollouts.close()


MODES = ["sync", "async"]


# -- envs that raise at reset -------------------------------------------------------------------


@pytest.mark.parametrize("vectorization", MODES)
def test_a_first_reset_that_raises_drops_that_episode_only(tmp_path: Path, vectorization: str) -> None:
    insts = instances(range(5))
    episodes, errors = run(local(tmp_path, vectorization, first_reset_fails=True), insts)
    # each sub-env's first reset got one of the first two instances; the rest ran as usual
    assert [inst for inst, _ in errors] == insts[:2]
    for inst, why in errors:
        assert why.startswith(
            f"task {inst.task} seed {inst.seed}: the env failed at reset: OSError: emulator not booted"
        )
    assert [key(ep) for ep in episodes] == clean(insts[2:])


@pytest.mark.parametrize("vectorization", MODES)
def test_a_sub_env_broken_for_good_stops_taking_episodes(tmp_path: Path, vectorization: str) -> None:
    insts = instances(range(6))
    episodes, errors = run(local(tmp_path, vectorization, broken="one"), insts)
    assert len(errors) == 2  # two failed resets in a row retire it; the other sub-env does the rest
    assert all("the env failed at reset: OSError: no emulator answers" in why for _, why in errors)
    lost = {inst for inst, _ in errors}
    assert [key(ep) for ep in episodes] == clean([i for i in insts if i not in lost])


@pytest.mark.parametrize("vectorization", MODES)
def test_when_every_sub_env_is_broken_every_instance_is_reported(tmp_path: Path, vectorization: str) -> None:
    insts = instances(range(5))
    episodes, errors = run(local(tmp_path, vectorization, broken="all"), insts)
    assert episodes == []
    assert sorted(inst.seed for inst, _ in errors) == list(range(5))
    reasons = [why.split(": ", 1)[1] for _, why in errors]
    assert sum(r.startswith("the env failed at reset: OSError: no emulator answers") for r in reasons) == 4
    assert reasons[-1] == "not run: every sub-env failed at reset 2 times in a row"


def test_the_trainer_counts_dropped_episodes_and_stops_when_every_env_fails(
    tmp_path: Path, tiny_encoder: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.train import TrainConfig, Trainer

    broken = functools.partial(faulty_env, marker_dir=str(tmp_path), broken="all")
    monkeypatch.setattr(Trainer, "_env_fn", lambda self, reward: broken)
    cfg = TrainConfig(
        tasks="SystemWifiTurnOn", iterations=5, tasks_per_iter=2, group_size=2, num_envs=2, max_steps=MAX_STEPS,
        eval_every=0, encoder=tiny_encoder, out=str(tmp_path / "run"), progress=False, hidden=16,
    )  # fmt: skip
    with pytest.raises(RuntimeError, match="three iterations in a row produced no episode"):
        Trainer(cfg).run()
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["dropped_episodes"] for r in rows] == [4, 4] and all(r["episodes"] == 0 for r in rows)


# -- async workers that die ------------------------------------------------------------------


def test_a_worker_killed_mid_episode_is_replaced_and_its_episode_retried(tmp_path: Path) -> None:
    insts = instances([0, KILL_ONCE, 1, 2])
    rollouts = local(tmp_path, "async")
    episodes, errors = run(rollouts, insts)
    assert errors == [] and rollouts.restarts == 1
    assert [key(ep) for ep in episodes] == clean(insts)  # the retry repeats the clean episode


def test_an_episode_whose_worker_always_dies_is_reported(tmp_path: Path) -> None:
    insts = instances([0, KILL, 1])
    rollouts = local(tmp_path, "async", max_retries=1)
    episodes, errors = run(rollouts, insts)
    assert rollouts.restarts == 2
    assert errors == [
        (insts[1], f"task {insts[1].task} seed {KILL}: gave up after 2 attempts: "
                   "its worker process died (killed by SIGKILL)")
    ]  # fmt: skip
    assert [key(ep) for ep in episodes] == clean([insts[0], insts[2]])


def test_a_worker_killed_from_outside_mid_episode(tmp_path: Path) -> None:
    insts = instances([0, KILLED_OUTSIDE, 1])
    rollouts = local(tmp_path, "async", step_timeout_s=20)
    pids = {p.pid for p in rollouts.envs.processes}
    killed: list[int] = []

    def killer() -> None:
        pid_file = tmp_path / "pid"
        for _ in range(3000):  # the worker writes its pid, then waits to be killed
            if pid_file.exists() and pid_file.read_text():
                killed.append(int(pid_file.read_text()))
                os.kill(killed[0], signal.SIGKILL)
                return
            time.sleep(0.01)

    thread = threading.Thread(target=killer)
    thread.start()
    episodes, errors = run(rollouts, insts)
    thread.join()
    assert killed and killed[0] in pids and rollouts.restarts == 1
    assert errors == []
    assert [key(ep) for ep in episodes] == clean(insts)


def test_a_worker_killed_between_calls_is_noticed(tmp_path: Path) -> None:
    rollouts = local(tmp_path, "async")
    try:
        os.kill(rollouts.envs.processes[1].pid, signal.SIGKILL)
        episodes, errors = rollouts.collect(ScriptedPolicy(), instances([0, 1, 2]))
        assert errors == [] and rollouts.restarts == 1
        assert [key(ep) for ep in episodes] == clean(instances([0, 1, 2]))
        os.kill(rollouts.envs.processes[0].pid, signal.SIGKILL)
        rollouts.set_epoch(3)  # finds the dead worker: the next collect builds new ones
        episodes, errors = rollouts.collect(ScriptedPolicy(), instances([3, 4]))
        assert errors == [] and rollouts.restarts == 2
        assert [key(ep) for ep in episodes] == clean(instances([3, 4]))
    finally:
        rollouts.close()


def test_collect_without_rebuild_reports_what_it_could_not_run(tmp_path: Path) -> None:
    insts = instances([0, KILL, 1, 2, 3])
    envs = make_vector_env(functools.partial(faulty_env, str(tmp_path)), 2, "async")
    episodes, errors = collect(envs, ScriptedPolicy(), insts, max_retries=0)
    assert envs.closed
    # the KILL episode, the one under way beside it, and the three never started
    assert [inst.seed for inst, _ in errors] == [KILL, 0, 1, 2, 3] and episodes == []
    assert (
        errors[0][1]
        == f"task {insts[1].task} seed {KILL}: gave up after 1 attempt: its worker process died (killed by SIGKILL)"
    )
    assert all("not run: the vector env was lost" in why and "got no rebuild" in why for _, why in errors[1:])


def test_an_async_sub_env_that_cannot_be_built_is_a_clear_error() -> None:
    def only_in_this_process() -> gym.Env:
        if multiprocessing.parent_process() is not None:
            raise OSError("no emulator in the worker")
        return faulty_env()

    with pytest.raises(RuntimeError, match=r"could not be built.*make_env\(\)"):
        make_vector_env(only_in_this_process, 2, "async")


# -- hung sub-envs ---------------------------------------------------------------------------


def test_hung_async_workers_are_killed_and_their_episodes_retried(tmp_path: Path) -> None:
    insts = instances([0, HANG_ONCE, HANG_RESET_ONCE, 1])
    rollouts = local(tmp_path, "async", step_timeout_s=3)
    episodes, errors = run(rollouts, insts)
    assert errors == [] and rollouts.restarts == 2  # one hung step, one hung reset
    assert [key(ep) for ep in episodes] == clean(insts)


def test_an_episode_that_always_hangs_is_reported_and_the_others_collected(tmp_path: Path) -> None:
    insts = instances([0, HANG, 1, 2])
    rollouts = local(tmp_path, "async", step_timeout_s=3, max_retries=0)
    episodes, errors = run(rollouts, insts)
    assert errors == [
        (insts[1], f"task {insts[1].task} seed {HANG}: gave up after 1 attempt: it ran past step_timeout_s=3s")
    ]
    assert [key(ep) for ep in episodes] == clean([insts[0], insts[2], insts[3]])


def test_a_hung_sync_env_raises_a_clear_error_and_the_next_call_starts_afresh(tmp_path: Path) -> None:
    rollouts = local(tmp_path, "sync", step_timeout_s=3)
    try:
        with pytest.raises(EnvTimeoutError) as caught:
            rollouts.collect(ScriptedPolicy(), instances([0, HANG, 1]))
        assert HUNG.is_set()
        text = str(caught.value)
        assert text.startswith(
            f"task {TASKS[1]} seed {HANG}: sub-env 1: its step did not return within step_timeout_s=3s"
        )
        assert "vectorization='async'" in text
        assert rollouts.envs.closed
        episodes, errors = rollouts.collect(ScriptedPolicy(), instances([2, 3]))  # new sub-envs
        assert errors == [] and rollouts.restarts == 1
        assert [key(ep) for ep in episodes] == clean(instances([2, 3]))
    finally:
        rollouts.close()
