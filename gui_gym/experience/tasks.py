"""Selecting experiences: by id, by simulator task, by tier, by split.

An experience's id is ``<task>/<seed>`` in the embedded set and the data set's episode id
otherwise. A selection is an id, a simulator task name (all its seeds), a tier (``easy``,
``medium``, ``hard``), a split (``train``/``test``, where the data names one), a selection
within a split (``train:easy``, ``test:ContactsAddContact``), ``all`` or ``None``, a list of
those or a comma list.

>>> from gui_gym.experience.embedded import embedded_experiences
>>> pool = embedded_experiences()
>>> [e.id for e in select_experiences(pool, "ClockStopWatchRunning")][:3]
['ClockStopWatchRunning/0', 'ClockStopWatchRunning/1', 'ClockStopWatchRunning/2']
>>> len(select_experiences(pool, "test")) == 2 * len({e.task for e in pool})
True
>>> {e.seed for e in select_experiences(pool, "test:easy")}
{6, 7}
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from gui_gym.core.task import DIFFICULTIES, TaskSpec
from gui_gym.experience.record import Experience

__all__ = ["select_experiences", "spec_of"]


def select_experiences(experiences: Sequence[Experience], selection: str | Sequence[str] | None) -> list[Experience]:
    """The experiences *selection* names (see the module docstring), in data order."""
    if selection is None or selection == "all":
        return list(experiences)
    if isinstance(selection, str):
        parts = [p.strip() for p in selection.split(",") if p.strip()]
    else:
        parts = [str(p) for p in selection]
    by_id = {e.id: e for e in experiences}
    splits = {e.meta.get("split") for e in experiences} - {None}
    chosen: set[str] = set()
    for part in parts:
        split, _, rest = part.partition(":")
        if rest and split in splits:  # "train:easy": a selection within a split
            pool = [e for e in experiences if e.meta.get("split") == split]
            chosen.update(e.id for e in select_experiences(pool, rest))
        elif part == "all":
            chosen.update(by_id)
        elif part in by_id:
            chosen.add(part)
        elif part in DIFFICULTIES:
            chosen.update(e.id for e in experiences if e.difficulty == part)
        elif any(e.task == part for e in experiences):
            chosen.update(e.id for e in experiences if e.task == part)
        elif any(e.meta.get("split") == part for e in experiences):
            chosen.update(e.id for e in experiences if e.meta.get("split") == part)
        else:
            names = list(by_id)[:5000] + sorted({e.task for e in experiences if e.task})
            close = difflib.get_close_matches(part, names, n=3, cutoff=0.6)
            hint = f" Did you mean {', '.join(close)}?" if close else " Ids look like ContactsAddContact/3."
            raise ValueError(f"unknown task id {part!r} (an experience).{hint}")
    out = [e for e in experiences if e.id in chosen]
    if not out:
        raise ValueError(f"no experiences selected by {selection!r}")
    return out


def spec_of(e: Experience) -> TaskSpec:
    """An experience as a task spec (its id, app, tier and goal)."""
    return TaskSpec(e.id, e.app or "", e.difficulty, e.goal)
