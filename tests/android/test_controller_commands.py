"""The commands AndroidWorld's and AndroidLab's controllers send, as they send them, against the
simulated phone served over adb: AndroidWorld's through android_env's AdbController (argv lists
that ``adb shell`` joins for the device's sh, its text typed word by word with backslash escapes
and ``%s``), AndroidLab's as the command lines its local shell hands to ``adb``."""

from __future__ import annotations

import base64
from collections.abc import Iterator

import numpy as np
import pytest
from _adb import adb, adb_binary
from android_env.components import adb_controller, config_classes

from gui_gym.android.sim.adb.server import AdbServer, serve_adb


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10)
    yield srv
    srv.close()


def world(server: AdbServer) -> adb_controller.AdbController:
    """android_env's own AdbController, as AndroidWorld's environment configures it."""
    config = config_classes.AdbControllerConfig(
        adb_path=adb_binary(), adb_server_port=server.port, device_name="emulator-5554"
    )
    return adb_controller.AdbController(config)


def _escaped(word: str) -> str:
    """AndroidWorld's typing escape: a backslash before each of sh's special characters."""
    for c in "\\;|`\r '\"&<>()#$":
        word = word.replace(c, "\\" + c)
    return word


def test_androidworlds_steps(server: AdbServer) -> None:
    ctl = world(server)
    device = server.backend.device
    server.backend.start("ContactsAddContact", np.random.default_rng(0))
    assert ctl.execute_command(["shell", "whoami"]).strip() == b"root"  # no `adb root` needed
    assert b"Physical size: 1080x2400" in ctl.execute_command(["shell", "wm", "size"])
    assert b"logicalFrame=[0, 0, 1080, 2400]" in ctl.execute_command(["shell", "dumpsys input | grep logicalFrame"])
    assert b"ROTATION_0" in ctl.execute_command(["shell", "dumpsys window | grep mCurrentRotation"])
    ctl.execute_command(["shell", "date", "1015153423.00"])
    assert device.state.now.strftime("%Y-%m-%d %H:%M") == "2023-10-15 15:34"
    # launch by the default VIEW URI, then by activity
    ctl.execute_command(
        ["shell", "am", "start", "-a", "android.intent.action.VIEW", "-d", "content://contacts/people/"]
    )
    assert device.state.foreground == "contacts"
    out = ctl.execute_command(["shell", "am stack list | grep -E visible=true"])
    assert b"com.google.android.contacts/" in out
    ctl.execute_command(["shell", "input", "tap", "935", "2129"])  # Create contact
    text = "O'Neil & Sons; $(reboot) `id`"
    for i, word in enumerate(text.split(" ")):  # word by word, %s between, as type_text sends them
        if i:
            ctl.execute_command(["shell", "input", "text", "%s"])
        ctl.execute_command(["shell", "input", "text", _escaped(word)])
    host, key = device.focused_host()
    assert host.form[key] == text
    ctl.execute_command(["shell", "input keycombination 113 29 && input keyevent 67"])  # clear_text
    assert host.form[key] == ""
    ctl.execute_command(["shell", "input", "swipe", "540", "1800", "540", "600", ""])  # AndroidWorld's '' duration
    ctl.execute_command(["shell", "uiautomator", "dump", "/sdcard/window_dump.xml"])
    assert ctl.execute_command(["shell", "cat", "/sdcard/window_dump.xml"]).startswith(b"<?xml")
    ctl.execute_command(["shell", "am", "force-stop", "com.google.android.contacts"])
    assert device.state.foreground is None and "contacts" not in device.state.stacks
    ctl.execute_command(["shell", "am", "start", "-W", "-n", "com.android.settings/.Settings"])
    assert device.state.foreground == "settings"
    ctl.execute_command(["shell", "settings", "put", "global", "wifi_on", "1"])
    assert ctl.execute_command(["shell", "settings", "get", "global", "wifi_on"]).strip() == b"1"
    query = "content query --uri content://contacts/phones/ --projection display_name:number"
    rows = ctl.execute_command(["shell", query])
    assert rows.startswith(b"Row: 0 display_name=")
    assert ctl.execute_command(["shell", "pm", "clear", "com.android.providers.contacts"]).strip() == b"Success"
    assert ctl.execute_command(["shell", "service", "call", "alarm", "3", "s16", "UTC"]).startswith(b"Result:")


def test_androidlabs_steps(server: AdbServer) -> None:
    device = server.backend.device
    server.backend.start("ContactsAddContact", np.random.default_rng(0))
    port = server.port
    launch = "monkey -p com.google.android.contacts -c android.intent.category.LAUNCHER 1"
    assert adb(port, "shell", launch).returncode == 0
    assert b"com.google.android.contacts/" in adb(port, "shell", "dumpsys window").stdout  # its grep runs locally
    adb(port, "shell", "input tap 935.0 2129.0")  # centres may be floats
    msg = base64.b64encode("Zoë Ångström".encode()).decode()  # ADB Keyboard: any text, base64
    out = adb(port, "shell", f"am broadcast -a ADB_INPUT_B64 --es msg '{msg}'")
    assert b"Broadcast completed: result=-1" in out.stdout
    host, key = device.focused_host()
    assert host.form[key] == "Zoë Ångström"
    adb(port, "shell", "input keyevent --press " + " ".join(["67"] * 100))  # its field clear
    assert host.form[key] == ""
    adb(port, "shell", "input keyevent KEYCODE_BACK")
    assert adb(port, "shell", "uiautomator dump /sdcard/3.xml").returncode == 0
    assert adb(port, "shell", "screencap -p /sdcard/screenshot-3-before.png").returncode == 0
    assert set(server.shell.files) >= {"/sdcard/3.xml", "/sdcard/screenshot-3-before.png"}
    assert adb(port, "shell", "getprop persist.sys.timezone").stdout == b"UTC\n"
    assert adb(port, "shell", "settings get global airplane_mode_on").stdout == b"0\n"
