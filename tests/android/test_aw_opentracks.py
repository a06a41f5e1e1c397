"""AndroidWorld's information-retrieval tasks on OpenTracks, and the app's ``database.db``.

The oracle answers every instance 0-29 through the env, scrolling the track list past every
track of the answer; doing nothing or a near miss fails; a hand-worked instance checks
AndroidWorld's rounding of distances (the answer uses the rounded distance); the tracks are the
real ``tracks`` table, served at ``/data/data/de.dennisguse.opentracks/databases/database.db``.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from _aw import answer_episode

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.opentracks.app import TrackDetails, TrackList, category_line, distance_text, elapsed
from gui_gym.android.sim.apps.opentracks.data import MILE, OpenTracksData
from gui_gym.android.sim.apps.opentracks.questions import TEMPLATES, rounded_distance
from gui_gym.android.sim.apps.opentracks.schema import TRACKS
from gui_gym.android.sim.apps.opentracks.storage import DATABASE, decode, encode
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.storage import StorageError
from gui_gym.android.sim.tasks import TASKS as ALL

IDS = [t.id for t in TEMPLATES]
SEEDS = range(30)


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_answers_every_instance_from_the_screen(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    for seed in SEEDS:
        info, shown = answer_episode(env, seed)
        assert info["success"] is True and info["progress"] == 1.0, f"seed {seed}"
        db: OpenTracksData = env.unwrapped.device.data("opentracks")
        order = [x["_id"] for x in db.listed()]
        last = max(env.unwrapped.params["relevant_ids"], key=order.index)  # the lowest in the list
        t = db.by_id(last)
        assert t is not None
        assert t["name"] in shown and distance_text(t["totaldistance"]) in " ".join(shown), f"seed {seed}"
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
    """A number off by more than the tolerance (10 m for distances, none for counts and
    minutes), a category missing or repeated, a unit where a number is asked."""
    task = ALL[task_id]
    for seed in range(5):
        dev, p = _start(task_id, seed)
        answer = task.answer(p)
        assert task.check(dev, p, answer, "complete")
        if task_id == "SportsTrackerActivitiesOnDate":
            first, *rest = answer.split(", ")
            assert task.check(dev, p, answer.upper(), None)
            assert not task.check(dev, p, first, None) or not rest
            assert not task.check(dev, p, f"{answer}, {first}", None)
            continue
        n = float(answer)
        assert not task.check(dev, p, f"{answer} minutes", None)
        if "Distance" in task_id:
            assert task.check(dev, p, str(n + 9), None) and not task.check(dev, p, str(n + 10), None)
        else:
            assert not task.check(dev, p, str(n + 1), None)


def test_a_hand_worked_instance() -> None:
    """SportsTrackerLongestDistanceActivity, instance 0. AndroidWorld
    (``activity_app_utils._create_activity_from_proto``) rounds a distance to the miles the app
    shows and back: 306 m is 0.19 mi (0.1901...), and 0.19 * 1609.34 = 305.77 -> 306 m; it
    rewrites the relevant activity's ``total_distance`` with it, so the expected answer is that.
    The start is "October 9 2023" and a time of the ``start_time`` list; the duration in minutes
    gives ``stoptime`` and ``totaltime`` in milliseconds."""
    dev, p = _start("SportsTrackerLongestDistanceActivity", 0)
    assert rounded_distance(306) == round(0.19 * MILE) == 306
    assert rounded_distance(2500) == round(1.55 * MILE) == 2494
    db: OpenTracksData = dev.data("opentracks")
    (t,) = [db.by_id(i) for i in p["relevant_ids"]]
    assert t is not None and t["totaldistance"] == 306.0 and p["relevant"][0]["total_distance"] == "306"
    assert t["totaltime"] == t["stoptime"] - t["starttime"] == int(p["relevant"][0]["duration"]) * 60_000
    assert len(db.tracks) == 21 and ALL["SportsTrackerLongestDistanceActivity"].expected(p) == [306.0]
    assert distance_text(306.0) == "0.19 mi" and elapsed(45 * 60_000) == "45:00" and elapsed(5400_000) == "1:30:00"


def test_the_sum_is_of_the_rounded_distances() -> None:
    """SportsTrackerTotalDistanceForCategoryOverInterval adds the rounded distances (what
    AndroidWorld's ``is_successful`` compares after its set-up), not the drawn ones."""
    dev, p = _start("SportsTrackerTotalDistanceForCategoryOverInterval", 3)
    db: OpenTracksData = dev.data("opentracks")
    total = sum(db.by_id(i)["totaldistance"] for i in p["relevant_ids"])  # type: ignore[index]
    assert ALL["SportsTrackerTotalDistanceForCategoryOverInterval"].expected(p) == [total]


def test_the_track_list_and_details_show_what_a_person_reads() -> None:
    dev, _ = _start("SportsTrackerActivityDuration", 1)
    dev.launch("opentracks")
    assert isinstance(dev.top_screen(), TrackList)
    db: OpenTracksData = dev.data("opentracks")
    newest = db.listed()[0]
    texts = [n.text for n in dev.elements() if n.text]
    assert newest["name"] in texts and category_line(newest) in texts
    assert f"{elapsed(newest['totaltime'])} · {distance_text(newest['totaldistance'])}" in texts
    row = next(n for n in dev.elements() if n.role == "row" and n.label == newest["name"])
    from gui_gym.android.actions import Action

    dev.act(Action("tap", element=row.bounds))
    assert isinstance(dev.top_screen(), TrackDetails)
    values = {n.rid.rsplit("/", 1)[-1]: n.text for n in dev.elements() if n.rid.endswith("_value")}
    assert values["stats_distance_value"] == f"{newest['totaldistance'] / MILE:.2f}"
    assert values["stats_total_time_value"] == elapsed(newest["totaltime"])


def test_the_database_is_opentracks_and_round_trips(tmp_path: Any) -> None:
    """AndroidWorld's ``sqlite_utils``: pull, delete, insert without ``_id``, push; the app lists
    the rows; ``SELECT *`` gives exactly ``SportsActivity``'s fields."""
    dev, _ = _start("SportsTrackerActivitiesOnDate", 2)
    sh = Shell(dev)
    assert sh.run(f"ls {DATABASE.folder}").stdout.decode().split() == ["database.db"]
    f = tmp_path / "database.db"
    f.write_bytes(sh.files[DATABASE.path])
    con = sqlite3.connect(f)
    assert [r[1] for r in con.execute("PRAGMA table_info(tracks)")] == list(TRACKS.names)
    con.execute("DELETE FROM tracks")
    cols = [c for c in TRACKS.names if c != "_id"]
    values = {c.name: c.default for c in TRACKS.columns} | {"name": "Lap Swim", "category": "swimming"}
    values |= {"totaldistance": 805.0, "starttime": 1697000000000, "uuid": b"u" * 16}
    con.execute(
        f"INSERT INTO tracks ({', '.join(repr(c) for c in cols)}) VALUES ({', '.join('?' for _ in cols)})",
        [values[c] for c in cols],
    )
    con.commit()
    con.close()
    assert sh.write(DATABASE.path, f.read_bytes()) is None
    sh.run("true")
    data: OpenTracksData = dev.data("opentracks")
    # AUTOINCREMENT numbers on after the deleted rows
    assert [(t["_id"], t["name"], t["totaldistance"]) for t in data.tracks] == [(23, "Lap Swim", 805.0)]
    assert decode(encode(data)) == data
    con = sqlite3.connect(f)
    con.execute("UPDATE tracks SET starttime = 'noon'")
    con.commit()
    raw = f.read_bytes()
    con.close()
    with pytest.raises(StorageError):
        decode(raw)


STATES = json.loads((Path(__file__).parent / "fixtures" / "androidworld" / "question_states.json").read_text())


@pytest.mark.parametrize("task_id", IDS)
def test_start_states_are_androidworlds(task_id: str) -> None:
    """The tracks inserted at the start, in order, are those of AndroidWorld's own set-up
    (``activity_app_utils.setup_task_state``, recorded by ``androidworld_questions_record.py``)."""
    import hashlib

    for seed in STATES["seeds"]:
        dev, _ = _start(task_id, seed)
        plain = [{k: v for k, v in r.items() if k not in STATES["left_out"]} for r in dev.data("opentracks").tracks]
        blob = json.dumps(plain, sort_keys=True, default=lambda v: v.hex() if isinstance(v, bytes) else repr(v))
        assert hashlib.sha256(blob.encode()).hexdigest() == STATES["tasks"][task_id][str(seed)], f"seed {seed}"
