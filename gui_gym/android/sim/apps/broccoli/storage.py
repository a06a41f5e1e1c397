"""Broccoli's recipes as the app keeps them: the ``recipes`` table of the Room database ``broccoli``.

The table is Room's for ``CoreRecipe`` (flauschtrud/broccoli v1.2.6, schema version 1)::

    CREATE TABLE `recipes` (`recipeId` INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, `title` TEXT,
        `imageName` TEXT, `description` TEXT, `servings` TEXT, `preparationTime` TEXT,
        `source` TEXT, `ingredients` TEXT, `directions` TEXT, `favorite` INTEGER NOT NULL)

These are the ten fields of AndroidWorld's ``sqlite_schema_utils.Recipe``, which reads the table
with ``SELECT *`` (``recipe.py``'s ``_DB_PATH``: ``/data/data/com.flauschcode.broccoli/databases/broccoli``).
A row maps one to one to a :class:`~gui_gym.android.sim.apps.broccoli.data.Recipe`, NULLs
included. (The app's other tables, categories and the full-text index, are not kept.)

Example:
    >>> data = RecipeData()
    >>> _ = data.add(Recipe(title="Lentil Soup", servings=None))
    >>> [(r["recipeId"], r["title"], r["servings"], r["favorite"]) for r in RECIPES.decode(encode(data))]
    [(1, 'Lentil Soup', None, 0)]
    >>> decode(encode(data)) == data
    True
"""

from __future__ import annotations

import sqlite3
from typing import Any

from gui_gym.android.sim.apps.broccoli.data import PKG, TEXT_FIELDS, Recipe, RecipeData
from gui_gym.android.sim.storage import Column, Database, StorageError, Table, check_int, check_text

RECIPES = Table(
    "recipes",
    (
        Column("recipeId", "INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL", None),
        *(Column(name, "TEXT", "") for name in TEXT_FIELDS),
        Column("favorite", "INTEGER NOT NULL", 0),
    ),
)
_MAX_ID = 2**63 - 1  # the app's key is a Java long
PATH = f"/data/data/{PKG}/databases/broccoli"


def row(r: Recipe) -> dict[str, Any]:
    """``r`` as its ``recipes`` row (AndroidWorld's ``Recipe`` fields)."""
    return {"recipeId": r.recipeId, **{n: getattr(r, n) for n in TEXT_FIELDS}, "favorite": r.favorite}


def rows(data: RecipeData) -> list[dict[str, Any]]:
    """The ``recipes`` rows of ``data``, by key (what ``SELECT * FROM recipes`` returns)."""
    return [row(r) for r in sorted(data.recipes, key=lambda r: r.recipeId)]


def encode(data: RecipeData) -> bytes:
    return RECIPES.encode(rows(data))


def decode(raw: bytes) -> RecipeData:
    """The recipes of a ``broccoli`` database; :class:`StorageError` if the app could not read it
    (its schema, a value of the wrong type, NULL where the schema forbids it, a key used twice)."""
    data = RecipeData()
    seen: set[int] = set()
    for r in RECIPES.decode(raw):
        for c in ("recipeId", "favorite"):
            if r.get(c) is None:
                raise StorageError(f"column {c} holds NULL; the app's schema has NOT NULL there")
        key = check_int(r, "recipeId")
        if not 1 <= key <= _MAX_ID or key in seen:
            raise StorageError(f"recipeId {key} is {'used twice' if key in seen else 'out of range'}")
        seen.add(key)
        texts = {n: (check_text(r, n) if r[n] is not None else None) for n in TEXT_FIELDS}
        data.recipes.append(Recipe(**texts, favorite=check_int(r, "favorite"), recipeId=key))
    data.next_id = max(seen, default=0) + 1
    try:
        encode(data)
    except (sqlite3.Error, OverflowError, ValueError) as e:
        raise StorageError(f"a value the app cannot store back ({e})") from None
    return data


DATABASE = Database("broccoli", PATH, encode, decode, RecipeData)
