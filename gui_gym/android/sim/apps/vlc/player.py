"""VLC's video player (VideoPlayerActivity): :class:`VlcPlayer`, the resume dialog, opening a
video, and what the player has shown (:func:`shown_frames`, :func:`frame_slots`,
:func:`playing`). See :mod:`gui_gym.android.sim.apps.vlc.app` for how the player behaves."""

from __future__ import annotations

import datetime as dt
import posixpath
from typing import TYPE_CHECKING

from gui_gym.android.sim.apps.vlc.data import MediaRow, library, ms_text
from gui_gym.android.sim.apps.vlc.views import node as _node
from gui_gym.android.sim.apps.vlc.views import picture as _picture
from gui_gym.android.sim.apps.vlc.views import rid as _rid
from gui_gym.android.sim.dialogs import AlertDialog
from gui_gym.android.sim.media import media
from gui_gym.android.sim.widgets import PAD, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W

if TYPE_CHECKING:
    from PIL import Image

    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.media import MediaFile

OVERLAY_SECONDS = 4  # VideoPlayerOverlayDelegate's OVERLAY_TIMEOUT
NEVER = dt.datetime.max
HUD_TOP, HUD_H = 1640, 560  # the bottom controls' band (in the content area)


def open_video(dev: Device, path: str) -> str:
    """Tap a video: the player opens on it (asking whether to resume where it was left)."""
    data = library(dev)
    row = data.by_path(path)
    if row is None:
        raise Inapplicable(f"VLC has no video at {path}")
    player = VlcPlayer(path)
    dev.push(player)
    if row.last_time > 0:
        player.dialog = ResumeDialog(row.title)
        player.asking = True
    else:
        player.start(dev, 0.0)
    return f'Play "{row.title}" in VLC'


class ResumeDialog(AlertDialog):
    """``showConfirmResumeDialog``: resume at the kept position, or start again ("No")."""

    def __init__(self, title: str) -> None:
        super().__init__("_resume", title, "Resume from last position?", [("No", "no"), ("Resume", "resume")])
        self.cancelable = False


class VlcPlayer(Screen):
    """VideoPlayerActivity on one video (see the module's docstring).

    The playback state is the position ``offset`` (seconds) at the phone time ``started``
    (``None``: paused); the controls show until ``hud_until`` (``None``: hidden; :data:`NEVER`:
    until touched again, as while paused).
    """

    def __init__(self, path: str) -> None:
        super().__init__()
        self.path = path
        self.offset = 0.0
        self.started: dt.datetime | None = None
        self.hud_until: dt.datetime | None = None
        self.remaining = False  # the length shows the time left
        self.done = False
        self.asking = False  # the resume dialog is (or was) up and not answered

    def screen_name(self) -> str:
        return "VLC/Player"

    # -- playback ------------------------------------------------------------------------
    def row(self, dev: Device) -> MediaRow | None:
        return dev.data("vlc").by_path(self.path)

    def length(self, dev: Device) -> float:
        row = self.row(dev)
        return row.duration / 1000 if row is not None and row.duration > 0 else 0.0

    def position(self, dev: Device) -> float:
        """Where playback is at the phone's current time (seconds)."""
        pos = self.offset
        if self.started is not None:
            pos += (dev.state.now - self.started).total_seconds()
        length = self.length(dev)
        return max(0.0, min(pos, length)) if length else max(0.0, pos)

    def ended(self, dev: Device) -> bool:
        length = self.length(dev)
        return self.started is not None and length > 0 and self.position(dev) >= length

    def _keep(self, dev: Device) -> None:
        """Note the stretch played since the last change (or the still picture while paused)."""
        pos = self.position(dev)
        start = self.offset
        dev.data("vlc").record_shown(self.path, start, pos)

    def start(self, dev: Device, at: float) -> None:
        """Start playing at ``at`` seconds (the library's ``Playing`` event)."""
        self.offset, self.started = at, dev.state.now
        self.hud_until = dev.state.now + dt.timedelta(seconds=OVERLAY_SECONDS + 1)
        row = self.row(dev)
        if row is not None:
            row.last_played_date = int(dev.state.now.replace(tzinfo=dt.UTC).timestamp())

    def _resume(self, dev: Device, value: str) -> str:
        self.asking = False
        row = self.row(dev)
        at = row.last_time / 1000 if value == "resume" and row is not None and row.last_time > 0 else 0.0
        self.start(dev, at)
        return f'Tap "{"Resume" if value == "resume" else "No"}": play from {ms_text(int(at * 1000))}'

    def _seek(self, dev: Device, at: float) -> None:
        self._keep(dev)
        length = self.length(dev)
        self.offset = max(0.0, min(at, length)) if length else 0.0
        if self.started is not None:
            self.started = dev.state.now
        self._touched(dev)

    def _touched(self, dev: Device) -> None:
        self.hud_until = NEVER if self.started is None else dev.state.now + dt.timedelta(seconds=OVERLAY_SECONDS + 1)

    def toggle(self, dev: Device) -> str:
        """Play/Pause."""
        if self.started is None:
            if self.length(dev) and self.offset >= self.length(dev):
                self.offset = 0.0
            self.started = dev.state.now
            self._touched(dev)
            return 'Tap "Play" in VLC\'s player'
        self._keep(dev)
        self.offset, self.started = self.position(dev), None
        self._keep(dev)
        self.hud_until = NEVER
        return f'Tap "Pause" in VLC\'s player (at {ms_text(int(self.offset * 1000))})'

    def finish(self, dev: Device, reached_end: bool) -> None:
        """Leave the player: the library keeps the position (``Media::setLastTime``: before 5 %
        nothing, after 95 % the video counts as played once more and starts over next time)."""
        if self.done:
            return
        self.done = True
        if self.asking:
            return
        self._keep(dev)
        row = self.row(dev)
        length = self.length(dev)
        if row is None:
            return
        pos = length if reached_end else self.position(dev)
        if length <= 0:
            return
        share = pos / length
        if share < 0.05:
            row.last_time, row.last_position = -1, -1.0
        elif share > 0.95:
            row.last_time, row.last_position = -1, -1.0
            row.play_count += 1
        else:
            row.last_time, row.last_position = int(pos * 1000), share

    def on_back(self, dev: Device) -> str | None:
        self.finish(dev, False)
        return None  # the activity finishes

    # -- the screen ----------------------------------------------------------------------
    def build(self, ui: UI, dev: Device) -> None:
        gone = self.asking and self.dialog is None  # Back dismissed the resume dialog: the player quits
        if gone or self.ended(dev):
            # EndReached with nothing next: the player stops and its activity finishes.
            self.finish(dev, not gone)
            stack = dev.state.stacks.get("vlc", [])
            if stack and stack[-1] is self:
                dev.pop()
            below = dev.top_screen()
            if below is not None and dev.state.foreground == "vlc":
                below.build(ui, dev)
            return
        now = dev.state.now
        length = self.length(dev)
        pos = self.position(dev)
        f = media(dev).files.get(self.path)
        row = self.row(dev)
        title = row.title if row is not None else posixpath.basename(self.path)
        top, bottom = ui.top, ui.bottom

        def tap_surface() -> str:
            if self.hud_until is not None and now < self.hud_until:
                self.hud_until = None
                return "Tap the video to hide the controls"
            self._touched(dev)
            return "Tap the video to show the controls"

        root = ui.add(
            _node(
                "android.widget.FrameLayout",
                (0, top, SCREEN_W, bottom),
                rid=_rid("player_root"),
                desc="Video player. Tap to show controls. Tap the back button to hide them",
                on_tap=tap_surface,
                role="none",
            )
        )
        vw, vh = f.size if f is not None and f.size[0] and f.size[1] else (320, 240)
        pic_h = min(SCREEN_W * vh // vw, HUD_TOP - top - 120)
        pic_top = top + (HUD_TOP - top - pic_h) // 2
        second = pos if not length else min(pos, max(0.0, length - 0.001))
        frame_index = _frame_index(f, second)

        def frame() -> Image.Image | None:
            return f.frame_picture(second) if f is not None and f.frames else None

        layout = _node("android.widget.FrameLayout", (0, pic_top, SCREEN_W, pic_top + pic_h), rid=_rid("video_layout"))
        layout.children.append(
            _picture(
                (0, pic_top, SCREEN_W, pic_top + pic_h),
                frame,
                (*(f.key() if f is not None else (self.path,)), frame_index),
                "fit",
                _rid("surface_video"),
                "android.view.SurfaceView",
            )
        )
        root.children.append(layout)
        if self.hud_until is None or now >= self.hud_until:
            return
        root.children.append(
            _node(
                "android.widget.TextView",
                (PAD, top + 40, SCREEN_W - PAD, top + 160),
                title,
                rid=_rid("player_overlay_title"),
                role="title",
                style=50,
            )
        )
        hud = _node("android.view.ViewGroup", (0, HUD_TOP, SCREEN_W, HUD_TOP + HUD_H), rid=_rid("progress_overlay"))
        root.children.append(hud)
        elapsed, total = int(pos * 1000), int(length * 1000)
        shown_len = ms_text(-(total - elapsed)) if self.remaining else ms_text(total)

        def toggle_time() -> str:
            self.remaining = not self.remaining
            self._touched(dev)
            return f"Tap the time to show the {'time left' if self.remaining else 'length'}"

        y = HUD_TOP + 20
        hud.children.append(
            _node(
                "android.widget.TextView",
                (60, y, 400, y + 80),
                ms_text(elapsed),
                rid=_rid("player_overlay_time"),
                on_tap=toggle_time,
                role="text",
                style=40,
            )
        )
        hud.children.append(
            _node(
                "android.widget.TextView",
                (SCREEN_W - 400, y, SCREEN_W - 60, y + 80),
                shown_len,
                rid=_rid("player_overlay_length"),
                on_tap=toggle_time,
                role="text",
                style=40,
            )
        )
        bar = (40, y + 100, SCREEN_W - 40, y + 200)
        percent = int(100 * pos / length) if length else 0

        def seek_tap() -> str:
            if not length:
                raise Inapplicable("this video cannot be sought")
            x = dev.touch_point[0] if dev.touch_point else None
            if x is None:
                return "Tap the seek bar (the position stays)"
            at = (min(max(x, bar[0]), bar[2]) - bar[0]) / (bar[2] - bar[0]) * length
            self._seek(dev, at)
            return f"Tap the seek bar at {ms_text(int(at * 1000))}"

        def seek_drag(content_dir: str, frac: float) -> str:
            if content_dir not in ("left", "right"):
                raise Inapplicable("the seek bar moves sideways: swipe left or right on it")
            if not length:
                raise Inapplicable("this video cannot be sought")
            finger = "right" if content_dir == "left" else "left"
            x = dev.touch_point[0] if dev.touch_point else None
            start = (min(max(x, bar[0]), bar[2]) - bar[0]) / (bar[2] - bar[0]) * length if x is not None else pos
            at = max(0.0, min(length, start + (1 if finger == "right" else -1) * frac * length))
            self._seek(dev, at)
            return f"Drag the seek bar {finger} to {ms_text(int(at * 1000))}"

        hud.children.append(
            _node(
                "android.widget.SeekBar",
                bar,
                rid=_rid("player_overlay_seekbar"),
                on_tap=seek_tap,
                on_scroll=seek_drag,
                focusable=True,
                role="slider",
                style=percent,
                label="seek bar",
            )
        )
        playing = self.started is not None
        cy = y + 330
        hud.children.append(
            _node(
                "android.widget.ImageView",
                (SCREEN_W // 2 - 90, cy - 90, SCREEN_W // 2 + 90, cy + 90),
                desc="Pause" if playing else "Play",
                rid=_rid("player_overlay_play"),
                on_tap=lambda: self.toggle(dev),
                role="icon",
                style="pause" if playing else "play",
            )
        )


def _frame_index(f: MediaFile | None, second: float) -> int:
    """Which frame of a made video shows at ``second`` (what the picture's cache key names)."""
    if f is None or not f.frames:
        return -1
    t = 0
    for i, (_, seconds) in enumerate(f.frames):
        t += seconds
        if second < t:
            return i
    return len(f.frames) - 1


# ----------------------------------------------------------------------------- what was shown


def frame_slots(f: MediaFile | None) -> tuple[tuple[str, int], ...]:
    """A video's frames as (text, seconds): a made video's own, else one untold second each."""
    if f is None:
        return ()
    return f.frames or (("", 1),) * f.duration()


def shown_frames(dev: Device, path: str) -> set[int]:
    """The frames of the made video at ``path`` that VLC's player has had on screen: the frames
    of every stretch played (and every paused picture), including the playback going on now. A
    video the phone did not make (pushed over adb: its pictures are not decoded) counts each
    second of its length as a frame (:func:`frame_slots`)."""
    f = media(dev).files.get(path)
    slots = frame_slots(f)
    if not slots:
        return set()
    stretches = list(dev.data("vlc").shown.get(path, []))
    for screen in dev.state.stacks.get("vlc", []):
        if isinstance(screen, VlcPlayer) and screen.path == path and not screen.done and not screen.asking:
            stretches.append((screen.offset, screen.position(dev)))
    bounds, t = [], 0
    for _, seconds in slots:
        bounds.append((t, t + seconds))
        t += seconds
    out: set[int] = set()
    for a, b in stretches:
        a, b = min(a, b), max(a, b)
        for i, (lo, hi) in enumerate(bounds):
            if (a < hi and b > lo) or (a == b and lo <= min(a, t - 1e-9) < hi):
                out.add(i)
    return out


def playing(dev: Device, path: str) -> bool:
    """VLC's player is open on ``path`` (or was: it showed some of it)."""
    if dev.data("vlc").shown.get(path):
        return True
    return any(isinstance(s, VlcPlayer) and s.path == path for s in dev.state.stacks.get("vlc", []))
