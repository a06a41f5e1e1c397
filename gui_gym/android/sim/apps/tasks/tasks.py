"""gui-gym's own Tasks (Tasks.org) tasks; AndroidWorld's (TasksHighPriorityTasks, TasksDueOnDate, …) are
in ``questions``."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.tasks.app import PRIORITIES, Task, TaskEditor, TaskList, TasksData, due_label
from gui_gym.android.sim.apps.tasks.data import ms
from gui_gym.android.sim.dialogs import AlertDialog, DatePickerDialog, MenuDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, normalize_answer
from gui_gym.android.sim.tasks.data import TASK_TITLES, pick
from gui_gym.android.sim.widgets import ROW_H
from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

TITLES = (
    *TASK_TITLES,
    "Buy groceries",
    "Book flights",
    "Renew passport",
    "Walk the dog",
    "Pay electricity bill",
    "Send invoice",
    "Plan birthday party",
    "Read chapter 5",
    "Cancel gym membership",
    "Email the landlord",
    "Defrost the freezer",
    "Submit expense report",
    "Buy a gift for Ana",
    "Sort the recycling",
)
TODAY = dt.date(2023, 10, 15)  # the default clock's date (TaskTemplate.clock)


def db(dev: Device) -> TasksData:
    return dev.data("tasks")


def in_tasks(dev: Device) -> bool:
    return dev.state.foreground == "tasks" and not dev.state.recents_open


def screens(dev: Device) -> list:
    return dev.state.stacks.get("tasks", [])


def long_date(d: dt.date) -> str:
    return f"{d:%A}, {d:%B} {d.day}"


def day(p: Params, key: str) -> dt.date:
    """A date parameter (kept as ISO text so that parameters stay JSON-friendly)."""
    return dt.date.fromisoformat(p[key])


def due_of(dev: Device, title: str) -> dt.date | None:
    t = find(dev, title)
    return None if t is None else t.due


def find(dev: Device, title: str) -> Task | None:
    found = db(dev).find(title)
    return found[0] if len(found) == 1 else None


def state_of(dev: Device) -> list[list]:
    """Every task's fields (title, ISO due date, priority, completed, notes), to tell what changed."""
    return sorted(
        [t.name, t.due.isoformat() if t.due else "", t.priority, bool(t.completed), t.notes or ""] for t in db(dev).live
    )


def populate(dev: Device, rng: np.random.Generator, n: int, avoid: tuple[str, ...] = ()) -> list[Task]:
    """``n`` tasks with distinct titles (none of ``avoid``), due within two weeks or undated,
    with random priorities; none completed."""
    names = [t for t in pick(rng, TITLES, len(TITLES)) if t not in avoid][:n]
    out = []
    for title in names:
        due = None if rng.random() < 0.3 else TODAY + dt.timedelta(days=int(rng.integers(-2, 15)))
        out.append(db(dev).new(title, dev.state.now, due, int(rng.integers(4))))
    return out


def editor_with(dev: Device, pred: Callable[[TaskEditor], bool]) -> bool:
    """Some task editor of the Tasks back stack satisfies ``pred``."""
    return any(isinstance(s, TaskEditor) and pred(s) for s in screens(dev))


def options_open(dev: Device, title: str) -> bool:
    """The options of the task ``title`` show: its long-press menu or delete confirmation in the
    list (:attr:`TaskList.target` is the task they were opened for), or the delete confirmation
    of its editor. Another task's menu, the overflow menu or the priority menu do not count."""
    uids = {t.uid for t in db(dev).find(title)}
    for s in screens(dev):
        d = s.dialog
        if isinstance(s, TaskList) and s.target in uids:
            if isinstance(d, MenuDialog | AlertDialog) and d.handler in ("on_menu", "on_delete"):
                return True
        elif isinstance(s, TaskEditor) and s.uid in uids and isinstance(d, AlertDialog) and d.handler == "on_delete":
            return True
    return False


def list_menu_open(dev: Device) -> bool:
    """The task list's overflow menu ("More options": show/hide or clear completed tasks), or the
    confirmation its "Clear completed" opens, shows; not the long-press menu of a task."""
    return any(
        isinstance(s, TaskList)
        and (
            (isinstance(s.dialog, MenuDialog) and s.dialog.handler == "on_more")
            or (isinstance(s.dialog, AlertDialog) and s.dialog.handler == "on_clear")
        )
        for s in screens(dev)
    )


# ----------------------------------------------------------------------------- oracle steps


def to_list(o: Oracle) -> str | None:
    """From anywhere: get to the task list with nothing open over it; ``None`` once there."""
    if o.app != "tasks":
        return o.launch("Tasks")
    return None if o.on(TaskList) else o.back()


def task_row(o: Oracle, t: Task) -> str | None:
    """From anywhere: get to the list and scroll until ``t``'s row shows (showing completed
    tasks first if ``t`` is one of them); ``None`` when it does."""
    s = o.screen
    hidden = t.completed and not db(o.dev).show_completed
    if (
        hidden
        and o.app == "tasks"
        and isinstance(s, TaskList)
        and isinstance(s.dialog, MenuDialog)
        and s.dialog.title == ""
    ):
        return o.tap(o.find("Show completed", role="menuitem"))
    act = to_list(o)
    if act is not None:
        return act
    if hidden:
        return o.tap(o.find(desc="More options"))
    visible = db(o.dev).visible(o.dev.state.now)
    order = {x.name: i for i, x in enumerate(visible)}
    pos = order.get(t.name, len(visible))
    act = o.reveal(lambda n: n.role == "row" and n.label == t.name, before=lambda r: order.get(r.label, -1) < pos)
    return act or unclip(o, o.find(role="row", label=t.name))


def unclip(o: Oracle, row: Node | None) -> str | None:
    """A short swipe when ``row`` is cut off at an edge of its list; ``None`` if it shows whole."""
    lst = o.find(role="list")
    if row is None or lst is None or row.bounds[3] - row.bounds[1] >= ROW_H:
        return None
    return o.swipe("down" if row.bounds[1] <= lst.bounds[1] else "up", dist="short", within=lst)


def open_task(o: Oracle, title: str) -> str | None:
    """From anywhere: open the editor of the task ``title``; ``None`` once it is open."""
    t = find(o.dev, title)
    assert t is not None, title
    s = o.screen
    if o.app == "tasks" and isinstance(s, TaskEditor) and s.uid == t.uid:
        return None
    return task_row(o, t) or o.tap(o.find(role="row", label=t.title))


def set_due(o: Oracle, s: TaskEditor, due: dt.date) -> str | None:
    """In the editor: make the due date ``due``; ``None`` once it is."""
    d = o.dialog
    if isinstance(d, DatePickerDialog):
        if (d.date.year, d.date.month) != (due.year, due.month):
            return o.tap(o.find(desc="Next month" if d.date < due else "Previous month"))
        if d.date != due:
            return o.tap(o.find(desc=f"{due.day} {due:%B %Y}", role="day"))
        return o.tap(o.find(label="OK", role="textbutton"))
    if s.due == due:
        return None
    return o.back() if d is not None else o.tap(o.find(role="row", label="Due date"))


def set_priority(o: Oracle, s: TaskEditor, priority: int) -> str | None:
    """In the editor: make the priority ``priority``; ``None`` once it is."""
    if isinstance(o.dialog, MenuDialog):
        return o.tap(o.find(PRIORITIES[priority], role="menuitem"))
    if s.priority == priority:
        return None
    return o.back() if o.dialog is not None else o.tap(o.find(role="row", label="Priority"))


def add_step(o: Oracle, title: str, due: dt.date | None = None, priority: int = 0) -> str:
    """One step toward saving a new task."""
    s = o.screen
    if o.app == "tasks" and isinstance(s, TaskEditor) and s.uid is None:
        if s.dialog is None:
            act = o.fill("Task name", title)
            if act is not None:
                return act
        act = (set_due(o, s, due) if due else None) or (set_priority(o, s, priority) if priority else None)
        return act or o.tap(o.find(desc="Save"))
    return to_list(o) or o.tap(o.find(desc="Create new task"))


def toggle_step(o: Oracle, title: str) -> str:
    """One step toward tapping the checkbox of the task ``title`` in the list."""
    t = find(o.dev, title)
    assert t is not None, title
    act = task_row(o, t)
    if act is not None:
        return act
    row = o.find(role="row", label=t.title)
    return o.tap(next(c for c in row.children if c.role == "checkbox"))


# ----------------------------------------------------------------------------- tasks


class TasksTask(TaskTemplate):
    app = "tasks"

    def remember(self, dev: Device, p: Params) -> None:
        p["before"] = state_of(dev)

    def others_kept(self, dev: Device, p: Params, *titles: str) -> bool:
        """Every task not named in ``titles`` is as it was at the start."""
        skip = {t.lower() for t in titles}
        now = [x for x in state_of(dev) if x[0].lower() not in skip]
        return now == [x for x in p["before"] if x[0].lower() not in skip]


class TasksAddTask(TasksTask):
    id = "TasksAddTask"
    difficulty = "easy"
    template = 'Add a task "{title}" to my to-do list in Tasks.'
    placeholders: ClassVar[dict[str, str]] = {"Title": "title"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Open the form to create a new task",
            lambda d, p: editor_with(d, lambda s: s.uid is None) or find(d, p["title"]) is not None,
        ),
        Milestone(
            'Enter the title "<Title>"',
            lambda d, p: (
                editor_with(d, lambda s: s.form.get("title", "").strip() == p["title"])
                or find(d, p["title"]) is not None
            ),
        ),
        Milestone("Save the task <Title>", lambda d, p: find(d, p["title"]) is not None),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        return {"title": pick(rng, TITLES)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, int(rng.integers(2, 7)), avoid=(p["title"],))
        self.remember(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        t = find(dev, p["title"])
        return t is not None and not t.completed and self.others_kept(dev, p, p["title"])

    def oracle(self, o: Oracle) -> str:
        if find(o.dev, o.p["title"]) is not None:
            return o.finish()
        return add_step(o, o.p["title"])


class TasksAddTaskWithDetails(TasksTask):
    id = "TasksAddTaskWithDetails"
    difficulty = "medium"
    template = 'Create a task "{title}" in Tasks, due on {date}, with {priority} priority.'
    placeholders: ClassVar[dict[str, str]] = {"Title": "title", "Date": "date", "Priority": "priority"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Open the form to create a new task",
            lambda d, p: editor_with(d, lambda s: s.uid is None) or find(d, p["title"]) is not None,
        ),
        Milestone(
            "Set the due date to <Date>",
            lambda d, p: editor_with(d, lambda s: s.due == day(p, "due")) or due_of(d, p["title"]) == day(p, "due"),
        ),
        Milestone(
            "Set the priority to <Priority>",
            lambda d, p: (
                editor_with(d, lambda s: s.priority == p["level"])
                or ((t := find(d, p["title"])) is not None and t.priority == p["level"])
            ),
        ),
        Milestone("Save the task <Title>", lambda d, p: TasksAddTaskWithDetails.done(d, p)),
    )

    @staticmethod
    def done(dev: Device, p: Params) -> bool:
        t = find(dev, p["title"])
        return t is not None and t.due == day(p, "due") and t.priority == p["level"] and not t.completed

    def sample(self, rng: np.random.Generator) -> Params:
        due = TODAY + dt.timedelta(days=int(rng.integers(1, 17)))  # within this month: one picker page
        level = int(rng.integers(1, 4))
        return {
            "title": pick(rng, TITLES),
            "due": due.isoformat(),
            "date": long_date(due),
            "level": level,
            "priority": PRIORITIES[level].lower(),
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, int(rng.integers(2, 7)), avoid=(p["title"],))
        self.remember(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return self.done(dev, p) and self.others_kept(dev, p, p["title"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.done(o.dev, p):
            return o.finish()
        if find(o.dev, p["title"]) is not None:  # saved, but not right yet: edit it
            s = o.screen
            act = open_task(o, p["title"])
            if act is not None:
                return act
            return set_due(o, s, day(p, "due")) or set_priority(o, s, p["level"]) or o.tap(o.find(desc="Save"))
        return add_step(o, p["title"], day(p, "due"), p["level"])


class TasksAddMultiple(TasksTask):
    id = "TasksAddMultiple"
    difficulty = "hard"
    template = 'Add three tasks to my list in Tasks: "{title1}", "{title2}" and "{title3}".'
    placeholders: ClassVar[dict[str, str]] = {"Title1": "title1", "Title2": "title2", "Title3": "title3"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone("Save the task <Title1>", lambda d, p: find(d, p["title1"]) is not None),
        Milestone("Save the task <Title2>", lambda d, p: find(d, p["title2"]) is not None),
        Milestone("Save the task <Title3>", lambda d, p: find(d, p["title3"]) is not None),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        t1, t2, t3 = pick(rng, TITLES, 3)
        return {"title1": t1, "title2": t2, "title3": t3}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, int(rng.integers(2, 6)), avoid=(p["title1"], p["title2"], p["title3"]))
        self.remember(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        titles = [p["title1"], p["title2"], p["title3"]]
        return all(find(dev, t) is not None for t in titles) and self.others_kept(dev, p, *titles)

    def oracle(self, o: Oracle) -> str:
        for key in ("title1", "title2", "title3"):
            if find(o.dev, o.p[key]) is None:
                return add_step(o, o.p[key])
        return o.finish()


class TasksCompleteTask(TasksTask):
    id = "TasksCompleteTask"
    difficulty = "easy"
    template = "Mark the task {title} as completed in Tasks."
    placeholders: ClassVar[dict[str, str]] = {"Title": "title"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone("Complete the task <Title>", lambda d, p: (t := find(d, p["title"])) is not None and t.completed),
    )

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        tasks = populate(dev, rng, int(rng.integers(4, 10)))
        p["title"] = tasks[int(rng.integers(len(tasks)))].title
        for t in tasks:
            if t.title != p["title"] and rng.random() < 0.2:
                t.completed = ms(dev.state.now)
        self.remember(dev, p)

    def sample(self, rng: np.random.Generator) -> Params:
        return {"title": ""}  # chosen among the tasks at set-up

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        t = find(dev, p["title"])
        return t is not None and t.completed and self.others_kept(dev, p, p["title"])

    def oracle(self, o: Oracle) -> str:
        t = find(o.dev, o.p["title"])
        if t is None or t.completed:  # done, or the task is gone: nothing left to do
            return o.finish()
        return toggle_step(o, o.p["title"])


class TasksUncompleteTask(TasksTask):
    id = "TasksUncompleteTask"
    difficulty = "easy"
    template = "I marked the task {title} as done by mistake. Mark it as not completed again in Tasks."
    placeholders: ClassVar[dict[str, str]] = {"Title": "title"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone("Show the completed tasks", lambda d, p: db(d).show_completed or TasksUncompleteTask.done(d, p)),
        Milestone("Mark <Title> as not completed", lambda d, p: TasksUncompleteTask.done(d, p)),
    )

    @staticmethod
    def done(dev: Device, p: Params) -> bool:
        t = find(dev, p["title"])
        return t is not None and not t.completed

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        tasks = populate(dev, rng, int(rng.integers(4, 9)))
        target = tasks[int(rng.integers(len(tasks)))]
        target.completed = ms(dev.state.now)
        p["title"] = target.title
        for t in tasks:
            if t is not target and rng.random() < 0.3:
                t.completed = ms(dev.state.now)
        self.remember(dev, p)

    def sample(self, rng: np.random.Generator) -> Params:
        return {"title": ""}  # chosen among the tasks at set-up

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        t = find(dev, p["title"])
        return t is not None and not t.completed and self.others_kept(dev, p, p["title"])

    def oracle(self, o: Oracle) -> str:
        t = find(o.dev, o.p["title"])
        if t is None or not t.completed:  # done, or the task is gone: nothing left to do
            return o.finish()
        return toggle_step(o, o.p["title"])


class TasksDeleteTask(TasksTask):
    id = "TasksDeleteTask"
    difficulty = "easy"
    template = "Delete the task {title} in Tasks."
    placeholders: ClassVar[dict[str, str]] = {"Title": "title"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Open the options for <Title>",
            # Or the task is gone already: deleting it took its options.
            lambda d, p: options_open(d, p["title"]) or not db(d).find(p["title"]),
        ),
        Milestone("Delete the task <Title>", lambda d, p: not db(d).find(p["title"])),
    )

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        tasks = populate(dev, rng, int(rng.integers(4, 10)))
        p["title"] = tasks[int(rng.integers(len(tasks)))].title
        self.remember(dev, p)

    def sample(self, rng: np.random.Generator) -> Params:
        return {"title": ""}  # chosen among the tasks at set-up

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not db(dev).find(p["title"]) and self.others_kept(dev, p, p["title"])

    def oracle(self, o: Oracle) -> str:
        t = find(o.dev, o.p["title"])
        if t is None:
            return o.finish()
        s = o.screen
        if isinstance(s, TaskList) and s.target == t.uid:
            if isinstance(s.dialog, MenuDialog):
                return o.tap(o.find("Delete", role="menuitem"))
            if isinstance(s.dialog, AlertDialog):
                return o.tap(o.find(label="Delete", role="textbutton"))
        return task_row(o, t) or o.long_press(o.find(role="row", label=t.title))


class TasksClearCompleted(TasksTask):
    id = "TasksClearCompleted"
    difficulty = "easy"
    template = "Delete all the tasks I have already completed in Tasks, and keep the others."
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Open the menu of the task list",
            # Or the completed tasks are deleted already (the effect of the menu's "Clear
            # completed"); un-checking them is not that.
            lambda d, p: list_menu_open(d) or TasksClearCompleted.cleared(d, p),
        ),
        Milestone("Delete the completed tasks", lambda d, p: TasksClearCompleted.cleared(d, p)),
    )

    @staticmethod
    def done(dev: Device) -> bool:
        """No task is completed (what the oracle works toward from wherever it is)."""
        return not any(t.completed for t in db(dev).live)

    @staticmethod
    def cleared(dev: Device, p: Params) -> bool:
        """No task is completed and the tasks completed at the start are deleted, not un-checked."""
        gone = all(not db(dev).find(x[0]) for x in p["before"] if x[3])
        return gone and TasksClearCompleted.done(dev)

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        tasks = populate(dev, rng, int(rng.integers(5, 10)))
        for i in pick(rng, range(len(tasks)), int(rng.integers(2, 4))):
            tasks[i].completed = ms(dev.state.now)
        self.remember(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return state_of(dev) == [x for x in p["before"] if not x[3]]

    def oracle(self, o: Oracle) -> str:
        if self.done(o.dev):
            return o.finish()
        s = o.screen
        if isinstance(s, TaskList) and isinstance(s.dialog, AlertDialog):
            return o.tap(o.find(label="Delete", role="textbutton"))
        if isinstance(s, TaskList) and isinstance(s.dialog, MenuDialog) and s.dialog.title == "":
            return o.tap(o.find("Clear completed", role="menuitem"))
        return to_list(o) or o.tap(o.find(desc="More options"))


class TasksEditPriority(TasksTask):
    id = "TasksEditPriority"
    difficulty = "medium"
    template = "Set the priority of the task {title} to {priority} in Tasks."
    placeholders: ClassVar[dict[str, str]] = {"Title": "title", "Priority": "priority"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Open the task <Title>",
            lambda d, p: editor_with(d, lambda s: s.uid == p["uid"]) or TasksEditPriority.done(d, p),
        ),
        Milestone(
            "Choose the priority <Priority>",
            lambda d, p: (
                editor_with(d, lambda s: s.uid == p["uid"] and s.priority == p["level"]) or TasksEditPriority.done(d, p)
            ),
        ),
        Milestone("Save the task <Title>", lambda d, p: TasksEditPriority.done(d, p)),
    )

    @staticmethod
    def done(dev: Device, p: Params) -> bool:
        t = find(dev, p["title"])
        return t is not None and t.priority == p["level"]

    def sample(self, rng: np.random.Generator) -> Params:
        level = int(rng.integers(4))
        return {"level": level, "priority": PRIORITIES[level].lower()}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        tasks = populate(dev, rng, int(rng.integers(4, 10)))
        target = tasks[int(rng.integers(len(tasks)))]
        target.priority = (p["level"] + int(rng.integers(1, 4))) % 4
        p["title"], p["uid"] = target.title, target.uid
        self.remember(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        t = find(dev, p["title"])
        return self.done(dev, p) and t is not None and not t.completed and self.others_kept(dev, p, p["title"])

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if self.done(o.dev, p) or find(o.dev, p["title"]) is None:
            return o.finish()
        act = open_task(o, p["title"])
        if act is not None:
            return act
        s = o.screen
        return set_priority(o, s, p["level"]) or o.tap(o.find(desc="Save"))


class TasksRescheduleTasks(TasksTask):
    id = "TasksRescheduleTasks"
    difficulty = "hard"
    template = "In Tasks, move every task that is due on {date1} to {date2}."
    placeholders: ClassVar[dict[str, str]] = {
        "Date1": "date1",
        "Date2": "date2",
        "Title1": "title1",
        "Title2": "title2",
    }
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Open the task <Title1>",
            lambda d, p: editor_with(d, lambda s: s.uid == p["uid1"]) or TasksRescheduleTasks.moved(d, p, "title1"),
        ),
        Milestone("Move <Title1> to <Date2>", lambda d, p: TasksRescheduleTasks.moved(d, p, "title1")),
        Milestone(
            "Open the task <Title2>",
            lambda d, p: editor_with(d, lambda s: s.uid == p["uid2"]) or TasksRescheduleTasks.moved(d, p, "title2"),
        ),
        Milestone("Move <Title2> to <Date2>", lambda d, p: TasksRescheduleTasks.moved(d, p, "title2")),
    )

    @staticmethod
    def moved(dev: Device, p: Params, key: str) -> bool:
        return due_of(dev, p[key]) == day(p, "due2")

    def sample(self, rng: np.random.Generator) -> Params:
        a, b = (int(x) for x in rng.choice(np.arange(2, 24), size=2, replace=False))
        d1, d2 = TODAY + dt.timedelta(days=a), TODAY + dt.timedelta(days=b)
        return {"due1": d1.isoformat(), "due2": d2.isoformat(), "date1": long_date(d1), "date2": long_date(d2)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        tasks = populate(dev, rng, int(rng.integers(5, 10)))
        d1, d2 = day(p, "due1"), day(p, "due2")
        for t in tasks:
            if t.due in (d1, d2):
                t.due = None
        t1, t2 = pick(rng, tasks, 2)
        t1.due = t2.due = d1
        p.update(title1=t1.title, uid1=t1.uid, title2=t2.title, uid2=t2.uid)
        self.remember(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return (
            self.moved(dev, p, "title1")
            and self.moved(dev, p, "title2")
            and self.others_kept(dev, p, p["title1"], p["title2"])
            and not any(t.due == day(p, "due1") for t in db(dev).live)
        )

    def oracle(self, o: Oracle) -> str:
        p = o.p
        for key in ("title1", "title2"):
            if not self.moved(o.dev, p, key) and find(o.dev, p[key]) is not None:
                act = open_task(o, p[key])
                if act is not None:
                    return act
                return set_due(o, o.screen, day(p, "due2")) or o.tap(o.find(desc="Save"))
        return o.finish()


class TasksDueOnDateQuestion(TasksTask):
    id = "TasksDueOnDateQuestion"
    difficulty = "easy"
    kind = "question"
    template = (
        "Which of my tasks that are not completed yet are due on {date}? Answer with their titles, separated by commas."
    )
    placeholders: ClassVar[dict[str, str]] = {"Date": "date"}
    milestones = (
        Milestone("Open the Tasks app", lambda d, p: in_tasks(d)),
        Milestone(
            "Look at the task list", lambda d, p: any(isinstance(s, TaskList) for s in screens(d)) and in_tasks(d)
        ),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        due = TODAY + dt.timedelta(days=int(rng.integers(2, 12)))
        return {"due": due.isoformat(), "date": long_date(due)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        k, due = int(rng.integers(1, 4)), day(p, "due")
        tasks = populate(dev, rng, int(rng.integers(k + 3, 10)))
        for t in tasks[k:]:
            if t.due == due:
                t.due = due + dt.timedelta(days=1)
        for t in tasks[:k]:
            t.due = due
        if rng.random() < 0.5:  # a completed one on that day must not count
            tasks[-1].due, tasks[-1].completed = due, ms(dev.state.now)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        if not answer:
            return False
        want = {normalize_answer(t.name) for t in db(dev).live if t.due == day(p, "due") and not t.completed}
        got = {normalize_answer(x) for x in re.split(r",|;|\n|\band\b", answer) if normalize_answer(x)}
        return bool(want) and got == want

    def oracle(self, o: Oracle) -> str:
        act = to_list(o)
        if act is not None:
            return act
        due = day(o.p, "due")
        # the tasks due that day are adjacent in the list: bring them into view
        for t in db(o.dev).visible(o.dev.state.now):
            if t.due == due and not t.completed:
                act = task_row(o, t)
                if act is not None:
                    return act
        label = due_label(due, o.dev.state.now.date())
        titles = []
        for row in (n for n in o.nodes if n.role == "row"):
            box = next((c for c in row.children if c.role == "checkbox"), None)
            sub = next((c.text for c in row.children if c.role == "subtext"), "")
            if box is not None and not box.checked and sub.split(" · ")[0] == label:
                titles.append(row.label)
        return o.answer(", ".join(titles))


TEMPLATES = (
    TasksAddTask,
    TasksAddTaskWithDetails,
    TasksAddMultiple,
    TasksCompleteTask,
    TasksUncompleteTask,
    TasksDeleteTask,
    TasksClearCompleted,
    TasksEditPriority,
    TasksRescheduleTasks,
    TasksDueOnDateQuestion,
)
