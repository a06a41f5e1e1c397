"""Tasks (org.tasks, Tasks.org): a to-do list with due dates and priorities.

Data: the app's ``tasks`` rows (:mod:`~gui_gym.android.sim.apps.tasks.data`), served as its
database (:mod:`~gui_gym.android.sim.apps.tasks.storage`). Screens: the task list "My Tasks"
(a checkbox per row completes a task; each row shows the due date and a priority marker; tap a
row to edit it; long press for Mark as completed / Delete; the overflow menu clears completed
tasks and has the real app's "Show completed" and "Show unstarted" filters, both off at first, so
that completed tasks and tasks whose start date (``hideUntil``) is still to come are not listed;
the FAB creates a task; sorted by due date, then priority) and the task editor (title, due date
through a date picker, priority through a menu, description; the Save icon, Back and navigate-up
save, as in Tasks.org; an empty new task is discarded). Deleting marks a task deleted, as the
app does; it leaves the list.
"""

from __future__ import annotations

import datetime as dt
import functools
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.tasks.data import LABEL, PKG, PRIORITIES, Task, TasksData, at, ms
from gui_gym.android.sim.apps.tasks.storage import DATABASE
from gui_gym.android.sim.dialogs import AlertDialog, DatePickerDialog, MenuDialog
from gui_gym.android.sim.widgets import PAD, ROW_H, UI, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

__all__ = ["LABEL", "PKG", "PRIORITIES", "Task", "TaskEditor", "TaskList", "TasksApp", "TasksData", "due_label"]


def _db(dev: Device) -> TasksData:
    return dev.data("tasks")


@functools.lru_cache(maxsize=1024)
def due_label(d: dt.date, today: dt.date) -> str:
    """How the list shows a due date: relative near today, else the short date."""
    names = {today: "Today", today + dt.timedelta(days=1): "Tomorrow", today - dt.timedelta(days=1): "Yesterday"}
    if d in names:
        return names[d]
    return d.strftime("%a, %b %-d" if d.year == today.year else "%b %-d, %Y")


def row_subtitle(t: Task, today: dt.date) -> str:
    """The line under a task's title: its due date (with the time where it has one) and its
    priority marker."""
    parts = []
    if t.due:
        parts.append(due_label(t.due, today) + (f" {at(t.dueDate):%H:%M}" if t.has_due_time else ""))
    if t.priority:
        parts.append(f"{PRIORITIES[t.priority]} priority")
    return " · ".join(parts)


class ListOptions(MenuDialog):
    """The task list's overflow menu: "Clear completed" and the checkable "Show completed" and
    "Show unstarted" filters (``menu_task_list_fragment_bottom``)."""

    def __init__(self, show_completed: bool, show_unstarted: bool) -> None:
        super().__init__(
            "on_more", [("Clear completed", "clear"), ("Show completed", "filter"), ("Show unstarted", "unstarted")]
        )
        self.checked = {"filter": show_completed, "unstarted": show_unstarted}

    def build(self, ui: UI, dev: Device) -> None:
        super().build(ui, dev)
        for n in ui.nodes:
            _mark(n, self.checked)


def _mark(n: Node, checked: dict[str, bool]) -> None:
    """Show the filters' check marks on their menu items."""
    names = {"Show completed": "filter", "Show unstarted": "unstarted"}
    if n.role == "menuitem" and n.text in names:
        n.cls, n.checkable, n.checked = "android.widget.CheckedTextView", True, checked[names[n.text]]
    for c in n.children:
        _mark(c, checked)


class TaskList(Screen):
    """The "My Tasks" list."""

    def __init__(self) -> None:
        super().__init__()
        self.target = 0  # uid of the long-pressed task

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        ui.toolbar("My Tasks", up=False, actions=[("More options", "more", lambda: self._more(dev))])
        today = dev.state.now.date()

        def render(ui: UI, t: Task) -> None:
            _, top, _, b = ui.rect(ROW_H, 0, SCREEN_W)
            row = ui.add(
                Node(
                    "android.widget.LinearLayout",
                    (0, top, SCREEN_W, b),
                    rid=f"{PKG}:id/row",
                    on_tap=lambda: self._open(dev, t.uid),
                    on_long_press=lambda: self._menu(dev, t.uid),
                    label=t.name,
                    role="row",
                )
            )
            row.children.append(
                Node(
                    "android.widget.CheckBox",
                    (PAD, top + 34, PAD + 100, b - 34),
                    package=PKG,
                    rid=f"{PKG}:id/completeBox",
                    checkable=True,
                    checked=bool(t.completed),
                    on_tap=lambda: self._toggle(dev, t.uid),
                    label=t.name,
                    role="checkbox",
                    style=PRIORITIES[t.priority],
                )
            )
            sub = row_subtitle(t, today)
            mid = top + ROW_H // 2 + 4 if sub else b - 30
            row.children.append(
                Node(
                    "android.widget.TextView",
                    (180, top + (20 if sub else 30), 1000, mid),
                    t.name,
                    package=PKG,
                    rid=f"{PKG}:id/title",
                    role="text",
                )
            )
            if sub:
                row.children.append(
                    Node(
                        "android.widget.TextView",
                        (180, mid, 1000, b - 16),
                        sub,
                        package=PKG,
                        rid=f"{PKG}:id/due_date",
                        role="subtext",
                    )
                )

        items = db.visible(dev.state.now)
        ui.scroll_list(self, "list", items, render, empty="No tasks. Tap + to add one", list_id="recycler_view")
        ui.fab("Create new task", lambda: self._create(dev), rid=f"{PKG}:id/fab")

    def _open(self, dev: Device, uid: int) -> str:
        t = _db(dev).by_uid(uid)
        assert t is not None
        dev.push(TaskEditor(uid, t))
        return f'Open the task "{t.name}" in Tasks'

    def _create(self, dev: Device) -> str:
        dev.push(TaskEditor(None))
        return 'Tap the "Create new task" button in Tasks'

    def _toggle(self, dev: Device, uid: int) -> str:
        t = _db(dev).by_uid(uid)
        assert t is not None
        t.completed = 0 if t.completed else ms(dev.state.now)
        t.modified = ms(dev.state.now)
        if t.completed:
            dev.toast("Task completed")
        return f'Mark the task "{t.name}" as {"completed" if t.completed else "not completed"} in Tasks'

    def _more(self, dev: Device) -> str:
        db = _db(dev)
        dev.open_dialog(ListOptions(db.show_completed, db.show_unstarted))
        return 'Tap the "More options" button in Tasks'

    def on_more(self, dev: Device, value: str) -> str:
        db = _db(dev)
        if value == "filter":
            db.show_completed = not db.show_completed
            self.scroll.clear()
            return f"{'Show' if db.show_completed else 'Hide'} completed tasks in Tasks"
        if value == "unstarted":
            db.show_unstarted = not db.show_unstarted
            self.scroll.clear()
            return f"{'Show' if db.show_unstarted else 'Hide'} unstarted tasks in Tasks"
        n = sum(bool(t.completed) for t in db.live)
        if not n:
            dev.toast("No completed tasks")
            return 'Tap "Clear completed" in Tasks (there are no completed tasks)'
        dev.open_dialog(
            AlertDialog(
                "on_clear",
                "Delete completed tasks?",
                f"{n} completed task{'' if n == 1 else 's'} will be deleted.",
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return 'Tap "Clear completed" in Tasks'

    def on_clear(self, dev: Device, value: str) -> str:
        done = [t for t in _db(dev).live if t.completed]
        for t in done:
            _delete(dev, t)
        n = len(done)
        dev.toast(f"Deleted {n} task{'' if n == 1 else 's'}")
        return f"Confirm deleting {n} completed task{'' if n == 1 else 's'} in Tasks"

    def _menu(self, dev: Device, uid: int) -> str:
        t = _db(dev).by_uid(uid)
        assert t is not None
        self.target = uid
        toggle = "Mark as not completed" if t.completed else "Mark as completed"
        dev.open_dialog(MenuDialog("on_menu", [(toggle, "toggle"), ("Delete", "delete")], title=t.name))
        return f'Long press the task "{t.name}" in Tasks'

    def on_menu(self, dev: Device, value: str) -> str | None:
        t = _db(dev).by_uid(self.target)
        if t is None:
            return None
        if value == "toggle":
            return self._toggle(dev, t.uid)
        dev.open_dialog(
            AlertDialog(
                "on_delete", "Delete task?", f'"{t.name}" will be deleted.', [("Cancel", None), ("Delete", "delete")]
            )
        )
        return f'Tap "Delete" for the task "{t.name}" in Tasks'

    def on_delete(self, dev: Device, value: str) -> str:
        t = _db(dev).by_uid(self.target)
        if t is None:
            return 'Tap the "Delete" button in Tasks (already deleted)'
        _delete(dev, t)
        dev.toast("Task deleted")
        return f'Confirm deleting the task "{t.name}" in Tasks'


def _delete(dev: Device, t: Task) -> None:
    """Mark ``t`` deleted, as the app does (``deleted`` is the time; the row stays)."""
    t.deleted = t.modified = ms(dev.state.now)


class TaskEditor(Screen):
    """Create (``uid=None``) or edit a task; changes are kept on the screen until saved."""

    def __init__(self, uid: int | None, task: Task | None = None) -> None:
        super().__init__()
        self.uid = uid
        self.form = {"title": task.name, "notes": task.notes or ""} if task is not None else {}
        self.due = task.due if task is not None else None
        self.priority = task.priority if task is not None else 0
        self.focus = "title" if uid is None else None

    def build(self, ui: UI, dev: Device) -> None:
        def up() -> str:
            return self._close(dev, 'Tap the "Navigate up" button')

        actions = [("Save", "check", lambda: self._save_tap(dev))]
        if self.uid is not None:
            actions.append(("Delete task", "delete", lambda: self._delete(dev)))
        ui.toolbar("New task" if self.uid is None else "Edit task", up=up, actions=actions)
        ui.spacer(30)
        ui.field(self, "title", "Task name", rid=f"{PKG}:id/title", label="Task name")
        top = ui.y
        clear = None
        if self.due is not None:
            clear = Node(
                "android.widget.ImageButton",
                (SCREEN_W - 170, top + 24, SCREEN_W - 50, top + ROW_H - 24),
                desc="Clear due date",
                rid=f"{PKG}:id/clear",
                on_tap=lambda: self._clear_due(),
                role="icon",
                style="close",
            )
        ui.row(
            "Due date",
            self.due.strftime("%a, %b %-d, %Y") if self.due else "No due date",
            on_tap=lambda: self._pick_due(dev),
            rid=f"{PKG}:id/due_date",
            icon="calendar",
            trailing=clear,
        )
        ui.row(
            "Priority",
            PRIORITIES[self.priority],
            on_tap=lambda: self._pick_priority(dev),
            rid=f"{PKG}:id/priority",
            icon="flag",
        )
        ui.spacer(30)
        ui.field(self, "notes", "Description", rid=f"{PKG}:id/notes", label="Description", multiline=True)

    def _pick_due(self, dev: Device) -> str:
        dev.open_dialog(DatePickerDialog("on_due", self.due or dev.state.now.date(), title="Due date"))
        return 'Tap "Due date" in Tasks'

    def on_due(self, dev: Device, value: dt.date) -> str:
        self.due = value
        return f"Set the due date to {value.strftime('%B %-d, %Y')} in Tasks"

    def _clear_due(self) -> str:
        self.due = None
        return "Clear the due date in Tasks"

    def _pick_priority(self, dev: Device) -> str:
        items = [(name, i) for i, name in reversed(list(enumerate(PRIORITIES)))]
        dev.open_dialog(MenuDialog("on_priority", items, title="Priority", selected=self.priority))
        return 'Tap "Priority" in Tasks'

    def on_priority(self, dev: Device, value: int) -> str:
        self.priority = value
        return f'Set the priority to "{PRIORITIES[value]}" in Tasks'

    def _write(self, dev: Device) -> Task:
        db = _db(dev)
        t = db.by_uid(self.uid) if self.uid is not None else None
        title = self.form.get("title", "").strip()
        notes = self.form.get("notes", "").strip()
        if t is None:
            t = db.new(title, dev.state.now, self.due, self.priority, notes)
            self.uid = t.uid
            return t
        changes: dict[str, Any] = {}
        if title != t.name:
            changes["title"] = title
        if notes != (t.notes or ""):
            changes["notes"] = notes
        if self.due != t.due:  # an unchanged due date keeps its time
            changes["due"] = self.due
        if self.priority != t.priority:
            changes["priority"] = self.priority
        for k, v in changes.items():
            setattr(t, k, v)
        if changes:
            t.modified = ms(dev.state.now)
        return t

    def _save_tap(self, dev: Device) -> str:
        if not self.form.get("title", "").strip():
            dev.toast("Enter a task name")
            return 'Tap the "Save" button in Tasks (a task name is required)'
        t = self._write(dev)
        dev.pop()
        return f'Tap the "Save" button to save the task "{t.name}" in Tasks'

    def _close(self, dev: Device, how: str) -> str:
        """Back / navigate up: save, as Tasks.org does; without a title, discard."""
        if not self.form.get("title", "").strip():
            dev.pop()
            return f"{how} to discard the task in Tasks"
        t = self._write(dev)
        dev.pop()
        return f'{how} to save the task "{t.name}" in Tasks'

    def on_back(self, dev: Device) -> str | None:
        return self._close(dev, "Press Back")

    def _delete(self, dev: Device) -> str:
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Delete task?",
                f'"{self.form.get("title", "")}" will be deleted.',
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return 'Tap the "Delete task" button in Tasks'

    def on_delete(self, dev: Device, value: str) -> str:
        db = _db(dev)
        t = db.by_uid(self.uid) if self.uid is not None else None
        if t is not None:
            _delete(dev, t)
            dev.toast("Task deleted")
        dev.pop()
        return f'Confirm deleting the task "{t.name if t else ""}" in Tasks'


class TasksApp(App):
    name = "tasks"
    label = LABEL
    package = PKG
    activity = "com.todoroo.astrid.activity.MainActivity"
    aliases = ("tasks", "tasks app", "tasks.org:")
    color = (25, 118, 210)
    icon = "tasks"
    databases = (DATABASE,)

    def initial_data(self) -> TasksData:
        return TasksData()

    def root(self, dev: Device) -> Screen:
        return TaskList()
