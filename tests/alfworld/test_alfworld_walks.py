"""The recorded random walks (fixtures/walks) are whole, and the walk policy that made them is deterministic.

The walks are real-engine references for the embedded engine, like the transcripts: a truncated,
hand-edited or mislabelled file must fail here rather than silently weaken the byte-for-byte checks.
SOURCES.md says how ``record_walks.py`` recorded them (gzip-compressed JSONL, one file per walk).
"""

from __future__ import annotations

import gzip
import itertools
import json
import random
import re
from pathlib import Path

import pytest
from record_walks import STATE_CHANGING, TASK_TYPES, WalkPolicy  # tests/alfworld is on sys.path (rootdir import)

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = FIXTURES / "games"
WALKS = FIXTURES / "walks"
SEEDS, MAX_STEPS = 3, 60

HEADER_KEYS = {
    "command",
    "game",
    "task_type",
    "grammar",
    "script",
    "seed",
    "max_steps",
    "observation",
    "task",
    "admissible_commands",
    "won",
    "score",
    "max_score",
}
STEP_KEYS = {"command", "observation", "admissible_commands", "won", "score", "done"}
WELCOME = "-= Welcome to TextWorld, ALFRED! =-\n\n"
WALK_NAME = re.compile(r"^(?P<game>.+)\.walk(?P<seed>\d+)\.jsonl\.gz$")

GAME_NAMES = sorted(p.parent.name for p in GAMES.glob("*/game.tw-pddl"))
WALK_FILES = sorted(WALKS.glob("*.jsonl.gz"))


def read_walk(path: Path) -> list[dict]:
    """Every line of a gzip-compressed walk as a dict (gzip and json raise on a damaged file)."""
    lines = gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()
    assert lines, f"{path.name} is empty"
    return [json.loads(line) for line in lines]


def test_every_game_has_its_walks() -> None:
    names = {p.name for p in WALK_FILES}
    expected = {f"{game}.walk{seed}.jsonl.gz" for game in GAME_NAMES for seed in range(SEEDS)}
    assert len(GAME_NAMES) >= 18
    assert names == expected


@pytest.mark.parametrize("path", WALK_FILES, ids=lambda p: p.name)
def test_walk_header_is_the_reset(path: Path) -> None:
    header = read_walk(path)[0]
    name = WALK_NAME.match(path.name)
    assert name is not None
    assert set(header) == HEADER_KEYS and header["command"] is None
    assert header["game"] == name["game"] and header["seed"] == int(name["seed"])
    assert header["script"] == f"walk{header['seed']}" and header["max_steps"] == MAX_STEPS
    assert header["task_type"] in TASK_TYPES
    legacy = header["game"].endswith(".legacy")
    assert header["grammar"] == ("legacy" if legacy else "current")
    assert (GAMES / header["game"] / "game.tw-pddl").is_file()
    assert header["observation"].startswith(WELCOME)
    assert header["observation"].endswith("\n\n" + header["task"])
    assert header["task"].startswith("Your task is to: ")
    assert header["won"] is False and header["score"] is None


@pytest.mark.parametrize("path", WALK_FILES, ids=lambda p: p.name)
def test_walk_steps_are_whole(path: Path) -> None:
    header, *steps = read_walk(path)
    assert 1 <= len(steps) <= header["max_steps"]
    for row in steps:
        assert set(row) == STEP_KEYS
        assert isinstance(row["command"], str) and isinstance(row["observation"], str) and row["observation"]
        assert row["score"] == (1 if row["won"] else 0) and row["done"] is row["won"]
    # A walk stops at its step limit or the first done, never earlier, never later.
    assert not any(r["done"] for r in steps[:-1])
    assert steps[-1]["done"] or len(steps) == header["max_steps"]
    for row in [header, *steps]:
        cmds = row["admissible_commands"]
        assert cmds == sorted(set(cmds)), "TextWorld lists admissible commands sorted and unique"
        assert {"look", "inventory"} <= set(cmds)
        assert ("help" in cmds) is (header["grammar"] == "current")


@pytest.mark.parametrize("path", WALK_FILES, ids=lambda p: p.name)
def test_nothing_happens_exactly_for_inadmissible_commands(path: Path) -> None:
    rows = read_walk(path)
    for before, row in itertools.pairwise(rows):
        admissible = row["command"].strip() in before["admissible_commands"]
        assert (row["observation"] == "Nothing happens.") is not admissible, row["command"]


def test_walks_mix_state_changes_and_near_misses() -> None:
    pairs = [pair for path in WALK_FILES for pair in itertools.pairwise(read_walk(path))]
    valid = [row["command"].strip() for before, row in pairs if row["command"].strip() in before["admissible_commands"]]
    missed = [row["command"] for before, row in pairs if row["command"].strip() not in before["admissible_commands"]]
    assert 0.6 < len(valid) / len(pairs) < 0.9
    verbs = {c.split(" ")[0] for c in valid}
    assert {v.strip() for v in STATE_CHANGING} <= verbs, "every state-changing verb was played at least once"
    assert "" in missed and any(not c.isascii() for c in missed) and any(c != c.lower() for c in missed)


def synthetic_admissible(step: int, legacy: bool = False) -> list[str]:
    """A changing admissible list, as an env would give, for exercising the policy without the engine."""
    held = step % 3 == 0
    place = "put pen 1 in/on desk 1" if legacy else "move pen 1 to desk 1"
    cmds = [f"go to drawer {n}" for n in range(1, 4)] + ["inventory", "look"] + ([] if legacy else ["help"])
    cmds += [place, "examine pen 1"] if held else ["take pen 1 from desk 1", "open drawer 2"]
    return sorted(cmds)


def policy_commands(seed: str, n: int, legacy: bool = False) -> list[str]:
    policy = WalkPolicy(random.Random(seed), legacy)
    out = []
    for step in range(n):
        admissible = synthetic_admissible(step, legacy)
        policy.observe(admissible)
        out.append(policy.next_command(admissible))
    return out


def test_walk_policy_is_deterministic_for_a_seed() -> None:
    assert policy_commands("0:abc", 300) == policy_commands("0:abc", 300)
    assert policy_commands("0:abc", 300) != policy_commands("1:abc", 300)


def test_walk_policy_mixes_admissible_and_near_misses() -> None:
    commands = policy_commands("7:mix", 2000)
    admissible = [c for step, c in enumerate(commands) if c.strip() in synthetic_admissible(step)]
    assert 0.7 < len(admissible) / len(commands) < 0.85
    # State-changing commands are favoured: 1 or 2 of the 8 entries, yet more than half of the picks.
    changing = [c for c in admissible if c.startswith(STATE_CHANGING)]
    assert len(changing) / len(admissible) > 0.5
    misses = set(commands) - set(admissible)
    assert "put pen 1 in/on desk 1" in misses, "the other grammar's wording"
    assert any(re.search(r"drawer (0|[4-9]|\d\d)$", c) for c in misses), "a wrong number"
    assert any(not c.isascii() for c in misses) and "" in misses


def test_legacy_walk_policy_uses_the_current_grammar_as_its_near_miss() -> None:
    commands = policy_commands("3:legacy", 2000, legacy=True)
    assert "move pen 1 to desk 1" in commands and "put pen 1 in/on desk 1" in commands
