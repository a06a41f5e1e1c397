"""Markor (net.gsantner.markor): a notebook of folders and Markdown / plain-text notes.

Database: :class:`MarkorData`, a map of paths (``"Work/plan.md"``) to :class:`Entry` (a
folder, or a note with its content and modification time). Screens: the file browser (one
folder at a time, folders first then files by name; tap a folder to enter it, Back or
navigate-up to leave it; long press for Rename / Delete; the FAB opens the "new file"
dialog whose OK creates a note and opens it, and whose FOLDER button creates a folder) and
the document screen (edit mode: a multi-line text area and a Save icon; view mode: the
text as read-only; switching modes, Back and navigate-up save, as Markor auto-saves).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.widgets import FIELD_H, UI, AlertDialog, Dialog, InputDialog, MenuDialog, Screen

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "net.gsantner.markor"
DEFAULT_EXT = ".md"
NEW_TITLE = "Create a new file or folder"


@dataclass
class Entry:
    path: str
    is_dir: bool = False
    content: str = ""
    mtime: dt.datetime = dt.datetime(2023, 10, 1, 12, 0)

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else ""


def join(folder: str, name: str) -> str:
    """The path of ``name`` inside ``folder`` (``""`` is the notebook root)."""
    return f"{folder}/{name}" if folder else name


def sort_key(e: Entry) -> tuple[bool, str]:
    """Markor's default order: folders first, then by name."""
    return (not e.is_dir, e.name.lower())


@dataclass
class MarkorData:
    entries: dict[str, Entry] = field(default_factory=dict)

    def get(self, path: str) -> Entry | None:
        return self.entries.get(path)

    def listing(self, folder: str) -> list[Entry]:
        return sorted((e for e in self.entries.values() if e.parent == folder), key=sort_key)

    def add(self, path: str, is_dir: bool = False, content: str = "", mtime: dt.datetime | None = None) -> Entry:
        """Add a folder or note, creating missing parent folders."""
        mtime = mtime or dt.datetime(2023, 10, 1, 12, 0)
        parts = path.split("/")
        for i in range(1, len(parts)):
            parent = "/".join(parts[:i])
            self.entries.setdefault(parent, Entry(parent, True, mtime=mtime))
        e = self.entries[path] = Entry(path, is_dir, content, mtime)
        return e

    def subtree(self, path: str) -> list[str]:
        return [p for p in self.entries if p == path or p.startswith(path + "/")]

    def delete(self, path: str) -> None:
        for p in self.subtree(path):
            del self.entries[p]

    def rename(self, path: str, new_name: str) -> Entry:
        e = self.entries[path]
        new = join(e.parent, new_name)
        for p in self.subtree(path):
            moved = self.entries.pop(p)
            moved.path = new + p[len(path) :]
            self.entries[moved.path] = moved
        return self.entries[new]

    def notes(self) -> list[Entry]:
        return [e for e in self.entries.values() if not e.is_dir]

    def signature(self) -> tuple[tuple[str, bool, str], ...]:
        """What the notebook holds (paths, kinds, contents), to tell whether anything changed."""
        return tuple(sorted((e.path, e.is_dir, e.content) for e in self.entries.values()))


def _db(dev: Device) -> MarkorData:
    return dev.data("markor")


def _subtitle(db: MarkorData, e: Entry) -> str:
    if e.is_dir:
        n = sum(1 for x in db.entries.values() if x.parent == e.path)
        return f"{n} item{'' if n == 1 else 's'}"
    return e.mtime.strftime("%b %-d, %Y %H:%M")


def note_name(name: str, ext: str) -> str:
    """The file name Markor creates: ``ext`` is appended unless ``name`` has an extension."""
    name, ext = name.strip(), ext.strip()
    if "." in name.lstrip(".") or not ext:
        return name
    return name + (ext if ext.startswith(".") else "." + ext)


class NameDialog(InputDialog):
    """Markor's name prompt (new file / folder, rename). A name that is empty, contains a
    slash or is taken keeps the dialog open with a toast instead of acting."""

    def __init__(
        self,
        handler: str,
        title: str,
        fields: Sequence[tuple[str, str]],
        buttons: Sequence[tuple[str, Any]],
        values: dict | None = None,
    ) -> None:
        super().__init__(handler, title, fields, values=values)
        self.buttons = list(buttons)

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=130 + (FIELD_H + 30) * len(self.hints) + 160)
        ui.dialog_title(self.title)
        for key, hint in self.hints.items():
            ui.field(self, key, hint, rid=f"{PKG}:id/new_file_dialog__{key}", label=hint)
        ui.dialog_buttons(self, self.buttons)
        ui.end_panel(panel)

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is None:
            return Dialog.finish(self, dev, None)
        owner = dev.top_screen()
        assert isinstance(owner, FileBrowser)
        label = next((b for b, v in self.buttons if v == value), str(value))
        path, error = owner.resolve_name(dev, value, self.form)
        if error:
            dev.toast(error)
            return f'Tap "{label}" in Markor ({error})'
        dev.close_dialog()
        return getattr(owner, self.handler)(dev, (value, path))


class FileBrowser(Screen):
    """The notebook's file list, showing one folder (``""``: the notebook root)."""

    def __init__(self, folder: str = "") -> None:
        super().__init__()
        self.folder = folder
        self.target = ""  # the long-pressed entry

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        if self.folder and db.get(self.folder) is None:  # removed underneath us
            self.folder = ""
        title = self.folder.rsplit("/", 1)[-1] if self.folder else "Markor"
        ui.toolbar(title, up=(lambda: self._parent(dev, 'Tap the "Navigate up" button')) if self.folder else False)

        def render(ui: UI, e: Entry) -> None:
            ui.row(
                e.name,
                _subtitle(db, e),
                on_tap=lambda: self._open(dev, e.path),
                on_long_press=lambda: self._menu(dev, e.path),
                rid=f"{PKG}:id/ui__filesystem_item__root",
                icon="folder" if e.is_dir else "file",
                label=e.name,
            )

        ui.scroll_list(
            self,
            "list",
            db.listing(self.folder),
            render,
            empty="This folder is empty",
            list_id="ui__filesystem_dialog__list",
        )
        ui.fab(NEW_TITLE, lambda: self._new(dev), rid=f"{PKG}:id/fab_add_new_item")

    def _parent(self, dev: Device, how: str) -> str:
        self.folder = self.folder.rsplit("/", 1)[0] if "/" in self.folder else ""
        self.scroll["list"] = 0
        return f'{how} to go to the folder "{self.folder or "Markor"}" in Markor'

    def on_back(self, dev: Device) -> str | None:
        return self._parent(dev, "Press Back") if self.folder else None

    def _open(self, dev: Device, path: str) -> str:
        e = _db(dev).get(path)
        assert e is not None
        if e.is_dir:
            self.folder = path
            self.scroll["list"] = 0
            return f'Open the folder "{e.name}" in Markor'
        dev.push(DocumentScreen(path, e.content))
        return f'Open the note "{e.name}" in Markor'

    def _new(self, dev: Device) -> str:
        buttons = [("Cancel", None), ("Folder", "folder"), ("OK", "file")]
        dev.open_dialog(
            NameDialog(
                "on_new", NEW_TITLE, [("name", "Name"), ("ext", "Extension")], buttons, values={"ext": DEFAULT_EXT}
            )
        )
        return f'Tap the "{NEW_TITLE}" button in Markor'

    def _menu(self, dev: Device, path: str) -> str:
        e = _db(dev).get(path)
        assert e is not None
        self.target = path
        dev.open_dialog(MenuDialog("on_menu", [("Rename", "rename"), ("Delete", "delete")], title=e.name))
        return f'Long press the {"folder" if e.is_dir else "note"} "{e.name}" in Markor'

    def resolve_name(self, dev: Device, action: str, form: dict[str, str]) -> tuple[str, str]:
        """The path a name dialog's button would create or rename to, or an error."""
        name = form.get("name", "").strip()
        if action == "file" and name:
            name = note_name(name, form.get("ext", ""))
        if not name or name in (".", "..") or "/" in name:
            return "", "Please enter a valid name"
        old = _db(dev).get(self.target) if action == "rename" else None
        path = join(old.parent if old is not None else self.folder, name)
        if _db(dev).get(path) is not None and (old is None or path != old.path):
            return "", "A file or folder with this name already exists"
        return path, ""

    def on_new(self, dev: Device, value: tuple[str, str]) -> str:
        action, path = value
        e = _db(dev).add(path, is_dir=action == "folder", mtime=dev.state.now)
        if e.is_dir:
            return f'Create the folder "{e.name}" in Markor'
        dev.push(DocumentScreen(path, "", new=True))
        return f'Create the note "{e.name}" in Markor'

    def on_menu(self, dev: Device, value: str) -> str | None:
        e = _db(dev).get(self.target)
        if e is None:
            return None
        if value == "rename":
            dev.open_dialog(
                NameDialog(
                    "on_rename",
                    "Rename",
                    [("name", "Name")],
                    [("Cancel", None), ("OK", "rename")],
                    values={"name": e.name},
                )
            )
            return f'Tap "Rename" for "{e.name}" in Markor'
        what = "folder and everything in it" if e.is_dir else "file"
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Delete",
                f'Do you really want to delete this {what}: "{e.name}"?',
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return f'Tap "Delete" for "{e.name}" in Markor'

    def on_rename(self, dev: Device, value: tuple[str, str]) -> str:
        e = _db(dev).get(self.target)
        assert e is not None
        old = e.name
        if value[1] != e.path:
            e = _db(dev).rename(e.path, value[1].rsplit("/", 1)[-1])
            self.target = e.path
        return f'Rename "{old}" to "{e.name}" in Markor'

    def on_delete(self, dev: Device, value: str) -> str:
        e = _db(dev).get(self.target)
        if e is None:
            return 'Tap the "Delete" button in Markor (already deleted)'
        _db(dev).delete(e.path)
        return f'Confirm deleting the {"folder" if e.is_dir else "note"} "{e.name}" in Markor'


class DocumentScreen(Screen):
    """One note, in edit mode (a text area) or view mode (the text, read-only)."""

    def __init__(self, path: str, content: str, new: bool = False) -> None:
        super().__init__()
        self.path = path
        self.form = {"content": content}
        self.view = False
        self.focus = "content" if new else None

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    def build(self, ui: UI, dev: Device) -> None:
        def up() -> str:
            return self._close(dev, 'Tap the "Navigate up" button')

        if _db(dev).get(self.path) is None:
            ui.toolbar(self.name, up=up)
            ui.text("This file no longer exists.")
            return
        if self.view:
            ui.toolbar(self.name, up=up, actions=[("Edit", "edit", lambda: self._mode(dev, False))])
            text = self.form.get("content", "")
            lines = text.count("\n") + 1 + len(text) // 40
            ui.spacer(30)
            ui.text(
                text,
                h=max(100, min(60 * lines + 40, ui.bottom - ui.y - 30)),
                size=40,
                rid=f"{PKG}:id/document__fragment_view_webview",
            )
            return
        ui.toolbar(
            self.name,
            up=up,
            actions=[
                ("Save", "save", lambda: self._save_tap(dev)),
                ("View", "visibility", lambda: self._mode(dev, True)),
            ],
        )
        ui.field(
            self,
            "content",
            "Start writing here",
            rid=f"{PKG}:id/document__fragment__edit__highlighting_editor",
            label="Note content",
            multiline=True,
            h=max(FIELD_H, ui.bottom - ui.y - 60),
        )

    def _save(self, dev: Device) -> bool:
        e = _db(dev).get(self.path)
        content = self.form.get("content", "")
        if e is None or e.is_dir or e.content == content:
            return False
        e.content = content
        e.mtime = dev.state.now
        return True

    def _save_tap(self, dev: Device) -> str:
        saved = self._save(dev)
        return f'Save the note "{self.name}" in Markor' + ("" if saved else " (no changes)")

    def _mode(self, dev: Device, view: bool) -> str:
        self._save(dev)
        self.view = view
        self.focus = None
        dev.state.keyboard = False
        return f'Switch "{self.name}" to {"view" if view else "edit"} mode in Markor'

    def _close(self, dev: Device, how: str) -> str:
        saved = self._save(dev)
        dev.pop()
        return f'{how} to {"save and " if saved else ""}close the note "{self.name}" in Markor'

    def on_back(self, dev: Device) -> str | None:
        return self._close(dev, "Press Back")


class MarkorApp(App):
    name = "markor"
    label = "Markor"
    package = PKG
    activity = "net.gsantner.markor.activity.MainActivity"
    aliases = ("markor",)
    color = (0, 150, 136)

    def initial_data(self) -> MarkorData:
        return MarkorData()

    def root(self, dev: Device) -> Screen:
        return FileBrowser()
