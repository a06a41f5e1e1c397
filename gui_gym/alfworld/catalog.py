"""The games ``ALFWorld-v0`` can play: generated households by split, or ALFWorld game files.

Every game is a task of its own, as in ALFWorld (one ``game.tw-pddl`` per task), with an id shaped
like upstream's directories (``pick_heat_then_place_in_recep-Egg-None-CounterTop-12/trial_T…``), a
tier from the expert's plan length (easy ≤ 5 commands, medium 6-10, hard ≥ 11) and its task type.

The generated catalog of the default world (``world_seed=0``, upstream's split sizes) ships as
``data/catalog.json.gz`` so that listing 3,827 tasks costs nothing; ``python -m
gui_gym.alfworld.catalog`` writes it again (tests check it against the generator). Other seeds and
sizes are generated on first use, with a progress bar.

Example:
    >>> entries = generated("eval_out_of_distribution")
    >>> len(entries), entries[0].split
    (134, 'eval_out_of_distribution')
"""

from __future__ import annotations

import difflib
import gzip
import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from gui_gym.alfworld.engine import Engine, World
from gui_gym.alfworld.expert import Goal, goal_of_task_id, milestone_labels, plan, read_goal
from gui_gym.alfworld.generator import SPLITS, generate
from gui_gym.alfworld.grammar import read_grammar
from gui_gym.alfworld.pddl import read_game
from gui_gym.alfworld.tasks import TASK_TYPES
from gui_gym.core.io import CorruptFileError, atomic_write
from gui_gym.core.task import DIFFICULTIES, TaskSpec

__all__ = [
    "CATALOG_FILE",
    "Entry",
    "file_entries",
    "generated",
    "select",
    "spec_of",
    "task_type_of",
    "tier",
    "write_catalog",
]

CATALOG_FILE = Path(__file__).parent / "data" / "catalog.json.gz"
CATALOG_VERSION = 1


@dataclass(frozen=True)
class Entry:
    """One game: its task id, where it comes from (a split and index, or a file), its task type,
    its instruction (the goal text) and its tier."""

    task_id: str
    task_type: str
    instruction: str
    difficulty: str
    split: str = ""
    index: int = -1
    path: str = ""
    milestones: tuple[str, ...] = ()


def tier(plan_length: int) -> str:
    """The tier of a plan length (``TaskSpec``'s convention: easy ≤ 5, medium 6-10, hard ≥ 11)."""
    return "easy" if plan_length <= 5 else "medium" if plan_length <= 10 else "hard"


def task_type_of(goal: Goal) -> str:
    """The ALFWorld task type a goal belongs to."""
    if goal.kind == "light":
        return "look_at_obj_in_light"
    if goal.count == 2:
        return "pick_two_obj_and_place"
    return {
        None: "pick_and_place_simple",
        "isclean": "pick_clean_then_place_in_recep",
        "ishot": "pick_heat_then_place_in_recep",
        "iscool": "pick_cool_then_place_in_recep",
    }[goal.state]


def _entry_of_generated(world_seed: int, split: str, index: int) -> Entry:
    household = generate(world_seed, split, index)
    return Entry(
        household.task_id,
        household.params.task_type,
        household.goal_text,
        tier(len(household.walkthrough)),
        split=split,
        index=index,
    )


@lru_cache(maxsize=32)
def generated(split: str, world_seed: int = 0, num_games: int | None = None) -> tuple[Entry, ...]:
    """The generated games of a split (``num_games`` of them; default: upstream's size)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    n = SPLITS[split] if num_games is None else int(num_games)
    if n < 1:
        raise ValueError(f"num_games must be at least 1, got {num_games}")
    shipped = _shipped().get(split, ()) if world_seed == 0 else ()
    if n <= len(shipped):
        return tuple(shipped[:n])
    entries = list(shipped)
    from tqdm.auto import tqdm

    rest = range(len(entries), n)
    for index in tqdm(rest, desc=f"ALFWorld {split} games", disable=len(rest) < 200, unit="game"):
        entries.append(_entry_of_generated(world_seed, split, index))
    return tuple(entries)


@lru_cache(maxsize=1)
def _shipped() -> dict[str, tuple[Entry, ...]]:
    try:
        data = json.loads(gzip.decompress(CATALOG_FILE.read_bytes()).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, EOFError) as e:
        raise CorruptFileError(f"{CATALOG_FILE}: {e}; run `python -m gui_gym.alfworld.catalog`") from None
    if data.get("version") != CATALOG_VERSION:
        return {}
    out: dict[str, tuple[Entry, ...]] = {}
    for split, rows in data["splits"].items():
        out[split] = tuple(
            Entry(tid, TASK_TYPES[t], instruction, difficulty, split=split, index=i)
            for i, (tid, t, instruction, difficulty) in enumerate(rows)
        )
    return out


def write_catalog(path: str | os.PathLike[str] = CATALOG_FILE) -> dict[str, int]:
    """Generate the default world's catalog (every split at upstream's size) and write it."""
    _shipped.cache_clear()
    generated.cache_clear()
    splits = {}
    for split, size in SPLITS.items():
        rows = []
        for index in range(size):
            e = _entry_of_generated(0, split, index)
            rows.append([e.task_id, TASK_TYPES.index(e.task_type), e.instruction, e.difficulty])
        splits[split] = rows
    text = json.dumps({"version": CATALOG_VERSION, "splits": splits}, separators=(",", ":"))
    atomic_write(path, lambda f: f.write(gzip.compress((text + "\n").encode("utf-8"), mtime=0)), binary=True)
    _shipped.cache_clear()
    generated.cache_clear()
    return {s: len(r) for s, r in splits.items()}


# -- game files ------------------------------------------------------------------------------

_TRIAL = re.compile(r"^trial_")


def _task_id_of_path(path: Path) -> str:
    """``<task dir>/<trial dir>`` as in the data set, else the path below its common root."""
    parent = path.parent
    if _TRIAL.match(parent.name) and parent.parent.name:
        return f"{parent.parent.name}/{parent.name}"
    return parent.name or path.stem


def _game_paths(game_files: str | os.PathLike[str] | Iterable[str | os.PathLike[str]]) -> list[Path]:
    items = [game_files] if isinstance(game_files, (str, os.PathLike)) else list(game_files)
    paths: list[Path] = []
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(p.rglob("game.tw-pddl"))
            if not found:
                raise FileNotFoundError(f"no game.tw-pddl files under {p}")
            paths.extend(found)
        elif p.is_file():
            paths.append(p)
        else:
            raise FileNotFoundError(f"no ALFWorld game file or directory at {p}")
    if not paths:
        raise ValueError("game_files lists no files")
    return paths


def file_entries(game_files: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[Entry]:
    """An :class:`Entry` for each ALFWorld game file (a file, a directory searched for
    ``game.tw-pddl``, or a list of them). Each is read and solved by the expert once, for its
    tier; a file that cannot be read raises :class:`~gui_gym.core.io.CorruptFileError` naming it."""
    entries = []
    seen: dict[str, int] = {}
    for path in _game_paths(game_files):
        game = read_game(path)
        world = World.from_problem(game.problem, read_grammar(game.grammar, game.domain))
        goal = read_goal(world)
        if goal is None:
            raise CorruptFileError(f"{path}: its goal is none of ALFWorld's six task types")
        try:
            steps = len(plan(Engine(world), goal))
        except ValueError as e:
            raise CorruptFileError(f"{path}: {e}") from None
        task_id = _task_id_of_path(path)
        seen[task_id] = seen.get(task_id, 0) + 1
        if seen[task_id] > 1:
            task_id = f"{task_id}#{seen[task_id]}"
        entries.append(
            Entry(
                task_id,
                task_type_of(goal),
                world.grammar.goal,
                tier(steps),
                path=str(path),
                milestones=tuple(milestone_labels(goal)),
            )
        )
    return entries


# -- selections -----------------------------------------------------------------------------


def select(entries: Sequence[Entry], selection: str | Sequence[str] | None, world_seed: int = 0) -> list[Entry]:
    """The entries a selection names among ``entries``: ``None``/``"all"`` (all of them), a tier, a
    task type, a split (its generated games), task ids (also of the other splits), an intersection
    of a split, a type and a tier joined by ``:`` (``eval_in_distribution:pick_and_place_simple:easy``),
    or a comma list of these.
    Unknown words raise ``ValueError`` naming close ids or the words that work."""
    entries = list(entries)
    if selection is None:
        return entries
    words = [w.strip() for w in selection.split(",")] if isinstance(selection, str) else [str(w) for w in selection]
    by_id = {e.task_id: e for e in entries}
    out: list[Entry] = []
    for word in filter(None, words):
        if ":" in word:  # an intersection: split:type:tier in any order
            out.extend(_intersect(entries, word, world_seed))
        elif word == "all":
            out.extend(entries)
        elif word in DIFFICULTIES:
            out.extend(e for e in entries if e.difficulty == word)
        elif word in TASK_TYPES:
            out.extend(e for e in entries if e.task_type == word)
        elif word in SPLITS:
            out.extend(generated(word, world_seed))
        elif word in by_id:
            out.append(by_id[word])
        else:
            found = _any_split(word, world_seed)
            if found is None:
                close = difflib.get_close_matches(word, list(by_id), n=3, cutoff=0.6)
                hint = f" Did you mean {', '.join(close)}?" if close else ""
                raise ValueError(
                    f"unknown task id {word!r} for ALFWorld-v0.{hint} A selection is a task id, a tier "
                    f"({', '.join(DIFFICULTIES)}), a task type, a split ({', '.join(SPLITS)}) or 'all'."
                )
            out.append(found)
    if not out:
        raise ValueError(f"no ALFWorld task selected by {selection!r}")
    return list(dict.fromkeys(out))


def _intersect(entries: list[Entry], word: str, world_seed: int) -> list[Entry]:
    """``eval_in_distribution:pick_and_place_simple:easy``: the entries every part selects."""
    parts = [p.strip() for p in word.split(":") if p.strip()]
    splits = [p for p in parts if p in SPLITS]
    pool = [e for s in splits for e in generated(s, world_seed)] if splits else list(entries)
    for part in parts:
        if part in SPLITS:
            continue
        if part in DIFFICULTIES:
            pool = [e for e in pool if e.difficulty == part]
        elif part in TASK_TYPES:
            pool = [e for e in pool if e.task_type == part]
        else:
            raise ValueError(
                f"unknown task id {word!r} for ALFWorld-v0: {part!r} in an intersection must be a split "
                f"({', '.join(SPLITS)}), a task type or a tier ({', '.join(DIFFICULTIES)})"
            )
    return pool


def _any_split(task_id: str, world_seed: int) -> Entry | None:
    for split in SPLITS:
        for e in generated(split, world_seed):
            if e.task_id == task_id:
                return e
    return None


def spec_of(entry: Entry) -> TaskSpec:
    """The :class:`~gui_gym.core.task.TaskSpec` of a game: ``app`` is its task type."""
    goal = goal_of_task_id(entry.task_id)
    labels = tuple(milestone_labels(goal)) if goal is not None else entry.milestones
    return TaskSpec(
        entry.task_id, entry.task_type, entry.difficulty, entry.instruction, milestones=labels, apps=(entry.task_type,)
    )


if __name__ == "__main__":
    print(write_catalog())
