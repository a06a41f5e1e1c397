"""ALFWorld's own game files on disk: which ones a split holds and what task each one is.

``alfworld-download`` unpacks the data set under ``$ALFWORLD_DATA`` as
``json_2.1.1/<split>/<task dir>/<trial dir>/`` holding ``traj_data.json`` (ALFRED's record of the
task) and ``game.tw-pddl`` (the game TextWorld plays). :func:`find_games` lists a split's playable
game files the way alfworld 0.4.2's ``AlfredTWEnv.collect_game_files`` chooses them
(``alfworld/agents/environment/alfred_tw_env.py:130-193`` in its wheel), so a run over
"the eval_out_of_distribution split" means the same 134 games here as upstream;
:func:`task_type_of` says which of the six task types a game file is.

Nothing here needs alfworld or TextWorld: the files are read as JSON.

Example (a split of one game; real game files hold the PDDL and grammar too):
    >>> import json, pathlib, tempfile
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> trial = root / "json_2.1.1/valid_seen/pick_and_place_simple-Pencil-None-Dresser-301/trial_T1"
    >>> trial.mkdir(parents=True)
    >>> _ = (trial / "traj_data.json").write_text(json.dumps({"task_type": "pick_and_place_simple"}))
    >>> _ = (trial / "game.tw-pddl").write_text(json.dumps({"solvable": True}))
    >>> games = find_games("eval_in_distribution", data_dir=root)
    >>> [pathlib.Path(g).relative_to(root).parts[-3:] for g in games]
    [('pick_and_place_simple-Pencil-None-Dresser-301', 'trial_T1', 'game.tw-pddl')]
    >>> task_type_of(games[0])
    'pick_and_place_simple'
    >>> find_games("train", data_dir=root)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gui_gym.alfworld.dataset.DataNotFoundError: no directory .../json_2.1.1/train: ...
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gui_gym.alfworld.pddl import read_game
from gui_gym.alfworld.tasks import TASK_TYPES
from gui_gym.core.io import CorruptFileError, read_json

__all__ = [
    "DATA_ENV_VAR",
    "SPLIT_DIRS",
    "TASK_TYPES",
    "DataNotFoundError",
    "data_root",
    "find_games",
    "task_type_of",
]

#: The environment variable alfworld reads for its data directory (alfworld/info.py:10).
DATA_ENV_VAR = "ALFWORLD_DATA"

#: Split name -> its directory under ``$ALFWORLD_DATA``, as alfworld's configs/base_config.yaml
#: sets ``data_path``, ``eval_id_data_path`` and ``eval_ood_data_path`` (repository alfworld/alfworld).
SPLIT_DIRS = {
    "train": "json_2.1.1/train",
    "eval_in_distribution": "json_2.1.1/valid_seen",
    "eval_out_of_distribution": "json_2.1.1/valid_unseen",
}

TRAJ_FILE = "traj_data.json"
GAME_FILE = "game.tw-pddl"
# Directory-name markers of the trajectories ALFWorld's text games do not support (alfred_tw_env.py:162).
UNSUPPORTED_MARKERS = ("movable", "Sliced")

DOWNLOAD_HINT = (
    "run `alfworld-download` (pip install alfworld) on a machine with network access, copy the "
    "directory it fills (~/.cache/alfworld by default) here, and set ALFWORLD_DATA to it"
)


class DataNotFoundError(FileNotFoundError):
    """ALFWorld's game files are not where they were looked for (unset ``ALFWORLD_DATA``, a
    missing split directory, or a split without playable games); the message says where and what to do."""


def data_root(data_dir: str | os.PathLike[str] | None = None) -> Path:
    """``data_dir``, else ``$ALFWORLD_DATA``, as an absolute path; :class:`DataNotFoundError` when
    neither is given. Unlike alfworld (which falls back to ``~/.cache/alfworld``) nothing is
    guessed: an unset variable should not silently mean a directory the user never filled."""
    if data_dir is None:
        data_dir = os.environ.get(DATA_ENV_VAR) or None
    if data_dir is None:
        raise DataNotFoundError(
            f"ALFWorld's data directory is not set: pass data_dir or set {DATA_ENV_VAR}; {DOWNLOAD_HINT}"
        )
    return Path(os.path.abspath(Path(data_dir).expanduser()))


def find_games(
    split: str,
    data_dir: str | os.PathLike[str] | None = None,
    task_types: Sequence[str] | None = None,
) -> list[str]:
    """The playable ``game.tw-pddl`` files of an upstream split, sorted by path.

    ``split`` is ``train``, ``eval_in_distribution`` or ``eval_out_of_distribution`` (see
    :data:`SPLIT_DIRS`); ``data_dir`` stands for ``$ALFWORLD_DATA``; ``task_types`` keeps only
    those types (default: all six). A game counts, as in ``collect_game_files``, when its directory
    holds ``traj_data.json`` and ``game.tw-pddl``, its path has neither ``movable`` nor ``Sliced``
    in it, ``traj_data.json``'s ``task_type`` is wanted, and the game file says ``"solvable": true``
    (a missing key counts as unsolvable). Two differences, both deliberate: the markers are looked
    for below the split directory only (upstream tests the whole path, so a data directory under,
    say, ``/home/movable`` would lose every game), and the list is sorted (upstream keeps
    ``os.walk``'s file-system order), so a run names the same games on every machine.

    Raises :class:`DataNotFoundError` (no data directory set, split directory missing, no game
    found), ``ValueError`` (unknown split or task type) and :class:`CorruptFileError` naming a
    ``traj_data.json`` or game file that is not JSON.
    """
    if split not in SPLIT_DIRS:
        raise ValueError(f"unknown ALFWorld split {split!r}; the splits are {', '.join(SPLIT_DIRS)}")
    wanted = _wanted_types(task_types)
    root = data_root(data_dir) / SPLIT_DIRS[split]
    if not root.is_dir():
        raise DataNotFoundError(f"no directory {root}: ALFWorld's {split} split lives there; {DOWNLOAD_HINT}")
    games = [game for game in _candidates(root) if _keeps(game, wanted)]
    if not games:
        types = "" if task_types is None else f" of task types {', '.join(wanted)}"
        raise DataNotFoundError(
            f"no playable ALFWorld game{types} under {root}: looked for directories holding {TRAJ_FILE} "
            f"and a {GAME_FILE} marked solvable, outside 'movable' and 'Sliced' trajectories"
        )
    return sorted(games)


def task_type_of(game_file: str | os.PathLike[str]) -> str:
    """The task type of a game file: ``task_type`` of the ``traj_data.json`` beside it, as
    ``collect_game_files`` reads it; for a game without one (a hand-made file) the type its PDDL
    goal has in alfworld's goal library (alfworld/gen/goal_library.py): a toggled lamp ->
    look_at_obj_in_light, two distinct objects -> pick_two_obj_and_place, ``isHot`` / ``isCool``
    / ``isClean`` -> heat / cool / clean, an object in a receptacle -> pick_and_place_simple.

    Raises FileNotFoundError for a missing game file, :class:`CorruptFileError` naming a file that
    cannot be read or a ``traj_data.json`` without a task type, and ``ValueError`` for a goal that
    is none of the six.
    """
    traj = Path(game_file).with_name(TRAJ_FILE)
    if traj.is_file():
        return _traj_task_type(traj)
    goal = read_game(game_file).problem.goal
    names = set(_predicates(goal))
    for predicate, task_type in _GOAL_MARKS:
        if predicate in names:
            return task_type
    raise ValueError(
        f"{game_file}: no {TRAJ_FILE} beside it and its goal is none of ALFWorld's six task types "
        f"(predicates {', '.join(sorted(names))})"
    )


# Goal predicate (lower-cased) -> task type, checked in this order: a light task's goal also has an
# object held, a two-object goal also places, a heat/cool/clean goal also places.
_GOAL_MARKS = (
    ("istoggled", "look_at_obj_in_light"),
    ("=", "pick_two_obj_and_place"),
    ("ishot", "pick_heat_then_place_in_recep"),
    ("iscool", "pick_cool_then_place_in_recep"),
    ("isclean", "pick_clean_then_place_in_recep"),
    ("inreceptacle", "pick_and_place_simple"),
)


def _wanted_types(task_types: Sequence[str] | None) -> tuple[str, ...]:
    if task_types is None:
        return TASK_TYPES
    if isinstance(task_types, str):  # a bare string would be read letter by letter
        task_types = [task_types]
    unknown = [t for t in task_types if t not in TASK_TYPES]
    if unknown or not task_types:
        raise ValueError(f"unknown task types {unknown}; ALFWorld's are {', '.join(TASK_TYPES)}")
    return tuple(task_types)


def _candidates(root: Path) -> list[str]:
    """Game files of trajectory directories (those holding traj_data.json) of supported kinds."""
    out = []
    for dirpath, _dirnames, filenames in os.walk(root):
        if TRAJ_FILE not in filenames or GAME_FILE not in filenames:
            continue
        below = os.path.relpath(dirpath, root)
        if any(marker in below for marker in UNSUPPORTED_MARKERS):
            continue
        out.append(os.path.join(dirpath, GAME_FILE))
    return out


def _keeps(game: str, wanted: tuple[str, ...]) -> bool:
    """Whether a candidate is of a wanted type (read from traj_data.json first, as upstream) and solvable."""
    if _traj_task_type(Path(game).with_name(TRAJ_FILE)) not in wanted:
        return False
    data = read_json(game, "ALFWorld game file (game.tw-pddl)")
    return isinstance(data, dict) and data.get("solvable") is True


def _traj_task_type(traj: Path) -> str:
    data: Any = read_json(traj, "ALFRED trajectory file (traj_data.json)")
    task_type = data.get("task_type") if isinstance(data, dict) else None
    if not isinstance(task_type, str):
        raise CorruptFileError(f"{traj}: an ALFRED traj_data.json names its task under 'task_type'; this one does not")
    return task_type


def _predicates(formula: Any) -> list[str]:
    """The predicate names (and '=') used anywhere in a goal formula from :func:`read_game`."""
    if not isinstance(formula, tuple) or not formula:
        return []
    head, *rest = formula
    if head in ("exists", "forall"):
        return _predicates(rest[1])
    if head in ("and", "or", "not", "imply", "when"):
        return [name for part in rest for name in _predicates(part)]
    return [head]
