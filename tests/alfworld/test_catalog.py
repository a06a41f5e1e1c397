"""The games of ALFWorld-v0: generated households come with a winning walkthrough, the shipped
catalog is what the generator makes, selections, game files as tasks."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gui_gym.alfworld.catalog import CATALOG_FILE, _entry_of_generated, file_entries, generated, select
from gui_gym.alfworld.engine import Engine, World
from gui_gym.alfworld.generator import SPLITS, generate, write_game
from gui_gym.alfworld.grammar import Grammar
from gui_gym.alfworld.pddl import read_game

FIXTURES = Path(__file__).parent / "fixtures" / "games"
SAMPLE = [(split, i) for split in SPLITS for i in range(0, 60 if split == "train" else 25)]


@pytest.fixture(scope="module")
def households() -> list:
    return [generate(0, split, i) for split, i in SAMPLE]


def test_every_household_is_solved_by_its_walkthrough(households: list) -> None:
    for h in households:
        engine = Engine(World.from_problem(h.problem, Grammar.current(h.goal_text)))
        assert not engine.won()
        for command in h.walkthrough:
            assert command in engine.admissible
            engine.step(command)
        assert engine.won(), h.task_id


def test_write_game_gives_a_game_file_the_loader_reads(tmp_path: Path) -> None:
    h = generate(0, "eval_in_distribution", 3)
    real = read_game(FIXTURES / "simple_pencil_dresser" / "game.tw-pddl")
    template = real.grammar.replace("put some pencil on dresser", "UNKNOWN GOAL")
    path = tmp_path / "g" / "game.tw-pddl"
    write_game(h, path, real.domain, template)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data) == ["pddl_domain", "grammar", "pddl_problem", "solvable", "walkthrough"]
    game = read_game(path)
    engine = Engine(World.from_game(game))
    for command in game.walkthrough:
        engine.step(command)
    assert engine.won() and f"Your task is to: {h.goal_text}." in data["grammar"]


def test_the_shipped_catalog_is_what_the_generator_makes() -> None:
    assert CATALOG_FILE.exists()
    rng = random.Random(0)
    for split, size in SPLITS.items():
        entries = generated(split)
        assert len(entries) == size and len({e.task_id for e in entries}) == size
        for index in rng.sample(range(size), 4):
            assert entries[index] == _entry_of_generated(0, split, index), (split, index)


def test_selections() -> None:
    train = generated("train")
    assert select(train, None) == list(train)
    assert {e.task_type for e in select(train, "look_at_obj_in_light")} == {"look_at_obj_in_light"}
    both = select(train, "easy,pick_two_obj_and_place")
    assert {e.difficulty for e in both} >= {"easy"} and any(e.task_type == "pick_two_obj_and_place" for e in both)
    ood = generated("eval_out_of_distribution")
    assert select(train, [ood[0].task_id]) == [ood[0]]
    with pytest.raises(ValueError, match="Did you mean"):
        select(train, train[0].task_id[:-1])
    both_ways = select(train, "medium:eval_in_distribution:pick_two_obj_and_place")
    assert both_ways and all(
        (e.split, e.task_type, e.difficulty) == ("eval_in_distribution", "pick_two_obj_and_place", "medium")
        for e in both_ways
    )
    with pytest.raises(ValueError, match="intersection"):
        select(train, "train:nonsense")


def test_file_entries_of_the_recorded_games() -> None:
    entries = file_entries(FIXTURES)
    assert len(entries) == len(list(FIXTURES.glob("*/game.tw-pddl"))) >= 18
    by_id = {e.task_id: e for e in entries}
    assert by_id["light_book_desklamp"].task_type == "look_at_obj_in_light"
    assert by_id["two_creditcard_armchair"].difficulty == "medium"
    assert by_id["simple_pencil_dresser"].milestones[-1] == "Put the pencil in/on the dresser"
