"""Group samplers: uniform draws, the failure curriculum, per-rollout reset options, checkpointed state."""

from __future__ import annotations

from collections import Counter
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
import torch

from agents.collect import Episode, Instance, collect, make_vector_env
from agents.policies.base import Decision
from agents.sampling import TRAIN_SEED_BASE, FCFSampler, GroupSampler, UniformSampler, make_sampler
from gui_gym.core.contract import TASK


def _ep(task: str, outcome: float) -> Episode:
    d = [Decision("finish()", "finish", np.zeros(1, np.float32))]
    return Episode(Instance(task, 1), task, "easy", d, np.array([outcome]), {"outcome": np.array([outcome])},
                   bool(outcome), False, 0)  # fmt: skip


def test_uniform_draws_groups_of_one_instance_without_replacement():
    tasks = ["A", "B", "C", "D"]
    batch = UniformSampler().sample(tasks, n_groups=3, group_size=2, rng=np.random.default_rng(1), first_group=5)
    assert [(i.group, i.member) for i in batch] == [(5, 0), (5, 1), (6, 0), (6, 1), (7, 0), (7, 1)]
    groups = [batch[k : k + 2] for k in range(0, 6, 2)]
    assert all(a.task == b.task and a.seed == b.seed for a, b in groups)  # a group shares its instance
    assert len({g[0].task for g in groups}) == 3  # 3 of 4 tasks: no repeats
    assert all(TRAIN_SEED_BASE <= i.seed < 2**31 - 1 and i.options is None for i in batch)
    # the draw is the generator's: the same generator state gives the same instances
    again = UniformSampler().sample(tasks, 3, 2, np.random.default_rng(1), first_group=5)
    assert [(i.task, i.seed) for i in again] == [(i.task, i.seed) for i in batch]
    rng = np.random.default_rng(1)
    assert [g[0].task for g in groups] == [str(t) for t in rng.choice(tasks, size=3, replace=False)]


def test_uniform_draws_with_replacement_when_more_groups_than_tasks():
    batch = UniformSampler().sample(["A", "B"], n_groups=400, group_size=1, rng=np.random.default_rng(0))
    counts = Counter(i.task for i in batch)
    assert set(counts) == {"A", "B"} and abs(counts["A"] - 200) < 40
    with pytest.raises(ValueError, match="no tasks"):
        UniformSampler().sample([], 1, 1, np.random.default_rng(0))


def test_fcf_down_weights_then_removes_tasks_that_keep_failing():
    sampler = make_sampler("fcf")
    assert isinstance(sampler, FCFSampler) and isinstance(sampler, GroupSampler)
    metrics = []
    for _epoch in range(5):  # "hard" always fails, "easy" sometimes succeeds
        sampler.observe([_ep("hard", 0.0), _ep("hard", 0.0), _ep("easy", 1.0), _ep("easy", 0.0)])
        metrics.append(sampler.end_epoch())
        assert not sampler.epoch_outcomes  # an epoch's outcomes are used once
    # f = 2, 3, 4 are cooldown epochs at weight exp(−f); f = 5 (2 + 3) removes the task
    assert [m["fcf_cooldown"] for m in metrics] == [0, 1, 1, 1, 0]
    assert [m["fcf_removed"] for m in metrics] == [0, 0, 0, 0, 1]
    assert sampler.curriculum.weights(["hard", "easy"]).tolist() == [0.0, 1.0]
    batch = sampler.sample(["hard", "easy"], n_groups=20, group_size=1, rng=np.random.default_rng(0))
    assert {i.task for i in batch} == {"easy"}


def test_fcf_weights_shape_the_draws():
    sampler = FCFSampler(fail_epochs=1, cooldown=5)
    for _ in range(2):
        sampler.observe([_ep("hard", 0.0)])
        sampler.end_epoch()
    w = np.exp(-2.0)  # f = 2
    batch = sampler.sample(["hard", "easy"], n_groups=4000, group_size=1, rng=np.random.default_rng(0))
    share = sum(i.task == "hard" for i in batch) / len(batch)
    assert share == pytest.approx(w / (1 + w), abs=0.02)


def test_sampler_state_round_trips():
    a = FCFSampler()
    for _ in range(3):
        a.observe([_ep("hard", 0.0)])
        a.end_epoch()
    a.observe([_ep("easy", 1.0)])  # mid-epoch outcomes are state too
    b = make_sampler("fcf")
    b.load_state_dict(a.state_dict())
    assert b.curriculum.failures == {"hard": 3} and dict(b.epoch_outcomes) == {"easy": [1.0]}
    assert b.sample(["hard", "easy"], 5, 1, np.random.default_rng(3)) == a.sample(
        ["hard", "easy"], 5, 1, np.random.default_rng(3)
    )
    with pytest.raises(ValueError, match="unknown sampler"):
        make_sampler("stratified")


class GuidedSampler(UniformSampler):
    """Half of each group gets a hint in its reset options (a stratified-guidance sampler in miniature)."""

    name = "guided"

    def options(self, task: str, group: int, member: int) -> dict[str, Any] | None:
        return {"hint": member % 2 == 0, TASK: "ignored: the instance's own task wins"}


class RecordOptions(gym.Wrapper):
    """Keeps every ``reset`` option dict the env received."""

    def __init__(self, env: gym.Env, log: list[dict[str, Any]]) -> None:
        super().__init__(env)
        self.log = log

    def reset(self, *, seed=None, options=None):
        self.log.append(dict(options or {}))
        return self.env.reset(seed=seed, options={TASK: options[TASK]} if options and TASK in options else None)


class Finisher:
    def decide(self, observations, histories, greedy=False, rng=None):
        return [Decision("finish()", "finish", np.zeros(1, np.float32)) for _ in observations]


def test_per_rollout_options_reach_reset_with_the_task():
    seen: list[dict[str, Any]] = []
    envs = make_vector_env(lambda: RecordOptions(gym.make("GuiAndroid-v0", task="easy"), seen), 2)
    tasks = ["SystemWifiTurnOn", "ClockStopWatchRunning"]
    instances = GuidedSampler().sample(tasks, n_groups=2, group_size=2, rng=np.random.default_rng(0))
    episodes, errors = collect(envs, Finisher(), instances)
    envs.close()
    assert not errors and len(episodes) == 4
    got = [o for o in seen if "hint" in o]  # the vector env's own first reset has none
    assert sorted((o[TASK], o["hint"]) for o in got) == sorted((i.task, i.member % 2 == 0) for i in instances)
    assert [ep.task_id for ep in episodes] == [i.task for i in instances]
    # options do not change an instance's identity (group and member do)
    assert Instance("T", 1, 0, 0, {"a": 1}) == Instance("T", 1, 0, 0) and len({*instances}) == 4


def test_the_algorithm_picks_the_default_sampler_and_fcf_state_survives_resume(tmp_path, tiny_encoder):
    from agents.train import TrainConfig, Trainer

    torch.set_num_threads(1)
    base = dict(tasks="SystemWifiTurnOn,ClockStopWatchRunning", tasks_per_iter=2, group_size=2, num_envs=2,
                max_steps=2, eval_every=0, encoder=tiny_encoder, hidden=8, progress=False)  # fmt: skip
    grpo = Trainer(TrainConfig(**base, iterations=1, out=str(tmp_path / "g")))
    assert type(grpo.sampler) is UniformSampler
    grpo.close()
    forced = Trainer(TrainConfig(**base, sampler="fcf", iterations=1, out=str(tmp_path / "f")))
    assert type(forced.sampler) is FCFSampler
    forced.close()

    # one step solves nothing: every epoch (one iteration of the one task) is a failure
    cfg = TrainConfig(**{**base, "tasks": "SystemWifiTurnOn", "tasks_per_iter": 1, "max_steps": 1},
                      algo="adagrpo", iterations=2, out=str(tmp_path / "a"))  # fmt: skip
    first = Trainer(cfg)
    assert type(first.sampler) is FCFSampler
    first.run()
    assert first.sampler.curriculum.failures == {"SystemWifiTurnOn": 2}
    resumed = Trainer(TrainConfig(**{**cfg.__dict__, "iterations": 3}), resume=True)
    assert resumed.sampler.curriculum.failures == {"SystemWifiTurnOn": 2}
    row = resumed.iterate()
    resumed.close()
    assert row["fcf_cooldown"] == 1 and resumed.sampler.curriculum.failures == {"SystemWifiTurnOn": 3}
