"""The simulated phone behind an adb server: ``gui-gym serve-adb``.

:class:`AdbServer` listens on a loopback port and speaks the adb server's host protocol, so the
real ``adb`` client (``adb -P PORT …``), adbutils and any controller written against an adb server
drive the simulated phone as they drive an emulator. It reports server version 41 (a lower one
makes real clients kill the server and start their own) and one device, ``emulator-5554``.

What it answers (each request ``%04x``-length-prefixed; ``OKAY``, or ``FAIL`` and a message):

- host requests: ``host:version``, ``host:kill``, ``host:devices``, ``host:devices-l``,
  ``host:features``, ``host:host-features``, ``host:transport:SERIAL`` / ``-any`` / ``-usb`` /
  ``-local``, ``host:tport:serial:SERIAL`` / ``any`` (answered with the 8-byte transport id),
  ``host-serial:SERIAL:…`` (``features``, ``get-state``, ``get-serialno``, ``get-devpath``),
  ``wait-for-…``;
- device services, after a transport request on the same connection: ``shell:CMD`` (output,
  then the connection closes), ``shell,v2[,…]:CMD`` (stdout, stderr and the exit status as
  shell-protocol packets), ``exec:CMD`` (stdout alone) and ``sync:`` (``STAT``, ``LIST``,
  ``RECV``, ``SEND``, ``QUIT``: ``adb push`` and ``adb pull``).

``host:gui-gym-a11y:forest`` answers the screen's accessibility forest (``OKAY``, then JSON
shaped like android_env's ``AndroidAccessibilityForest`` until the connection closes): what the
accessibility forwarder app sends from a phone, which AndroidWorld reads where a ``uiautomator
dump`` does not tell enough (a field's hint). With ``expert=True`` it also answers the
simulator's oracle over the ``host:gui-gym-expert:`` side channel
(:mod:`~gui_gym.android.sim.adb.expert`), for code that judges the phone with a benchmark's own
task code; :class:`~gui_gym.android.sim.adb.console.EmulatorConsole` adds the emulator console
that ``adb emu`` reaches.

Behind it is :class:`~gui_gym.android.sim.adb.shell.Shell` over a
:class:`~gui_gym.android.backends.sim.SimBackend`: the commands reach the simulator's own action
path, and agent text is data. Malformed requests get ``FAIL`` with a reason; a client that
stalls is dropped after ``timeout`` seconds; nothing a client sends raises in the server.

Limits (each a constructor argument and a ``gui-gym serve-adb`` flag): at most
``max_connections`` connections at once (default :data:`~gui_gym.android.sim.adb.listener.MAX_CONNECTIONS`,
64) — one more is answered ``FAIL`` "the adb server is at its limit of N connections…" in place
of its first request's answer, logged and closed; and at most ``max_storage`` bytes (default
:data:`MAX_STORAGE`, 256 MiB) in the phone's storage, which a push (``SEND``) may not take past
it — the push fails with the sync protocol's ``FAIL`` naming the limit, and nothing of the file
is stored. A single pushed file is at most 64 MiB.

Example:
    >>> import socket
    >>> server = serve_adb(port=0)
    >>> with socket.create_connection(("127.0.0.1", server.port)) as s:
    ...     _ = s.sendall(b"000chost:version")
    ...     s.recv(12)
    b'OKAY00040029'
    >>> server.close()
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import struct
import threading
from typing import Any

from gui_gym.android.sim.adb.expert import PREFIX as EXPERT_PREFIX
from gui_gym.android.sim.adb.expert import Expert, ExpertError
from gui_gym.android.sim.adb.listener import MAX_CONNECTIONS, Listener, linger_close
from gui_gym.android.sim.adb.shell import MAX_FILE, PROPS, Shell

__all__ = ["A11Y_FOREST", "ADB_VERSION", "FEATURES", "MAX_STORAGE", "SERIAL", "AdbServer", "serve_adb"]

#: The host request for the accessibility forest of the screen (answered ``OKAY`` and JSON).
A11Y_FOREST = "host:gui-gym-a11y:forest"
#: The adb server protocol version this server speaks (adb 1.0.41).
ADB_VERSION = 41
SERIAL = "emulator-5554"
#: What the device offers: the shell protocol (separate stdout, stderr and exit status).
FEATURES = ("shell_v2",)
MAX_REQUEST = 32 * 1024  # a shell command with an agent's 10,000-character text fits
MAX_SYNC_PATH = 1024
SYNC_CHUNK = 64 * 1024
#: The phone's storage by default: pushes may not take the files it holds (in memory) past this.
MAX_STORAGE = 256 << 20
#: How long a client refused mid-push may go on sending (its file is read and dropped) before the
#: connection closes: a client still writing when it closes would lose the FAIL sent to it.
FAIL_LINGER_S = 5.0
TRANSPORT_ID = 1
_FILE_MODE, _DIR_MODE = 0o100644, 0o040755
log = logging.getLogger(__name__)


class _Closed(Exception):
    """The client went away (or sent something no adb client sends)."""


class _Refused(_Closed):
    """Answered ``FAIL`` while the client may still be sending: read the rest before closing."""


class AdbServer(Listener):
    """A loopback adb server with one simulated device (see the module docstring).

    Args:
        backend: the simulated phone (a :class:`~gui_gym.android.backends.sim.SimBackend`; a new
            one by default). ``server.backend.start(task, rng)`` sets a task up on it.
        host, port: where to listen (port 0: any free port, read :attr:`port`).
        serial: the device's serial.
        timeout: seconds a client may stall mid-request before it is dropped.
        max_connections: connections served at once; one more is answered ``FAIL`` and closed.
        max_storage: bytes the phone's storage may hold; a push that would pass it fails.
        expert: answer the simulator's oracle over the ``host:gui-gym-expert:`` side channel
            (:mod:`~gui_gym.android.sim.adb.expert`); off by default.
    """

    def __init__(
        self,
        backend: Any = None,
        host: str = "127.0.0.1",
        port: int = 5037,
        serial: str = SERIAL,
        timeout: float = 30.0,
        max_connections: int = MAX_CONNECTIONS,
        max_storage: int = MAX_STORAGE,
        expert: bool = False,
    ) -> None:
        if int(max_storage) < 0:
            raise ValueError(f"max_storage must be at least 0 bytes, got {max_storage}")
        if backend is None:
            from gui_gym.android.backends.sim import SimBackend

            backend = SimBackend()
        super().__init__(host, port, timeout, max_connections)
        self.backend, self.serial = backend, serial
        self.max_storage = int(max_storage)
        self.shell = Shell(backend.device, max_storage=self.max_storage)
        self.lock = threading.Lock()  # one command at a time on the phone
        #: the simulator's oracle over the ``host:gui-gym-expert:`` side channel (``None``: off)
        self.expert = Expert(backend.device, getattr(backend, "tasks", None)) if expert else None

    name = "adb-server"

    # -- one connection ------------------------------------------------------------------------
    def refuse(self, conn: socket.socket) -> None:
        """Over the connection limit: ``FAIL`` where the client awaits its first request's status."""
        _fail(conn, f"the adb server is at its limit of {self.max_connections} connections; try again shortly")

    def handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                self._session(conn)
            except _Refused:
                linger_close(conn, min(self.timeout, FAIL_LINGER_S), limit=MAX_FILE + SYNC_CHUNK)
            except (_Closed, OSError):
                pass
            except Exception:  # a bug must not take the server down; the client sees its connection close
                log.exception("adb server: a request failed")

    def _session(self, conn: socket.socket) -> None:
        bound = False
        while True:
            request = _read_request(conn)
            if not bound:
                bound = self._host(conn, request)
                if bound is None:  # answered; the connection ends
                    return
                continue
            self._service(conn, request)
            return

    def _host(self, conn: socket.socket, request: str) -> bool | None:
        """Answer a host request: ``True`` when the connection is now bound to the device."""
        r = request
        if r.startswith("host-serial:") or r.startswith("host-transport-id:"):
            target, rest = _split_target(r, self.serial)
            if not self._mine(target):
                _fail(conn, f"device '{target}' not found")
                return None
            r = "host:" + rest
        elif r.startswith(("host-usb:", "host-local:")):
            r = "host:" + r.split(":", 1)[1]
        if r.startswith(EXPERT_PREFIX):
            self._expert(conn, r[len(EXPERT_PREFIX) :])
            return None
        if r == A11Y_FOREST:
            self._forest(conn)
            return None
        if r == "host:version":
            _okay(conn, f"{ADB_VERSION:04x}")
        elif r == "host:kill":
            conn.sendall(b"OKAY")
            threading.Thread(target=self.close, daemon=True).start()
        elif r in ("host:devices", "host:devices-l"):
            _okay(conn, self._devices(long=r.endswith("-l")))
        elif r in ("host:features", "host:host-features"):
            _okay(conn, ",".join(FEATURES))
        elif r == "host:get-state":
            _okay(conn, "device")
        elif r == "host:get-serialno":
            _okay(conn, self.serial)
        elif r == "host:get-devpath":
            _okay(conn, "usb:1-1")
        elif r.startswith("host:wait-for-") or r.startswith("host:wait-for"):
            conn.sendall(b"OKAY" + b"OKAY")
        elif r.startswith("host:transport:"):
            if not self._mine(r[len("host:transport:") :]):
                _fail(conn, f"device '{r[len('host:transport:') :]}' not found")
                return None
            conn.sendall(b"OKAY")
            return True
        elif r in ("host:transport-any", "host:transport-usb", "host:transport-local"):
            conn.sendall(b"OKAY")
            return True
        elif r.startswith("host:tport:"):
            what = r[len("host:tport:") :]
            if what.startswith("serial:") and not self._mine(what[len("serial:") :]):
                _fail(conn, f"device '{what[len('serial:') :]}' not found")
                return None
            conn.sendall(b"OKAY" + struct.pack("<Q", TRANSPORT_ID))
            return True
        elif r.startswith("host:"):
            _fail(conn, f"unknown host service '{r[5:][:100]}'")
        else:
            _fail(conn, "a request names a host service first (host:..., host-serial:...)")
        return None

    def _expert(self, conn: socket.socket, request: str) -> None:
        """The expert side channel (:mod:`~gui_gym.android.sim.adb.expert`), when it is on."""
        if self.expert is None:
            _fail(conn, "the expert side channel is off (start the server with expert=True: serve-adb --expert)")
            return
        try:
            with self.lock:
                answer = self.expert.handle(request)
        except ExpertError as e:
            _fail(conn, str(e))
            return
        data = answer.encode()
        if len(data) > 0xFFFF:
            _fail(conn, f"the expert's answer is {len(data)} bytes; a host answer holds at most 65535")
            return
        _okay(conn, answer)

    def _forest(self, conn: socket.socket) -> None:
        """The accessibility forest of the screen (:func:`~gui_gym.android.forest.to_forest`: every
        window and its nodes, hints included, with the proto's field names), as JSON after
        ``OKAY``, until the connection closes: what android_env's accessibility forwarder app
        sends AndroidWorld's environment from a phone."""
        from gui_gym.android.forest import to_forest

        with self.lock:
            data = json.dumps(to_forest(self.backend.device.windows()), separators=(",", ":")).encode()
        conn.sendall(b"OKAY" + data)
        _half_close(conn)

    def _mine(self, target: str) -> bool:
        return target in (self.serial, str(TRANSPORT_ID))

    def _devices(self, long: bool) -> str:
        if not long:
            return f"{self.serial}\tdevice\n"
        product, model, device = (PROPS[k] for k in ("ro.product.name", "ro.product.model", "ro.product.device"))
        return f"{self.serial:<22} device product:{product} model:{model} device:{device} transport_id:{TRANSPORT_ID}\n"

    # -- device services --------------------------------------------------------------------------
    def _service(self, conn: Any, request: str, smart: bool = True) -> None:
        """Run one device service on *conn*: a host connection (``smart``: the request is answered
        ``OKAY`` or ``FAIL`` first) or a stream of the device transport (already accepted)."""
        name, _, command = request.partition(":")
        options = name.split(",")
        if options[0] not in ("shell", "exec", "sync"):
            reason = (
                f"{name} is not supported by the simulated phone"
                if name in ("reboot", "root", "unroot", "remount", "tcpip", "usb", "jdwp", "track-jdwp")
                else f"unknown service '{request[:100]}'"
            )
            if smart:
                _fail(conn, reason)
            return
        if smart:
            conn.sendall(b"OKAY")
        if options[0] == "sync":
            self._sync(conn)
            return
        with self.lock:
            result = self.shell.run(command.rstrip("\0"))
        if options[0] == "shell" and "v2" in options:
            for stream, data in ((1, result.stdout), (2, result.stderr)):
                for i in range(0, len(data), SYNC_CHUNK):
                    conn.sendall(_packet(stream, data[i : i + SYNC_CHUNK]))
            conn.sendall(_packet(3, bytes([result.status & 0xFF])))
        elif options[0] == "shell":
            conn.sendall(result.stdout + result.stderr)
        else:
            conn.sendall(result.stdout)
        _half_close(conn)

    def _sync(self, conn: socket.socket) -> None:
        while True:
            header = _read_exact(conn, 8)
            sid, length = header[:4], struct.unpack("<I", header[4:])[0]
            if sid == b"QUIT":
                return
            if length > MAX_SYNC_PATH:
                _sync_fail(conn, "path too long")
                return
            arg = _read_exact(conn, length).decode("utf-8", errors="replace")
            if sid == b"SEND":  # the upload arrives without the phone's lock: a slow one blocks no one
                self._send(conn, arg)
                continue
            with self.lock, self.shell.mounted():  # the apps' files as their data is now
                if sid == b"STAT":
                    conn.sendall(b"STAT" + struct.pack("<III", *self._stat(arg)))
                elif sid == b"LIST":
                    self._list(conn, arg)
                elif sid == b"RECV":
                    self._recv(conn, arg)
                else:
                    _sync_fail(conn, f"unknown sync request {sid!r}")
                    return

    def _stat(self, path: str) -> tuple[int, int, int]:
        p = self.shell.path(path)
        mtime = int(self.backend.device.state.now.timestamp())
        if p in self.shell.files:
            return _FILE_MODE, len(self.shell.files[p]), mtime
        if p in self.shell.dirs:
            return _DIR_MODE, 4096, mtime
        return 0, 0, 0

    def _list(self, conn: socket.socket, path: str) -> None:
        mtime = int(self.backend.device.state.now.timestamp())
        for name, is_dir, size in self.shell.listing(path) or []:
            raw = name.encode()
            mode = _DIR_MODE if is_dir else _FILE_MODE
            conn.sendall(b"DENT" + struct.pack("<IIII", mode, size, mtime, len(raw)) + raw)
        conn.sendall(b"DONE" + struct.pack("<IIII", 0, 0, 0, 0))

    def _recv(self, conn: socket.socket, path: str) -> None:
        data = self.shell.files.get(self.shell.path(path))
        if data is None:
            _sync_fail(conn, "No such file or directory")
            return
        for i in range(0, len(data), SYNC_CHUNK):
            chunk = data[i : i + SYNC_CHUNK]
            conn.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
        conn.sendall(b"DONE" + struct.pack("<I", 0))

    def _send(self, conn: socket.socket, spec: str) -> None:
        """``SEND``: the file's ``DATA`` chunks, then ``DONE``; stored whole at ``DONE`` or not at all.

        The chunks are read without the phone's lock (a client that uploads slowly holds up no other
        command); the lock is taken to count the room at the start, for the early ``FAIL``, and to
        store the file, where :meth:`Shell.write` checks the storage limit again on what is there then."""
        path = spec.rsplit(",", 1)[0] if "," in spec else spec
        with self.lock:  # a file pushed over another replaces it, freeing its bytes
            used = self.shell.used(but=self.shell.path(path))
        room = self.max_storage - used
        parts, total = [], 0
        while True:
            header = _read_exact(conn, 8)
            sid, value = header[:4], struct.unpack("<I", header[4:])[0]
            if sid == b"DATA":
                if value > SYNC_CHUNK:
                    _sync_fail(conn, f"a DATA chunk of {value} bytes; at most {SYNC_CHUNK}")
                    raise _Closed
                if total + value > MAX_FILE:
                    _sync_fail(conn, f"the file is too large for the simulated phone (at most {MAX_FILE} bytes)")
                    raise _Refused
                if total + value > room:
                    _sync_fail(
                        conn,
                        f"No space left on device: the simulated phone's storage is limited to {self.max_storage} "
                        f"bytes (max_storage; {_mib(self.max_storage)}), {used} bytes are in use and this push "
                        "would pass it",
                    )
                    raise _Refused
                parts.append(_read_exact(conn, value))
                total += value
            elif sid == b"DONE":
                break
            else:
                _sync_fail(conn, f"unexpected {sid!r} in a SEND")
                raise _Closed
        with self.lock, self.shell.mounted():  # a database pushed to an app's path becomes its data
            problem = self.shell.write(path, b"".join(parts))
        if problem:
            _sync_fail(conn, problem)
        else:
            conn.sendall(b"OKAY" + struct.pack("<I", 0))


def serve_adb(backend: Any = None, host: str = "127.0.0.1", port: int = 5037, **kwargs: Any) -> AdbServer:
    """Start an :class:`AdbServer` in a background thread and return it (``close()`` stops it)."""
    return AdbServer(backend, host, port, **kwargs).start()


# -- wire helpers ----------------------------------------------------------------------------


def _read_exact(conn: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise _Closed
        buf += chunk
    return bytes(buf)


def _read_request(conn: socket.socket) -> str:
    head = _read_exact(conn, 4)
    try:
        length = int(head.decode("ascii"), 16)
    except (UnicodeDecodeError, ValueError):
        _fail(conn, "a request starts with its length as four hex digits")
        _half_close(conn)  # let the client read the reason before the connection ends
        raise _Closed from None
    if length > MAX_REQUEST:
        _fail(conn, f"a request of {length} bytes; at most {MAX_REQUEST}")
        _half_close(conn)
        raise _Closed
    return _read_exact(conn, length).decode("utf-8", errors="replace")


def _okay(conn: socket.socket, payload: str) -> None:
    data = payload.encode()
    conn.sendall(b"OKAY" + f"{len(data):04x}".encode() + data)


def _fail(conn: socket.socket, message: str) -> None:
    data = message.encode()
    with contextlib.suppress(OSError):
        conn.sendall(b"FAIL" + f"{len(data):04x}".encode() + data)


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"


def _sync_fail(conn: socket.socket, message: str) -> None:
    data = message.encode()
    conn.sendall(b"FAIL" + struct.pack("<I", len(data)) + data)


def _packet(stream: int, data: bytes) -> bytes:
    """One shell-protocol packet: its stream id, its length (little-endian) and its data."""
    return bytes([stream]) + struct.pack("<I", len(data)) + data


def _half_close(conn: Any) -> None:
    """End the output; then wait for the client to close its side (bounded by the socket's timeout)."""
    if not isinstance(conn, socket.socket):  # a device-transport stream ends with its CLSE
        conn.close()
        return
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_WR)
        while conn.recv(4096):
            pass


def _split_target(request: str, serial: str) -> tuple[str, str]:
    """``host-serial:SERIAL:REQUEST`` -> (SERIAL, REQUEST); a serial may hold ':' (host:port)."""
    body = request.split(":", 1)[1]
    for candidate in (serial, str(TRANSPORT_ID)):
        if body.startswith(candidate + ":"):
            return candidate, body[len(candidate) + 1 :]
    head, _, tail = body.rpartition(":")
    return (head, tail) if head else (body, "")
