"""Joplin's database on the phone: ``/data/data/net.cozic.joplin/databases/joplin.sqlite``.

Three of its tables, with the columns Joplin's schema gives them (``folders``, ``notes`` and
``notes_normalized``, the plain table its full-text search reads; the ``deleted_time`` column of
later versions is not there, as in the Joplin AndroidWorld installs). These are the columns of
AndroidWorld's ``sqlite_schema_utils.JoplinFolder``, ``JoplinNote`` and ``JoplinNormalizedNote``:
its ``joplin_app_utils`` deletes every row of the three, inserts folders (without
``deleted_time``) and notes with every column, and reads ``folders`` back with ``SELECT *``.

A row is kept as it is stored (:mod:`~gui_gym.android.sim.apps.joplin.data`), so a database
pulled, edited on a host and pushed back loses nothing.

Example:
    >>> from gui_gym.android.sim.apps.joplin.data import JoplinData
    >>> data = JoplinData()
    >>> f = data.add_folder("Work", "f" * 32)
    >>> _ = data.add_note({"id": "a" * 32, "parent_id": f["id"], "title": "Plan", "created_time": 5})
    >>> back = decode(encode(data))
    >>> back.notes[0]["title"], back.notes[0]["markup_language"], back.folders[0]["title"]
    ('Plan', 1, 'Work')
    >>> back == data
    True
"""

from __future__ import annotations

import sqlite3

from gui_gym.android.sim.apps.joplin.data import PKG, JoplinData, Row
from gui_gym.android.sim.apps.joplin.schema import FOLDERS, NOTES, NOTES_NORMALIZED
from gui_gym.android.sim.storage import Database, StorageError, Table


def _tables(data: JoplinData) -> tuple[tuple[Table, list[Row]], ...]:
    return ((FOLDERS, data.folders), (NOTES, data.notes), (NOTES_NORMALIZED, data.normalized))


def encode(data: JoplinData) -> bytes:
    """``joplin.sqlite`` holding ``data``'s rows, in order."""
    con = sqlite3.connect(":memory:")
    try:
        con.execute("CREATE TABLE android_metadata (locale TEXT)")
        con.execute("INSERT INTO android_metadata VALUES ('en_US')")
        for table, rows in _tables(data):
            con.execute(table.ddl())
            names = ", ".join(f'"{n}"' for n in table.names)
            marks = ", ".join("?" for _ in table.names)
            con.executemany(
                f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})',
                [tuple(row.get(c.name, c.default) for c in table.columns) for row in rows],
            )
        con.commit()
        return con.serialize()
    finally:
        con.close()


def _checked(table: Table, row: Row) -> Row:
    """``row`` as the app reads it, or :class:`StorageError` (NULL in a NOT NULL column, a
    value of another type than the column's)."""
    for c in table.columns:
        v = row[c.name]
        if v is None:
            if "NOT NULL" in c.sql or "PRIMARY KEY" in c.sql:
                raise StorageError(f"{table.name}.{c.name} holds NULL; the app's schema has NOT NULL there")
            continue
        kind = c.sql.split()[0]
        ok = (
            isinstance(v, str)
            if kind == "TEXT"
            else (isinstance(v, int) and not isinstance(v, bool))
            if kind == "INT"
            else isinstance(v, int | float) and not isinstance(v, bool)
        )
        if not ok:
            raise StorageError(f"{table.name}.{c.name} holds {v!r}; the app stores {kind.lower()} there")
    return row


def decode(raw: bytes) -> JoplinData:
    """The notebooks and notes of a ``joplin.sqlite``; :class:`StorageError` if Joplin could not
    read it (a table or column missing, a value of the wrong type, an id used twice)."""
    data = JoplinData()
    for table, rows in _tables(data):
        seen: set[str] = set()
        for values in table.decode(raw):
            row = _checked(table, values)
            if table is not NOTES_NORMALIZED:
                if row["id"] in seen:
                    raise StorageError(f"{table.name}.id {row['id']!r} is used twice")
                seen.add(row["id"])
            rows.append(row)
    return data


DATABASE = Database("joplin", f"/data/data/{PKG}/databases/joplin.sqlite", encode, decode, JoplinData)
