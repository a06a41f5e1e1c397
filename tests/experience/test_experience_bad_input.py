"""Bad input to GuiExperience-v0 and its data: crafted numbers and nesting from an agent or a file,
duplicate ids, damaged records, bad arguments; and a data set other than the embedded one end to end."""

from __future__ import annotations

import json
import struct

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401
from gui_gym.core import contract as C
from gui_gym.experience.matching import read_response
from gui_gym.experience.readers import read_experiences
from gui_gym.experience.readers.tfrecord import masked_crc32c, read_records, write_records
from gui_gym.experience.readers.uis1 import write_uis1
from gui_gym.experience.record import Experience, ExperienceError, ExpertStep, UIAction

HUGE = "1" + "0" * 400  # an int no float holds
LONG = "1" * 5000  # more digits than Python converts


@pytest.mark.parametrize(
    "response",
    [
        '{"action": "click", "coordinate": [' + HUGE + ", 1]}",
        '{"action": "click", "coordinate": [' + LONG + ", 1]}",
        '<action>{"action": "wait", "time": ' + HUGE + "}</action>",
        "[" * 5000,
        "<action>" + '{"a":' * 3000 + "</action>",
        '{"action": "swipe", "coordinate": [0, 0], "coordinate2": [1e999, 0]}',
    ],
)
def test_crafted_numbers_and_nesting_from_an_agent_are_a_reported_no_op(response: str) -> None:
    read = read_response(response)
    assert read.action is None and read.reason
    env = gym.make("GuiExperience-v0", task="ClockStopWatchRunning/0")
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(response)
    assert (reward, terminated, info[C.FORMAT_VALID], info[C.ACTION_KIND]) == (0.0, False, False, C.INVALID)


@pytest.mark.parametrize("text", [HUGE, LONG])
def test_crafted_numbers_in_a_file_are_a_clear_error(tmp_path, text: str) -> None:
    line = '{"goal": "g", "steps": [{"action_content": {"action": "click", "coordinate": [' + text + ", 1]}}]}\n"
    (tmp_path / "x.jsonl").write_text(line)
    with pytest.raises(ExperienceError, match=r"x\.jsonl"):
        read_experiences(tmp_path / "x.jsonl", "ui-s1")
    (tmp_path / "deep.jsonl").write_text("[" * 100_000 + "\n")
    with pytest.raises(ExperienceError, match=r"deep\.jsonl"):
        read_experiences(tmp_path / "deep.jsonl", "ui-s1")


def test_a_record_length_beyond_any_episode_is_refused(tmp_path) -> None:
    length = struct.pack("<Q", 1 << 40)
    (tmp_path / "shard").write_bytes(length + struct.pack("<I", masked_crc32c(length)) + b"x" * 10)
    with pytest.raises(ExperienceError, match="at most"):
        list(read_records(tmp_path / "shard"))
    assert write_records(tmp_path / "ok", [b"a", b"bc"]) == 2 and list(read_records(tmp_path / "ok")) == [b"a", b"bc"]


def test_duplicate_ids_are_refused() -> None:
    steps = (ExpertStep(UIAction("wait")),)
    with pytest.raises(ExperienceError, match="share the id 'x'"):
        gym.make("GuiExperience-v0", data=[Experience("x", "a", steps), Experience("x", "b", steps)])


def test_bad_cache_sizes_and_rendered_frames_are_copies() -> None:
    with pytest.raises(ValueError, match="cache_size"):
        gym.make("GuiExperience-v0", cache_size=0)
    env = gym.make("GuiExperience-v0", task="ClockStopWatchRunning/0", render_mode="rgb_array", screen_size=(54, 120))
    env.reset(seed=0)
    frame = env.render()
    frame[:] = 0
    assert env.render().any()  # the cache is not the caller's to change


def test_training_and_ac_real_on_a_data_set_from_a_file(tmp_path, tiny_encoder) -> None:
    """A UI-S1 file (here the embedded set written out) is a data set like any: tasks resolve
    against it, the trainer trains on it, AC-Real evaluates it."""
    from agents.train import TrainConfig, Trainer, task_ids
    from gui_gym.experience.acreal import evaluate
    from gui_gym.experience.embedded import embedded_experiences
    from gui_gym.experience.screens import SimScreens
    from gui_gym.experience.tasks import select_experiences

    chosen = select_experiences(embedded_experiences(), "ClockStopWatchRunning,SystemWifiTurnOn")
    source = SimScreens("xml", cache_size=1)
    rendered = []
    for i, e in enumerate(chosen):
        steps = [
            ExpertStep(s.action, s.boxes, ui=screen.ui) for s, screen in zip(e.steps, source.screens(e), strict=True)
        ]
        rendered.append(Experience(str(9000 + i), e.goal, tuple(steps), e.screen, difficulty=e.difficulty))
    path = tmp_path / "set.jsonl"
    write_uis1(rendered, path)
    assert all(json.loads(line)["episode_id"] >= 9000 for line in path.read_text().splitlines())
    assert task_ids("9000", "GuiExperience-v0", {"data": str(path)}) == ["9000"]  # the file's ids
    with pytest.raises(ValueError, match="unknown task"):
        task_ids("ClockStopWatchRunning/0", "GuiExperience-v0", {"data": str(path)})
    # gui-gym's own JSON Lines keep the screens' UI text, which UI-S1's format has no field for
    from gui_gym.experience.record import dumps

    gym_path = tmp_path / "set-gui-gym.jsonl"
    gym_path.write_text(dumps(rendered))
    kwargs = {"data": str(gym_path)}
    assert task_ids("9000,9003", "GuiExperience-v0", kwargs) == ["9000", "9003"]
    cfg = TrainConfig(
        env_id="GuiExperience-v0", env_kwargs=kwargs, tasks="all", algo="empo", iterations=1, tasks_per_iter=2,
        group_size=2, num_envs=2, eval_every=0, eval_episodes=0, encoder=tiny_encoder, hidden=8,
        out=str(tmp_path / "run"), progress=False, max_resample=0,
    )  # fmt: skip
    Trainer(cfg).run()
    result = evaluate(lambda obs, info, env: env.oracle_action(), str(gym_path))
    assert result.pg == 1.0 and len(result.progress) == len(rendered)
    assert np.isclose(result.score, 1.0)
