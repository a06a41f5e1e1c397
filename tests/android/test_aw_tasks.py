"""AndroidWorld's information-retrieval tasks on Tasks.org, and the app's ``tasks`` database.

The oracle answers every instance 0-29 through the env; doing nothing or a near miss fails; the
start states are AndroidWorld's (digests of the rows its own set-up inserts, recorded by
``androidworld_questions_record.py``); the app's rows are the real ``tasks`` table and are served
at ``/data/data/org.tasks/databases/database``; the list hides completed and not yet started
tasks until its filters show them, as Tasks.org does.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from _aw import answer_episode

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import Action
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.tasks.app import ListOptions, TaskList, row_subtitle
from gui_gym.android.sim.apps.tasks.data import Task, TasksData, ms
from gui_gym.android.sim.apps.tasks.questions import TEMPLATES
from gui_gym.android.sim.apps.tasks.storage import DATABASE, TASKS, decode, encode, rows
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.storage import StorageError
from gui_gym.android.sim.tasks import TASKS as ALL
from gui_gym.android.sim.tasks import information as ir
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME

IDS = [t.id for t in TEMPLATES]
SEEDS = range(30)
STATES = json.loads((Path(__file__).parent / "fixtures" / "androidworld" / "question_states.json").read_text())


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_answers_every_instance_from_the_screen(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    task = ALL[task_id]
    for seed in SEEDS:
        info, shown = answer_episode(env, seed)
        assert info["success"] is True and info["progress"] == 1.0, f"seed {seed}"
        if task_id != "TasksDueNextWeek":  # a count: its tasks show, the number is counted
            for title in task.expected(env.unwrapped.params):
                assert title in shown, f"seed {seed}: {title!r} was not on screen when the oracle answered"
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_doing_nothing_fails(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    for seed in range(3):
        env.reset(options={"params": {"seed": seed}})
        *_, term, _, info = env.step("finish()")
        assert term and info["success"] is False
        assert not ALL[task_id].check(env.unwrapped.device, env.unwrapped.params, None, "complete")
    env.close()


def _start(task_id: str, seed: int) -> tuple[Device, dict[str, Any]]:
    task, dev = ALL[task_id], Device()
    params = task.sample_seed(seed)
    dev.reset(now=task.clock(np.random.default_rng(0)))
    task.setup(dev, params, np.random.default_rng(0))
    return dev, params


@pytest.mark.parametrize("task_id", IDS)
def test_near_misses_fail(task_id: str) -> None:
    """One title short, one too many (a title repeated counts as another answer), another task's
    title, ``and`` in place of a comma: AndroidWorld's count of answers must match."""
    task = ALL[task_id]
    for seed in range(5):
        dev, p = _start(task_id, seed)
        want = [str(int(x)) if isinstance(x, int) else x for x in task.expected(p)]
        assert task.check(dev, p, ", ".join(want), "complete")
        assert task.check(dev, p, ", ".join(w.upper() for w in want), "complete")  # fuzzy, case-blind
        if task_id == "TasksDueNextWeek":
            assert task.check(dev, p, "6.0", None) and not task.check(dev, p, "six", None)
            assert not task.check(dev, p, "5", None) and not task.check(dev, p, "6, 6", None)
            continue
        other = next(t.name for t in dev.data("tasks").tasks if t.name not in want)
        assert not task.check(dev, p, ", ".join([*want, want[0]]), "complete")
        assert not task.check(dev, p, ", ".join([*want[:-1], other]), "complete")
        if len(want) > 1:
            assert not task.check(dev, p, ", ".join(want[:-1]), "complete")
            assert not task.check(dev, p, " and ".join(want), "complete")


@pytest.mark.parametrize("task_id", IDS)
def test_start_states_are_androidworlds(task_id: str) -> None:
    """The rows inserted at the start, in order, are those of AndroidWorld's own set-up."""
    for seed in STATES["seeds"]:
        dev, _ = _start(task_id, seed)
        assert ir_digest(rows(dev.data("tasks"))) == STATES["tasks"][task_id][str(seed)], f"seed {seed}"


def ir_digest(table: list[dict[str, Any]]) -> str:
    import hashlib

    plain = [{k: v for k, v in r.items() if k not in STATES["left_out"]} for r in table]
    return hashlib.sha256(json.dumps(plain, sort_keys=True).encode()).hexdigest()


def test_a_hand_worked_instance() -> None:
    """TasksHighPriorityTasksDueOnDate, instance 0 (AndroidWorld: ``task_app_utils``'s
    ``create_task_from_proto``): "October 28 2023" at "3:30pm" is 1698507000 s, so dueDate
    1698507000000 ms; ``created`` is ``dueDate - 7 * 3600`` (the "one week" in the wrong unit);
    importance "0" is Tasks.org's high priority; no hide-until, no completion."""
    dev, p = _start("TasksHighPriorityTasksDueOnDate", 0)
    assert p["date"] == "October 28 2023" and p["time"] == "3:30pm"
    (t,) = [t for t in dev.data("tasks").tasks if t.uid in p["relevant_ids"]]
    assert (t.name, t.importance, t.dueDate, t.created, t.modified) == (
        "Marketing Campaign Launch",
        0,
        1698507000000,
        1698507000000 - 25200,
        1698507000000 - 25200,
    )
    assert (t.hideUntil, t.completed, t.notes, t.has_due_time) == (0, 0, None, False)
    assert row_subtitle(t, DEVICE_TIME.date()) == "Sat, Oct 28 · High priority"


def test_without_replacement_draws_and_reworded_dates() -> None:
    """``_without_replacement`` slots draw values not used yet (``_remove_used_params``: one
    occurrence each time; the parameter's own value is removed twice, once by
    ``format_relevant_state_with_params`` and once by ``format_state_with_params``, so with every
    level listed twice the drawn ``importance`` never appears in the rows); every date parameter
    is reworded, relative to Sunday 2023-10-15 (``datetime_utils._generate_nl_date_options``)."""
    d = ir.definition("TasksDueOnDate")
    for seed in range(20):
        r = random.Random(seed)
        params = ir.draw_params(d, r)
        levels = [row["importance"] for row in ir.initialize_proto(d, params, random.Random(seed))[0]]
        assert params["importance"] not in levels and max(levels.count(x) for x in levels) <= 2
    assert ir.date_options("October 16 2023") == [
        "October 16",
        "October 16 2023",
        "tomorrow",
        "Monday",
        "this Monday",
    ]
    assert ir.date_options("October 14 2023") == ["October 14", "October 14 2023", "yesterday", "Saturday"]
    assert ir.date_options("October 24 2023")[-1] == "the Tuesday after next"


# ----------------------------------------------------------------------------- the app


def _list(dev: Device) -> list[str]:
    return [n.label for n in dev.elements() if n.role == "row"]


def test_the_list_hides_completed_and_unstarted_tasks_until_its_filters_show_them() -> None:
    dev = Device()
    dev.reset(now=DEVICE_TIME)
    data: TasksData = dev.data("tasks")
    now = ms(DEVICE_TIME)
    data.add(Task("Open", importance=1, dueDate=now))
    data.add(Task("Done", completed=now - 1000))
    data.add(Task("Later", hideUntil=now + 3600_000))
    data.add(Task("Gone", deleted=now - 1000))
    dev.launch("tasks")
    assert _list(dev) == ["Open"]
    for item, expected in (("Show completed", ["Open", "Done"]), ("Show unstarted", ["Open", "Later", "Done"])):
        _tap(dev, desc="More options")
        assert isinstance(dev.top_screen().dialog, ListOptions)
        checked = {n.text: n.checked for n in dev.elements() if n.role == "menuitem"}
        assert checked == {
            "Clear completed": False,
            "Show completed": item == "Show unstarted",
            "Show unstarted": False,
        }
        _tap(dev, text=item)
        assert _list(dev) == expected and isinstance(dev.top_screen(), TaskList)


def _tap(dev: Device, text: str | None = None, desc: str | None = None) -> None:
    n = next(n for n in dev.elements() if (text is None or n.text == text) and (desc is None or n.desc == desc))
    dev.act(Action("tap", element=n.bounds))


def test_rows_as_the_app_stores_them() -> None:
    """Tasks.org's columns: a due date without a time at noon with 0 seconds; a NULL title and
    NULL notes kept; the columns not modelled kept as a pushed row set them."""
    data = TasksData()
    t = data.new("Pay rent", DEVICE_TIME, due=dt.date(2023, 10, 20), priority=3)
    row = TASKS.decode(encode(data))[0]
    assert (row["_id"], row["title"], row["importance"], row["notes"], row["order"], row["deleted"]) == (
        1,
        "Pay rent",
        0,
        "",
        None,
        0,
    )
    assert row["dueDate"] == 1697803200000 and row["dueDate"] % 60000 == 0 and not t.has_due_time  # 2023-10-20 12:00
    assert row["created"] == row["modified"] == 1697384040000 and row["remoteId"]  # 2023-10-15 15:34


def test_a_database_pushed_over_adb_becomes_the_apps_data(tmp_path: Path) -> None:
    """AndroidWorld's ``sqlite_utils``: pull the folder, insert rows without ``_id`` (all 22 of its
    ``Task`` fields), push the file back; the app lists them."""
    dev = Device()
    dev.reset(now=DEVICE_TIME)
    sh = Shell(dev)
    assert sh.run(f"ls {DATABASE.folder} -ll -au").stdout.decode().rstrip().endswith(" database")
    f = tmp_path / "database"
    f.write_bytes(sh.files[DATABASE.path])
    con = sqlite3.connect(f)
    cols = [c.name for c in TASKS.columns if c.name != "_id"]
    values = {c.name: c.default for c in TASKS.columns if c.name != "_id"}
    values.update(title=None, importance=0, dueDate=1697414400000, remoteId="7", recurrence=None, elapsedSeconds=30)
    names = ", ".join(f'"{c}"' for c in cols)
    con.execute(f"INSERT INTO tasks ({names}) VALUES ({', '.join('?' for _ in cols)})", [values[c] for c in cols])
    con.commit()
    con.close()
    assert sh.write(DATABASE.path, f.read_bytes()) is None
    sh.run("true")
    (t,) = dev.data("tasks").tasks
    assert (t.uid, t.title, t.importance, t.due, t.extra) == (1, None, 0, dt.date(2023, 10, 16), {"elapsedSeconds": 30})
    assert decode(encode(dev.data("tasks"))) == dev.data("tasks")
    loose = tmp_path / "loose"  # a table without the app's NOT NULLs, holding a NULL importance
    con = sqlite3.connect(loose)
    con.execute("CREATE TABLE tasks ({})".format(", ".join(f'"{c.name}"' for c in TASKS.columns)))
    con.execute('INSERT INTO tasks ("_id", "title") VALUES (1, "x")')
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="NULL"):
        decode(loose.read_bytes())
