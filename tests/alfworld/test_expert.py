"""The built-in expert: it reads every goal shape, its plans win, it recovers from detours, and the
milestones come in order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from gui_gym.alfworld.engine import Engine, World
from gui_gym.alfworld.expert import Goal, milestones, next_command, plan, read_goal
from gui_gym.alfworld.grammar import Grammar
from gui_gym.alfworld.pddl import parse_problem, read_game

GAMES = sorted((Path(__file__).parent / "fixtures" / "games").glob("*/game.tw-pddl"))


def engine_of(path: Path) -> Engine:
    return Engine(World.from_game(read_game(path)))


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.parent.name)
def test_the_plan_wins_and_is_no_longer_than_the_walkthrough(path: Path) -> None:
    engine = engine_of(path)
    commands = plan(engine)
    assert len(commands) <= len(read_game(path).walkthrough)
    assert not engine.won()  # planning plays on a copy
    for command in commands:
        assert command in engine.admissible
        engine.step(command)
    assert engine.won() and next_command(engine, read_goal(engine.world)) is None


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.parent.name)
def test_the_expert_recovers_from_random_detours(path: Path) -> None:
    rng = random.Random(path.parent.name)
    for _ in range(5):
        engine = engine_of(path)
        for _ in range(rng.randrange(3, 15)):
            engine.step(rng.choice(engine.admissible))
        if not engine.won():
            for command in plan(engine):
                engine.step(command)
        assert engine.won()


def test_read_goal_on_each_task_type() -> None:
    goals = {p.parent.name: read_goal(engine_of(p).world) for p in GAMES}
    assert goals["heat_egg_countertop"] == Goal("place", "eggtype", state="ishot", receptacle_type="countertoptype")
    assert goals["cool_apple_diningtable"].state == "iscool"
    assert goals["clean_mug_coffeemachine"].state == "isclean"
    assert goals["two_creditcard_armchair"].count == 2
    assert goals["light_book_desklamp"] == Goal("light", "booktype", lamp_type="desklamptype")
    assert goals["simple_pencil_dresser"] == Goal("place", "penciltype", receptacle_type="dressertype")


def test_milestones_come_in_order_along_the_plan() -> None:
    for path in GAMES:
        engine = engine_of(path)
        goal = read_goal(engine.world)
        assert goal is not None
        marks = milestones(engine.world, goal)
        reached = 0
        for command in plan(engine):
            engine.step(command)
            while reached < len(marks) and marks[reached].reached(engine):
                reached += 1
        assert reached == len(marks), path.parent.name
        assert len({m.label for m in marks}) == len(marks)


def test_an_unknown_goal_shape_is_reported() -> None:
    problem = parse_problem(
        "(define (problem p) (:domain alfred) (:objects agent1 - agent loc_bar_1 - location)"
        " (:init (atLocation agent1 loc_bar_1)) (:goal (atLocation agent1 loc_bar_1)))"
    )
    world = World.from_problem(problem, Grammar.current("stand still"))
    assert read_goal(world) is None
    with pytest.raises(ValueError, match="does not know"):
        plan(Engine(world))


def test_an_unreachable_goal_raises() -> None:
    path = GAMES[0]
    game = read_game(path)
    engine = Engine(World.from_game(game))
    goal = read_goal(engine.world)
    impossible = Goal("place", "nosuchtype", state=goal.state, receptacle_type=goal.receptacle_type)
    with pytest.raises(ValueError, match="cannot reach"):
        plan(engine, impossible)
