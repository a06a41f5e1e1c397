"""``backend="upstream"`` drives a real WebShop checkout's text env (opt-in: set ``WEBSHOP_PATH`` to a
checkout whose ``data/`` and ``search_engine/indexes_1k`` are set up, e.g. by
``record_upstream.py``, and run in an interpreter where it imports). The embedded engine follows
along: every observation and the score must agree."""

from __future__ import annotations

import os

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401

WEBSHOP = os.environ.get("WEBSHOP_PATH")


def _importable() -> bool:
    if not WEBSHOP:
        return False
    try:
        from gui_gym.webshop.backends.upstream import _import_env

        _import_env(WEBSHOP)
        return True
    except ImportError:
        return False


pytestmark = pytest.mark.skipif(not _importable(), reason="no importable WebShop checkout at $WEBSHOP_PATH")


@pytest.mark.parametrize("goal", [0, 7, 123])
def test_upstream_and_embedded_agree_along_the_oracle(goal: int) -> None:
    env = gym.make("WebShop-v0", backend="upstream", webshop_path=WEBSHOP, split="all")
    inner = env.unwrapped
    obs, _ = env.reset(options={"task": f"human:{goal}"})
    assert obs["text"] == inner.session.observation("text")
    for _ in range(15):
        obs, reward, terminated, truncated, info = env.step(inner.oracle_action())
        assert obs["text"] == inner.session.observation("text")
        assert inner._upstream.available_actions() == inner.session.available_actions()
        if terminated or truncated:
            break
    assert terminated and reward == info["task_score"] and info["success"]
    env.close()
