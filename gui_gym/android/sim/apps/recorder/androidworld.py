"""AndroidWorld's Audio Recorder tasks (``task_evals/single/audio_recorder.py``) on the simulated phone.

Both judge the records folder (``device_constants.AUDIORECORDER_DATA``, :data:`RECORDS`):

- AudioRecorderRecordAudio notes the folder's regular files at set-up (``get_file_list_with_metadata``:
  name, size, change time) and succeeds when exactly one non-empty file is new or changed;
- AudioRecorderRecordAudioWithFileName empties the phone's storage (``CreateFile``'s set-up) and
  the folder, and succeeds when ``<file_name>.m4a`` is in it. ``file_name`` is drawn with its
  extension (``generate_modified_file_name("<word>.m4a")``), so the record must be named
  ``<file_name>`` in the app, which adds its own ``.m4a``: ``interview_copy.m4a.m4a``.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.markor.androidworld import clear_device_storage
from gui_gym.android.sim.apps.recorder.app import (
    EXTENSION,
    RECORDS,
    RecorderMain,
    RenameDialog,
    Setup,
    Welcome,
    recorder,
    records,
)
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, modified_file_name
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

#: ``AudioRecorderRecordAudioWithFileName.generate_random_params``'s words
NAMES: tuple[str, ...] = (
    "interview",
    "meeting",
    "lecture",
    "session",
    "note",
    "conference",
    "webinar",
    "workshop",
    "seminar",
    "briefing",
    "discussion",
    "talk",
    "presentation",
    "training",
    "guidance",
    "memo",
    "narration",
    "storytelling",
    "journal",
    "diary",
    "debate",
    "symposium",
    "roundtable",
    "consultation",
    "review",
)


def make_folder(dev: Device) -> None:
    """The records folder exists (the app made it when AndroidWorld's set-up first opened it)."""
    store = media(dev)
    folder = RECORDS
    while folder and folder not in store.dirs:
        store.dirs.add(folder)
        folder = folder.rsplit("/", 1)[0] if "/" in folder else ""


def listing(dev: Device) -> list[list]:
    """``get_file_list_with_metadata``: (name, size, change time) of each regular file."""
    return [[f.name, len(f.data()), f.mtime.isoformat()] for f in records(dev)]


def _opened(dev: Device, params: Params) -> bool:
    return "recorder" in dev.state.launched


def _recording(dev: Device, params: Params) -> bool:
    return recorder(dev).started is not None or bool(recorder(dev).last)


class RecorderTask(AndroidWorldTask):
    app: ClassVar[str] = "recorder"
    apps: ClassVar[tuple[str, ...]] = ("recorder",)

    def name(self, o: Oracle) -> str | None:
        """The name to give the record in the rename dialog (``None``: keep the app's)."""
        return None

    def oracle(self, o: Oracle) -> str:
        data = recorder(o.dev)
        if self.check(o.dev, o.p, None, None) and data.started is None:
            return o.finish()
        if o.app != "recorder":
            return o.launch("Audio Recorder")
        dialog, screen = o.dialog, o.screen
        if isinstance(dialog, RenameDialog):
            name = self.name(o)
            if name is not None:
                act = o.fill("Name", name)
                if act is not None:
                    return act
            return o.tap(o.find("Save", rid=":id/dialog_positive_btn"))
        if dialog is not None:
            return o.back()
        if isinstance(screen, Welcome):
            return o.tap_text("Get started")
        if isinstance(screen, Setup):
            return o.tap_text("Apply")
        if not isinstance(screen, RecorderMain):
            return o.back()
        if data.started is not None:
            return o.tap(o.find(rid=":id/btn_record_stop"))
        return o.tap(o.find(rid=":id/btn_record"))


def _one_new(dev: Device, params: Params) -> bool:
    before = [tuple(x) for x in params.get("before", [])]
    changed = [x for x in listing(dev) if x[1] > 0 and tuple(x) not in before]
    return len(changed) == 1


class AudioRecorderRecordAudio(RecorderTask):
    """Record a clip: exactly one new non-empty file in the records folder."""

    id = "AudioRecorderRecordAudio"
    template = "Record an audio clip using Audio Recorder app and save it."
    difficulty = "easy"
    optimal_steps = 6
    tags = ("requires_setup",)
    milestones = (
        Milestone("Open Audio Recorder", _opened),
        Milestone("Start recording", _recording),
        Milestone("Stop the recording so that it is saved", _one_new),
    )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        make_folder(dev)
        params["before"] = listing(dev)

    def observe_start(self, dev: Device, params: Params) -> None:
        params["before"] = listing(dev)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return _one_new(dev, params)


def _named(dev: Device, params: Params) -> bool:
    return f"{RECORDS}/{params['file_name']}.{EXTENSION}" in media(dev).files


class AudioRecorderRecordAudioWithFileName(RecorderTask):
    """Record a clip and name it ``file_name`` (the folder then holds ``<file_name>.m4a``)."""

    id = "AudioRecorderRecordAudioWithFileName"
    template = 'Record an audio clip and save it with name "{file_name}" using Audio Recorder app.'
    difficulty = "easy"
    optimal_steps = 10
    tags = ("data_entry", "complex_ui_understanding", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"FileName": "file_name"}
    milestones = (
        Milestone("Open Audio Recorder", _opened),
        Milestone("Start recording", _recording),
        Milestone('Save the record with the name "<FileName>"', _named),
    )

    def generate(self, r: random.Random) -> Params:
        word = r.choice(NAMES)
        return {"file_name": modified_file_name(r, word + ".m4a"), "text": ""}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        clear_device_storage(dev)
        media(dev).clear(RECORDS)
        make_folder(dev)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return _named(dev, params)

    def name(self, o: Oracle) -> str | None:
        return o.p["file_name"]


TEMPLATES = (AudioRecorderRecordAudio, AudioRecorderRecordAudioWithFileName)

__all__ = ["TEMPLATES", "AudioRecorderRecordAudio", "AudioRecorderRecordAudioWithFileName"]
