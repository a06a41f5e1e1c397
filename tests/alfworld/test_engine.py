"""The embedded engine against the real TextWorld: every recorded transcript replays byte for byte.

The fixtures (tests/alfworld/fixtures, SOURCES.md) were recorded from alfworld 0.4.2 + TextWorld
1.7.0; here each one is replayed on :class:`~gui_gym.alfworld.engine.Engine` and every observation,
sorted admissible list and ``won`` must be identical.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from gui_gym.alfworld.engine import NOTHING_HAPPENS, Engine, EngineBackend, World, format_list
from gui_gym.alfworld.grammar import Grammar, GrammarError, read_grammar
from gui_gym.alfworld.names import demangle
from gui_gym.alfworld.pddl import parse_problem, read_game

FIXTURES = Path(__file__).parent / "fixtures"
RECORDINGS = sorted(FIXTURES.glob("transcripts/*.jsonl")) + sorted(FIXTURES.glob("walks/*.jsonl.gz"))


def game_of(header: dict) -> Path:
    """The game file a recording was made on (its header names the game directory)."""
    return FIXTURES / "games" / header["game"] / "game.tw-pddl"


def test_there_are_recordings() -> None:
    assert len(RECORDINGS) >= 90  # 36 scripted transcripts, 54 random walks


@pytest.mark.parametrize("recording", RECORDINGS, ids=lambda p: p.name.split(".jsonl")[0])
def test_engine_replays_the_real_engine(recording: Path) -> None:
    raw = recording.read_bytes()
    text = gzip.decompress(raw).decode("utf-8") if recording.suffix == ".gz" else raw.decode("utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    backend = EngineBackend()
    backend.load(str(game_of(lines[0])))
    got = backend.reset()
    for i, want in enumerate(lines):
        if i:
            got = backend.step(want["command"])
        where = f"{recording.name} line {i + 1} ({want['command']!r})"
        assert got.text == want["observation"], where
        assert got.admissible == want["admissible_commands"], where
        assert got.won == want["won"], where


SIMPLE = FIXTURES / "games" / "simple_pencil_dresser" / "game.tw-pddl"


@pytest.fixture
def engine() -> Engine:
    return Engine(World.from_game(str(SIMPLE)))


@pytest.mark.parametrize(
    "command",
    ["", "   ", "\x00", "go to desk 9", "go to Desk 1", "take pencil 1 from desk 1", "move pencil 1 to dresser 1",
     "put pencil 1 in/on dresser 1", "café ☕ 日本語", "go to " + "a" * 100_000, "look; rm -rf /", "{o} {r}",
     "go to desk 1\ngo to bed 1", "examine pencil 1"],
)  # fmt: skip
def test_anything_not_admissible_is_a_no_op(engine: Engine, command: str) -> None:
    before = ({p: set(fs) for p, fs in engine.facts.items()}, engine.admissible)
    obs = engine.step(command)
    assert obs.text == NOTHING_HAPPENS
    assert ({p: set(fs) for p, fs in engine.facts.items()}, obs.admissible) == before


@pytest.mark.parametrize("command", [None, 42, b"look", ["look"]])
def test_a_non_string_is_a_no_op(engine: Engine, command: object) -> None:
    assert engine.step(command).text == NOTHING_HAPPENS  # type: ignore[arg-type]


def test_commands_are_stripped_like_textworld(engine: Engine) -> None:
    assert engine.step("  go to desk 1 \n").text.startswith("You arrive at desk 1.")


def test_reset_restores_the_start(engine: Engine) -> None:
    first = engine.reset()
    for command in ("go to desk 1", "take pencil 1 from desk 1", "go to dresser 1", "move pencil 1 to dresser 1"):
        engine.step(command)
    assert engine.won()
    assert engine.reset() == first
    assert engine.held() is None and not engine.won()


def test_walkthrough_of_every_game_wins() -> None:
    for path in sorted(FIXTURES.glob("games/*/game.tw-pddl")):
        game = read_game(path)
        engine = Engine(World.from_game(game))
        for command in game.walkthrough:
            assert command in engine.admissible, (path.parent.name, command)
            obs = engine.step(command)
        assert obs.won, path.parent.name


def test_format_list_matches_textworld() -> None:
    assert format_list([]) == "nothing"
    assert format_list(["a x"]) == "a x"
    assert format_list(["a x", "a y"]) == "a x, and a y"
    assert format_list(["a x", "a y", "a z"]) == "a x, a y, and a z"


def test_names_number_sorted_ids_from_the_end() -> None:
    ids = [f"drawer_bar_{i:02d}" for i in range(12)] + ["sink_bar_x_bar_sinkbasin", "bathtub_bar_y_bar_bathtubbasin"]
    names = demangle(ids)
    assert names["drawer_bar_00"] == "drawer 12" and names["drawer_bar_11"] == "drawer 1"
    assert names["sink_bar_x_bar_sinkbasin"] == "sinkbasin 1"
    assert names["bathtub_bar_y_bar_bathtubbasin"] == "bathtubbasin 1"
    assert demangle(["penciltype"]) == {"penciltype": "penciltype "}


def test_shuffled_names_are_a_permutation_of_the_numbers() -> None:
    ids = [f"apple_bar_{i}" for i in range(5)]
    names = demangle(ids, random.Random(3))
    assert sorted(names.values()) == [f"apple {i}" for i in range(1, 6)]
    assert names != demangle(ids) or names != demangle(ids, random.Random(4))


def test_read_grammar_tells_the_versions_apart() -> None:
    current = read_game(SIMPLE)
    legacy = read_game(FIXTURES / "games" / "simple_pencil_dresser.legacy" / "game.tw-pddl")
    g = read_grammar(current.grammar, current.domain)
    assert (g.legacy, g.help, g.arrive_at_location, g.goal) == (False, True, False, "put some pencil on dresser")
    assert g == Grammar.current("put some pencil on dresser")
    lg = read_grammar(legacy.grammar, legacy.domain)
    assert lg == Grammar.legacy_version("put some pencil on dresser")


@pytest.mark.parametrize(
    ("text", "message"),
    [("", "not an ALFWorld"), ('grammar :: """{not json}""";', "not JSON"), ('grammar :: """{}""";', "no 'task'"),
     ('grammar :: """{"task": [{"rhs": "t"}], "GotoLocation.feedback": [{"rhs": "x"}]}""";\n'
      'action PutObject {\n template :: "drop {o}";', "unknown PutObject template")],
)  # fmt: skip
def test_read_grammar_refuses_what_it_does_not_speak(text: str, message: str) -> None:
    with pytest.raises(GrammarError, match=message):
        read_grammar(text)


GOAL_WORLD = """(define (problem g) (:domain alfred)
 (:objects agent1 - agent A_bar_1 A_bar_2 B_bar_1 - object R_bar_1 - receptacle AType - otype RType - rtype
           loc_bar_1 - location)
 (:init (atLocation agent1 loc_bar_1) (objectType A_bar_1 AType) (objectType A_bar_2 AType)
        (objectType B_bar_1 AType) (receptacleType R_bar_1 RType)
        (inReceptacle A_bar_1 R_bar_1) (inReceptacle A_bar_2 R_bar_1) (isHot A_bar_1))
 (:goal %s))"""


@pytest.mark.parametrize(
    ("goal", "won"),
    [
        ("(exists (?o - object) (and (objectType ?o AType) (isHot ?o)))", True),
        ("(exists (?o - object) (and (objectType ?o AType) (isCool ?o)))", False),
        ("(forall (?o - object) (isHot ?o))", False),
        ("(forall (?o - object) (imply (isHot ?o) (inReceptacle ?o R_bar_1)))", True),
        (
            "(exists (?r - receptacle ?o1 - object) (and (inReceptacle ?o1 ?r) (exists (?o2 - object)"
            " (and (not (= ?o1 ?o2)) (inReceptacle ?o2 ?r)))))",
            True,
        ),
        (
            "(exists (?r - receptacle ?o1 - object) (and (isHot ?o1) (inReceptacle ?o1 ?r) (exists (?o2 - object)"
            " (and (not (= ?o1 ?o2)) (isHot ?o2) (inReceptacle ?o2 ?r)))))",
            False,
        ),
        ("(or (isCool A_bar_1) (not (isHot B_bar_1)))", True),
        ("(exists (?o - receptacle) (isHot ?o))", False),  # a variable ranges over its type only
    ],
)
def test_goal_formulas(goal: str, won: bool) -> None:
    world = World.from_problem(parse_problem(GOAL_WORLD % goal), Grammar.current("g"))
    assert Engine(world).won() is won
