"""Step and trajectory records with JSON Lines read/write.

One trajectory per line, UTF-8 (a byte-order mark is accepted). ``read_jsonl`` logs a corrupt
line (not UTF-8, not JSON, too deep, or fields of the wrong type) with its file and line number
and keeps reading, then warns with how many it skipped; with ``strict=True`` it raises. A file
with lines but no readable trajectory raises :class:`~gui_gym.core.io.CorruptFileError`.

Example:
    >>> import tempfile, os
    >>> t = Trajectory(task_id="ClockStopWatchRunning", instruction="Start the stopwatch.", seed=0)
    >>> t.steps.append(Step(action='do(action="Back")', reward=0.0))
    >>> path = os.path.join(tempfile.mkdtemp(), "t.jsonl")
    >>> write_jsonl(path, [t])
    >>> read_jsonl(path)[0].steps[0].action
    'do(action="Back")'
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from gui_gym.core import contract as C
from gui_gym.core.io import atomic_write, read_jsonl_records

log = logging.getLogger(__name__)


@dataclass
class Step:
    """One transition: the observation text the agent saw, its action, and what followed.

    ``action_kind`` is the env contract's kind of the action (:data:`gui_gym.core.contract.ACTION_KINDS`),
    ``""`` when the record does not say (logs written before steps carried it).
    """

    action: str
    observation: str = ""
    reward: float = 0.0
    format_valid: bool = True
    action_description: str = ""
    milestones: list[str] = field(default_factory=list)
    progress: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)
    action_kind: str = ""

    @classmethod
    def from_info(cls, action: Any, info: Mapping[str, Any], observation: str = "", reward: float = 0.0) -> Step:
        """The step of ``action`` from the ``info`` the env returned for it (the contract's keys).

        A structured action is kept as its ``repr``; keys the info lacks take the defaults.

        >>> s = Step.from_info('do(action="Back")', {"format_valid": True, "action_kind": "navigate",
        ...     "action_description": "Press Back", "milestones": [], "progress": 0.25}, reward=1.0)
        >>> s.action_kind, s.action_description, s.progress, s.reward
        ('navigate', 'Press Back', 0.25, 1.0)
        """
        return cls(
            action=action if isinstance(action, str) else repr(action),
            observation=observation,
            reward=float(reward),
            format_valid=bool(info.get(C.FORMAT_VALID, True)),
            action_description=str(info.get(C.ACTION_DESCRIPTION, "")),
            milestones=list(info.get(C.MILESTONES) or []),
            progress=float(info.get(C.PROGRESS, 0.0)),
            action_kind=str(info.get(C.ACTION_KIND, "")),
        )


@dataclass
class Trajectory:
    """An episode of one task instance."""

    task_id: str
    instruction: str
    seed: int | None = None
    steps: list[Step] = field(default_factory=list)
    success: bool = False
    truncated: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.steps)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trajectory:
        """The trajectory of a :meth:`to_dict` record; ValueError naming the first field that does
        not fit (wrong types would pass the constructors and fail far from the line that held them)."""
        if not isinstance(d, dict) or "task_id" not in d or "instruction" not in d:
            raise ValueError("a trajectory needs task_id and instruction")
        _check_fields(d, _TRAJECTORY_FIELDS, "trajectory")
        for i, s in enumerate(d.get("steps", [])):
            if not isinstance(s, dict) or "action" not in s:
                raise ValueError(f"step {i} must be an object with an action")
            _check_fields(s, _STEP_FIELDS, f"step {i}")
            if not all(isinstance(m, str) for m in s.get("milestones", [])):
                raise ValueError(f"step {i}: milestones must be strings")
        steps = [Step(**s) for s in d.get("steps", [])]
        rest = {k: v for k, v in d.items() if k != "steps"}
        return cls(steps=steps, **rest)


_NUMBER = (int, float)
#: The JSON types of each field of a record (bool is an int in Python: numbers exclude it below).
_TRAJECTORY_FIELDS: dict[str, tuple[type, ...]] = {
    "task_id": (str,), "instruction": (str,), "seed": (int, type(None)), "steps": (list,),
    "success": (bool,), "truncated": (bool,), "meta": (dict,),
}  # fmt: skip
_STEP_FIELDS: dict[str, tuple[type, ...]] = {
    "action": (str,), "observation": (str,), "reward": _NUMBER, "format_valid": (bool,),
    "action_description": (str,), "milestones": (list,), "progress": _NUMBER, "info": (dict,), "action_kind": (str,),
}  # fmt: skip


def _check_fields(record: dict[str, Any], fields: Mapping[str, tuple[type, ...]], what: str) -> None:
    if unknown := sorted(set(record) - set(fields)):
        raise ValueError(f"{what}: unknown field(s) {', '.join(map(repr, unknown))}")
    for key, value in record.items():
        types = fields[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            names = " or ".join("null" if t is type(None) else t.__name__ for t in types)
            raise ValueError(f"{what}: {key} must be {names}, not {type(value).__name__}")


def write_jsonl(path: str | os.PathLike, trajectories: Iterable[Trajectory], append: bool = False) -> None:
    """Write trajectories one per line; without ``append`` the file is replaced atomically."""
    lines = "".join(json.dumps(t.to_dict(), ensure_ascii=False) + "\n" for t in trajectories)
    if append:
        with open(path, "a", encoding="utf-8") as f:
            f.write(lines)
        return
    atomic_write(path, lambda f: f.write(lines))


def read_jsonl(path: str | os.PathLike, strict: bool = False) -> list[Trajectory]:
    """Read trajectories; corrupt lines are logged with file and line, skipped and counted (or,
    with ``strict``, raise ValueError). FileNotFoundError if there is no file; a file with lines
    but no readable trajectory raises :class:`~gui_gym.core.io.CorruptFileError`."""
    return read_jsonl_records(path, "trajectory", Trajectory.from_dict, strict=strict, report=log)
