"""UI-Mem's guidance reaches the policies' input: the LM's prompt shows it after the task (and
drops it before the instruction when the prompt has no room), the candidate policy's instruction
embedding reads it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import gui_gym  # noqa: F401
from agents.policies import CandidatePolicy, LMPolicy
from agents.policies.base import guidance_of
from agents.policies.tiny_lm import tiny_lm
from gui_gym.core import contract as C
from wrappers.memory import ExperienceMemory, GuidanceWrapper

ANDROID = "GuiAndroid-v0"


def guided_observation(level: str) -> dict:
    memory = ExperienceMemory()
    memory.add_workflow("SystemWifiTurnOn", ["Open Settings", "Turn Wi-Fi on"])
    env = GuidanceWrapper(gym.make(ANDROID, task="SystemWifiTurnOn"), memory)
    obs, _ = env.reset(seed=0, options={C.GUIDANCE: level})
    return obs


def test_the_lm_prompt_shows_the_guidance_after_the_task(tmp_path) -> None:
    path = tiny_lm(tmp_path, vocab="actions", family=ANDROID)
    policy = LMPolicy(path, family=ANDROID, device="cpu")
    guided, plain = guided_observation("weak"), guided_observation("none")
    assert guidance_of(guided) == "1.Open Settings\n2.Turn Wi-Fi on" and guidance_of(plain) == ""
    text = policy.tokenizer.decode(policy.encode_prompt(guided))
    assert "Task: Turn wifi on.\nGuidance:\n1.Open Settings\n2.Turn Wi-Fi on\nPrevious actions" in text
    assert "Guidance" not in policy.tokenizer.decode(policy.encode_prompt(plain))
    # a prompt too small for the guidance keeps the task and the screen, without the guidance
    small = LMPolicy(path, family=ANDROID, device="cpu", max_prompt_tokens=len(policy.encode_prompt(plain)) + 2)
    cramped = small.tokenizer.decode(small.encode_prompt({**guided, C.GUIDANCE: "Tip " * 400}))
    assert "Guidance" not in cramped and "Task: " in cramped


def test_the_candidate_policys_instruction_reads_the_guidance(tiny_encoder: str) -> None:
    policy = CandidatePolicy(ANDROID, tiny_encoder, hidden=8, seed=0)
    guided, plain = guided_observation("weak"), guided_observation("none")
    a, b = policy.decide([guided, plain], [[], []], greedy=True, rng=np.random.default_rng(0))
    assert a.data.instruction == plain["instruction"] + "\nGuidance:\n1.Open Settings\n2.Turn Wi-Fi on"
    assert b.data.instruction == plain["instruction"] and a.data.labels == b.data.labels
    # the guidance moves the instruction embedding, and so the prior over the same candidates
    _, _, entropy = policy.log_probs([a, b])
    assert float(entropy[0].detach()) != float(entropy[1].detach())
