"""Audio Recorder on the simulated phone (``apps/recorder``) and AndroidWorld's two Audio Recorder
tasks: welcome and set-up, record / stop, the rename dialog (the app adds ``.m4a``), the records
list; each task's oracle solves AndroidWorld's instances 0-29 through the env; idling and near
misses fail; a draw and the file-name rule checked by hand against ``audio_recorder.py``."""

from __future__ import annotations

import random

import pytest
from _aw import make, solve, start

from gui_gym.android.actions import parse_action
from gui_gym.android.sim.apps.recorder.app import RECORDS, RecorderMain, RecordsList, records
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import media, mp4_duration
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import modified_file_name
from gui_gym.android.ui import Node

IDS = ("AudioRecorderRecordAudio", "AudioRecorderRecordAudioWithFileName")


def _act(dev: Device, action: str) -> str:
    out = dev.act(parse_action(action))
    assert out.valid, out.reason
    return out.description


def _node(dev: Device, **match: str) -> Node:
    return next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in match.items()))


def _tap(dev: Device, **match: str) -> str:
    return _act(dev, f'do(action="Tap", element={list(_node(dev, **match).bounds)})')


def test_record_stop_rename_and_list() -> None:
    dev = Device()
    _act(dev, 'do(action="Launch", app="audio recorder")')
    assert dev.top_activity().endswith("/com.dimowner.audiorecorder.app.welcome.WelcomeActivity")
    _tap(dev, text="Get started")
    _tap(dev, text="Apply")
    assert isinstance(dev.top_screen(), RecorderMain)
    _tap(dev, rid="com.dimowner.audiorecorder:id/btn_record")
    for _ in range(3):
        _act(dev, 'do(action="Wait")')
    _tap(dev, rid="com.dimowner.audiorecorder:id/btn_record_stop")
    (f,) = records(dev)
    assert f.path == f"{RECORDS}/Record-1.m4a" and mp4_duration(f.data()) == 10  # 3 waits of 3 s, 1 s tap
    assert _node(dev, rid="com.dimowner.audiorecorder:id/input_name").text == "Record-1"
    _tap(dev, rid="com.dimowner.audiorecorder:id/input_name")
    _act(dev, 'do(action="Type", text="talk: final.m4a")')
    _tap(dev, text="Save")
    assert [f.name for f in records(dev)] == ["talk_ final.m4a.m4a"]  # ":" replaced, the extension added
    _tap(dev, rid="com.dimowner.audiorecorder:id/btn_records_list")
    assert isinstance(dev.top_screen(), RecordsList)
    assert "talk_ final.m4a" in [n.text for n in dev.elements()]


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_androidworlds_instances(task_id: str) -> None:
    env = make(task_id)
    for seed in range(30):
        start(env, seed)
        info, _, reached = solve(env)
        assert info["success"], (seed, info.get("reason"))
        assert len(reached) == len(TASKS[task_id].milestones), seed
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_idle_fails(task_id: str) -> None:
    env = make(task_id)
    _, dev = start(env, 2)
    assert not TASKS[task_id].check(dev, env.unwrapped._episode.params, None, None)
    env.close()


def test_near_misses_fail() -> None:
    env = make("AudioRecorderRecordAudioWithFileName")
    _, dev = start(env, 0)
    params = env.unwrapped._episode.params
    task = TASKS["AudioRecorderRecordAudioWithFileName"]
    store = media(dev)
    store.add_file(f"{RECORDS}/{params['file_name']}", b"x", dev.state.now)  # the name without the app's .m4a
    assert not task.check(dev, params, None, None)
    store.add_file(f"{RECORDS}/{params['file_name']}.m4a", b"x", dev.state.now)
    assert task.check(dev, params, None, None)
    # two new records are not "one new record"
    env = make("AudioRecorderRecordAudio")
    _, dev = start(env, 0)
    params = env.unwrapped._episode.params
    one = TASKS["AudioRecorderRecordAudio"]
    media(dev).add_file(f"{RECORDS}/Record-1.m4a", b"a", dev.state.now)
    assert one.check(dev, params, None, None)
    media(dev).add_file(f"{RECORDS}/Record-2.m4a", b"b", dev.state.now)
    assert not one.check(dev, params, None, None)
    media(dev).remove(f"{RECORDS}/Record-2.m4a")
    media(dev).add_file(f"{RECORDS}/empty.m4a", b"", dev.state.now)  # an empty file does not count
    assert one.check(dev, params, None, None)


def test_file_name_draw_by_hand() -> None:
    """``generate_random_params``: ``random.choice(name)`` then ``generate_modified_file_name``
    of ``<word>.m4a`` (audio_recorder.py), so the name keeps ``.m4a``."""
    r = random.Random(5)
    word = r.choice(["interview", "meeting", "lecture", "session", "note", "conference", "webinar", "workshop",
                     "seminar", "briefing", "discussion", "talk", "presentation", "training", "guidance", "memo",
                     "narration", "storytelling", "journal", "diary", "debate", "symposium", "roundtable",
                     "consultation", "review"])  # fmt: skip
    expected = modified_file_name(r, word + ".m4a")
    params = TASKS["AudioRecorderRecordAudioWithFileName"].sample_seed(5)
    assert params["file_name"] == expected and expected.endswith(".m4a") and params["text"] == ""
