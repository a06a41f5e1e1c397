"""Pro Expense's expenses as the app keeps them: the ``expense`` table of ``accounting.db``.

The table is Room's for ``ExpenseEnt`` (arduia/ProExpense, schema version 6, the
``com.arduia.expense_11.apk`` AndroidWorld installs)::

    CREATE TABLE `expense` (`expense_id` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `name` TEXT,
        `amount` INTEGER NOT NULL, `category` INTEGER NOT NULL, `note` TEXT,
        `created_date` INTEGER NOT NULL, `modified_date` INTEGER NOT NULL)

``amount`` in cents, ``category`` the app's category id (1 Others ... 11 Donation), dates in Unix
milliseconds, ``name`` and ``note`` nullable. These are the seven fields of AndroidWorld's
``sqlite_schema_utils.Expense``, which reads the table with ``SELECT *``. A row maps one to one
to an :class:`~gui_gym.android.sim.apps.expense.data.Expense`, NULLs included, so a database
pulled, edited on a host and pushed back loses nothing.

Example:
    >>> data = ExpenseData()
    >>> _ = data.add(Expense("Taxi Fare", 17968, 7, None, 1697284800000, 1697284800000))
    >>> [(r["expense_id"], r["name"], r["amount"], r["note"]) for r in EXPENSE.decode(encode(data))]
    [(1, 'Taxi Fare', 17968, None)]
    >>> decode(encode(data)) == data
    True
"""

from __future__ import annotations

import operator
import sqlite3
from typing import Any

from gui_gym.android.sim.apps.expense.data import PKG, Expense, ExpenseData
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

EXPENSE = Table(
    "expense",
    (
        Column("expense_id", "INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", None),
        Column("name", "TEXT", None),
        Column("amount", "INTEGER NOT NULL", 0),
        Column("category", "INTEGER NOT NULL", 0),
        Column("note", "TEXT", None),
        Column("created_date", "INTEGER NOT NULL", 0),
        Column("modified_date", "INTEGER NOT NULL", 0),
    ),
)
_NOT_NULL = ("expense_id", "amount", "category", "created_date", "modified_date")
_MAX_ID = 2**31 - 1  # the app's key is a Kotlin Int


def row(e: Expense) -> dict[str, Any]:
    """``e`` as its ``expense`` row (AndroidWorld's ``Expense`` fields)."""
    return {
        "expense_id": e.expense_id,
        "name": e.name,
        "amount": e.amount,
        "category": e.category,
        "note": e.note,
        "created_date": e.created_date,
        "modified_date": e.modified_date,
    }


_BY_KEY = operator.attrgetter("expense_id")


def rows(data: ExpenseData) -> list[dict[str, Any]]:
    """The ``expense`` rows of ``data``, by key (what ``SELECT * FROM expense`` returns)."""
    return [row(e) for e in sorted(data.expenses, key=_BY_KEY)]


def encode(data: ExpenseData) -> bytes:
    return EXPENSE.encode(rows(data))


def decode(raw: bytes) -> ExpenseData:
    """The expenses of an ``accounting.db``; :class:`StorageError` if the app could not read it
    (its schema, a value of the wrong type, NULL in a NOT NULL column, an id used twice or out of
    the app's range), so that what is read can always be written back."""
    data = ExpenseData()
    seen: set[int] = set()
    for r in EXPENSE.decode(raw):
        nulls = [c for c in _NOT_NULL if r.get(c) is None]
        if nulls:
            raise StorageError(f"column(s) {', '.join(nulls)} hold NULL; the app's schema has NOT NULL there")
        key = check_int(r, "expense_id")
        if not 1 <= key <= _MAX_ID or key in seen:
            raise StorageError(f"expense_id {key} is {'used twice' if key in seen else 'out of range'}")
        seen.add(key)
        values = {c: check_int(r, c) for c in ("amount", "category", "created_date", "modified_date")}
        name = check_text(r, "name") if r["name"] is not None else None
        note = check_text(r, "note") if r["note"] is not None else None
        data.expenses.append(Expense(name=name, note=note, expense_id=key, **values))
    data.next_id = max(seen, default=0) + 1
    try:
        encode(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:  # a value the app's schema cannot hold
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


DATABASE = Database("expense", f"/data/data/{PKG}/databases/accounting.db", encode, decode, ExpenseData)
