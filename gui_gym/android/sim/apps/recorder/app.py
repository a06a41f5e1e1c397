"""Audio Recorder (com.dimowner.audiorecorder 0.9.x, AndroidWorld's build 926): records sound into
files, lists them, renames them.

Recordings are files in the app's folder of shared storage,
``/sdcard/Android/data/com.dimowner.audiorecorder/files/Music/records`` (:data:`RECORDS`,
AndroidWorld's ``device_constants.AUDIORECORDER_DATA``), kept in the phone's media store: an M4A
(AAC in MP4; here an MP4 whose movie header gives the length) named by the app's default naming,
``Record-<n>.m4a``.

Screens, as the app lays them out (resource ids and texts from its layouts and strings):

- the welcome screen (:class:`Welcome`, ``WelcomeActivity``, what AndroidWorld starts): "Get
  started" (``btn_action``) opens the set-up (:class:`Setup`: the recording settings, "Apply",
  ``btn_apply``), which opens the main screen.
- the main screen (:class:`RecorderMain`, ``MainActivity``): the toolbar ("Audio Recorder"), the
  record name (``txt_name``, tapping it renames the last record), the time (``txt_progress``),
  the Record button (``btn_record``: starts, pauses and resumes), Stop (``btn_record_stop``:
  saves the record; the app then asks a new name, as "ask to rename" is on by default), the
  records list (``btn_records_list``) and the settings (``btn_settings``).
- the rename dialog (:class:`RenameDialog`, ``dialog_rename``): "New name", the name field
  (``input_name``) holding the record's name, "Don't ask again", Cancel / Save. Save renames the
  file to the name plus ``.m4a`` (``:`` becomes ``_``; an existing name is refused).
- the records list (:class:`RecordsList`, ``RecordsActivity``): the records, newest first, with
  their length.
"""

from __future__ import annotations

import datetime as dt
import posixpath
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.dialogs import Dialog
from gui_gym.android.sim.media import media
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.media import MediaFile

PKG = "com.dimowner.audiorecorder"


def _node(cls: str, bounds: tuple[int, int, int, int], text: str = "", **kw: Any) -> Node:
    """A view of this app's window (every view of a window carries its package in a dump)."""
    kw.setdefault("package", PKG)
    return Node(cls, bounds, text, **kw)


#: the app's records folder below ``/sdcard`` (AndroidWorld's ``AUDIORECORDER_DATA``)
RECORDS = f"Android/data/{PKG}/files/Music/records"
EXTENSION = "m4a"
BASE_NAME = "Record-"  # AppConstants.BASE_RECORD_NAME
BYTES_PER_SECOND = 16_000  # 128 kbit/s AAC, the app's default bit rate


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


@dataclass
class RecorderData:
    """The app's preferences and its recording in progress."""

    counter: int = 1  # prefs' record counter (the next "Record-<n>")
    ask_rename: bool = True  # "ask to rename after stop recording"
    set_up: bool = False  # the welcome and set-up screens have been through
    started: dt.datetime | None = None  # the recording in progress started (None: not recording)
    paused_at: dt.datetime | None = None
    recorded: float = 0.0  # seconds recorded before the last resume
    last: str = ""  # the path of the last record made or opened (below /sdcard)


def recorder(dev: Device) -> RecorderData:
    return dev.data("recorder")


def records(dev: Device) -> list[MediaFile]:
    """The files of the records folder, newest first."""
    return media(dev).folder(RECORDS)


def m4a(seconds: int) -> bytes:
    """An M4A file of ``seconds``: ``ftyp`` (M4A), a ``moov`` whose ``mvhd`` gives the length, and
    the ``mdat`` of its audio (silence at the app's bit rate)."""

    def box(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", 8 + len(body)) + kind + body

    ftyp = box(b"ftyp", b"M4A " + struct.pack(">I", 0) + b"M4A mp42isom")
    mvhd = box(
        b"mvhd", struct.pack(">IIIII", 0, 0, 0, 1000, seconds * 1000) + struct.pack(">IH", 0x10000, 0x100) + bytes(70)
    )
    return ftyp + box(b"moov", mvhd) + box(b"mdat", bytes(max(1, seconds) * BYTES_PER_SECOND // 100))


def seconds_text(s: int) -> str:
    """``TimeUtils.formatTimeIntervalHourMinSec2``: ``mm:ss`` (``h:mm:ss`` from an hour)."""
    h, m, sec = s // 3600, s // 60 % 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def clean_name(name: str) -> str:
    """``FileUtil.removeUnallowedSignsFromName``: ``:`` becomes ``_``, the ends trimmed."""
    return name.replace(":", "_").strip()


# ----------------------------------------------------------------------------- welcome and set-up


class Welcome(Screen):
    """WelcomeActivity: the app's welcome page and "Get started"."""

    activity = "com.dimowner.audiorecorder.app.welcome.WelcomeActivity"

    def build(self, ui: UI, dev: Device) -> None:
        ui.y += 500
        ui.text("Welcome to a simple and fast application", h=200, rid=_rid("txt_title"), size=56)
        ui.y = ui.bottom - 250

        def start() -> str:
            dev.state.stacks["recorder"][-1] = Setup()  # the welcome activity finishes
            return 'Tap "Get started"'

        ui.button("Get started", start, rid=_rid("btn_action"), h=150)


class Setup(Screen):
    """SetupActivity: the recording settings (name format, format, sample rate, bit rate,
    channels) and "Apply"."""

    activity = "com.dimowner.audiorecorder.app.setup.SetupActivity"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Settings", up=False)
        for title, value in (
            ("Record name", "Record-1.m4a"),
            ("Recording format", "M4a"),
            ("Sample rate", "44.1kHz"),
            ("Bitrate", "128kbps"),
            ("Channel count", "Stereo"),
        ):
            ui.row(title, value)
        ui.y = ui.bottom - 200

        def apply() -> str:
            recorder(dev).set_up = True
            dev.state.stacks["recorder"][-1] = RecorderMain()
            return 'Tap "Apply"'

        ui.button("Apply", apply, rid=_rid("btn_apply"), h=150)


# ----------------------------------------------------------------------------- the main screen


def elapsed(dev: Device) -> float:
    data = recorder(dev)
    if data.started is None:
        return data.recorded
    end = data.paused_at or dev.state.now
    return data.recorded + (end - data.started).total_seconds()


class RecorderMain(Screen):
    """MainActivity: record, pause, stop; the last record's name."""

    activity = "com.dimowner.audiorecorder.app.main.MainActivity"

    def screen_name(self) -> str:
        return "Audio Recorder"

    def build(self, ui: UI, dev: Device) -> None:
        data = recorder(dev)
        recording = data.started is not None
        paused = recording and data.paused_at is not None
        ui.add(
            _node(
                "android.widget.LinearLayout",
                (0, ui.y, SCREEN_W, ui.y + 154),
                rid=_rid("toolbar"),
                children=[
                    _node(
                        "android.widget.TextView",
                        (PAD + 140, ui.y + 20, SCREEN_W - 200, ui.y + 134),
                        "Audio Recorder",
                        role="title",
                    )
                ],
            )
        )
        ui.y += 154
        ui.y += 500
        if recording:
            name = "Recording paused" if paused else "Recording…"
        else:
            name = posixpath.splitext(posixpath.basename(data.last))[0] if data.last in media(dev).files else ""
        if name:

            def rename() -> str:
                if recording or data.last not in media(dev).files:
                    raise Inapplicable("no record to rename")
                dev.open_dialog(RenameDialog(data.last, show_checkbox=False))
                return "Tap the record's name to rename it"

            ui.add(
                _node(
                    "android.widget.TextView",
                    ui.rect(110),
                    name,
                    rid=_rid("txt_name"),
                    on_tap=None if recording else rename,
                    role="text",
                    style=46,
                )
            )
        ui.add(
            _node(
                "android.widget.TextView",
                ui.rect(160),
                seconds_text(int(elapsed(dev))),
                rid=_rid("txt_progress"),
                role="text",
                style=80,
            )
        )
        y = ui.bottom - 300
        ui.add(
            _node(
                "android.widget.ImageButton",
                (PAD, y + 60, PAD + 160, y + 220),
                desc="Settings",
                rid=_rid("btn_settings"),
                on_tap=lambda: "Tap Settings (the settings are as set up)",
                role="icon",
                style="settings",
            )
        )
        mid = SCREEN_W // 2
        ui.add(
            _node(
                "android.widget.Button",
                (mid - 150, y, mid + 150, y + 280) if not recording else (mid - 320, y, mid - 20, y + 280),
                "",
                desc="Pause" if recording and not paused else "Record",
                rid=_rid("btn_record"),
                on_tap=lambda: self._record(dev),
                role="fab",
                style="pause" if recording and not paused else "record",
            )
        )
        if recording:
            ui.add(
                _node(
                    "android.widget.Button",
                    (mid + 20, y, mid + 320, y + 280),
                    desc="Stop",
                    rid=_rid("btn_record_stop"),
                    on_tap=lambda: self._stop(dev),
                    role="fab",
                    style="stop",
                )
            )
        else:

            def open_list() -> str:
                dev.push(RecordsList())
                return "Open the records list"

            ui.add(
                _node(
                    "android.widget.ImageButton",
                    (SCREEN_W - PAD - 160, y + 60, SCREEN_W - PAD, y + 220),
                    desc="Records",
                    rid=_rid("btn_records_list"),
                    on_tap=open_list,
                    role="icon",
                    style="list",
                )
            )

    def _record(self, dev: Device) -> str:
        data = recorder(dev)
        now = dev.state.now
        if data.started is None:
            data.started, data.paused_at, data.recorded = now, None, 0.0
            return "Start recording"
        if data.paused_at is None:
            data.paused_at = now
            return "Pause the recording"
        data.recorded += (data.paused_at - data.started).total_seconds()
        data.started, data.paused_at = now, None
        return "Resume the recording"

    def _stop(self, dev: Device) -> str:
        data = recorder(dev)
        if data.started is None:
            raise Inapplicable("nothing is being recorded")
        seconds = max(1, int(elapsed(dev)))
        data.started, data.paused_at, data.recorded = None, None, 0.0
        store = media(dev)
        n = data.counter
        while f"{RECORDS}/{BASE_NAME}{n}.{EXTENSION}" in store.files:
            n += 1
        path = f"{RECORDS}/{BASE_NAME}{n}.{EXTENSION}"
        store.add_file(path, m4a(seconds), dev.state.now)
        data.counter = n + 1
        data.last = path
        if data.ask_rename:
            dev.open_dialog(RenameDialog(path, show_checkbox=True))
        return f'Stop recording: "{posixpath.basename(path)}" ({seconds_text(seconds)}) saved'

    def _rename(self, dev: Device, value: dict) -> str:
        return rename_record(dev, value)


def rename_record(dev: Device, value: dict) -> str:
    """``MainPresenter.renameRecord``: the file renamed to the new name plus its extension."""
    data = recorder(dev)
    if value.get("dont_ask"):
        data.ask_rename = False
    path = value["path"]
    store = media(dev)
    f = store.files.get(path)
    name = clean_name(value.get("name", ""))
    if f is None:
        raise Inapplicable("the record is gone")
    if not name:
        dev.toast("Failed to rename file")
        return "Save with no name (the record keeps its name)"
    target = f"{posixpath.dirname(path)}/{name}.{EXTENSION}"
    if target == path:
        return f'Save the name "{name}" (unchanged)'
    if target in store.files:
        dev.toast("File with such name already exists")
        return f'Save the name "{name}" (refused: a file has that name)'
    store.remove(path)
    store.add_file(target, f.data(), f.mtime)
    if data.last == path:
        data.last = target
    return f'Rename the record to "{name}.{EXTENSION}"'


class RenameDialog(Dialog):
    """``AndroidUtils.showRenameDialog`` (``dialog_rename``): "New name", ``input_name`` holding
    the record's name, "Don't ask again" after a recording, Cancel / Save."""

    def __init__(self, path: str, show_checkbox: bool) -> None:
        super().__init__("_rename", "New name")
        self.path = path
        self.show_checkbox = show_checkbox
        self.dont_ask = False
        self.form["name"] = posixpath.splitext(posixpath.basename(path))[0]
        self.focus = None

    def build(self, ui: UI, dev: Device) -> None:
        panel = ui.dialog_panel(self, height=130 + 180 + (140 if self.show_checkbox else 0) + 160)
        ui.add(_node("android.widget.TextView", ui.rect(100), self.title, rid=_rid("dialog_title"), role="title"))
        ui.y += 20
        ui.field(self, "name", "Name", rid=_rid("input_name"))
        if self.show_checkbox:

            def toggle(on: bool) -> str:
                self.dont_ask = on
                return f'{"Check" if on else "Uncheck"} "Don\'t ask again"'

            ui.checkbox("Don't ask again", self.dont_ask, toggle, rid=_rid("check_box"))
        y = ui.y + 10
        ui.add(
            _node(
                "android.widget.Button",
                (SCREEN_W - 620, y, SCREEN_W - 380, y + 120),
                "Cancel",
                rid=_rid("dialog_negative_btn"),
                on_tap=lambda: self.finish(dev, None),
                role="textbutton",
            )
        )
        ui.add(
            _node(
                "android.widget.Button",
                (SCREEN_W - 360, y, SCREEN_W - 120, y + 120),
                "Save",
                rid=_rid("dialog_positive_btn"),
                on_tap=lambda: self.finish(dev, "save"),
                role="textbutton",
            )
        )
        ui.y = y + 130
        ui.end_panel(panel)

    def finish(self, dev: Device, value: Any) -> str | None:
        if value is None:
            if self.dont_ask:
                recorder(dev).ask_rename = False
            return super().finish(dev, None)
        return super().finish(dev, {"path": self.path, "name": self.form.get("name", ""), "dont_ask": self.dont_ask})


# ----------------------------------------------------------------------------- the records list


class RecordsList(Screen):
    """RecordsActivity: the records, newest first (name, length, date)."""

    activity = "com.dimowner.audiorecorder.app.records.RecordsActivity"

    def screen_name(self) -> str:
        return "Audio Recorder/Records"

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Records")
        from gui_gym.android.sim.media import mp4_duration

        def render(ui: UI, f: Any) -> None:
            length = seconds_text(mp4_duration(f.data()))
            when = f.mtime.strftime("%b %d, %Y %H:%M")

            def open_it(path: str = f.path) -> str:
                recorder(dev).last = path
                dev.pop()
                return f'Open "{posixpath.basename(path)}"'

            def menu(path: str = f.path) -> str:
                dev.open_dialog(RenameDialog(path, show_checkbox=False))
                return f'Rename "{posixpath.basename(path)}"'

            row = ui.row(
                posixpath.splitext(f.name)[0], f"{length}  {when}", on_tap=open_it, rid=_rid("list_item"), h=190
            )
            row.children.append(
                _node(
                    "android.widget.ImageButton",
                    (SCREEN_W - 150, row.bounds[1] + 35, SCREEN_W - 30, row.bounds[3] - 35),
                    desc="Rename",
                    rid=_rid("btn_more"),
                    on_tap=menu,
                    role="icon",
                    style="edit",
                )
            )

        ui.scroll_list(
            self, "records", records(dev), render, item_h=190, empty="Records is empty", list_id="recycler_view"
        )

    def _rename(self, dev: Device, value: dict) -> str:
        return rename_record(dev, value)


class RecorderApp(App):
    name = "recorder"
    label = "Audio Recorder"
    package = PKG
    activity = "com.dimowner.audiorecorder.app.welcome.WelcomeActivity"
    aliases = ("audio recorder", "audiorecorder")
    color = (211, 47, 47)
    icon = "recorder"

    def initial_data(self) -> RecorderData:
        return RecorderData()

    def root(self, dev: Device) -> Screen:
        return Welcome()


__all__ = ["RECORDS", "RecorderApp", "RecorderMain", "RecordsList", "RenameDialog", "Welcome", "records"]
