"""The phone's two suites: selection, metadata, AndroidWorld's instance seeds, bad input."""

from __future__ import annotations

import subprocess
import sys

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers the envs)
from gui_gym.android.backends.base import sample_params
from gui_gym.android.sim.tasks import ALL_TASKS, TASKS, list_tasks
from gui_gym.core.family import family_of

AW = sorted(t.id for t in ALL_TASKS.values() if t.suite == "androidworld")  # Chrome's three with them
OWN = sorted(t.id for t in TASKS.values() if t.suite == "gui-gym")


def test_every_task_is_in_one_of_the_suites() -> None:
    assert {t.suite for t in TASKS.values()} == {"androidworld", "gui-gym"}
    assert {t.suite for t in ALL_TASKS.values()} == {"androidworld", "gui-gym", "miniwob"}
    assert len(OWN) == 41 and len(AW) == 116
    assert sorted(s.id for s in list_tasks(suite="androidworld")) == AW
    # the browser's tasks are named: "all" and the tiers leave them out
    browser = {t.id for t in ALL_TASKS.values() if t.requires}
    assert {"BrowserDraw", "BrowserMaze", "BrowserMultiply"} <= browser
    assert not browser & {s.id for s in family_of("GuiAndroid-v0").tasks(None)}
    assert not browser & {s.id for s in family_of("GuiAndroid-v0").tasks("easy")}


def test_a_suite_name_selects_it_and_suite_tier_a_tier_within_it() -> None:
    family = family_of("GuiAndroid-v0")
    assert sorted(s.id for s in family.tasks("androidworld")) == AW
    assert sorted(s.id for s in family.tasks("gui-gym")) == OWN
    easy = family.tasks("androidworld:easy")
    assert easy and all(s.suite == "androidworld" and s.difficulty == "easy" for s in easy)
    assert {s.id for s in easy} == {t for t in AW if ALL_TASKS[t].difficulty == "easy"}


def test_the_env_samples_within_the_suite() -> None:
    env = gym.make("GuiAndroid-v0", task="androidworld", obs_mode="text")
    seen = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        seen.add(info["task_id"])
    env.close()
    assert seen <= set(AW) and len(seen) > 3


def test_unknown_task_names_the_suites_and_the_closest_ids() -> None:
    with pytest.raises(ValueError) as e:
        gym.make("GuiAndroid-v0", task="MarkorAddNoteHeadr")
    assert "MarkorAddNoteHeader" in str(e.value)
    assert "androidworld" in str(e.value) and "gui-gym" in str(e.value)


def test_androidworld_instance_seed_through_params() -> None:
    task = TASKS["SystemWifiTurnOn"]
    rng = np.random.default_rng(0)
    assert sample_params(task, rng, {"seed": 7})["seed"] == 7
    assert sample_params(task, rng, {"seed": 7}) == task.sample_seed(7)
    for bad in (-1, 1.5, "7", True):
        with pytest.raises(ValueError, match="non-negative integer"):
            sample_params(task, rng, {"seed": bad})
    env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn", obs_mode="text")
    env.reset(seed=1, options={"params": {"seed": 7}})
    first = env.unwrapped.params
    env.reset(seed=2, options={"params": {"seed": 7}})
    assert env.unwrapped.params == first == task.sample_seed(7)
    env.close()


def test_tasks_cli_prints_androidworlds_metadata_beside_ours() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agents.cli", "tasks", "--suite", "androidworld"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    head = out.splitlines()[0]
    assert "optimal" in head and "oracle" in head and "tags" in head
    row = next(line for line in out.splitlines() if line.startswith("SystemWifiTurnOn "))
    assert " 3 " in row and "Turn wifi {on_or_off}." in row
    bad = subprocess.run(
        [sys.executable, "-m", "agents.cli", "tasks", "--suite", "nope"], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "androidworld" in bad.stderr
