"""Where an app keeps its data on a phone, for the simulator served over adb.

A real app keeps its state in files: Simple Calendar Pro in the SQLite database
``/data/data/com.simplemobiletools.calendar.pro/databases/events.db``, Markor in plain files. Code
that sets up and judges tasks over adb (AndroidWorld's ``sqlite_utils`` pulls a database, edits it
on the host and pushes it back) reads and writes those files. A :class:`Database` says how an app's
data becomes such a file and back: ``encode`` writes the app's data as the database the real app
keeps (its schema, its columns' meanings), ``decode`` reads a database into the app's data, or
raises :class:`StorageError` saying why it is not one (the phone's state is then left as it was).

Example:
    >>> key, text = Column("id", "INTEGER PRIMARY KEY AUTOINCREMENT", None), Column("text", "TEXT NOT NULL", "")
    >>> table = Table("notes", (key, text))
    >>> raw = table.encode([{"id": 1, "text": "hi"}])
    >>> table.decode(raw)
    [{'id': 1, 'text': 'hi'}]
"""

from __future__ import annotations

import copy
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: the most bytes a pushed database may have (a phone's app database is far smaller)
MAX_DATABASE_BYTES = 16 * 1024 * 1024
#: what reading a pushed database may take: rows, characters in one value, SQLite VM steps
MAX_ROWS = 100_000
MAX_VALUE_CHARS = 100_000
_MAX_VM_STEPS = 20_000_000


class StorageError(ValueError):
    """A file that is not what the app keeps there; the message says what is wrong."""


@dataclass(frozen=True)
class Column:
    """One column: its name, its SQL type as the app's schema declares it, and the value an
    app-made row holds when the app's data says nothing of it (``None``: the key, numbered by
    SQLite)."""

    name: str
    sql: str
    default: Any


@dataclass(frozen=True)
class Table:
    """One table of an app's database, as the app creates it."""

    name: str
    columns: tuple[Column, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def ddl(self) -> str:
        cols = ", ".join(f'"{c.name}" {c.sql}' for c in self.columns)
        return f'CREATE TABLE "{self.name}" ({cols})'

    def encode(self, rows: Sequence[Mapping[str, Any]]) -> bytes:
        """The database file holding ``rows`` (missing columns take their defaults)."""
        con = sqlite3.connect(":memory:")
        try:
            con.execute("CREATE TABLE android_metadata (locale TEXT)")
            con.execute("INSERT INTO android_metadata VALUES ('en_US')")
            con.execute(self.ddl())
            names = self.names
            marks = ", ".join("?" for _ in names)
            quoted = ", ".join(f'"{n}"' for n in names)
            con.executemany(
                f'INSERT INTO "{self.name}" ({quoted}) VALUES ({marks})',
                [tuple(row.get(c.name, c.default) for c in self.columns) for row in rows],
            )
            con.commit()
            return con.serialize()
        finally:
            con.close()

    def decode(self, raw: bytes) -> list[dict[str, Any]]:
        """The rows of this table in the database file ``raw`` (the app's columns), by key order;
        a file that is no SQLite database, lacks the table or one of
        its columns, or asks more than reading a phone's table takes, raises :class:`StorageError`.

        The file is data from outside: only this table's stored rows are read (a view, whose
        reading would run the file's own SQL, is refused), read-only, with SQLite's value length,
        the rows and the work bounded."""
        if len(raw) > MAX_DATABASE_BYTES:
            raise StorageError(f"{len(raw)} bytes; a database of this app holds at most {MAX_DATABASE_BYTES}")
        if not raw.startswith(b"SQLite format 3\x00"):
            raise StorageError("not an SQLite database (no 'SQLite format 3' header)")
        if raw[18:20] == b"\x02\x02":  # written in WAL mode: the same pages, read as a rollback journal
            raw = raw[:18] + b"\x01\x01" + raw[20:]
        con = sqlite3.connect(":memory:")
        con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_CHARS * 4)
        steps = [0]

        def too_much() -> int:  # called every 1,000 VM instructions; non-zero aborts the statement
            steps[0] += 1000
            return int(steps[0] > _MAX_VM_STEPS)

        con.set_progress_handler(too_much, 1000)
        try:
            try:
                con.deserialize(raw)
                con.execute("PRAGMA query_only = 1")
                con.execute("PRAGMA trusted_schema = 0")
                kind = con.execute(
                    "SELECT type FROM sqlite_master WHERE lower(name) = ?", (self.name.lower(),)
                ).fetchone()
                found = [r[1] for r in con.execute(f'PRAGMA table_xinfo("{self.name}")')]
            except sqlite3.Error as e:
                raise StorageError(f"an unreadable SQLite database ({e})") from None
            if kind is None or not found:
                raise StorageError(f"it has no table {self.name!r}")
            if kind[0] != "table":
                raise StorageError(f"{self.name!r} is a {kind[0]}, not the app's table")
            lower = [n.lower() for n in found]
            missing = [n for n in self.names if n.lower() not in lower]  # SQLite names ignore case
            if missing:
                raise StorageError(f"table {self.name!r} lacks the column(s) {', '.join(missing)}")
            try:  # the app's columns only: another column may be computed on read
                names = ", ".join(f'"{n}"' for n in self.names)
                cur = con.execute(f'SELECT {names} FROM "{self.name}" ORDER BY "{self.names[0]}"')
                rows = cur.fetchmany(MAX_ROWS + 1)
            except sqlite3.Error as e:
                raise StorageError(f"table {self.name!r} cannot be read ({e})") from None
            if len(rows) > MAX_ROWS:
                raise StorageError(f"table {self.name!r} has more than {MAX_ROWS} rows")
            out = []
            for row in rows:
                values = dict(zip(self.names, row, strict=True))
                for name, v in values.items():
                    if isinstance(v, str | bytes) and len(v) > MAX_VALUE_CHARS:
                        raise StorageError(f"column {name!r} holds {len(v)} characters; at most {MAX_VALUE_CHARS}")
                out.append(values)
            return out
        finally:
            con.close()


@dataclass(frozen=True)
class Database:
    """An app's database file: where it lies, and how the app's data is written to it and read back.

    ``encode(data) -> bytes``; ``decode(raw) -> data`` raises :class:`StorageError` for a file
    the app could not open; ``empty()`` is the app's data once its database is deleted.

    An app that keeps its data in several files (Retro Music's playlists and playing queue) names
    the attributes of its data each file holds in ``owns``: a file pushed or deleted then replaces
    those attributes only (:meth:`merged`), and the others stay as the app had them.
    """

    app: str
    path: str
    encode: Callable[[Any], bytes]
    decode: Callable[[bytes], Any]
    empty: Callable[[], Any]
    owns: tuple[str, ...] = ()

    def merged(self, current: Any, read: Any) -> Any:
        """The app's data after this file was replaced by one read as ``read``: ``read`` itself,
        or, where the file holds only the attributes :attr:`owns`, ``current`` with those."""
        if not self.owns or current is None:
            return read
        out = copy.copy(current)
        for name in self.owns:
            setattr(out, name, getattr(read, name))
        return out

    @property
    def folder(self) -> str:
        return self.path.rsplit("/", 1)[0]


def check_int(row: Mapping[str, Any], name: str) -> int:
    """``row[name]`` as an int, or :class:`StorageError` naming the column and the value."""
    v = row[name]
    if isinstance(v, bool) or not isinstance(v, int):
        raise StorageError(f"column {name!r} holds {v!r}; the app stores an integer there")
    return v


def check_text(row: Mapping[str, Any], name: str, nullable: bool = False) -> str:
    """``row[name]`` as text (``""`` for NULL where ``nullable``), or :class:`StorageError`."""
    v = row[name]
    if v is None and nullable:
        return ""
    if not isinstance(v, str):
        raise StorageError(f"column {name!r} holds {v!r}; the app stores text there")
    return v


def apply_wal(raw: bytes, wal: bytes) -> bytes:
    """The database file ``raw`` as SQLite opens it next to its write-ahead log ``wal`` (the
    ``-wal`` file): the committed frames of the log applied, the whole as one database image. A
    log that does not belong to the file (another salt, a broken checksum) adds nothing, as in
    SQLite; a pair SQLite cannot open raises :class:`StorageError`.

    Both are data from outside: they are read in a private temporary folder, bounded in size.
    """
    import os
    import tempfile

    for name, blob in (("database", raw), ("write-ahead log", wal)):
        if len(blob) > MAX_DATABASE_BYTES:
            raise StorageError(f"a {name} of {len(blob)} bytes; at most {MAX_DATABASE_BYTES}")
    with tempfile.TemporaryDirectory(prefix="gui-gym-wal-") as folder:
        path = os.path.join(folder, "app.db")
        with open(path, "wb") as f:
            f.write(raw)
        with open(path + "-wal", "wb") as f:
            f.write(wal)
        try:
            con = sqlite3.connect(path)
        except sqlite3.Error as e:
            raise StorageError(f"an unreadable SQLite database ({e})") from None
        try:
            con.execute("PRAGMA trusted_schema = 0")
            con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return con.serialize()
        except sqlite3.Error as e:
            raise StorageError(f"the database and its write-ahead log cannot be read together ({e})") from None
        finally:
            con.close()
