"""The candidate policy and the transformers LM policy act on ALFWorld-v0 through its family alone."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import numpy as np

import gui_gym  # noqa: F401
from agents.policies import CandidatePolicy
from agents.policies.lm import LMPolicy
from agents.policies.tiny_lm import tiny_lm
from gui_gym.core import contract as C


def test_candidate_policy_chooses_admissible_commands(tiny_encoder: str) -> None:
    env = gym.make("ALFWorld-v0", split="eval_in_distribution")
    policy = CandidatePolicy("ALFWorld-v0", tiny_encoder, hidden=8, seed=0)
    obs, info = env.reset(seed=0)
    for _ in range(6):
        (decision,) = policy.decide([obs], [[]])
        assert decision.action in info[C.ADMISSIBLE_ACTIONS]
        obs, _, terminated, truncated, info = env.step(decision.action)
        assert info[C.FORMAT_VALID]
        if terminated or truncated:
            break


def test_lm_policy_prompt_holds_the_task_text_and_admissible_commands(tmp_path: Path) -> None:
    policy = LMPolicy(tiny_lm(tmp_path / "lm"), family="ALFWorld-v0", device="cpu", max_new_tokens=6)
    env = gym.make("ALFWorld-v0", split="eval_in_distribution")
    obs, info = env.reset(seed=0)
    screen = policy._screen_of(obs)
    assert screen.startswith(obs["text"]) and info[C.ADMISSIBLE_ACTIONS][0] in screen
    assert "admissible command" in policy.system_prompt
    (decision,) = policy.decide([obs], [[]], rng=np.random.default_rng(0))
    _, _, _, _, info = env.step(decision.action)  # whatever it wrote: a step, never an exception
    assert isinstance(info[C.FORMAT_VALID], bool)
