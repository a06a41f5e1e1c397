"""AndroidWorld's information-retrieval tasks on Tasks.org (``proto/tasks.textproto``).

Each is defined by AndroidWorld's data (:mod:`gui_gym.android.sim.tasks.information`): the goal
and parameters are drawn as AndroidWorld draws them, the start state is its relevant tasks and 20
noise tasks written as the app's ``tasks`` rows, shuffled, and the answer is judged as
AndroidWorld's ``check_agent_answer`` judges it. The expert opens the app, turns on the list
filter a person needs ("Show completed" for completed tasks, "Show unstarted" for a task whose
start date is still to come), brings each task of the answer into view and answers.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.tasks.app import TaskList
from gui_gym.android.sim.apps.tasks.data import LABEL, Task, TasksData
from gui_gym.android.sim.apps.tasks.storage import insert
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app
from gui_gym.android.sim.tasks.information import Exclusion, InformationTask, Row, show_row, task_rows
from gui_gym.android.sim.widgets import ROW_H

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def _db(dev: Device) -> TasksData:
    return dev.data("tasks")


def relevant(dev: Device, p: Params) -> list[Task]:
    """The tasks of the answer (the relevant rows AndroidWorld inserted), as the app has them now."""
    db = _db(dev)
    return [t for uid in p["relevant_ids"] if (t := db.by_uid(uid)) is not None]


def listed(dev: Device, p: Params) -> bool:
    """The task list is in front and its filters show every task of the answer."""
    top = dev.top_screen()
    if not (in_app(dev, "tasks") and isinstance(top, TaskList)):
        return False
    shown = {t.uid for t in _db(dev).visible(dev.state.now)}
    return all(uid in shown for uid in p["relevant_ids"])


def _filter_step(o: Oracle, item: str, wanted: bool) -> str | None:
    """Turn the list filter ``item`` ("Show completed" / "Show unstarted") on or off through the
    overflow menu; ``None`` once it is as ``wanted``."""
    db = _db(o.dev)
    on = db.show_completed if item == "Show completed" else db.show_unstarted
    if on == wanted:
        return None
    d = o.dialog
    if isinstance(d, MenuDialog) and d.handler == "on_more":
        return o.tap(o.find(item, role="menuitem"))
    if d is not None:
        return o.back()
    return o.tap(o.find(desc="More options"))


def _row_step(o: Oracle, t: Task) -> str | None:
    """Scroll the list until ``t``'s row shows whole; ``None`` once it does. (Rows have one
    height: the list's scroll offset says which show.)"""
    visible = _db(o.dev).visible(o.dev.state.now)
    pos = next((i for i, x in enumerate(visible) if x.uid == t.uid), None)
    lst = o.find(rid=":id/recycler_view", role="list")
    return None if pos is None else show_row(o, lst, pos, ROW_H)


class TasksQuestion(InformationTask):
    """An IR task on Tasks.org: set-up writes the ``tasks`` rows; the expert reads the list."""

    app = "tasks"
    apps = ("tasks",)
    placeholders: ClassVar[dict[str, str]] = {"Titles": "titles"}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "tasks")),
        Milestone("Show <Titles> in the task list", listed),
    )

    def write_state(
        self, dev: Device, params: Params, rows: list[Row], exclusions: list[Exclusion], r: random.Random
    ) -> None:
        data = _db(dev)
        data.tasks.clear()
        data.next_uid = 1
        inserted, where = task_rows(rows, exclusions, r, params.get("seed"))
        tasks = [insert(data, values) for values in inserted]
        params["relevant_ids"] = [tasks[i].uid for i in where]
        params["titles"] = ", ".join(tasks[i].name for i in where)

    def oracle(self, o: Oracle) -> str:
        if o.app != "tasks":
            return o.launch(LABEL)
        s = o.screen
        if not isinstance(s, TaskList):
            return o.back()
        tasks = relevant(o.dev, o.p)
        need_done = any(t.completed for t in tasks)
        need_unstarted = any(t.hidden(o.dev.state.now) for t in tasks)
        act = _filter_step(o, "Show completed", True) if need_done else None
        act = act or (_filter_step(o, "Show unstarted", True) if need_unstarted else None)
        if act is not None:
            return act
        if o.dialog is not None:
            return o.back()
        for t in tasks:
            act = _row_step(o, t)
            if act is not None:
                return act
        return o.answer(self.answer(o.p))


class TasksDueOnDate(TasksQuestion):
    id = "TasksDueOnDate"
    difficulty = "easy"
    optimal_steps = 2
    tags = ("search", "parameterized")


class TasksHighPriorityTasks(TasksQuestion):
    id = "TasksHighPriorityTasks"
    difficulty = "medium"
    optimal_steps = 2
    tags = ("complex_ui_understanding", "search", "information_retrieval", "transcription", "parameterized")


class TasksHighPriorityTasksDueOnDate(TasksQuestion):
    id = "TasksHighPriorityTasksDueOnDate"
    difficulty = "medium"
    optimal_steps = 5
    tags = ("information_retrieval", "screen_reading", "parameterized")


class TasksDueNextWeek(TasksQuestion):
    """The answer is a count (always 6: the relevant tasks, one on each of six days of Oct 16-22)."""

    id = "TasksDueNextWeek"
    difficulty = "medium"
    optimal_steps = 6
    tags = ("information_retrieval", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {}
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "tasks")),
        Milestone("Show the tasks due next week in the task list", listed),
    )


class TasksCompletedTasksForDate(TasksQuestion):
    id = "TasksCompletedTasksForDate"
    difficulty = "medium"
    optimal_steps = 5
    tags = ("information_retrieval", "search", "parameterized")
    milestones = (
        Milestone(f"Open {LABEL}", lambda d, p: in_app(d, "tasks")),
        Milestone("Show the completed tasks", lambda d, p: in_app(d, "tasks") and _db(d).show_completed),
        Milestone("Show <Titles> in the task list", listed),
    )


class TasksIncompleteTasksOnDate(TasksQuestion):
    id = "TasksIncompleteTasksOnDate"
    difficulty = "easy"
    optimal_steps = 2
    tags = ("parameterized", "screen_reading", "information_retrieval")


TEMPLATES = (
    TasksCompletedTasksForDate,
    TasksDueNextWeek,
    TasksDueOnDate,
    TasksHighPriorityTasks,
    TasksHighPriorityTasksDueOnDate,
    TasksIncompleteTasksOnDate,
)

__all__ = ["TEMPLATES", "TasksQuestion"]
