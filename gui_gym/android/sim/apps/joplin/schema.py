"""Joplin's tables as its schema gives them (``folders``, ``notes``, ``notes_normalized``): the
columns, their SQL types and the values a row holds where nothing is given
(:mod:`~gui_gym.android.sim.apps.joplin.storage` writes them to the database file)."""

from __future__ import annotations

from typing import Any

from gui_gym.android.sim.storage import Column, Table

Row = dict[str, Any]


def _cols(spec: str) -> tuple[Column, ...]:
    """Columns from ``name|SQL|default`` lines (``''`` an empty text, a number as itself)."""
    out = []
    for line in spec.strip().splitlines():
        name, sql, default = (x.strip() for x in line.split("|"))
        value: Any = None if default == "None" else "" if default == "''" else int(default)
        out.append(Column(name, sql, value))
    return tuple(out)


FOLDERS = Table(
    "folders",
    _cols(
        """
        id | TEXT PRIMARY KEY | ''
        title | TEXT NOT NULL DEFAULT '' | ''
        created_time | INT NOT NULL | 0
        updated_time | INT NOT NULL | 0
        user_created_time | INT NOT NULL DEFAULT 0 | 0
        user_updated_time | INT NOT NULL DEFAULT 0 | 0
        encryption_cipher_text | TEXT NOT NULL DEFAULT '' | ''
        encryption_applied | INT NOT NULL DEFAULT 0 | 0
        parent_id | TEXT NOT NULL DEFAULT '' | ''
        is_shared | INT NOT NULL DEFAULT 0 | 0
        share_id | TEXT NOT NULL DEFAULT '' | ''
        master_key_id | TEXT NOT NULL DEFAULT '' | ''
        icon | TEXT NOT NULL DEFAULT '' | ''
        user_data | TEXT NOT NULL DEFAULT '' | ''
        """
    ),
)
NOTES = Table(
    "notes",
    _cols(
        """
        id | TEXT PRIMARY KEY | ''
        parent_id | TEXT NOT NULL DEFAULT '' | ''
        title | TEXT NOT NULL DEFAULT '' | ''
        body | TEXT NOT NULL DEFAULT '' | ''
        created_time | INT NOT NULL | 0
        updated_time | INT NOT NULL | 0
        is_conflict | INT NOT NULL DEFAULT 0 | 0
        latitude | NUMERIC NOT NULL DEFAULT 0 | 0
        longitude | NUMERIC NOT NULL DEFAULT 0 | 0
        altitude | NUMERIC NOT NULL DEFAULT 0 | 0
        author | TEXT NOT NULL DEFAULT '' | ''
        source_url | TEXT NOT NULL DEFAULT '' | ''
        is_todo | INT NOT NULL DEFAULT 0 | 0
        todo_due | INT NOT NULL DEFAULT 0 | 0
        todo_completed | INT NOT NULL DEFAULT 0 | 0
        source | TEXT NOT NULL DEFAULT '' | ''
        source_application | TEXT NOT NULL DEFAULT '' | ''
        application_data | TEXT NOT NULL DEFAULT '' | ''
        order | NUMERIC NOT NULL DEFAULT 0 | 0
        user_created_time | INT NOT NULL DEFAULT 0 | 0
        user_updated_time | INT NOT NULL DEFAULT 0 | 0
        encryption_cipher_text | TEXT NOT NULL DEFAULT '' | ''
        encryption_applied | INT NOT NULL DEFAULT 0 | 0
        markup_language | INT NOT NULL DEFAULT 1 | 1
        is_shared | INT NOT NULL DEFAULT 0 | 0
        share_id | TEXT NOT NULL DEFAULT '' | ''
        conflict_original_id | TEXT DEFAULT NULL | None
        master_key_id | TEXT NOT NULL DEFAULT '' | ''
        user_data | TEXT NOT NULL DEFAULT '' | ''
        """
    ),
)
NOTES_NORMALIZED = Table(
    "notes_normalized",
    _cols(
        """
        id | TEXT NOT NULL | ''
        title | TEXT NOT NULL DEFAULT '' | ''
        body | TEXT NOT NULL DEFAULT '' | ''
        user_created_time | INT NOT NULL DEFAULT 0 | 0
        user_updated_time | INT NOT NULL DEFAULT 0 | 0
        is_todo | INT NOT NULL DEFAULT 0 | 0
        todo_completed | INT NOT NULL DEFAULT 0 | 0
        parent_id | TEXT NOT NULL DEFAULT '' | ''
        latitude | NUMERIC NOT NULL DEFAULT 0 | 0
        longitude | NUMERIC NOT NULL DEFAULT 0 | 0
        altitude | NUMERIC NOT NULL DEFAULT 0 | 0
        source_url | TEXT NOT NULL DEFAULT '' | ''
        todo_due | INT NOT NULL DEFAULT 0 | 0
        """
    ),
)
TABLES = (FOLDERS, NOTES, NOTES_NORMALIZED)
#: each table's columns and their defaults (plain values: a row starts as a shallow copy)
_DEFAULTS = {t.name: {c.name: c.default for c in t.columns} for t in TABLES}


def full(table: Table, values: Row) -> Row:
    """A row of ``table``: the columns given, the others the table's defaults."""
    row = dict(_DEFAULTS[table.name])
    row.update({k: v for k, v in values.items() if k in row})
    return row
