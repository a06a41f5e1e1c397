"""The oracle's steps through VLC: open a video from Browse and watch it (AndroidWorld's
MarkorTranscribeVideo)."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from gui_gym.android.actions import Action, format_action
from gui_gym.android.sim.apps.vlc.app import (
    INTERNAL_MEMORY,
    ResumeDialog,
    VlcBrowser,
    VlcMain,
    VlcPlayer,
    frame_slots,
    shown_frames,
)
from gui_gym.android.sim.media import media
from gui_gym.android.sim.tasks.base import Oracle

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def watched(dev: Device, path: str) -> bool:
    """Every frame of the video ``path`` has been on VLC's screen (one pushed over adb: every
    second of it)."""
    slots = frame_slots(media(dev).files.get(path))
    return bool(slots) and shown_frames(dev, path) == set(range(len(slots)))


def wait() -> str:
    return format_action(Action("wait"))


def watch_step(o: Oracle, path: str) -> str | None:
    """From anywhere: one step toward watching the video ``path`` (below ``/sdcard``) in VLC from
    its start to its end: Browse, Internal memory, its folder, the video; then wait while it
    plays (the player closes at the end). ``None`` once every frame has been on screen."""
    if watched(o.dev, path):
        return None
    if o.app != "vlc":
        return o.launch("VLC")
    s = o.screen
    if s is None:
        return o.launch("VLC")
    if isinstance(s, VlcPlayer):
        if s.path != path:
            return o.back()
        if isinstance(s.dialog, ResumeDialog):
            return o.tap(o.find(label="No", role="textbutton"))  # from the start
        if s.dialog is not None:
            return o.back()
        if s.started is None:  # paused: play on (the controls show first)
            play = o.find(rid=":id/player_overlay_play")
            return o.tap(play) if play is not None else o.tap(o.find(rid=":id/player_root"))
        return wait()
    if s.dialog is not None or o.keyboard:
        return o.back()
    if isinstance(s, VlcMain):
        if s.tab != "Browse":
            return o.tap(o.find(desc="Browse", role="tab"))
        return o.tap(o.find(role="row", label=INTERNAL_MEMORY))
    if isinstance(s, VlcBrowser):
        folder = posixpath.dirname(path)
        if s.folder == folder:
            return _open_row(o, s, posixpath.basename(path))
        if s.folder == "" or folder.startswith(s.folder + "/"):
            child = folder[len(s.folder) :].lstrip("/").split("/")[0]
            return _open_row(o, s, child)
    return o.back()


def _open_row(o: Oracle, s: VlcBrowser, name: str) -> str:
    """Scroll the browser's list to the row ``name``, then tap it."""
    order = [obj if kind == "dir" else obj.name for kind, obj in s.entries(o.dev)]
    at = order.index(name)

    def before(row: object) -> bool:
        label = getattr(row, "label", "")
        return label in order and order.index(label) < at

    act = o.reveal(lambda n: n.role == "row" and n.label == name, before=before, list_rid=":id/network_list")
    return act or o.tap(o.find(role="row", label=name))
