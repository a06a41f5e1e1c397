"""RayRollouts against LocalRollouts on one local 2-CPU Ray cluster: same episodes, weights
broadcast, crashed / killed / stuck actors replaced and their instances retried or reported."""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch
from torch import nn

from agents.collect import Episode, Instance
from agents.policies.base import Decision
from agents.train import LocalRollouts
from gui_gym.android.candidates import candidate_actions
from wrappers.spec import make_env

ray = pytest.importorskip("ray")

from agents.distributed import RayRollouts  # noqa: E402

TASKS = ["ContactsFavorite", "SystemWifiTurnOn", "ContactsDeleteContact"]
MAX_STEPS = 5
DIM = 32


# -- what runs inside the actors (this module is pickled by value: workers cannot import it) --


class BagPolicy(nn.Module):
    """A small TrainablePolicy: softmax over the screen's candidates, a linear layer over the
    hashed words of each candidate's label."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__()
        self.linear = nn.Linear(DIM, 1)
        with torch.no_grad():
            g = torch.Generator().manual_seed(seed)
            self.linear.weight.copy_(torch.randn(1, DIM, generator=g))
            self.linear.bias.zero_()

    @staticmethod
    def features(labels: Sequence[str]) -> torch.Tensor:
        x = torch.zeros(len(labels), DIM)
        for i, label in enumerate(labels):
            for word in label.split():
                x[i, zlib.crc32(word.encode()) % DIM] += 1.0
        return x

    def _logp(self, labels: Sequence[str]) -> torch.Tensor:
        return torch.log_softmax(self.linear(self.features(labels)).squeeze(1), dim=0)

    def decide(
        self,
        observations: Sequence[dict[str, Any]],
        histories: Sequence[Sequence[Decision]],
        greedy: bool = False,
        rng: Any = None,
    ) -> list[Decision]:
        rngs = rng if isinstance(rng, list | tuple) else [rng or np.random.default_rng(0)] * len(observations)
        out = []
        for obs, r in zip(observations, rngs, strict=True):
            cands = candidate_actions(obs)
            labels = tuple(c.label for c in cands)
            logp = self._logp(labels).detach().numpy().astype(np.float64)
            k = int(np.argmax(logp)) if greedy else int(r.choice(len(cands), p=np.exp(logp) / np.exp(logp).sum()))
            out.append(Decision(cands[k].action, cands[k].label, np.array([logp[k]], np.float32), (labels, k)))
        return out

    def log_probs(self, decisions: Sequence[Decision]) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        rows = [self._logp(d.data[0]) for d in decisions]
        logp = torch.stack([row[d.data[1]] for row, d in zip(rows, decisions, strict=True)]).unsqueeze(1)
        entropy = torch.stack([-(row.exp() * row).sum() for row in rows]).unsqueeze(1)
        return logp, torch.ones_like(logp), entropy

    def config(self) -> dict[str, Any]:
        return {}


# Seeds that make Faulty misbehave (only where it has a marker directory): "once" faults
# leave a file there so that the retry, in any process, runs clean.
CRASH_ONCE, CRASH, HANG_ONCE = 901, 902, 903
HANG_S = 300  # a hung step: only a timeout that works ends its episode well before this
SLOW = range(910, 920)


class Faulty(gym.Wrapper):
    """Kills its process at reset, hangs, or slows down on the seeds above, when given a
    ``marker_dir``; reports the wrapper epoch in every action description."""

    def __init__(self, env: gym.Env, marker_dir: str | None, delay: float) -> None:
        super().__init__(env)
        self.marker_dir, self.delay = marker_dir, delay
        self.epoch: int | None = None
        self.hang = self.slow = False

    def _first(self, seed: int) -> bool:
        """True for the first caller with this seed, in any process (exclusive file creation)."""
        try:
            os.close(os.open(os.path.join(str(self.marker_dir), str(seed)), os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return False
        return True

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        faulty = self.marker_dir is not None
        if faulty and (seed == CRASH or (seed == CRASH_ONCE and self._first(seed))):
            os._exit(1)  # the worker process dies without a word
        self.hang = faulty and seed == HANG_ONCE and self._first(seed)
        self.slow = faulty and seed in SLOW
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        if self.hang:
            time.sleep(HANG_S)
        if self.slow:
            time.sleep(self.delay)
        obs, reward, terminated, truncated, info = self.env.step(action)
        info["action_description"] = f"{info.get('action_description', '')}|epoch={self.epoch}"
        return obs, reward, terminated, truncated, info

    def set_epoch(self, epoch: int) -> None:
        self.epoch = epoch


def faulty_env(marker_dir: str | None = None, delay: float = 0.25) -> gym.Env:
    return Faulty(make_env("GuiAndroid-v0", tasks=TASKS, max_steps=MAX_STEPS), marker_dir, delay)


def broken_env() -> gym.Env:
    raise OSError("no emulator here")


# -- fixtures and helpers ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster() -> Any:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    module = sys.modules[__name__]
    ray.cloudpickle.register_pickle_by_value(module)
    yield ray
    ray.cloudpickle.unregister_pickle_by_value(module)
    ray.shutdown()


@pytest.fixture(scope="module")
def rollouts(cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Two actors shared by the tests (starting actors is what costs time). Their own policies
    start from another seed than the tests' policies: equal episodes need the broadcast weights."""
    make = functools.partial(faulty_env, marker_dir=str(tmp_path_factory.mktemp("faults")))
    # A generous timeout: a busy 2-core machine must not time out ordinary episodes.
    backend = RayRollouts(make, functools.partial(BagPolicy, seed=99), workers=2, episode_timeout_s=20, max_retries=1)
    yield backend
    backend.close()


def instances(seeds: Sequence[int]) -> list[Instance]:
    return [Instance(TASKS[g % len(TASKS)], seed, g, m) for g, seed in enumerate(seeds) for m in range(2)]


def local_run(
    policy: BagPolicy, insts: Sequence[Instance], epoch: int | None = None, greedy: bool = False
) -> list[Episode]:
    backend = LocalRollouts(faulty_env, 2)
    try:
        if epoch is not None:
            backend.set_epoch(epoch)
        episodes, errors = backend.collect(policy, insts, greedy=greedy)
    finally:
        backend.close()
    assert errors == []
    return episodes


def key(ep: Episode) -> tuple:
    """What must agree between backends: the instance, every action and reward, the outcome."""
    return (
        ep.instance,
        ep.task_id,
        ep.difficulty,
        tuple(d.action for d in ep.decisions),
        tuple(np.round(np.concatenate([d.logp for d in ep.decisions]), 5)),
        tuple(ep.rewards.tolist()),
        ep.success,
        ep.truncated,
    )


# -- tests ------------------------------------------------------------------------------------


def test_same_episodes_as_local_and_weights_are_broadcast(rollouts: Any) -> None:
    policy, insts = BagPolicy(seed=0), instances([100, 101, 102])
    got, errors = rollouts.collect(policy, insts)
    assert errors == []
    assert [ep.instance for ep in got] == insts
    assert all(ep.rewards.flags.writeable and ep.decisions[0].logp.flags.writeable for ep in got)  # plain arrays
    first = [key(ep) for ep in got]
    assert first == [key(ep) for ep in local_run(policy, insts)]

    with torch.no_grad():  # new weights: "go to the home screen" dominates every screen
        policy.linear.weight.zero_()
        policy.linear.weight[0, zlib.crc32(b"home") % DIM] = 50.0
    rollouts.set_epoch(3)
    got, errors = rollouts.collect(policy, insts, greedy=True, iteration=7)
    assert errors == [] and rollouts.restarts == 0
    assert all(d.action == 'do(action="Home")' for ep in got for d in ep.decisions)
    assert all(ep.iteration == 7 for ep in got)
    local = local_run(policy, insts, epoch=3, greedy=True)
    assert [key(ep) for ep in got] == [key(ep) for ep in local] != first
    assert [ep.descriptions for ep in got] == [ep.descriptions for ep in local]
    assert all(text.endswith("|epoch=3") for ep in got for text in ep.descriptions)


def test_crashed_worker_is_replaced_and_its_instance_retried(rollouts: Any) -> None:
    policy, insts = BagPolicy(seed=1), instances([103, CRASH_ONCE])
    before = rollouts.restarts
    got, errors = rollouts.collect(policy, insts)
    assert errors == []
    # both members of the CRASH_ONCE group: one crashed (once), the retry ran clean
    assert rollouts.restarts == before + 1
    assert [key(ep) for ep in got] == [key(ep) for ep in local_run(policy, insts)]


def test_instance_that_always_crashes_is_reported(rollouts: Any) -> None:
    policy, insts = BagPolicy(seed=2), [Instance(TASKS[0], 104, 0, 0), Instance(TASKS[1], CRASH, 1, 0)]
    before = rollouts.restarts
    rollouts.max_retries = 0  # give up at once (each retry costs a fresh actor)
    try:
        got, errors = rollouts.collect(policy, insts)
    finally:
        rollouts.max_retries = 1
    assert rollouts.restarts == before + 1
    assert [ep.instance for ep in got] == insts[:1]
    ((inst, why),) = errors
    assert inst == insts[1] and "gave up after 1 attempt:" in why and "died" in why


def test_stuck_episode_times_out_and_is_retried(rollouts: Any) -> None:
    policy, insts = BagPolicy(seed=3), [Instance(TASKS[1], HANG_ONCE, 0, 0), Instance(TASKS[0], 105, 1, 0)]
    before, t0 = rollouts.restarts, time.monotonic()
    rollouts.episode_timeout_s = 5.0  # a loaded machine still ends a normal episode in time
    try:
        got, errors = rollouts.collect(policy, insts)
    finally:
        rollouts.episode_timeout_s = 20.0
    # done long before the hang would end (the slack is for an actor restart on a loaded machine)
    assert time.monotonic() - t0 < HANG_S / 2 and rollouts.restarts == before + 1
    assert errors == []
    assert [key(ep) for ep in got] == [key(ep) for ep in local_run(policy, insts)]


def test_actor_killed_mid_collect(rollouts: Any) -> None:
    policy, insts = BagPolicy(seed=4), instances([SLOW[0]])  # ~1 s per episode
    before, doomed = rollouts.restarts, rollouts.actors[0]
    killer = threading.Timer(0.5, ray.kill, args=(doomed,), kwargs={"no_restart": True})
    killer.start()
    got, errors = rollouts.collect(policy, insts)
    killer.join()
    assert rollouts.restarts == before + 1 and doomed not in rollouts.actors
    assert errors == []
    assert [key(ep) for ep in got] == [key(ep) for ep in local_run(policy, insts)]


def test_no_actor_can_start(cluster: Any) -> None:
    with pytest.raises(RuntimeError, match=r"could not start any Ray rollout actor.*OSError: no emulator here"):
        RayRollouts(broken_env, BagPolicy, workers=1)


def test_bad_arguments_and_missing_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="workers"):
        RayRollouts(faulty_env, BagPolicy, workers=0)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray -> ImportError
    with pytest.raises(ImportError, match=r'pip install "ray>=2\.9"'):
        RayRollouts(faulty_env, BagPolicy)


def test_trainer_runs_with_ray(rollouts: Any, tiny_encoder: str, tmp_path: Path) -> None:
    from agents.train import TrainConfig, Trainer

    rollouts.close()  # free the cluster's CPUs for the trainer's own two backends
    cfg = TrainConfig(
        tasks="SystemWifiTurnOn", iterations=1, tasks_per_iter=1, group_size=2, max_steps=4,
        eval_every=1, eval_episodes=1, encoder=tiny_encoder, out=str(tmp_path), progress=False,
        ray=True, ray_workers=2,
    )  # fmt: skip
    summary = Trainer(cfg).run()
    assert summary["iterations"] == 1 and summary["last_eval"]["eval_episodes"] == 1
    assert (tmp_path / "checkpoint.pt").exists()
    assert ray.is_initialized()  # the trainer's backends leave alone a cluster they did not start
