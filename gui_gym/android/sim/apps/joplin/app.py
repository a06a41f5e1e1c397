"""Joplin (net.cozic.joplin): notebooks of notes and to-dos.

Data: the app's ``folders`` and ``notes`` rows (:mod:`~gui_gym.android.sim.apps.joplin.data`),
served as its database (:mod:`~gui_gym.android.sim.apps.joplin.storage`). Screens, as Joplin's
React Native app shows them (its views carry accessibility labels, not resource ids):

- **Notes** (the launch screen): a header with the side menu button ("Sidebar") and the
  notebook's name ("All notes" when none is chosen); the notes of the notebook, open to-dos first,
  then the most recently updated: a to-do has a checkbox (ticked once completed) before its
  title. Tap a note to open it.
- **Side menu** (the drawer): "All notes" and every notebook by name; tap one to list its notes.
- **Note**: a "Back" button, the note's title (a to-do's checkbox beside it) and its body as
  Joplin renders the Markdown (a list item's ``-`` as a bullet), scrolling when long.

Not modelled: editing, new notes, search, tags, sync and settings (no task needs them).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.joplin.data import LABEL, PKG, JoplinData, Row
from gui_gym.android.sim.apps.joplin.storage import DATABASE
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.widgets import PAD, ROW_H, UI, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

__all__ = ["ALL_NOTES", "LABEL", "PKG", "JoplinApp", "NoteScreen", "NotesScreen", "SideMenu", "body_lines"]

ALL_NOTES = "All notes"
SIDEBAR = "Sidebar"
#: characters of body text on one line of the note view
LINE_CHARS = 44
LINE_H = 64


def _db(dev: Device) -> JoplinData:
    return dev.data("joplin")


def _menu_icon(ui: UI, on_tap: object) -> None:
    """Make the header's navigation button the side menu's."""
    bar = ui.nodes[-1].children[0]
    for n in bar.children:
        if n.desc == "Navigate up":
            n.desc, n.style, n.on_tap = SIDEBAR, "more", on_tap


def body_lines(body: str) -> list[str]:
    """The body as the note view shows it: Markdown list items as bullets, long lines wrapped,
    a blank line between paragraphs kept."""
    out: list[str] = []
    for line in body.rstrip("\n").split("\n"):
        text = line.rstrip()
        if text.startswith("- "):
            text = "• " + text[2:]
        if not text:
            out.append("")
            continue
        out.extend(textwrap.wrap(text, LINE_CHARS) or [""])
    return out


class SideMenu(MenuDialog):
    """The side menu: "All notes", then the notebooks by name."""

    def __init__(self, data: JoplinData) -> None:
        items: list[tuple[str, object]] = [(ALL_NOTES, "")]
        items += [(str(f["title"]), f["id"]) for f in data.notebooks()]
        super().__init__("on_folder", items, selected=data.shown_folder() or "")


class NotesScreen(Screen):
    """The notes list of the chosen notebook."""

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        shown = db.shown_folder()
        ui.toolbar(ALL_NOTES if shown is None else db.folder_title(shown), up=True)
        _menu_icon(ui, lambda: self._side_menu(dev))

        def render(ui: UI, n: Row) -> None:
            _, top, _, b = ui.rect(ROW_H, 0, SCREEN_W)
            title = str(n["title"])
            row = ui.add(
                Node(
                    "android.view.ViewGroup",
                    (0, top, SCREEN_W, b),
                    on_tap=lambda: self._open(dev, str(n["id"])),
                    label=title,
                    role="row",
                )
            )
            x = PAD
            if n["is_todo"]:
                done = bool(n["todo_completed"])
                row.children.append(
                    Node(
                        "android.widget.CheckBox",
                        (x, top + 44, x + 80, b - 44),
                        package=PKG,
                        checkable=True,
                        checked=done,
                        on_tap=lambda: self._toggle(dev, str(n["id"])),
                        label=title,
                        role="checkbox",
                    )
                )
                x += 110
            row.children.append(
                Node("android.widget.TextView", (x, top + 30, SCREEN_W - PAD, b - 30), title, package=PKG, role="text")
            )

        ui.scroll_list(self, f"notes:{shown}", db.notes_in(shown), render, empty="There are currently no notes.")

    def _side_menu(self, dev: Device) -> str:
        dev.open_dialog(SideMenu(_db(dev)))
        return 'Tap the "Sidebar" button in Joplin'

    def on_folder(self, dev: Device, value: str) -> str:
        db = _db(dev)
        db.selected = value or None
        name = db.folder_title(value) if value else ALL_NOTES
        return f'Open the notebook "{name}" in Joplin' if value else "Show all notes in Joplin"

    def _open(self, dev: Device, note_id: str) -> str:
        n = _db(dev).note(note_id)
        assert n is not None
        dev.push(NoteScreen(note_id))
        return f'Open the note "{n["title"]}" in Joplin'

    def _toggle(self, dev: Device, note_id: str) -> str:
        return _toggle(dev, note_id)


def _toggle(dev: Device, note_id: str) -> str:
    """Tick or untick a to-do (Joplin stores the completion time, 0 when open)."""
    n = _db(dev).note(note_id)
    assert n is not None
    now = _ms(dev)
    n["todo_completed"] = 0 if n["todo_completed"] else now
    n["updated_time"] = now
    return f'Mark the to-do "{n["title"]}" as {"done" if n["todo_completed"] else "not done"} in Joplin'


def _ms(dev: Device) -> int:
    import datetime as dt

    return (dev.state.now - dt.datetime(1970, 1, 1)) // dt.timedelta(milliseconds=1)


class NoteScreen(Screen):
    """One note: its title (a to-do's checkbox beside it) and its rendered body."""

    def __init__(self, note_id: str) -> None:
        super().__init__()
        self.note_id = note_id

    def build(self, ui: UI, dev: Device) -> None:
        n = _db(dev).note(self.note_id)
        ui.toolbar("", up=lambda: self._back(dev))
        bar = ui.nodes[-1].children[0]
        for c in bar.children:
            if c.desc == "Navigate up":
                c.desc = "Back"
        if n is None:  # deleted underneath (over adb)
            ui.text("This note does not exist.", size=40)
            return
        title = str(n["title"])
        top = ui.y + 20
        x = PAD
        if n["is_todo"]:
            ui.add(
                Node(
                    "android.widget.CheckBox",
                    (x, top + 20, x + 80, top + 100),
                    checkable=True,
                    checked=bool(n["todo_completed"]),
                    on_tap=lambda: _toggle(dev, self.note_id),
                    label=title,
                    role="checkbox",
                )
            )
            x += 110
        ui.add(
            Node(
                "android.widget.EditText",
                (x, top, SCREEN_W - PAD, top + 120),
                title,
                label="Title",
                role="text",
                style=52,
            )
        )
        ui.y = top + 150

        def render(ui: UI, line: str) -> None:
            if line:
                ui.add(
                    Node(
                        "android.widget.TextView",
                        ui.rect(LINE_H, PAD, SCREEN_W - PAD),
                        line,
                        package=PKG,
                        role="text",
                        style=40,
                    )
                )
            else:
                ui.rect(LINE_H)

        ui.scroll_list(self, "body", body_lines(str(n["body"])), render, item_h=LINE_H, empty="", list_id="body")

    def _back(self, dev: Device) -> str:
        dev.pop()
        return 'Tap the "Back" button in Joplin'


class JoplinApp(App):
    name = "joplin"
    label = LABEL
    package = PKG
    activity = "net.cozic.joplin.MainActivity"
    aliases = ("joplin", "joplin app")
    color = (23, 110, 194)
    icon = "joplin"
    databases = (DATABASE,)

    def initial_data(self) -> JoplinData:
        return JoplinData()

    def root(self, dev: Device) -> Screen:
        return NotesScreen()
