"""``serve-adb``: the simulated phone behind the adb server protocol, driven by the real ``adb``
client and by adbutils on loopback — host requests, shell (v1 and v2), exec, sync (push, pull),
the shell's commands, agent text that must stay data, malformed requests and a killed server."""

from __future__ import annotations

import io
import socket
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from _adb import adb
from PIL import Image

from gui_gym.android.sim.adb.server import ADB_VERSION, SERIAL, AdbServer, serve_adb
from gui_gym.android.ui import to_xml


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10)
    yield srv
    srv.close()


def raw(server: AdbServer, *requests: bytes, read: int = 4096) -> bytes:
    """Send host requests on one connection and read what comes back until it closes."""
    with socket.create_connection((server.host, server.port), timeout=10) as s:
        for r in requests:
            s.sendall(r)
        chunks = []
        while chunk := s.recv(read):
            chunks.append(chunk)
        return b"".join(chunks)


def req(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


def test_the_real_client_lists_the_device(server: AdbServer) -> None:
    out = adb(server.port, "devices", "-l")
    assert out.returncode == 0
    line = out.stdout.decode().splitlines()[1]
    assert line.startswith(f"{SERIAL}          device product:") and "transport_id:1" in line
    assert adb(server.port, "get-state").stdout == b"device\n"
    assert adb(server.port, "-s", SERIAL, "get-serialno").stdout == f"{SERIAL}\n".encode()
    assert raw(server, req("host:version")) == b"OKAY0004" + f"{ADB_VERSION:04x}".encode()


def test_shell_v2_carries_output_errors_and_the_exit_status(server: AdbServer) -> None:
    out = adb(server.port, "shell", "echo hi; echo oops-not-a-command | nosuch; exit 3")
    assert (out.returncode, out.stdout) == (3, b"hi\n")
    assert out.stderr == b"/system/bin/sh: nosuch: inaccessible or not found\n"
    assert adb(server.port, "shell", "false || echo fallback").stdout == b"fallback\n"
    assert adb(server.port, "shell", "true && false").returncode == 1


def test_shell_v1_and_exec_over_the_raw_protocol(server: AdbServer) -> None:
    assert raw(server, req("host:transport-any"), req("shell:echo v1")) == b"OKAYOKAYv1\n"
    out = raw(server, req(f"host:transport:{SERIAL}"), req("shell,v2,raw:echo two"))
    assert out[:8] == b"OKAYOKAY"
    body = out[8:]  # stdout packet, then the exit packet
    assert body == b"\x01" + struct.pack("<I", 4) + b"two\n" + b"\x03" + struct.pack("<I", 1) + b"\x00"
    out = raw(server, req("host:tport:any"), req("exec:echo exec"))
    assert out == b"OKAY" + struct.pack("<Q", 1) + b"OKAYexec\n"


def test_dump_pull_push_and_screencap(server: AdbServer, tmp_path: Path) -> None:
    out = adb(server.port, "shell", "uiautomator", "dump", "/sdcard/window_dump.xml")
    assert out.stdout == b"UI hierchary dumped to: /sdcard/window_dump.xml\n"
    assert adb(server.port, "pull", "/sdcard/window_dump.xml", str(tmp_path / "d.xml")).returncode == 0
    assert (tmp_path / "d.xml").read_text(encoding="utf-8") == to_xml(server.backend.device.tree())
    (tmp_path / "up.bin").write_bytes(bytes(range(256)) * 1000)  # several sync chunks
    assert adb(server.port, "push", str(tmp_path / "up.bin"), "/sdcard/Download/up.bin").returncode == 0
    assert adb(server.port, "pull", "/sdcard/Download/up.bin", str(tmp_path / "back.bin")).returncode == 0
    assert (tmp_path / "back.bin").read_bytes() == (tmp_path / "up.bin").read_bytes()
    missing = adb(server.port, "pull", "/sdcard/nothing.txt", str(tmp_path / "n"))
    assert missing.returncode != 0 and b"does not exist" in missing.stderr
    png = adb(server.port, "exec-out", "screencap", "-p").stdout
    with Image.open(io.BytesIO(png)) as im:
        assert im.size == (1080, 2400)


def test_input_and_launches_go_through_the_simulator(server: AdbServer) -> None:
    device = server.backend.device
    launcher = "monkey -p com.google.android.deskclock -c android.intent.category.LAUNCHER 1"
    assert adb(server.port, "shell", launcher).returncode == 0
    assert device.state.foreground == "clock"
    focus = adb(server.port, "shell", "dumpsys window | grep mCurrentFocus").stdout.decode()
    assert "com.google.android.deskclock/" in focus
    adb(server.port, "shell", "input", "keyevent", "KEYCODE_HOME")
    assert device.state.foreground is None
    assert adb(server.port, "shell", "am start -n com.android.settings/.Settings").returncode == 0
    assert device.state.foreground == "settings"
    adb(server.port, "shell", "input keyevent 4")  # Back
    assert device.state.foreground is None
    before = device.state.step
    adb(server.port, "shell", "input tap 5000 5000")  # off the screen: the simulator refuses, sh goes on
    assert device.state.step == before
    assert adb(server.port, "shell", "settings put global wifi_on 1").returncode == 0
    assert adb(server.port, "shell", "settings get global wifi_on").stdout == b"1\n"
    assert device.state.settings["wifi"] is True
    assert adb(server.port, "shell", "getprop ro.build.version.sdk").stdout == b"33\n"
    assert b"package:com.google.android.deskclock\n" in adb(server.port, "shell", "pm list packages").stdout


@pytest.mark.parametrize(
    "line",
    [
        "echo $(touch {marker})",
        "echo `touch {marker}`",
        "echo ${{HOME}}; touch {marker}",
        "cat /sdcard/* ; touch {marker}",
        "echo a > {marker}",
        "(touch {marker})",
    ],
)
def test_what_sh_would_expand_or_run_is_refused_and_nothing_runs(server: AdbServer, tmp_path: Path, line: str) -> None:
    marker = tmp_path / "pwned"
    out = adb(server.port, "shell", line.format(marker=marker))
    assert out.returncode != 0 and out.stderr
    assert not marker.exists()  # the host runs nothing: a path on the phone is in its own memory


def test_agent_text_in_single_quotes_is_typed_as_it_is(server: AdbServer) -> None:
    from gui_gym.android.actions import Action

    device = server.backend.device
    device.act(Action("launch", app="Contacts"))
    device.act(Action("tap", element=(850, 2044, 1020, 2214)))  # Create contact: a field has focus
    text = 'a; b && c | d $(e) `f` "g" * ? [h] ~'
    quoted = "'" + text.replace("'", "'\\''") + "'"
    out = adb(server.port, "shell", f"input text {quoted.replace(' ', '%s')}")
    assert out.returncode == 0, out.stderr
    host, key = device.focused_host()
    assert host.form[key] == text


def test_malformed_requests_fail_with_a_reason(server: AdbServer) -> None:
    assert raw(server, b"zzzzhost:version").startswith(b"FAIL")
    assert raw(server, b"ffff").startswith(b"FAIL")  # 65535 > the limit
    assert raw(server, req("host:frobnicate")).startswith(b"FAIL")
    assert raw(server, req("host:transport:nosuch")).startswith(b"FAIL") and b"not found" in raw(
        server, req("host:transport:nosuch")
    )
    assert raw(server, req("host:transport-any"), req("reboot:")).startswith(b"OKAYFAIL")
    assert raw(server, req("shell:echo unbound")).startswith(b"FAIL")
    # the server goes on
    assert adb(server.port, "shell", "echo still here").stdout == b"still here\n"


def test_adbutils_drives_it_and_a_killed_server_is_a_clear_error() -> None:
    import adbutils  # a dev dependency: its absence is an error, not a skip

    srv = serve_adb(port=0, timeout=5)
    try:
        client = adbutils.AdbClient(host="127.0.0.1", port=srv.port, socket_timeout=5)
        [d] = client.device_list()
        assert d.serial == SERIAL and d.shell("echo via adbutils") == "via adbutils"
        assert d.window_size() == (1080, 2400)
    finally:
        srv.close()
    # the adb backend asks before adbutils connects (adbutils would start a server of its own)
    from gui_gym.android.backends.adb import AdbBackend, DeviceError

    t0 = time.monotonic()
    with pytest.raises(DeviceError, match="no adb server answers"):
        AdbBackend(port=srv.port)
    assert time.monotonic() - t0 < 10


def test_the_cli_serves_a_task() -> None:
    """``gui-gym serve-adb --task`` in its own process: the phone starts in the task, and a
    ``host:kill`` (``adb kill-server``) stops it."""
    import subprocess
    import sys

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "serve-adb", "--port", str(port), "--task", "ClockStopWatchRunning"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline().decode()
        assert first.startswith("task ClockStopWatchRunning (seed 0): Run the stopwatch.")
        proc.stdout.readline()
        assert adb(port, "shell", "echo up").stdout == b"up\n"
        assert adb(port, "kill-server").returncode == 0
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()


def test_contacts_are_read_from_the_provider_and_cleared(server: AdbServer) -> None:
    """AndroidWorld's contact check (``content query`` on ``content://contacts/phones/``) and reset
    (``pm clear com.android.providers.contacts``) on the served phone."""
    import numpy as np

    server.backend.start("ContactsDeleteContact", np.random.default_rng(0))
    contacts = server.backend.device.data("contacts").contacts
    assert contacts
    out = adb(server.port, "shell", "content query --uri content://contacts/phones/ --projection display_name:number")
    rows = out.stdout.decode().splitlines()
    first = next(c for c in contacts if c.phone)
    assert rows[0] == f"Row: 0 display_name={first.name}, number={first.phone}"
    assert len(rows) == sum(1 for c in contacts if c.phone)
    assert adb(server.port, "shell", "pm clear com.android.providers.contacts").stdout == b"Success\n"
    assert adb(server.port, "shell", "content query --uri content://contacts/phones/").stdout == b"No result found.\n"
    assert adb(server.port, "shell", "pm clear com.nowhere").returncode == 1
