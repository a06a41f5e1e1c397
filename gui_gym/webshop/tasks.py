"""WebShop goals as gui-gym tasks: ids, tiers and selections.

A goal's id is ``<kind>:<index>`` — ``human:42`` is the 43rd goal upstream's server serves
(after its fixed shuffle) from the human-goal file; the same catalog, price seed and goal kind
always give the same goal. Its tier counts what the shopper must get right, the goal's
attributes and options: up to 2 is ``easy``, 3-4 ``medium``, 5 or more ``hard``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gui_gym.core.task import DIFFICULTIES, TaskSpec

if TYPE_CHECKING:
    from gui_gym.webshop.engine import Shop

__all__ = ["GoalTask", "difficulty_of", "goal_tasks", "resolve", "select_goals", "spec_of"]


def difficulty_of(goal: dict[str, Any]) -> str:
    n = len(goal["attributes"]) + len(goal["goal_options"])
    return "easy" if n <= 2 else "medium" if n <= 4 else "hard"


@dataclass(frozen=True)
class GoalTask:
    """One goal of a shop: its id, index into the served goals, tier, category and text."""

    id: str
    index: int
    difficulty: str
    category: str
    instruction: str
    milestones: tuple[str, ...]


def goal_tasks(shop: Shop, indices: Iterable[int]) -> list[GoalTask]:
    from gui_gym.webshop.expert import goal_milestones

    out = []
    for i in indices:
        goal = shop.goals[i]
        labels = tuple(m.label for m in goal_milestones(goal))
        out.append(
            GoalTask(
                f"{shop.goal_kind}:{i}", i, difficulty_of(goal), goal["category"], goal["instruction_text"], labels
            )
        )
    return out


def select_goals(
    tasks: Sequence[GoalTask], selection: str | Sequence[str] | None, everything: Sequence[GoalTask] | None = None
) -> list[GoalTask]:
    """Goals by id, tier, category, ``all``/``None``, a list or a comma list of those. Tiers and
    categories pick from *tasks* (a split); ids may name any goal of *everything* (the shop)."""
    if selection is None or selection == "all":
        return list(tasks)
    parts = [p.strip() for p in selection.split(",") if p.strip()] if isinstance(selection, str) else list(selection)
    by_id = {t.id: t for t in (everything if everything is not None else tasks)}
    out: list[GoalTask] = []
    for part in parts:
        if part == "all":
            out.extend(tasks)
        elif part in DIFFICULTIES:
            out.extend(t for t in tasks if t.difficulty == part)
        elif part in by_id:
            out.append(by_id[part])
        elif any(t.category == part for t in tasks):
            out.extend(t for t in tasks if t.category == part)
        else:
            close = difflib.get_close_matches(str(part), list(by_id)[:5000], n=3, cutoff=0.6)
            hint = (
                f" Did you mean {', '.join(close)}?"
                if close
                else " Goal ids look like human:42 (kind:index in this split)."
            )
            raise ValueError(f"unknown task id {part!r} (a WebShop goal).{hint}")
    if not out:
        raise ValueError(f"no WebShop goals selected by {selection!r}")
    return list(dict.fromkeys(out))


def resolve(
    selection: str | Sequence[str] | None,
    everything: Sequence[GoalTask],
    split_tasks: Sequence[GoalTask],
    convention: str = "upstream",
) -> list[GoalTask]:
    """:func:`select_goals`, where a part may also be ``<split>`` or ``<split>:<selection>``
    (``test:hard``, ``eval:beauty``) under the split *convention*; other parts pick from
    *split_tasks* (ids from anywhere)."""
    from gui_gym.webshop.goals import SPLITS, split_indices

    if selection is None or selection == "all":
        return list(split_tasks)
    parts = [p.strip() for p in selection.split(",") if p.strip()] if isinstance(selection, str) else list(selection)
    out: list[GoalTask] = []
    for part in parts:
        split, _, rest = str(part).partition(":")
        if split in SPLITS:
            pool = [everything[i] for i in split_indices(len(everything), split, convention)]
            out += select_goals(pool, rest or None, everything)
        else:
            out += select_goals(split_tasks, part, everything)
    if not out:
        raise ValueError(f"no WebShop goals selected by {selection!r}")
    return list(dict.fromkeys(out))


def spec_of(task: GoalTask) -> TaskSpec:
    return TaskSpec(task.id, task.category, task.difficulty, task.instruction, task.milestones)
