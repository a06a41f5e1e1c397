"""The adapter to the real TextWorld and the finder of ALFWorld's game files.

Everything about finding games and about failing without the engine runs everywhere, on a fake
``$ALFWORLD_DATA`` tree built from the recorded fixture games. The tests marked by the ``engine``
fixture run only where alfworld (with ``textworld[pddl]``) is installed: they replay every recorded
transcript through :class:`TextWorldBackend` and demand the same text, admissible commands and
``won`` byte for byte, so the adapter is shown to drive TextWorld exactly as the recording did.
"""

from __future__ import annotations

import collections
import json
import random
import re
import sys
from pathlib import Path

import pytest

from gui_gym.alfworld.backends.base import Backend, Observation
from gui_gym.alfworld.backends.textworld import TextWorldBackend, TextWorldMissingError
from gui_gym.alfworld.dataset import (
    SPLIT_DIRS,
    TASK_TYPES,
    DataNotFoundError,
    data_root,
    find_games,
    task_type_of,
)
from gui_gym.core.io import CorruptFileError

FIXTURES = Path(__file__).parent / "fixtures"
GAMES = FIXTURES / "games"
TRANSCRIPTS = sorted((FIXTURES / "transcripts").glob("*.jsonl"))
PENCIL = GAMES / "simple_pencil_dresser" / "game.tw-pddl"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def fixture_task_types() -> dict[str, str]:
    """Fixture game directory name -> its task type, as the recording wrote it in each header."""
    return {row["game"]: row["task_type"] for row in (read_jsonl(p)[0] for p in TRANSCRIPTS)}


# -- without the engine ----------------------------------------------------------------------------


@pytest.fixture
def no_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make every import of the engine fail, as on a machine that never installed it."""
    for name in ("textworld", "textworld.gym", "textworld.gym.envs", "alfworld", "fast_downward"):
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.usefixtures("no_engine")
def test_load_without_the_engine_says_what_to_install() -> None:
    backend = TextWorldBackend()
    with pytest.raises(TextWorldMissingError) as err:
        backend.load(PENCIL)
    assert isinstance(err.value, ImportError)
    message = str(err.value)
    assert "pip install" in message and "alfworld==0.4.2" in message and "textworld[pddl]" in message
    assert "fast_downward" in message, "the message warns of the planner's long compile"


def test_backend_keeps_the_protocol_and_refuses_to_play_before_loading() -> None:
    backend = TextWorldBackend(shuffle_names=True)
    assert isinstance(backend, Backend) and backend.shuffle_names is True
    with pytest.raises(RuntimeError, match="load"):
        backend.reset()
    with pytest.raises(RuntimeError, match="load"):
        backend.step("look")
    backend.close()
    backend.close()  # closing twice is harmless
    assert backend.game_file is None


def test_data_root_needs_a_directory_or_the_variable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ALFWORLD_DATA", raising=False)
    with pytest.raises(DataNotFoundError, match="ALFWORLD_DATA") as err:
        find_games("train")
    assert "alfworld-download" in str(err.value) and isinstance(err.value, FileNotFoundError)
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path))
    assert data_root() == tmp_path
    assert data_root(tmp_path / "other") == tmp_path / "other", "an explicit directory wins over the variable"


@pytest.mark.parametrize("split", list(SPLIT_DIRS))
def test_a_missing_split_directory_is_named(tmp_path: Path, split: str) -> None:
    with pytest.raises(DataNotFoundError) as err:
        find_games(split, data_dir=tmp_path)
    assert str(tmp_path / SPLIT_DIRS[split]) in str(err.value)
    assert "alfworld-download" in str(err.value)


def test_a_split_without_games_says_where_it_looked(tmp_path: Path) -> None:
    split = tmp_path / SPLIT_DIRS["train"]
    (split / "pick_and_place_simple-Pencil-None-Dresser-301" / "trial_T1").mkdir(parents=True)
    with pytest.raises(DataNotFoundError, match="no playable ALFWorld game") as err:
        find_games("train", data_dir=tmp_path)
    assert str(split) in str(err.value) and "traj_data.json" in str(err.value)


def test_unknown_split_or_task_type_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="eval_out_of_distribution"):
        find_games("valid_seen", data_dir=tmp_path)
    with pytest.raises(ValueError, match="pick_two_obj_and_place"):
        find_games("train", data_dir=tmp_path, task_types=["pick_and_place_with_movable_recep"])
    with pytest.raises(ValueError, match="unknown task types"):
        find_games("train", data_dir=tmp_path, task_types=[])


def place(root: Path, split: str, task_dir: str, trial: str, game: dict | None, traj: dict | None) -> Path:
    """Write one trial directory of a fake data set; return where its game file is (or would be)."""
    where = root / SPLIT_DIRS[split] / task_dir / trial
    where.mkdir(parents=True)
    if game is not None:
        (where / "game.tw-pddl").write_text(json.dumps(game), encoding="utf-8")
    if traj is not None:
        (where / "traj_data.json").write_text(json.dumps(traj), encoding="utf-8")
    return where / "game.tw-pddl"


@pytest.fixture
def data_dir(tmp_path: Path) -> tuple[Path, list[str]]:
    """A fake $ALFWORLD_DATA: every fixture game as a train trial, plus trials upstream skips.

    Returns the directory and the game files find_games("train") must list.
    """
    root = tmp_path / "alfworld data"
    kept = []
    for name, task_type in sorted(fixture_task_types().items()):
        game = json.loads((GAMES / name / "game.tw-pddl").read_text(encoding="utf-8"))
        kept.append(place(root, "train", f"{task_type}-X-None-Y-301", f"trial_{name}", game, {"task_type": task_type}))
    base = json.loads(PENCIL.read_text(encoding="utf-8"))
    simple = {"task_type": "pick_and_place_simple"}
    heat = {"task_type": "pick_heat_then_place_in_recep"}
    place(root, "train", "pick_and_place_with_movable_recep-Pencil-Bowl-Dresser-301", "trial_m", base, simple)
    place(root, "train", "pick_heat_then_place_in_recep-EggSliced-None-CounterTop-5", "trial_s", base, heat)
    place(
        root,
        "train",
        "pick_and_place_simple-Pencil-None-Dresser-302",
        "trial_unsolvable",
        {**base, "solvable": False},
        simple,
    )
    no_key = {k: v for k, v in base.items() if k != "solvable"}
    place(root, "train", "pick_and_place_simple-Pencil-None-Dresser-303", "trial_no_key", no_key, simple)
    place(root, "train", "pick_and_place_simple-Pencil-None-Dresser-304", "trial_no_game", None, simple)
    place(root, "train", "pick_and_place_simple-Pencil-None-Dresser-305", "trial_no_traj", base, None)
    return root, sorted(str(p) for p in kept)


def test_find_games_keeps_what_upstream_keeps(data_dir: tuple[Path, list[str]], monkeypatch) -> None:
    root, kept = data_dir
    assert find_games("train", data_dir=root) == kept
    assert len(kept) == len(fixture_task_types())
    monkeypatch.setenv("ALFWORLD_DATA", str(root))
    assert find_games("train") == kept, "ALFWORLD_DATA stands for data_dir"


def test_find_games_filters_by_the_task_type_in_traj_data(data_dir: tuple[Path, list[str]]) -> None:
    root, kept = data_dir
    types = fixture_task_types()
    heat = find_games("train", data_dir=root, task_types=["pick_heat_then_place_in_recep"])
    heat_games = {g for g, t in types.items() if t == "pick_heat_then_place_in_recep"}
    assert heat == [g for g in kept if Path(g).parent.name.removeprefix("trial_") in heat_games]
    assert len(heat) >= 2
    two_games = {g for g, t in types.items() if t == "pick_two_obj_and_place"}
    assert find_games("train", data_dir=root, task_types="pick_two_obj_and_place") == [
        g for g in kept if Path(g).parent.name.removeprefix("trial_") in two_games
    ], "a single type may be given as a string"
    every = find_games("train", data_dir=root, task_types=list(reversed(TASK_TYPES)))
    assert every == kept


def test_each_split_reads_its_own_directory(tmp_path: Path) -> None:
    base = json.loads(PENCIL.read_text(encoding="utf-8"))
    traj = {"task_type": "pick_and_place_simple"}
    expected = {split: str(place(tmp_path, split, "t-301", f"trial_{split}", base, traj)) for split in SPLIT_DIRS}
    assert SPLIT_DIRS["eval_out_of_distribution"].endswith("valid_unseen")
    for split, game in expected.items():
        assert find_games(split, data_dir=tmp_path) == [game]


def test_a_corrupt_traj_data_is_named(tmp_path: Path) -> None:
    game = place(tmp_path, "train", "t-1", "trial_1", {"solvable": True}, None)
    traj = game.with_name("traj_data.json")
    traj.write_text("{not json", encoding="utf-8")
    with pytest.raises(CorruptFileError, match=re.escape(str(traj))):
        find_games("train", data_dir=tmp_path)
    traj.write_text(json.dumps({"scene": 1}), encoding="utf-8")
    with pytest.raises(CorruptFileError, match="task_type"):
        find_games("train", data_dir=tmp_path)


def test_task_type_of_reads_traj_data_or_else_the_goal(tmp_path: Path) -> None:
    types = fixture_task_types()
    assert set(types.values()) == set(TASK_TYPES)
    for name, task_type in types.items():
        assert task_type_of(GAMES / name / "game.tw-pddl") == task_type, name
    game = place(
        tmp_path, "train", "t-1", "trial_1", json.loads(PENCIL.read_text()), {"task_type": "look_at_obj_in_light"}
    )
    assert task_type_of(game) == "look_at_obj_in_light", "traj_data.json wins over the goal"


def test_task_type_of_an_unknown_goal_is_refused(tmp_path: Path) -> None:
    game = json.loads(PENCIL.read_text(encoding="utf-8"))
    head, _, _ = game["pddl_problem"].partition("(:goal")
    game["pddl_problem"] = head + "(:goal (and (isSliced Pencil_bar__plus_01_dot_40_bar__plus_00_dot_80)))\n)\n"
    path = tmp_path / "game.tw-pddl"
    path.write_text(json.dumps(game), encoding="utf-8")
    with pytest.raises(ValueError, match="none of ALFWorld's six task types"):
        task_type_of(path)


# -- with the real engine (opt-in: only where alfworld and textworld[pddl] are installed) ----------


@pytest.fixture
def engine() -> None:
    pytest.importorskip("textworld", reason="the real engine: pip install alfworld==0.4.2 textworld[pddl]")
    pytest.importorskip("fast_downward", reason="TextWorld's PDDL planner: pip install textworld[pddl]")
    pytest.importorskip("alfworld", reason="alfworld's wrappers: pip install alfworld==0.4.2")


def as_row(obs: Observation) -> dict:
    return {"observation": obs.text, "admissible_commands": obs.admissible, "won": obs.won}


def recorded(row: dict) -> dict:
    return {k: row[k] for k in ("observation", "admissible_commands", "won")}


@pytest.mark.usefixtures("engine")
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_replays_the_recorded_transcript_byte_for_byte(path: Path) -> None:
    header, *steps = read_jsonl(path)
    with TextWorldBackend() as backend:
        backend.load(GAMES / header["game"] / "game.tw-pddl")
        assert as_row(backend.reset()) == recorded(header)
        for row in steps:
            assert as_row(backend.step(row["command"])) == recorded(row), row["command"]
        assert steps[-1]["done"] and steps[-1]["won"]
        # Once won, TextWorld repeats its last observation whatever the command.
        assert as_row(backend.step("look")) == recorded(steps[-1])


@pytest.mark.usefixtures("engine")
def test_reset_restarts_and_load_replaces_the_game() -> None:
    header, *steps = read_jsonl(FIXTURES / "transcripts" / "simple_pencil_dresser.walkthrough.jsonl")
    backend = TextWorldBackend()
    backend.load(PENCIL)
    with pytest.raises(RuntimeError, match="reset"):
        backend.step("look")
    for _ in range(2):  # the second reset re-reads the file through TextWorld, not a cached start
        assert as_row(backend.reset()) == recorded(header)
        assert [as_row(backend.step(r["command"])) for r in steps] == [recorded(r) for r in steps]
    legacy_header = read_jsonl(FIXTURES / "transcripts" / "simple_pencil_dresser.legacy.walkthrough.jsonl")[0]
    backend.load(GAMES / "simple_pencil_dresser.legacy" / "game.tw-pddl")
    assert backend.game_file is not None and backend.game_file.endswith("legacy/game.tw-pddl")
    assert as_row(backend.reset()) == recorded(legacy_header)
    backend.close()
    with pytest.raises(RuntimeError, match="load"):
        backend.reset()


def broken(tmp_path: Path, key: str, old: str, new: str) -> Path:
    """The pencil game with ``old`` replaced by ``new`` in its ``key`` text (all of it if ``old`` is empty)."""
    game = json.loads(PENCIL.read_text(encoding="utf-8"))
    assert old in game[key]
    game[key] = game[key].replace(old, new) if old else new
    path = tmp_path / f"bad{len(list(tmp_path.glob('bad*')))}" / "game.tw-pddl"
    path.parent.mkdir()
    path.write_text(json.dumps(game), encoding="utf-8")
    return path


@pytest.mark.usefixtures("engine")
def test_a_game_textworld_cannot_play_is_named(tmp_path: Path) -> None:
    backend = TextWorldBackend()
    with pytest.raises(FileNotFoundError, match="nowhere"):
        backend.load(tmp_path / "nowhere" / "game.tw-pddl")
    not_json = tmp_path / "game.tw-pddl"
    not_json.write_text("{", encoding="utf-8")
    with pytest.raises(CorruptFileError, match=re.escape(str(not_json))):
        backend.load(not_json)
    # fast_downward's translator raises SystemExit for an undeclared goal predicate: it must not escape.
    undeclared = broken(tmp_path, "pddl_problem", "(inReceptacle ?o ?r)", "(flying ?o ?r)")
    with pytest.raises(CorruptFileError, match=re.escape(str(undeclared))) as err:
        backend.load(undeclared)
    assert "Undeclared predicate: flying" in str(err.value)
    unknown_fact = broken(tmp_path, "pddl_problem", "(atLocation agent1", "(flying agent1")
    with pytest.raises(CorruptFileError, match=re.escape(str(unknown_fact))):
        backend.load(unknown_fact)
    bad_grammar = broken(tmp_path, "grammar", "", "this is not { a grammar")
    with pytest.raises(CorruptFileError, match="TextWorld cannot play"):
        backend.load(bad_grammar)
    assert backend.game_file is None
    backend.load(PENCIL)  # a failed load leaves the backend usable
    assert backend.reset().text.endswith("put some pencil on dresser.")
    backend.close()


@pytest.mark.usefixtures("engine")
def test_shuffled_names_renumber_the_same_objects() -> None:
    def intro(obs: Observation) -> str:
        return obs.text.split("you see ")[1].split(".")[0]

    def classes(obs: Observation) -> collections.Counter[str]:
        return collections.Counter(re.findall(r"a (\w+) \d+", intro(obs)))

    state = random.getstate()
    random.seed(3)  # alfworld shuffles with the global random module
    try:
        with TextWorldBackend() as plain, TextWorldBackend(shuffle_names=True) as shuffled:
            plain.load(PENCIL)
            first = plain.reset()
            shuffled.load(PENCIL)
            starts = [shuffled.reset() for _ in range(6)]
    finally:
        random.setstate(state)
    assert all(classes(s) == classes(first) and s.admissible == first.admissible for s in starts)
    assert len({intro(s) for s in starts}) > 1, "each reset numbers the three drawers anew"
