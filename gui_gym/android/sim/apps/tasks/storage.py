"""Tasks.org's tasks as the app keeps them: the ``tasks`` table of ``/data/data/org.tasks/databases/database``.

The table is Room's for ``com.todoroo.astrid.data.Task`` in org.tasks 13.6 (the
``org.tasks_130605.apk`` AndroidWorld installs; schema 88 plus the ``order`` column)::

    CREATE TABLE `tasks` (`_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT,
        `importance` INTEGER NOT NULL, `dueDate` INTEGER NOT NULL, `hideUntil` INTEGER NOT NULL,
        `created` INTEGER NOT NULL, `modified` INTEGER NOT NULL, `completed` INTEGER NOT NULL,
        `deleted` INTEGER NOT NULL, `notes` TEXT, `estimatedSeconds` INTEGER NOT NULL,
        `elapsedSeconds` INTEGER NOT NULL, `timerStart` INTEGER NOT NULL,
        `notificationFlags` INTEGER NOT NULL, `lastNotified` INTEGER NOT NULL, `recurrence` TEXT,
        `repeat_from` INTEGER NOT NULL DEFAULT 0, `calendarUri` TEXT, `remoteId` TEXT,
        `collapsed` INTEGER NOT NULL, `parent` INTEGER NOT NULL, `order` INTEGER,
        `read_only` INTEGER NOT NULL DEFAULT 0)

These are the 23 fields of AndroidWorld's ``sqlite_schema_utils.Task``, which reads the table with
``SELECT *`` (``task_app_utils.list_rows``) and inserts rows without ``_id``. A row maps one to one
to a :class:`~gui_gym.android.sim.apps.tasks.data.Task` (the columns the simulator does not model
kept in :attr:`Task.extra`, NULLs kept), so a database pulled, edited on a host and pushed back
loses nothing.

Example:
    >>> data = TasksData()
    >>> _ = data.add(Task("Call Grandma", importance=0, dueDate=1697414400000, remoteId="42"))
    >>> row = TASKS.decode(encode(data))[0]
    >>> row["_id"], row["title"], row["importance"], row["dueDate"], row["notes"], row["order"]
    (1, 'Call Grandma', 0, 1697414400000, None, None)
    >>> decode(encode(data)) == data
    True
"""

from __future__ import annotations

import sqlite3
from typing import Any

from gui_gym.android.sim.apps.tasks.data import PKG, Task, TasksData
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

TASKS = Table(
    "tasks",
    (
        Column("_id", "INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", None),
        Column("title", "TEXT", None),
        Column("importance", "INTEGER NOT NULL", 3),
        Column("dueDate", "INTEGER NOT NULL", 0),
        Column("hideUntil", "INTEGER NOT NULL", 0),
        Column("created", "INTEGER NOT NULL", 0),
        Column("modified", "INTEGER NOT NULL", 0),
        Column("completed", "INTEGER NOT NULL", 0),
        Column("deleted", "INTEGER NOT NULL", 0),
        Column("notes", "TEXT", None),
        Column("estimatedSeconds", "INTEGER NOT NULL", 0),
        Column("elapsedSeconds", "INTEGER NOT NULL", 0),
        Column("timerStart", "INTEGER NOT NULL", 0),
        Column("notificationFlags", "INTEGER NOT NULL", 0),
        Column("lastNotified", "INTEGER NOT NULL", 0),
        Column("recurrence", "TEXT", None),
        Column("repeat_from", "INTEGER NOT NULL DEFAULT 0", 0),
        Column("calendarUri", "TEXT", None),
        Column("remoteId", "TEXT", None),
        Column("collapsed", "INTEGER NOT NULL", 0),
        Column("parent", "INTEGER NOT NULL", 0),
        Column("order", "INTEGER", None),
        Column("read_only", "INTEGER NOT NULL DEFAULT 0", 0),
    ),
)
#: the columns a Task models itself (``_id`` is its uid); every other one lives in Task.extra
_MODELLED = (
    "_id",
    "title",
    "importance",
    "dueDate",
    "hideUntil",
    "created",
    "modified",
    "completed",
    "deleted",
    "notes",
    "remoteId",
)
_INTS = ("importance", "dueDate", "hideUntil", "created", "modified", "completed", "deleted")
_TEXTS = ("title", "notes", "remoteId")
_NOT_NULL = tuple(c.name for c in TASKS.columns if "NOT NULL" in c.sql)
_COLUMNS = frozenset(TASKS.names)
#: the columns a Task keeps in ``extra`` where they differ from their default, with it
_OTHER = tuple((c.name, c.default) for c in TASKS.columns if c.name not in _MODELLED)
_MAX_ID = 2**63 - 1


def row(t: Task) -> dict[str, Any]:
    """``t`` as its ``tasks`` row (every column)."""
    out = {c.name: c.default for c in TASKS.columns}
    out.update((k, v) for k, v in t.extra.items() if k in _COLUMNS and k not in _MODELLED)
    out.update(
        _id=t.uid,
        title=t.title,
        importance=t.importance,
        dueDate=t.dueDate,
        hideUntil=t.hideUntil,
        created=t.created,
        modified=t.modified,
        completed=t.completed,
        deleted=t.deleted,
        notes=t.notes,
        remoteId=t.remoteId,
    )
    return out


def rows(data: TasksData) -> list[dict[str, Any]]:
    """The ``tasks`` rows of ``data``, by ``_id`` (what ``SELECT * FROM tasks`` returns)."""
    return [row(t) for t in sorted(data.tasks, key=lambda t: t.uid)]


def encode(data: TasksData) -> bytes:
    return TASKS.encode(rows(data))


def task(values: dict[str, Any]) -> Task:
    """The :class:`Task` of one ``tasks`` row (its ``_id`` the uid); :class:`StorageError` if the
    app could not read it (NULL in a NOT NULL column, a value of the wrong type)."""
    get = values.get
    if all(type(get(c)) is int for c in _NOT_NULL) and all((v := get(c)) is None or type(v) is str for c in _TEXTS):
        # plain ints and texts (a row as set-up writes it): every check of _checked_task passes
        return Task(
            uid=values["_id"],
            extra={c: v for c, d in _OTHER if (v := values[c]) != d},
            **{c: values[c] for c in _INTS},
            **{c: get(c) for c in _TEXTS},
        )
    return _checked_task(values)


def _checked_task(values: dict[str, Any]) -> Task:
    """:func:`task`, checking every column."""
    nulls = [c for c in _NOT_NULL if values.get(c) is None]
    if nulls:
        raise StorageError(f"column(s) {', '.join(nulls)} hold NULL; the app's schema has NOT NULL there")
    ints = {c: check_int(values, c) for c in _INTS}
    texts = {c: check_text(values, c) if values.get(c) is not None else None for c in _TEXTS}
    for c in TASKS.columns:
        if c.name not in _MODELLED and "NOT NULL" in c.sql:
            check_int(values, c.name)
    # the other columns, where they differ from what the app writes for a new task
    extra = {c.name: values[c.name] for c in TASKS.columns if c.name not in _MODELLED and values[c.name] != c.default}
    return Task(uid=check_int(values, "_id"), extra=extra, **ints, **texts)


def insert(data: TasksData, values: dict[str, Any]) -> Task:
    """Add one row to ``data`` as ``INSERT INTO tasks`` without ``_id`` does (AndroidWorld's
    ``insert_rows_to_remote_db``): the columns given, the others their defaults, the next id."""
    full = {c.name: c.default for c in TASKS.columns}
    full.update(values)
    full["_id"] = data.next_uid
    t = task(full)
    data.tasks.append(t)
    data.next_uid = t.uid + 1
    return t


def decode(raw: bytes) -> TasksData:
    """The tasks of an org.tasks ``database``; :class:`StorageError` if the app could not read it
    (its schema, a value of the wrong type or NULL where the schema forbids it, an ``_id`` used
    twice or out of range), so that what is read can always be written back."""
    data = TasksData()
    seen: set[int] = set()
    for values in TASKS.decode(raw):
        t = task(values)
        if not 1 <= t.uid <= _MAX_ID or t.uid in seen:
            raise StorageError(f"_id {t.uid} is {'used twice' if t.uid in seen else 'out of range'}")
        seen.add(t.uid)
        data.tasks.append(t)
    data.next_uid = max(seen, default=0) + 1
    try:
        encode(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:  # a value the app's schema cannot hold
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


DATABASE = Database("tasks", f"/data/data/{PKG}/databases/database", encode, decode, TasksData)
