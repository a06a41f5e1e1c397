"""AndroidWorld's Broccoli tasks (``task_evals/single/recipe.py``) on the simulated phone.

Parameters are drawn as AndroidWorld draws them (``_generate_random_recipe``,
``sqlite_schema_utils.get_random_items``, the classes' ``generate_random_params``), rows kept as
dicts with the fields of AndroidWorld's ``sqlite_schema_utils.Recipe``. The start state is what
``initialize_task`` leaves: the ``recipes`` table cleared, the noise rows inserted (keys from 1),
then for the deletion tasks the target rows; the Markor tasks also write ``recipes.txt`` into an
emptied Markor folder, RecipeAddMultipleRecipesFromImage clears the phone's storage and puts a
picture of the recipes, ``recipes.jpg``, into ``DCIM`` (the media store Simple Gallery Pro
shows). The checks are ``sqlite_validators``' on the rows the app holds: an addition must add
rows matching the targets (the texts fuzzy, ``favorite`` exact) and change nothing else; a
deletion must remove exactly the target keys (one of the two duplicates).

RecipeDeleteMultipleRecipesWithConstraint may draw an ingredient no recipe's directions hold
(an exotic one, or one with a capital letter, as AndroidWorld compares it with the lower-cased
directions): its targets are then empty, and doing nothing succeeds, as in AndroidWorld.
"""

from __future__ import annotations

import datetime as dt
import random
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.actions import Action, format_action
from gui_gym.android.sim.apps.broccoli.app import (
    FIELDS,
    RecipeDetails,
    RecipeEditor,
    RecipeList,
)
from gui_gym.android.sim.apps.broccoli.data import LABEL, Recipe, RecipeData
from gui_gym.android.sim.apps.broccoli.recipes import (  # noqa: F401  (the tasks' vocabulary, named here too)
    COMMON_INGREDIENTS,
    COMPARE,
    DESCRIPTIONS,
    DIRECTIONS_ADDITIONS,
    FREE_FORM,
    INGREDIENT_DESCRIPTORS,
    PREP_TIMES,
    RECIPES,
    ROW_FIELDS,
    SERVINGS,
    TEXT_FIELDS,
    drawn_recipe,
    generate_recipe,
    random_items,
    random_recipes_by_directions,
    recipe_draw,
    recipe_row,
)
from gui_gym.android.sim.apps.broccoli.storage import rows
from gui_gym.android.sim.apps.gallery.oracle import view_step, viewed
from gui_gym.android.sim.apps.markor.androidworld import clear_device_storage, file_open, open_file_step
from gui_gym.android.sim.apps.markor.app import MarkorData
from gui_gym.android.sim.dialogs import AlertDialog, MenuDialog
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.androidworld import fuzzy_match
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack, in_app
from gui_gym.android.sim.tasks.rows import (
    AddRows,
    DeleteDuplicateRows,
    DeleteRows,
    Exhausted,
    RowsTask,
    Table,
    distinct_items,
)

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

Row = dict[str, Any]

MARKOR_FILE = "recipes.txt"
GALLERY_PICTURE = "DCIM/recipes.jpg"  # write_to_gallery: /sdcard/DCIM
GALLERY_WRAP = 60

# ----------------------------------------------------------------------------- state and checks

#: the ``recipes`` table: ``favorite`` compared exactly, the texts fuzzily
#: (``_RecipeAddMultipleRecipes``'s fields)
TABLE = Table(
    app="broccoli",
    key="recipeId",
    fields=ROW_FIELDS,
    record=Recipe,
    empty=RecipeData,
    read=rows,
    exact=("favorite",),
    fuzzy=FREE_FORM,
    noun="Recipe",
    text_fields=TEXT_FIELDS,
    records=lambda data: data.recipes,
)


def rows_as_text(items: Sequence[Row], format_type: str, wrap_width: int | None = None) -> str:
    """``_get_rows_as_text``: ``csv`` (a ``|`` header and lines) or ``text_block`` (``Recipe:
    title`` and one indented line per other field, blocks separated by a blank line; with
    ``wrap_width`` each value wrapped by ``textwrap.wrap``)."""
    return TABLE.rows_as_text(items, format_type, wrap_width)


table = TABLE.rows
numbered = TABLE.numbered
insert = TABLE.insert
matches = TABLE.matches
addition_ok = TABLE.addition_ok
removal_ok = TABLE.removal_ok
saved = TABLE.saved


# ----------------------------------------------------------------------------- oracle helpers


def _back_to_list(o: Oracle) -> str:
    if o.app != "broccoli":
        return o.launch(LABEL)
    return o.back()


def _on_list(o: Oracle) -> RecipeList | None:
    s = o.screen
    return s if isinstance(s, RecipeList) and s.dialog is None and not s.favorites else None


def _needs_paste(value: str) -> bool:
    """A multi-line field's text that Enter's line break after it would spoil (``n/a`` + a line
    break is a difflib ratio of 6 / 7 < 0.9): it is cut from a one-line field and pasted."""
    return bool(value) and not fuzzy_match(value, value + "\n")


def _text_toolbar_item(o: Oracle, title: str) -> Any:
    return next((n for n in o.nodes if n.desc == title and n.on_tap is not None and n.label == title), None)


def typable(value: str) -> str:
    """``value`` as the oracle types it: its accents dropped where the text still matches
    (``Sauté`` as ``Saute``: ``adb shell input text``, which AndroidWorld types with, sends ASCII
    only, and the check's fuzzy match forgives a letter in a sentence)."""
    folded = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    return folded if folded != value and fuzzy_match(value, folded) else value


def fill_step(o: Oracle, editor: RecipeEditor, target: Row) -> str | None:
    """One step toward the editor holding ``target``'s texts; ``None`` once it does."""
    multiline = {k for k, _, _, ml in FIELDS if ml}
    form = editor.form
    for key, hint, _, ml in FIELDS:
        value = typable(target[key])
        current = form.get(key, "")
        if key == "source" and any(_needs_paste(target[k]) and form.get(k, "") != target[k] for k in multiline):
            continue  # Source lends itself to the paste below first
        if current == value or (ml and current == value + "\n" and not _needs_paste(value)):
            continue
        node = o.field(hint)
        if node is None or node.bounds[3] - node.bounds[1] < 60:  # scrolled away: bring it in
            return _scroll_form_to(o, editor, key)
        if ml and _needs_paste(value):
            return _paste_step(o, editor, key, value)
        if not node.focused:
            return o.tap(node)
        return o.type(value) if not current else o.replace(value)
    return None


def _scroll_form_to(o: Oracle, editor: RecipeEditor, key: str) -> str:
    lst = o.find(rid=":id/new_scroll_view", role="list")
    place = next(p for p in editor.layout() if p[0] == key)
    off = editor.scroll.get("form", 0)
    if o.keyboard and (lst is None or lst.on_scroll is None):
        return o.back()
    return o.swipe("up" if place[1] > off else "down", "short", within=lst)  # finger up: what is below


def _paste_step(o: Oracle, editor: RecipeEditor, key: str, value: str) -> str:
    """``value`` into the multi-line field ``key`` without a line break: typed into Source,
    selected, cut, then pasted."""
    dev = o.dev
    hint = {k: h for k, h, _, _ in FIELDS}[key]
    if dev.state.clipboard == value:
        paste = _text_toolbar_item(o, "Paste")
        sel = dev.state.selection
        if paste is not None and sel is not None and sel.on(editor, key):
            return o.tap(paste)
        if editor.form.get(key, ""):  # a wrong text first: cleared by a Type of nothing
            node = o.field(hint)
            return o.tap(node) if not node.focused else o.replace("")
        return o.long_press(o.field(hint))
    source = o.field("Source")
    if source is None or source.bounds[3] - source.bounds[1] < 60:
        return _scroll_form_to(o, editor, "source")
    if editor.form.get("source", "") != value:
        if not source.focused:
            return o.tap(source)
        return o.type(value) if not editor.form.get("source") else o.replace(value)
    sel = dev.state.selection
    if sel is not None and sel.on(editor, "source"):
        item = _text_toolbar_item(o, "Cut") or _text_toolbar_item(o, "Select all")
        if item is not None:
            return o.tap(item)
    return o.long_press(source)


def add_step(o: Oracle, target: Row) -> str:
    """One step toward saving ``target`` as a new recipe in Broccoli."""
    s = o.screen
    if o.app != "broccoli":
        return o.launch(LABEL)
    if isinstance(s, RecipeEditor) and s.recipe_id is None:
        if s.dialog is not None:
            return o.back()
        act = fill_step(o, s, target)
        if act is not None:
            return act
        return o.tap(o.find(rid=":id/button_save_recipe"))
    if _on_list(o) is not None:
        return o.tap(o.find(rid=":id/fab_recipes"))
    return _back_to_list(o)


def open_details_step(o: Oracle, keys: Sequence[int]) -> str | None:
    """On the list: scroll to the first card of a recipe in ``keys`` (list order) and open it;
    ``None`` when not on the list."""
    s = _on_list(o)
    if s is None:
        return None
    data: RecipeData = o.dev.data("broccoli")
    order = [r.recipeId for r in data.listing()]
    wanted = [k for k in order if k in keys]
    at = order.index(wanted[0])
    cards = s.cards
    hit = next((b for k, b in cards if k == wanted[0] and b[3] - b[1] > 150), None)
    if hit is not None:
        return format_action(Action("tap", element=hit))
    lst = o.find(rid=":id/recycler_view", role="list")
    shown = [order.index(k) for k, _ in cards]
    down = bool(shown) and max(shown) <= at
    return o.swipe("up" if down else "down", within=lst)


def delete_step(o: Oracle, keys: Sequence[int]) -> str:
    """One step toward deleting one of the recipes ``keys``: open it from the list, its menu,
    Delete, confirm."""
    s = o.screen
    if o.app != "broccoli":
        return o.launch(LABEL)
    if isinstance(s, RecipeDetails) and s.recipe_id in keys:
        d = s.dialog
        if isinstance(d, AlertDialog) and d.handler == "on_delete":
            return o.tap(o.find(label="Delete", rid="android:id/button1"))
        if isinstance(d, MenuDialog) and d.handler == "on_menu":
            return o.tap(o.find(text="Delete", role="menuitem"))
        if d is None and not o.keyboard:
            return o.tap(o.find(desc="More options"))
        return o.back()
    act = open_details_step(o, keys)
    return act if act is not None else _back_to_list(o)


def details_open(dev: Device, keys: Sequence[int]) -> bool:
    return any(isinstance(s, RecipeDetails) and s.recipe_id in keys for s in back_stack(dev, "broccoli"))


def new_editor(dev: Device) -> bool:
    return any(isinstance(s, RecipeEditor) and s.recipe_id is None for s in back_stack(dev, "broccoli"))


# ----------------------------------------------------------------------------- tasks


class _Recipe(RowsTask):
    app = "broccoli"
    apps: ClassVar[tuple[str, ...]] = ("broccoli",)
    table = TABLE

    def placeholder_values(self, params: Params) -> dict[str, str]:
        titles = [x["title"] for x in params.get("row_objects", [])]
        out = {f"Title{i + 1}": t for i, t in enumerate(titles)}
        if "ingredient" in params:
            out["Ingredient"] = params["ingredient"]
        return out


# -- deletion


class _RecipeDelete(_Recipe, DeleteRows):
    template = "Delete the following recipes from Broccoli app: {titles}."

    def generate(self, r: random.Random) -> Params:
        items = distinct_items(r, self.n_rows + self.n_rows_noise, generate_recipe, "title")
        if self.n_rows_noise > 0:
            return {"row_objects": items[self.n_rows_noise :], "noise_row_objects": items[: self.n_rows_noise]}
        return {"row_objects": items}

    def instruction(self, params: Params) -> str:
        titles = ", ".join(x["title"] for x in params["row_objects"])
        return f"Delete the following recipes from Broccoli app: {titles}."

    def oracle(self, o: Oracle) -> str:
        left = self.left(o.dev, o.p)
        if not left:  # (none to delete at all: a look at the app, then done)
            return o.launch(LABEL) if o.app != "broccoli" else o.finish()
        return delete_step(o, left[:1])


gone = TABLE.gone


def _gone_milestones(n: int) -> tuple[Milestone, ...]:
    return TABLE.gone_milestones(n, "Delete the recipe <Title{}>")


def _open() -> Milestone:
    return Milestone("Open the Broccoli app", lambda d, p: in_app(d, "broccoli"))


class RecipeDeleteSingleRecipe(_RecipeDelete):
    id = "RecipeDeleteSingleRecipe"
    difficulty = "easy"
    optimal_steps = 5
    tags = ("data_edit", "search", "parameterized")
    n_rows, n_rows_noise = 1, 0
    placeholders: ClassVar[dict[str, str]] = {"Title1": "row_objects"}
    milestones = (
        _open(),
        Milestone(
            "Open the recipe <Title1>",
            lambda d, p: details_open(d, _RecipeDelete.keys(p)) or gone(d, p, 0),
        ),
        *_gone_milestones(1),
    )


class RecipeDeleteSingleWithRecipeWithNoise(_RecipeDelete):
    id = "RecipeDeleteSingleWithRecipeWithNoise"
    difficulty = "easy"
    optimal_steps = 10
    tags = ("search", "screen_reading", "data_edit", "parameterized")
    n_rows, n_rows_noise = 1, 29
    placeholders: ClassVar[dict[str, str]] = {"Title1": "row_objects"}
    milestones = RecipeDeleteSingleRecipe.milestones


class RecipeDeleteMultipleRecipes(_RecipeDelete):
    id = "RecipeDeleteMultipleRecipes"
    difficulty = "easy"
    optimal_steps = 12
    tags = ("data_edit", "parameterized")
    n_rows, n_rows_noise = 3, 0
    placeholders: ClassVar[dict[str, str]] = {f"Title{i}": "row_objects" for i in (1, 2, 3)}
    milestones = (_open(), *_gone_milestones(3))


class RecipeDeleteMultipleRecipesWithNoise(_RecipeDelete):
    id = "RecipeDeleteMultipleRecipesWithNoise"
    difficulty = "medium"
    optimal_steps = 17
    tags = ("parameterized", "search", "complex_ui_understanding", "repetition")
    n_rows, n_rows_noise = 3, 29
    placeholders: ClassVar[dict[str, str]] = {f"Title{i}": "row_objects" for i in (1, 2, 3)}
    milestones = RecipeDeleteMultipleRecipes.milestones


def _constraint_milestone(i: int) -> Milestone:
    """The ``i``-th recipe deleted, in whatever order (the instruction names none): reached once
    ``i + 1`` of the recipes using the ingredient are gone."""

    def reached(d: Device, p: Params) -> bool:
        n = len(p["row_objects"])
        if i >= n:  # fewer recipes use it: nothing more to delete
            return "broccoli" in d.state.launched
        return sum(gone(d, p, j) for j in range(n)) > i

    return Milestone(f"Delete the {('first', 'second', 'third')[i]} recipe using <Ingredient>", reached)


class RecipeDeleteMultipleRecipesWithConstraint(_RecipeDelete):
    """The recipes whose directions hold an ingredient: three, fewer, or none (see the module)."""

    id = "RecipeDeleteMultipleRecipesWithConstraint"
    difficulty = "hard"
    optimal_steps = 20
    tags = ("screen_reading", "repetition", "parameterized")
    template = "Delete the recipes from Broccoli app that use {ingredient} in the directions."
    n_rows, n_rows_noise = 3, 29
    placeholders: ClassVar[dict[str, str]] = {"Ingredient": "ingredient"}
    milestones = (_open(), *(_constraint_milestone(i) for i in range(3)))

    def generate(self, r: random.Random) -> Params:
        ingredient = r.choice(COMMON_INGREDIENTS)
        noise = random_recipes_by_directions(r, self.n_rows_noise, ingredient, holding=False)
        targets: list[Row] = []
        n = self.n_rows
        while n > 0:
            try:
                targets = random_recipes_by_directions(r, n, ingredient, holding=True)
                break
            except Exhausted:
                n -= 1
        return {"row_objects": targets, "noise_row_objects": noise, "ingredient": ingredient}

    def instruction(self, params: Params) -> str:
        return f"Delete the recipes from Broccoli app that use {params['ingredient']} in the directions."


# -- duplicates


class _RecipeDeleteDuplicates(_Recipe, DeleteDuplicateRows):
    template = (
        "Delete all but one of any recipes in the Broccoli app that are exact duplicates, ensuring at least one"
        " instance of each unique recipe remains"
    )
    n_rows = 1
    placeholders: ClassVar[dict[str, str]] = {"Title1": "row_objects"}
    milestones = (
        _open(),
        Milestone(
            "Open a duplicate of <Title1>",
            lambda d, p: details_open(d, _RecipeDeleteDuplicates.keys(p)) or _RecipeDeleteDuplicates.one_removed(d, p),
        ),
        Milestone("Delete one duplicate <Title1>", lambda d, p: _RecipeDeleteDuplicates.one_removed(d, p)),
    )

    def instruction(self, params: Params) -> str:
        return self.template

    def delete_step(self, o: Oracle, keys: Sequence[int]) -> str:
        return delete_step(o, keys)


class RecipeDeleteDuplicateRecipes(_RecipeDeleteDuplicates):
    id = "RecipeDeleteDuplicateRecipes"
    difficulty = "easy"
    optimal_steps = 4
    tags = ("search", "data_edit", "screen_reading", "repetition", "parameterized")
    n_rows_noise = 5

    def generate(self, r: random.Random) -> Params:
        items = random_items(r, self.n_rows_noise + self.n_rows)
        target = items.pop()
        return {"row_objects": [target, dict(target)], "noise_row_objects": items}


class RecipeDeleteDuplicateRecipes2(_RecipeDeleteDuplicates):
    id = "RecipeDeleteDuplicateRecipes2"
    difficulty = "medium"
    optimal_steps = 11
    tags = ("repetition", "data_edit", "parameterized")
    n_rows_noise = 10

    def generate(self, r: random.Random) -> Params:
        noise = random_items(r, 7)
        target = noise.pop()
        while len(noise) < self.n_rows_noise:  # variations of the target: the same title
            (value,) = random_items(r, 1, keep=lambda x: x["title"] == target["title"], replacement=True)
            if value != target:
                noise.append(value)
        return {"row_objects": [target, dict(target)], "noise_row_objects": noise}


class RecipeDeleteDuplicateRecipes3(_RecipeDeleteDuplicates):
    id = "RecipeDeleteDuplicateRecipes3"
    difficulty = "medium"
    optimal_steps = 16
    tags = ("data_edit", "parameterized")
    n_rows_noise = 30

    def generate(self, r: random.Random) -> Params:
        avocado = "Avocado Toast with Egg"
        noise = random_items(r, 22, keep=lambda x: x["title"] != avocado)
        target = noise.pop()
        noise += random_items(r, 3, keep=lambda x: x["title"] == avocado)  # at the top of the list
        while len(noise) < self.n_rows_noise:
            (value,) = random_items(
                r,
                1,
                keep=lambda x: x["title"] == target["title"] and x["description"] == target["description"],
                replacement=True,
            )
            if value != target:
                noise.append(value)
        return {"row_objects": [target, dict(target)], "noise_row_objects": noise}


# -- addition


def _saved_milestones(n: int) -> tuple[Milestone, ...]:
    return TABLE.saved_milestones(n, "Save the recipe <Title{}>")


class _RecipeAdd(_Recipe, AddRows):
    template = "Add the following recipes into the Broccoli app: {recipes}"
    n_rows, n_rows_noise = 3, 10

    def generate(self, r: random.Random) -> Params:
        targets = random_items(r, self.n_rows)
        noise = random_items(r, self.n_rows_noise, keep=lambda x: any(x["title"] != t["title"] for t in targets))
        return {
            "row_objects": targets,
            "noise_row_objects": noise,
            "text_representation_type": r.choice(["csv", "text_block"]),
        }

    def instruction(self, params: Params) -> str:
        text = rows_as_text(params["row_objects"], params["text_representation_type"])
        return f"Add the following recipes into the Broccoli app:\n{text}"

    def add_step(self, o: Oracle, target: Row) -> str:
        return add_step(o, target)


class RecipeAddSingleRecipe(_RecipeAdd):
    id = "RecipeAddSingleRecipe"
    difficulty = "easy"
    optimal_steps = 12
    tags = ("data_entry", "parameterized")
    template = "Add the following recipes into the Broccoli app:\n{recipe}"
    n_rows = 1
    placeholders: ClassVar[dict[str, str]] = {"Title1": "row_objects"}
    milestones = (
        _open(),
        Milestone("Open New Recipe", lambda d, p: new_editor(d) or saved(d, p["row_objects"][0])),
        *_saved_milestones(1),
    )


class RecipeAddMultipleRecipes(_RecipeAdd):
    id = "RecipeAddMultipleRecipes"
    difficulty = "medium"
    optimal_steps = 34
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {f"Title{i}": "row_objects" for i in (1, 2, 3)}
    milestones = (_open(), *_saved_milestones(3))


def markor_file_open(dev: Device) -> bool:
    return file_open(dev, MARKOR_FILE)


class RecipeAddMultipleRecipesFromMarkor(_RecipeAdd):
    id = "RecipeAddMultipleRecipesFromMarkor"
    apps = ("broccoli", "markor")
    difficulty = "hard"
    optimal_steps = 24
    tags = ("data_entry", "multi_app", "screen_reading", "memorization", "parameterized")
    template = "Add the recipes from recipes.txt in Markor to the Broccoli recipe app."
    placeholders: ClassVar[dict[str, str]] = {f"Title{i}": "row_objects" for i in (1, 2, 3)}
    milestones = (
        Milestone(f"Open {MARKOR_FILE} in Markor", lambda d, p: markor_file_open(d) or saved(d, p["row_objects"][0])),
        Milestone("Open the Broccoli app", lambda d, p: in_app(d, "broccoli") or saved(d, p["row_objects"][0])),
        *_saved_milestones(3),
    )

    def instruction(self, params: Params) -> str:
        return self.template

    def file_rows(self, params: Params, r: random.Random) -> list[Row]:
        return list(params["row_objects"])

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        super().initialize(dev, params, r)
        notes: MarkorData = dev.data("markor")
        notes.entries.clear()  # file_utils.clear_directory(MARKOR_DATA)
        text = rows_as_text(self.file_rows(params, r), params["text_representation_type"])
        notes.add(MARKOR_FILE, content=text, mtime=dev.state.now)

    def oracle(self, o: Oracle) -> str:
        if not markor_file_open(o.dev) and not saved(o.dev, self.targets(o.p)[0]):
            return open_file_step(o, MARKOR_FILE)
        return super().oracle(o)


class RecipeAddMultipleRecipesFromMarkor2(RecipeAddMultipleRecipesFromMarkor):
    id = "RecipeAddMultipleRecipesFromMarkor2"
    optimal_steps = 26
    tags = (
        "parameterized",
        "screen_reading",
        "complex_ui_understanding",
        "repetition",
        "multi_app",
        "data_entry",
        "information_retrieval",
    )
    template = (
        "Add the recipes from recipes.txt in Markor that take {prep_time} to prepare into the Broccoli recipe app."
    )
    n_rows, n_rows_noise = 3, 40

    def generate(self, r: random.Random) -> Params:
        prep = r.choice(PREP_TIMES)
        targets = random_items(r, self.n_rows, keep=lambda x: x["preparationTime"] == prep)
        noise = random_items(r, self.n_rows_noise, keep=lambda x: x["preparationTime"] != prep)
        return {
            "row_objects": targets,
            "noise_row_objects": noise,
            "text_representation_type": r.choice(["csv", "text_block"]),
            "prep_time": prep,
        }

    def instruction(self, params: Params) -> str:
        return (
            f"Add the recipes from recipes.txt in Markor that take {params['prep_time']} to "
            "prepare into the Broccoli recipe app."
        )

    def file_rows(self, params: Params, r: random.Random) -> list[Row]:
        # the parent's file first (overwritten), then every recipe shuffled
        items = list(params["row_objects"]) + list(params["noise_row_objects"])
        r.shuffle(items)
        return items


class RecipeAddMultipleRecipesFromImage(_RecipeAdd):
    """The three recipes in a picture, ``recipes.jpg`` in Simple Gallery Pro (text blocks wrapped
    at 60), written after the phone's storage is cleared (``clear_device_storage``)."""

    id = "RecipeAddMultipleRecipesFromImage"
    apps = ("broccoli", "gallery")
    difficulty = "hard"
    optimal_steps = 13
    tags = ("transcription", "screen_reading", "data_entry", "complex_ui_understanding", "parameterized")
    template = "Add the recipes from recipes.jpg in Simple Gallery Pro to the Broccoli recipe app."
    placeholders: ClassVar[dict[str, str]] = {f"Title{i}": "row_objects" for i in (1, 2, 3)}
    milestones = (
        Milestone(
            "Open recipes.jpg in Simple Gallery Pro",
            lambda d, p: viewed(d, GALLERY_PICTURE) or saved(d, p["row_objects"][0]),
        ),
        Milestone("Open the Broccoli app", lambda d, p: in_app(d, "broccoli") or saved(d, p["row_objects"][0])),
        *_saved_milestones(3),
    )

    def instruction(self, params: Params) -> str:
        return self.template

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        super().initialize(dev, params, r)
        clear_device_storage(dev)
        lines = rows_as_text(params["row_objects"], "text_block", GALLERY_WRAP).split("\n")
        media(dev).add_image(GALLERY_PICTURE, lines, dev.state.now - dt.timedelta(seconds=1))

    def oracle(self, o: Oracle) -> str:
        if not viewed(o.dev, GALLERY_PICTURE) and not saved(o.dev, self.targets(o.p)[0]):
            act = view_step(o, GALLERY_PICTURE)
            if act is not None:
                return act
        return super().oracle(o)


TEMPLATES = (
    RecipeAddMultipleRecipes,
    RecipeAddMultipleRecipesFromImage,
    RecipeAddMultipleRecipesFromMarkor,
    RecipeAddMultipleRecipesFromMarkor2,
    RecipeAddSingleRecipe,
    RecipeDeleteDuplicateRecipes,
    RecipeDeleteDuplicateRecipes2,
    RecipeDeleteDuplicateRecipes3,
    RecipeDeleteMultipleRecipes,
    RecipeDeleteMultipleRecipesWithConstraint,
    RecipeDeleteMultipleRecipesWithNoise,
    RecipeDeleteSingleRecipe,
    RecipeDeleteSingleWithRecipeWithNoise,
)
