"""Markor (net.gsantner.markor, v2.10.9 as AndroidWorld installs it): a notebook of folders and
Markdown / plain-text notes.

Storage: the notebook is the folder ``/storage/emulated/0/Documents/Markor`` (:data:`NOTEBOOK`;
AndroidWorld's ``device_constants.MARKOR_DATA``), notes are plain files and folders are
directories. :class:`MarkorData` holds that folder one to one: a map of relative paths
(``"Work/plan.md"``) to :class:`Entry` (a directory, or a file with its exact text and its
time stamp). The served phone shows it at that path (``cat``, ``ls -ll -au``, ``find``, ``echo >``
read and write the same entries: :mod:`gui_gym.android.sim.adb.files`).

Screens, as Markor lays them out:

- the file browser (:class:`FileBrowser`): one folder at a time, folders first, then files by
  name; a subfolder starts with a ``..`` row to its parent. Tap a folder to enter it, a note to
  open it. A long press selects an item (the real app has no context menu); while items are
  selected a tap toggles another one, Back clears the selection, and the toolbar shows
  Rename (one item), Delete and "More options" (Move, Copy). Delete asks to confirm ("Confirm
  Delete", OK); Move and Copy open a folder picker ("Move → <folder>", its own ``..`` and
  folder rows, "Select this folder"). The "Create a new file or folder" button opens the new
  file dialog: Name and Extension (``.md``) fields; OK creates ``Name + Extension`` exactly as
  typed (``notes.txt`` with ``.md`` gives ``notes.txt.md``, as in the real app) and opens it,
  FOLDER creates a folder named Name.
- the document screen (:class:`DocumentScreen`): edit mode (a multi-line text area holding the
  file's text as it is, trailing line break included; Save and View icons) and view mode;
  switching modes, Back and navigate-up save, as Markor auto-saves.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.dialogs import AlertDialog, Dialog, InputDialog, MenuDialog
from gui_gym.android.sim.widgets import FIELD_H, ROW_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "net.gsantner.markor"
#: The notebook folder on the phone (AndroidWorld's ``device_constants.MARKOR_DATA``).
NOTEBOOK = "/storage/emulated/0/Documents/Markor"
DEFAULT_EXT = ".md"
NEW_TITLE = "Create a new file or folder"
UP = ".."  # the row leading to the parent folder
MORE = "More options"
SELECT_FOLDER = "Select this folder"


@dataclass
class Entry:
    """A file or directory of the notebook: its path relative to :data:`NOTEBOOK`, its exact
    text (a file written with ``echo 'text' >`` holds ``"text\\n"``) and its time stamp (what
    ``ls -ll -au`` lists; the phone's clock when it was written)."""

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
        """Add (or overwrite) a folder or note, creating missing parent folders."""
        mtime = mtime or dt.datetime(2023, 10, 1, 12, 0)
        self.mkdir(path.rsplit("/", 1)[0] if "/" in path else "", mtime)
        e = self.entries[path] = Entry(path, is_dir, content, mtime)
        return e

    def mkdir(self, folder: str, mtime: dt.datetime) -> None:
        """``mkdir -p``: ``folder`` and its missing parents (existing ones keep their time)."""
        parts = folder.split("/") if folder else []
        for i in range(1, len(parts) + 1):
            p = "/".join(parts[:i])
            self.entries.setdefault(p, Entry(p, True, mtime=mtime))

    def write(self, path: str, text: str, mtime: dt.datetime) -> Entry:
        """``mkdir -p`` the folder, then ``echo 'text' > path`` (AndroidWorld's
        ``file_utils.create_file``): the file holds ``text`` and a line break, stamped ``mtime``."""
        return self.add(path, content=text + "\n", mtime=mtime)

    def subtree(self, path: str) -> list[str]:
        return [p for p in self.entries if p == path or p.startswith(path + "/")]

    def delete(self, path: str) -> None:
        for p in self.subtree(path):
            del self.entries[p]

    def rename(self, path: str, new_name: str) -> Entry:
        e = self.entries[path]
        return self.move(path, join(e.parent, new_name))

    def move(self, path: str, new: str) -> Entry:
        """Move ``path`` (and what it holds) to ``new``; time stamps are kept, as ``mv`` keeps them."""
        for p in self.subtree(path):
            moved = self.entries.pop(p)
            moved.path = new + p[len(path) :]
            self.entries[moved.path] = moved
        return self.entries[new]

    def copy(self, path: str, new: str, mtime: dt.datetime) -> Entry:
        """Copy ``path`` (and what it holds) to ``new``; the copies are new files, stamped ``mtime``."""
        for p in sorted(self.subtree(path)):
            e = self.entries[p]
            q = new + p[len(path) :]
            self.entries[q] = Entry(q, e.is_dir, e.content, mtime)
        return self.entries[new]

    def notes(self) -> list[Entry]:
        return [e for e in self.entries.values() if not e.is_dir]

    def files(self, folder: str = "") -> list[Entry]:
        """The regular files directly in ``folder`` (what ``ls -ll`` lists with a ``-`` mode)."""
        return [e for e in self.entries.values() if not e.is_dir and e.parent == folder]

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
    """The file name the new file dialog creates: Name, then Extension, each trimmed, exactly
    as Markor's ``NewFileDialog`` joins them (no dot is added, an extension typed into Name is
    not recognised)."""
    return name.strip() + ext.strip()


def folder_label(folder: str) -> str:
    """How Markor titles a folder: its name, the notebook root as "Markor"."""
    return folder.rsplit("/", 1)[-1] if folder else "Markor"


def _inside(node: Node, left: int, right: int) -> None:
    """Narrow ``node`` and what it holds to the columns ``left``-``right`` (a list in a dialog)."""
    l, t, r, b = node.bounds
    node.bounds = (max(l, left), t, min(r, right), b)
    for c in node.children:
        _inside(c, left, right)


def parent_of(folder: str) -> str:
    return folder.rsplit("/", 1)[0] if "/" in folder else ""


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


class FolderDialog(Dialog):
    """The folder picker of Move and Copy (opoc's ``GsFileBrowserDialog``): a title naming the
    action and the folder shown ("Move → Work"), that folder's ``..`` row (below the notebook
    root) and its subfolders (the items being moved are left out), Cancel and "Select this
    folder". Tapping a row enters that folder; the button moves or copies the selection there."""

    def __init__(self, handler: str, action: str, folder: str, exclude: Sequence[str]) -> None:
        super().__init__(handler, action)
        self.action = action
        self.folder = folder
        self.exclude = list(exclude)

    def folders(self, dev: Device) -> list[str]:
        rows = [UP] if self.folder else []
        return rows + [e.name for e in _db(dev).listing(self.folder) if e.is_dir and e.path not in self.exclude]

    def build(self, ui: UI, dev: Device) -> None:
        if self.folder and _db(dev).get(self.folder) is None:  # removed underneath us
            self.folder = ""
        rows = self.folders(dev)
        list_h = max(1, min(len(rows), 6)) * ROW_H
        panel = ui.dialog_panel(self, height=130 + list_h + 170)
        ui.dialog_title(f"{self.action} → {folder_label(self.folder)}", rid=f"{PKG}:id/ui__filesystem_dialog__title")

        def render(ui: UI, name: str) -> None:
            ui.row(
                name,
                on_tap=lambda: self._enter(name),
                rid=f"{PKG}:id/opoc_filesystem_item__root",
                icon="folder",
                label=name,
            )

        lst = ui.scroll_list(
            self,
            "list",
            rows,
            render,
            bottom=ui.y + list_h,
            empty="No folders here",
            list_id="ui__filesystem_dialog__list",
        )
        for n in ui.nodes[-2:]:  # the list's frame (and its empty text) inside the dialog's panel
            _inside(n, 60, SCREEN_W - 60)
        _inside(lst, 60, SCREEN_W - 60)
        # The picker's own button bar (``ui__filesystem_dialog__buttons``), right-aligned.
        y, right, buttons = ui.y + 10, SCREEN_W - 100, []
        for label, value, rid in ((SELECT_FOLDER, "select", "button_ok"), ("Cancel", None, "button_cancel")):
            w = 30 * len(label) + 60
            buttons.insert(
                0,
                Node(
                    "android.widget.Button",
                    (right - w, y, right, y + 120),
                    label.upper(),
                    label=label,
                    rid=f"{PKG}:id/ui__filesystem_dialog__{rid}",
                    on_tap=lambda v=value: self.finish(dev, v),
                    role="textbutton",
                    package=PKG,
                ),
            )
            right -= w + 20
        ui.add(
            Node(
                "android.widget.LinearLayout",
                (buttons[0].bounds[0], y, SCREEN_W - 100, y + 120),
                rid=f"{PKG}:id/ui__filesystem_dialog__buttons",
                children=buttons,
            )
        )
        ui.y = y + 130
        ui.end_panel(panel)

    def _enter(self, name: str) -> str:
        self.folder = parent_of(self.folder) if name == UP else join(self.folder, name)
        self.scroll["list"] = 0
        return f'Open the folder "{folder_label(self.folder)}" in the {self.action.lower()} dialog of Markor'

    def finish(self, dev: Device, value: Any) -> str | None:
        return super().finish(dev, None if value is None else (self.action, self.folder))


class FileBrowser(Screen):
    """The notebook's file list, showing one folder (``""``: the notebook root)."""

    def __init__(self, folder: str = "") -> None:
        super().__init__()
        self.folder = folder
        self.selection: list[str] = []  # selected paths, in the order they were selected
        self.target = ""  # the item a rename acts on

    # -- drawing -------------------------------------------------------------------------
    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        if self.folder and db.get(self.folder) is None:  # removed underneath us
            self.folder = ""
        self.selection = [p for p in self.selection if db.get(p) is not None]
        up = (lambda: self._parent(dev, 'Tap the "Navigate up" button')) if self.folder else False
        actions = []
        if self.selection:
            if len(self.selection) == 1:
                actions.append(("Rename", "edit", lambda: self._rename(dev)))
            actions.append(("Delete", "delete", lambda: self._delete(dev)))
            actions.append((MORE, "more", lambda: self._more(dev)))
        ui.toolbar(folder_label(self.folder), up=up, actions=actions)

        def render(ui: UI, e: Entry | None) -> None:
            if e is None:
                ui.row(
                    UP,
                    folder_label(parent_of(self.folder)),
                    on_tap=lambda: self._up_row(dev),
                    rid=f"{PKG}:id/opoc_filesystem_item__root",
                    icon="folder",
                    label=UP,
                )
                return
            node = ui.row(
                e.name,
                _subtitle(db, e),
                on_tap=lambda: self._tap(dev, e.path),
                on_long_press=lambda: self._long_press(dev, e.path),
                rid=f"{PKG}:id/opoc_filesystem_item__root",
                icon="folder" if e.is_dir else "file",
                label=e.name,
            )
            node.selected = e.path in self.selection

        items: list[Entry | None] = [None] if self.folder else []
        items += db.listing(self.folder)
        ui.scroll_list(
            self,
            "list",
            items,
            render,
            empty="This folder is empty",
            list_id="ui__filesystem_dialog__list",
        )
        ui.fab(NEW_TITLE, lambda: self._new(dev), rid=f"{PKG}:id/fab_add_new_item")

    # -- navigating ----------------------------------------------------------------------
    def _parent(self, dev: Device, how: str) -> str:
        self.folder = parent_of(self.folder)
        self.selection = []
        self.scroll["list"] = 0
        return f'{how} to go to the folder "{folder_label(self.folder)}" in Markor'

    def on_back(self, dev: Device) -> str | None:
        if self.selection:
            self.selection = []
            return "Press Back to clear the selection in Markor"
        return self._parent(dev, "Press Back") if self.folder else None

    def _up_row(self, dev: Device) -> str:
        if self.selection:
            raise Inapplicable('".." cannot be selected: tap the items to select, or press Back to clear the selection')
        return self._parent(dev, 'Tap ".."')

    def _tap(self, dev: Device, path: str) -> str:
        if self.selection:
            return self._toggle(dev, path)
        e = _db(dev).get(path)
        assert e is not None
        if e.is_dir:
            self.folder = path
            self.scroll["list"] = 0
            return f'Open the folder "{e.name}" in Markor'
        dev.push(DocumentScreen(path, e.content))
        return f'Open the note "{e.name}" in Markor'

    def _long_press(self, dev: Device, path: str) -> str:
        return self._toggle(dev, path)

    def _toggle(self, dev: Device, path: str) -> str:
        e = _db(dev).get(path)
        assert e is not None
        kind = "folder" if e.is_dir else "note"
        if path in self.selection:
            self.selection.remove(path)
            return f'Unselect the {kind} "{e.name}" in Markor ({len(self.selection)} selected)'
        self.selection.append(path)
        return f'Select the {kind} "{e.name}" in Markor ({len(self.selection)} selected)'

    # -- the selection's actions ---------------------------------------------------------
    def _names(self, dev: Device) -> str:
        names = [p.rsplit("/", 1)[-1] for p in self.selection]
        return f'"{names[0]}"' if len(names) == 1 else f"{len(names)} items"

    def _rename(self, dev: Device) -> str:
        e = _db(dev).get(self.selection[0])
        assert e is not None
        self.target = e.path
        dev.open_dialog(
            NameDialog(
                "on_rename", "Rename", [("name", "Name")], [("Cancel", None), ("OK", "rename")], values={"name": e.name}
            )
        )
        return f'Tap "Rename" for "{e.name}" in Markor'

    def _delete(self, dev: Device) -> str:
        n = len(self.selection)
        paths = "\n".join(f"{NOTEBOOK}/{p}" for p in self.selection)
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Confirm Delete",
                f"Do you really want to delete this {'document' if n == 1 else 'documents'}?\n\n\n{paths}",
                [("Cancel", None), ("OK", "delete")],
            )
        )
        return f'Tap "Delete" for {self._names(dev)} in Markor'

    def _more(self, dev: Device) -> str:
        dev.open_dialog(MenuDialog("on_more", [("Move", "Move"), ("Copy", "Copy")]))
        return 'Tap "More options" in Markor'

    def on_more(self, dev: Device, value: str) -> str:
        dev.open_dialog(FolderDialog("on_move", value, self.folder, self.selection))
        return f'Tap "{value}" for {self._names(dev)} in Markor'

    def on_move(self, dev: Device, value: tuple[str, str]) -> str:
        action, dest = value
        db = _db(dev)
        if dest and db.get(dest) is None:
            raise Inapplicable(f'the folder "{dest}" no longer exists')
        done, skipped = [], []
        for p in list(self.selection):
            e = db.get(p)
            if e is None:
                continue
            new = join(dest, e.name)
            if new == p or dest == p or dest.startswith(p + "/") or db.get(new) is not None:
                skipped.append(e.name)
            elif action == "Move":
                db.move(p, new)
                done.append(e.name)
            else:
                db.copy(p, new, dev.state.now)
                done.append(e.name)
        self.selection = []
        if skipped:
            dev.toast(f"Not {action.lower()}d (already there): {', '.join(skipped)}")
        what = ", ".join(f'"{n}"' for n in done) or "nothing"
        return f'{action} {what} to the folder "{folder_label(dest)}" in Markor'

    def on_delete(self, dev: Device, value: str) -> str:
        db = _db(dev)
        gone = [p for p in self.selection if db.get(p) is not None]
        for p in gone:
            db.delete(p)
        self.selection = []
        names = ", ".join(f'"{p.rsplit("/", 1)[-1]}"' for p in gone)
        return f"Confirm deleting {names or 'nothing'} in Markor"

    # -- creating and renaming -----------------------------------------------------------
    def _new(self, dev: Device) -> str:
        self.selection = []
        buttons = [("Cancel", None), ("Folder", "folder"), ("OK", "file")]
        dev.open_dialog(
            NameDialog(
                "on_new", NEW_TITLE, [("name", "Name"), ("ext", "Extension")], buttons, values={"ext": DEFAULT_EXT}
            )
        )
        return f'Tap the "{NEW_TITLE}" button in Markor'

    def resolve_name(self, dev: Device, action: str, form: dict[str, str]) -> tuple[str, str]:
        """The path a name dialog's button would create or rename to, or an error."""
        name = form.get("name", "").strip()
        if not name:
            return "", "Please enter a valid name"
        if action == "file":
            name = note_name(name, form.get("ext", ""))
        if name in (".", "..") or "/" in name:
            return "", "Please enter a valid name"
        old = _db(dev).get(self.target) if action == "rename" else None
        path = join(old.parent if old is not None else self.folder, name)
        if _db(dev).get(path) is not None and (old is None or path != old.path):
            return "", "File/folder already exists! Please use a different name"
        return path, ""

    def on_new(self, dev: Device, value: tuple[str, str]) -> str:
        action, path = value
        e = _db(dev).add(path, is_dir=action == "folder", mtime=dev.state.now)
        if e.is_dir:
            return f'Create the folder "{e.name}" in Markor'
        dev.push(DocumentScreen(path, "", new=True))
        return f'Create the note "{e.name}" in Markor'

    def on_rename(self, dev: Device, value: tuple[str, str]) -> str:
        e = _db(dev).get(self.target)
        assert e is not None
        old = e.name
        if value[1] != e.path:
            e = _db(dev).rename(e.path, value[1].rsplit("/", 1)[-1])
            self.target = e.path
        self.selection = []
        return f'Rename "{old}" to "{e.name}" in Markor'


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
    icon = "markor"

    def initial_data(self) -> MarkorData:
        return MarkorData()

    def root(self, dev: Device) -> Screen:
        return FileBrowser()
