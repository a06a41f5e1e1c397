"""AndroidWorld's Camera tasks (``task_evals/single/camera.py``): ``CameraTakePhoto`` and
``CameraTakeVideo``.

Both set up alike (``_Camera._clear_app_data``): ``/sdcard/Pictures`` and ``/sdcard/Movies``
emptied (``file_utils.clear_directory``: ``rm -r <folder>/*``), then the folder's listing noted
(``adb shell ls /sdcard/Pictures`` for the photo, ``/sdcard/Movies`` for the video). The check lists
the folder again and wants exactly one name more than at the start: one photo taken (one video)
passes, none or two fail; a video does not count for the photo task, nor a photo for the video task.
They draw no parameters.

On the phone the camera puts photos in ``Pictures`` and videos in ``Movies`` of the media store
(:mod:`gui_gym.android.sim.apps.camera.app`), which the served phone shows as those folders.
The camera's first start asks for its camera and microphone permissions (AndroidWorld's set-up
grants neither) and shows its first-run prompt; the oracle answers both ("While using the app",
NEXT), switches to video through the mode list where needed and taps the shutter (twice for a
video: start, stop).
"""

from __future__ import annotations

import posixpath
import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.apps.camera.app import (
    CRITICAL,
    MODES,
    PHOTOS,
    PKG,
    VIDEOS,
    CameraScreen,
    Filmstrip,
    PermissionsScreen,
)
from gui_gym.android.sim.media import media
from gui_gym.android.sim.permissions import BUTTONS, GrantPermissions, is_granted
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, back_stack, in_app

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

_ALLOW = BUTTONS[0][0]  # the grant dialog's "While using the app" (its view id)


def listing(dev: Device, folder: str) -> list[str]:
    """``adb shell ls /sdcard/<folder>``: the names of the files and folders directly in it, sorted."""
    store = media(dev)
    names = {f.name for f in store.files.values() if f.folder == folder}
    names |= {posixpath.basename(d) for d in store.dirs if posixpath.dirname(d) == folder}
    return sorted(names)


def new_count(dev: Device, params: Params, folder: str) -> int:
    """How many names ``folder`` lists now that it did not at the start (``after - before``)."""
    return len(set(listing(dev, folder)) - set(params.get("before", [])))


def _camera(dev: Device) -> CameraScreen | None:
    stack = back_stack(dev, "camera")
    top = stack[-1] if stack else None
    return top if isinstance(top, CameraScreen) else None


def _opened(dev: Device) -> bool:
    return in_app(dev, "camera")


def _granted(dev: Device) -> bool:
    return all(is_granted(dev, PKG, perm) for _, perm in CRITICAL)


def _viewfinder(dev: Device) -> bool:
    """The camera's viewfinder is (or was) reached: permissions granted, first-run prompt answered."""
    return _granted(dev) and dev.data("camera").record_location is not None


def _recording(dev: Device) -> bool:
    cam = _camera(dev)
    return cam is not None and cam.recording is not None


class _CameraTask(AndroidWorldTask):
    """``_Camera``: Pictures and Movies emptied, ``folder``'s listing noted; one new name wanted."""

    app = "camera"
    apps = ("camera",)
    folder: ClassVar[str] = PHOTOS
    mode: ClassVar[str] = "photo"

    def generate(self, r: random.Random) -> Params:
        return {}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        store = media(dev)
        store.clear(PHOTOS)  # file_utils.clear_directory(PHOTOS_DATA)
        store.clear(VIDEOS)  # ... (VIDEOS_DATA)
        self.observe_start(dev, params)

    def observe_start(self, dev: Device, params: Params) -> None:
        params["before"] = listing(dev, self.folder)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return new_count(dev, params, self.folder) == 1

    def oracle(self, o: Oracle) -> str:
        dev = o.dev
        if self.check(dev, o.p, None, None):
            return o.finish()
        cam = _camera(dev)
        if o.app != "camera" or not back_stack(dev, "camera"):
            return o.launch("Camera")
        s = o.screen
        if isinstance(s, GrantPermissions):
            return o.tap(o.find(rid=_ALLOW))
        if isinstance(s, PermissionsScreen | Filmstrip) or cam is None or s is not cam:
            return o.back()
        if dev.data("camera").record_location is None:  # the first-run prompt
            return o.tap(o.find("NEXT"))
        if cam.recording is not None:  # stop: the video is saved
            return o.tap(o.find(desc="Shutter"))
        if dev.data("camera").mode != self.mode:
            if not cam.mode_list:
                return o.tap(o.find("Mode list"))
            return o.tap(o.find(desc=MODES[self.mode][1]))
        return o.tap(o.find(desc="Shutter"))


class CameraTakePhoto(_CameraTask):
    """``CameraTakePhoto``: one new name in ``/sdcard/Pictures``."""

    id = "CameraTakePhoto"
    template = "Take one photo."
    difficulty = "easy"
    optimal_steps = 2
    tags = ("",)
    folder = PHOTOS
    mode = "photo"
    milestones = (
        Milestone("Open the Camera app", lambda d, p: _opened(d) or new_count(d, p, PHOTOS) > 0),
        Milestone(
            "Allow the camera's permissions and reach the viewfinder",
            lambda d, p: _viewfinder(d) or new_count(d, p, PHOTOS) > 0,
        ),
        Milestone("Tap the shutter to take one photo", lambda d, p: new_count(d, p, PHOTOS) == 1),
    )


class CameraTakeVideo(_CameraTask):
    """``CameraTakeVideo``: one new name in ``/sdcard/Movies``."""

    id = "CameraTakeVideo"
    template = "Take one video."
    difficulty = "medium"
    optimal_steps = 3
    tags = ("",)
    folder = VIDEOS
    mode = "video"
    milestones = (
        Milestone("Open the Camera app", lambda d, p: _opened(d) or new_count(d, p, VIDEOS) > 0),
        Milestone(
            "Allow the camera's permissions and reach the viewfinder",
            lambda d, p: _viewfinder(d) or new_count(d, p, VIDEOS) > 0,
        ),
        Milestone(
            "Switch the camera to video mode",
            lambda d, p: d.data("camera").mode == "video" or new_count(d, p, VIDEOS) > 0,
        ),
        Milestone("Tap the shutter to start recording", lambda d, p: _recording(d) or new_count(d, p, VIDEOS) > 0),
        Milestone("Tap the shutter again to stop and save one video", lambda d, p: new_count(d, p, VIDEOS) == 1),
    )


TEMPLATES = (CameraTakePhoto, CameraTakeVideo)

__all__ = ["TEMPLATES", "listing"]
