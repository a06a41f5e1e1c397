"""Broccoli (com.flauschcode.broccoli, v1.2.6 as AndroidWorld installs it): its screens.

The data is :class:`~gui_gym.android.sim.apps.broccoli.data.RecipeData` (rows of the real app's
``recipes`` table, served over adb by ``storage``). The screens follow flauschtrud/broccoli's
layouts, resource ids and strings:

- **Recipes** (``fragment_recipes``): the toolbar (``toolbar_recipes``) with the category spinner
  ("All recipes" or "Favorites"), the recipes as cards (``recycler_view``, "Recipes"; each card a
  photo placeholder, ``card_text_view_title``, ``card_text_view_description``,
  ``card_text_view_source``) sorted by title ignoring case, "No recipes found." when there are
  none, and the "New Recipe" button (``fab_recipes``).
- **Recipe details** (``activity_recipe_details``): the title in the toolbar, the favourite
  action and the overflow menu (Share, Share as file, Edit, Delete); the content
  (``details_title``, ``details_servings``, ``details_preparation_time``, ``details_description``,
  ``details_source``, "Ingredients" one per line, "Directions" numbered, each shown only when
  set). Delete asks "Delete this recipe?" (Cancel / Delete), deletes, says "The recipe has been
  deleted." and goes back to the list.
- **New Recipe** (``activity_new_recipe``, also for editing): a close icon, "Save"
  (``button_save_recipe``), then in a scrolling form the photo, Title (``new_title``),
  Categories (``new_categories``, none exist), Description, Source, Servings, Time, Ingredients and
  Directions (the last three and Description multi-line). Save refuses an empty title ("Please add
  a title."), else stores the recipe ("The recipe has been saved.") and, for a new one, opens its
  details. Leaving with changes asks "Discard changes?" (Cancel / Discard). The form scrolls the
  focused field into view above the keyboard (``adjustResize``).

Not modelled: search, categories, the seasonal calendar, photos, sharing, the cooking assistant,
backup, settings and the navigation drawer.
"""

from __future__ import annotations

import functools
import textwrap
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.broccoli.data import LABEL, PKG, Recipe, RecipeData
from gui_gym.android.sim.apps.broccoli.storage import DATABASE
from gui_gym.android.sim.dialogs import AlertDialog, MenuDialog
from gui_gym.android.sim.widgets import FIELD_H, PAD, TOOLBAR_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node, clip

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

CARD_H = 336  # a card (120 dp) and its top margin (8 dp) at 420 dpi
LINE_H = 56  # one line of body text
CHARS_PER_LINE = 40  # about what a line of the content's width holds


def _db(dev: Device) -> RecipeData:
    return dev.data("broccoli")


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@functools.lru_cache(maxsize=4096)
def _lines(text: str, width: int = CHARS_PER_LINE) -> int:
    """How many lines ``text`` takes wrapped at ``width`` characters (at least one; kept per text:
    the form's layout asks at every build)."""
    return max(1, sum(max(1, len(textwrap.wrap(part, width))) for part in text.split("\n")))


# ----------------------------------------------------------------------------- the list


class RecipeList(Screen):
    """The start destination: every recipe as a card, sorted by title."""

    def __init__(self) -> None:
        super().__init__()
        self.favorites = False
        #: the cards on screen at the last build: (recipeId, the card's bounds), top to bottom
        self.cards: list[tuple[int, tuple[int, int, int, int]]] = []

    def build(self, ui: UI, dev: Device) -> None:
        y = ui.y
        box = (0, y, SCREEN_W, y + TOOLBAR_H)
        shown = "Favorites" if self.favorites else "All recipes"
        spinner = Node(
            "android.widget.Spinner",
            (PAD + 120, y + 17, 760, y + 137),
            desc="Categories",
            rid=_rid("spinner"),
            on_tap=lambda: self._categories(dev),
            role="button",
            children=[
                Node("android.widget.TextView", (PAD + 140, y + 30, 740, y + 124), shown, rid="android:id/text1")
            ],
        )
        bar = Node("android.view.ViewGroup", box, rid=_rid("toolbar_recipes"), role="toolbar", children=[spinner])
        for n in (spinner, *spinner.children, bar):
            n.package = PKG
        ui.add(Node("android.widget.LinearLayout", box, children=[bar]))
        ui.y += TOOLBAR_H
        items = _db(dev).listing(self.favorites)
        self.cards = []
        keys: dict[int, int] = {}

        def render(ui: UI, r: Recipe) -> None:
            node = self._card(ui, dev, r)
            keys[id(node)] = r.recipeId

        lst = ui.scroll_list(self, "list", items, render, item_h=CARD_H, empty="", list_id="recycler_view")
        lst.desc = "Recipes"
        if not items:
            ui.nodes = [n for n in ui.nodes if not n.rid.endswith(":id/empty")]
            ui.y = lst.bounds[1] + 500
            ui.text("No recipes found.", rid=_rid("recipes_empty"), size=50, x0=140)
        self.cards = [(keys[id(n)], n.bounds) for n in lst.children if id(n) in keys]
        ui.fab("New Recipe", lambda: self._new(dev), rid=_rid("fab_recipes"))

    def _card(self, ui: UI, dev: Device, r: Recipe) -> Node:
        t = ui.y + 21
        l, rr, b = 21, SCREEN_W - 21, ui.y + CARD_H
        x = l + (b - t) + 21
        texts = [
            Node(
                "android.widget.ImageView",
                (l, t, l + (b - t), b),
                desc="Recipe photo",
                rid=_rid("card_image"),
                role="avatar",
                style="B",
            ),
            Node(
                "android.widget.TextView",
                (x, t + 40, rr - 21, t + 130),
                r.text("title"),
                rid=_rid("card_text_view_title"),
                role="title",
            ),
            Node(
                "android.widget.TextView",
                (x, t + 130, rr - 21, t + 240),
                r.text("description"),
                rid=_rid("card_text_view_description"),
                role="subtext",
            ),
            Node(
                "android.widget.TextView",
                (x, t + 240, rr - 21, b - 10),
                r.text("source"),
                rid=_rid("card_text_view_source"),
                role="subtext",
            ),
        ]
        kids = [n for n in texts if n.text or n.desc]
        for n in kids:
            n.package = PKG
        return ui.add(
            Node(
                "android.widget.FrameLayout",
                (l, t, rr, b),
                on_tap=lambda: self._open(dev, r.recipeId),
                label=r.text("title"),
                role="row",
                children=kids,
            )
        )

    def _open(self, dev: Device, recipe_id: int) -> str:
        r = _db(dev).by_id(recipe_id)
        if r is None:
            raise Inapplicable("this recipe no longer exists")
        dev.push(RecipeDetails(recipe_id))
        return f'Open the recipe "{r.text("title")}" in Broccoli'

    def _new(self, dev: Device) -> str:
        dev.push(RecipeEditor(None))
        return "Tap New Recipe in Broccoli"

    def _categories(self, dev: Device) -> str:
        dev.open_dialog(
            MenuDialog("on_category", [("All recipes", False), ("Favorites", True)], selected=self.favorites)
        )
        return "Open the category list in Broccoli"

    def on_category(self, dev: Device, favorites: bool) -> str:
        self.favorites = favorites
        self.scroll["list"] = 0
        return f"Show {'the favorite recipes' if favorites else 'all recipes'} in Broccoli"


# ----------------------------------------------------------------------------- details


class RecipeDetails(Screen):
    """One recipe, read-only, with its actions."""

    activity = "com.flauschcode.broccoli.recipe.details.RecipeDetailsActivity"

    def __init__(self, recipe_id: int) -> None:
        super().__init__()
        self.recipe_id = recipe_id

    def build(self, ui: UI, dev: Device) -> None:
        r = _db(dev).by_id(self.recipe_id) or Recipe(title="")
        liked = bool(r.favorite)
        ui.toolbar(
            r.text("title").strip() or " ",
            actions=[
                (
                    "Remove from favorites" if liked else "Mark as favorite",
                    "star_on" if liked else "star",
                    lambda: self._favorite(dev),
                ),
                ("More options", "more", lambda: self._menu(dev)),
            ],
        )
        top, bottom = ui.y, ui.bottom
        nodes: list[Node] = []

        def text(value: str, rid: str, size: int = 42, role: str = "text", x0: int = PAD, gap: int = 20) -> None:
            """A TextView; a long text as its wrapped lines (the renderer draws one line a view)."""
            if size > 50:  # the title: larger, wrapped too
                lines, h = textwrap.wrap(value, 26) or [value], 84
            elif size > 42:
                lines, h = [value], 90
            else:
                lines = textwrap.wrap(value, CHARS_PER_LINE - x0 // 25) or [value]
                h = LINE_H
            views = [
                Node(
                    "android.widget.TextView",
                    (x0, y[0] + i * h, SCREEN_W - PAD, y[0] + (i + 1) * h),
                    line,
                    role=role,
                    style=size,
                    package=PKG,
                )
                for i, line in enumerate(lines)
            ]
            if len(views) == 1:
                views[0].rid = _rid(rid) if rid else ""
                nodes.append(views[0])
            else:
                box = (x0, y[0], SCREEN_W - PAD, y[0] + len(lines) * h)
                nodes.append(
                    Node("android.widget.LinearLayout", box, rid=_rid(rid) if rid else "", package=PKG, children=views)
                )
            y[0] += len(lines) * h + gap

        y = [top + 40 - self.scroll.get("page", 0)]
        text(r.text("title").strip(), "details_title", size=60, role="title")
        if r.text("servings"):
            text(r.text("servings"), "details_servings", x0=PAD + 100)
        if r.text("preparationTime"):
            text(r.text("preparationTime"), "details_preparation_time", x0=PAD + 100)
        if r.text("description"):
            text(r.text("description"), "details_description")
        if r.text("source"):
            text(r.text("source"), "details_source", x0=PAD + 100)
        for header, key, rid in (
            ("Ingredients", "ingredients", "details_ingredients"),
            ("Directions", "directions", "details_directions"),
        ):
            value = r.text(key)
            if not value:
                continue
            text(header, "", size=50, role="title", gap=10)
            lines = [line for line in value.split("\n") if line.strip()]
            for i, line in enumerate(lines, 1):
                text(f"{i}. {line}" if key == "directions" else line, "", gap=8)
            nodes[-len(lines) :] = [
                Node(
                    "android.widget.LinearLayout",
                    (PAD, nodes[-len(lines)].bounds[1], SCREEN_W - PAD, nodes[-1].bounds[3]),
                    rid=_rid(rid),
                    package=PKG,
                    children=nodes[-len(lines) :],
                )
            ]
        total = y[0] + self.scroll.get("page", 0) - top
        max_off = max(0, total - (bottom - top))

        def scroll(direction: str, frac: float) -> bool:
            if direction not in ("up", "down"):
                raise Inapplicable("the recipe scrolls vertically only")
            cur = min(self.scroll.get("page", 0), max_off)
            new = max(0, min(max_off, cur + int((bottom - top) * frac) * (1 if direction == "down" else -1)))
            self.scroll["page"] = new
            return new != cur

        kept = [n for n in nodes if clip(n, top, bottom) is not None]
        ui.add(
            Node(
                "android.widget.ScrollView",
                (0, top, SCREEN_W, bottom),
                rid=_rid("scroll_view"),
                on_scroll=scroll if max_off > 0 else None,
                role="list",
                style=(min(self.scroll.get("page", 0), max_off), max_off),
                children=kept,
            )
        )

    def _favorite(self, dev: Device) -> str:
        r = _db(dev).by_id(self.recipe_id)
        if r is None:
            raise Inapplicable("this recipe no longer exists")
        r.favorite = 0 if r.favorite else 1
        return f'{"Mark" if r.favorite else "Unmark"} "{r.text("title")}" as a favorite in Broccoli'

    def _menu(self, dev: Device) -> str:
        items = [("Share", "share"), ("Share as file", "share_file"), ("Edit", "edit"), ("Delete", "delete")]
        dev.open_dialog(MenuDialog("on_menu", items))
        return "Open the recipe's menu in Broccoli"

    def on_menu(self, dev: Device, choice: str) -> str:
        r = _db(dev).by_id(self.recipe_id)
        if r is None:
            raise Inapplicable("this recipe no longer exists")
        if choice == "edit":
            dev.push(RecipeEditor(r))
            return f'Edit the recipe "{r.text("title")}" in Broccoli'
        if choice == "delete":
            dev.open_dialog(
                AlertDialog("on_delete", "", "Delete this recipe?", [("Cancel", None), ("Delete", "delete")])
            )
            return f'Tap "Delete" for the recipe "{r.text("title")}" in Broccoli'
        raise Inapplicable("sharing is not available on this phone")

    def on_delete(self, dev: Device, value: str) -> str:
        r = _db(dev).remove(self.recipe_id)
        dev.pop()
        dev.toast("The recipe has been deleted.")
        return f'Delete the recipe "{r.text("title") if r else ""}" in Broccoli'


# ----------------------------------------------------------------------------- editor

#: the form's text fields: (key, hint, resource id, multi-line), in the layout's order
FIELDS = (
    ("title", "Title", "new_title", False),
    ("description", "Description", "new_description", True),
    ("source", "Source", "new_source", False),
    ("servings", "Servings", "new_servings", False),
    ("preparationTime", "Time", "new_preparation_time", False),
    ("ingredients", "Ingredients", "new_ingredients", True),
    ("directions", "Directions", "new_directions", True),
)
PHOTO_H = 420


class RecipeEditor(Screen):
    """New Recipe (``recipe=None``) or editing one: the form, Save, the discard question."""

    activity = "com.flauschcode.broccoli.recipe.crud.CreateAndEditRecipeActivity"

    def __init__(self, recipe: Recipe | None) -> None:
        super().__init__()
        self.recipe_id = recipe.recipeId if recipe is not None else None
        for key, _, _, _ in FIELDS:
            self.form[key] = recipe.text(key) if recipe is not None else ""
        self.initial = dict(self.form)
        self._focus_seen: str | None = None

    @property
    def dirty(self) -> bool:
        return dict(self.form) != self.initial

    def field_height(self, key: str, multiline: bool) -> int:
        """A field's height: one line, a multi-line one growing with its text."""
        if not multiline:
            return FIELD_H
        return FIELD_H + LINE_H * (_lines(self.form.get(key, ""), 36) - 1)

    def layout(self) -> list[tuple[str, int, int]]:
        """``(what, top, height)`` of the form's parts in the scrolled content, from its top."""
        out = [("photo", 0, PHOTO_H)]
        y = PHOTO_H + 30
        for key, _, _, multiline in FIELDS:
            h = self.field_height(key, multiline)
            out.append((key, y, h))
            y += h + 30
            if key == "title":
                out.append(("categories", y, FIELD_H))
                y += FIELD_H + 30
        out.append(("end", y + 50, 0))
        return out

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("New Recipe", up=lambda: self._close(dev))
        bar = ui.nodes[-1].children[0]
        for n in bar.children:
            if n.desc == "Navigate up":
                n.style = "close"
        l, t, _r, b = bar.children[-1].bounds
        bar.children.append(
            Node(
                "android.widget.Button",
                (SCREEN_W - 260, t, SCREEN_W - 24, b),
                "SAVE",
                rid=_rid("button_save_recipe"),
                package=PKG,
                on_tap=lambda: self._save(dev),
                clickable=True,
                role="textbutton",
                label="Save",
            )
        )
        bar.children[-2].bounds = (l, t, SCREEN_W - 280, b)
        top, bottom = ui.y, ui.bottom
        view_h = bottom - top
        parts = self.layout()
        total = parts[-1][1]
        max_off = max(0, total - view_h)
        # adjustResize: a field that just took the focus is scrolled into view
        if self.focus != self._focus_seen:
            self._focus_seen = self.focus
            place = next((p for p in parts if p[0] == self.focus), None)
            if place is not None:
                off = self.scroll.get("form", 0)
                if place[1] < off:
                    self.scroll["form"] = place[1]
                elif place[1] + place[2] > off + view_h:
                    self.scroll["form"] = place[1] + place[2] - view_h + 20
        off = min(self.scroll.get("form", 0), max_off)
        self.scroll["form"] = off
        saved, ui.nodes = ui.nodes, []
        hints = {k: (hint, rid, ml) for k, hint, rid, ml in FIELDS}
        for what, y, h in parts:
            ui.y = top + y - off
            if what == "photo":
                ui.add(
                    Node(
                        "android.widget.ImageView",
                        (0, ui.y, SCREEN_W, ui.y + h),
                        desc="Recipe photo",
                        rid=_rid("new_image"),
                        role="avatar",
                        style="B",
                    )
                )
                ui.add(
                    Node(
                        "android.widget.ImageView",
                        (SCREEN_W - 200, ui.y + h - 160, SCREEN_W - 60, ui.y + h - 20),
                        desc="Change photo",
                        on_tap=lambda: self._photo(dev),
                        role="icon",
                        style="edit",
                    )
                )
            elif what == "categories":
                ui.add(
                    Node(
                        "android.widget.EditText",
                        (PAD, ui.y, SCREEN_W - PAD, ui.y + h),
                        "Categories",
                        rid=_rid("new_categories"),
                        on_tap=lambda: self._categories(dev),
                        label="Categories",
                        role="field",
                        style="hint",
                    )
                )
            elif what in hints:
                hint, rid, multiline = hints[what]
                ui.field(self, what, hint, rid=_rid(rid), multiline=multiline, h=h)
        nodes, ui.nodes = ui.nodes, saved
        kept = [n for n in nodes if clip(n, top, bottom) is not None]

        def scroll(direction: str, frac: float) -> bool:
            if direction not in ("up", "down"):
                raise Inapplicable("the form scrolls vertically only")
            cur = self.scroll.get("form", 0)
            new = max(0, min(max_off, cur + int(view_h * frac) * (1 if direction == "down" else -1)))
            self.scroll["form"] = new
            return new != cur

        ui.add(
            Node(
                "android.widget.ScrollView",
                (0, top, SCREEN_W, bottom),
                on_scroll=scroll if max_off > 0 else None,
                role="list",
                rid=_rid("new_scroll_view"),
                style=(off, max_off),
                children=kept,
            )
        )
        ui.y = bottom

    def _photo(self, dev: Device) -> str:
        raise Inapplicable("the phone has no photo to take or pick for a recipe")

    def _categories(self, dev: Device) -> str:
        dev.open_dialog(AlertDialog("", "Categories", "You have not created any categories yet.", [("OK", None)]))
        return "Tap Categories in Broccoli (there are none)"

    def on_back(self, dev: Device) -> str | None:
        if not self.dirty:
            return None
        self._ask_discard(dev)
        return "Press Back: Broccoli asks whether to discard the changes"

    def _close(self, dev: Device) -> str:
        dev.state.keyboard = False
        if self.dirty:
            self._ask_discard(dev)
            return "Tap close: Broccoli asks whether to discard the changes"
        dev.pop()
        return "Close the recipe editor in Broccoli"

    def _ask_discard(self, dev: Device) -> None:
        dev.open_dialog(AlertDialog("on_discard", "", "Discard changes?", [("Cancel", None), ("Discard", "discard")]))

    def on_discard(self, dev: Device, value: Any) -> str:
        dev.pop()
        return "Discard the changes to the recipe in Broccoli"

    def _save(self, dev: Device) -> str:
        title = self.form.get("title", "")
        if not title.strip():
            dev.toast("Please add a title.")
            return "Tap Save: the title is empty (Please add a title.) in Broccoli"
        db = _db(dev)
        values = {key: self.form.get(key, "") for key, _, _, _ in FIELDS}
        if self.recipe_id is not None:
            r = db.by_id(self.recipe_id)
            if r is None:
                raise Inapplicable("this recipe no longer exists")
            for k, v in values.items():
                setattr(r, k, v)
            dev.pop()
        else:
            r = db.add(Recipe(**values))
            dev.pop()
            dev.push(RecipeDetails(r.recipeId))  # the list opens the new recipe's details
        dev.toast("The recipe has been saved.")
        return f'Save the recipe "{title}" in Broccoli'


class BroccoliApp(App):
    name = "broccoli"
    label = LABEL
    package = PKG
    activity = "com.flauschcode.broccoli.MainActivity"
    aliases = ("broccoli", "broccoli app", "broccoli recipe app", "recipe app")
    color = (76, 175, 80)
    icon = "broccoli"
    layout = (
        ("androidx.drawerlayout.widget.DrawerLayout", f"{PKG}:id/drawer_layout"),
        ("android.view.ViewGroup", ""),
        ("android.widget.FrameLayout", f"{PKG}:id/nav_host_fragment"),
    )
    databases = (DATABASE,)

    def initial_data(self) -> RecipeData:
        return RecipeData()

    def root(self, dev: Device) -> Screen:
        return RecipeList()
