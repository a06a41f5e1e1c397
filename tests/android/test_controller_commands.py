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
    # AndroidWorld's contacts_utils.add_contact (ContactsAddContact starts with none): the INSERT
    # intent as one shell line, then the editor's Save, then Back
    ctl.execute_command(
        ["shell", 'am start -a android.intent.action.INSERT -t vnd.android.cursor.dir/contact -e name "Ann Lee"'
         " -e phone +15550001111"]
    )  # fmt: skip
    save = next(n for n in device.elements() if (n.text or n.desc).lower() == "save")
    ctl.execute_command(["shell", "input", "tap", *map(str, save.center())])
    ctl.execute_command(["shell", "input", "keyevent", "KEYCODE_BACK"])
    query = "content query --uri content://contacts/phones/ --projection display_name:number"
    rows = ctl.execute_command(["shell", query])
    assert rows == b"Row: 0 display_name=Ann Lee, number=+15550001111\n"
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


def test_androidworlds_markor_sms_and_clock_commands(server: AdbServer) -> None:
    """AndroidWorld's file, SMS and Clock commands (``file_utils``, ``sms_validators``,
    ``clock.py``), argv for argv: they reach the Markor notebook, the SMS provider and the Clock."""
    ctl = world(server)
    device = server.backend.device
    server.backend.start("MarkorCreateNote", np.random.default_rng(0))
    base = "/storage/emulated/0/Documents/Markor"
    probe = f'if [ -d {base} ]; then echo "Exists"; else echo "Does not exist"; fi'
    assert ctl.execute_command(["shell", probe]).strip() == b"Exists"
    ctl.execute_command(["shell", "mkdir", "-p", f"{base}/Old"])  # MarkorCreateNote starts with none
    ctl.execute_command(["shell", "echo", "'old'", ">", f"{base}/old.md"])
    assert set(device.data("markor").entries) == {"Old", "old.md"}
    ctl.execute_command(["shell", "rm", "-r", f"{base}/*"])  # the device's sh expands the glob
    assert device.data("markor").entries == {}
    assert ctl.execute_command(["shell", "ls", "-1", base]).strip() == b""
    ctl.execute_command(["shell", "mkdir", "-p", f"{base}/Work"])
    content = "it's done; $(not run)".replace("'", "'\"'\"'")
    ctl.execute_command(["shell", "echo", f"'{content}'", ">", f"{base}/Work/todo.md"])
    note = device.data("markor").get("Work/todo.md")
    assert note is not None and note.content == "it's done; $(not run)\n"  # echo's newline, as on a phone
    found = ctl.execute_command(["shell", "find", base, "-type", "f", "-o", "-type", "d"]).decode().split("\n")
    assert {f"{base}", f"{base}/Work", f"{base}/Work/todo.md"} <= set(found)
    assert ctl.execute_command(["shell", "cat", f"{base}/Work/todo.md"]) == b"it's done; $(not run)\n"
    listing = ctl.execute_command(["shell", "ls", f"{base}/Work", "-ll", "-au"]).decode().splitlines()
    fields = next(line for line in listing if line.startswith("-")).split(maxsplit=8)
    assert fields[8] == "todo.md" and fields[4] == "22" and fields[7] == "+0000"  # name, size, zone

    ctl.execute_command(
        ["shell", "content", "insert", "--uri", "content://sms/inbox", "--bind", "address:s:+15550001111",
         "--bind", "'body:s:Hi, see you=soon'", "--bind", "date:l:1697384040000"]
    )  # fmt: skip
    rows = ctl.execute_command(["shell", "content", "query", "--uri", "content://sms/inbox"]).decode()
    assert rows.startswith("Row: 0 _id=") and "address=+15550001111" in rows and "date=1697384040000" in rows
    assert "body=Hi, see you=soon, service_center=NULL" in rows and "type=1" in rows
    assert ctl.execute_command(["shell", "content", "query", "--uri", "content://sms/sent"]).strip() == (
        b"No result found."
    )
    assert device.data("messages").get("+15550001111").messages[0].text == "Hi, see you=soon"

    ctl.execute_command(["shell", "pm", "clear", "com.google.android.deskclock"])
    ctl.execute_command(
        ["shell", "am", "start", "-W", "-n", "com.google.android.deskclock/com.android.deskclock.DeskClock"]
    )
    out = ctl.execute_command(["shell", "am stack list | grep -E visible=true"]).decode()
    assert out.rstrip().endswith("{com.google.android.deskclock/com.android.deskclock.DeskClock}")
