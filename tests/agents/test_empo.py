"""EMPO's trainer side: Eq. 6 by hand (both variants), dynamic sampling, patched histories reaching
the policy through a real vector env, and a short ``--algo empo`` run on ``GuiExperience-v0``."""

from __future__ import annotations

import json
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401
from agents.algos.empo import EMPO, dual_level_advantages, first_step_spread
from agents.algos.registry import algorithm
from agents.collect import Episode, Instance, collect, make_vector_env
from agents.policies.base import Decision, history_entry
from gui_gym.experience.record import Experience, ExpertStep, UIAction


def test_eq6_by_hand_paper_variant() -> None:
    # three rollouts of one experience; returns R_t (Eq. 5) and rewards r_t
    R = [np.array([1.5, 1.0]), np.array([1.0, 0.1]), np.array([0.1])]
    r = [np.array([1.0, 1.0]), np.array([1.0, 0.1]), np.array([0.1])]
    a = dual_level_advantages(R, r)
    # step 0 over 1.5, 1, 0.1: mean 0.8667, sd (n-1) = 0.7095
    m0, s0 = np.mean([1.5, 1.0, 0.1]), np.std([1.5, 1.0, 0.1], ddof=1)
    # step 1 over the two that reached it: ±0.7071
    # episode over Σr = 2, 1.1, 0.1: mean 1.0667, sd 0.9504
    me, se = np.mean([2.0, 1.1, 0.1]), np.std([2.0, 1.1, 0.1], ddof=1)
    assert a[0] == pytest.approx([(1.5 - m0) / s0 + (2 - me) / se, 0.70710 + (2 - me) / se], abs=1e-4)
    assert a[2] == pytest.approx([(0.1 - m0) / s0 + (0.1 - me) / se], abs=1e-5)
    # a lone rollout: both terms 0
    assert dual_level_advantages([np.array([1.0, 0.5])], [np.array([1.0, 0.5])])[0].tolist() == [0.0, 0.0]
    # ω_s = 0 leaves the episode term alone (the paper's ablation)
    only_episode = dual_level_advantages(R, r, omega_step=0.0)
    assert only_episode[1] == pytest.approx([(1.1 - me) / se] * 2, abs=1e-5)


def test_eq6_released_variant_normalises_each_step_reward_over_the_group() -> None:
    R = [np.array([1.5, 1.0]), np.array([1.0, 0.1])]
    r = [np.array([1.0, 1.0]), np.array([1.0, 0.1])]
    a = dual_level_advantages(R, r, variant="released")
    flat = np.array([1.0, 1.0, 1.0, 0.1])  # mean 0.775, sd (n-1) 0.45
    e = (flat - flat.mean()) / (flat.std(ddof=1) + 1e-6)
    assert np.concatenate(a) == pytest.approx(np.array([0.70710, 0.70710, -0.70710, -0.70710]) + e, abs=1e-4)
    # a lone step is its own value over 1 + 1e-6 (the released code's mean 0, std 1 for a group of
    # one; its sum is float32's, 1 + 2**-20)
    lone = dual_level_advantages([np.array([0.9])], [np.array([0.9])], variant="released")[0]
    assert lone.tolist() == [0.9 / (1 + 2**-20)]
    with pytest.raises(ValueError, match="variant"):
        dual_level_advantages(R, r, variant="other")


def _episode(returns: list[float], group: int = 0, member: int = 0) -> Episode:
    n = len(returns)
    return Episode(
        Instance("E", 0, group, member), "E", "easy", [None] * n, np.array(returns), {}, False, False, 0,
        step_rewards=np.array(returns),
    )  # fmt: skip


def test_dynamic_sampling_keeps_groups_whose_first_returns_spread_beyond_eta() -> None:
    algo = algorithm("empo")
    assert isinstance(algo, EMPO) and algo.aggregation == "token-mean" and algo.kl_coef == 1e-4
    flat = [_episode([1.0, 1.0]), _episode([1.0, 0.5], member=1)]  # R_1 equal: σ = 0
    wide = [_episode([1.75], 1), _episode([0.1], 1, 1)]  # σ = 0.825
    narrow = [_episode([1.0], 2), _episode([0.5], 2, 1)]  # σ = 0.25 ≤ 0.3
    assert first_step_spread(wide) == pytest.approx(0.825)
    code = algorithm("empo-code")
    assert code.variant == "released"
    assert code.keep_groups([flat, wide, narrow, [_episode([1.0], 3)]]) == [False, True, False, True]
    # the paper's σ is over the advantages, every step: the first group differs at its second step
    # (A = ±0.7071 there and on Σr: σ = 0.866), a lone rollout's advantages are 0
    assert algo.keep_groups([flat, wide, narrow, [_episode([1.0], 3)]]) == [True, True, True, False]
    assert algo.keep_groups([[_episode([1.0, 1.0]), _episode([1.0, 1.0], member=1)]]) == [False]


def _toy(n: int = 3) -> Experience:
    ui = (
        '<hierarchy><node text="Go" class="android.widget.Button" clickable="true" '
        'bounds="[100,100][300,200]"/></hierarchy>'
    )
    steps = tuple(ExpertStep(UIAction("click", point=(200, 150)), ui=ui) for _ in range(n))
    return Experience("toy/0", "press go", steps, source="ui-s1", difficulty="easy")


def _toy_env() -> gym.Env:
    return gym.make("GuiExperience-v0", data=[_toy()], patch_threshold=None)


class Recorder:
    """Waits every step (always wrong) and records the histories it is shown."""

    def __init__(self) -> None:
        self.seen: list[list[str]] = []

    def decide(self, observations: Any, histories: Any, greedy: bool = False, rng: Any = None) -> list[Decision]:
        out = []
        for h in histories:
            self.seen.append([d.label for d in h])
            out.append(Decision('{"action": "wait"}', "wait", np.zeros(1, np.float32)))
        return out


def test_patched_steps_reach_the_policy_history_as_the_experts_action() -> None:
    policy = Recorder()
    envs = make_vector_env(_toy_env, 2)
    episodes, errors = collect(envs, policy, [Instance("toy/0", 0), Instance("toy/0", 1, member=1)])
    envs.close()
    assert not errors and len(episodes) == 2
    label = '<action>{"action": "click", "coordinate": [200, 150]}</action>'
    assert [label, label] in policy.seen  # the third step sees two patched steps
    ep = episodes[0]
    assert [d.label for d in ep.decisions] == ["wait"] * 3  # what trains is the policy's own
    assert ep.step_rewards.tolist() == [0.1, 0.1, 0.1] and ep.rewards.tolist() == [0.1, 0.1, 0.1]


def test_a_short_empo_run_on_the_embedded_set(tmp_path, tiny_encoder) -> None:
    from agents.train import TrainConfig, Trainer, policy_from_run

    cfg = TrainConfig(
        env_id="GuiExperience-v0", tasks="train:ClockStopWatchRunning,train:SystemWifiTurnOn", algo="empo",
        iterations=2, tasks_per_iter=2, group_size=3, num_envs=2, eval_every=0, eval_episodes=0,
        encoder=tiny_encoder, hidden=16, out=str(tmp_path / "run"), progress=False, max_resample=1,
    )  # fmt: skip
    trainer = Trainer(cfg)
    trainer.run()
    rows = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    trained = [m for m in rows if m.get("iteration", -1) >= 0 and "episodes" in m]
    assert len(trained) == 2 and all("zero_variance_groups" in m for m in trained)
    policy, saved = policy_from_run(tmp_path / "run")
    assert saved.algo == "empo" and isinstance(policy.act({"instruction": "x", "ui": ""}, {}), str)


def test_an_lm_policy_prompt_shows_the_patched_action(tmp_path) -> None:
    """A transformers policy on GuiExperience-v0: EMPO's prompt, and after a patch its history holds
    the expert's action, not its own."""
    from agents.policies import LMPolicy
    from agents.policies.tiny_lm import tiny_lm

    path = tiny_lm(tmp_path / "lm", vocab="actions", family="GuiExperience-v0")
    policy = LMPolicy(path, family="GuiExperience-v0", device="cpu", max_new_tokens=8, max_prompt_tokens=2000)
    env = gym.make("GuiExperience-v0", data=[_toy()], invalid="mismatch")  # garbage is patched too
    obs, info = env.reset(seed=0)
    policy.reset(0)
    action = policy.act(obs, info)
    obs, _, _, _, info = env.step(action)
    assert info["patched"]  # a random tiny model does not click Go (nor write an action)
    prompt = policy.tokenizer.decode(policy.encode_prompt(obs, [history_entry(policy._history[-1], info)]))
    assert '"action": "click", "coordinate": [200, 150]' in prompt and "<think>" in policy.family.action_prompt()
    policy.act(obs, info)  # act() itself swaps the patched step in
    assert policy._history[0].label == info["patch_label"]


def test_the_step_term_compares_actions_at_one_expert_step_not_one_env_step() -> None:
    # A spends a step on garbage (a no-op at expert step 0), then plays the expert; B plays the expert
    R = [np.array([0.0, 1.875, 1.75, 1.5, 1.0]), np.array([1.875, 1.75, 1.5, 1.0])]
    r = [np.array([0.0, 1.0, 1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0, 1.0])]
    a = dual_level_advantages(R, r, step_indices=[np.array([0, 0, 1, 2, 3]), np.array([0, 1, 2, 3])])
    # step 0 over 0, 1.875, 1.875: the garbage −1.1547, the others +0.5774; later steps tie: 0;
    # Σr = 4 for both: no episode term
    assert a[0] == pytest.approx([-1.1547, 0.5774, 0, 0, 0], abs=1e-4)
    assert a[1] == pytest.approx([0.5774, 0, 0, 0], abs=1e-4)
    ep = _episode([0.0, 1.875, 1.75])
    ep.step_indices = np.array([0, 0, 1])
    assert first_step_spread([ep, _episode([0.875], member=1)]) == pytest.approx(0.5)  # R_1 = 1.875 vs 0.875
