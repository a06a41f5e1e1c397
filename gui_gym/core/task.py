"""The task specification every env publishes through ``list_tasks()``."""

from __future__ import annotations

from dataclasses import dataclass, field

DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True)
class TaskSpec:
    """What a task is, independent of any instance of it.

    ``milestones`` are the annotated ("Static (Human)", ADMIRE Table 3) sub-goals as
    templates with placeholders such as ``<Name>``; ``params`` names the parameters an
    instance samples. ``difficulty`` is the tier: a benchmark's own label where the task comes
    from one (``suite``), else by oracle step count (easy ≤ 5, medium 6-10, hard ≥ 11).
    ``optimal_steps`` and ``tags`` are the benchmark's metadata (``None``/empty for a family's
    own tasks).
    """

    id: str
    app: str
    difficulty: str
    template: str
    milestones: tuple[str, ...] = ()
    params: tuple[str, ...] = ()
    kind: str = "action"  # "action", "question" or "infeasible"
    apps: tuple[str, ...] = field(default=())
    suite: str = ""
    optimal_steps: int | None = None
    tags: tuple[str, ...] = ()
    #: what the task needs beyond the family's engine (``"browser"``); selected by id or suite only
    requires: tuple[str, ...] = ()
    #: named subsets of its suite it belongs to (``"miniwob-subset"``), selected like a suite
    subsets: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.difficulty not in DIFFICULTIES:
            raise ValueError(f"difficulty must be one of {DIFFICULTIES}, got {self.difficulty!r}")
