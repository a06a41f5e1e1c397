"""Vectorised envs: SyncVectorEnv / AsyncVectorEnv with text actions and autoreset."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from _util import ENV_ID, check_ui_xml

import gui_gym  # noqa: F401
from gui_gym.android.forest import element_box

TASK = "ContactsAddContact"
LAUNCH = 'do(action="Launch", app="Contacts")'


def _make_vec(mode: str, n: int = 2, **kw) -> gym.vector.VectorEnv:
    if mode == "make_vec_sync":
        return gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="sync", task=TASK, **kw)
    if mode == "make_vec_async":
        return gym.make_vec(ENV_ID, num_envs=n, vectorization_mode="async", task=TASK, **kw)
    fns = [lambda: gym.make(ENV_ID, task=TASK, **kw) for _ in range(n)]
    if mode == "sync":
        return gym.vector.SyncVectorEnv(fns)
    if mode == "async_no_shm":
        return gym.vector.AsyncVectorEnv(fns, shared_memory=False)
    return gym.vector.AsyncVectorEnv(fns)  # shared memory: the default


def _check_text_obs(obs: dict, n: int) -> None:
    assert set(obs) == {"instruction", "ui"}
    for key in ("instruction", "ui"):
        assert len(obs[key]) == n
        assert all(isinstance(s, str) and s for s in obs[key])
    for ui in obs["ui"]:
        check_ui_xml(ui)


@pytest.mark.parametrize("mode", ["sync", "async", "async_no_shm", "make_vec_sync", "make_vec_async"])
def test_vector_env_steps_text_actions_and_autoresets(mode: str) -> None:
    envs = _make_vec(mode)
    try:
        obs, info = envs.reset(seed=[0, 1])
        _check_text_obs(obs, 2)
        assert list(info["task_id"]) == [TASK, TASK]
        first_instructions = list(obs["instruction"])

        # a list of strings and an array of strings both work as a batch of actions
        obs, r, term, trunc, info = envs.step([LAUNCH, 'do(action="Home")'])
        _check_text_obs(obs, 2)
        assert r.shape == (2,) and term.shape == (2,) and trunc.shape == (2,)
        assert list(info["format_valid"]) == [True, True]
        assert "<node" in obs["ui"][0] and "Contacts" in obs["ui"][0]

        obs, r, term, trunc, info = envs.step(np.array(['do(action="Wait")', "no action here"]))
        assert list(info["format_valid"]) == [True, False]
        assert not term.any() and not trunc.any()

        # env 1 ends its episode; env 0 keeps going
        obs, r, term, trunc, info = envs.step(['do(action="Back")', "finish()"])
        assert list(term) == [False, True]
        assert r[1] == 0.0
        assert bool(info["_success"][1]) and not bool(info["success"][1])
        _check_text_obs(obs, 2)

        # next step: env 1 is reset (its action is ignored), env 0 steps
        obs, r, term, trunc, info = envs.step(['do(action="Wait")', "finish()"])
        assert not term.any() and not trunc.any()
        assert r[1] == 0.0
        _check_text_obs(obs, 2)
        assert obs["instruction"][0] == first_instructions[0]
        assert "nexuslauncher" in obs["ui"][1]  # a fresh episode starts on the home screen

        obs, r, term, trunc, info = envs.step(['do(action="Wait")', LAUNCH])
        assert list(info["format_valid"]) == [True, True]
        assert not term.any()
    finally:
        envs.close()


@pytest.mark.parametrize("mode", ["sync", "async", "async_no_shm"])
def test_vector_env_pixels(mode: str) -> None:
    envs = _make_vec(mode, obs_mode="both", screen_size=(108, 240))
    try:
        obs, _ = envs.reset(seed=3)
        assert obs["screen"].shape == (2, 240, 108, 3) and obs["screen"].dtype == np.uint8
        obs, *_ = envs.step([LAUNCH, 'do(action="Wait")'])
        assert obs["screen"].shape == (2, 240, 108, 3)
        assert not np.array_equal(obs["screen"][0], obs["screen"][1])
    finally:
        envs.close()


@pytest.mark.parametrize("mode", ["sync", "async", "async_no_shm", "make_vec_async"])
def test_vector_env_non_ascii_ui(mode: str) -> None:
    """Typed Unicode ends up in the UI dump; it must travel through (shared-memory) vector envs."""
    envs = _make_vec(mode)
    try:
        envs.reset(seed=0)
        obs, _, _, _, info = envs.step([LAUNCH, LAUNCH])
        fab = next(e for e in info["ui_elements"][0] if e.content_description == "Create contact")
        tap = f'do(action="Tap", element=[{",".join(map(str, element_box(fab)))}])'
        envs.step([tap, tap])
        obs, _, _, _, info = envs.step(['do(action="Type", text="Sofía ☕")', 'do(action="Type", text="Zoë")'])
        assert list(info["format_valid"]) == [True, True]
        assert "Sofía ☕" in obs["ui"][0] and "Zoë" in obs["ui"][1]
    finally:
        envs.close()


def test_vector_env_same_seed_same_observations() -> None:
    a, b = _make_vec("sync"), _make_vec("sync")
    try:
        oa, _ = a.reset(seed=7)
        ob, _ = b.reset(seed=7)
        assert oa["instruction"] == ob["instruction"] and oa["ui"] == ob["ui"]
        for acts in ([LAUNCH, 'do(action="Home")'], ['do(action="Swipe", direction="up")', LAUNCH]):
            oa, *_ = a.step(acts)
            ob, *_ = b.step(acts)
            assert oa["ui"] == ob["ui"]
    finally:
        a.close()
        b.close()
