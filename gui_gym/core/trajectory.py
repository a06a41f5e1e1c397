"""Step and trajectory records with JSON Lines read/write.

One trajectory per line. ``read_jsonl`` reports a corrupt line with its file and line
number and keeps reading (or raises, with ``strict=True``).

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
from gui_gym.core.io import atomic_write

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
        if not isinstance(d, dict) or "task_id" not in d or "instruction" not in d:
            raise ValueError("a trajectory needs task_id and instruction")
        # Wrong container types would pass the constructors and fail far from the line that held them.
        if not isinstance(d.get("steps", []), list) or not isinstance(d.get("meta", {}), dict):
            raise ValueError("steps must be a list and meta an object")
        for s in d.get("steps", []):
            if not isinstance(s, dict) or not isinstance(s.get("info", {}), dict):
                raise ValueError("each step must be an object with an object info")
            if not isinstance(s.get("milestones", []), list):
                raise ValueError("a step's milestones must be a list")
        steps = [Step(**s) for s in d.get("steps", [])]
        rest = {k: v for k, v in d.items() if k != "steps"}
        return cls(steps=steps, **rest)


def write_jsonl(path: str | os.PathLike, trajectories: Iterable[Trajectory], append: bool = False) -> None:
    """Write trajectories one per line; without ``append`` the file is replaced atomically."""
    lines = "".join(json.dumps(t.to_dict(), ensure_ascii=False) + "\n" for t in trajectories)
    if append:
        with open(path, "a", encoding="utf-8") as f:
            f.write(lines)
        return
    atomic_write(path, lambda f: f.write(lines))


def read_jsonl(path: str | os.PathLike, strict: bool = False) -> list[Trajectory]:
    """Read trajectories; corrupt lines are logged with file and line and skipped."""
    out: list[Trajectory] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                out.append(Trajectory.from_dict(json.loads(line)))
            except (ValueError, TypeError, RecursionError) as e:
                msg = f"{path}:{lineno}: skipped corrupt trajectory line ({e})"
                if strict:
                    raise ValueError(msg) from None
                log.warning(msg)
    return out
