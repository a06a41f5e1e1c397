"""Pro Expense tasks (AndroidWorld: ExpenseAddSingle, ExpenseAddMultiple, ExpenseDeleteSingle, …)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.expense.app import (
    CATEGORIES,
    Expense,
    ExpenseData,
    ExpenseEditor,
    ExpenseList,
    format_amount,
    parse_amount,
)
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, back_stack, in_app
from gui_gym.android.sim.tasks.data import EXPENSE_NAMES, pick
from gui_gym.android.sim.widgets import AlertDialog, MenuDialog

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

# Plausible categories and price range (dollars) of each expense name.
KINDS: dict[str, tuple[tuple[str, ...], int, int]] = {
    "Coffee": (("Food",), 2, 7),
    "Groceries": (("Food", "Shopping"), 15, 120),
    "Taxi": (("Transport",), 8, 45),
    "Cinema": (("Entertainment",), 8, 30),
    "Books": (("Shopping", "Entertainment"), 10, 60),
    "Lunch": (("Food",), 8, 25),
    "Train ticket": (("Transport",), 5, 80),
    "Gym": (("Health", "Entertainment"), 20, 60),
    "Pharmacy": (("Health", "Shopping"), 5, 50),
    "Dinner": (("Food", "Entertainment"), 20, 90),
    "Phone bill": (("Bills",), 20, 70),
    "Haircut": (("Other", "Health"), 15, 50),
}


def db(dev: Device) -> ExpenseData:
    return dev.data("expense")


def expense_for(rng: np.random.Generator, name: str) -> tuple[str, int, str, int]:
    """A plausible (name, cents, category, days ago) for an expense called ``name``."""
    categories, lo, hi = KINDS.get(name, (CATEGORIES, 1, 100))
    return name, int(rng.integers(lo * 20, hi * 20 + 1)) * 5, pick(rng, categories), int(rng.integers(0, 40))


def sample_expenses(rng: np.random.Generator, n: int, exclude: tuple[str, ...] = ()) -> list[tuple[str, int, str, int]]:
    """``n`` expenses with distinct names: (name, cents, category, days ago)."""
    return [expense_for(rng, name) for name in pick(rng, [x for x in EXPENSE_NAMES if x not in exclude], n)]


def store(dev: Device, items: list[tuple[str, int, str, int]]) -> None:
    today = dev.state.now.date()
    for name, cents, category, days in items:
        db(dev).add(Expense(name, cents, category, "", today - dt.timedelta(days=days)))


def has_expense(dev: Device, name: str, cents: int | None = None, category: str | None = None) -> bool:
    return any(
        (cents is None or e.amount == cents) and (category is None or e.category == category)
        for e in db(dev).find(name)
    )


def draft(dev: Device) -> ExpenseEditor | None:
    """The new-expense editor, if one is open."""
    return next((s for s in back_stack(dev, "expense") if isinstance(s, ExpenseEditor) and s.uid is None), None)


def draft_holds(dev: Device, key: str, value: str) -> bool:
    s = draft(dev)
    if s is None:
        return False
    if key == "amount":
        return parse_amount(s.form.get("amount", "")) == parse_amount(value)
    if key == "category":
        return s.category == value
    return " ".join(s.form.get(key, "").lower().split()) == value.lower()


def shown_value(o: Oracle, row_label: str) -> str:
    """The second line of an editor row (e.g. the chosen category), as shown on screen."""
    row = o.find(role="row", label=row_label)
    sub = [c.text for c in row.children if c.role == "subtext"] if row is not None else []
    return sub[0] if sub else ""


def add_expense_step(o: Oracle, name: str, amount: str, category: str) -> str:
    """One oracle step toward saving a new expense."""
    s = o.screen
    if o.app != "expense":
        return o.launch("Pro Expense")
    if isinstance(s, ExpenseEditor) and s.uid is None:
        if isinstance(s.dialog, MenuDialog) and s.dialog.title == "Category":
            return o.tap(o.find(category, role="menuitem"))
        if s.dialog is not None:
            return o.back()
        act = o.fill_form([("Name", name), ("Amount", amount)])
        if act is not None:
            return act
        if shown_value(o, "Category") != category:
            return o.tap(o.find(role="row", label="Category"))
        return o.tap(o.find("Save", role="button"))
    if isinstance(s, ExpenseList) and s.dialog is None:
        return o.tap(o.find(desc="Add expense"))
    return o.back()


def delete_expense_step(o: Oracle, name: str) -> str:
    """One oracle step toward deleting the expense ``name`` from the list."""
    s = o.screen
    if o.app != "expense":
        return o.launch("Pro Expense")
    if isinstance(s, ExpenseList):
        if options_open(o.dev, name):  # the menu or the confirmation for this expense
            if isinstance(s.dialog, MenuDialog):
                return o.tap(o.find("Delete", role="menuitem"))
            return o.tap(o.find(label="Delete", role="textbutton"))
        if s.dialog is None and not s.category:
            order = {e.name: i for i, e in enumerate(db(o.dev).sorted())}
            target = order.get(name, 0)
            act = o.reveal(
                lambda n: n.role == "row" and n.label == name, before=lambda r: order.get(r.label, -1) < target
            )
            return act or o.long_press(o.find(role="row", label=name))
        if s.dialog is None:  # a category filter hides part of the list
            return o.tap(o.find(desc="Filter by category"))
        if isinstance(s.dialog, MenuDialog) and s.dialog.title == "Filter by category":
            return o.tap(o.find("All categories", role="menuitem"))
    return o.back()


def options_open(dev: Device, name: str) -> bool:
    """A menu or delete confirmation about the expense ``name`` is open (list or editor)."""
    for s in back_stack(dev, "expense"):
        uid = s.menu_uid if isinstance(s, ExpenseList) else s.uid if isinstance(s, ExpenseEditor) else None
        e = db(dev).by_uid(uid) if uid else None
        if e is not None and e.name == name and isinstance(s.dialog, (MenuDialog, AlertDialog)):
            return True
    return False


def amounts_in(answer: str | None) -> set[int]:
    """Every amount written in ``answer``, in cents (``$1,234.50`` -> 123450)."""
    out = set()
    for tok in re.findall(r"\d[\d,]*(?:\.\d+)?|\.\d+", answer or ""):
        try:
            value = Decimal(tok.replace(",", "")) * 100
        except InvalidOperation:
            continue
        if value == value.to_integral_value():
            out.add(int(value))
        else:
            out.add(-1)  # sub-cent precision: not an amount of money
    return out


def plain(cents: int) -> str:
    """``1250`` -> ``12.50`` (how an instruction states an amount)."""
    return f"{cents // 100}.{cents % 100:02d}"


class ExpenseAddSingle(TaskTemplate):
    id = "ExpenseAddSingle"
    app = "expense"
    difficulty = "medium"
    template = "Add an expense in Pro Expense: name {name}, amount {amount}, category {category}."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name", "Amount": "amount", "Category": "category"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone("Open the form to add an expense", lambda d, p: draft(d) is not None or has_expense(d, p["name"])),
        Milestone(
            'Enter the name "<Name>"', lambda d, p: draft_holds(d, "name", p["name"]) or has_expense(d, p["name"])
        ),
        Milestone(
            "Enter the amount <Amount>",
            lambda d, p: draft_holds(d, "amount", p["amount"]) or has_expense(d, p["name"], p["cents"]),
        ),
        Milestone(
            'Choose the category "<Category>"',
            lambda d, p: (
                draft_holds(d, "category", p["category"]) or has_expense(d, p["name"], p["cents"], p["category"])
            ),
        ),
        Milestone("Save the expense <Name>", lambda d, p: has_expense(d, p["name"], p["cents"], p["category"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        existing = sample_expenses(rng, int(rng.integers(4, 9)))
        ((name, cents, category, _),) = sample_expenses(rng, 1, exclude=tuple(e[0] for e in existing))
        return {"existing": existing, "name": name, "cents": cents, "amount": plain(cents), "category": category}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        store(dev, p["existing"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return (
            len(db(dev).find(p["name"])) == 1
            and has_expense(dev, p["name"], p["cents"], p["category"])
            and len(db(dev).expenses) == len(p["existing"]) + 1
        )

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if has_expense(o.dev, p["name"], p["cents"], p["category"]):
            return o.finish()
        return add_expense_step(o, p["name"], p["amount"], p["category"])


class ExpenseAddMultiple(TaskTemplate):
    id = "ExpenseAddMultiple"
    app = "expense"
    difficulty = "hard"
    template = (
        "Add two expenses in Pro Expense: {name1} for {amount1} in {category1}, "
        "and {name2} for {amount2} in {category2}."
    )
    placeholders: ClassVar[dict[str, str]] = {
        "Name1": "name1",
        "Amount1": "amount1",
        "Category1": "category1",
        "Name2": "name2",
        "Amount2": "amount2",
        "Category2": "category2",
    }
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone("Open the form to add an expense", lambda d, p: draft(d) is not None or has_expense(d, p["name1"])),
        Milestone(
            "Save the expense <Name1> of <Amount1> in <Category1>",
            lambda d, p: has_expense(d, p["name1"], p["cents1"], p["category1"]),
        ),
        Milestone(
            "Save the expense <Name2> of <Amount2> in <Category2>",
            lambda d, p: has_expense(d, p["name2"], p["cents2"], p["category2"]),
        ),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        existing = sample_expenses(rng, int(rng.integers(3, 8)))
        (n1, c1, k1, _), (n2, c2, k2, _) = sample_expenses(rng, 2, exclude=tuple(e[0] for e in existing))
        return {
            "existing": existing,
            "name1": n1,
            "cents1": c1,
            "amount1": plain(c1),
            "category1": k1,
            "name2": n2,
            "cents2": c2,
            "amount2": plain(c2),
            "category2": k2,
        }

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        store(dev, p["existing"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return (
            all(
                len(db(dev).find(p["name" + i])) == 1
                and has_expense(dev, p["name" + i], p["cents" + i], p["category" + i])
                for i in ("1", "2")
            )
            and len(db(dev).expenses) == len(p["existing"]) + 2
        )

    def oracle(self, o: Oracle) -> str:
        p = o.p
        for i in ("1", "2"):
            if not has_expense(o.dev, p["name" + i], p["cents" + i], p["category" + i]):
                return add_expense_step(o, p["name" + i], p["amount" + i], p["category" + i])
        return o.finish()


class ExpenseDeleteSingle(TaskTemplate):
    id = "ExpenseDeleteSingle"
    app = "expense"
    difficulty = "easy"
    template = "Delete the expense {name} from Pro Expense."
    placeholders: ClassVar[dict[str, str]] = {"Name": "name"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone("Open the options for <Name>", lambda d, p: options_open(d, p["name"]) or not db(d).find(p["name"])),
        Milestone("Delete the expense <Name>", lambda d, p: not db(d).find(p["name"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        existing = sample_expenses(rng, int(rng.integers(5, 9)))
        return {"existing": existing, "name": pick(rng, existing)[0]}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        store(dev, p["existing"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return not db(dev).find(p["name"]) and len(db(dev).expenses) == len(p["existing"]) - 1

    def oracle(self, o: Oracle) -> str:
        if not db(o.dev).find(o.p["name"]):
            return o.finish()
        return delete_expense_step(o, o.p["name"])


class ExpenseDeleteMultiple(TaskTemplate):
    id = "ExpenseDeleteMultiple"
    app = "expense"
    difficulty = "hard"
    template = "Delete the following expenses from Pro Expense: {name1}, {name2} and {name3}."
    placeholders: ClassVar[dict[str, str]] = {"Name1": "name1", "Name2": "name2", "Name3": "name3"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone("Delete the expense <Name1>", lambda d, p: not db(d).find(p["name1"])),
        Milestone("Delete the expense <Name2>", lambda d, p: not db(d).find(p["name2"])),
        Milestone("Delete the expense <Name3>", lambda d, p: not db(d).find(p["name3"])),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        existing = sample_expenses(rng, int(rng.integers(8, 13)))
        targets = pick(rng, [e[0] for e in existing], 3)
        return {"existing": existing, "name1": targets[0], "name2": targets[1], "name3": targets[2]}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        store(dev, p["existing"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        gone = all(not db(dev).find(p[k]) for k in ("name1", "name2", "name3"))
        return gone and len(db(dev).expenses) == len(p["existing"]) - 3

    def oracle(self, o: Oracle) -> str:
        for k in ("name1", "name2", "name3"):
            if db(o.dev).find(o.p[k]):
                return delete_expense_step(o, o.p[k])
        return o.finish()


class ExpenseTotalQuestion(TaskTemplate):
    id = "ExpenseTotalQuestion"
    app = "expense"
    difficulty = "easy"
    kind = "question"
    template = "How much did I spend on {category} in total, according to Pro Expense? Answer with the amount."
    placeholders: ClassVar[dict[str, str]] = {"Category": "category"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone(
            "Show the <Category> expenses",
            lambda d, p: any(
                isinstance(s, ExpenseList) and s.category == p["category"] for s in back_stack(d, "expense")
            ),
        ),
    )

    def sample(self, rng: np.random.Generator) -> Params:
        existing = sample_expenses(rng, int(rng.integers(8, 13)))
        counts = {c: sum(e[2] == c for e in existing) for c in CATEGORIES}
        category = pick(rng, [c for c in CATEGORIES if counts[c] >= 2])  # one exists: 8+ expenses, 7 categories
        total = sum(e[1] for e in existing if e[2] == category)
        return {"existing": existing, "category": category, "cents": total, "total": format_amount(total)}

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        store(dev, p["existing"])

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return amounts_in(answer) == {p["cents"]}

    def oracle(self, o: Oracle) -> str:
        category = o.p["category"]
        s = o.screen
        if o.app != "expense":
            return o.launch("Pro Expense")
        if isinstance(s, ExpenseList):
            if isinstance(s.dialog, MenuDialog) and s.dialog.title == "Filter by category":
                return o.tap(o.find(category, role="menuitem"))
            if s.dialog is None:
                total = o.find(rid=":id/tv_total")
                if total is not None and total.text.startswith(f"{category} total:"):
                    return o.answer(total.text.split(":", 1)[1].strip())
                return o.tap(o.find(desc="Filter by category"))
        return o.back()


TEMPLATES = (
    ExpenseAddSingle,
    ExpenseAddMultiple,
    ExpenseDeleteSingle,
    ExpenseDeleteMultiple,
    ExpenseTotalQuestion,
)
