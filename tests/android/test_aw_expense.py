"""AndroidWorld's Pro Expense tasks on the simulated phone (``apps/expense/androidworld.py``): the
oracle solves AndroidWorld's instances 0-29 through the env, idling and near misses fail, the start
state is the ``expense`` table AndroidWorld writes, ``accounting.db`` round-trips, and the editor
keeps the real app's input rules."""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from pathlib import Path

import pytest
from _aw import make, solve, start

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import parse_action
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.expense.androidworld import (
    MARKOR_FILE,
    TEMPLATES,
    addition_ok,
    amount_dollars,
    generate_expense,
    rows_as_text,
)
from gui_gym.android.sim.apps.expense.app import ExpenseEntry, Home
from gui_gym.android.sim.apps.expense.data import Expense, ExpenseData, ms
from gui_gym.android.sim.apps.expense.storage import DATABASE, EXPENSE, decode, encode, rows
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.storage import StorageError
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME, fuzzy_match

IDS = [t.id for t in TEMPLATES]
ADD = [i for i in IDS if "Add" in i]
DELETE = [i for i in IDS if "Delete" in i]


@pytest.mark.parametrize("task_id", IDS)
def test_start_state_is_androidworlds_table(task_id: str) -> None:
    """The served ``accounting.db`` holds AndroidWorld's rows, keys 1.. in insertion order (the
    noise first, then a deletion task's targets: ``SQLiteApp`` / ``DeleteMultipleRows``)."""
    env = make(task_id)
    for seed in (0, 7):
        _, dev = start(env, seed)
        p = env.unwrapped.params
        inserted = p.get("noise_row_objects", []) + (p["row_objects"] if task_id in DELETE else [])
        assert EXPENSE.decode(encode(dev.data("expense"))) == [
            {**x, "expense_id": i} for i, x in enumerate(inserted, 1)
        ]


def test_markor_holds_the_transactions() -> None:
    """``my_expenses.txt`` alone in Markor's folder: the csv of the shuffled rows, the targets' notes
    ending in ". Reimbursable." (``ExpenseAddMultipleFromMarkor.initialize_task``), no final newline."""
    env = make("ExpenseAddMultipleFromMarkor")
    _, dev = start(env, 2)
    p = env.unwrapped.params
    notes = dev.data("markor")
    assert list(notes.entries) == [MARKOR_FILE]
    lines = notes.get(MARKOR_FILE).content.split("\n")
    assert lines[0] == "name|amount_dollars|category_name|note" and len(lines) == 1 + 2 + 100
    for x in p["row_objects"]:
        assert rows_as_text([{**x, "note": x["note"] + ". Reimbursable."}], "csv").split("\n")[1] in lines
    assert sum(line.endswith(". Reimbursable.") for line in lines) == 2


def _after_oracle(task_id: str, seed: int) -> tuple[dict, Device]:
    env = make(task_id)
    start(env, seed)
    solve(env)
    return env.unwrapped.params, env.unwrapped.backend.device


@pytest.mark.parametrize("task_id", ADD)
def test_add_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    p, dev = _after_oracle(task_id, 3)
    data: ExpenseData = dev.data("expense")
    assert task.check(dev, p, None, "complete")
    new = data.expenses[-1]
    wrong_category = new.category % 11 + 1
    for field, wrong in (("amount", new.amount + 1), ("category", wrong_category), ("name", "Lunch"), ("note", "x")):
        right = getattr(new, field)
        setattr(new, field, wrong)
        assert not task.check(dev, p, None, "complete"), field
        setattr(new, field, right)
        assert task.check(dev, p, None, "complete")
    data.add(Expense("Coffee", 500, 3, "", 0, 0))  # one more than asked
    assert not task.check(dev, p, None, "complete")
    data.expenses.pop()
    data.expenses[0].note = "Moved"  # a noise row changed while adding
    assert not task.check(dev, p, None, "complete")


def test_copying_the_reimbursable_suffix_fails() -> None:
    """AndroidWorld checks the original notes: "Paid by card. Reimbursable." against "Paid by card"
    is a difflib ratio of 2 x 12 / (27 + 12) = 0.62 < 0.9 (``fuzzy_match_lib``), while the line
    break a typed Enter leaves in the note passes (2 x 6 / 13 = 0.92)."""
    assert not fuzzy_match("Paid by card", "Paid by card. Reimbursable.")
    assert fuzzy_match("A need", "A need\n")
    task = TASKS["ExpenseAddMultipleFromMarkor"]
    p, dev = _after_oracle(task.id, 1)
    assert task.check(dev, p, None, "complete")
    new = dev.data("expense").expenses[-1]
    new.note += ". Reimbursable."
    assert not task.check(dev, p, None, "complete")


@pytest.mark.parametrize("task_id", ["ExpenseDeleteSingle", "ExpenseDeleteMultiple", "ExpenseDeleteMultiple2"])
def test_delete_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    env = make(task_id)
    _, dev = start(env, 4)
    p = env.unwrapped.params
    data: ExpenseData = dev.data("expense")
    n_noise = len(p.get("noise_row_objects", []))
    targets = list(range(n_noise + 1, n_noise + 1 + len(p["row_objects"])))
    for key in targets[:-1]:  # all targets but one
        data.remove(key)
    assert not task.check(dev, p, None, "complete")
    last = data.remove(targets[-1])
    assert task.check(dev, p, None, "complete")
    data.expenses.append(last)  # the last target back, a noise row gone instead
    if n_noise:
        data.remove(1)
        assert not task.check(dev, p, None, "complete")
        data.expenses.remove(last)
        assert not task.check(dev, p, None, "complete")
        data.expenses.clear()  # everything gone
        assert not task.check(dev, p, None, "complete")


@pytest.mark.parametrize("task_id", ["ExpenseDeleteDuplicates", "ExpenseDeleteDuplicates2"])
def test_duplicates_near_misses_fail(task_id: str) -> None:
    task = TASKS[task_id]
    env = make(task_id)
    _, dev = start(env, 5)
    p = env.unwrapped.params
    data: ExpenseData = dev.data("expense")
    first, second = len(p["noise_row_objects"]) + 1, len(p["noise_row_objects"]) + 2
    kept = data.remove(second)
    assert task.check(dev, p, None, "complete")  # either one of the two may go
    data.expenses.append(kept)
    data.remove(first)
    assert task.check(dev, p, None, "complete")
    data.remove(second)  # both gone
    assert not task.check(dev, p, None, "complete")
    data.expenses.append(kept)
    if task_id == "ExpenseDeleteDuplicates2":  # a near duplicate (another amount and date) is no duplicate
        variant = next(e for e in data.expenses if e.name == kept.name and e.amount != kept.amount)
        data.remove(variant.expense_id)
        assert not task.check(dev, p, None, "complete")


def test_draws_and_texts_as_androidworld_writes_them() -> None:
    """``_generate_expense`` draws the time first: instance 0 of ExpenseDeleteSingle is dated
    October 14, 12:00 UTC = 1697241600 (that day's midnight, 19644 days x 86400) + 12 x 3600 s,
    in milliseconds; ``amount_dollars`` is Python's float text of cents / 100."""
    row = generate_expense(random.Random(0))
    assert row["created_date"] == row["modified_date"] == (19644 * 86400 + 12 * 3600) * 1000 == 1697284800000
    assert TASKS["ExpenseDeleteSingle"].sample_seed(0)["row_objects"] == [row]
    assert [amount_dollars({"amount": a}) for a in (5740, 10000, 1005)] == ["$57.4", "$100.0", "$10.05"]
    x = {"name": "Taxi Fare", "amount": 17968, "category": 7, "note": "A need"}
    assert rows_as_text([x], "csv") == "name|amount_dollars|category_name|note\nTaxi Fare|$179.68|Transportation|A need"
    assert (
        rows_as_text([x, x], "text_block")
        == ("Expense: Taxi Fare\n amount_dollars: $179.68\n category_name: Transportation\n note: A need\n\n" * 2)[:-1]
    )
    before = [{**x, "name": "Gas", "created_date": 0, "modified_date": 0, "expense_id": 1}]
    typed = {**before[0], "name": "taxi fare", "note": "A need\n", "expense_id": 2}
    assert addition_ok(before, [*before, typed], [x])  # name and note fuzzy
    assert not addition_ok(before, [*before, {**typed, "amount": 17969}], [x])  # cents exact


# -- accounting.db ------------------------------------------------------------------------------


def _expenses() -> ExpenseData:
    data = ExpenseData()
    data.add(Expense("Taxi Fare", 17968, 7, "A need", 1697284800000, 1697284800000))
    data.add(Expense(None, 5740, 3, None, 1697355240000, 1697241600000))  # NULL name and note
    data.add(Expense("Salary", 10000, 2, "", 1697000000000, 1697000000000))
    return data


def test_storage_round_trip(tmp_path: Path) -> None:
    """rows -> the SQLite file the app keeps -> rows, with Room's schema and NULLs kept."""
    data = _expenses()
    f = tmp_path / "accounting.db"
    f.write_bytes(encode(data))
    con = sqlite3.connect(f)
    con.row_factory = sqlite3.Row
    table = [dict(r) for r in con.execute("SELECT * FROM expense")]  # as AndroidWorld's list_rows reads it
    ddl = con.execute("SELECT sql FROM sqlite_master WHERE name = 'expense'").fetchone()[0]
    con.close()
    assert table == rows(data)
    assert table[1] == {
        "expense_id": 2,
        "name": None,
        "amount": 5740,
        "category": 3,
        "note": None,
        "created_date": 1697355240000,
        "modified_date": 1697241600000,
    }
    assert '"expense_id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL' in ddl and '"name" TEXT,' in ddl
    back = decode(f.read_bytes())
    assert back == data and rows(back) == table and back.next_id == 4


def test_pushed_database_becomes_the_apps_data(tmp_path: Path) -> None:
    """AndroidWorld's ``sqlite_utils``: pull, ``DELETE FROM expense``, insert without the key, clear
    the folder, push; a file the app could not open is refused and changes nothing."""
    dev = Device()
    dev.state.data["expense"] = _expenses()
    sh = Shell(dev)
    listing = sh.run(f"ls {DATABASE.folder} -ll -au")
    assert listing.status == 0 and listing.stdout.decode().rstrip().endswith(" accounting.db")
    f = tmp_path / "accounting.db"
    f.write_bytes(sh.files[DATABASE.path])
    con = sqlite3.connect(f)
    con.execute("DELETE FROM expense")
    con.execute(
        'INSERT INTO expense ("name", "amount", "category", "note", "created_date", "modified_date") '
        "VALUES (?, ?, ?, ?, ?, ?)",
        ("Gas", 2500, 7, "Urgent", 1697295600000, 1697295600000),
    )
    con.commit()
    con.close()
    assert sh.run(f"rm -r {DATABASE.folder}/*").status == 0
    assert dev.data("expense").expenses == []
    assert sh.write(DATABASE.path, f.read_bytes()) is None
    sh.run("true")  # the next command reads it in
    (gas,) = dev.data("expense").expenses
    assert (gas.expense_id, gas.name, gas.amount, gas.category) == (4, "Gas", 2500, 7)  # AUTOINCREMENT goes on
    problem = sh.write(DATABASE.path, b"garbage")
    assert problem is not None and "not a database Pro Expense can open" in problem
    assert dev.data("expense").expenses == [gas]


@pytest.mark.parametrize(
    "sql, why",
    [
        ("UPDATE expense SET amount = NULL WHERE expense_id = 1", "hold NULL"),
        ("UPDATE expense SET category = 'Food' WHERE expense_id = 1", "holds 'Food'"),
        ("UPDATE expense SET name = X'41' WHERE expense_id = 1", "stores text"),
        ("ALTER TABLE expense DROP COLUMN note", "lacks the column"),
    ],
)
def test_databases_the_app_could_not_read_are_refused(tmp_path: Path, sql: str, why: str) -> None:
    f = tmp_path / "accounting.db"
    f.write_bytes(encode(_expenses()))
    con = sqlite3.connect(f)
    con.execute("PRAGMA ignore_check_constraints = 1")
    if "NULL" in sql:  # Room's file forbids it; a hand-made one may not
        con.executescript(
            "CREATE TABLE t AS SELECT * FROM expense; DROP TABLE expense; ALTER TABLE t RENAME TO expense;"
        )
    con.execute(sql)
    con.commit()
    con.close()
    with pytest.raises(StorageError, match=why):
        decode(f.read_bytes())


# -- the editor as the real app has it ------------------------------------------------------------


def _editor() -> Device:
    dev = Device()
    dev.reset(now=DEVICE_TIME)
    dev.launch("expense")
    dev.push(ExpenseEntry(dev, None))
    return dev


def _do(dev: Device, action: str) -> str:
    out = dev.act(parse_action(action))
    assert out.valid, (action, out.description)
    return out.description


def test_the_editor_filters_what_is_typed_and_dates_the_expense() -> None:
    """``FloatingInputFilter`` drops every key that would not leave a number of up to 8 digits and
    2 decimals (``$`` and ``,`` of "$1,234.567" go, and so does the third decimal); the name keeps
    20 characters; a new expense is created now and dated at the picked day."""
    dev = _editor()
    s = dev.top_screen()
    assert isinstance(s, ExpenseEntry) and s.focus == "name" and s.category == 3  # Food first
    _do(dev, 'do(action="Type", text="A very long expense name")')
    _do(dev, 'do(action="Type", text="$1,234.567")')
    assert s.form["name"] == "A very long expense " and s.form["amount"] == "1234.56"
    s.on_date(dev, dt.date(2023, 10, 3))
    _do(dev, f'do(action="Tap", element={list(next(n for n in dev.elements() if n.rid.endswith("btn_save")).bounds)})')
    (e,) = dev.data("expense").expenses
    assert (e.amount, e.category, e.note) == (123456, 3, "")
    assert ms(DEVICE_TIME) < e.created_date <= ms(dev.state.now)  # the moment it was saved
    assert e.modified_date == ms(dt.datetime(2023, 10, 3, 15, 34))
    assert isinstance(dev.top_screen(), Home)


def test_an_empty_amount_is_not_saved_and_editing_keeps_the_creation_time() -> None:
    dev = _editor()
    s = dev.top_screen()
    assert "Cost is Empty" in s._save(dev) and s.error == "Cost is Empty"
    assert dev.data("expense").expenses == []
    data: ExpenseData = dev.data("expense")
    old = data.add(Expense("Gas", 2500, 7, None, 1697295600000, 1697295600000))
    dev.pop()
    dev.push(ExpenseEntry(dev, old))
    edit = dev.top_screen()
    assert edit.form["amount"] == "25" and edit.order[0] == 7  # the chosen category first
    edit.form["amount"] = "26.5"
    edit._save(dev)
    assert (old.amount, old.created_date, old.modified_date, old.note) == (2650, 1697295600000, 1697295600000, "")


def test_the_home_screen_shows_recent_expenses_and_this_weeks_totals() -> None:
    dev = Device()
    dev.reset(now=DEVICE_TIME)  # Sunday: the week is today only
    data: ExpenseData = dev.data("expense")
    for day, cents, category in ((14, 1000, 3), (15, 2000, 3), (15, 3000, 2), (15, 450, 6), (13, 1, 1), (12, 2, 1)):
        t = ms(dt.datetime(2023, 10, day, 9))
        data.add(Expense(f"e{day}-{cents}", cents, category, "", t, t))
    dev.launch("expense")
    texts = {n.rid.rsplit("/", 1)[-1]: n.text for n in dev.elements() if n.rid}
    assert (texts["tv_income_value"], texts["tv_outcome_value"], texts["tv_date_range"]) == (
        "30",
        "24.5",
        "Oct 15 - 22",
    )
    names = [n.label for n in dev.elements() if n.rid.endswith("id/cd_expense")]
    assert names == ["e15-2000", "e15-3000", "e15-450", "e14-1000"]  # four, newest first, ties by key


def _tap(dev: Device, **where: str) -> str:
    node = next(
        n
        for n in dev.elements()
        if all(getattr(n, k) == v or (k == "rid" and n.rid.endswith(v)) for k, v in where.items())
    )
    return _do(dev, f'do(action="Tap", element={list(node.bounds)})')


def test_drawer_logs_details_and_update() -> None:
    """Home's drawer opens Expense Logs; a log's details lead to Update Data, which changes the
    expense in place (same key, same creation time) and says "Data Updated!"."""
    dev = Device()
    dev.reset(now=DEVICE_TIME)
    data: ExpenseData = dev.data("expense")
    for i in range(6):
        t = ms(dt.datetime(2023, 10, 1 + i, 9))
        data.add(Expense(f"Item {i}", 1000 + i, 3, "", t, t))
    dev.launch("expense")
    _tap(dev, desc="Open navigation drawer")
    _tap(dev, text="Expense Logs")
    assert type(dev.top_screen()).__name__ == "ExpenseLogs"
    assert [n.label for n in dev.elements() if n.rid.endswith("id/cd_expense")][:2] == ["Item 5", "Item 4"]
    _tap(dev, label="Item 0", rid=":id/cd_expense")
    _tap(dev, rid=":id/btn_edit")
    edit = dev.top_screen()
    assert isinstance(edit, ExpenseEntry) and edit.editing and edit.form["amount"] == "10"
    _tap(dev, label="Amount")
    _do(dev, 'do(action="Type", text="12.5")')
    _tap(dev, rid=":id/btn_save")
    e = data.by_id(1)
    assert (e.amount, e.created_date, e.name) == (1250, ms(dt.datetime(2023, 10, 1, 9)), "Item 0")
    assert dev.state.toast == "Data Updated!" and type(dev.top_screen()).__name__ == "ExpenseLogs"
