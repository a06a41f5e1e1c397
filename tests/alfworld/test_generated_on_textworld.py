"""Opt-in: generated households played on the real TextWorld and on the embedded engine agree.

Runs only where ``alfworld`` and ``textworld[pddl]`` are installed (CI does not install them; see
tests/alfworld/fixtures/SOURCES.md). Each household is written as a ``game.tw-pddl`` with
alfworld's own domain and grammar, then played on both with the expert's walkthrough interleaved
with seeded random admissible and invalid commands; every observation, admissible list and
``won`` must be identical.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

textworld = pytest.importorskip("textworld")
alfworld = pytest.importorskip("alfworld")

from gui_gym.alfworld.backends.textworld import TextWorldBackend  # noqa: E402
from gui_gym.alfworld.engine import EngineBackend  # noqa: E402
from gui_gym.alfworld.generator import generate, write_game  # noqa: E402

DATA = Path(alfworld.__file__).parent / "data"
CASES = [("train", i) for i in range(6)] + [("eval_out_of_distribution", i) for i in range(3)]


@pytest.mark.parametrize(("split", "index"), CASES)
def test_a_generated_household_plays_the_same_on_textworld(tmp_path: Path, split: str, index: int) -> None:
    household = generate(0, split, index)
    path = tmp_path / "game.tw-pddl"
    domain = (DATA / "alfred.pddl").read_text(encoding="utf-8")
    grammar = (DATA / "alfred.twl2").read_text(encoding="utf-8")
    write_game(household, path, domain, grammar)
    real, ours = TextWorldBackend(), EngineBackend()
    real.load(str(path))
    ours.load(str(path))
    want, got = real.reset(), ours.reset()
    assert got == want
    rng = random.Random(index)
    script = list(household.walkthrough)
    for step in range(40):
        if want.won:
            break
        roll = rng.random()
        if roll < 0.5 and script:
            command = script.pop(0)
        elif roll < 0.9:
            command = rng.choice(want.admissible)
        else:
            command = rng.choice(["go to the moon", "take all", "", want.admissible[0].upper()])
        want, got = real.step(command), ours.step(command)
        assert got == want, (household.task_id, step, command)
    real.close()


def test_the_env_on_textworld_matches_the_embedded_env() -> None:
    import gymnasium as gym

    import gui_gym  # noqa: F401

    games = Path(__file__).parent / "fixtures" / "games"
    real = gym.make("ALFWorld-v0", backend="textworld", game_files=games)
    ours = gym.make("ALFWorld-v0", game_files=games)
    for entry in real.unwrapped.entries:
        a, ia = real.reset(seed=0, options={"task": entry.task_id})
        b, ib = ours.reset(seed=0, options={"task": entry.task_id})
        assert (a, ia) == (b, ib)
        done = False
        while not done:
            command = real.unwrapped.oracle_action()
            a, ra, ta, ua, ia = real.step(command)
            b, rb, tb, ub, ib = ours.step(command)
            assert (a, ra, ta, ua, ia) == (b, rb, tb, ub, ib)
            done = ta or ua
        assert ia["success"], entry.task_id
    real.close()
