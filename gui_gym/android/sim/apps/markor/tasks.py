"""gui-gym's own Markor tasks, and the oracle's steps every Markor task uses (AndroidWorld's
Markor tasks are in :mod:`gui_gym.android.sim.apps.markor.androidworld`, which replaced gui-gym's
MarkorCreateNote, MarkorCreateFolder, MarkorDeleteNote, MarkorDeleteAllNotes and MarkorEditNote)."""

from __future__ import annotations

import datetime as dt
import posixpath
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.markor.app import (
    MORE,
    NEW_TITLE,
    SELECT_FOLDER,
    UP,
    DocumentScreen,
    Entry,
    FileBrowser,
    FolderDialog,
    MarkorData,
    NameDialog,
    join,
    sort_key,
)
from gui_gym.android.sim.dialogs import AlertDialog, MenuDialog
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate
from gui_gym.android.sim.tasks.data import SENTENCES, WORDS, pick
from gui_gym.android.sim.widgets import ROW_H

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

FOLDERS = ("Work", "Personal", "Recipes", "Travel", "Archive", "Projects", "Journal", "School", "Drafts", "Ideas")


def db(dev: Device) -> MarkorData:
    return dev.data("markor")


def in_markor(dev: Device) -> bool:
    return dev.state.foreground == "markor" and not dev.state.recents_open


def screens(dev: Device) -> list:
    return dev.state.stacks.get("markor", [])


def lines(text: str) -> list[str]:
    """The non-blank lines of a note, stripped: what counts when comparing contents."""
    return [s.strip() for s in text.splitlines() if s.strip()]


def note_has(dev: Device, path: str, text: str) -> bool:
    e = db(dev).get(path)
    return e is not None and not e.is_dir and lines(e.content) == lines(text)


def is_note(dev: Device, path: str) -> bool:
    """A note (a file, not a folder) is at ``path``."""
    e = db(dev).get(path)
    return e is not None and not e.is_dir


def is_dir(dev: Device, path: str) -> bool:
    e = db(dev).get(path)
    return e is not None and e.is_dir


def kept(dev: Device, p: Params) -> bool:
    """Everything the notebook held at the start is still there, unchanged."""
    return set(p["before"]) <= set(db(dev).signature())


def editing(dev: Device, path: str, text: str | None = None) -> bool:
    """The note ``path`` is open (and its unsaved text is ``text``, if given)."""
    return any(
        isinstance(s, DocumentScreen)
        and s.path == path
        and (text is None or lines(s.form.get("content", "")) == lines(text))
        for s in screens(dev)
    )


def dialog_open(dev: Device, kind: type, title: str | None = None) -> bool:
    return any(
        isinstance(s, FileBrowser) and isinstance(s.dialog, kind) and (title is None or s.dialog.title == title)
        for s in screens(dev)
    )


def populate(dev: Device, rng: np.random.Generator, n_notes: int, n_folders: int = 0) -> list[Entry]:
    """Fill the notebook: ``n_notes`` notes at the root and ``n_folders`` folders holding one
    or two notes each. Names are single words (``budget.md``), so new two-word names never
    collide with them."""
    now = dev.state.now
    words = pick(rng, WORDS, n_notes + 2 * n_folders)
    d = db(dev)
    out = []

    def note(folder: str, word: str) -> Entry:
        name = (f"{word}.md", f"{word}_notes.md", f"{word}.txt")[int(rng.integers(3))]
        text = "\n".join(pick(rng, SENTENCES, int(rng.integers(1, 3))))
        age = dt.timedelta(days=int(rng.integers(1, 60)), minutes=int(rng.integers(0, 1440)))
        return d.add(join(folder, name), content=text, mtime=now - age)

    for folder in pick(rng, FOLDERS, n_folders):
        d.add(folder, is_dir=True, mtime=now - dt.timedelta(days=int(rng.integers(1, 90))))
        for _ in range(int(rng.integers(1, 3))):
            note(folder, words.pop())
    for _ in range(n_notes):
        out.append(note("", words.pop()))
    return out


def new_name(rng: np.random.Generator) -> str:
    a, b = pick(rng, WORDS, 2)
    return f"{a}_{b}.md"


# ----------------------------------------------------------------------------- oracle steps


def split_name(name: str) -> tuple[str, str]:
    """What to type into the new file dialog's Name and Extension fields to create ``name``
    (Markor joins them as typed): ``notes.txt`` → ``("notes", ".txt")``, ``notes`` → ``("notes", "")``."""
    stem, ext = posixpath.splitext(name)
    return (stem, ext) if stem else (name, "")


def browsing(o: Oracle, folder: str) -> FileBrowser | None:
    """The file browser showing ``folder`` with no dialog over it, if that is what is in front."""
    s = o.screen
    if o.app == "markor" and isinstance(s, FileBrowser) and s.dialog is None and s.folder == folder:
        return s
    return None


def to_folder(o: Oracle, folder: str) -> str | None:
    """From anywhere: get to the file browser showing ``folder`` with nothing selected;
    ``None`` once there."""
    if o.app != "markor":
        return o.launch("Markor")
    s = o.screen
    if isinstance(s, DocumentScreen) and s.dialog is None:
        return o.tap(o.find(desc="Navigate up"))  # saves and closes the note, keyboard or not
    if not isinstance(s, FileBrowser) or s.dialog is not None or s.selection:
        return o.back()  # closes a dialog, clears a selection
    if s.folder == folder:
        return None
    if s.folder == "" or folder.startswith(s.folder + "/"):
        child = folder[len(s.folder) :].lstrip("/").split("/")[0]
        return show_entry(o, s, child) or o.tap(o.find(role="row", label=child))
    return o.back()


def show_entry(o: Oracle, s: FileBrowser, name: str) -> str | None:
    """Scroll the browser until the row ``name`` shows whole; ``None`` when it does."""
    d = db(o.dev)
    target = d.get(join(s.folder, name))
    assert target is not None, name
    key = sort_key(target)

    def before(r: object) -> bool:
        if r.label == UP:  # type: ignore[attr-defined]
            return True
        e = d.get(join(s.folder, r.label))  # type: ignore[attr-defined]
        return e is not None and sort_key(e) < key

    act = o.reveal(lambda n: n.role == "row" and n.label == name, before=before)
    if act is not None:
        return act
    row, lst = o.find(role="row", label=name), o.find(role="list")
    if row is None or lst is None or row.bounds[3] - row.bounds[1] >= ROW_H:
        return None
    return o.swipe("down" if row.bounds[1] <= lst.bounds[1] else "up", dist="short", within=lst)  # cut off: unclip


def select_step(o: Oracle, folder: str, names: Sequence[str]) -> str | None:
    """From anywhere: get to ``folder`` with exactly the items ``names`` selected (a long press
    on the first, taps on the others); ``None`` once they are."""
    s = browsing(o, folder)
    if s is None:
        return to_folder(o, folder)
    want = [join(folder, n) for n in names]
    extra = [p for p in s.selection if p not in want]
    missing = [p for p in want if p not in s.selection]
    if not extra and not missing:
        return None
    path = (extra or missing)[0]
    name = path.rsplit("/", 1)[-1]
    act = show_entry(o, s, name)
    if act is not None:
        return act
    row = o.find(role="row", label=name)
    return o.tap(row) if s.selection else o.long_press(row)


def selected(dev: Device, paths: Sequence[str]) -> bool:
    """The items ``paths`` are among the selected ones in the browser."""
    return any(isinstance(s, FileBrowser) and set(paths) <= set(s.selection) for s in screens(dev))


def open_note(o: Oracle, path: str) -> str | None:
    """From anywhere: open the note ``path`` in edit mode; ``None`` once it is."""
    s = o.screen
    if o.app == "markor" and isinstance(s, DocumentScreen) and s.path == path and s.dialog is None:
        return o.tap(o.find(desc="Edit")) if s.view else None
    e = db(o.dev).get(path)
    assert e is not None, path
    act = to_folder(o, e.parent)
    if act is not None:
        return act
    return show_entry(o, o.screen, e.name) or o.tap(o.find(role="row", label=e.name))


def write_note(o: Oracle, path: str, text: str) -> str:
    """Open the note ``path``, make its text ``text`` and save."""
    act = open_note(o, path)
    if act is not None:
        return act
    return o.fill("Note content", text) or o.tap(o.find(desc="Save"))


def create_step(o: Oracle, folder: str, name: str, button: str) -> str:
    """One step toward creating ``name`` in ``folder`` with the new-file dialog's ``button``
    ("OK" for a note: Name and Extension as :func:`split_name` gives them; "Folder" for a
    folder)."""
    s = o.screen
    if (
        o.app == "markor"
        and isinstance(s, FileBrowser)
        and s.folder == folder
        and isinstance(s.dialog, NameDialog)
        and s.dialog.title == NEW_TITLE
    ):
        stem, ext = split_name(name) if button == "OK" else (name, s.dialog.form.get("ext", ""))
        return o.fill_form([("Name", stem), ("Extension", ext)]) or o.tap(o.find(label=button, role="textbutton"))
    return to_folder(o, folder) or o.tap(o.find(desc=NEW_TITLE))


def delete_step(o: Oracle, paths: Sequence[str]) -> str:
    """One step toward deleting ``paths`` (items of one folder): select them, Delete, OK."""
    folder = db(o.dev).get(paths[0]).parent
    s = o.screen
    if (
        o.app == "markor"
        and isinstance(s, FileBrowser)
        and s.folder == folder
        and isinstance(s.dialog, AlertDialog)
        and sorted(s.selection) == sorted(paths)
    ):
        return o.tap(o.find(label="OK", role="textbutton"))
    return select_step(o, folder, [p.rsplit("/", 1)[-1] for p in paths]) or o.tap(o.find(desc="Delete"))


def rename_step(o: Oracle, path: str, new_name: str) -> str:
    """One step toward renaming ``path`` to ``new_name``: select it, Rename, type, OK."""
    s = o.screen
    if (
        o.app == "markor"
        and isinstance(s, FileBrowser)
        and isinstance(s.dialog, NameDialog)
        and s.dialog.title == "Rename"
        and s.target == path
    ):
        return o.fill("Name", new_name) or o.tap(o.find(label="OK", role="textbutton"))
    e = db(o.dev).get(path)
    assert e is not None, path
    return select_step(o, e.parent, [e.name]) or o.tap(o.find(desc="Rename"))


def move_step(o: Oracle, path: str, dest: str, action: str = "Move") -> str:
    """One step toward moving (or copying) ``path`` into the folder ``dest``: select it, "More
    options", Move, walk the folder picker to ``dest``, "Select this folder"."""
    e = db(o.dev).get(path)
    assert e is not None, path
    s = o.screen
    if o.app == "markor" and isinstance(s, FileBrowser) and s.folder == e.parent and s.selection == [path]:
        if isinstance(s.dialog, MenuDialog):
            return o.tap(o.find(action, role="menuitem"))
        if isinstance(s.dialog, FolderDialog) and s.dialog.action == action:
            at = s.dialog.folder
            if at == dest:
                return o.tap(o.find(label=SELECT_FOLDER, role="textbutton"))
            name = dest[len(at) :].lstrip("/").split("/")[0] if at == "" or dest.startswith(at + "/") else UP
            row = o.find(role="row", label=name)
            if row is None:  # further down the picker's list (the last list on screen)
                lists = [n for n in o.nodes if n.role == "list"]
                return o.swipe("up", within=lists[-1]) if lists else o.back()
            return o.tap(row)
    return select_step(o, e.parent, [e.name]) or o.tap(o.find(desc=MORE))


# ----------------------------------------------------------------------------- tasks


class MarkorTask(TaskTemplate):
    app = "markor"

    def snapshot_before(self, dev: Device, p: Params) -> None:
        p["before"] = list(db(dev).signature())


class MarkorRenameNote(MarkorTask):
    id = "MarkorRenameNote"
    difficulty = "medium"
    template = "Rename the note {name} in Markor to {new_name}."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "NewName": "new_name"}
    milestones = (
        Milestone("Open the Markor app", lambda d, p: in_markor(d)),
        Milestone(
            "Open the rename dialog for <Name>",
            lambda d, p: (
                any(
                    isinstance(s, FileBrowser) and isinstance(s.dialog, NameDialog) and s.target == p["name"]
                    for s in screens(d)
                )
                or db(d).get(p["new_name"]) is not None
            ),
        ),
        Milestone("Rename <Name> to <NewName>", lambda d, p: db(d).get(p["new_name"]) is not None),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        return {"new_name": new_name(rng)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        notes = populate(dev, rng, int(rng.integers(3, 7)), int(rng.integers(0, 3)))
        note = notes[int(rng.integers(len(notes)))]
        p["name"], p["content"] = note.path, note.content
        self.snapshot_before(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        rest = {x for x in p["before"] if x[0] != p["name"]}
        return (
            db(dev).get(p["name"]) is None
            and note_has(dev, p["new_name"], p["content"])
            and rest <= set(db(dev).signature())
            and len(db(dev).entries) == len(p["before"])
        )

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if db(o.dev).get(p["name"]) is None:
            return o.finish()
        return rename_step(o, p["name"], p["new_name"])


class MarkorCreateNoteInFolder(MarkorTask):
    id = "MarkorCreateNoteInFolder"
    difficulty = "hard"
    template = "In Markor, create a folder named {folder}, and inside it a note named {name} with the text: {text}"
    placeholders: ClassVar[dict[str, str]] = {"Folder": "folder", "Name": "name", "Text": "text"}
    milestones = (
        Milestone("Open the Markor app", lambda d, p: in_markor(d)),
        Milestone("Create the folder <Folder>", lambda d, p: is_dir(d, p["folder"])),
        Milestone(
            "Open the folder <Folder>",
            lambda d, p: (
                db(d).get(p["path"]) is not None
                or any(isinstance(s, FileBrowser) and s.folder == p["folder"] for s in screens(d))
            ),
        ),
        Milestone("Create the note <Name> in <Folder>", lambda d, p: is_note(d, p["path"])),
        Milestone('Write "<Text>" into <Name> and save it', lambda d, p: note_has(d, p["path"], p["text"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        folder = pick(rng, FOLDERS)
        name = new_name(rng)
        return {"folder": folder, "name": name, "path": join(folder, name), "text": pick(rng, SENTENCES)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        populate(dev, rng, int(rng.integers(2, 6)), 0)
        for f in pick(rng, [f for f in FOLDERS if f != p["folder"]], int(rng.integers(0, 3))):
            db(dev).add(f, is_dir=True, mtime=dev.state.now - dt.timedelta(days=5))
        self.snapshot_before(dev, p)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return is_dir(dev, p["folder"]) and note_has(dev, p["path"], p["text"]) and kept(dev, p)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if note_has(o.dev, p["path"], p["text"]):
            return o.finish()
        if not is_dir(o.dev, p["folder"]):
            return create_step(o, "", p["folder"], "Folder")
        if db(o.dev).get(p["path"]) is None:
            return create_step(o, p["folder"], p["name"], "OK")
        return write_note(o, p["path"], p["text"])


class MarkorNoteRevisionHistory(MarkorTask):
    id = "MarkorNoteRevisionHistory"
    difficulty = "easy"
    kind = "infeasible"
    template = "Open the revision history of the note {name} in Markor and restore its previous version."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (Milestone("Open the Markor app", lambda d, p: in_markor(d)),)

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        notes = populate(dev, rng, int(rng.integers(3, 7)), int(rng.integers(0, 3)))
        p["name"] = notes[int(rng.integers(len(notes)))].path
        self.snapshot_before(dev, p)

    def sample(self, rng: np.random.Generator) -> Params:
        return {"name": ""}  # chosen among the notes at set-up

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return list(db(dev).signature()) == p["before"]

    def oracle(self, o: Oracle) -> str:
        if o.app != "markor":
            return o.launch("Markor")
        return o.infeasible()


TEMPLATES = (
    MarkorRenameNote,
    MarkorCreateNoteInFolder,
    MarkorNoteRevisionHistory,
)
