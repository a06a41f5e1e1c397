"""Pro Expense's data: its expenses (:class:`Expense`) in an :class:`ExpenseData`.

One :class:`Expense` is one row of the real app's ``expense`` table (arduia/ProExpense
``ExpenseEnt``, the table AndroidWorld's ``sqlite_schema_utils.Expense`` reads), with the same
fields and meanings: ``amount`` in cents (the app stores the amount times 100), ``category`` the
app's category id (:data:`CATEGORIES`), ``created_date`` and ``modified_date`` in Unix
milliseconds (the app lists and dates an expense by ``modified_date``), ``name`` and ``note``
nullable text. Plain picklable data (the device snapshots it); the screens are in ``app``, the
database the real app keeps on the phone in ``storage``.

Example:
    >>> data = ExpenseData()
    >>> e = data.add(Expense("Coffee", 5740, FOOD, "Paid by card", 1697355240000, 1697355240000))
    >>> e.expense_id, e.category_name, format_amount(e.amount)
    (1, 'Food', '57.4')
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field

PKG = "com.arduia.expense"
LABEL = "Pro Expense"

#: the app's categories by id (``ExpenseCategory``'s constants; AndroidWorld's ``category_id_to_name``)
CATEGORIES: dict[int, str] = {
    1: "Others",
    2: "Income",
    3: "Food",
    4: "Housing",
    5: "Social",
    6: "Entertainment",
    7: "Transportation",
    8: "Clothes",
    9: "Health Care",
    10: "Education",
    11: "Donation",
}
CATEGORY_IDS: dict[str, int] = {v: k for k, v in CATEGORIES.items()}
OTHERS, INCOME, FOOD = 1, 2, 3
#: the order of the category list in the editor (``ExpenseCategoryProviderImpl``), before the
#: chosen one is moved to the front
CATEGORY_ORDER: tuple[int, ...] = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1)
#: the currency the app starts with (``DEFAULT_SELECTED_CURRENCY_NUM`` 840) and its sign
CURRENCY_CODE, CURRENCY_SYMBOL = "USD", "$"

_EPOCH = dt.datetime(1970, 1, 1)


def ms(t: dt.datetime) -> int:
    """A phone time (naive, UTC) as the app stores it: Unix milliseconds."""
    return (t - _EPOCH) // dt.timedelta(milliseconds=1)


def from_ms(v: int) -> dt.datetime:
    """Unix milliseconds as a phone time (naive, UTC)."""
    return _EPOCH + dt.timedelta(milliseconds=v)


# The lists show the same few hundred amounts and dates at every step: both are kept (by value
# and type; a date by the day it is shown on, all the text depends on).
@functools.lru_cache(maxsize=4096, typed=True)
def format_amount(cents: int) -> str:
    """An amount as the app shows it (``DecimalFormat`` in English, at most two decimals):
    ``5740`` -> ``57.4``, ``10000`` -> ``100``, ``123456`` -> ``1,234.56``.

    >>> format_amount(5740), format_amount(10000), format_amount(123456), format_amount(-1005)
    ('57.4', '100', '1,234.56', '-10.05')
    """
    sign, cents = ("-", -cents) if cents < 0 else ("", cents)
    whole, frac = divmod(cents, 100)
    text = f"{whole:,}"
    if frac:
        text += "." + f"{frac:02d}".rstrip("0")
    return sign + text


def format_date(t: int, now: dt.datetime) -> str:
    """An expense's date as the lists show it (``ExpenseRecentDateFormatter``): ``Today 5:00 PM``,
    ``Yesterday 5:00 PM``, ``Sep 30`` in another month of this year, else ``2023 Oct 5``.

    >>> now = dt.datetime(2023, 10, 15, 15, 34)
    >>> days = (now, dt.datetime(2023, 10, 14, 9), dt.datetime(2023, 9, 30), dt.datetime(2023, 10, 3))
    >>> [format_date(ms(d), now) for d in days]
    ['Today 3:34 PM', 'Yesterday 9:00 AM', 'Sep 30', '2023 Oct 3']
    """
    return _format_date(t, now.year, now.month, now.day)


@functools.lru_cache(maxsize=4096, typed=True)
def _format_date(t: int, year: int, month: int, day: int) -> str:
    d = from_ms(t)
    if (d.year, d.month) == (year, month):
        if d.day == day:
            return f"Today {_time12(d)}"
        if d.day == day - 1:
            return f"Yesterday {_time12(d)}"
    elif d.year == year:
        return d.strftime("%b %-d")
    return d.strftime("%Y %b %-d")


def format_entry_date(t: int) -> str:
    """The editor's subtitle: ``d MMM yyyy h:mm a`` (``15 Oct 2023 3:34 PM``)."""
    d = from_ms(t)
    return f"{d.day} {d:%b %Y} {_time12(d)}"


def _time12(d: dt.datetime) -> str:
    return f"{d.hour % 12 or 12}:{d.minute:02d} {'AM' if d.hour < 12 else 'PM'}"


#: what the amount field accepts (``FloatingInputFilter``): a sign, up to 8 digits, up to 2 decimals
_AMOUNT_TEXT = re.compile(r"[+-]?([0-9]{0,8}([.][0-9]{0,2})?|[.][0-9]{0,2})")
_AMOUNT_VALUE = re.compile(r"([+-]?)([0-9]*)(?:[.]([0-9]*))?")


def amount_accepts(text: str) -> bool:
    """Whether the amount field may hold ``text``."""
    return _AMOUNT_TEXT.fullmatch(text) is not None


def parse_amount(text: str) -> int | None:
    """The cents the app stores for the amount field's text (``BigDecimal(text) * 100``);
    ``None`` where ``BigDecimal`` fails (``""``, ``"."``, ``"-"``).

    >>> parse_amount("57.4"), parse_amount("100.0"), parse_amount(".5"), parse_amount("-3"), parse_amount(".")
    (5740, 10000, 50, -300, None)
    """
    m = _AMOUNT_VALUE.fullmatch(text) if amount_accepts(text) else None
    if m is None or not (m.group(2) or m.group(3)):
        return None
    cents = int(m.group(2) or "0") * 100 + int((m.group(3) or "").ljust(2, "0"))
    return -cents if m.group(1) == "-" else cents


@dataclass
class Expense:
    """One row of the ``expense`` table."""

    name: str | None
    amount: int  # cents
    category: int = OTHERS
    note: str | None = ""
    created_date: int = 0  # Unix ms
    modified_date: int = 0  # Unix ms
    expense_id: int = 0

    @property
    def category_name(self) -> str:
        return CATEGORIES.get(self.category, "")

    @property
    def title(self) -> str:
        """The name as the app shows it (``""`` for NULL)."""
        return self.name or ""


@dataclass
class ExpenseData:
    expenses: list[Expense] = field(default_factory=list)
    next_id: int = 1

    def add(self, e: Expense) -> Expense:
        """Insert ``e`` with the next id (the table's AUTOINCREMENT key)."""
        e.expense_id = self.next_id
        self.next_id += 1
        self.expenses.append(e)
        return e

    def by_id(self, expense_id: int | None) -> Expense | None:
        return next((e for e in self.expenses if e.expense_id == expense_id), None)

    def remove(self, expense_id: int) -> Expense | None:
        e = self.by_id(expense_id)
        if e is not None:
            self.expenses.remove(e)
        return e

    def newest_first(self) -> list[Expense]:
        """``ORDER BY modified_date DESC``, ties in key order (the expense log's default order)."""
        return sorted(self.expenses, key=lambda e: (-e.modified_date, e.expense_id))

    def recent(self) -> list[Expense]:
        """The home screen's "Recent" card: the four newest (``getRecentExpense``)."""
        return self.newest_first()[:4]

    def week_totals(self, now: dt.datetime) -> tuple[int, int]:
        """(income, outcome) in cents of the expenses dated after this week's Sunday 00:00, as the
        home screen's "Totals" card adds them (``getWeekExpense``; Income is income, every other
        category outcome)."""
        start = ms(week_start(now))
        week = [e for e in self.expenses if e.modified_date > start]
        income = sum(e.amount for e in week if e.category == INCOME)
        return income, sum(e.amount for e in week if e.category != INCOME)


def week_start(now: dt.datetime) -> dt.datetime:
    """This week's Sunday at 00:00 (the app's weeks start on Sunday)."""
    day = now.date() - dt.timedelta(days=(now.weekday() + 1) % 7)
    return dt.datetime(day.year, day.month, day.day)


def week_range(now: dt.datetime) -> str:
    """The home cards' week (``MonthDateRangeFormatter``, Sunday to the next Sunday):
    ``Oct 15 - 22``, or ``Oct 29 - Nov 5`` across months."""
    start = week_start(now)
    end = start + dt.timedelta(days=7)
    tail = f"{end.day}" if end.month == start.month else f"{end:%b} {end.day}"
    return f"{start:%b} {start.day} - {tail}"
