"""gui-gym's own Pro Expense task: this week's spending, read from the home screen's "Totals" card.

(AndroidWorld's Pro Expense tasks, ExpenseAddSingle ... ExpenseDeleteSingle, are in
:mod:`~gui_gym.android.sim.apps.expense.androidworld`.)
"""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.expense.androidworld import EXPENSE_NAMES, NOTES
from gui_gym.android.sim.apps.expense.app import Home
from gui_gym.android.sim.apps.expense.data import CATEGORIES, INCOME, Expense, ExpenseData, format_amount, ms
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate, in_app
from gui_gym.android.sim.tasks.data import pick

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: the task's clock: Thursday, so that "this week" (from Sunday) spans several days
NOW = dt.datetime(2023, 10, 19, 18, 0)


def db(dev: Device) -> ExpenseData:
    return dev.data("expense")


def amounts_in(answer: str | None) -> set[int]:
    """Every amount written in ``answer``, in cents (``$1,234.50`` -> 123450).

    >>> sorted(amounts_in("$1,234.5 or 7")), amounts_in("0.125")
    ([700, 123450], {-1})
    """
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


def _expense(rng: np.random.Generator, day: int, outcome: bool = False) -> list:
    """[name, cents, category id, note, Unix ms] of an expense on October ``day`` before 18:00."""
    ids = [c for c in CATEGORIES if not outcome or c != INCOME]
    category = int(pick(rng, ids))
    name = str(pick(rng, list(EXPENSE_NAMES[CATEGORIES[category]])))
    when = dt.datetime(2023, 10, day, int(rng.integers(0, 18)), int(rng.integers(0, 60)))
    return [name, int(rng.integers(1000, 50001)), category, str(pick(rng, list(NOTES))), ms(when)]


class ExpenseTotalQuestion(TaskTemplate):
    id = "ExpenseTotalQuestion"
    app = "expense"
    difficulty = "easy"
    kind = "question"
    template = "How much did I spend this week, according to Pro Expense? Answer with the amount."
    placeholders: ClassVar[dict[str, str]] = {}
    milestones = (Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),)

    def sample(self, rng: np.random.Generator) -> Params:
        week = [_expense(rng, int(rng.integers(15, 20)), outcome=i == 0) for i in range(int(rng.integers(2, 6)))]
        older = [_expense(rng, int(rng.integers(1, 15))) for _ in range(int(rng.integers(3, 8)))]
        existing = sorted(week + older, key=lambda x: x[4])
        total = sum(x[1] for x in week if x[2] != INCOME)
        return {"existing": existing, "cents": total, "total": format_amount(total)}

    def clock(self, rng: np.random.Generator) -> dt.datetime:
        return NOW

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        for name, cents, category, note, t in p["existing"]:
            db(dev).add(Expense(name, cents, category, note, t, t))

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return amounts_in(answer) == {p["cents"]}

    def oracle(self, o: Oracle) -> str:
        if o.app != "expense":
            return o.launch("Pro Expense")
        if isinstance(o.screen, Home) and o.dialog is None:
            value = o.find(rid=":id/tv_outcome_value")
            if value is not None:
                return o.answer(value.text)
        return o.back()


TEMPLATES = (ExpenseTotalQuestion,)
