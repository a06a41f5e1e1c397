"""The simulated phone as a network device: a real adb server (the adbutils wheel's binary) does
``adb connect`` to :class:`DeviceTransport` and runs shell (v2 exit status), uiautomator, push and
pull on it over the adb transport protocol (CNXN, OPEN, OKAY, WRTE, CLSE)."""

from __future__ import annotations

import os
import socket
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from _adb import adb_binary

from gui_gym.android.sim.adb.server import AdbServer
from gui_gym.android.sim.adb.transport import A_CLSE, A_CNXN, A_OKAY, A_OPEN, DeviceTransport, message


@pytest.fixture
def phone() -> Iterator[DeviceTransport]:
    server = AdbServer(port=0).start()
    device = DeviceTransport(server, port=0, timeout=10).start()
    yield device
    device.close()
    server.close()


@pytest.fixture
def adb_server() -> Iterator[tuple[str, int]]:
    """A real adb server on a free loopback port, killed afterwards."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    binary = adb_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADB_")}
    env["ADB_MDNS"] = "0"
    subprocess.run([binary, "-P", str(port), "start-server"], capture_output=True, timeout=30, env=env, check=True)
    yield binary, port
    subprocess.run([binary, "-P", str(port), "kill-server"], capture_output=True, timeout=30, env=env)


def run(adb: tuple[str, int], *args: str) -> subprocess.CompletedProcess:
    binary, port = adb
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADB_")}
    return subprocess.run([binary, "-P", str(port), *args], capture_output=True, timeout=30, env=env)


def test_a_real_adb_server_connects_and_runs_services(phone: DeviceTransport, adb_server, tmp_path: Path) -> None:
    assert run(adb_server, "connect", phone.address).stdout.startswith(b"connected to")
    listed = run(adb_server, "devices", "-l").stdout.decode()
    assert f"{phone.address}" in listed and "device product:sdk_gphone64_x86_64" in listed
    out = run(adb_server, "-s", phone.address, "shell", "echo over the transport; exit 4")
    assert (out.returncode, out.stdout) == (4, b"over the transport\n")
    assert run(adb_server, "-s", phone.address, "shell", "wm size").stdout == b"Physical size: 1080x2400\n"
    data = bytes(range(256)) * 2000  # several WRTE messages each way
    (tmp_path / "up.bin").write_bytes(data)
    assert run(adb_server, "-s", phone.address, "push", str(tmp_path / "up.bin"), "/sdcard/up.bin").returncode == 0
    assert run(adb_server, "-s", phone.address, "pull", "/sdcard/up.bin", str(tmp_path / "back.bin")).returncode == 0
    assert (tmp_path / "back.bin").read_bytes() == data
    assert phone.server.shell.files["/sdcard/up.bin"] == data


def test_the_handshake_and_a_refused_service_over_a_raw_socket(phone: DeviceTransport) -> None:
    with socket.create_connection((phone.host, phone.port), timeout=10) as s:
        s.sendall(message(A_CNXN, 0x01000001, 4096, b"host::\0"))
        header = s.recv(24)
        command, version, max_payload, length = struct.unpack("<4I", header[:16])
        assert (command, version, max_payload) == (A_CNXN, 0x01000001, 4096)
        banner = s.recv(length)
        assert banner.startswith(b"device::") and b"features=shell_v2" in banner
        s.sendall(message(A_OPEN, 7, 0, b"reboot:\0"))
        command, _, remote = struct.unpack("<3I", s.recv(24)[:12])
        assert (command, remote) == (A_CLSE, 7)  # refused
        s.sendall(message(A_OPEN, 8, 0, b"shell:echo raw\0"))
        command, local, remote = struct.unpack("<3I", s.recv(24)[:12])
        assert (command, remote) == (A_OKAY, 8) and local > 0
        s.sendall(b"\0" * 24)  # garbage: the link ends, the device goes on listening
    with socket.create_connection((phone.host, phone.port), timeout=10) as s:
        s.sendall(message(A_CNXN, 0x01000001, 4096, b"host::\0"))
        assert struct.unpack("<I", s.recv(24)[:4])[0] == A_CNXN
