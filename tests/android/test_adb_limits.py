"""``serve-adb``'s limits on loopback, with real sockets and the real ``adb`` client: connections past
``max_connections`` are refused with a ``FAIL`` that says why, pushes past ``max_storage`` fail
with the sync protocol's ``FAIL`` naming the limit and store nothing, the network device's links
and streams are capped too, and the CLI's flags set the limits."""

from __future__ import annotations

import logging
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from _adb import adb

from gui_gym.android.sim.adb.server import MAX_STORAGE, AdbServer, serve_adb
from gui_gym.android.sim.adb.transport import A_CLSE, A_CNXN, A_OKAY, A_OPEN, DeviceTransport, message

KIB = 1024


def req(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


def wait_for(condition: Callable[[], bool], what: str, seconds: float = 10.0) -> None:
    """Poll until *condition* holds (the server's threads run on their own); fail after *seconds*."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def bound_connection(server: AdbServer) -> socket.socket:
    """A connection the server is serving: bound to the device, it waits for a service request."""
    s = socket.create_connection((server.host, server.port), timeout=10)
    s.sendall(req("host:transport-any"))
    assert read_exact(s, 4) == b"OKAY"
    return s


def read_exact(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        assert chunk, f"the connection closed after {data!r}"
        data += chunk
    return data


def read_all(s: socket.socket) -> bytes:
    chunks = []
    while chunk := s.recv(4096):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture
def capped() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10, max_connections=3, max_storage=1024 * KIB)
    yield srv
    srv.close()


def test_connections_past_the_limit_get_a_fail_saying_why(capped: AdbServer, caplog: pytest.LogCaptureFixture) -> None:
    held = [bound_connection(capped) for _ in range(3)]
    try:
        with caplog.at_level(logging.WARNING), socket.create_connection((capped.host, capped.port), timeout=10) as s:
            s.sendall(req("host:version"))
            answer = read_all(s)  # the FAIL, then the server closes the connection
        reason = b"the adb server is at its limit of 3 connections; try again shortly"
        assert answer == b"FAIL" + f"{len(reason):04x}".encode() + reason
        out = adb(capped.port, "shell", "echo refused")  # the real client shows the reason
        assert out.returncode != 0 and out.stdout == b""
        assert b"at its limit of 3 connections" in out.stderr
        assert capped.refused == 2
        refusals = [r.getMessage() for r in caplog.records if "refused a connection" in r.getMessage()]
        assert refusals and "at its limit of 3 connections" in refusals[0]
    finally:
        for s in held[:2]:
            s.close()
    # a freed slot serves again; the connection still held was never disturbed
    wait_for(lambda: capped.connections <= 1, "the server to notice the closed connections")
    # (the real client opens its connections in turn; on a loaded machine one may still meet the
    # refused connections' slots being freed, so it is given a few tries)
    wait_for(lambda: adb(capped.port, "shell", "echo served").stdout == b"served\n", "a freed slot to serve", 30)
    held[2].sendall(req("shell:echo still bound"))
    assert read_all(held[2]) == b"OKAYstill bound\n"
    held[2].close()


def test_pushes_past_the_storage_limit_fail_and_store_nothing(capped: AdbServer, tmp_path: Path) -> None:
    first, second = tmp_path / "first.bin", tmp_path / "second.bin"
    first.write_bytes(bytes(range(256)) * (600 * KIB // 256))
    second.write_bytes(b"\x07" * (600 * KIB))
    assert adb(capped.port, "push", str(first), "/sdcard/Download/first.bin").returncode == 0
    out = adb(capped.port, "push", str(second), "/sdcard/Download/second.bin")
    assert out.returncode != 0
    assert b"No space left on device" in out.stderr and b"max_storage" in out.stderr
    assert b"limited to 1048576 bytes" in out.stderr and b"614400 bytes are in use" in out.stderr
    assert "/sdcard/Download/second.bin" not in capped.shell.files  # nothing partial
    assert capped.shell.files["/sdcard/Download/first.bin"] == first.read_bytes()
    listing = adb(capped.port, "shell", "ls /sdcard/Download").stdout
    assert b"first.bin" in listing and b"second.bin" not in listing
    # pushed over the first, the second replaces it: its bytes are freed, so it fits
    assert adb(capped.port, "push", str(second), "/sdcard/Download/first.bin").returncode == 0
    assert capped.shell.files["/sdcard/Download/first.bin"] == second.read_bytes()
    assert adb(capped.port, "shell", "echo goes on").stdout == b"goes on\n"


def test_a_raw_send_past_the_limit_gets_the_sync_fail(capped: AdbServer) -> None:
    """The sync protocol by hand: ``SEND``, ``DATA`` chunks past the limit; the ``FAIL`` comes at
    the chunk that would pass it, and the rest of the file is read and dropped."""
    with socket.create_connection((capped.host, capped.port), timeout=10) as s:
        s.sendall(req("host:transport-any") + req("sync:"))
        assert read_exact(s, 8) == b"OKAYOKAY"
        spec = b"/sdcard/big.bin,33188"
        s.sendall(b"SEND" + struct.pack("<I", len(spec)) + spec)
        chunk = b"z" * (64 * KIB)
        for _ in range(17):  # 1088 KiB: the 17th chunk passes 1024 KiB
            s.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        s.sendall(b"DONE" + struct.pack("<I", 0))
        answer = read_all(s)
    assert answer[:4] == b"FAIL"
    (length,) = struct.unpack("<I", answer[4:8])
    assert len(answer) == 8 + length  # the FAIL and its message, nothing after
    assert "limited to 1048576 bytes (max_storage; 1 MiB)" in answer[8:].decode()
    assert "/sdcard/big.bin" not in capped.shell.files


def test_shell_redirections_count_against_the_storage_limit_too(capped: AdbServer, tmp_path: Path) -> None:
    """The limit is the phone's, not the push's: ``cat a a > b`` past it fails as a full disk does."""
    first = tmp_path / "first.bin"
    first.write_bytes(b"\x01" * (400 * KIB))
    assert adb(capped.port, "push", str(first), "/sdcard/Download/a.bin").returncode == 0
    out = adb(capped.port, "shell", "cat /sdcard/Download/a.bin /sdcard/Download/a.bin > /sdcard/Download/b.bin")
    assert b"No space left on device" in out.stderr and b"limited to 1048576 bytes" in out.stderr
    assert "/sdcard/Download/b.bin" not in capped.shell.files
    # within the limit the same redirection works, and writing over a file frees its bytes first
    assert adb(capped.port, "shell", "cat /sdcard/Download/a.bin > /sdcard/Download/b.bin").returncode == 0
    assert capped.shell.used() == 800 * KIB
    assert adb(capped.port, "shell", "cat /sdcard/Download/a.bin > /sdcard/Download/b.bin").returncode == 0


def test_a_slow_push_holds_up_no_other_command(capped: AdbServer) -> None:
    """A client that stalls mid-upload does not hold the phone: other commands are answered, and the
    push still completes when its data arrives."""
    with socket.create_connection((capped.host, capped.port), timeout=10) as s:
        s.sendall(req("host:transport-any") + req("sync:"))
        assert read_exact(s, 8) == b"OKAYOKAY"
        spec = b"/sdcard/slow.txt,33188"
        s.sendall(b"SEND" + struct.pack("<I", len(spec)) + spec + b"DATA" + struct.pack("<I", 5) + b"hello")
        started = time.monotonic()
        assert adb(capped.port, "shell", "echo meanwhile").stdout == b"meanwhile\n"
        assert time.monotonic() - started < 8  # answered while the upload waits (the push's timeout is 10 s)
        s.sendall(b"DONE" + struct.pack("<I", 0))
        assert read_exact(s, 8) == b"OKAY" + struct.pack("<I", 0)
    assert capped.shell.files["/sdcard/slow.txt"] == b"hello"


def test_the_defaults_are_finite() -> None:
    srv = AdbServer(port=0)
    try:
        assert srv.max_connections == 64 and srv.max_storage == MAX_STORAGE == 256 << 20
    finally:
        srv.close()
    with pytest.raises(ValueError, match="max_connections"):
        AdbServer(port=0, max_connections=0)


def read_message(s: socket.socket) -> tuple[int, int, int, bytes]:
    command, arg0, arg1, length = struct.unpack("<4I", read_exact(s, 24)[:16])
    return command, arg0, arg1, read_exact(s, length) if length else b""


def test_the_network_device_caps_links_and_streams() -> None:
    server = AdbServer(port=0).start()
    phone = DeviceTransport(server, port=0, timeout=10, max_connections=1, max_streams=2).start()
    try:
        with socket.create_connection((phone.host, phone.port), timeout=10) as link:
            link.sendall(message(A_CNXN, 0x01000001, 4096, b"host::\0"))
            assert read_message(link)[0] == A_CNXN
            # a second host is over the link limit: closed without a word (no FAIL before CNXN)
            with socket.create_connection((phone.host, phone.port), timeout=10) as other:
                other.sendall(message(A_CNXN, 0x01000001, 4096, b"host::\0"))
                assert read_all(other) == b""
            assert phone.refused == 1
            # sync streams wait for their requests: two stay open, a third is refused
            opened = []
            for host_id in (11, 12):
                link.sendall(message(A_OPEN, host_id, 0, b"sync:\0"))
                command, local, remote, _ = read_message(link)
                assert (command, remote) == (A_OKAY, host_id)
                opened.append(local)
            link.sendall(message(A_OPEN, 13, 0, b"sync:\0"))
            assert read_message(link)[:3] == (A_CLSE, 0, 13)
            # closing one frees its place
            link.sendall(message(A_CLSE, 11, opened[0]))
            assert read_message(link)[0] == A_CLSE  # the device's end of it
            link.sendall(message(A_OPEN, 14, 0, b"sync:\0"))
            command, _, remote, _ = read_message(link)
            assert (command, remote) == (A_OKAY, 14)
    finally:
        phone.close()
        server.close()


def test_the_cli_flags_set_the_limits(tmp_path: Path) -> None:
    """``gui-gym serve-adb --max-connections 1 --max-storage-mb 1`` in its own process."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "agents.cli", "serve-adb", "--port", str(port), "--max-connections", "1",
         "--max-storage-mb", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parents[2],
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        assert b"adb server" in proc.stdout.readline()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as held:
            held.sendall(req("host:transport-any"))
            assert read_exact(held, 4) == b"OKAY"
            out = adb(port, "shell", "echo refused")
            assert out.returncode != 0 and b"at its limit of 1 connections" in out.stderr
        big = tmp_path / "big.bin"
        big.write_bytes(b"x" * (1024 * KIB + 1))
        # the held connection's slot frees once the server has seen it close
        end = time.monotonic() + 10
        while b"at its limit" in (out := adb(port, "push", str(big), "/sdcard/big.bin")).stderr:
            assert time.monotonic() < end, "the server did not free the closed connection's slot"
            time.sleep(0.05)
        assert out.returncode != 0 and b"limited to 1048576 bytes" in out.stderr
        # the refused push's slot, too, frees only once the server has seen that client close
        end = time.monotonic() + 10
        while b"at its limit" in (out := adb(port, "kill-server")).stderr:
            assert time.monotonic() < end, "the server did not free the refused push's slot"
            time.sleep(0.05)
        assert out.returncode == 0
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate()
    with pytest.raises(SystemExit):
        from agents.cli import build_parser

        build_parser().parse_args(["serve-adb", "--max-connections", "0"])
