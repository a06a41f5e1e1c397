"""Pro Expense (com.arduia.expense): a list of expenses with totals and an editor.

Database: :class:`ExpenseData` with a list of :class:`Expense` (name, amount in cents,
category, note, date). Screens: the expense list, newest first, under the total of what it
shows (scrolls; a toolbar filter limits it to one category; tap: edit; long press: Edit /
Delete with confirmation; FAB: add), and the editor (name, amount, category via a menu,
date via a date picker, note; Save refuses an empty name or an invalid amount; navigate up
discards; Delete in the toolbar when editing).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gui_gym.android.actions import MAX_QUOTE, clip_text
from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.widgets import UI, AlertDialog, DatePickerDialog, Inapplicable, MenuDialog, Screen
from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.arduia.expense"
CATEGORIES = ("Food", "Transport", "Entertainment", "Health", "Bills", "Shopping", "Other")
DEFAULT_CATEGORY = "Other"
_AMOUNT = re.compile(r"\$?\s*(\d+)(?:\.(\d{0,2}))?|\$?\s*\.(\d{1,2})")


def parse_amount(text: str) -> int | None:
    """Cents of an amount such as ``12``, ``12.5``, ``$12.50`` or ``.99``; ``None`` if invalid or zero."""
    t = text.strip()
    if re.fullmatch(r"\$?\s*\d{1,3}(,\d{3})+(\.\d*)?", t):  # thousands separators: 1,250.00
        t = t.replace(",", "")
    m = _AMOUNT.fullmatch(t)
    if m is None:
        return None
    if m.group(3) is not None:
        cents = int(m.group(3).ljust(2, "0"))
    else:
        cents = int(m.group(1)) * 100 + int((m.group(2) or "").ljust(2, "0"))
    return cents if 0 < cents < 10**11 else None


def format_amount(cents: int) -> str:
    """``1234`` -> ``$12.34``."""
    return f"${cents // 100:,}.{cents % 100:02d}"


@dataclass
class Expense:
    name: str
    amount: int  # cents
    category: str = DEFAULT_CATEGORY
    note: str = ""
    date: dt.date = dt.date(2023, 10, 15)
    uid: int = 0


@dataclass
class ExpenseData:
    expenses: list[Expense] = field(default_factory=list)
    next_uid: int = 1

    def add(self, e: Expense) -> Expense:
        e.uid = self.next_uid
        self.next_uid += 1
        self.expenses.append(e)
        return e

    def by_uid(self, uid: int) -> Expense | None:
        return next((e for e in self.expenses if e.uid == uid), None)

    def find(self, name: str) -> list[Expense]:
        key = " ".join(name.lower().split())
        return [e for e in self.expenses if " ".join(e.name.lower().split()) == key]

    def sorted(self, category: str = "") -> list[Expense]:
        """Newest first; only ``category`` when one is given."""
        items = [e for e in self.expenses if not category or e.category == category]
        return sorted(items, key=lambda e: (e.date, e.uid), reverse=True)

    def total(self, category: str = "") -> int:
        return sum(e.amount for e in self.expenses if not category or e.category == category)


def _db(dev: Device) -> ExpenseData:
    return dev.data("expense")


class ExpenseList(Screen):
    def __init__(self) -> None:
        super().__init__()
        self.category = ""  # the filter; "" shows every category
        self.menu_uid = 0

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        ui.toolbar("Pro Expense", up=False, actions=[("Filter by category", "filter", lambda: self._filter(dev))])
        label = f"{self.category} total" if self.category else "Total"
        ui.text(f"{label}: {format_amount(db.total(self.category))}", h=110, size=48, rid=f"{PKG}:id/tv_total")

        def render(ui: UI, e: Expense) -> None:
            row = ui.row(
                e.name,
                f"{e.category} · {e.date.strftime('%b %-d, %Y')}",
                on_tap=lambda: self._edit(dev, e.uid),
                on_long_press=lambda: self._menu(dev, e.uid),
                rid=f"{PKG}:id/expense_item",
                label=e.name,
            )
            _, t, _, b = row.bounds
            for c in row.children:
                c.bounds = (c.bounds[0], c.bounds[1], min(c.bounds[2], 740), c.bounds[3])
            row.children.append(
                Node(
                    "android.widget.TextView",
                    (760, t + 30, 1038, b - 30),
                    format_amount(e.amount),
                    package=PKG,
                    rid=f"{PKG}:id/tv_amount",
                    role="text",
                )
            )

        ui.scroll_list(self, "list", db.sorted(self.category), render, empty="No expenses", list_id="rv_expense")
        ui.fab("Add expense", lambda: self._add(dev), rid=f"{PKG}:id/fb_main_add")

    def _filter(self, dev: Device) -> str:
        items = [("All categories", "*"), *((c, c) for c in CATEGORIES)]
        dev.open_dialog(MenuDialog("on_filter", items, title="Filter by category", selected=self.category or "*"))
        return 'Tap the "Filter by category" button in Pro Expense'

    def on_filter(self, dev: Device, value: str) -> str:
        self.category = "" if value == "*" else value
        self.scroll["list"] = 0
        return f"Show {'all categories' if not self.category else f'only {self.category} expenses'} in Pro Expense"

    def _add(self, dev: Device) -> str:
        dev.push(ExpenseEditor(None, today=dev.state.now.date()))
        return 'Tap the "Add expense" button in Pro Expense'

    def _edit(self, dev: Device, uid: int) -> str:
        e = _db(dev).by_uid(uid)
        if e is None:
            raise Inapplicable("this expense no longer exists")
        dev.push(ExpenseEditor(uid, e))
        return f'Open the expense "{e.name}" ({format_amount(e.amount)}) in Pro Expense'

    def _menu(self, dev: Device, uid: int) -> str:
        e = _db(dev).by_uid(uid)
        if e is None:
            raise Inapplicable("this expense no longer exists")
        self.menu_uid = uid
        dev.open_dialog(MenuDialog("on_menu", [("Edit", "edit"), ("Delete", "delete")], title=e.name))
        return f'Long press the expense "{e.name}" in Pro Expense'

    def on_menu(self, dev: Device, value: str) -> str | None:
        e = _db(dev).by_uid(self.menu_uid)
        if e is None:
            return None
        if value == "edit":
            return self._edit(dev, e.uid)
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Delete this expense?",
                f"{e.name} ({format_amount(e.amount)}) will be deleted.",
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return f'Tap "Delete" for the expense "{e.name}" in Pro Expense'

    def on_delete(self, dev: Device, value: str) -> str:
        e = _db(dev).by_uid(self.menu_uid)
        if e is not None:
            _db(dev).expenses.remove(e)
            dev.toast("Expense deleted")
        return f'Confirm deleting the expense "{e.name if e else ""}" in Pro Expense'


class ExpenseEditor(Screen):
    """Add (``uid=None``) or edit an expense."""

    FIELDS = (("name", "Name"), ("amount", "Amount"), ("note", "Note"))

    def __init__(self, uid: int | None, expense: Expense | None = None, today: dt.date | None = None) -> None:
        super().__init__()
        self.uid = uid
        self.category = DEFAULT_CATEGORY
        self.date = today or dt.date(2023, 10, 15)
        if expense is not None:
            self.form = {
                "name": expense.name,
                "amount": f"{expense.amount // 100}.{expense.amount % 100:02d}",
                "note": expense.note,
            }
            self.category, self.date = expense.category, expense.date
        self.focus = "name" if uid is None else None

    def build(self, ui: UI, dev: Device) -> None:
        actions = [("Delete", "delete", lambda: self._delete(dev))] if self.uid is not None else []
        ui.toolbar("Add expense" if self.uid is None else "Edit expense", up=lambda: self._cancel(dev), actions=actions)
        ui.spacer(30)
        ui.field(self, "name", "Name", rid=f"{PKG}:id/edt_name")
        ui.field(self, "amount", "Amount", rid=f"{PKG}:id/edt_amount")
        ui.row(
            "Category",
            self.category,
            on_tap=lambda: self._pick_category(dev),
            rid=f"{PKG}:id/category",
            icon="category",
            label="Category",
        )
        ui.row(
            "Date",
            self.date.strftime("%b %-d, %Y"),
            on_tap=lambda: self._pick_date(dev),
            rid=f"{PKG}:id/date",
            icon="event",
            label="Date",
        )
        ui.field(self, "note", "Note", rid=f"{PKG}:id/edt_note")
        ui.button("Save", lambda: self._save(dev), rid=f"{PKG}:id/btn_save")

    def _pick_category(self, dev: Device) -> str:
        items = [(c, c) for c in CATEGORIES]
        dev.open_dialog(MenuDialog("on_category", items, title="Category", selected=self.category))
        return 'Tap the "Category" item in Pro Expense'

    def on_category(self, dev: Device, value: str) -> str:
        self.category = value
        return f'Choose the category "{value}" in Pro Expense'

    def _pick_date(self, dev: Device) -> str:
        dev.open_dialog(DatePickerDialog("on_date", self.date))
        return 'Tap the "Date" item in Pro Expense'

    def on_date(self, dev: Device, value: dt.date) -> str:
        self.date = value
        return f"Set the expense date to {value.strftime('%B %-d, %Y')} in Pro Expense"

    def _cancel(self, dev: Device) -> str:
        dev.pop()
        return "Discard the expense edits in Pro Expense"

    def _save(self, dev: Device) -> str:
        name = " ".join(self.form.get("name", "").split())
        if not name:
            raise Inapplicable("the expense needs a name")
        raw = self.form.get("amount", "")
        cents = parse_amount(raw)
        if cents is None:
            if not raw.strip():
                raise Inapplicable("the expense needs an amount")
            raise Inapplicable(f'"{clip_text(raw, MAX_QUOTE)}" is not a valid amount')
        values = {
            "name": name,
            "amount": cents,
            "category": self.category,
            "note": self.form.get("note", "").strip(),
            "date": self.date,
        }
        db = _db(dev)
        e = db.by_uid(self.uid) if self.uid is not None else None
        if self.uid is not None and e is None:
            raise Inapplicable("this expense no longer exists")
        if e is None:
            e = db.add(Expense(**values))
        else:
            for k, v in values.items():
                setattr(e, k, v)
        dev.pop()
        dev.toast("Expense saved")
        return f'Save the expense "{e.name}" ({format_amount(e.amount)}, {e.category}) in Pro Expense'

    def _delete(self, dev: Device) -> str:
        e = _db(dev).by_uid(self.uid) if self.uid is not None else None
        if e is None:
            raise Inapplicable("this expense no longer exists")
        dev.open_dialog(
            AlertDialog(
                "on_delete",
                "Delete this expense?",
                f"{e.name} ({format_amount(e.amount)}) will be deleted.",
                [("Cancel", None), ("Delete", "delete")],
            )
        )
        return f'Tap the "Delete" button for the expense "{e.name}" in Pro Expense'

    def on_delete(self, dev: Device, value: str) -> str:
        e = _db(dev).by_uid(self.uid) if self.uid is not None else None
        if e is not None:
            _db(dev).expenses.remove(e)
            dev.toast("Expense deleted")
        dev.pop()
        return f'Confirm deleting the expense "{e.name if e else ""}" in Pro Expense'


class ExpenseApp(App):
    name = "expense"
    label = "Pro Expense"
    package = PKG
    activity = "com.arduia.expense.ui.MainActivity"
    aliases = ("pro expense", "pro expense app")
    color = (0, 150, 136)

    def initial_data(self) -> ExpenseData:
        return ExpenseData()

    def root(self, dev: Device) -> Screen:
        return ExpenseList()
