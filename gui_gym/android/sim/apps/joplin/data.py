"""Joplin's data: its notebooks (``folders`` rows), notes (``notes`` rows) and the search copy of
the notes (``notes_normalized`` rows), as the app keeps them in ``joplin.sqlite``.

A row is kept as a dict of the real table's columns (:mod:`~gui_gym.android.sim.apps.joplin.storage`
lists them), so what the phone holds maps one to one to the database served over adb. Ids are
32-character hex texts (Joplin's UUIDs); times are Unix milliseconds. A note is a to-do when
``is_todo`` is 1; ``todo_completed`` is then 0 (open) or its completion time (AndroidWorld writes 1).

:attr:`JoplinData.selected` is the notebook the notes list shows (a folder id, or ``None`` for
"All notes"): the app's own setting, kept beside the rows.

Example:
    >>> data = JoplinData()
    >>> f = data.add_folder("Work", "f" * 32)
    >>> n = data.add_note({"id": "a" * 32, "parent_id": f["id"], "title": "Plan", "is_todo": 1})
    >>> [x["title"] for x in data.notes_in(f["id"])], data.folder_title(n["parent_id"])
    (['Plan'], 'Work')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gui_gym.android.sim.apps.joplin.schema import FOLDERS, NOTES, full

PKG = "net.cozic.joplin"
LABEL = "Joplin"
#: AndroidWorld's rows' times: the day before the device's clock (``sqlite_schema_utils._YESTERDAY``)
YESTERDAY_MS = 1697297640000

Row = dict[str, Any]


@dataclass
class JoplinData:
    folders: list[Row] = field(default_factory=list)
    notes: list[Row] = field(default_factory=list)
    normalized: list[Row] = field(default_factory=list)
    #: the notebook the notes list shows (a folder id), ``None`` for "All notes"
    selected: str | None = None

    def add_folder(self, title: str, folder_id: str) -> Row:
        row = full(FOLDERS, {"title": title, "id": folder_id})
        self.folders.append(row)
        return row

    def add_note(self, values: Row) -> Row:
        """A ``notes`` row with the columns given, the others the table's defaults."""
        row = full(NOTES, values)
        self.notes.append(row)
        return row

    def folder(self, folder_id: str | None) -> Row | None:
        return next((f for f in self.folders if f["id"] == folder_id), None)

    def folder_title(self, folder_id: str | None) -> str:
        f = self.folder(folder_id)
        return "" if f is None else str(f["title"])

    def note(self, note_id: str | None) -> Row | None:
        return next((n for n in self.notes if n["id"] == note_id), None)

    def notebooks(self) -> list[Row]:
        """The notebooks as the side menu lists them: by title, case-blind."""
        return sorted(self.folders, key=lambda f: (str(f["title"]).lower(), str(f["id"])))

    def notes_in(self, folder_id: str | None) -> list[Row]:
        """The notes list of a notebook (every note for ``None``), as Joplin sorts it by default:
        open to-dos first ("Uncompleted to-dos on top"), then the most recently updated
        (``user_updated_time``), then by id (the order the database returns equal times in)."""
        rows = [n for n in self.notes if folder_id is None or n["parent_id"] == folder_id]

        def key(n: Row) -> tuple:
            open_todo = bool(n["is_todo"]) and not n["todo_completed"]
            return (not open_todo, -int(n["user_updated_time"] or 0), str(n["id"]))

        return sorted(rows, key=key)

    def shown_folder(self) -> str | None:
        """The notebook the list shows: the selected one while it exists, else "All notes"."""
        return self.selected if self.folder(self.selected) is not None else None
