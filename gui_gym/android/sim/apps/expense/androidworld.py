"""AndroidWorld's Pro Expense tasks (``task_evals/single/expense.py``) on the simulated phone.

Parameters are drawn as AndroidWorld draws them (``_generate_expense``, ``get_random_items``, the
classes' ``generate_random_params``), rows kept as dicts with the fields of AndroidWorld's
``sqlite_schema_utils.Expense``. The start state is what ``initialize_task`` leaves: the
``expense`` table cleared, the noise rows inserted (keys from 1), then for the deletion tasks the
target rows; ExpenseAddMultipleFromMarkor also writes ``my_expenses.txt`` into an emptied Markor
folder, ExpenseAddMultipleFromGallery clears the phone's storage and puts its pictures of the rows
into ``DCIM`` (the media store Simple Gallery Pro shows). The checks are ``sqlite_validators``' on
the rows the app holds: an addition must add exactly the target rows (amount in cents and category
id exact, name and note fuzzy) and change nothing else; a deletion must remove exactly the target
keys (one of the two duplicates).

Goals show amounts as ``amount_dollars``, Python's float text (``$57.4``, ``$100.0``), while the
checks compare integer cents.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from gui_gym.android.sim.apps.expense.app import (
    DeleteConfirmDialog,
    ExpenseDetailDialog,
    ExpenseEntry,
    ExpenseLogs,
    Home,
)
from gui_gym.android.sim.apps.expense.data import (
    CATEGORIES,
    CATEGORY_IDS,
    Expense,
    ExpenseData,
    format_amount,
    format_date,
)
from gui_gym.android.sim.apps.expense.storage import rows
from gui_gym.android.sim.apps.gallery.oracle import view_step, viewed
from gui_gym.android.sim.apps.markor.androidworld import clear_device_storage, file_open, open_file_step
from gui_gym.android.sim.apps.markor.app import MarkorData
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack, in_app
from gui_gym.android.sim.tasks.rows import (
    AddRows,
    DeleteDuplicateRows,
    DeleteRows,
    RowsTask,
    Table,
    distinct_items,
    random_items,
)
from gui_gym.android.ui import Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

APP_NAME = "pro expense"  # expense.py's _APP_NAME, as the goals write it
MARKOR_FILE = "my_expenses.txt"
#: the fields of AndroidWorld's ``Expense`` (the table's columns), in its order
FIELDS = ("name", "amount", "category", "note", "created_date", "modified_date", "expense_id")
#: the fields the goals and ``my_expenses.txt`` show (``_get_expense_rows_as_text``)
TEXT_FIELDS = ("name", "amount_dollars", "category_name", "note")

#: expense.py's ``_EXPENSE_NAMES``: the names ``_generate_expense`` draws from, by category
EXPENSE_NAMES: dict[str, tuple[str, ...]] = {
    "Others": (
        "Emergency Repairs",
        "Pet Supplies",
        "Pet Care",
        "Household Items",
        "Stationery",
        "Unexpected Expenses",
        "Miscellaneous Gifts",
        "Subscriptions",
        "Membership Fees",
        "Legal Fees",
    ),
    "Income": (
        "Salary",
        "Freelance Payment",
        "Bonus",
        "Dividends",
        "Interest Income",
        "Rental Income",
        "Capital Gains",
        "Reimbursements",
        "Side Business",
        "Consulting Fees",
    ),
    "Food": (
        "Restaurant Meal",
        "Groceries",
        "Coffee",
        "Fast Food",
        "Fine Dining",
        "Bakery Items",
        "Snacks",
        "Food Delivery",
        "Specialty Foods",
        "Dining Out",
    ),
    "Housing": (
        "Rent Payment",
        "Mortgage",
        "Home Repairs",
        "Utilities",
        "Property Taxes",
        "Home Insurance",
        "Furnishing",
        "Cleaning Services",
        "Landscaping",
        "Pest Control",
    ),
    "Social": (
        "Dinner Party",
        "Gift for Friend",
        "Club Membership",
        "Wedding Gift",
        "Charity Donations",
        "Birthday Present",
        "Social Club Dues",
        "Event Tickets",
        "Night Out",
        "Party Supplies",
    ),
    "Entertainment": (
        "Concert Tickets",
        "Movie Night",
        "Theater Show",
        "Streaming Services",
        "Video Games",
        "Books",
        "Magazines",
        "Hobbies",
        "Museum Tickets",
        "Amusement Park",
    ),
    "Transportation": (
        "Taxi Fare",
        "Public Transit Pass",
        "Gas",
        "Parking Fees",
        "Car Maintenance",
        "Bike Repairs",
        "Car Insurance",
        "Public Transit",
        "Flight Tickets",
        "Ride-Sharing",
    ),
    "Clothes": (
        "New Jacket",
        "Shirt Purchase",
        "Shoes",
        "Dress",
        "Jeans",
        "Accessories",
        "Sportswear",
        "Undergarments",
        "Tailoring Services",
        "Laundry",
    ),
    "Health Care": (
        "Doctor Visits",
        "Medications",
        "Health Insurance",
        "Dental Care",
        "Eyecare",
        "Wellness Products",
        "Gym Membership",
        "Therapy Sessions",
        "Medical Tests",
    ),
    "Education": (
        "Tuition Fees",
        "School Supplies",
        "Textbooks",
        "Online Courses",
        "Seminars",
        "Workshops",
        "Educational Software",
        "Library Fees",
        "ProDev",
        "Tutoring Services",
    ),
    "Donation": (
        "Charity",
        "Fundraising Events",
        "Sponsorships",
        "Non-Profit Support",
        "Crowdfunding",
        "Religious",
        "Political",
        "Educational",
        "Medical Research",
        "Environmental",
    ),
}
#: expense.py's ``_NOTES``
NOTES: tuple[str, ...] = (
    "Paid by card",
    "Urgent",
    "Monthly recurring",
    "Want to have",
    "A need",
    "Remember to transfer funds",
    "I may repeat this",
)

Row = dict[str, Any]


# ----------------------------------------------------------------------------- draws


#: 2023-10-01 00:00 UTC in Unix seconds (``_get_random_timestamp``'s month)
_OCTOBER_2023 = int(dt.datetime(2023, 10, 1, tzinfo=dt.UTC).timestamp())


def random_timestamp(r: random.Random) -> int:
    """``_get_random_timestamp``: Unix seconds of October 1-15, 2023 at a random hour (UTC)."""
    day = r.randint(1, 15)
    hour = r.randint(0, 23)
    return _OCTOBER_2023 + (day - 1) * 86400 + hour * 3600


def generate_expense(r: random.Random) -> Row:
    """``_generate_expense``: the time, then the category, the name, the amount, the note."""
    t = random_timestamp(r) * 1000
    category = r.choice(_CATEGORY_IDS)
    name = r.choice(EXPENSE_NAMES[CATEGORIES[category]])
    amount = r.randint(1000, 50000)
    note = r.choice(NOTES)
    return expense_row(name, amount, category, note, t, t)


_CATEGORY_IDS = tuple(CATEGORIES)  # drawn from in the dict's order, as ``random.choice(list(...))``


def expense_row(name: str, amount: int, category: int, note: str, created: int, modified: int, key: int = -1) -> Row:
    """A row as AndroidWorld's ``Expense(...)`` (``expense_id`` -1 until the database numbers it)."""
    return dict(zip(FIELDS, (name, amount, category, note, created, modified, key), strict=True))


# ----------------------------------------------------------------------------- text


def amount_dollars(row: Row) -> str:
    """``Expense.amount_dollars``: ``$`` and the amount as a Python float (``$57.4``)."""
    return f"${row['amount'] / 100}"


def _field(row: Row, name: str) -> str:
    if name == "amount_dollars":
        return amount_dollars(row)
    if name == "category_name":
        return CATEGORIES[row["category"]]
    return str(row[name])


#: the ``expense`` table: amount and category compared exactly, name and note fuzzily
#: (``validate_rows_addition_integrity``'s fields)
TABLE = Table(
    app="expense",
    key="expense_id",
    fields=FIELDS,
    record=Expense,
    empty=ExpenseData,
    read=rows,
    exact=("amount", "category"),
    fuzzy=("name", "note"),
    noun="Expense",
    text_fields=TEXT_FIELDS,
    value=_field,
    records=lambda data: data.expenses,
)


def rows_as_text(items: Sequence[Row], format_type: str, wrap_width: int | None = None) -> str:
    """``_get_expense_rows_as_text``: ``csv`` (a ``|`` header and lines) or ``text_block``
    (``Expense: name`` and one indented line per other field, blocks separated by a blank line;
    with ``wrap_width``, each field's value wrapped at that width by ``textwrap.wrap``)."""
    return TABLE.rows_as_text(items, format_type, wrap_width)


# ----------------------------------------------------------------------------- state

table = TABLE.rows
numbered = TABLE.numbered
insert = TABLE.insert
matches = TABLE.matches
addition_ok = TABLE.addition_ok
removal_ok = TABLE.removal_ok
saved = TABLE.saved


# ----------------------------------------------------------------------------- oracle helpers


def _child(row: Node, rid: str) -> str:
    return next((c.text for c in row.children if c.rid.endswith(rid)), "")


def _signature(e: Expense | Row, dev: Device) -> tuple[str, str, str]:
    """What a list row shows of an expense: name, amount, date."""
    get = (lambda k: getattr(e, k)) if isinstance(e, Expense) else e.__getitem__
    return (get("name") or "", format_amount(get("amount")), format_date(get("modified_date"), dev.state.now))


def _row_signature(n: Node) -> tuple[str, str, str]:
    return (_child(n, ":id/tv_name"), _child(n, ":id/tv_amount"), _child(n, ":id/tv_date"))


def _is_expense_row(n: Node) -> bool:
    return n.role == "row" and n.rid.endswith(":id/cd_expense")


def new_entry(dev: Device) -> ExpenseEntry | None:
    """The editor of a new expense, if one is open."""
    return next((s for s in back_stack(dev, "expense") if isinstance(s, ExpenseEntry) and not s.editing), None)


def add_step(o: Oracle, target: Row) -> str:
    """One step toward saving ``target`` in Pro Expense, typed as the goal shows it (the amount
    without its ``$``)."""
    s = o.screen
    if o.app != "expense":
        return o.launch("Pro Expense")
    if isinstance(s, ExpenseEntry) and not s.editing:
        if s.dialog is not None:
            return o.back()
        act = o.fill_form([("Name", target["name"]), ("Amount", amount_dollars(target)[1:]), ("Note", target["note"])])
        if act is not None:
            return act
        if s.category != target["category"]:
            return choose_category(o, CATEGORIES[target["category"]])
        return o.tap(o.find(rid=":id/btn_save"))
    if isinstance(s, Home) and s.dialog is None:
        return o.tap(o.find(rid=":id/fb_main_add"))
    return o.back()


def choose_category(o: Oracle, name: str) -> str:
    """Tap the category card ``name``, scrolling the list of cards sideways to it first."""
    s = o.screen
    assert isinstance(s, ExpenseEntry)
    card = o.find(label=name, rid=":id/cd_category")
    full = ExpenseEntry.chip_width(name)
    lst = o.find(rid=":id/rv_category")
    if card is not None:
        if card.bounds[2] - card.bounds[0] >= full:
            return o.tap(card)
        # partly shown: a short swipe toward it (a finger to the left reveals what is on the right)
        return o.swipe("left" if card.bounds[0] > 0 else "right", "short", within=lst)
    shown = [CATEGORY_IDS[c.label] for c in (lst.children if lst is not None else []) if c.label in CATEGORY_IDS]
    target = s.order.index(CATEGORY_IDS[name])
    right = bool(shown) and target > max(s.order.index(c) for c in shown)
    return o.swipe("left" if right else "right", "long", within=lst)


def delete_step(o: Oracle, keys: Sequence[int]) -> str:
    """One step toward deleting one of the expenses ``keys`` (the first of them in the list's
    order): open its details from Home's "Recent" card or the expense logs, delete, confirm."""
    dev = o.dev
    data: ExpenseData = dev.data("expense")
    order = data.newest_first()
    left = [e for e in order if e.expense_id in keys]
    target = left[0]
    s = o.screen
    if o.app != "expense":
        return o.launch("Pro Expense")
    if isinstance(s, (Home, ExpenseLogs)):
        d = s.dialog
        if isinstance(d, DeleteConfirmDialog) and d.expense_id in keys:
            return o.tap(o.find(rid=":id/btn_confirm"))
        if isinstance(d, ExpenseDetailDialog) and d.expense_id in keys:
            return o.tap(o.find(rid=":id/btn_delete"))
        if d is not None:
            return o.back()
        want = _signature(target, dev)
        if isinstance(s, Home):
            row = next((n for n in o.nodes if _is_expense_row(n) and _row_signature(n) == want), None)
            return o.tap(row) if row is not None else o.tap(o.find(rid=":id/btn_more_logs"))
        place = {}
        for i, e in enumerate(order):
            place.setdefault(_signature(e, dev), i)
        at = place[want]
        act = o.reveal(
            lambda n: _is_expense_row(n) and _row_signature(n) == want,
            before=lambda n: place.get(_row_signature(n), -1) < at,
            list_rid=":id/rv_expense",
        )
        if act is not None:
            return act
        return o.tap(next(n for n in o.nodes if _is_expense_row(n) and _row_signature(n) == want))
    return o.back()


def details_open(dev: Device, keys: Sequence[int]) -> bool:
    """The details or the delete confirmation of one of ``keys`` is open."""
    return any(
        isinstance(s.dialog, (ExpenseDetailDialog, DeleteConfirmDialog)) and s.dialog.expense_id in keys
        for s in back_stack(dev, "expense")
    )


# ----------------------------------------------------------------------------- tasks


class _Expense(RowsTask):
    app = "expense"
    apps: ClassVar[tuple[str, ...]] = ("expense",)
    table = TABLE

    def placeholder_values(self, params: Params) -> dict[str, str]:
        names = [x["name"] for x in params.get("row_objects", [])]
        return {f"Name{i + 1}": n for i, n in enumerate(names)}


class _ExpenseAdd(_Expense, AddRows):
    template = "Add the following expenses into the {_APP_NAME}:\n{text_repr}"
    n_rows_noise = 10

    def generate(self, r: random.Random) -> Params:
        targets = random_items(r, self.n_rows, generate_expense)
        names = {t["name"] for t in targets}
        noise = random_items(r, self.n_rows_noise, generate_expense, keep=lambda x: x["name"] not in names)
        return {
            "row_objects": targets,
            "noise_row_objects": noise,
            "text_representation_type": r.choice(["csv", "text_block"]),
        }

    def instruction(self, params: Params) -> str:
        text = rows_as_text(params["row_objects"], params["text_representation_type"])
        return f"Add the following expenses into the {APP_NAME}:\n{text}"

    def add_step(self, o: Oracle, target: Row) -> str:
        return add_step(o, target)


def _saved_milestones(n: int) -> tuple[Milestone, ...]:
    return TABLE.saved_milestones(n, "Save the expense <Name{}>")


class ExpenseAddSingle(_ExpenseAdd):
    id = "ExpenseAddSingle"
    difficulty = "easy"
    optimal_steps = 6
    tags = ("parameterized", "data_entry", "search")
    n_rows = 1
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone("Open Expense Entry", lambda d, p: new_entry(d) is not None or saved(d, p["row_objects"][0])),
        *_saved_milestones(1),
    )


class ExpenseAddMultiple(_ExpenseAdd):
    id = "ExpenseAddMultiple"
    difficulty = "medium"
    optimal_steps = 20
    tags = ("data_entry", "parameterized")
    n_rows = 3
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects", "Name2": "row_objects", "Name3": "row_objects"}
    milestones = (Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")), *_saved_milestones(3))


def markor_file_open(dev: Device) -> bool:
    return file_open(dev, MARKOR_FILE)


class ExpenseAddMultipleFromMarkor(_ExpenseAdd):
    id = "ExpenseAddMultipleFromMarkor"
    apps = ("expense", "markor")
    difficulty = "hard"
    optimal_steps = 15
    tags = ("transcription", "repetition", "multi_app", "data_entry", "memorization", "parameterized")
    template = (
        "Go through the transactions in my_expenses.txt in Markor. "
        "Log the reimbursable transactions in the {_APP_NAME}."
    )
    n_rows = 2
    n_rows_noise = 100
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects", "Name2": "row_objects"}
    milestones = (
        Milestone(f"Open {MARKOR_FILE} in Markor", lambda d, p: markor_file_open(d) or saved(d, p["row_objects"][0])),
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense") or saved(d, p["row_objects"][0])),
        *_saved_milestones(2),
    )

    def instruction(self, params: Params) -> str:
        return (
            "Go through the transactions in my_expenses.txt in Markor. Log the "
            f"reimbursable transactions in the {APP_NAME}."
        )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        super().initialize(dev, params, r)
        targets = [{**x, "note": x["note"] + ". " + "Reimbursable."} for x in params["row_objects"]]
        items = targets + list(params["noise_row_objects"])
        r.shuffle(items)
        notes: MarkorData = dev.data("markor")
        notes.entries.clear()  # file_utils.clear_directory(MARKOR_DATA)
        notes.add(MARKOR_FILE, content=rows_as_text(items, "csv"), mtime=dev.state.now)

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if not markor_file_open(o.dev) and not saved(o.dev, p["row_objects"][0]):
            return open_file_step(o, MARKOR_FILE)
        return super().oracle(o)


#: ``ExpenseAddMultipleFromGallery``'s pictures (``write_to_gallery``: into /sdcard/DCIM), below /sdcard
GALLERY_PICTURE = "DCIM/expenses.jpg"
GALLERY_NOISE = tuple(f"DCIM/old_expenses_{i}.jpg" for i in range(10))
GALLERY_WRAP = 60  # the text blocks' wrap width


class ExpenseAddMultipleFromGallery(_ExpenseAdd):
    """``ExpenseAddMultipleFromGallery``: three expenses shown in a picture, ``expenses.jpg`` in
    Simple Gallery Pro (the rows as text blocks, wrapped at 60), among ten pictures of the ten
    noise rows (``old_expenses_0.jpg`` ... ``old_expenses_9.jpg``, each showing all of them, whose
    rows the table holds already); the check is ExpenseAddMultiple's. The set-up clears the
    phone's storage first (``clear_device_storage``) and writes the pictures in that order, a second
    apart, ``expenses.jpg`` first (the gallery shows the newest first)."""

    id = "ExpenseAddMultipleFromGallery"
    apps = ("expense", "gallery")
    difficulty = "hard"
    optimal_steps = 10
    tags = ("multi_app", "screen_reading", "data_entry", "information_retrieval", "parameterized")
    template = "Add the expenses from expenses.jpg in Simple Gallery Pro to {_APP_NAME}."
    n_rows = 3
    n_rows_noise = 10
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects", "Name2": "row_objects", "Name3": "row_objects"}
    milestones = (
        Milestone(
            "Open expenses.jpg in Simple Gallery Pro",
            lambda d, p: viewed(d, GALLERY_PICTURE) or saved(d, p["row_objects"][0]),
        ),
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense") or saved(d, p["row_objects"][0])),
        *_saved_milestones(3),
    )

    def instruction(self, params: Params) -> str:
        return f"Add the expenses from expenses.jpg in Simple Gallery Pro to {APP_NAME}."

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        super().initialize(dev, params, r)
        clear_device_storage(dev)
        store, now = media(dev), dev.state.now
        shown = [(GALLERY_PICTURE, params["row_objects"])] + [(p, params["noise_row_objects"]) for p in GALLERY_NOISE]
        for k, (path, items) in enumerate(shown):
            lines = rows_as_text(items, "text_block", GALLERY_WRAP).split("\n")
            store.add_image(path, lines, now - dt.timedelta(seconds=len(shown) - k))

    def oracle(self, o: Oracle) -> str:
        p = o.p
        if not viewed(o.dev, GALLERY_PICTURE) and not saved(o.dev, p["row_objects"][0]):
            act = view_step(o, GALLERY_PICTURE)
            if act is not None:
                return act
        return super().oracle(o)


class _ExpenseDelete(_Expense, DeleteRows):
    template = "Delete the following expenses from {_APP_NAME}: {expense_names_str}."

    def generate(self, r: random.Random) -> Params:
        items = distinct_items(r, self.n_rows + self.n_rows_noise, generate_expense, "name")
        if self.n_rows_noise > 0:
            return {"row_objects": items[: self.n_rows], "noise_row_objects": items[self.n_rows :]}
        return {"row_objects": items}

    def instruction(self, params: Params) -> str:
        names = ", ".join(x["name"] for x in params["row_objects"])
        return f"Delete the following expenses from {APP_NAME}: {names}."

    def oracle(self, o: Oracle) -> str:
        # One at a time in the instruction's order, the order its milestones are annotated in.
        left = self.left(o.dev, o.p)
        return delete_step(o, left[:1]) if left else o.finish()


gone = TABLE.gone


class ExpenseDeleteSingle(_ExpenseDelete):
    id = "ExpenseDeleteSingle"
    difficulty = "easy"
    optimal_steps = 3
    tags = ("screen_reading", "parameterized")
    n_rows = 1
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone("Open the details of <Name1>", lambda d, p: details_open(d, [1]) or gone(d, p, 0)),
        Milestone("Delete the expense <Name1>", lambda d, p: gone(d, p, 0)),
    )


def _gone_milestones(n: int) -> tuple[Milestone, ...]:
    return TABLE.gone_milestones(n, "Delete the expense <Name{}>")


class ExpenseDeleteMultiple(_ExpenseDelete):
    id = "ExpenseDeleteMultiple"
    difficulty = "easy"
    optimal_steps = 10
    tags = ("data_edit", "parameterized")
    n_rows = 3
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects", "Name2": "row_objects", "Name3": "row_objects"}
    milestones = (Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")), *_gone_milestones(3))


class ExpenseDeleteMultiple2(_ExpenseDelete):
    id = "ExpenseDeleteMultiple2"
    difficulty = "hard"
    optimal_steps = 17
    tags = ("screen_reading", "parameterized")
    n_rows = 3
    n_rows_noise = 50
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects", "Name2": "row_objects", "Name3": "row_objects"}
    milestones = (Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")), *_gone_milestones(3))


class _ExpenseDeleteDuplicates(_Expense, DeleteDuplicateRows):
    template = (
        "Delete all but one of any expenses in {_APP_NAME} that are exact duplicates, ensuring at least one "
        "instance of each unique expense remains."
    )
    difficulty = "medium"
    n_rows_noise = 5
    placeholders: ClassVar[dict[str, str]] = {"Name1": "row_objects"}
    milestones = (
        Milestone("Open the Pro Expense app", lambda d, p: in_app(d, "expense")),
        Milestone(
            "Open the details of a duplicate <Name1>",
            lambda d, p: (
                details_open(d, _ExpenseDeleteDuplicates.keys(p)) or _ExpenseDeleteDuplicates.one_removed(d, p)
            ),
        ),
        Milestone("Delete one duplicate <Name1>", lambda d, p: _ExpenseDeleteDuplicates.one_removed(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        items = random_items(r, self.n_rows_noise + 1, generate_expense)
        target = items.pop()
        return {"row_objects": [target, dict(target)], "noise_row_objects": items}

    def instruction(self, params: Params) -> str:
        return (
            f"Delete all but one of any expenses in {APP_NAME} that are exact duplicates, ensuring at least one "
            "instance of each unique expense remains."
        )

    def delete_step(self, o: Oracle, keys: Sequence[int]) -> str:
        return delete_step(o, keys)


class ExpenseDeleteDuplicates(_ExpenseDeleteDuplicates):
    id = "ExpenseDeleteDuplicates"
    optimal_steps = 6
    tags = ("data_edit", "parameterized")
    n_rows_noise = 5


class ExpenseDeleteDuplicates2(_ExpenseDeleteDuplicates):
    id = "ExpenseDeleteDuplicates2"
    optimal_steps = 9
    tags = ("data_edit", "requires_setup", "parameterized")
    n_rows_noise = 40

    def generate(self, r: random.Random) -> Params:
        noise = random_items(r, self.n_rows_noise + 1 - 3, generate_expense)
        target = noise.pop()
        perturbations = r.sample(range(50, 1000), 3)
        variations = []
        for extra in perturbations:
            created = random_timestamp(r) * 1000
            modified = random_timestamp(r) * 1000
            variations.append(
                {**target, "amount": target["amount"] + extra, "created_date": created, "modified_date": modified}
            )
        return {"row_objects": [target, dict(target)], "noise_row_objects": noise + variations}


TEMPLATES = (
    ExpenseAddMultiple,
    ExpenseAddMultipleFromGallery,
    ExpenseAddMultipleFromMarkor,
    ExpenseAddSingle,
    ExpenseDeleteDuplicates,
    ExpenseDeleteDuplicates2,
    ExpenseDeleteMultiple,
    ExpenseDeleteMultiple2,
    ExpenseDeleteSingle,
)
