"""Tasks.org's data: its ``tasks`` rows (:class:`Task`) in a :class:`TasksData`.

A :class:`Task` is one row of the real app's ``tasks`` table (org.tasks 13.6, the
``org.tasks_130605.apk`` AndroidWorld installs; Room entity ``com.todoroo.astrid.data.Task``),
with the column names as attribute names:

- ``importance``: 0 high, 1 medium, 2 low, 3 none (``Task.Priority``); a new task's is 3;
- ``dueDate``, ``hideUntil`` (the start date: the task is hidden before it), ``created``,
  ``modified``, ``completed``, ``deleted``: Unix milliseconds on the phone's UTC clock, 0 for none.
  A due date without a time is stored at noon with 0 seconds; one with a time has its seconds set
  to 1 (``Task.hasDueTime``: ``dueDate % 60000 > 0``);
- ``notes``, ``title``, ``remoteId``: text or NULL (``None``);
- the columns the simulator does not model (timers, reminders, recurrence, parent, order, ...)
  in :attr:`Task.extra`, as a pushed database set them.

:attr:`Task.uid` is the row's ``_id``. Plain picklable data (the device snapshots it); the screens
are in ``app``, the database the real app keeps on the phone in ``storage``. The list's filters
("Show completed", "Show unstarted") are the app's preferences, kept here beside the rows.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

PKG = "org.tasks"
LABEL = "Tasks"
#: the priority names by level (the editor's and the gui-gym tasks' scale: 0 none ... 3 high)
PRIORITIES = ("None", "Low", "Medium", "High")
#: ``Task.Priority``: the stored ``importance`` of each level is ``3 - level``
HIGH, MEDIUM, LOW, NONE = 0, 1, 2, 3
_EPOCH = dt.datetime(1970, 1, 1)


def ms(when: dt.datetime) -> int:
    """A phone time (naive, UTC) in Unix milliseconds."""
    return (when - _EPOCH) // dt.timedelta(milliseconds=1)


def at(millis: int) -> dt.datetime:
    """The phone time (naive, UTC) of Unix milliseconds."""
    return _EPOCH + dt.timedelta(milliseconds=millis)


@functools.lru_cache(maxsize=4096, typed=True)
def _day(millis: int) -> dt.date:
    """The day of Unix milliseconds (kept: the list sorts and labels its tasks by due day at
    every step; a date is immutable)."""
    return at(millis).date()


def due_ms(day: dt.date) -> int:
    """A due date without a time as the app stores it (``Task.createDueDate``): noon, 0 seconds."""
    return ms(dt.datetime.combine(day, dt.time(12)))


@dataclass
class Task:
    title: str | None = ""
    importance: int = NONE
    dueDate: int = 0
    hideUntil: int = 0
    created: int = 0
    modified: int = 0
    completed: int = 0
    deleted: int = 0
    notes: str | None = None
    remoteId: str | None = None
    uid: int = 0
    #: the columns the simulator does not model, as a pushed database set them
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """The title as the list shows it (a NULL title is empty)."""
        return self.title or ""

    @property
    def due(self) -> dt.date | None:
        """The due day, or ``None`` without a due date."""
        return _day(self.dueDate) if self.dueDate > 0 else None

    @due.setter
    def due(self, day: dt.date | None) -> None:
        self.dueDate = 0 if day is None else due_ms(day)

    @property
    def has_due_time(self) -> bool:
        """``Task.hasDueTime``: a due time was set (the seconds are not 0)."""
        return self.dueDate > 0 and self.dueDate % 60000 > 0

    @property
    def priority(self) -> int:
        """The priority level, 0 none ... 3 high (``3 - importance``; out-of-range values clamp)."""
        return 3 - min(max(self.importance, HIGH), NONE)

    @priority.setter
    def priority(self, level: int) -> None:
        self.importance = 3 - level

    def hidden(self, now: dt.datetime) -> bool:
        """``Task.isHidden``: its start date (``hideUntil``) is still to come."""
        return self.hideUntil > ms(now)


@dataclass
class TasksData:
    tasks: list[Task] = field(default_factory=list)
    show_completed: bool = False
    show_unstarted: bool = False
    next_uid: int = 1

    @property
    def live(self) -> list[Task]:
        """The tasks not deleted (a deleted task keeps its row, with ``deleted`` set)."""
        return [t for t in self.tasks if not t.deleted]

    def add(self, t: Task) -> Task:
        t.uid = self.next_uid
        self.next_uid += 1
        if t.remoteId is None:  # the app gives a new task a random positive Long as text
            digest = hashlib.sha256(f"{t.uid}:{t.created}:{t.title}".encode()).digest()
            t.remoteId = str(int.from_bytes(digest[:8], "big") >> 1)
        self.tasks.append(t)
        return t

    def new(self, title: str, now: dt.datetime, due: dt.date | None = None, priority: int = 0, notes: str = "") -> Task:
        """A task made in the app's editor at ``now``."""
        t = Task(title, importance=3 - priority, created=ms(now), modified=ms(now), notes=notes)
        t.due = due
        return self.add(t)

    def by_uid(self, uid: int | None) -> Task | None:
        """The task ``uid`` unless it is deleted."""
        return next((t for t in self.live if t.uid == uid), None)

    def find(self, title: str) -> list[Task]:
        key = " ".join(title.lower().split())
        return [t for t in self.live if " ".join(t.name.lower().split()) == key]

    def visible(self, now: dt.datetime) -> list[Task]:
        """The list as shown: tasks not deleted, not completed unless "Show completed" is on, not
        hidden until a later start unless "Show unstarted" is on; open tasks by due day (none
        last), priority and title, then completed ones."""

        def key(t: Task) -> tuple:
            due = t.due
            return (bool(t.completed), due is None, due or dt.date.max, t.importance, t.name.lower(), t.uid)

        now_ms = ms(now)  # Task.hidden's bound
        return sorted(
            (
                t
                for t in self.live
                if (self.show_completed or not t.completed) and (self.show_unstarted or not t.hideUntil > now_ms)
            ),
            key=key,
        )
