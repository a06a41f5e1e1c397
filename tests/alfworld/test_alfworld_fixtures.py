"""The recorded ALFWorld fixtures are whole: every game parses, has a winning transcript, and together
they cover the six task types and both grammars.

The fixtures are the reference the embedded engine is held to byte for byte, so a truncated or
hand-edited file must fail here rather than silently weaken those checks. SOURCES.md says how
``record_transcripts.py`` produced them from the real TextWorld engine.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from gui_gym.alfworld.tasks import TASK_TYPES as ALFWORLD_TASK_TYPES

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = FIXTURES / "games"
TRANSCRIPTS = FIXTURES / "transcripts"

TASK_TYPES = set(ALFWORLD_TASK_TYPES)
GAME_KEYS = ["pddl_domain", "grammar", "pddl_problem", "solvable", "walkthrough"]
HEADER_KEYS = {"command", "game", "task_type", "grammar", "script", "observation", "task", "admissible_commands", "won"}
STEP_KEYS = {"command", "observation", "admissible_commands", "won", "score", "done"}
WELCOME = "-= Welcome to TextWorld, ALFRED! =-\n\n"

GAME_DIRS = sorted(p.parent for p in GAMES.glob("*/game.tw-pddl"))
TRANSCRIPT_FILES = sorted(TRANSCRIPTS.glob("*.jsonl"))


def read_jsonl(path: Path) -> list[dict]:
    """Every line of a transcript as a dict (json.loads raises on a malformed line)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines, f"{path.name} is empty"
    return [json.loads(line) for line in lines]


def load_game(game_dir: Path) -> dict:
    return json.loads((game_dir / "game.tw-pddl").read_text(encoding="utf-8"))


def test_there_are_games_and_transcripts() -> None:
    assert len(GAME_DIRS) >= 6
    assert len(TRANSCRIPT_FILES) >= 2 * len(GAME_DIRS)


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda p: p.name)
def test_game_file_has_the_upstream_keys(game_dir: Path) -> None:
    game = load_game(game_dir)
    assert list(game) == GAME_KEYS
    assert game["solvable"] is True
    assert game["pddl_domain"].lstrip().startswith(";; Specification in PDDL of the Alfred domain")
    assert "(define (problem" in game["pddl_problem"] and "(:goal" in game["pddl_problem"]
    assert "UNKNOWN GOAL" not in game["grammar"], "the goal text must be filled into the grammar"
    assert game["walkthrough"] and all(isinstance(c, str) and c for c in game["walkthrough"])


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda p: p.name)
def test_legacy_games_use_the_legacy_grammar(game_dir: Path) -> None:
    game = load_game(game_dir)
    legacy = game_dir.name.endswith(".legacy")
    assert ('template :: "put {o} in/on {r}"' in game["grammar"]) is legacy
    assert ('template :: "move {o} to {r}"' in game["grammar"]) is not legacy
    assert ("You arrive at {lend.name}." in game["grammar"]) is legacy
    assert ("(:action help" in game["pddl_domain"]) is not legacy


@pytest.mark.parametrize("path", TRANSCRIPT_FILES, ids=lambda p: p.name)
def test_transcript_is_well_formed(path: Path) -> None:
    rows = read_jsonl(path)
    header, steps = rows[0], rows[1:]
    assert set(header) >= HEADER_KEYS and header["command"] is None
    assert header["task_type"] in TASK_TYPES and header["grammar"] in {"current", "legacy"}
    assert path.name == f"{header['game']}.{header['script']}.jsonl"
    assert (GAMES / header["game"] / "game.tw-pddl").is_file()
    assert header["observation"].startswith(WELCOME)
    assert header["observation"].endswith("\n\n" + header["task"])
    assert header["task"].startswith("Your task is to: ") and header["task"].endswith(".")
    assert header["won"] is False
    assert steps, "a transcript records at least one step"
    for row in steps:
        assert set(row) >= STEP_KEYS
        assert isinstance(row["command"], str) and isinstance(row["observation"], str)
        assert row["score"] == (1 if row["won"] else 0)
    for row in rows:
        cmds = row["admissible_commands"]
        assert cmds == sorted(set(cmds)), "TextWorld lists admissible commands sorted and unique"
        assert {"look", "inventory"} <= set(cmds)
    # Once won the episode is done and the recording stops: only the last step may be won.
    assert not any(r["won"] for r in steps[:-1])


@pytest.mark.parametrize("path", TRANSCRIPT_FILES, ids=lambda p: p.name)
def test_nothing_happens_exactly_for_inadmissible_commands(path: Path) -> None:
    rows = read_jsonl(path)
    for before, row in itertools.pairwise(rows):
        admissible = row["command"].strip() in before["admissible_commands"]
        assert (row["observation"] == "Nothing happens.") is not admissible, row["command"]


@pytest.mark.parametrize("game_dir", GAME_DIRS, ids=lambda p: p.name)
def test_every_game_has_a_won_walkthrough_matching_its_file(game_dir: Path) -> None:
    rows = read_jsonl(TRANSCRIPTS / f"{game_dir.name}.walkthrough.jsonl")
    assert rows[-1]["won"] is True and rows[-1]["done"] is True
    assert [r["command"] for r in rows[1:]] == load_game(game_dir)["walkthrough"]


def test_all_task_types_and_both_grammars_are_covered() -> None:
    headers = [read_jsonl(p)[0] for p in TRANSCRIPT_FILES]
    won_types = {h["task_type"] for h, p in zip(headers, TRANSCRIPT_FILES, strict=True) if read_jsonl(p)[-1]["won"]}
    assert won_types == TASK_TYPES
    assert {h["grammar"] for h in headers} == {"current", "legacy"}
    assert {h["script"] for h in headers} == {"walkthrough", "probes"}


def test_probes_cover_bad_input() -> None:
    commands = {r["command"] for p in TRANSCRIPTS.glob("*.probes.jsonl") for r in read_jsonl(p)[1:]}
    assert "" in commands and "help" in commands
    assert any(not c.isascii() for c in commands), "a unicode probe"
    assert any(len(c) > 200 for c in commands), "a very long probe"
