"""Broccoli's recipes as AndroidWorld draws them (``task_evals/single/recipe.py``): the row fields,
the vocabulary of recipes, descriptions, servings, times, additions and ingredients, and the draws
(``_generate_random_recipe``, ``get_random_items``) with AndroidWorld's calls on the generator."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Any

from gui_gym.android.sim.tasks.rows import Row
from gui_gym.android.sim.tasks.rows import random_items as rows_random_items

#: the fields of AndroidWorld's ``Recipe``, in its order
ROW_FIELDS = (
    "title",
    "description",
    "servings",
    "preparationTime",
    "source",
    "ingredients",
    "directions",
    "favorite",
    "imageName",
    "recipeId",
)
#: the fields the goals and files show (``_get_rows_as_text``)
TEXT_FIELDS = ("title", "description", "servings", "preparationTime", "ingredients", "directions")
#: the fields an addition is compared on, and those compared fuzzily
COMPARE = ("title", "description", "servings", "preparationTime", "source", "ingredients", "directions", "favorite")
FREE_FORM = COMPARE[:-1]

# ----------------------------------------------------------------------------- vocabulary (recipe.py)

DESCRIPTIONS = (
    "A quick and easy meal, perfect for busy weekdays.",
    "A delicious and healthy choice for any time of the day.",
    "An ideal recipe for experimenting with different flavors and ingredients.",
)
DIRECTIONS_ADDITIONS = (
    "Try adding a pinch of your favorite spices for extra flavor.",
    "Feel free to substitute with ingredients you have on hand.",
    "Garnish with fresh herbs for a more vibrant taste.",
)
INGREDIENT_DESCRIPTORS = (
    "see directions",
    "as per recipe",
    "varies",
    "to preference",
    "quantities to taste",
    "as needed",
    "optional ingredients",
    "n/a",
    "various amounts",
    "adjustable",
    "to your liking",
    "flexible ingredients",
    "per individual taste",
    "as desired",
    "subject to change",
)
#: ``_RECIPES``: (title, directions)
RECIPES: tuple[tuple[str, str], ...] = (
    (
        "Spicy Tuna Wraps",
        "Mix canned tuna with mayo and sriracha. Spread on tortillas, add lettuce and cucumber slices, roll up.",
    ),
    ("Avocado Toast with Egg", "Toast bread, top with mashed avocado, a fried egg, salt, pepper, and chili flakes."),
    (
        "Greek Salad Pita Pockets",
        "Fill pita pockets with lettuce, cucumber, tomato, feta, olives, and Greek dressing.",
    ),
    ("Quick Fried Rice", "Sauté cooked rice with vegetables, add soy sauce and scrambled eggs. Toss until hot."),
    ("Pesto Pasta with Peas", "Cook pasta, stir in pesto sauce and cooked peas. Add Parmesan cheese before serving."),
    (
        "BBQ Chicken Quesadillas",
        "Mix shredded cooked chicken with BBQ sauce. Place on tortillas with cheese, fold and cook until crispy.",
    ),
    (
        "Tomato Basil Bruschetta",
        "Top sliced baguette with a mix of chopped tomatoes, basil, garlic, olive oil, salt, and pepper.",
    ),
    ("Lemon Garlic Tilapia", "Sauté tilapia in butter, add lemon juice and garlic. Serve with steamed vegetables."),
    ("Turkey and Cheese Panini", "Layer turkey and cheese on bread, grill in a panini press until golden."),
    ("Veggie and Hummus Sandwich", "Spread hummus on bread, add cucumber, bell pepper, carrot, and lettuce."),
    (
        "Mango Chicken Curry",
        "Cook chicken pieces in a pan, add onions, garlic, and ginger. Stir in curry powder, coconut milk, and mango"
        " pieces. Simmer until chicken is cooked.",
    ),
    (
        "Beef Stir Fry",
        "Stir-fry beef slices with broccoli, bell peppers, and onions in soy sauce and garlic. Serve over rice or"
        " noodles.",
    ),
    (
        "Shrimp Avocado Salad",
        "Mix cooked shrimp with avocado, tomatoes, cucumber, and onion. Dress with lime juice, olive oil, salt, and"
        " pepper.",
    ),
    (
        "Spinach and Feta Stuffed Chicken",
        "Stuff chicken breasts with a mixture of spinach, feta, garlic, and herbs. Bake until chicken is cooked"
        " through.",
    ),
    (
        "Zucchini Noodles with Pesto",
        "Spiralize zucchini into noodles, sauté with garlic, then mix with pesto sauce. Top with grated Parmesan"
        " cheese.",
    ),
    (
        'Cauliflower Fried "Rice"',
        "Pulse cauliflower in a food processor until it resembles rice. Sauté with vegetables, soy sauce, and add"
        " scrambled eggs.",
    ),
    (
        "Sweet Potato and Black Bean Tacos",
        "Roast sweet potato cubes, mix with black beans, and use as filling for tacos. Top with avocado and cilantro"
        " lime sauce.",
    ),
    (
        "Salmon with Dill Sauce",
        "Bake salmon fillets and serve with a sauce made from Greek yogurt, dill, lemon juice, and garlic.",
    ),
    (
        "Quinoa Salad with Vegetables",
        "Mix cooked quinoa with diced vegetables, feta cheese, and a lemon olive oil dressing.",
    ),
    (
        "Chickpea Vegetable Soup",
        "Sauté onions, carrots, and celery, add broth, canned tomatoes, and chickpeas. Simmer with spinach and"
        " seasonings.",
    ),
    (
        "Chicken Caesar Salad Wrap",
        "Toss chopped romaine lettuce with Caesar dressing, grilled chicken strips, and Parmesan cheese. Wrap in a"
        " large tortilla.",
    ),
    (
        "Vegetarian Chili",
        "Cook onions, garlic, bell peppers, and carrots. Add canned tomatoes, kidney beans, black beans, corn, and"
        " chili seasoning. Simmer until vegetables are tender.",
    ),
    (
        "Pan-Seared Salmon with Quinoa",
        "Pan-sear salmon fillets until crispy. Serve over cooked quinoa with a side of steamed asparagus.",
    ),
    (
        "Caprese Salad Skewers",
        "Thread cherry tomatoes, basil leaves, and mozzarella balls onto skewers. Drizzle with balsamic glaze.",
    ),
    (
        "Chicken Alfredo Pasta",
        "Cook fettuccine pasta, toss with Alfredo sauce and grilled chicken strips. Serve with a sprinkle of Parmesan"
        " cheese.",
    ),
    (
        "Stuffed Bell Peppers",
        "Mix cooked quinoa, black beans, corn, tomato sauce, and spices. Stuff into bell peppers and bake until"
        " tender.",
    ),
    (
        "Eggplant Parmesan",
        "Slice eggplant, bread, and fry. Layer in a baking dish with marinara sauce and mozzarella cheese. Bake until"
        " bubbly.",
    ),
    (
        "Thai Peanut Noodle Salad",
        "Toss cooked noodles with a Thai peanut sauce, sliced red bell peppers, cabbage, carrots, and cilantro.",
    ),
    (
        "Butternut Squash Soup",
        "Sauté onions and garlic, add cubed butternut squash and broth. Puree until smooth and season with nutmeg,"
        " salt, and pepper.",
    ),
    (
        "Baked Cod with Lemon and Dill",
        "Place cod fillets in a baking dish, season with lemon juice, dill, salt, and pepper. Bake until fish flakes"
        " easily.",
    ),
    (
        "Vegetable Stir Fry with Tofu",
        "Stir-fry tofu cubes until golden, add assorted vegetables and a stir-fry sauce. Serve over rice or noodles.",
    ),
    (
        "Classic Margherita Pizza",
        "Spread pizza dough with tomato sauce, top with slices of mozzarella cheese and fresh basil leaves. Bake until"
        " crust is golden.",
    ),
    (
        "Raspberry Almond Smoothie",
        "Blend together raspberries, almond milk, banana, and a scoop of almond butter until smooth.",
    ),
    (
        "Moroccan Chickpea Stew",
        "Sauté onions, garlic, carrots, and spices. Add canned chickpeas, diced tomatoes, and vegetable broth. Simmer"
        " until flavors meld.",
    ),
    (
        "Kale and Quinoa Salad",
        "Toss chopped kale, cooked quinoa, dried cranberries, sliced almonds, and feta cheese with a lemon"
        " vinaigrette.",
    ),
    (
        "Grilled Cheese with Tomato and Basil",
        "Butter bread slices, layer with cheese, tomato slices, and basil. Grill until bread is toasted and cheese is"
        " melted.",
    ),
    (
        "Sausage and Peppers Skillet",
        "Sauté sliced sausage, bell peppers, and onions until browned. Serve with mustard or on a hoagie roll.",
    ),
    (
        "Lentil Soup",
        "Cook onions, carrots, celery, garlic, and lentils in vegetable broth until lentils are tender. Season with"
        " thyme and bay leaves.",
    ),
    (
        "Garlic Butter Shrimp",
        "Sauté shrimp in butter and minced garlic until pink. Sprinkle with parsley and serve with lemon wedges.",
    ),
)
SERVINGS = ("1 serving", "2 servings", "3-4 servings", "6 servings", "8 servings")
PREP_TIMES = ("10 mins", "20 mins", "30 mins", "45 mins", "1 hrs", "2 hrs", "3 hrs", "4 hrs")
#: ``_COMMON_INGREDIENTS`` (duplicates and capitals included: the draw picks by position)
COMMON_INGREDIENTS: tuple[str, ...] = (
    "tuna", "mayonnaise", "sriracha", "tortillas", "lettuce", "cucumber", "bread", "avocado", "eggs", "salt",
    "pepper", "chili flakes", "pita bread", "tomatoes", "feta cheese", "olives", "Greek dressing", "rice",
    "vegetables", "soy sauce", "pesto sauce", "peas", "Parmesan cheese", "chicken", "BBQ sauce", "cheese",
    "baguette", "basil", "garlic", "olive oil", "tilapia", "butter", "lemon juice", "turkey", "hummus",
    "bell peppers", "carrots", "mango", "curry powder", "coconut milk", "beef", "broccoli", "onions", "shrimp",
    "spinach", "herbs", "zucchini", "cauliflower", "sweet potato", "black beans", "cilantro", "Greek yogurt",
    "dill", "quinoa", "chickpeas", "romaine lettuce", "Caesar dressing", "Parmesan", "kidney beans", "corn",
    "chili seasoning", "asparagus", "mozzarella balls", "balsamic glaze", "fettuccine", "Alfredo sauce", "quinoa",
    "tomato sauce", "eggplant", "marinara sauce", "mozzarella cheese", "noodles", "Thai peanut sauce",
    "red bell peppers", "cabbage", "butternut squash", "nutmeg", "tofu", "pizza dough", "mozzarella cheese",
    "raspberries", "almond milk", "banana", "almond butter", "lentils", "thyme", "bay leaves", "parsley",
    "lemon wedges", "ghee", "cardamom", "fenugreek", "amchur (dry mango powder)", "rose water",
    "pomegranate molasses", "kaffir lime leaves", "galangal", "lemongrass", "furikake", "black garlic",
    "hemp seeds", "chia seeds", "açai berry", "maca powder", "spirulina", "cassava flour", "arrowroot powder",
    "seaweed", "escargot", "venison", "quail eggs", "duck fat", "morel mushrooms", "chanterelle mushrooms",
    "black truffle", "edible flowers", "salsify", "rutabaga", "celeriac", "finger limes",
)  # fmt: skip


# ----------------------------------------------------------------------------- draws


def recipe_row(title: str, **fields: Any) -> Row:
    """A row as AndroidWorld's ``Recipe(...)`` (``recipeId`` -1 until the database numbers it)."""
    row: Row = {"title": title, **dict.fromkeys(ROW_FIELDS[1:], "")}
    row.update(favorite=0, recipeId=-1)
    row.update(fields)
    return row


#: the lists a recipe is drawn from, in ``_generate_random_recipe``'s order: each draw is
#: ``r.choice(seq)``, i.e. CPython's ``_randbelow(len(seq))``: ``getrandbits(k)`` with
#: ``k = len(seq).bit_length()``, drawn again while not below ``len(seq)``
_DRAWN = (RECIPES, DESCRIPTIONS, SERVINGS, PREP_TIMES, DIRECTIONS_ADDITIONS, INGREDIENT_DESCRIPTORS)
_BELOW = tuple((len(seq), len(seq).bit_length()) for seq in _DRAWN)


def recipe_draw(r: random.Random) -> tuple[int, int, int, int, int, int]:
    """The indices into :data:`_DRAWN` of one ``_generate_random_recipe``, drawn as ``r.choice``
    draws them (the same calls on ``r``, inlined: keep-filtered draws make thousands a reset)."""
    bits = r.getrandbits
    (n0, k0), (n1, k1), (n2, k2), (n3, k3), (n4, k4), (n5, k5) = _BELOW
    i0 = bits(k0)
    while i0 >= n0:
        i0 = bits(k0)
    i1 = bits(k1)
    while i1 >= n1:
        i1 = bits(k1)
    i2 = bits(k2)
    while i2 >= n2:
        i2 = bits(k2)
    i3 = bits(k3)
    while i3 >= n3:
        i3 = bits(k3)
    i4 = bits(k4)
    while i4 >= n4:
        i4 = bits(k4)
    i5 = bits(k5)
    while i5 >= n5:
        i5 = bits(k5)
    return i0, i1, i2, i3, i4, i5


def drawn_recipe(draw: tuple[int, int, int, int, int, int]) -> Row:
    """The recipe row of :func:`recipe_draw`'s indices."""
    title, directions = RECIPES[draw[0]]
    return {  # recipe_row's fields, in ROW_FIELDS order
        "title": title,
        "description": DESCRIPTIONS[draw[1]],
        "servings": SERVINGS[draw[2]],
        "preparationTime": PREP_TIMES[draw[3]],
        "source": "",
        "ingredients": INGREDIENT_DESCRIPTORS[draw[5]],
        "directions": f"{directions} {DIRECTIONS_ADDITIONS[draw[4]]}",
        "favorite": 0,
        "imageName": "",
        "recipeId": -1,
    }


def generate_recipe(r: random.Random) -> Row:
    """``_generate_random_recipe``: a recipe, then its description, servings, time, the
    directions' addition and the ingredients (``dataclasses.replace``'s keyword order)."""
    return drawn_recipe(recipe_draw(r))


@functools.lru_cache(maxsize=64)
def _directions_hold(ingredient: str) -> frozenset[tuple[int, int]]:
    """The (recipe, directions addition) index pairs whose directions hold ``ingredient``."""
    return frozenset(
        (i, j)
        for i, (_, directions) in enumerate(RECIPES)
        for j, addition in enumerate(DIRECTIONS_ADDITIONS)
        if ingredient in f"{directions} {addition}".lower()
    )


def random_recipes_by_directions(r: random.Random, n: int, ingredient: str, holding: bool) -> list[Row]:
    """``get_random_items(n, _generate_random_recipe, filter_fn=...)`` with the filter
    ``(ingredient in directions.lower()) == holding``: the same draws on ``r`` and the same rows
    as :func:`random_items`, deciding each candidate on its indices (whole rows only for the kept)."""
    hold = _directions_hold(ingredient)
    return rows_random_items(r, n, recipe_draw, keep=lambda d: ((d[0], d[4]) in hold) == holding, build=drawn_recipe)


def random_items(
    r: random.Random,
    n: int,
    make: Callable[[random.Random], Row] = generate_recipe,
    keep: Callable[[Row], bool] | None = None,
    replacement: bool = False,
) -> list[Row]:
    """``sqlite_schema_utils.get_random_items`` of recipes (:func:`rows.random_items`)."""
    return rows_random_items(r, n, make, keep, replacement)
