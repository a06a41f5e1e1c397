"""Reward models read observations through the env's family (``observation_text``), never
through a family's module; an env without a family works when its observations are text."""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.screen import screen_text
from gui_gym.core.family import family_of
from wrappers.progress import OutcomeModelReward, ProgressReward, observation_reader


class TextRoom(gym.Env):
    """A family-less env whose observations are a dict with a "text" entry."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": []}
    observation_space = gym.spaces.Dict({"text": gym.spaces.Text(200)})
    action_space = gym.spaces.Text(50)

    def reset(self, *, seed: int | None = None, options: Any = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        self.n = 0
        return {"text": "You are in a room."}, {"instruction": "Leave the room."}

    def step(self, action: str) -> tuple[dict, float, bool, bool, dict]:
        self.n += 1
        done = self.n >= 2
        info = {"instruction": "Leave the room.", "action_description": action, "format_valid": True}
        return {"text": f"You {action}."}, float(done), done, False, {**info, "success": done}


class Recorder:
    """A stand-in model that records the screens it is asked about."""

    def __init__(self) -> None:
        self.screens: list[str] = []

    def predict_texts(self, goals: list[str], histories: list[list[str]], screens: list[str]) -> np.ndarray:
        self.screens += screens
        return np.full(len(screens), 0.5)


def test_the_family_turns_observations_into_text() -> None:
    env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")
    obs, _ = env.reset(seed=0)
    read = observation_reader(env)
    assert read(obs) == family_of(env).observation_text(obs) == screen_text(obs)
    model = Recorder()
    wrapped = ProgressReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), model=model)
    obs, _ = wrapped.reset(seed=0)
    obs, *_ = wrapped.step('do(action="Launch", app="Settings")')
    assert model.screens[-1] == screen_text(obs)


def test_vector_envs_read_through_their_sub_envs_family() -> None:
    made = gym.make_vec("GuiAndroid-v0", num_envs=2, task="SystemWifiTurnOn")
    bare = gym.vector.SyncVectorEnv([lambda: gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")] * 2)
    assert bare.spec is None
    obs, _ = bare.reset(seed=0)
    one = {k: v[0] for k, v in obs.items()}
    assert observation_reader(made)(one) == observation_reader(bare)(one) == screen_text(one)


def test_an_env_without_a_family_needs_text_observations() -> None:
    model = Recorder()
    env = OutcomeModelReward(TextRoom(), model=model)
    env.reset(seed=0)
    env.step("open the door")
    *_, info = env.step("walk out")
    assert model.screens == ["You walk out."] and info["orm_score"] == 0.5
    read = observation_reader(TextRoom())
    assert read("plain text") == "plain text"
    with pytest.raises(TypeError, match=r"names no env family.*`family` attribute"):
        read(np.zeros(3))
