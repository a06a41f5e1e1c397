"""Camera (com.android.camera2): AOSP's Camera2, as AndroidWorld's emulator has it.

Starting (``CameraLauncher``), the camera checks its runtime permissions (Camera2's
``CameraActivity.checkPermissions``): without camera and microphone it hands over to its
``PermissionsActivity``, which asks for them once (``requestPermissions``: the permission
controller's dialogs "Allow Camera to take pictures and record video?", then "Allow Camera to
record audio?", :mod:`~gui_gym.android.sim.permissions`); both granted, the camera
opens; one denied, or missing again once asked (``KEY_HAS_SEEN_PERMISSIONS_DIALOGS``), it shows
"Camera error" (Dismiss or Back closes the app). AndroidWorld's device set-up grants the camera
coarse location only, so a task starts with the dialogs to come.

The camera itself: the first time, the full-screen first-run prompt "Remember photo locations?"
(a checkbox, NEXT; Back closes the app); then the viewfinder: the preview
(``preview_content``, a picture of the scene), the accessibility buttons Camera2 shows when a
Google accessibility service runs ("Mode list", "Filmstrip" at the top left, as on AndroidWorld's
emulator), and the bottom bar with the shutter (``shutter_button``, described "Shutter") and the
rounded thumbnail of the last capture. The mode list (the button, or a swipe right on the
preview) switches between "Camera" (photo) and "Video". In photo mode the shutter takes a photo:
``Pictures/IMG_yyyyMMdd_HHmmss.jpg`` in the media store (Camera2 inserts into
``MediaStore.Images`` without a folder, which lands in ``Pictures``, where AndroidWorld's
``CameraTakePhoto`` looks); in video mode it starts recording (``recording_time`` counts) and
stops: ``Movies/VID_yyyyMMdd_HHmmss.mp4``, named at the start, one frame per recorded second
showing that second's time. The thumbnail (or "Filmstrip", or a swipe left) opens the captures.

Database: :class:`CameraData` (the camera's own preferences: permission dialogs seen, the
location answer, the mode, the captures it made).
"""

from __future__ import annotations

import datetime as dt
import posixpath
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.camera import pictures
from gui_gym.android.sim.dialogs import AlertDialog
from gui_gym.android.sim.media import MediaFile, media
from gui_gym.android.sim.permissions import (
    ACCESS_COARSE_LOCATION,
    ACCESS_FINE_LOCATION,
    CAMERA,
    RECORD_AUDIO,
    GrantPermissions,
    is_granted,
)
from gui_gym.android.sim.widgets import NAV_TOP, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.android.camera2"
LABEL = "Camera"
#: AndroidWorld's activity for "camera" (an alias of ``com.android.camera.CameraActivity``)
LAUNCHER = "com.android.camera.CameraLauncher"
PERMISSIONS_ACTIVITY = "com.android.camera.PermissionsActivity"
PHOTOS, VIDEOS = "Pictures", "Movies"  # where MediaStore puts images and videos inserted without a folder
#: the critical permissions, by the group the grant dialog asks for
CRITICAL = (("camera", CAMERA), ("microphone", RECORD_AUDIO))
#: Camera2's modes (``ModeListView`` items): mode -> (item text, its description)
MODES = {"photo": ("Camera", "Switch to photo"), "video": ("Video", "Switch to video")}
LOCATION_TITLE = "Remember photo locations?"
LOCATION_PROMPT = "Tag your photos and videos with the locations where they\u2019re taken."
ERROR_TITLE = "Camera error"
ERROR_MESSAGE = "The app does not have critical permissions needed to run. Please check your permissions settings."
BAR_TOP = NAV_TOP - 380  # the bottom bar, over the preview


@dataclass
class CameraData:
    """The camera's preferences (Camera2's ``SettingsManager`` keys) and what it captured."""

    seen_permission_dialogs: bool = False  # KEY_HAS_SEEN_PERMISSIONS_DIALOGS
    record_location: bool | None = None  # KEY_RECORD_LOCATION; None: not asked (the first-run prompt shows)
    mode: str = "photo"  # the module it starts in (KEY_STARTUP_MODULE_INDEX)
    captures: list[str] = field(default_factory=list)  # media store paths of its photos and videos, oldest first


def _db(dev: Device) -> CameraData:
    return dev.data("camera")


def _node(cls: str, bounds: tuple[int, int, int, int], text: str = "", **kw: Any) -> Node:
    return Node(cls, bounds, text, package=PKG, **kw)


def _picture(cls: str, box: tuple[int, int, int, int], picture: Any, key: tuple, mode: str = "crop", **kw: Any) -> Node:
    """An image view showing ``picture()`` (a picture only the screenshot shows)."""
    return _node(cls, box, picture=picture, role="picture", style=(mode, *key), **kw)


# ----------------------------------------------------------------------------- capturing


def captures(dev: Device) -> list[MediaFile]:
    """The camera's photos and videos still in the media store, oldest first."""
    files = media(dev).files
    return [files[p] for p in _db(dev).captures if p in files]


def _unique(dev: Device, folder: str, stem: str, ext: str) -> str:
    """``folder/stem.ext``; a second one in the same second gets ``_1``, ``_2`` … (Camera2's
    ``NamedImages``)."""
    files, n = media(dev).files, 0
    path = posixpath.join(folder, stem + ext)
    while path in files:
        n += 1
        path = posixpath.join(folder, f"{stem}_{n}{ext}")
    return path


def take_photo(dev: Device) -> MediaFile:
    """The shutter in photo mode: ``Pictures/IMG_yyyyMMdd_HHmmss.jpg`` now."""
    now = dev.state.now
    path = _unique(dev, PHOTOS, now.strftime("IMG_%Y%m%d_%H%M%S"), ".jpg")
    f = media(dev).add_file(path, pictures.photo_jpeg(), now)
    _db(dev).captures.append(path)
    return f


def save_video(dev: Device, start: dt.datetime) -> MediaFile:
    """Recording from ``start`` stopped now: ``Movies/VID_<start>.mp4``, one frame per second."""
    now = dev.state.now
    seconds = max(1, int((now - start).total_seconds()))
    frames = [((start + dt.timedelta(seconds=i)).strftime("%H:%M:%S"), 1) for i in range(seconds)]
    path = _unique(dev, VIDEOS, start.strftime("VID_%Y%m%d_%H%M%S"), ".mp4")
    f = media(dev).add_video(path, frames, now, size=pictures.VIDEO_SIZE)
    _db(dev).captures.append(path)
    return f


def missing_groups(dev: Device) -> list[str]:
    """The permission groups ``PermissionsActivity`` would ask for now: camera and microphone if
    not granted, location if the camera records locations and has neither location permission."""
    groups = [g for g, perm in CRITICAL if not is_granted(dev, PKG, perm)]
    if _db(dev).record_location and not any(
        is_granted(dev, PKG, p) for p in (ACCESS_COARSE_LOCATION, ACCESS_FINE_LOCATION)
    ):
        groups.append("location")
    return groups


def start(dev: Device) -> Screen:
    """What a start of the camera shows (``CameraActivity.checkPermissions``)."""
    missing = missing_groups(dev)
    critical = [g for g in missing if g != "location"]
    db = _db(dev)
    if not missing or (not critical and db.seen_permission_dialogs):
        return CameraScreen()
    if not db.seen_permission_dialogs:
        return PermissionRequest(missing)
    return PermissionsScreen()


def _replace_top(dev: Device, screen: Screen) -> None:
    """The activity in front finishes and ``screen`` starts in its place."""
    stack = dev.state.stacks["camera"]
    stack[-1] = screen
    dev.state.keyboard = False


# ----------------------------------------------------------------------------- permissions


class PermissionRequest(GrantPermissions):
    """The grant dialogs over Camera2's (black) ``PermissionsActivity``."""

    def __init__(self, groups: list[str]) -> None:
        super().__init__(PKG, LABEL, groups)

    def done(self, dev: Device, results: dict[str, bool]) -> str | None:
        """``PermissionsActivity.onRequestPermissionsResult``: the dialogs count as seen; camera
        and microphone granted open the camera, else "Camera error"."""
        _db(dev).seen_permission_dialogs = True
        if all(is_granted(dev, PKG, perm) for _, perm in CRITICAL):
            _replace_top(dev, CameraScreen())
            return "the camera opens"
        _replace_top(dev, PermissionsScreen())
        return f'the camera shows "{ERROR_TITLE}"'


class PermissionsScreen(Screen):
    """Camera2's ``PermissionsActivity`` lacking a critical permission: black, with the
    "Camera error" alert (not cancelable); Dismiss or Back closes the app."""

    activity = PERMISSIONS_ACTIVITY

    def build(self, ui: UI, dev: Device) -> None:
        ui.add(
            _picture(
                "android.widget.FrameLayout",
                (0, ui.top, SCREEN_W, ui.bottom),
                pictures.solid,
                ("bar",),
                rid=f"{PKG}:id/permissions",
            )
        )
        # The alert is drawn as AlertDialog lays it out; it belongs to this activity, so Back
        # (its key listener finishes the activity) reaches on_back.
        alert = AlertDialog("on_alert", ERROR_TITLE, ERROR_MESSAGE, [("Dismiss", "dismiss")])
        alert.cancelable = False
        ui.add(_node("android.view.View", (0, ui.top, SCREEN_W, ui.bottom), role="scrim"))
        alert.build(ui, dev)

    def on_alert(self, dev: Device, value: Any) -> str:
        dev.pop()
        return 'Tap "Dismiss": the camera closes'

    def on_back(self, dev: Device) -> str | None:
        return None  # finishes the activity


# ----------------------------------------------------------------------------- the camera


class CameraScreen(Screen):
    """``CameraActivity``: the first-run prompt, then the viewfinder."""

    def __init__(self) -> None:
        super().__init__()
        self.tag_locations = True  # the first-run prompt's checkbox (checked by default)
        self.mode_list = False
        self.recording: dt.datetime | None = None  # when the recording started

    def screen_name(self) -> str:
        return "Camera/" + ("recording" if self.recording else "viewfinder")

    def build(self, ui: UI, dev: Device) -> None:
        db = _db(dev)
        if db.record_location is None:
            self._first_run(ui, dev)
            return
        top, bottom = ui.top, ui.bottom
        kids: list[Node] = [
            _picture(
                "android.view.TextureView",
                (0, top, SCREEN_W, bottom),
                pictures.scene,
                ("camera-scene",),
                rid=f"{PKG}:id/preview_content",
                on_tap=lambda: self._focus_tap(),
                on_scroll=lambda d, f: self._swipe(dev, d),
            )
        ]
        if self.recording is not None:
            secs = int((dev.state.now - self.recording).total_seconds())
            kids.append(
                _node(
                    "android.widget.TextView",
                    (390, top + 190, 690, top + 280),
                    f"{secs // 60:02d}:{secs % 60:02d}",
                    rid=f"{PKG}:id/recording_time",
                    role="text",
                    style=48,
                )
            )
        kids.append(self._bottom_bar(dev, db))
        kids.append(self._affordances(dev, top))
        if self.mode_list:
            kids.append(self._modes(dev, db, top, bottom))
        ui.add(
            _node(
                "android.widget.FrameLayout", (0, top, SCREEN_W, bottom), rid=f"{PKG}:id/camera_app_root", children=kids
            )
        )

    # -- the first-run prompt ------------------------------------------------------------
    def _first_run(self, ui: UI, dev: Device) -> None:
        top, bottom = ui.top, ui.bottom
        y = top + 300
        title = _node(
            "android.widget.TextView", (80, y, SCREEN_W - 80, y + 110), LOCATION_TITLE, role="title", style=52
        )
        image = _node("android.widget.ImageView", (240, y + 180, SCREEN_W - 240, y + 780))
        checked = self.tag_locations

        def toggle() -> str:
            self.tag_locations = not checked
            return f'{"Uncheck" if checked else "Check"} "{LOCATION_PROMPT}"'

        box = _node(
            "android.widget.CheckBox",
            (80, y + 860, SCREEN_W - 80, y + 1000),
            LOCATION_PROMPT,
            rid=f"{PKG}:id/check_box",
            checkable=True,
            checked=checked,
            clickable=True,
            on_tap=toggle,
            role="checkbox",
            label="Tag your photos and videos with locations",
        )
        nxt = _node(
            "android.widget.Button",
            (SCREEN_W - 380, bottom - 220, SCREEN_W - 80, bottom - 90),
            "NEXT",
            rid=f"{PKG}:id/confirm_button",
            clickable=True,
            on_tap=lambda: self._confirm_location(dev),
            role="textbutton",
        )
        row = _node("android.widget.LinearLayout", box.bounds, children=[box])
        ui.add(
            _node(
                "android.widget.FrameLayout",
                (0, top, SCREEN_W, bottom),
                children=[title, image, row, nxt],
                role="panel",
                style="opaque",
            )
        )

    def _confirm_location(self, dev: Device) -> str:
        _db(dev).record_location = self.tag_locations
        return f'Tap "NEXT": {"tag" if self.tag_locations else "do not tag"} photos with their location'

    # -- the viewfinder ------------------------------------------------------------------
    def _focus_tap(self) -> str:
        if self.mode_list:
            self.mode_list = False
            return "Tap the viewfinder to close the mode list"
        return "Tap the viewfinder to focus"

    def _swipe(self, dev: Device, content_dir: str) -> str:
        if content_dir == "left" and self.recording is None:  # a finger moving right: the mode list
            self.mode_list = True
            return "Swipe right on the viewfinder to open the mode list"
        if content_dir == "right":  # a finger moving left
            if self.mode_list:
                self.mode_list = False
                return "Swipe left to close the mode list"
            return self._filmstrip(dev, "Swipe left on the viewfinder")
        raise Inapplicable("the viewfinder does not scroll: swipe right for the mode list, left for the filmstrip")

    def _bottom_bar(self, dev: Device, db: CameraData) -> Node:
        box = (0, BAR_TOP, SCREEN_W, NAV_TOP)
        kind = "recording" if self.recording is not None else db.mode
        kids = [
            _picture(
                "android.widget.ImageView",
                (440, BAR_TOP + 90, 640, BAR_TOP + 290),
                lambda k=kind: pictures.shutter(k),
                ("shutter", kind),
                desc="Shutter",
                rid=f"{PKG}:id/shutter_button",
                clickable=True,
                on_tap=lambda: self._shutter(dev),
            )
        ]
        last = captures(dev)[-1] if captures(dev) else None
        if last is not None and self.recording is None:
            kids.append(
                _picture(
                    "android.view.View",
                    (110, BAR_TOP + 125, 240, BAR_TOP + 255),
                    lambda f=last: f.picture(),
                    ("capture", *last.key()),
                    rid=f"{PKG}:id/rounded_thumbnail_view",
                    clickable=True,
                    on_tap=lambda: self._filmstrip(dev, "Tap the thumbnail"),
                )
            )
        return _picture(
            "android.widget.FrameLayout",
            box,
            pictures.solid,
            ("bar",),
            rid=f"{PKG}:id/bottom_bar",
            children=kids,
        )

    def _affordances(self, dev: Device, top: int) -> Node:
        """The buttons Camera2 shows while a Google accessibility service runs (AndroidWorld's
        accessibility forwarder is one): "Mode list" and "Filmstrip", at the top left."""
        buttons = [
            _node(
                "android.widget.Button",
                (20, top + 20, 320, top + 150),
                "Mode list",
                desc="Toggle mode list",
                rid=f"{PKG}:id/accessibility_mode_toggle_button",
                clickable=True,
                on_tap=lambda: self._toggle_modes(),
                role="button",
            ),
            _node(
                "android.widget.Button",
                (340, top + 20, 640, top + 150),
                "Filmstrip",
                desc="Toggle filmstrip",
                rid=f"{PKG}:id/accessibility_filmstrip_toggle_button",
                clickable=True,
                on_tap=lambda: self._filmstrip(dev, 'Tap "Filmstrip"'),
                role="button",
            ),
        ]
        return _node(
            "android.widget.LinearLayout",
            (20, top + 20, 640, top + 150),
            rid=f"{PKG}:id/accessibility_affordances",
            children=buttons,
        )

    def _toggle_modes(self) -> str:
        if self.recording is not None:
            raise Inapplicable("the mode list does not open while recording")
        self.mode_list = not self.mode_list
        return f'Tap "Mode list" to {"open" if self.mode_list else "close"} the mode list'

    def _modes(self, dev: Device, db: CameraData, top: int, bottom: int) -> Node:
        """``ModeListView``: a panel on the left with one item per mode."""
        items = []
        y = top + 300
        for mode, (text, desc) in MODES.items():
            box = (0, y, 760, y + 200)
            label = _node(
                "android.widget.TextView",
                (200, y + 50, 740, y + 150),
                text,
                rid=f"{PKG}:id/selector_text",
                role="text",
                style=48,
            )
            icon = _node("android.view.View", (40, y + 40, 160, y + 160), rid=f"{PKG}:id/selector_icon")
            items.append(
                _node(
                    "android.widget.FrameLayout",
                    box,
                    desc=desc,
                    clickable=True,
                    selected=db.mode == mode,
                    on_tap=lambda m=mode: self._set_mode(dev, m),
                    label=text,
                    role="row",
                    children=[label, icon],
                )
            )
            y += 200
        listing = _node(
            "android.widget.LinearLayout", (0, top + 300, 760, y), rid=f"{PKG}:id/mode_list", children=items
        )
        return _node(
            "android.widget.FrameLayout",
            (0, top, 760, bottom),
            rid=f"{PKG}:id/mode_list_layout",
            children=[listing],
            role="panel",
            style="opaque",
        )

    def _set_mode(self, dev: Device, mode: str) -> str:
        _db(dev).mode = mode
        self.mode_list = False
        return f'Tap "{MODES[mode][0]}" in the mode list: {"video" if mode == "video" else "photo"} mode'

    def _shutter(self, dev: Device) -> str:
        db = _db(dev)
        if self.mode_list:
            self.mode_list = False
        if self.recording is not None:
            f = save_video(dev, self.recording)
            self.recording = None
            return f'Tap the "Shutter" button to stop recording: {f.name} ({f.duration()} s) saved'
        if db.mode == "video":
            self.recording = dev.state.now
            return 'Tap the "Shutter" button to start recording a video'
        f = take_photo(dev)
        return f'Tap the "Shutter" button to take a photo: {f.name} saved'

    def _filmstrip(self, dev: Device, did: str) -> str:
        if self.recording is not None:
            raise Inapplicable("the filmstrip does not open while recording")
        if not captures(dev):
            raise Inapplicable("no photos or videos yet: the filmstrip is empty")
        self.mode_list = False
        dev.push(Filmstrip(len(captures(dev)) - 1))
        return f"{did} to open the filmstrip"

    def on_back(self, dev: Device) -> str | None:
        if self.mode_list:
            self.mode_list = False
            return "Press Back to close the mode list"
        if self.recording is not None:  # leaving stops and saves the recording
            save_video(dev, self.recording)
            self.recording = None
        return None


class Filmstrip(Screen):
    """The camera's filmstrip: one capture, whole, on black; swipe for the others; Back returns."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index

    def build(self, ui: UI, dev: Device) -> None:
        files = captures(dev)
        if not files:
            return
        self.index = max(0, min(self.index, len(files) - 1))
        f = files[self.index]
        desc = ("Video" if f.kind == "video" else "Photo") + f" taken on {f.mtime.strftime('%b %-d, %Y %-I:%M:%S %p')}"

        def swipe(content_dir: str, frac: float) -> str:
            step = {"right": 1, "left": -1}.get(content_dir)
            if step is None:
                raise Inapplicable("swipe left or right for the other photos and videos")
            new = self.index - step  # a finger moving left (content right) shows the older one
            if not 0 <= new < len(files):
                return f"Swipe in the filmstrip (no {'older' if step > 0 else 'newer'} capture)"
            self.index = new
            return f"Swipe to {files[new].name} in the filmstrip"

        ui.add(
            _picture(
                "android.widget.ImageView",
                (0, ui.top, SCREEN_W, ui.bottom),
                lambda: f.picture(),
                ("capture", *f.key()),
                mode="fit",
                desc=desc,
                rid=f"{PKG}:id/filmstrip_view",
                on_scroll=swipe,
            )
        )


class CameraApp(App):
    name = "camera"
    label = LABEL
    package = PKG
    activity = LAUNCHER
    aliases = ("camera",)
    color = (90, 90, 96)
    icon = "camera"
    layout = (("android.widget.FrameLayout", f"{PKG}:id/activity_root_view"),)

    def initial_data(self) -> CameraData:
        return CameraData()

    def root(self, dev: Device) -> Screen:
        return start(dev)
