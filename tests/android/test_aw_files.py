"""AndroidWorld's Files tasks on the simulated phone (``apps/files/androidworld.py``): the oracle
solves AndroidWorld's instances 0-29 through the env, doing nothing fails, near misses fail, and
draws and check rules computed by hand from AndroidWorld's source."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.sim.apps.files import androidworld as aw
from gui_gym.android.sim.apps.files import data
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import ADJECTIVES, NOUNS

IDS = [t.id for t in (cls() for cls in aw.TEMPLATES)]
SEEDS = range(30)


def _start(task_id: str, seed: int) -> tuple[SimBackend, dict]:
    backend = SimBackend()
    episode = backend.start(task_id, np.random.default_rng(seed), {"seed": seed})
    return backend, episode.params


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    task = TASKS[task_id]
    for seed in SEEDS:
        env.reset(options={"params": {"seed": seed}})
        steps = 0
        while True:
            _, reward, term, trunc, info = env.step(env.unwrapped.oracle_action())
            steps += 1
            assert info["format_valid"], f"seed {seed}, step {steps}: {info.get('reason')}"
            if term or trunc:
                break
        assert term and info["success"] and reward == 1.0, f"seed {seed}"
        assert info["progress"] == 1.0, f"seed {seed}: milestones left unreached"
        assert task.score(env.unwrapped.backend.device, env.unwrapped.params, None, "complete") == 1.0
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_doing_nothing_fails(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    for seed in range(5):
        env.reset(options={"params": {"seed": seed}})
        _, reward, term, _, info = env.step("finish()")
        assert term and not info["success"] and reward == 0.0, f"seed {seed}"
    env.close()


def test_the_set_up_is_androidworlds() -> None:
    """``DeleteFile.initialize_task``: the file and 1-20 noise files in the folder, each holding
    20 random characters and a line break; every other file of the storage deleted."""
    backend, p = _start("FilesDeleteFile", 0)
    dev = backend.device
    names = [i.name for i in data.listing(dev, p["subfolder"]) if not i.is_dir]
    assert p["file_name"] in names and 2 <= len(names) <= 21
    raw = data.read(dev, f"{p['subfolder']}/{p['file_name']}")
    assert raw is not None and len(raw) == 21 and raw.endswith(b"\n")
    assert {i.folder for i in data.files(dev)} == {p["subfolder"]}


def test_draws_by_hand() -> None:
    """``FilesDeleteFile.generate_random_params`` (files.py): a folder of EMULATOR_DIRECTORIES,
    then ``generate_random_file_name()`` + the folder's first name's extension; and
    ``FilesMoveFile``'s file is one of the *destination*'s names (files.py draws it so)."""
    r = random.Random(0)
    folder = r.choice(list(aw.EMULATOR_DIRECTORIES))
    adjective, noun = r.choice(ADJECTIVES), r.choice(NOUNS)
    p = TASKS["FilesDeleteFile"].sample_seed(0)
    assert p["subfolder"] == folder == "Music"
    assert p["file_name"].endswith(".mp3") and adjective in p["file_name"] and noun in p["file_name"]
    for seed in range(10):
        m = TASKS["FilesMoveFile"].sample_seed(seed)
        assert m["file_name"] in aw.EMULATOR_DIRECTORIES[m["destination_folder"]]
        assert m["source_folder"] != m["destination_folder"]
        assert m["noise_candidates"] == list(aw.EMULATOR_DIRECTORIES[m["source_folder"]])


def test_deleting_another_file_fails() -> None:
    backend, p = _start("FilesDeleteFile", 3)
    dev, task = backend.device, TASKS["FilesDeleteFile"]
    other = next(i for i in data.listing(dev, p["subfolder"]) if not i.is_dir and i.name != p["file_name"])
    data.delete(dev, other.path)
    assert not task.check(dev, p, None, "complete")
    data.delete(dev, f"{p['subfolder']}/{p['file_name']}")
    assert task.check(dev, p, None, "complete")


def test_a_copy_or_a_move_elsewhere_fails() -> None:
    backend, p = _start("FilesMoveFile", 2)
    dev, task = backend.device, TASKS["FilesMoveFile"]
    src = f"{p['source_folder']}/{p['file_name']}"
    data.copy(dev, src, p["destination_folder"])  # a copy leaves the source: MoveFile needs it gone
    assert not task.check(dev, p, None, "complete")
    data.delete(dev, f"{p['destination_folder']}/{p['file_name']}")
    wrong = next(f for f in aw.EMULATOR_DIRECTORIES if f not in (p["source_folder"], p["destination_folder"]))
    data.move(dev, src, wrong)
    assert not task.check(dev, p, None, "complete")
    data.move(dev, f"{wrong}/{p['file_name']}", p["destination_folder"])
    assert task.check(dev, p, None, "complete")


def test_files_shows_markor_and_the_media_store() -> None:
    """The Files app's storage is the phone's: Markor's notes under Documents/Markor, pictures
    in the media store; deleting through it changes those apps' data."""
    backend, _ = _start("FilesDeleteFile", 0)
    dev = backend.device
    dev.data("markor").add("note.md", content="hi\n")
    assert [i.name for i in data.listing(dev, "Documents/Markor")] == ["note.md"]
    data.delete(dev, "Documents/Markor/note.md")
    assert dev.data("markor").get("note.md") is None
