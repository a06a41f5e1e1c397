"""The six task types: goal formulas as upstream writes them, goal texts, task ids, bad parameters."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from gui_gym.alfworld.pddl import parse_problem, read_game
from gui_gym.alfworld.tasks import (
    TASK_TYPES,
    TEMPLATES,
    UPSTREAM_OBJECTS,
    UPSTREAM_RECEPTACLES,
    UPSTREAM_ROOMS,
    UPSTREAM_SPLIT_TYPES,
    TaskParams,
    goal_formula,
    goal_pddl,
    goal_text,
    parse_task_id,
    task_id,
)
from gui_gym.alfworld.vocabulary import CAN_CONTAIN, CLEANABLE, COOLABLE, HEATABLE, PICKUPABLE

GAMES = Path(__file__).parent / "fixtures" / "games"
TRIAL = "trial_T20190908_123456_789012"
EXAMPLES = {
    "pick_and_place_simple": TaskParams("pick_and_place_simple", "Pencil", "Dresser"),
    "look_at_obj_in_light": TaskParams("look_at_obj_in_light", "Book", None, "DeskLamp"),
    "pick_clean_then_place_in_recep": TaskParams("pick_clean_then_place_in_recep", "Mug", "CoffeeMachine"),
    "pick_heat_then_place_in_recep": TaskParams("pick_heat_then_place_in_recep", "Egg", "CounterTop"),
    "pick_cool_then_place_in_recep": TaskParams("pick_cool_then_place_in_recep", "Apple", "DiningTable"),
    "pick_two_obj_and_place": TaskParams("pick_two_obj_and_place", "CreditCard", "ArmChair"),
}


def problem_with_goal(goal: str) -> str:
    return f"(define (problem p) (:domain alfred) (:objects agent1 - agent) (:init)\n{goal}\n)"


def test_task_types_in_upstream_order() -> None:
    assert TASK_TYPES == (
        "pick_and_place_simple",
        "look_at_obj_in_light",
        "pick_clean_then_place_in_recep",
        "pick_heat_then_place_in_recep",
        "pick_cool_then_place_in_recep",
        "pick_two_obj_and_place",
    )
    assert set(TEMPLATES) == set(UPSTREAM_ROOMS) == set(UPSTREAM_OBJECTS) == set(UPSTREAM_RECEPTACLES) == set(EXAMPLES)


@pytest.mark.parametrize("ttype", TASK_TYPES)
def test_goal_pddl_parses_to_goal_formula(ttype: str) -> None:
    params = EXAMPLES[ttype]
    assert parse_problem(problem_with_goal(goal_pddl(params))).goal == goal_formula(params)


def test_heat_goal_has_upstreams_conditions_in_upstreams_order() -> None:
    """goal_library.py:76-95: heatable, objectType, receptacleType, isHot, inReceptacle under ?r, ?o."""
    assert goal_formula(EXAMPLES["pick_heat_then_place_in_recep"]) == (
        "and",
        (
            "exists",
            {"?r": "receptacle"},
            (
                "exists",
                {"?o": "object"},
                (
                    "and",
                    ("heatable", "?o"),
                    ("objecttype", "?o", "EggType"),
                    ("receptacletype", "?r", "CounterTopType"),
                    ("ishot", "?o"),
                    ("inreceptacle", "?o", "?r"),
                ),
            ),
        ),
    )


def test_two_object_goal_asks_for_two_distinct_objects_in_one_receptacle() -> None:
    (_, (_, rvars, (_, o1vars, first))) = goal_formula(EXAMPLES["pick_two_obj_and_place"])
    assert rvars == {"?r": "receptacle"} and o1vars == {"?o1": "object"}
    *conds, (_, o2vars, second) = first[1:]
    assert ("inreceptacle", "?o1", "?r") in conds and o2vars == {"?o2": "object"}
    assert second[1] == ("not", ("=", "?o1", "?o2"))
    assert ("receptacletype", "?r", "ArmChairType") in second and ("inreceptacle", "?o2", "?r") in second


@pytest.mark.parametrize(
    ("game", "ttype"),
    [("simple_pencil_dresser", "pick_and_place_simple"), ("light_book_desklamp", "look_at_obj_in_light")],
)
def test_goal_formula_matches_the_recorded_games(game: str, ttype: str) -> None:
    """These two fixture games carry upstream's goal verbatim (their worlds are hand-made)."""
    assert read_game(GAMES / game / "game.tw-pddl").problem.goal == goal_formula(EXAMPLES[ttype])


def test_goal_formula_matches_upstreams_goal_library_when_installed() -> None:
    """Opt-in: with alfworld installed, every type's goal equals upstream's PDDL read by parse_problem."""
    glib = pytest.importorskip("alfworld.gen.goal_library")
    for ttype, params in EXAMPLES.items():
        upstream = glib.gdict[ttype]["pddl"].format(
            obj=params.object_target, recep=params.parent_target, toggle=params.toggle_target
        )
        # planned_game_state.py:15-23 turns '#' into '-'; the template's last ')' closes the define.
        text = "(define (problem p) (:domain alfred) (:objects agent1 - agent) (:init)\n" + upstream.replace("#", "-")
        assert parse_problem(text).goal == goal_formula(params), ttype


@pytest.mark.parametrize("ttype", TASK_TYPES)
def test_goal_text_is_one_of_the_two_templates_lower_cased(ttype: str) -> None:
    params = EXAMPLES[ttype]
    seen = {goal_text(params, random.Random(i)) for i in range(40)}
    recep = (params.parent_target or params.toggle_target or "").lower()
    expected = {t.format(obj=params.object_target.lower(), recep=recep, toggle=recep) for t in TEMPLATES[ttype]}
    assert seen == expected
    assert all(s == s.lower() for s in seen)
    assert goal_text(params, random.Random(3)) == goal_text(params, random.Random(3))


def test_goal_texts_read_as_the_recorded_games_do() -> None:
    assert goal_text(EXAMPLES["pick_two_obj_and_place"], random.Random(0)) in (
        "put two creditcard in armchair",
        "find two creditcard and put them in armchair",
    )
    light = {goal_text(EXAMPLES["look_at_obj_in_light"], random.Random(i)) for i in range(20)}
    assert "look at book under the desklamp" in light


def test_task_id_is_shaped_like_the_data_sets_directories() -> None:
    assert (
        task_id(EXAMPLES["pick_heat_then_place_in_recep"], 12, TRIAL)
        == "pick_heat_then_place_in_recep-Egg-None-CounterTop-12/trial_T20190908_123456_789012"
    )
    assert task_id(EXAMPLES["look_at_obj_in_light"], 301, TRIAL).startswith(
        "look_at_obj_in_light-Book-None-DeskLamp-301/"
    )
    shape = re.compile(r"[a-z_]+-[A-Za-z]+-None-[A-Za-z]+-\d+/trial_T\d{8}_\d{6}_\d{6}")
    for params in EXAMPLES.values():
        tid = task_id(params, 401, TRIAL)
        assert shape.fullmatch(tid)
        assert parse_task_id(tid) == (params, 401, TRIAL)
    assert parse_task_id("look_at_obj_in_light-AlarmClock-None-DeskLamp-301") == (
        TaskParams("look_at_obj_in_light", "AlarmClock", None, "DeskLamp"),
        301,
        None,
    )


@pytest.mark.parametrize(
    "bad",
    ["trial_T2019_1", "T20190908_123456_789012", "trial_T20190908_123456_78901x", "trial_T20190908_123456_789012/"],
)
def test_task_id_refuses_a_malformed_trial(bad: str) -> None:
    with pytest.raises(ValueError, match="trial_T20190908_123456_789012"):
        task_id(EXAMPLES["pick_and_place_simple"], 12, bad)


def test_task_id_refuses_a_scene_alfred_does_not_have() -> None:
    with pytest.raises(ValueError, match="kitchens are 1-30"):
        task_id(EXAMPLES["pick_and_place_simple"], 31, TRIAL)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("pick_and_place_with_movable_recep", "Apple", "Fridge"), "the types are pick_and_place_simple"),
        (("pick_and_place_simple", "Unicorn", "Fridge"), "object class"),
        (("pick_and_place_simple", "Apple", "Apple"), "parent_target"),
        (("pick_and_place_simple", "Apple", None), "parent_target"),
        (("look_at_obj_in_light", "Book", "Desk", "DeskLamp"), "toggle_target"),
        (("look_at_obj_in_light", "Book", None, "Fridge"), "toggle_target"),
        (("pick_and_place_simple", "Apple", "Fridge", "DeskLamp"), "no toggle_target"),
        (("pick_and_place_simple", "Apple", "Fridge", None, "Bowl"), "movable receptacle"),
    ],
)
def test_bad_params_are_refused_with_the_reason(args: tuple, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        TaskParams(*args)


def test_sliced_tasks_and_alfreds_empty_strings() -> None:
    with pytest.raises(ValueError, match="sliced"):
        TaskParams("pick_heat_then_place_in_recep", "Apple", "CounterTop", object_sliced=True)
    # ALFRED's traj_data writes absent classes as "".
    assert (
        TaskParams("pick_heat_then_place_in_recep", "Egg", "CounterTop", "", "")
        == EXAMPLES["pick_heat_then_place_in_recep"]
    )


def test_upstream_statistics_are_consistent_with_the_rules() -> None:
    """Every class upstream's train split asks for fits its task type's rules."""
    assert {s: sum(c.values()) for s, c in UPSTREAM_SPLIT_TYPES.items()} == {
        "train": 3553,
        "valid_seen": 140,
        "valid_unseen": 134,
    }
    assert set(UPSTREAM_OBJECTS["pick_heat_then_place_in_recep"]) <= HEATABLE
    assert set(UPSTREAM_OBJECTS["pick_cool_then_place_in_recep"]) <= COOLABLE
    assert set(UPSTREAM_OBJECTS["pick_clean_then_place_in_recep"]) <= CLEANABLE
    for ttype, objs in UPSTREAM_OBJECTS.items():
        assert set(objs) <= PICKUPABLE, ttype
        if ttype != "look_at_obj_in_light":
            assert set(UPSTREAM_RECEPTACLES[ttype]) <= set(CAN_CONTAIN), ttype
    assert "Microwave" not in UPSTREAM_RECEPTACLES["pick_heat_then_place_in_recep"]
    assert "Fridge" not in UPSTREAM_RECEPTACLES["pick_cool_then_place_in_recep"]
    assert "SinkBasin" not in UPSTREAM_RECEPTACLES["pick_clean_then_place_in_recep"]
