"""SB3 baselines: CandidateSlots spaces, masks and no-ops; MaskablePPO and PPO train on it."""

from __future__ import annotations

import sys

import gymnasium as gym
import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason='the SB3 baselines need stable-baselines3: pip install -e ".[sb3]"')
pytest.importorskip("sb3_contrib", reason='MaskablePPO needs sb3-contrib: pip install -e ".[sb3]"')

from gymnasium.utils.env_checker import check_env as gym_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from agents.sb3 import CandidateSlots, evaluate_sb3, make_sb3_env, train_sb3
from gui_gym.android.candidates import KINDS, candidate_actions

TASK = "SystemWifiTurnOn"


def slot_of(env: gym.Env, action: str) -> int:
    return [c.action for c in env.get_wrapper_attr("candidates")].index(action)


@pytest.mark.filterwarnings("ignore:.*is different from the unwrapped version")  # checking the wrapper is the point
def test_both_env_checkers_pass(tiny_encoder: str) -> None:
    env = make_sb3_env(task=TASK, reward="milestone", slots=32, encoder=tiny_encoder, monitor=False)
    gym_check_env(env, skip_render_check=True)
    sb3_check_env(make_sb3_env(task=TASK, reward="spa", slots=32, encoder=tiny_encoder), warn=True)
    assert env.observation_space.shape == (2 * 32 + 32 * (1 + len(KINDS) + 16 + 1),)
    assert env.action_space == gym.spaces.Discrete(32)


@pytest.mark.parametrize("slots", [16, 64])
def test_masks_and_features_mark_the_filled_slots(tiny_encoder: str, slots: int) -> None:
    env = make_sb3_env(task="easy", slots=slots, encoder=tiny_encoder, monitor=False)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=1)
    for _ in range(25):
        mask = env.action_masks()
        expected = candidate_actions(env.unwrapped.observe(), max_candidates=slots)[:slots]
        assert env.candidates == expected
        assert mask.dtype == bool and mask.shape == (slots,)
        np.testing.assert_array_equal(mask, np.arange(slots) < len(expected))
        parts = env.unflatten(obs)
        rows = parts["slots"]
        np.testing.assert_array_equal(rows[:, env.slot_layout["valid"]][:, 0] == 1.0, mask)
        np.testing.assert_array_equal(rows[:, env.slot_layout["kind"]].sum(axis=1), mask.astype(np.float32))
        assert np.all(rows[~mask] == 0.0)
        assert obs in env.observation_space
        obs, _, term, trunc, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if term or trunc:
            obs, _ = env.reset()


def test_unflatten_keeps_batch_dims(tiny_encoder: str) -> None:
    env = CandidateSlots(gym.make("GuiAndroid-v0", task=TASK), slots=8, encoder=tiny_encoder, proj_dim=4)
    obs, _ = env.reset(seed=0)
    parts = env.unflatten(np.stack([obs, obs, obs]))
    assert parts["goal"].shape == parts["screen"].shape == (3, env.dim)
    assert parts["slots"].shape == (3, 8, env.slot_size)
    goal, cand = parts["goal"][0], env.encoder.encode([env.candidates[0].label])[0]
    assert parts["slots"][0, 0, 0] == pytest.approx(float(goal @ cand), abs=1e-5)


@pytest.mark.parametrize("action", [63, 99, -1, 2.0, "tap", np.array([0, 1])])
def test_an_invalid_or_empty_slot_is_a_spent_no_op(tiny_encoder: str, action: object) -> None:
    env = make_sb3_env(task=TASK, reward="milestone", slots=64, encoder=tiny_encoder, max_steps=2, monitor=False)
    env.reset(seed=0)
    assert not env.action_masks()[63], "slot 63 must be empty on the home screen for this test"
    screen = env.unwrapped.observe()
    _, r, term, trunc, info = env.step(action)
    assert info["format_valid"] is False and not (term or trunc)
    assert env.unwrapped.observe() == screen
    assert info["reward_components"]["format"] < 0 and r == pytest.approx(sum(info["reward_components"].values()))
    _, _, term, trunc, info = env.step(action)
    assert trunc and not term and info["is_success"] is False  # both steps were spent


def test_slots_map_to_their_actions_and_info_passes_through(tiny_encoder: str) -> None:
    env = make_sb3_env(task=TASK, reward="progress", slots=64, encoder=tiny_encoder)
    env.reset(seed=0)
    done, total = False, 0.0
    while not done:
        _, r, term, trunc, info = env.step(slot_of(env, env.unwrapped.oracle_action()))
        total, done = total + float(r), term or trunc
        assert set(info["reward_components"]) == {"outcome", "progress"}
    assert info["success"] is True and info["is_success"] is True and info["progress"] == 1.0
    assert info["episode"]["r"] == pytest.approx(total)  # Monitor outermost


def test_maskable_ppo_learns_and_predicts_only_masked_valid_slots(tiny_encoder: str) -> None:
    env = make_sb3_env(task=TASK, reward="progress", slots=32, encoder=tiny_encoder, seed=0)
    model = train_sb3(
        "maskable_ppo",
        env,
        total_timesteps=2048,
        n_steps=512,
        batch_size=256,
        n_epochs=2,
        policy_kwargs={"net_arch": [64]},
    )
    assert model.num_timesteps >= 2048
    assert len(model.ep_info_buffer) > 0 and len(model.ep_success_buffer) > 0  # Monitor and is_success reach SB3
    stats = evaluate_sb3(model, env, episodes=8, deterministic=False, seed=3)
    assert stats["empty_slot_rate"] == 0.0 and stats["mean_length"] > 0
    obs, _ = env.reset(seed=4)
    only = np.zeros(32, dtype=bool)
    only[5] = True  # a mask with one legal slot leaves the policy no choice
    for _ in range(5):
        action, _ = model.predict(obs, deterministic=False, action_masks=only)
        assert int(action) == 5


def test_plain_ppo_learns_without_masks(tiny_encoder: str) -> None:
    env = make_sb3_env(task=TASK, reward="spa", slots=32, encoder=tiny_encoder, seed=0)
    model = train_sb3("ppo", env, total_timesteps=256, n_steps=128, batch_size=64, n_epochs=1)
    stats = evaluate_sb3(model, env, episodes=2)
    assert model.num_timesteps >= 256 and 0.0 <= stats["empty_slot_rate"] <= 1.0


def test_helpful_errors(tiny_encoder: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="obs_mode='text'"):
        CandidateSlots(gym.make("GuiAndroid-v0", task=TASK, obs_mode="pixels"), encoder=tiny_encoder)
    with pytest.raises(ValueError, match="unknown reward term"):
        make_sb3_env(task=TASK, reward="dense", encoder=tiny_encoder)
    with pytest.raises(ValueError, match="algo must be one of"):
        train_sb3("dqn", object())
    with pytest.raises(TypeError, match="encoder must be"):
        CandidateSlots(gym.make("GuiAndroid-v0", task=TASK), encoder=42)
    monkeypatch.setitem(sys.modules, "sb3_contrib", None)  # as if it were not installed
    with pytest.raises(ImportError, match=r'pip install -e "\.\[sb3\]"'):
        train_sb3("maskable_ppo", object())


def test_candidate_slots_work_on_another_family(tiny_encoder: str) -> None:
    """The slots, kinds, text and instruction come from the env's family: TextRooms has no screen."""
    import textrooms

    env = make_sb3_env(task="FetchApple", reward="milestone+spa", slots=8, encoder=tiny_encoder, env_id="TextRooms-v0")
    sb3_check_env(env, warn=True)
    obs, _ = env.reset(seed=0)
    slots = env.get_wrapper_attr("candidates")
    assert [c.action for c in slots][:1] == ["go to the kitchen"] and env.get_wrapper_attr(
        "action_masks"
    )().sum() == len(slots)
    assert obs.shape == (2 * 32 + 8 * (1 + len(textrooms.KINDS) + 16 + 1),)
