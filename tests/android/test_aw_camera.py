"""The camera (AOSP Camera2) on the simulated phone, and AndroidWorld's ``OpenAppTaskEval`` and
``TurnOnWifiAndOpenApp`` (``task_evals/single/system.py``, ``task_evals/composite/system.py`` at
AndroidWorld's commit :data:`AW_COMMIT`).

The camera's first start shows Android 13's permission dialogs (the permission controller's
activity in front), then never again; photos and videos land where AndroidWorld's camera tasks
look (``Pictures``, ``Movies``) under Camera2's names; the oracles open every app of every seed;
doing nothing fails, and so does leaving a permission dialog over the camera.
"""

from __future__ import annotations

import datetime as dt
import io
import random

import gymnasium as gym
import pytest
from PIL import Image

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import parse_action
from gui_gym.android.sim.apps.camera.app import ERROR_TITLE, LOCATION_TITLE, PKG, CameraScreen, PermissionsScreen
from gui_gym.android.sim.apps.settings.androidworld import APP_PACKAGES, open_app_score
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.media import media, mp4_duration
from gui_gym.android.sim.permissions import (
    CAMERA,
    PERMISSION_CONTROLLER,
    RECORD_AUDIO,
    GrantPermissions,
    grant,
    grants,
    is_granted,
    top_activity,
)
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.sim.tasks.androidworld import DEVICE_TIME

IDS = ("OpenAppTaskEval", "TurnOnWifiAndOpenApp")
CAMERA_DIALOG = "Allow Camera to take pictures and record video?"
MIC_DIALOG = "Allow Camera to record audio?"
GRANT = (
    "com.google.android.permissioncontroller/com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
)


def _act(dev: Device, text: str) -> str:
    out = dev.act(parse_action(text))
    assert out.valid, out.description
    return out.description


def _tap(dev: Device, **match: str) -> str:
    node = next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in match.items()))
    l, t, r, b = node.bounds
    return _act(dev, f'do(action="Tap", element=[{l},{t},{r},{b}])')


def _texts(dev: Device) -> list[str]:
    return [n.text for n in dev.elements() if n.text]


def _phone(now: dt.datetime = DEVICE_TIME) -> Device:
    dev = Device()
    dev.reset(now=now)
    return dev


def _ready_camera(dev: Device, mode: str = "photo") -> None:
    """The camera as after its first start: permissions granted, the first-run prompt answered."""
    grant(dev, PKG, CAMERA)
    grant(dev, PKG, RECORD_AUDIO)
    db = dev.data("camera")
    db.seen_permission_dialogs, db.record_location, db.mode = True, True, mode
    _act(dev, 'do(action="Launch", app="Camera")')


# ----------------------------------------------------------------------------- permissions


def test_the_first_start_asks_for_camera_then_microphone_and_never_again() -> None:
    dev = _phone()
    assert not is_granted(dev, PKG, CAMERA) and not is_granted(dev, PKG, RECORD_AUDIO)
    _act(dev, 'do(action="Launch", app="camera")')
    assert isinstance(dev.top_screen(), GrantPermissions)
    assert top_activity(dev) == GRANT  # the permission controller's activity is in front
    message = next(n for n in dev.elements() if n.rid.endswith("/permission_message"))
    assert (message.text, message.package) == (CAMERA_DIALOG, PERMISSION_CONTROLLER)
    assert message.rid == "com.android.permissioncontroller:id/permission_message"
    buttons = {n.rid.split("/")[-1]: n.text for n in dev.elements() if n.cls == "android.widget.Button"}
    assert buttons == {
        "permission_allow_foreground_only_button": "While using the app",
        "permission_allow_one_time_button": "Only this time",
        "permission_deny_button": "Don\u2019t allow",
    }
    _tap(dev, text="While using the app")
    assert MIC_DIALOG in _texts(dev) and top_activity(dev) == GRANT
    _tap(dev, text="Only this time")
    assert grants(dev)[PKG] == {
        "android.permission.ACCESS_COARSE_LOCATION": "granted",  # AndroidWorld's set-up granted it
        CAMERA: "granted",
        RECORD_AUDIO: "one_time",
    }
    assert top_activity(dev).startswith(f"{PKG}/") and LOCATION_TITLE in _texts(dev)  # Camera2's first-run prompt
    _tap(dev, text="NEXT")
    assert any(n.desc == "Shutter" for n in dev.elements())
    _act(dev, 'do(action="Back")')  # the camera closes ...
    assert dev.state.foreground is None
    _act(dev, 'do(action="Launch", app="camera")')  # ... and starts again without a dialog
    assert isinstance(dev.top_screen(), CameraScreen) and top_activity(dev).startswith(f"{PKG}/")


@pytest.mark.parametrize("how", ["deny", "back"])
def test_a_refusal_leaves_the_camera_erroring_until_granted(how: str) -> None:
    dev = _phone()
    _act(dev, 'do(action="Launch", app="camera")')
    if how == "deny":
        _tap(dev, text="Don\u2019t allow")
        _tap(dev, text="While using the app")  # the microphone is still asked for
    else:
        _act(dev, 'do(action="Back")')  # cancels the request: nothing granted
    assert isinstance(dev.top_screen(), PermissionsScreen) and ERROR_TITLE in _texts(dev)
    assert top_activity(dev) == f"{PKG}/com.android.camera.PermissionsActivity"
    _tap(dev, text="DISMISS")
    assert dev.state.foreground is None
    _act(dev, 'do(action="Launch", app="camera")')  # asked once: no dialog again, the error at once
    assert isinstance(dev.top_screen(), PermissionsScreen)
    _act(dev, 'do(action="Back")')
    grant(dev, PKG, CAMERA)  # pm grant
    grant(dev, PKG, RECORD_AUDIO)
    _act(dev, 'do(action="Launch", app="camera")')
    assert isinstance(dev.top_screen(), CameraScreen)


# ----------------------------------------------------------------------------- capturing


def test_a_photo_lands_in_pictures_named_as_camera2_names_it() -> None:
    dev = _phone()
    _ready_camera(dev)
    before = set(media(dev).files)
    at = dev.state.now
    _tap(dev, desc="Shutter")
    (path,) = set(media(dev).files) - before
    assert path == f"Pictures/IMG_{at:%Y%m%d_%H%M%S}.jpg" == "Pictures/IMG_20231015_153401.jpg"
    pic = Image.open(io.BytesIO(media(dev).files[path].data()))
    assert pic.format == "JPEG" and pic.size == (480, 640)
    thumb = next(n for n in dev.elements() if n.rid == f"{PKG}:id/rounded_thumbnail_view")
    assert thumb.role == "picture" and not thumb.text and not thumb.desc  # what it shows is pixels only


def test_a_video_lands_in_movies_with_a_frame_per_recorded_second() -> None:
    dev = _phone()
    _ready_camera(dev)
    _tap(dev, text="Mode list")
    _tap(dev, desc="Switch to video")
    started = dev.state.now
    _tap(dev, desc="Shutter")
    assert any(n.rid == f"{PKG}:id/recording_time" for n in dev.elements())
    _act(dev, 'do(action="Wait")')
    _tap(dev, desc="Shutter")
    (video,) = media(dev).of_kind("video")
    assert video.path == f"Movies/VID_{started:%Y%m%d_%H%M%S}.mp4"
    assert video.duration() == 4 and mp4_duration(video.data()) == 4  # tap, wait 3 s, tap
    assert [video.frame_at(s) for s in range(4)] == [
        (started + dt.timedelta(seconds=s)).strftime("%H:%M:%S") for s in range(4)
    ]
    assert dev.data("camera").mode == "video"  # the next start is in video mode


# ----------------------------------------------------------------------------- the tasks


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_every_seed(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    for seed in range(30):
        _, info = env.reset(options={"params": {"seed": seed}})
        reached = list(info["milestones"])
        for _ in range(20):
            action = env.unwrapped.oracle_action()
            _, reward, term, trunc, info = env.step(action)
            assert info["format_valid"], (seed, action, info["reason"])
            reached += info["milestones"]
            if term or trunc:
                break
        assert term and info["success"] and reward == 1.0, (seed, info["action_description"])
        assert reached == TASKS[task_id].milestone_texts(env.unwrapped.params), seed
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_doing_nothing_fails(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    for seed in range(5):
        env.reset(options={"params": {"seed": seed}})
        _, _, term, _, info = env.step("finish()")
        assert term and info["success"] is False, seed
    env.close()


def test_the_camera_with_its_permission_dialog_in_front_is_a_near_miss() -> None:
    env = gym.make("GuiAndroid-v0", task="TurnOnWifiAndOpenApp")
    env.reset(options={"params": {"seed": 2}})  # "Turn on Wifi, then open the camera app"
    u = env.unwrapped
    task, dev = TASKS["TurnOnWifiAndOpenApp"], u.device
    dev.state.settings["wifi"] = True
    _act(dev, 'do(action="Launch", app="Camera")')
    assert u.params["app_name"] == "camera" and isinstance(dev.top_screen(), GrantPermissions)
    assert task.score(dev, u.params, None, "complete") == 0.5  # Wi-Fi on, the camera behind the dialog
    assert not task.check(dev, u.params, None, "complete")
    assert not TASKS["OpenAppTaskEval"].check(dev, {"app_name": "camera"}, None, "complete")
    _tap(dev, text="While using the app")  # one of two: the microphone dialog is in front now
    assert open_app_score(dev, "camera") == 0.0
    _tap(dev, text="While using the app")
    assert task.score(dev, u.params, None, "complete") == 1.0
    env.close()


def test_another_app_in_front_is_a_near_miss() -> None:
    dev = _phone()
    _act(dev, 'do(action="Launch", app="Contacts")')
    assert open_app_score(dev, "contacts") == 1.0
    assert open_app_score(dev, "dialer") == 0.0  # the dialer shows the contacts too, but is not in front
    _act(dev, 'do(action="Launch", app="dialer")')
    assert open_app_score(dev, "dialer") == 1.0
    _act(dev, 'do(action="Home")')
    assert open_app_score(dev, "dialer") == 0.0


def test_androidworlds_draw_and_check_by_hand() -> None:
    # system.py OpenAppTaskEval.generate_random_params: random.choice over the keys of
    # _APP_NAME_TO_PACKAGE_NAME (camera, clock, contacts, settings, dialer) after random.seed(seed)
    # (suite_utils._instantiate_task). choice(5 names) draws getrandbits(3) until it is below 5:
    # seed 5 draws 4 at once (the dialer); seed 2 draws 7, 6, 7, 6 (rejected), then 0 (the camera).
    r = random.Random(5)
    assert r.getrandbits(3) == 4
    r = random.Random(2)
    assert [r.getrandbits(3) for _ in range(5)] == [7, 6, 7, 6, 0]
    assert TASKS["OpenAppTaskEval"].sample_seed(5)["app_name"] == "dialer"
    assert TASKS["OpenAppTaskEval"].sample_seed(2)["app_name"] == "camera"
    # is_successful: parse_component_name(current activity).package_name == the app's package; with
    # the grant dialog up the current activity is the permission controller's:
    assert GRANT.split("/")[0] != APP_PACKAGES["camera"] == "com.android.camera2"


def test_the_served_phone_reports_the_grant_dialog_in_front_and_pm_grants() -> None:
    """Over adb: while the grant dialog shows, ``am stack list``'s task is the camera's and its top
    activity the permission controller's (AndroidWorld's ``get_current_activity`` reads it);
    ``pm grant`` grants, ``pm revoke`` revokes and closes the app (Android kills its process)."""
    from gui_gym.android.sim.adb.shell import Shell

    dev = Device()
    dev.reset(now=DEVICE_TIME)
    sh = Shell(dev)
    assert sh.run("am start -n com.android.camera2/com.android.camera.CameraLauncher").status == 0
    listed = sh.run("am stack list").stdout.decode()
    assert "taskId=" in listed and ": com.android.camera2/com.android.camera.CameraLauncher " in listed
    assert f"topActivity=ComponentInfo{{{PERMISSION_CONTROLLER}/" in listed
    focus = sh.run("dumpsys window").stdout.decode()
    assert f"mCurrentFocus=Window{{5c1e0d0 u0 {PERMISSION_CONTROLLER}/" in focus
    assert sh.run(f"pm grant {PKG} {CAMERA}").status == 0 and is_granted(dev, PKG, CAMERA)
    assert sh.run(f"pm revoke {PKG} {CAMERA}").status == 0 and not is_granted(dev, PKG, CAMERA)
    assert dev.state.foreground is None and "camera" not in dev.state.stacks


# ----------------------------------------------------------------------------- CameraTakePhoto / CameraTakeVideo

CAPTURE_IDS = ("CameraTakePhoto", "CameraTakeVideo")


@pytest.mark.parametrize("task_id", CAPTURE_IDS)
def test_the_capture_oracles_solve_every_seed(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    for seed in range(30):
        _, info = env.reset(options={"params": {"seed": seed}})
        reached = list(info["milestones"])
        for _ in range(env.unwrapped._limit):
            action = env.unwrapped.oracle_action()
            _, reward, term, trunc, info = env.step(action)
            assert info["format_valid"], (seed, action, info["reason"])
            reached += info["milestones"]
            if term or trunc:
                break
        assert term and info["success"] and reward == 1.0, (seed, info["action_description"])
        assert reached == TASKS[task_id].milestone_texts(env.unwrapped.params), seed
    env.close()


@pytest.mark.parametrize("task_id", CAPTURE_IDS)
def test_the_capture_tasks_fail_when_idle(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id, obs_mode="text")
    for seed in range(3):
        env.reset(options={"params": {"seed": seed}})
        _, _, term, _, info = env.step("finish()")
        assert term and info["success"] is False, seed
    env.close()


def _captures_start(task_id: str) -> tuple[Device, dict]:
    """The task's start state (its set-up run on a phone with old captures), the camera ready."""
    dev = _phone()
    store = media(dev)
    store.add_file("Pictures/old.jpg", b"\xff\xd8old", DEVICE_TIME)
    store.add_file("Movies/old.mp4", b"old", DEVICE_TIME)
    params = TASKS[task_id].sample_seed(0)
    TASKS[task_id].setup(dev, params, None)  # type: ignore[arg-type]
    return dev, params


def test_a_photo_passes_the_photo_task_but_not_two_nor_a_video() -> None:
    task = TASKS["CameraTakePhoto"]
    dev, p = _captures_start("CameraTakePhoto")
    assert not media(dev).files and p["before"] == []  # _Camera._clear_app_data emptied both folders
    _ready_camera(dev, "video")
    _tap(dev, desc="Shutter")
    _tap(dev, desc="Shutter")  # a video: Movies, not Pictures
    assert media(dev).folder("Movies") and not task.check(dev, p, None, "complete")
    _tap(dev, text="Mode list")
    _tap(dev, desc="Switch to photo")
    _tap(dev, desc="Shutter")
    assert task.check(dev, p, None, "complete")
    _tap(dev, desc="Shutter")  # a second photo: two new names, not one
    assert len(media(dev).folder("Pictures")) == 2 and not task.check(dev, p, None, "complete")


def test_a_video_passes_the_video_task_once_stopped_and_a_photo_does_not() -> None:
    task = TASKS["CameraTakeVideo"]
    dev, p = _captures_start("CameraTakeVideo")
    _ready_camera(dev, "photo")
    _tap(dev, desc="Shutter")  # a photo
    assert not task.check(dev, p, None, "complete")
    _tap(dev, text="Mode list")
    _tap(dev, desc="Switch to video")
    _tap(dev, desc="Shutter")  # recording, not yet saved
    assert not task.check(dev, p, None, "complete")
    _tap(dev, desc="Shutter")
    assert task.check(dev, p, None, "complete")


def test_the_capture_check_by_hand() -> None:
    # camera.py (CameraTakePhoto.initialize_task / is_successful): the set of lines of
    # `adb shell ls /sdcard/Pictures` after, minus the set before, must have exactly one element.
    # Emptied by _clear_app_data, the folder lists "" -> {""}; a photo taken at 15:34:05 adds
    # "IMG_20231015_153405.jpg" (Camera2's name): {"", "IMG_20231015_153405.jpg"} - {""} has one.
    from gui_gym.android.sim.adb.shell import Shell
    from gui_gym.android.sim.apps.camera.androidworld import listing

    dev, p = _captures_start("CameraTakePhoto")
    sh = Shell(dev)
    before = set(sh.run("ls /sdcard/Pictures").stdout.decode().replace("\r", "").split("\n"))
    assert before == {""}
    _ready_camera(dev)
    dev.state.now = DEVICE_TIME + dt.timedelta(seconds=5)
    _tap(dev, desc="Shutter")
    after = set(sh.run("ls /sdcard/Pictures").stdout.decode().replace("\r", "").split("\n"))
    assert after - before == {"IMG_20231015_153405.jpg"} == set(listing(dev, "Pictures"))
    assert TASKS["CameraTakePhoto"].check(dev, p, None, "complete")
