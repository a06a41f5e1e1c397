"""Driving AndroidWorld's tasks on the simulated phone in tests: an env, an instance, the oracle."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)


def make(task_id: str, **kwargs: Any) -> gym.Env:
    return gym.make("GuiAndroid-v0", task=task_id, **kwargs)


def start(env: gym.Env, seed: int) -> tuple[dict, Any]:
    """AndroidWorld's instance ``seed``: the reset's info and the simulated device."""
    _, info = env.reset(options={"params": {"seed": seed}})
    return info, env.unwrapped.backend.device


def solve(env: gym.Env) -> tuple[dict, list[str], list[str]]:
    """Step the oracle to the end; the last info, the actions, the milestones reported."""
    actions, reached = [], []
    while True:
        act = env.unwrapped.oracle_action()
        _, _, term, trunc, info = env.step(act)
        assert info["format_valid"], (act, info.get("reason"))
        actions.append(act)
        reached += info["milestones"]
        if term or trunc:
            return info, actions, reached


def answer_episode(env: gym.Env, seed: int) -> tuple[dict, list[str]]:
    """The oracle's episode of a question's instance ``seed``: its last info, and the texts on
    screen when it answered."""
    env.reset(options={"params": {"seed": seed}})
    for _ in range(60):
        shown = [n.text for n in env.unwrapped.device.elements() if n.text]
        _, _, term, trunc, info = env.step(env.unwrapped.oracle_action())
        if term or trunc:
            return info, shown
    raise AssertionError(f"seed {seed}: the oracle did not answer")
