"""The named algorithms as objects: settings, each hook with hand-computed values, a new one in one line."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
import torch

from agents.algos import ALGORITHMS, Algorithm, ReplayBuffer, Round, algorithm
from agents.algos.grpo import GRPO
from agents.algos.reinforce_pp import terminal_rewards
from agents.collect import Episode, Instance
from agents.policies.base import Decision


def _ep(group: int, rewards: list[float], success: bool, member: int = 0, outcome: float | None = None) -> Episode:
    n = len(rewards)
    o = float(success) if outcome is None else outcome
    decisions = [Decision("finish()", "finish", np.zeros(1, np.float32)) for _ in range(n)]
    return Episode(Instance("T", 1, group, member), "T", "easy", decisions, np.asarray(rewards, float),
                   {"outcome": np.full(n, o)}, success, False, 0)  # fmt: skip


def test_settings_of_each_named_algorithm():
    table = {name: (a.aggregation, a.clip_low, a.clip_high, a.kl_coef, a.sampler, a.kl_in_reward)
             for name, a in ALGORITHMS.items()}  # fmt: skip
    assert table == {
        "grpo": ("trajectory-mean", 0.2, 0.2, 0.0, "uniform", False),
        "rloo": ("trajectory-mean", 0.2, 0.2, 0.0, "uniform", False),
        "dapo": ("token-mean", 0.2, 0.28, 0.0, "uniform", False),
        "reinforce++": ("token-mean", 0.2, 0.2, 0.001, "uniform", True),
        "adagrpo": ("trajectory-mean", 0.2, 0.2, 0.001, "fcf", False),
        "empo": ("token-mean", 0.2, 0.2, 0.0001, "uniform", False),  # EMPO Table 13
        "empo-code": ("token-mean", 0.2, 0.2, 0.0001, "uniform", False),
    }
    step = algorithm("DAPO", level="step")
    assert (step.level, step.aggregation, step.clip_high) == ("step", "token-mean", 0.28)
    assert algorithm("grpo") is ALGORITHMS["grpo"]  # the trajectory level is the registered object itself
    for name in ("rloo", "reinforce++", "adagrpo"):
        with pytest.raises(ValueError, match="step-level"):
            algorithm(name, level="step")
    with pytest.raises(ValueError, match="level"):
        algorithm("grpo", level="token")
    with pytest.raises(ValueError, match="choose from"):
        algorithm("ppo2")


def test_dapo_keeps_only_groups_with_reward_variance():
    groups = [
        [_ep(0, [1.0], True), _ep(0, [1.0], True, 1)],
        [_ep(1, [1.0], True), _ep(1, [0.0], False, 1)],
        [_ep(2, [0.0], False)],
    ]
    assert algorithm("dapo").keep_groups(groups) == [False, True, False]
    assert algorithm("grpo").keep_groups(groups) is None  # one round, nothing dropped


def test_group_advantages_by_hand():
    eps = [
        _ep(0, [1.0, 1.0], True),
        _ep(0, [0.0], False, 1),
        _ep(1, [0.5], False, outcome=0.0),
        _ep(1, [0.0], False, 1),
    ]
    s = 1 / math.sqrt(2)  # std([1, 0], ddof=1) and std([.5, 0]) / .5
    grpo = algorithm("grpo").advantages(eps)
    assert [a.round(4).tolist() for a in grpo] == [[round(s, 4)] * 2, [round(-s, 4)], [round(s, 4)], [round(-s, 4)]]
    rloo = algorithm("rloo").advantages(eps)  # G = 2: R_i − R_other
    assert [a.tolist() for a in rloo] == [[1.0, 1.0], [-1.0], [0.5], [-0.5]]


def test_adagrpo_advantage_uses_spa_with_the_given_alpha():
    # lengths 2 and 4, both successful: SPA (α = 1) gives R = 1 and 2/4 = .5; std(ddof=1) = .3536
    eps = [_ep(0, [1.0] * 2, True), _ep(0, [1.0] * 4, True, 1)]
    adv = algorithm("adagrpo").advantages(eps, spa_alpha=1.0)
    assert np.allclose(adv[0], [0.25 / (0.5 / math.sqrt(2) + 1e-6)] * 2) and len(adv[1]) == 4
    assert np.allclose(algorithm("grpo").advantages(eps)[0], [0.0, 0.0])  # plain GRPO: equal returns


def test_reinforce_pp_puts_the_kl_in_the_reward():
    eps = [_ep(0, [1.0, 1.0], True), _ep(1, [0.0], False)]
    assert terminal_rewards(eps[0]).tolist() == [0.0, 1.0]  # the broadcast outcome once, at the end
    kl = [[np.array([0.5]), np.array([0.5])], [np.array([0.0])]]  # per episode, per step, per token (k1)
    adv = algorithm("reinforce++").advantages(eps, kl=kl, kl_coef=0.1)
    g = np.array([0.9, 0.95, 0.0])  # returns of r − 0.1·kl = [−.05, .95] and [0]
    expected = (g - g.mean()) / (g.std(ddof=1) + 1e-8)
    assert np.allclose(np.concatenate([np.concatenate(steps) for steps in adv]), expected)


def test_adagrpo_select_replays_then_prunes_and_after_update_offers_the_round():
    algo = algorithm("adagrpo")
    replay: ReplayBuffer[Episode] = ReplayBuffer(capacity=8, kappa=1.0)  # max age 1 round
    old = [_ep(9, [1.0], True), _ep(9, [1.0], True, 1)]
    for ep, a in zip(old, [2.0, 1.5], strict=True):
        ep.advantages = np.full(ep.length, a)
    assert replay.add(old, [2.0, 1.5], iteration=0) == 2
    now = [_ep(0, [1.0], True), _ep(0, [0.0], False, 1), _ep(1, [0.0], False), _ep(1, [0.0], False, 1)]
    for ep, a in zip(now, [1.0, -1.0, -2.0, -0.5], strict=True):
        ep.advantages = np.full(ep.length, a)
    rnd = Round(1, np.random.default_rng(0), replay, replay_gamma=0.5, prune_ratio=0.5)
    batch = algo.select(now, rnd)
    # ⌊0.5·4⌋ = 2 replayed (both old ones); 3 positives × 0.5 → 1 negative kept, the highest (−0.5)
    assert batch == [now[0], now[3], old[0], old[1]]
    assert rnd.stats == {"replayed": 2, "pruned": 2}
    algo.after_update(now, rnd)
    assert rnd.stats["replay_entered"] == 1 and rnd.stats["replay_size"] == 1  # only A > 0 enters
    assert replay.sample(1) == [now[0]]
    # the other algorithms train on the round's rollouts as they are and keep no buffer
    rnd = Round(1, np.random.default_rng(0), replay)
    assert algorithm("grpo").select(now, rnd) == now and rnd.stats == {}


@dataclass(frozen=True)
class SignGRPO(GRPO):
    """A new algorithm for the test: GRPO with only the sign of the advantage."""

    def group_advantages(self, episodes, *, spa_alpha=1.0):
        return [np.sign(a) for a in super().group_advantages(episodes, spa_alpha=spa_alpha)]


def test_a_new_algorithm_is_one_class_and_one_registry_line(tmp_path, tiny_encoder, monkeypatch):
    from agents.train import TrainConfig, Trainer

    monkeypatch.setitem(ALGORITHMS, "sign-grpo", SignGRPO("sign-grpo"))
    eps = [_ep(0, [1.0], True), _ep(0, [0.0], False, 1), _ep(0, [0.0], False, 2)]
    assert [a.tolist() for a in algorithm("sign-grpo").advantages(eps)] == [[1.0], [-1.0], [-1.0]]
    torch.set_num_threads(1)
    cfg = TrainConfig(tasks="SystemWifiTurnOn", algo="sign-grpo", iterations=1, tasks_per_iter=1, group_size=2,
                      num_envs=2, max_steps=3, eval_every=0, out=str(tmp_path / "run"), encoder=tiny_encoder,
                      hidden=8, progress=False)  # fmt: skip
    trainer = Trainer(cfg)
    assert isinstance(trainer.algo, SignGRPO)
    assert trainer.run()["iterations"] == 1


def test_the_base_class_is_a_zero_advantage_algorithm():
    eps = [_ep(0, [1.0, 1.0], True), _ep(0, [0.0], False, 1)]
    assert [a.tolist() for a in Algorithm("none").advantages(eps)] == [[0.0, 0.0], [0.0]]
