"""AndroidWorld's Broccoli tasks on the simulated phone (``apps/broccoli/androidworld.py``): the
oracle solves AndroidWorld's instances 0-29 through the env, idling and near misses fail, the start
state is the ``recipes`` table AndroidWorld writes, the ``broccoli`` database round-trips, and the
screens keep the real app's rules (a title is needed, deleting asks first)."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest
from _aw import make, solve, start

from gui_gym.android.actions import parse_action
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.broccoli.androidworld import (
    GALLERY_PICTURE,
    MARKOR_FILE,
    TEMPLATES,
    addition_ok,
    generate_recipe,
    rows_as_text,
)
from gui_gym.android.sim.apps.broccoli.app import RecipeDetails, RecipeEditor, RecipeList
from gui_gym.android.sim.apps.broccoli.data import Recipe, RecipeData
from gui_gym.android.sim.apps.broccoli.storage import DATABASE, RECIPES, decode, encode, rows
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import media
from gui_gym.android.sim.storage import StorageError
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME, fuzzy_match

IDS = [t.id for t in TEMPLATES]
ADD = [i for i in IDS if "Add" in i]
DELETE = [i for i in IDS if "Delete" in i]
CONSTRAINT = "RecipeDeleteMultipleRecipesWithConstraint"


def _targets(task_id: str, seed: int) -> int:
    return len(TASKS[task_id].sample_seed(seed)["row_objects"])


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_every_seed(task_id: str) -> None:
    env, task = make(task_id, obs_mode="text"), TASKS[task_id]
    for seed in range(30):
        info0, _ = start(env, seed)
        info, actions, reached = solve(env)
        assert info["success"] is True, (seed, actions[-3:])
        assert list(info0["milestones"]) + reached == task.milestone_texts(env.unwrapped.params), seed
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_idling_fails(task_id: str) -> None:
    """Stopping at once fails, except where RecipeDeleteMultipleRecipesWithConstraint has nothing
    to delete (AndroidWorld's check passes then too: no target key, nothing changed)."""
    env = make(task_id, obs_mode="text")
    for seed in range(5):
        start(env, seed)
        _, _, term, _, info = env.step("finish()")
        done = task_id == CONSTRAINT and _targets(task_id, seed) == 0
        assert term and info["success"] is done, seed
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_start_state_is_androidworlds_table(task_id: str) -> None:
    """The served ``broccoli`` database holds AndroidWorld's rows, keys 1.. in insertion order (the
    noise first, then a deletion task's targets)."""
    env = make(task_id)
    _, dev = start(env, 3)
    p = env.unwrapped.params
    inserted = p.get("noise_row_objects", []) + (p["row_objects"] if task_id in DELETE else [])
    assert RECIPES.decode(encode(dev.data("broccoli"))) == [{**x, "recipeId": i} for i, x in enumerate(inserted, 1)]


def test_markor_and_gallery_hold_the_recipes() -> None:
    """``recipes.txt`` alone in Markor's folder: the targets (Markor) or all 43 recipes shuffled
    (Markor2); ``recipes.jpg`` in DCIM showing the targets as text blocks wrapped at 60."""
    env = make("RecipeAddMultipleRecipesFromMarkor")
    _, dev = start(env, 2)
    p = env.unwrapped.params
    notes = dev.data("markor")
    assert list(notes.entries) == [MARKOR_FILE]
    assert notes.get(MARKOR_FILE).content == rows_as_text(p["row_objects"], p["text_representation_type"])
    env = make("RecipeAddMultipleRecipesFromMarkor2")
    _, dev = start(env, 2)
    p = env.unwrapped.params
    text = dev.data("markor").get(MARKOR_FILE).content
    everything = p["row_objects"] + p["noise_row_objects"]
    assert text != rows_as_text(everything, p["text_representation_type"])  # shuffled
    assert all(x["directions"] in text for x in everything)
    env = make("RecipeAddMultipleRecipesFromImage")
    _, dev = start(env, 2)
    assert [f for f in media(dev).files] == [GALLERY_PICTURE]


def _after_oracle(task_id: str, seed: int) -> tuple[dict, Device]:
    env = make(task_id)
    start(env, seed)
    solve(env)
    return env.unwrapped.params, env.unwrapped.backend.device


@pytest.mark.parametrize("task_id", ["RecipeAddSingleRecipe", "RecipeAddMultipleRecipesFromMarkor"])
def test_add_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    p, dev = _after_oracle(task_id, 0)  # seed 0's first recipe has "n/a" ingredients: pasted, no line break
    data: RecipeData = dev.data("broccoli")
    assert task.check(dev, p, None, "complete")
    new = next(r for r in data.recipes if r.title == p["row_objects"][0]["title"] and r.recipeId > 10)
    for name, wrong in (("title", "Soup"), ("servings", "8 people"), ("source", "my grandmother"), ("favorite", 1)):
        right = getattr(new, name)
        setattr(new, name, wrong)
        assert not task.check(dev, p, None, "complete"), name
        setattr(new, name, right)
    assert new.ingredients == p["row_objects"][0]["ingredients"]
    new.ingredients += "\n"
    assert task.check(dev, p, None, "complete") == fuzzy_match(new.ingredients[:-1], new.ingredients)
    new.ingredients = new.ingredients[:-1]
    data.add(Recipe(title="Extra"))  # one more than asked
    assert not task.check(dev, p, None, "complete")
    data.recipes.pop()
    data.recipes[0].favorite = 1  # a noise row changed while adding
    assert not task.check(dev, p, None, "complete")


@pytest.mark.parametrize("task_id", ["RecipeDeleteSingleWithRecipeWithNoise", "RecipeDeleteMultipleRecipesWithNoise"])
def test_delete_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    env = make(task_id)
    _, dev = start(env, 4)
    p = env.unwrapped.params
    data: RecipeData = dev.data("broccoli")
    n_noise = len(p["noise_row_objects"])
    targets = list(range(n_noise + 1, n_noise + 1 + len(p["row_objects"])))
    for key in targets[:-1]:
        data.remove(key)
    assert not task.check(dev, p, None, "complete")
    last = data.remove(targets[-1])
    assert task.check(dev, p, None, "complete")
    data.recipes.append(last)
    data.remove(1)  # a noise recipe instead of the last target
    assert not task.check(dev, p, None, "complete")


@pytest.mark.parametrize("task_id", ["RecipeDeleteDuplicateRecipes", "RecipeDeleteDuplicateRecipes2"])
def test_duplicates_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    env = make(task_id)
    _, dev = start(env, 5)
    p = env.unwrapped.params
    data: RecipeData = dev.data("broccoli")
    first, second = len(p["noise_row_objects"]) + 1, len(p["noise_row_objects"]) + 2
    kept = data.remove(second)
    assert task.check(dev, p, None, "complete")
    data.recipes.append(kept)
    data.remove(first)
    assert task.check(dev, p, None, "complete")  # either of the two may go
    data.remove(second)
    assert not task.check(dev, p, None, "complete")  # both gone
    data.recipes.append(kept)
    if task_id == "RecipeDeleteDuplicateRecipes2":  # a variation (same title, other fields) is no duplicate
        variant = next(r for r in data.recipes if r.title == kept.title and r.recipeId < first)
        data.remove(variant.recipeId)
        assert not task.check(dev, p, None, "complete")


def test_draws_and_texts_as_androidworld_writes_them() -> None:
    """``_generate_random_recipe`` draws the recipe, then description, servings, time, the
    directions' addition, the ingredients (``dataclasses.replace``'s keyword order); with
    ``random.seed(0)`` that is ``_RECIPES[24]`` (``randrange`` of 40 from seed 0: 24, "Chicken
    Alfredo Pasta"), AndroidWorld's RecipeDeleteSingleRecipe instance 0 (recipe.py)."""
    row = generate_recipe(random.Random(0))
    assert row["title"] == "Chicken Alfredo Pasta" and random.Random(0).randrange(40) == 24
    assert TASKS["RecipeDeleteSingleRecipe"].sample_seed(0)["row_objects"] == [row]
    assert set(row) == {
        "title", "description", "servings", "preparationTime", "source", "ingredients", "directions", "favorite",
        "imageName", "recipeId",
    }  # fmt: skip
    assert (row["source"], row["favorite"], row["imageName"], row["recipeId"]) == ("", 0, "", -1)
    x = {**row, "directions": "Mix.", "description": "Quick.", "ingredients": "n/a"}
    assert rows_as_text([x], "csv") == (
        "title|description|servings|preparationTime|ingredients|directions\n"
        f"Chicken Alfredo Pasta|Quick.|{row['servings']}|{row['preparationTime']}|n/a|Mix."
    )
    assert rows_as_text([x, x], "text_block").startswith("Recipe: Chicken Alfredo Pasta\n description: Quick.\n")
    # "n/a" and a line break: difflib ratio 2 x 3 / 7 = 0.86 < 0.9, so Enter would spoil it
    assert not fuzzy_match("n/a", "n/a\n") and fuzzy_match("varies", "varies\n")
    before = [{**x, "recipeId": 1, "title": "Lentil Soup"}]
    typed = {**x, "recipeId": 2, "title": "chicken alfredo pasta"}
    assert addition_ok(before, [*before, typed], [x])
    assert not addition_ok(before, [*before, {**typed, "source": "web"}], [x])  # '' against 'web': ratio 0


# -- the database --------------------------------------------------------------------------------


def _recipes() -> RecipeData:
    data = RecipeData()
    data.add(Recipe(title="Lentil Soup", servings="2 servings", directions="Cook."))
    data.add(Recipe(title=None, description=None, favorite=1))  # NULL texts
    return data


def test_storage_round_trip(tmp_path: Path) -> None:
    """rows -> the SQLite file the app keeps -> rows, Room's columns as AndroidWorld's ``Recipe`` has them."""
    data = _recipes()
    f = tmp_path / "broccoli"
    f.write_bytes(encode(data))
    con = sqlite3.connect(f)
    con.row_factory = sqlite3.Row
    table = [dict(r) for r in con.execute("SELECT * FROM recipes")]
    con.close()
    assert table == rows(data) and table[1]["title"] is None and table[1]["favorite"] == 1
    assert list(table[0]) == [
        "recipeId", "title", "imageName", "description", "servings", "preparationTime", "source", "ingredients",
        "directions", "favorite",
    ]  # fmt: skip
    assert decode(f.read_bytes()) == data
    with pytest.raises(StorageError):
        decode(b"garbage")


def test_pushed_database_becomes_the_apps_data(tmp_path: Path) -> None:
    """AndroidWorld's ``sqlite_utils``: pull, ``DELETE FROM recipes``, insert without the key, push."""
    dev = Device()
    dev.state.data["broccoli"] = _recipes()
    sh = Shell(dev)
    assert DATABASE.path == "/data/data/com.flauschcode.broccoli/databases/broccoli"
    assert sh.run(f"ls {DATABASE.folder}").stdout.decode().split() == ["broccoli"]
    f = tmp_path / "broccoli"
    f.write_bytes(sh.files[DATABASE.path])
    con = sqlite3.connect(f)
    con.execute("DELETE FROM recipes")
    con.execute('INSERT INTO recipes ("title", "servings", "favorite") VALUES (?, ?, ?)', ("Gazpacho", "4", 0))
    con.commit()
    con.close()
    assert sh.write(DATABASE.path, f.read_bytes()) is None
    sh.run("true")
    (soup,) = dev.data("broccoli").recipes
    assert (soup.recipeId, soup.title, soup.servings, soup.description) == (3, "Gazpacho", "4", None)


# -- the screens -----------------------------------------------------------------------------------


def _do(dev: Device, action: str) -> str:
    out = dev.act(parse_action(action))
    assert out.valid, (action, out.description)
    return out.description


def _tap(dev: Device, **where: str) -> str:
    node = next(
        n
        for n in dev.elements()
        if all(getattr(n, k) == v or (k == "rid" and n.rid.endswith(v)) for k, v in where.items())
    )
    return _do(dev, f'do(action="Tap", element={list(node.bounds)})')


def test_new_recipe_needs_a_title_and_opens_its_details() -> None:
    dev = Device()
    dev.reset(now=DEVICE_TIME)
    dev.launch("broccoli")
    assert any(n.text == "No recipes found." for n in dev.elements())
    _tap(dev, desc="New Recipe")
    _tap(dev, rid=":id/button_save_recipe")
    assert dev.state.toast == "Please add a title." and dev.data("broccoli").recipes == []
    _tap(dev, label="Title")
    _do(dev, 'do(action="Type", text="Gazpacho")')  # Enter: on to Description
    assert isinstance(dev.top_screen(), RecipeEditor) and dev.top_screen().focus == "description"
    _tap(dev, rid=":id/button_save_recipe")
    (r,) = dev.data("broccoli").recipes
    assert (r.title, r.source, r.imageName, r.favorite) == ("Gazpacho", "", "", 0)
    assert isinstance(dev.top_screen(), RecipeDetails) and dev.state.toast == "The recipe has been saved."


def test_the_list_is_by_title_and_delete_asks_first() -> None:
    dev = Device()
    dev.reset(now=DEVICE_TIME)
    data: RecipeData = dev.data("broccoli")
    for title in ("lentil Soup", "Beef Stir Fry", "apple pie"):
        data.add(Recipe(title=title))
    dev.launch("broccoli")
    titles = [n.text for n in dev.elements() if n.rid.endswith("card_text_view_title")]
    assert titles == ["apple pie", "Beef Stir Fry", "lentil Soup"]  # COLLATE NOCASE
    _tap(dev, label="Beef Stir Fry")
    _tap(dev, desc="More options")
    _tap(dev, text="Delete")
    assert [x.title for x in data.recipes] == ["lentil Soup", "Beef Stir Fry", "apple pie"]  # not yet
    _tap(dev, label="Delete")
    assert [x.title for x in data.recipes] == ["lentil Soup", "apple pie"]
    assert isinstance(dev.top_screen(), RecipeList) and dev.state.toast == "The recipe has been deleted."


def test_recipe_draws_are_random_choice_draws() -> None:
    """The inlined recipe draw and the directions-filtered draw make the calls ``r.choice`` and
    ``get_random_items`` make: the same rows, the same generator state after, the same exhaustion."""
    import random

    from gui_gym.android.sim.apps.broccoli import androidworld as A
    from gui_gym.android.sim.tasks.rows import Exhausted
    from gui_gym.android.sim.tasks.rows import random_items as generic

    def by_choice(r: random.Random) -> dict:
        title, directions = r.choice(A.RECIPES)
        description, servings, prep = r.choice(A.DESCRIPTIONS), r.choice(A.SERVINGS), r.choice(A.PREP_TIMES)
        directions = f"{directions} {r.choice(A.DIRECTIONS_ADDITIONS)}"
        ingredients = r.choice(A.INGREDIENT_DESCRIPTORS)
        return A.recipe_row(
            title,
            description=description,
            servings=servings,
            preparationTime=prep,
            directions=directions,
            ingredients=ingredients,
        )

    r1, r2 = random.Random(5), random.Random(5)
    for _ in range(2_000):
        a, b = by_choice(r1), A.generate_recipe(r2)
        assert a == b and list(a) == list(b)
    assert r1.getstate() == r2.getstate()
    exhausted = 0
    for seed, ingredient in enumerate(A.COMMON_INGREDIENTS[:25]):
        for holding in (True, False):
            for n in (1, 3, 29):
                r1, r2 = random.Random(seed), random.Random(seed)
                try:
                    a: object = generic(
                        r1, n, by_choice, keep=lambda x: (ingredient in x["directions"].lower()) == holding
                    )
                except Exhausted as e:
                    a, exhausted = str(e), exhausted + 1
                try:
                    b: object = A.random_recipes_by_directions(r2, n, ingredient, holding)
                except Exhausted as e:
                    b = str(e)
                assert a == b and r1.getstate() == r2.getstate(), (ingredient, holding, n)
    assert exhausted  # an ingredient no recipe's directions hold was among them
