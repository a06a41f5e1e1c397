"""ALFWorld game files read as data: the real-format fixtures, hand-worked PDDL, and bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gui_gym.alfworld.pddl import PddlError, parse_problem, parse_sexpr, read_game
from gui_gym.core.io import CorruptFileError

GAMES = sorted((Path(__file__).parent / "fixtures" / "games").glob("*/game.tw-pddl"))


@pytest.mark.parametrize("path", GAMES, ids=[p.parent.name for p in GAMES])
def test_every_fixture_game_reads(path: Path) -> None:
    game = read_game(path)
    p = game.problem
    assert game.solvable is True and game.walkthrough and p.domain.lower() == "alfred"
    assert p.objects["agent1"] == "agent"
    # Every receptacle and object the facts type is declared with that kind.
    for r, _ in p.facts("receptacleType"):
        assert p.objects[r] == "receptacle"
    for o, _ in p.facts("objectType"):
        assert p.objects[o] == "object"
    assert len(p.facts("atLocation")) == 1 and p.facts("atLocation")[0][0] == "agent1"
    assert p.goal[0] == "and"
    # The domain the file carries is one (define (domain alfred) ...) form.
    (domain,) = parse_sexpr(game.domain)
    assert isinstance(domain, list) and [w.lower() for w in domain[1]] == ["domain", "alfred"]


def test_a_goal_reads_into_nested_tuples() -> None:
    """The heat task's goal, worked by hand from the file: an egg that is hot, in a countertop."""
    p = read_game(next(g for g in GAMES if g.parent.name == "heat_egg_countertop")).problem
    (_, outer) = p.goal
    assert outer[0] == "exists" and outer[1] == {"?r": "receptacle"}
    inner = outer[2]
    assert inner[0] == "exists" and inner[1] == {"?o": "object"}
    assert inner[2] == (
        "and",
        ("inreceptacle", "?o", "?r"),
        ("objecttype", "?o", "EggType"),
        ("receptacletype", "?r", "CounterTopType"),
        ("heatable", "?o"),
        ("ishot", "?o"),
    )


def test_sexpr_words_lists_comments_and_typed_names() -> None:
    assert parse_sexpr("(a (b c) ; a comment (x\n d)") == [["a", ["b", "c"], "d"]]
    p = parse_problem("(define (problem q) (:objects a b - T c) (:init) (:goal (not (on a))))")
    assert p.objects == {"a": "T", "b": "T", "c": "object"} and p.init == frozenset()
    assert p.goal == ("not", ("on", "a")) and p.domain == ""


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("(a (b)", "left open"),
        ("(a))", "unbalanced"),
        ("(" * 300 + ")" * 300, "deeper"),
        ("(define (domain d))", "problem"),
        ("(define (problem q) (:objects a) (:goal (p a)))", ":init"),
        ("(define (problem q) (:objects a) (:init (p (x))) (:goal (p a)))", "fact"),
        ("(define (problem q) (:objects - T) (:init) (:goal (p a)))", "'-'"),
        ("(define (problem q) (:objects a) (:init) (:goal (exists x (p a))))", "exists"),
        ("(define (problem q) (:objects a) (:init) (:goal (p a) (p a)))", "one formula"),
    ],
)
def test_bad_pddl_is_refused_with_a_reason(text: str, match: str) -> None:
    with pytest.raises(PddlError, match=match):
        parse_problem(text)


def test_bad_game_files_name_the_file(tmp_path: Path) -> None:
    good = json.loads(GAMES[0].read_text(encoding="utf-8"))
    cases = {
        "not_json.tw-pddl": "{this is not json",
        "a_list.tw-pddl": "[]",
        "no_problem.tw-pddl": json.dumps({k: v for k, v in good.items() if k != "pddl_problem"}),
        "bad_pddl.tw-pddl": json.dumps({**good, "pddl_problem": "(define (problem q)"}),
        "bad_walkthrough.tw-pddl": json.dumps({**good, "walkthrough": "go to fridge 1"}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        with pytest.raises(CorruptFileError, match=name):
            read_game(path)
    with pytest.raises(FileNotFoundError):
        read_game(tmp_path / "absent.tw-pddl")
