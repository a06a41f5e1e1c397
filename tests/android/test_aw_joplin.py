"""AndroidWorld's information-retrieval tasks on Joplin, and the app's ``joplin.sqlite``.

The oracle answers every instance 0-29 through the env, reading the answer off the screen; doing
nothing or a near miss fails; the start state follows AndroidWorld's draws (hand-checked below);
the notebooks and notes are the real tables, served at
``/data/data/net.cozic.joplin/databases/joplin.sqlite``.
"""

from __future__ import annotations

import random
import sqlite3
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from _aw import answer_episode

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import Action
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.joplin.app import NotesScreen, body_lines
from gui_gym.android.sim.apps.joplin.data import YESTERDAY_MS, JoplinData
from gui_gym.android.sim.apps.joplin.questions import TEMPLATES, folder_id, noise_notes, relevant_ids
from gui_gym.android.sim.apps.joplin.schema import NOTES
from gui_gym.android.sim.apps.joplin.storage import DATABASE, decode, encode
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.storage import StorageError
from gui_gym.android.sim.tasks import TASKS as ALL

IDS = [t.id for t in TEMPLATES]
SEEDS = range(30)


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_answers_every_instance_from_the_screen(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    task = ALL[task_id]
    for seed in SEEDS:
        info, shown = answer_episode(env, seed)
        assert info["success"] is True and info["progress"] == 1.0, f"seed {seed}"
        p = env.unwrapped.params
        if task_id == "NotesMeetingAttendeeCount":  # the count is in the body on screen
            assert any(str(int(task.expected(p)[0])) in s for s in shown), f"seed {seed}"
        if task_id == "NotesRecipeIngredientCount":
            assert any(f"{p['ingredient_quantity']} {p['ingredient']}" in s for s in shown), f"seed {seed}"
        if task_id in ("NotesIsTodo", "NotesTodoItemCount"):
            assert p["title" if task_id == "NotesIsTodo" else "notebook"] in shown, f"seed {seed}"
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


def test_near_misses_fail() -> None:
    """The other truth value, another count, a neighbouring quantity, two answers for one."""
    for seed in range(5):
        dev, p = _start("NotesIsTodo", seed)
        task = ALL["NotesIsTodo"]
        want = p["is_todo"]
        other = "False" if want == "True" else "True"
        assert task.check(dev, p, want.lower(), None) and not task.check(dev, p, other, None)
        assert not task.check(dev, p, f"{want}, {want}", None)

        dev, p = _start("NotesMeetingAttendeeCount", seed)
        task, n = ALL["NotesMeetingAttendeeCount"], int(p["attendee_count"])
        assert task.check(dev, p, f"{n}.0", None)
        assert not task.check(dev, p, str(n + 5), None) and not task.check(dev, p, f"{n} people", None)

        dev, p = _start("NotesRecipeIngredientCount", seed)
        task = ALL["NotesRecipeIngredientCount"]
        assert task.check(dev, p, p["ingredient_quantity"].upper(), None)
        assert not task.check(dev, p, f"{p['ingredient_quantity']} {p['ingredient']} and more", None)
        assert not task.check(dev, p, "1 pinch", None)

        dev, p = _start("NotesTodoItemCount", seed)
        task = ALL["NotesTodoItemCount"]
        assert task.check(dev, p, "3", None)
        assert not task.check(dev, p, "2", None) and not task.check(dev, p, "three", None)


def test_the_todo_count_is_the_notebooks_todos() -> None:
    """``NotesTodoItemCount``'s exclusions (to-do AND in the notebook) leave no other to-do in the
    notebook: the answer, 3, is what the notebook's list shows."""
    for seed in range(10):
        dev, p = _start("NotesTodoItemCount", seed)
        db: JoplinData = dev.data("joplin")
        assert sum(n["is_todo"] for n in db.notes_in(folder_id(dev, p))) == 3


def test_a_hand_worked_instance() -> None:
    """NotesRecipeIngredientCount, instance 0. AndroidWorld (``joplin_app_utils.setup_task_state``)
    draws 100 noise notes first, then appends the relevant note and shuffles: 101 notes, and
    one folder per notebook used. Each noise
    draw is ``random()`` < 0.3 (a relevant notebook), a notebook, ``choice([True, False])`` for the
    to-do flag, ``choice(["True", "False"])`` for completion (always drawn: the flag is a non-empty
    text), then the note. The relevant note is 'Lasagna' in "Recipes", not a to-do, its body
    holding "- 2 tablespoons almond flour"; its times are the day before the device's clock
    (``sqlite_schema_utils._YESTERDAY``: 2023-10-14 15:34 UTC = 1697297640000 ms)."""
    dev, p = _start("NotesRecipeIngredientCount", 0)
    db: JoplinData = dev.data("joplin")
    assert len(db.notes) == 101 and len(db.normalized) == 101
    (note,) = [n for n in db.notes if n["id"] in relevant_ids(dev, p)]
    assert (note["title"], db.folder_title(note["parent_id"]), note["is_todo"]) == ("Lasagna", "Recipes", 0)
    assert (
        "- 2 tablespoons almond flour\n" in note["body"] and note["user_updated_time"] == YESTERDAY_MS == 1697297640000
    )
    assert "• 2 tablespoons almond flour" in body_lines(note["body"])
    # the first noise draw, by hand: random() 0.844 (not a relevant notebook), then a notebook ...
    r = random.Random(0)
    assert r.random() >= 0.3 and r.choice(list(noise_notes())) == db.folders[0]["title"]


def test_the_database_is_joplins_and_round_trips() -> None:
    dev, p = _start("NotesIsTodo", 1)
    data: JoplinData = dev.data("joplin")
    raw = encode(data)
    con = sqlite3.connect(":memory:")
    con.deserialize(raw)
    cols = [r[1] for r in con.execute("PRAGMA table_info(notes)")]
    assert cols == list(NOTES.names) and "deleted_time" not in cols
    assert con.execute("SELECT count(*) FROM notes_normalized").fetchone()[0] == len(data.notes)
    (title,) = con.execute("SELECT title FROM notes WHERE id = ?", (relevant_ids(dev, p)[0],)).fetchone()
    assert title == p["title"]
    back = decode(raw)
    assert sorted(n["id"] for n in back.notes) == sorted(n["id"] for n in data.notes)
    assert DATABASE.path == "/data/data/net.cozic.joplin/databases/joplin.sqlite"
    # what Joplin could not read is refused
    con.execute("UPDATE notes SET is_todo = 'yes'")
    con.commit()
    with pytest.raises(StorageError):
        decode(con.serialize())


def test_a_database_pushed_over_adb_becomes_the_apps_data(tmp_path: Any) -> None:
    """AndroidWorld's ``sqlite_utils``: pull the file, delete every row, insert a folder (without
    ``deleted_time``) and a note with every ``JoplinNote`` column, push it back; the app lists it."""
    dev, _ = _start("NotesIsTodo", 2)
    sh = Shell(dev)
    assert sh.run(f"ls {DATABASE.folder}").stdout.decode().split() == ["joplin.sqlite"]
    f = tmp_path / "joplin.sqlite"
    f.write_bytes(sh.files[DATABASE.path])
    con = sqlite3.connect(f)
    for table in ("folders", "notes", "notes_normalized"):
        con.execute(f"DELETE FROM {table}")
    con.execute("INSERT INTO folders (title, id, created_time, updated_time) VALUES ('Work', 'f1', 1, 1)")
    cols = [c for c in NOTES.names]
    values = {c.name: c.default for c in NOTES.columns} | {"id": "n1", "parent_id": "f1", "title": "Plan"}
    values |= {"latitude": 0.0, "order": 0.0, "conflict_original_id": "", "is_todo": 1}
    con.execute(
        f"INSERT INTO notes ({', '.join(repr(c) for c in cols)}) VALUES ({', '.join('?' for _ in cols)})",
        [values[c] for c in cols],
    )
    con.commit()
    con.close()
    assert sh.write(DATABASE.path, f.read_bytes()) is None
    sh.run("true")
    db: JoplinData = dev.data("joplin")
    assert [(n["title"], db.folder_title(n["parent_id"]), n["is_todo"]) for n in db.notes] == [("Plan", "Work", 1)]


def test_the_side_menu_lists_the_notebooks() -> None:
    """The side menu: "All notes", then the notebooks by name; one tapped lists its notes, open
    to-dos first."""
    dev, p = _start("NotesTodoItemCount", 3)
    dev.launch("joplin")
    assert isinstance(dev.top_screen(), NotesScreen)
    _tap(dev, desc="Sidebar")
    items = [n.text for n in dev.elements() if n.role == "menuitem"]
    db: JoplinData = dev.data("joplin")
    assert items == ["All notes", *sorted((f["title"] for f in db.folders), key=str.lower)]
    _tap(dev, text=p["notebook"])
    rows = [n for n in dev.elements() if n.role == "row"]
    checks = [n for n in dev.elements() if n.role == "checkbox"]
    assert [n.label for n in rows[:3]] == [n.label for n in checks] and len(checks) == 3
    assert not any(n.checked for n in checks)


def _tap(dev: Device, text: str | None = None, desc: str | None = None) -> None:
    n = next(n for n in dev.elements() if (text is None or n.text == text) and (desc is None or n.desc == desc))
    dev.act(Action("tap", element=n.bounds))
