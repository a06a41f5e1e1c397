"""What AndroidWorld's task code asks of a phone, on the served one: radios (``svc``), settings of
any key, app data folders and AndroidWorld's snapshots (``rm -r`` and ``cp -a``), the telephony
database cleared (``sqlite3``), recent tasks closed, the clipper app's clipboard, the SMS app's
SENDTO intent, the media store, the emulator console (``adb emu sms send``) and the expert side
channel; bad input refused with the reason."""

from __future__ import annotations

import datetime as dt
import json
import socket
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from _adb import adb

from gui_gym.android.actions import Action
from gui_gym.android.sim.adb.console import EmulatorConsole
from gui_gym.android.sim.adb.server import AdbServer, serve_adb
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.adb.system import MMSSMS, SNAPSHOTS
from gui_gym.android.sim.device import Device

CAL = "com.simplemobiletools.calendar.pro"


@pytest.fixture
def sh() -> Shell:
    device = Device()
    device.reset(now=dt.datetime(2023, 10, 15, 15, 34))
    return Shell(device)


def ok(sh: Shell, line: str) -> str:
    result = sh.run(line)
    assert result.status == 0, result.stderr
    return result.stdout.decode()


def test_svc_turns_the_radios_on_and_off(sh: Shell) -> None:
    assert ok(sh, "svc wifi enable") == "" and ok(sh, "settings get global wifi_on") == "1\n"
    assert ok(sh, "svc wifi disable; svc bluetooth enable") == ""
    assert sh.device.state.settings["wifi"] is False and sh.device.state.settings["bluetooth"] is True
    bad = sh.run("svc wifi toggle")
    assert bad.status == 1 and b"usage: svc wifi|bluetooth|data enable|disable" in bad.stdout
    assert sh.device.state.settings["wifi"] is False  # nothing changed


def test_settings_keeps_any_key_as_android_does(sh: Shell) -> None:
    assert ok(sh, "settings get system time_12_24") == "null\n"
    ok(sh, "settings put system time_12_24 24")
    assert ok(sh, "settings get system time_12_24") == "24\n"
    assert "time_12_24=24\n" in ok(sh, "settings list system")
    assert ok(sh, "settings get global time_12_24") == "null\n"  # another namespace
    assert ok(sh, "settings delete system time_12_24") == "Deleted 1 rows\n"
    assert ok(sh, "settings get system time_12_24") == "null\n"


def test_app_folders_and_androidworlds_snapshots(sh: Shell) -> None:
    for app in sh.device.apps.values():
        assert ok(sh, f'if [ -d "/data/data/{app.package}" ]; then echo yes; fi') == "yes\n"
        assert ok(sh, f'if [ -d "{SNAPSHOTS}/{app.package}" ]; then echo yes; fi') == "yes\n"
    assert ok(sh, f"ls -1 {SNAPSHOTS}/{CAL}/databases") == "events.db\n"


def test_restoring_a_snapshot_gives_the_app_its_fresh_data(sh: Shell, tmp_path: Path) -> None:
    """AndroidWorld's app_snapshot.restore_snapshot: rm -r the app's folder, cp -a the snapshot in."""
    from gui_gym.android.sim.apps.calendar.data import Event

    sh.device.data("calendar").add(Event("Standup", dt.datetime(2023, 10, 16, 9), dt.datetime(2023, 10, 16, 10)))
    ok(sh, "true")  # the app's data as its database file
    assert len(sh.device.data("calendar").events) == 1
    ok(sh, f"rm -r /data/data/{CAL}/*")
    assert ok(sh, f"ls -1 /data/data/{CAL}") == ""
    ok(sh, f"cp -a {SNAPSHOTS}/{CAL}/. /data/data/{CAL}/")
    assert ok(sh, f"ls -1 /data/data/{CAL}/databases") == "events.db\n"
    assert sh.device.data("calendar").events == []
    assert ok(sh, f"chmod 777 -R /data/data/{CAL}; restorecon -RD /data/data/{CAL}") == ""


def test_cp_copies_files_and_folders_and_refuses_what_an_app_cannot_open(sh: Shell) -> None:
    ok(sh, "mkdir -p /sdcard/a/b; echo hi > /sdcard/a/b/x.txt; echo top > /sdcard/a/y.txt")
    ok(sh, "cp -r /sdcard/a /sdcard/c")
    assert ok(sh, "cat /sdcard/c/b/x.txt /sdcard/c/y.txt") == "hi\ntop\n"
    ok(sh, "cp /sdcard/a/y.txt /sdcard/z.txt")
    assert ok(sh, "cat /sdcard/z.txt") == "top\n"
    assert sh.run("cp /sdcard/a /sdcard/d").status == 1  # a folder needs -r
    assert sh.run("cp /sdcard/nothing /sdcard/d").stderr == b"cp: '/sdcard/nothing': No such file or directory\n"
    assert sh.run("cp -r /sdcard/a /sdcard/a/b").status == 1  # into itself
    assert sh.run("cp -Z /sdcard/a/y.txt /sdcard/q").stderr == b"cp: bad -Z\n"
    before = sh.device.data("calendar")
    bad = sh.run(f"cp /sdcard/z.txt /data/data/{CAL}/databases/events.db")
    assert bad.status == 1 and b"refused: not a database Simple Calendar Pro can open" in bad.stderr
    assert sh.device.data("calendar") is before


def test_sqlite3_clears_the_messages_and_runs_nothing_else(sh: Shell) -> None:
    data = sh.device.data("messages")
    data.add("+15550100", "hello", True, sh.device.state.now)
    ok(sh, f'sqlite3 {MMSSMS} "DELETE FROM sms;"')
    ok(sh, f'sqlite3 {MMSSMS} "DELETE FROM threads;"')
    assert data.conversations == [] and ok(sh, "content query --uri content://sms/inbox") == "No result found.\n"
    for bad in (f'sqlite3 {MMSSMS} "DROP TABLE sms;"', 'sqlite3 /sdcard/x.db "DELETE FROM sms;"', "sqlite3"):
        result = sh.run(bad)
        assert result.status == 1 and result.stderr, bad


def test_recent_tasks_are_listed_and_closed(sh: Shell) -> None:
    sh.device.act(Action("launch", app="Clock"))
    sh.device.act(Action("launch", app="Settings"))
    dump = ok(sh, "dumpsys activity recents")
    assert dump.index("A=") < dump.index("Visible recent tasks")
    ids = [int(line.split("=")[1]) for line in dump.splitlines() if line.strip().startswith("id=")]
    assert len(ids) == 2  # Settings (in front), then Clock
    focus = ok(sh, "am stack list | grep -E visible=true")
    assert f"taskId={ids[0]}: com.android.settings/" in focus
    for task in ids:
        ok(sh, f"am stack remove {task}")
    assert sh.device.state.foreground is None and not any(sh.device.state.stacks.values())
    assert ok(sh, "am stack remove 999") == ""  # no such task: nothing happens
    assert sh.run("am stack remove x").status == 1


def test_the_clipper_app_sets_and_reads_the_clipboard(sh: Shell) -> None:
    """AndroidWorld's adb_utils.set/get_clipboard_contents: launch clipper, broadcast, press Back."""
    assert "Starting: Intent" in ok(sh, "am start -W -n ca.zgrs.clipper/ca.zgrs.clipper.Main")
    assert "ca.zgrs.clipper/ca.zgrs.clipper.Main" in ok(sh, "am stack list")
    out = ok(sh, r"am broadcast -a clipper.set -e text Jane\'s\ Flower\ Shop")
    assert out.endswith('Broadcast completed: result=-1, data="Text is copied into clipboard."\n')
    assert sh.device.state.clipboard == "Jane's Flower Shop"
    assert ok(sh, "am broadcast -a clipper.get").endswith('result=-1, data="Jane\'s Flower Shop"\n')
    ok(sh, "input keyevent KEYCODE_BACK")  # closes clipper, nothing else
    assert "ca.zgrs.clipper" not in ok(sh, "am stack list")
    # out of the foreground it may not read the clipboard (Android 10 and later)
    assert ok(sh, "am broadcast -a clipper.get").endswith("Broadcast completed: result=0\n")


def test_the_sendto_intent_opens_the_conversation_with_the_text(sh: Shell) -> None:
    out = ok(sh, 'am start -a android.intent.action.SENDTO -d sms:+15550100 --es sms_body "Running late, sorry"')
    assert out.startswith("Starting: Intent { act=android.intent.action.SENDTO dat=sms:+15550100")
    screen = sh.device.top_screen()
    assert sh.device.state.foreground == "messages" and screen.number == "+15550100"
    assert screen.form["msg"] == "Running late, sorry"
    assert sh.device.data("messages").get("+15550100") is None  # not sent until Send is tapped


def test_the_media_store_clears_the_downloads(sh: Shell) -> None:
    ok(sh, "echo a > /sdcard/Download/a.txt")
    assert "_display_name=a.txt" in ok(sh, "content query --uri content://media/external/downloads")
    ok(sh, "content delete --uri content://media/external/downloads")
    assert ok(sh, "ls /sdcard/Download") == "" and ok(sh, "ls -d /sdcard/Download") is not None
    assert ok(sh, "content query --uri content://media/external/images/media") == "No result found.\n"
    assert sh.run("content insert --uri content://media/external/downloads --bind a:s:b").status == 1


# ----------------------------------------------------------------------------- over the real adb client


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def emulator() -> Iterator[AdbServer]:
    port = _free_port()
    server = serve_adb(port=0, serial=f"emulator-{port}", timeout=10, expert=True)
    console = EmulatorConsole(server, port=port).start()
    yield server
    console.close()
    server.close()


def test_adb_emu_sms_send_delivers_a_text(emulator: AdbServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))  # no console token file: adb sends no auth line
    out = adb(emulator.port, "-s", emulator.serial, "emu", "sms", "send", "+15550100", "Are you coming?")
    assert (out.returncode, out.stdout, out.stderr) == (0, b"", b"")
    conv = emulator.backend.device.data("messages").get("+15550100")
    assert conv is not None and conv.messages[-1].text == "Are you coming?" and conv.messages[-1].incoming
    rows = adb(emulator.port, "-s", emulator.serial, "shell", "content", "query", "--uri", "content://sms/inbox")
    assert b"address=+15550100" in rows.stdout and b"body=Are you coming?" in rows.stdout
    bad = adb(emulator.port, "-s", emulator.serial, "emu", "sms", "send", "not-a-number", "hi")
    assert bad.stdout == b"KO: bad phone number format, must be [+](0-9)*\r\n"
    assert adb(emulator.port, "-s", emulator.serial, "emu", "nosuch").stdout == b"KO: unknown command, try 'help'\r\n"
    (tmp_path / ".emulator_console_auth_token").write_text("token")  # a token is taken too
    assert adb(emulator.port, "-s", emulator.serial, "emu", "sms", "send", "+1555", "x").stdout == b"OK\r\n"


def _host(server: AdbServer, request: str) -> tuple[bytes, str]:
    data = request.encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(f"{len(data):04x}".encode() + data)
        status = s.recv(4)
        size = int(s.recv(4), 16)
        payload = b""
        while len(payload) < size:
            payload += s.recv(size - len(payload))
    return status, payload.decode()


def test_the_expert_side_channel_plays_the_oracle(emulator: AdbServer) -> None:
    status, answer = _host(emulator, 'host:gui-gym-expert:task:{"task": "SystemWifiTurnOn", "seed": 0}')
    assert status == b"OKAY" and json.loads(answer)["task"] == "SystemWifiTurnOn"
    done = 0.0
    for _ in range(20):
        status, answer = _host(emulator, "host:gui-gym-expert:next")
        gesture = json.loads(answer)
        if gesture["kind"] == "finish":
            status, answer = _host(emulator, 'host:gui-gym-expert:check:{"status": "complete"}')
            done = json.loads(answer)["score"]
            break
        if gesture["kind"] == "launch":
            adb(emulator.port, "shell", "am", "start", "-n", f"{gesture['package']}/{gesture['activity']}")
        else:
            assert gesture["kind"] == "tap", gesture
            adb(emulator.port, "shell", "input", "tap", *map(str, gesture["point"]))
    assert done == 1.0 and emulator.backend.device.state.settings["wifi"] is True


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        ("host:gui-gym-expert:next", "no task instance chosen"),
        ('host:gui-gym-expert:task:{"task": "NoSuchTask", "seed": 0}', "unknown task"),
        ('host:gui-gym-expert:task:{"task": "SystemWifiTurnOn", "seed": -1}', "non-negative"),
        ("host:gui-gym-expert:task:not json", "not JSON"),
        ("host:gui-gym-expert:whatever", "unknown expert request"),
    ],
)
def test_the_expert_refuses_bad_requests(emulator: AdbServer, request_: str, reason: str) -> None:
    status, answer = _host(emulator, request_)
    assert status == b"FAIL" and reason in answer


def test_the_expert_is_off_unless_asked_for() -> None:
    server = serve_adb(port=0, timeout=10)
    try:
        status, answer = _host(server, "host:gui-gym-expert:next")
        assert status == b"FAIL" and "side channel is off" in answer
    finally:
        server.close()


def test_a_database_pulled_edited_and_pushed_back_with_its_folder(emulator: AdbServer, tmp_path: Path) -> None:
    """AndroidWorld's sqlite_utils: ``ls DIR -ll -au``, pull each file, edit, ``rm -r DIR/*``, push."""
    folder = f"/data/data/{CAL}/databases"
    listing = adb(emulator.port, "shell", "ls", folder, "-ll", "-au").stdout.decode().splitlines()
    files = [line.split()[8] for line in listing if line.startswith("-")]
    assert files == ["events.db"]
    local = tmp_path / "events.db"
    assert adb(emulator.port, "pull", f"{folder}/events.db", str(local)).returncode == 0
    from gui_gym.android.sim.apps.calendar.storage import EVENTS

    row = {c.name: c.default for c in EVENTS.columns if c.name != "id"}
    row.update(title="Review", start_ts=1697446800, end_ts=1697448600)
    con = sqlite3.connect(local)
    names = ", ".join(f'"{k}"' for k in row)
    con.execute(f"INSERT INTO events ({names}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values()))
    con.commit()
    con.close()
    assert adb(emulator.port, "shell", "rm", "-r", f"{folder}/*").returncode == 0
    assert adb(emulator.port, "push", str(local), f"{folder}/events.db").returncode == 0
    assert [e.title for e in emulator.backend.device.data("calendar").events] == ["Review"]


def test_the_accessibility_forest_carries_the_hints(emulator: AdbServer) -> None:
    """What AndroidWorld's forwarder-app forest gives and a uiautomator dump does not: hints."""
    adb(emulator.port, "shell", "am", "start", "-a", "android.intent.action.INSERT", "-t",
        "vnd.android.cursor.dir/contact", "-e", "name", "Ann")  # fmt: skip
    with socket.create_connection(("127.0.0.1", emulator.port), timeout=10) as s:
        request = b"host:gui-gym-a11y:forest"
        s.sendall(f"{len(request):04x}".encode() + request)
        answer = b"".join(iter(lambda: s.recv(65536), b""))
    assert answer[:4] == b"OKAY"
    forest = json.loads(answer[4:])
    nodes = [n for w in forest["windows"] for n in w["tree"]["nodes"]]
    assert any(n["hint_text"] == "Phone" and n["is_editable"] for n in nodes)
    assert {"bounds_in_screen", "window_type"} <= set(forest["windows"][0])


def test_a_write_ahead_log_pushed_beside_a_database_is_applied(emulator: AdbServer, tmp_path: Path) -> None:
    """A database edited in WAL mode comes as the file and its ``-wal``: the app reads both, as
    SQLite does, and the log is folded in (no ``-wal`` or ``-shm`` left to be pulled stale)."""
    from gui_gym.android.sim.apps.calendar.storage import EVENTS

    folder = f"/data/data/{CAL}/databases"
    local = tmp_path / "events.db"
    assert adb(emulator.port, "pull", f"{folder}/events.db", str(local)).returncode == 0
    con = sqlite3.connect(local)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA wal_autocheckpoint=0")
    row = {c.name: c.default for c in EVENTS.columns if c.name != "id"}
    row.update(title="From the log", start_ts=1697446800, end_ts=1697448600)
    names = ", ".join(f'"{k}"' for k in row)
    con.execute(f"INSERT INTO events ({names}) VALUES ({', '.join('?' for _ in row)})", tuple(row.values()))
    con.commit()
    wal = (tmp_path / "events.db-wal").read_bytes()  # the row is in the log, not yet in the file
    db = local.read_bytes()
    con.close()
    (tmp_path / "a.db").write_bytes(db)
    (tmp_path / "a.db-wal").write_bytes(wal)
    assert adb(emulator.port, "push", str(tmp_path / "a.db"), f"{folder}/events.db").returncode == 0
    assert adb(emulator.port, "push", str(tmp_path / "a.db-wal"), f"{folder}/events.db-wal").returncode == 0
    assert [e.title for e in emulator.backend.device.data("calendar").events] == ["From the log"]
    assert adb(emulator.port, "shell", "ls", "-1", folder).stdout == b"events.db\n"
    # a log that makes the database one the app cannot open is refused, and changes nothing
    bad = sqlite3.connect(tmp_path / "b.db")
    bad.execute("PRAGMA journal_mode=WAL")
    bad.execute("PRAGMA wal_autocheckpoint=0")
    bad.execute("CREATE TABLE other (x)")
    bad.commit()
    refused = adb(emulator.port, "push", str(tmp_path / "b.db-wal"), f"{folder}/events.db-wal")
    bad.close()
    assert refused.returncode != 0
    assert [e.title for e in emulator.backend.device.data("calendar").events] == ["From the log"]
