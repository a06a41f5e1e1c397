"""Broccoli's data: its recipes (:class:`Recipe`) in a :class:`RecipeData`.

One :class:`Recipe` is one row of the real app's ``recipes`` table (flauschtrud/broccoli
``CoreRecipe``, v1.2.6, the ``com.flauschcode.broccoli_1020600.apk`` AndroidWorld installs; the
table AndroidWorld's ``sqlite_schema_utils.Recipe`` reads), with the same fields: the texts
(nullable; the app writes ``""`` for an empty one), ``favorite`` 0 or 1 and the key ``recipeId``.
Plain picklable data (the device snapshots it); the screens are in ``app``, the database in
``storage``.

Example:
    >>> data = RecipeData()
    >>> r = data.add(Recipe(title="lentil soup"))
    >>> _ = data.add(Recipe(title="Beef Stir Fry"))
    >>> r.recipeId, [x.title for x in data.listing()]
    (1, ['Beef Stir Fry', 'lentil soup'])
"""

from __future__ import annotations

from dataclasses import dataclass, field

PKG = "com.flauschcode.broccoli"
LABEL = "Broccoli"

#: the text columns of the ``recipes`` table, in the table's order
TEXT_FIELDS = (
    "title",
    "imageName",
    "description",
    "servings",
    "preparationTime",
    "source",
    "ingredients",
    "directions",
)


@dataclass
class Recipe:
    """One row of the ``recipes`` table."""

    title: str | None = ""
    imageName: str | None = ""
    description: str | None = ""
    servings: str | None = ""
    preparationTime: str | None = ""
    source: str | None = ""
    ingredients: str | None = ""
    directions: str | None = ""
    favorite: int = 0
    recipeId: int = 0

    def text(self, name: str) -> str:
        """A text column as the app shows it (``""`` for NULL)."""
        return getattr(self, name) or ""


@dataclass
class RecipeData:
    recipes: list[Recipe] = field(default_factory=list)
    next_id: int = 1

    def add(self, r: Recipe) -> Recipe:
        """Insert ``r`` with the next key (the table's AUTOINCREMENT key)."""
        r.recipeId = self.next_id
        self.next_id += 1
        self.recipes.append(r)
        return r

    def by_id(self, recipe_id: int | None) -> Recipe | None:
        return next((r for r in self.recipes if r.recipeId == recipe_id), None)

    def remove(self, recipe_id: int) -> Recipe | None:
        r = self.by_id(recipe_id)
        if r is not None:
            self.recipes.remove(r)
        return r

    def listing(self, favorites_only: bool = False) -> list[Recipe]:
        """The recipe list's order: ``ORDER BY title COLLATE NOCASE`` (``RecipeDAO.findAll``),
        ties in key order."""
        rows = [r for r in self.recipes if r.favorite or not favorites_only]
        return sorted(rows, key=lambda r: (r.text("title").lower(), r.recipeId))
