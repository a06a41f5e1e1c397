"""Pro Expense (com.arduia.expense, v1.0.0-beta05 as AndroidWorld installs it): its screens.

The data is :class:`~gui_gym.android.sim.apps.expense.data.ExpenseData` (rows of the real app's
``expense`` table, served over adb by ``storage``). The screens follow arduia/ProExpense's
layouts and resource ids:

- **Home** (``frag_home``): a toolbar with the navigation drawer (Home, Expense Logs); the
  "Totals" card (this week's income and outcome), the "Expenses in this Week" card, the "Recent"
  card (the four newest expenses by date; tap one for its details) with a "More" button to the
  expense logs; the add button (``fb_main_add``), on this screen only.
- **Expense Logs** (``frag_expense_logs``): every expense, newest first (``modified_date``),
  scrolling; tap one for its details.
- **Expense details** (``expense_detail_dialog``, a bottom sheet): name, amount, date, note; a
  delete icon that asks "Delete Items" ... "Confirm" (``frag_delete_confirm_dialog``) and an "Edit"
  button.
- **Expense Entry / Update Data** (``frag_expense_entry``): Name (at most 20 characters), Amount
  (the app's input filter: a sign, up to 8 digits, up to 2 decimals; at most 10 characters),
  the categories as a horizontal list of cards (the chosen one first; Food for a new expense),
  Note (at most 100 characters), the date in the toolbar's subtitle with "Time" and "Calendar"
  actions; Save (Update when editing) refuses an empty amount ("Cost is Empty"), and the lock
  card beside it keeps the screen open for the next expense ("Next"). A new expense is created
  now and dated at the chosen time; an edited one keeps its creation time.

Not modelled: swiping a log to select or delete it, the log filter, statistics, backup,
settings and the onboarding pages (AndroidWorld's set-up passes them).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.expense.data import (
    CATEGORIES,
    CATEGORY_ORDER,
    CURRENCY_CODE,
    CURRENCY_SYMBOL,
    FOOD,
    LABEL,
    PKG,
    Expense,
    ExpenseData,
    amount_accepts,
    format_amount,
    format_date,
    format_entry_date,
    from_ms,
    ms,
    parse_amount,
    week_range,
)
from gui_gym.android.sim.apps.expense.storage import DATABASE
from gui_gym.android.sim.dialogs import DatePickerDialog, Dialog, MenuDialog, TimePickerDialog
from gui_gym.android.sim.widgets import NAV_TOP, PAD, ROW_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: the longest text each editor field takes (its ``maxLength``)
MAX_CHARS = {"name": 20, "amount": 10, "note": 100}
DRAWER = "Open navigation drawer"


def _db(dev: Device) -> ExpenseData:
    return dev.data("expense")


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


def _drawer_icon(ui: UI, on_tap: Any) -> None:
    """Make the navigation icon of the toolbar just built the drawer's (``ic_menu``)."""
    bar = ui.nodes[-1].children[0]
    for n in bar.children:
        if n.desc == "Navigate up":
            n.desc, n.style, n.on_tap = DRAWER, "more", on_tap


def _icons(ui: UI, styles: dict[str, str]) -> None:
    """Draw the toolbar actions just built with the icons named in ``styles`` (by resource id)."""
    for n in ui.nodes[-1].children[0].children[-1].children:
        name = n.rid.rsplit("/", 1)[-1]
        n.style = styles.get(name, n.style)


def _subtitle(ui: UI, text: str) -> None:
    """A subtitle under the title of the toolbar just built."""
    bar = ui.nodes[-1].children[0]
    title = next(n for n in bar.children if n.role == "title")
    l, t, r, b = title.bounds
    title.bounds = (l, t - 7, r, t + 73)
    title.style = 50
    bar.children.insert(
        bar.children.index(title) + 1,
        Node("android.widget.TextView", (l, t + 73, r, b + 3), text, package=PKG, role="subtext"),
    )


def expense_row(ui: UI, e: Expense, now: dt.datetime, on_tap: Any, rid: str) -> Node:
    """One expense in a list (``item_expense_log`` / ``item_expense_recent``): name, date,
    amount and currency sign; tapping it shows its details."""
    l, t, r, b = ui.rect(ROW_H, x0=0, x1=SCREEN_W)
    x = PAD + 150
    kids = [
        Node(
            "android.widget.ImageView",
            (PAD + 18, t + 24, PAD + 138, b - 24),
            rid=_rid("imv_category"),
            package=PKG,
            role="avatar",
            style=e.category_name or "?",  # the category's icon: its initial
        ),
        Node(
            "android.widget.TextView", (x, t + 20, 760, t + ROW_H // 2 + 4), e.title, rid=_rid("tv_name"), role="text"
        ),
        Node(
            "android.widget.TextView",
            (x, t + ROW_H // 2 + 4, 760, b - 16),
            format_date(e.modified_date, now),
            rid=_rid("tv_date"),
            role="subtext",
        ),
        Node(
            "android.widget.TextView",
            (770, t + 40, 990, b - 40),
            format_amount(e.amount),
            rid=_rid("tv_amount"),
            role="text",
        ),
        Node(
            "android.widget.TextView",
            (995, t + 40, SCREEN_W - PAD, t + 90),
            CURRENCY_SYMBOL,
            rid=_rid("tv_currency_symbol"),
            role="subtext",
        ),
    ]
    for k in kids:
        k.package = PKG
    return ui.add(
        Node(
            "android.widget.RelativeLayout",
            (l, t, r, b),
            on_tap=on_tap,
            rid=rid,
            label=e.title,
            role="row",
            children=kids,
        )
    )


# ----------------------------------------------------------------------------- dialogs


class DrawerDialog(MenuDialog):
    """The navigation drawer (``nv_main``), with the destinations the simulator has."""

    def __init__(self, current: str) -> None:
        super().__init__("on_drawer", [("Home", "home"), ("Expense Logs", "logs")], title=LABEL, selected=current)


class ExpenseDetailDialog(Dialog):
    """An expense's details (a bottom sheet): close, delete, name, amount, date, note, Edit."""

    def __init__(self, expense_id: int) -> None:
        super().__init__("on_detail", "Expense Detail")
        self.expense_id = expense_id

    def build(self, ui: UI, dev: Device) -> None:
        e = _db(dev).by_id(self.expense_id)
        if e is None:  # deleted underneath (over adb): an empty sheet
            e = Expense("", 0)
        h = 960
        panel = ui.dialog_panel(self, height=h, top=NAV_TOP - h)
        y = ui.y
        ui.add(
            Node(
                "android.widget.TextView",
                (100, y, 800, y + 100),
                self.title,
                rid=_rid("tv_expense_detail"),
                role="title",
            )
        )
        ui.add(
            Node(
                "android.widget.ImageButton",
                (860, y - 10, 980, y + 110),
                desc="Close",
                rid=_rid("btn_close"),
                on_tap=lambda: self.finish(ui.dev, None) or "Close the expense details in Pro Expense",
                role="icon",
                style="close",
            )
        )
        y += 140
        card = []
        card.append(
            Node(
                "android.widget.ImageView",
                (120, y, 240, y + 120),
                rid=_rid("imv_category"),
                role="avatar",
                style=e.category_name or "?",
            )
        )
        card.append(
            Node(
                "android.widget.ImageView",
                (840, y, 960, y + 120),
                desc="Delete",
                rid=_rid("btn_delete"),
                on_tap=lambda: self.finish(ui.dev, ("delete", self.expense_id)),
                role="icon",
                style="delete",
            )
        )
        card.append(
            Node("android.widget.TextView", (270, y, 820, y + 120), e.title, rid=_rid("tv_name_value"), role="title")
        )
        y += 150
        for key, label, value in (
            ("amount", "Amount", format_amount(e.amount)),
            ("date", "Date", format_date(e.modified_date, dev.state.now)),
            ("note", "Note", e.note or ""),
        ):
            if key == "note" and not value:  # the note's texts are hidden when it is empty
                continue
            card.append(
                Node("android.widget.TextView", (120, y, 400, y + 100), label, rid=_rid(f"tv_{key}"), role="subtext")
            )
            card.append(
                Node(
                    "android.widget.TextView",
                    (400, y, 900 if key == "amount" else 980, y + 100),
                    value,
                    rid=_rid(f"tv_{key}_value"),
                    role="text",
                )
            )
            if key == "amount":
                card.append(
                    Node(
                        "android.widget.TextView",
                        (900, y, 980, y + 100),
                        CURRENCY_SYMBOL,
                        rid=_rid("tv_currency_symbol"),
                        role="subtext",
                    )
                )
            y += 110
        for n in card:
            n.package = PKG
        ui.add(Node("android.widget.FrameLayout", (100, ui.y + 120, 980, y + 20), rid=_rid("cd_info"), children=card))
        ui.y = NAV_TOP - 200
        ui.button("Edit", lambda: self.finish(ui.dev, ("edit", self.expense_id)), rid=_rid("btn_edit"), h=130)
        ui.end_panel(panel)


class DeleteConfirmDialog(Dialog):
    """The "Delete Items" sheet: how many will be deleted, and Confirm."""

    def __init__(self, expense_id: int) -> None:
        super().__init__("on_delete_confirm", "Delete Items")
        self.expense_id = expense_id

    def build(self, ui: UI, dev: Device) -> None:
        h = 600
        panel = ui.dialog_panel(self, height=h, top=NAV_TOP - h)
        y = ui.y
        ui.add(
            Node(
                "android.widget.TextView", (100, y, 800, y + 100), self.title, rid=_rid("tv_delete_item"), role="title"
            )
        )
        ui.add(
            Node(
                "android.widget.ImageView",
                (860, y - 10, 980, y + 110),
                desc="Close",
                rid=_rid("imv_drop_close"),
                on_tap=lambda: self.finish(ui.dev, None) or "Close the delete confirmation in Pro Expense",
                role="icon",
                style="close",
            )
        )
        y += 140
        texts = [
            Node("android.widget.TextView", (120, y, 300, y + 100), " item ", rid=_rid("tv_items"), role="text"),
            Node(
                "android.widget.TextView",
                (300, y, 980, y + 100),
                "will be deleted!",
                rid=_rid("tv_delete_description"),
                role="text",
            ),
        ]
        for n in texts:
            n.package = PKG
        ui.add(
            Node(
                "android.widget.FrameLayout", (100, y - 20, 980, y + 120), rid=_rid("cv_description_bg"), children=texts
            )
        )
        ui.y = NAV_TOP - 200
        ui.button("Confirm", lambda: self.finish(ui.dev, self.expense_id), rid=_rid("btn_confirm"), h=130)
        ui.end_panel(panel)


class _ShowsDetails(Screen):
    """A screen whose expenses open the details sheet (Home, Expense Logs)."""

    where = ""

    def _detail(self, dev: Device, expense_id: int) -> str:
        e = _db(dev).by_id(expense_id)
        if e is None:
            raise Inapplicable("this expense no longer exists")
        dev.open_dialog(ExpenseDetailDialog(expense_id))
        return f'Open the details of the expense "{e.title}" ({format_amount(e.amount)}) in Pro Expense'

    def on_detail(self, dev: Device, value: tuple[str, int]) -> str | None:
        action, expense_id = value
        e = _db(dev).by_id(expense_id)
        if e is None:
            return "The expense no longer exists"
        if action == "edit":
            dev.push(ExpenseEntry(dev, e))
            return f'Edit the expense "{e.title}" in Pro Expense'
        dev.open_dialog(DeleteConfirmDialog(e.expense_id))
        return f'Tap "Delete" for the expense "{e.title}" in Pro Expense'

    def on_delete_confirm(self, dev: Device, expense_id: int) -> str:
        e = _db(dev).remove(expense_id)
        dev.toast("Item Deleted")
        return f'Confirm deleting the expense "{e.title if e else ""}" in Pro Expense'

    def on_drawer(self, dev: Device, value: str) -> str:
        stack = dev.state.stacks[dev.state.foreground or "expense"]
        while len(stack) > 1:  # every destination is reached from Home
            dev.pop()
        if value == "logs":
            dev.push(ExpenseLogs())
            return "Open Expense Logs from the navigation drawer in Pro Expense"
        return "Open Home from the navigation drawer in Pro Expense"

    def _drawer(self, dev: Device) -> str:
        dev.open_dialog(DrawerDialog(self.where))
        return "Open the navigation drawer in Pro Expense"


# ----------------------------------------------------------------------------- screens


class Home(_ShowsDetails):
    """The start destination: totals, this week's card, recent expenses, the add button."""

    where = "home"

    def build(self, ui: UI, dev: Device) -> None:
        db, now = _db(dev), dev.state.now
        ui.toolbar("Home")
        _drawer_icon(ui, lambda: self._drawer(dev))
        income, outcome = db.week_totals(now)
        span = week_range(now)
        y = ui.y + 30
        card = [
            Node(
                "android.widget.TextView",
                (80, y, 600, y + 80),
                "Totals",
                rid=_rid("tv_expense_in_out_title"),
                role="title",
                style=46,
            ),
            Node("android.widget.TextView", (600, y, 1000, y + 80), span, rid=_rid("tv_date_range"), role="subtext"),
        ]
        for i, (label, key, value) in enumerate((("Income", "income", income), ("Outcome", "outcome", outcome))):
            x = 80 + i * 470
            card += [
                Node(
                    "android.widget.TextView",
                    (x, y + 100, x + 400, y + 160),
                    label,
                    rid=_rid(f"tv_{key}"),
                    role="subtext",
                ),
                Node(
                    "android.widget.TextView",
                    (x, y + 160, x + 330, y + 250),
                    format_amount(value),
                    rid=_rid(f"tv_{key}_value"),
                    role="text",
                    style=52,
                ),
                Node(
                    "android.widget.TextView",
                    (x + 330, y + 160, x + 440, y + 250),
                    CURRENCY_CODE,
                    rid=_rid("tv_income_symobol" if key == "income" else "tv_outcome_symbol"),
                    role="subtext",
                ),
            ]
        self._card(ui, card, y - 20, y + 270)
        y = ui.y + 30
        days = ("SU", "MO", "TU", "WE", "TH", "FR", "SAT")
        graph = [
            Node(
                "android.widget.TextView",
                (80, y, 700, y + 80),
                "Expenses in this Week",
                rid=_rid("tv_title"),
                role="title",
                style=46,
            ),
            Node("android.widget.TextView", (700, y, 1000, y + 80), span, rid=_rid("tv_date_range"), role="subtext"),
            Node("android.view.View", (80, y + 100, 1000, y + 330), rid=_rid("expense_graph")),
        ]
        graph += [
            Node("android.widget.TextView", (80 + i * 131, y + 340, 80 + (i + 1) * 131, y + 400), d, role="subtext")
            for i, d in enumerate(days)
        ]
        self._card(ui, graph, y - 20, y + 420)
        y = ui.y + 30
        recent = db.recent()
        ui.y = y
        ui.add(
            Node(
                "android.widget.TextView",
                (80, y, 700, y + 90),
                "Recent",
                rid=_rid("tv_recent_lists"),
                role="title",
                style=46,
            )
        )
        ui.y = y + 100
        rows = []
        saved, ui.nodes = ui.nodes, rows
        for e in recent:
            expense_row(ui, e, now, lambda i=e.expense_id: self._detail(dev, i), _rid("cd_expense"))
        ui.nodes = saved
        if rows:
            ui.add(
                Node(
                    "androidx.recyclerview.widget.RecyclerView",
                    (0, y + 100, SCREEN_W, ui.y),
                    rid=_rid("rv_recent_lists"),
                    children=rows,
                )
            )
        ui.y += 10
        ui.button("More", lambda: self._more(dev), rid=_rid("btn_more_logs"), h=120, x0=640, x1=1000)
        ui.fab("Add", lambda: self._add(dev), rid=_rid("fb_main_add"))

    def _card(self, ui: UI, children: list[Node], top: int, bottom: int) -> None:
        for n in children:
            n.package = PKG
        ui.add(Node("android.widget.FrameLayout", (PAD, top, SCREEN_W - PAD, bottom), children=children))
        ui.y = bottom

    def _more(self, dev: Device) -> str:
        dev.push(ExpenseLogs())
        return 'Tap "More" to open Expense Logs in Pro Expense'

    def _add(self, dev: Device) -> str:
        dev.push(ExpenseEntry(dev, None))
        return "Tap the add button to open Expense Entry in Pro Expense"


class ExpenseLogs(_ShowsDetails):
    """Every expense, newest first."""

    where = "logs"

    def build(self, ui: UI, dev: Device) -> None:
        db, now = _db(dev), dev.state.now
        ui.toolbar("Expense Logs")
        _drawer_icon(ui, lambda: self._drawer(dev))
        items = db.newest_first()
        if items:
            lo, hi = min(e.modified_date for e in items), max(e.modified_date for e in items)
            _subtitle(ui, _range_text(lo, hi))

        def render(ui: UI, e: Expense) -> None:
            expense_row(ui, e, now, lambda: self._detail(dev, e.expense_id), _rid("cd_expense"))

        ui.scroll_list(self, "list", items, render, empty="No Items", list_id="rv_expense")


def _range_text(lo: int, hi: int) -> str:
    """The logs' subtitle: the dates they span (``2023 Oct 1 - 15``)."""
    a, b = from_ms(lo), from_ms(hi)
    start = f"{a.year} {a:%b} {a.day}"
    if a.date() == b.date():
        return start
    if a.year != b.year:
        return f"{start} - {b.year} {b:%b} {b.day}"
    return f"{start} - {b.day}" if a.month == b.month else f"{start} - {b:%b} {b.day}"


class _EntryForm(dict):
    """The editor's fields, with the app's input filters: a field keeps at most its
    ``maxLength`` characters, and the amount only what ``FloatingInputFilter`` lets through,
    checked key by key as typing (``adb shell input text``) enters them."""

    def __setitem__(self, key: str, value: str) -> None:
        limit = MAX_CHARS.get(key)
        kept = ""
        for c in value:
            if limit is not None and len(kept) >= limit:
                break
            if key == "amount" and not amount_accepts(kept + c):
                continue
            kept += c
        super().__setitem__(key, kept)


class ExpenseEntry(Screen):
    """Add (``expense=None``, "Expense Entry") or edit ("Update Data") an expense."""

    def __init__(self, dev: Device, expense: Expense | None) -> None:
        super().__init__()
        self.form = _EntryForm()
        self.expense_id = expense.expense_id if expense is not None else None
        self.category = expense.category if expense is not None else FOOD
        self.order = [self.category] + [c for c in CATEGORY_ORDER if c != self.category]
        self.time = expense.modified_date if expense is not None else ms(dev.state.now)
        self.created = expense.created_date if expense is not None else None
        self.locked = False
        self.error = ""
        if expense is not None:
            self.form["name"] = expense.title
            self.form["amount"] = format_amount(expense.amount).replace(",", "")
            self.form["note"] = expense.note or ""
        self.focus = "name" if expense is None else None

    @property
    def editing(self) -> bool:
        return self.expense_id is not None

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar(
            "Update Data" if self.editing else "Expense Entry",
            up=lambda: self._close(dev),
            actions=[
                ("Time", "time", lambda: self._pick_time(dev)),
                ("Calendar", "calendar", lambda: self._pick_date(dev)),
            ],
        )
        _icons(ui, {"time": "schedule", "calendar": "calendar"})
        _subtitle(ui, format_entry_date(self.time))
        ui.spacer(40)
        ui.field(self, "name", "Name", rid=_rid("edt_name"))
        amount = ui.field(self, "amount", "Amount", rid=_rid("edt_amount"))
        l, t, r, b = amount.bounds
        ui.add(
            Node(
                "android.widget.TextView",
                (r - 150, t, r - 20, b),
                CURRENCY_CODE,
                rid=_rid("textinput_suffix_text"),
                role="subtext",
            )
        )
        if self.error:
            ui.add(
                Node(
                    "android.widget.TextView",
                    (l + 20, b, r, b + 60),
                    self.error,
                    rid=_rid("textinput_error"),
                    role="subtext",
                )
            )
            ui.spacer(40)
        self._categories(ui, dev)
        ui.field(self, "note", "Note", rid=_rid("edt_note"), multiline=True, h=300)
        y = ui.y
        ui.button(
            "Update" if self.editing else ("Next" if self.locked else "Save"),
            lambda: self._save(dev),
            rid=_rid("btn_save"),
            x1=SCREEN_W - 220,
        )
        if not self.editing:
            ui.add(
                Node(
                    "android.widget.FrameLayout",
                    (SCREEN_W - 200, y + 10, SCREEN_W - PAD, y + 130),
                    rid=_rid("cv_lock"),
                    on_tap=lambda: self._lock(dev),
                    role="icon",
                    style="repeat",
                    selected=self.locked,
                )
            )

    # -- categories -----------------------------------------------------------------------
    @staticmethod
    def chip_width(name: str) -> int:
        return 24 * len(name) + 100  # the name (16sp) and 16dp each side

    def _categories(self, ui: UI, dev: Device) -> None:
        """The horizontal list of category cards; a swipe scrolls it sideways."""
        top = ui.y
        h = 130
        x0 = 63  # the list's 24dp padding
        total = sum(self.chip_width(CATEGORIES[c]) + 20 for c in self.order) + 2 * x0 - 20
        max_off = max(0, total - SCREEN_W)
        off = min(self.scroll.get("category", 0), max_off)

        def scroll(direction: str, frac: float) -> bool:
            if direction not in ("left", "right"):
                raise Inapplicable("the category list scrolls sideways only")
            cur = min(self.scroll.get("category", 0), max_off)
            new = max(0, min(max_off, cur + int(SCREEN_W * frac) * (1 if direction == "right" else -1)))
            self.scroll["category"] = new
            return new != cur

        chips = []
        x = x0 - off
        for c in self.order:
            name = CATEGORIES[c]
            w = self.chip_width(name)
            l, r = max(0, x), min(SCREEN_W, x + w)
            if r - l > 1:
                text = Node(
                    "android.widget.TextView",
                    (max(0, x + 30), top + 30, min(SCREEN_W, x + w - 30), top + h - 30),
                    name,
                    rid=_rid("tv_name"),
                    package=PKG,
                    role="text",
                    style=40,
                )
                chips.append(
                    Node(
                        "android.widget.FrameLayout",
                        (l, top, r, top + h),
                        rid=_rid("cd_category"),
                        package=PKG,
                        checkable=True,
                        checked=c == self.category,
                        selected=c == self.category,
                        on_tap=lambda c=c: self._choose(dev, c),
                        label=name,
                        role="row",
                        children=[text] if text.bounds[2] > text.bounds[0] else [],
                    )
                )
            x += w + 20
        ui.add(
            Node(
                "androidx.recyclerview.widget.RecyclerView",
                (0, top, SCREEN_W, top + h),
                rid=_rid("rv_category"),
                on_scroll=scroll if max_off > 0 else None,
                role="list",
                children=chips,
                label="Category",
            )
        )
        ui.y = top + h + 40

    def _choose(self, dev: Device, category: int) -> str:
        self.category = category
        return f'Choose the category "{CATEGORIES[category]}" in Pro Expense'

    # -- date and time --------------------------------------------------------------------
    def _pick_date(self, dev: Device) -> str:
        self.focus = None
        dev.open_dialog(DatePickerDialog("on_date", from_ms(self.time).date()))
        return 'Tap "Calendar" in Pro Expense'

    def on_date(self, dev: Device, value: dt.date) -> str:
        t = from_ms(self.time)
        self.time = ms(dt.datetime.combine(value, t.time()))
        return f"Set the expense date to {value:%B %-d, %Y} in Pro Expense"

    def _pick_time(self, dev: Device) -> str:
        self.focus = None
        dev.open_dialog(TimePickerDialog("on_time", from_ms(self.time).time()))
        return 'Tap "Time" in Pro Expense'

    def on_time(self, dev: Device, value: dt.time) -> str:
        t = from_ms(self.time)
        self.time = ms(t.replace(hour=value.hour, minute=value.minute, microsecond=0))
        return f"Set the expense time to {value:%H:%M} in Pro Expense"

    # -- saving ---------------------------------------------------------------------------
    def _lock(self, dev: Device) -> str:
        self.locked = not self.locked
        return f"Turn {'on' if self.locked else 'off'} adding several expenses in a row in Pro Expense"

    def _close(self, dev: Device) -> str:
        dev.pop()
        return "Leave the expense editor without saving in Pro Expense"

    def _save(self, dev: Device) -> str:
        raw = self.form.get("amount", "")
        if not raw:
            self.error = "Cost is Empty"
            return "Tap Save: the amount is empty (Cost is Empty) in Pro Expense"
        cents = parse_amount(raw)
        if cents is None:
            raise Inapplicable(f'"{raw}" is not an amount the app can save')
        self.error = ""
        now = ms(dev.state.now)
        db = _db(dev)
        values = {
            "name": self.form.get("name", ""),
            "amount": cents,
            "category": self.category,
            "note": self.form.get("note", ""),
        }
        if self.editing:
            e = db.by_id(self.expense_id)
            if e is None:
                raise Inapplicable("this expense no longer exists")
            for k, v in values.items():
                setattr(e, k, v)
            e.modified_date = self.time
            dev.pop()
            dev.toast("Data Updated!")
            what = f'"{e.title}" ({format_amount(cents)}, {CATEGORIES.get(self.category, "")})'
            return f"Update the expense {what} in Pro Expense"
        e = db.add(Expense(created_date=now, modified_date=self.time, **values))
        what = (
            f'Save the expense "{e.title}" ({format_amount(cents)}, {CATEGORIES.get(self.category, "")}) in Pro Expense'
        )
        if self.locked:  # stay for the next one: fields cleared, dated now
            self.form.clear()
            self.focus = "name"
            dev.state.keyboard = True
            self.time = now
            dev.toast("Saved!")
            return what + "; the editor stays open for the next"
        dev.pop()
        return what


class ExpenseApp(App):
    name = "expense"
    label = LABEL
    package = PKG
    activity = "com.arduia.expense.ui.MainActivity"
    aliases = ("pro expense", "pro expense app")
    color = (0, 150, 136)
    icon = "expense"
    layout = (
        ("androidx.drawerlayout.widget.DrawerLayout", f"{PKG}:id/dl_main"),
        ("android.view.ViewGroup", f"{PKG}:id/cl_main"),
        ("android.widget.FrameLayout", f"{PKG}:id/fc_main"),
    )
    databases = (DATABASE,)

    def initial_data(self) -> ExpenseData:
        return ExpenseData()

    def root(self, dev: Device) -> Screen:
        return Home()
