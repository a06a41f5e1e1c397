"""The simulated phone as a network device: the adb transport protocol adbd speaks on port 5555.

A real adb server can ``adb connect 127.0.0.1:PORT`` to :class:`DeviceTransport` and then run
shell, exec and sync services on the simulated phone as on an emulator reached over TCP. The
protocol (``CNXN``, ``OPEN``, ``OKAY``, ``WRTE``, ``CLSE``): each message is six little-endian
32-bit words — command, arg0, arg1, payload length, payload checksum (not checked from protocol
version 0x01000001 on), command XOR 0xFFFFFFFF — then the payload.

- ``CNXN``: the host's version, max payload and banner; the device answers with its own banner
  (``device::ro.product.name=…;…;features=shell_v2``). No ``AUTH``: the phone trusts loopback.
- ``OPEN(host_id, 0, "service")``: a stream; ``OKAY(device_id, host_id)`` accepts it, ``CLSE``
  refuses it. The service runs as on the smart socket (shell, shell,v2, exec, sync), each on a
  thread: a link holds at most ``max_streams`` open streams (default :data:`MAX_STREAMS`), and an
  ``OPEN`` past that is refused (``CLSE``, logged), as adbd refuses a service it cannot start.
- ``WRTE(id, id, data)`` carries a stream's bytes each way; every ``WRTE`` is acknowledged by an
  ``OKAY`` before the next one is sent. ``CLSE`` ends a stream.

At most ``max_connections`` hosts are linked at once (:class:`~gui_gym.android.sim.adb.listener.Listener`);
one more is closed at once (the transport protocol has no way to say why before ``CNXN``).

Example:
    >>> from gui_gym.android.sim.adb.server import AdbServer
    >>> phone = DeviceTransport(AdbServer(port=0).start(), port=0).start()
    >>> phone.port > 0
    True
    >>> phone.close()
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import queue
import socket
import struct
import threading
from typing import Any

from gui_gym.android.sim.adb.listener import MAX_CONNECTIONS, Listener

__all__ = ["MAX_STREAMS", "DeviceTransport", "message"]

A_SYNC, A_CNXN, A_AUTH, A_OPEN = 0x434E5953, 0x4E584E43, 0x48545541, 0x4E45504F
A_OKAY, A_CLSE, A_WRTE, A_STLS = 0x59414B4F, 0x45534C43, 0x45545257, 0x534C5453
VERSION = 0x01000001
MAX_PAYLOAD = 256 * 1024
#: Streams (services, a thread each) one host may hold open at once by default.
MAX_STREAMS = 64
log = logging.getLogger(__name__)


def message(command: int, arg0: int, arg1: int, payload: bytes = b"") -> bytes:
    """One transport message: its header, then *payload*."""
    checksum = sum(payload) & 0xFFFFFFFF
    header = struct.pack("<6I", command, arg0, arg1, len(payload), checksum, command ^ 0xFFFFFFFF)
    return header + payload


class _Stream:
    """One service's end of the transport: ``recv``/``sendall`` over WRTE and OKAY messages."""

    def __init__(self, link: _Link, local: int, remote: int) -> None:
        self.link, self.local, self.remote = link, local, remote
        self.inbox: queue.Queue[bytes | None] = queue.Queue()
        self.buffer = b""
        self.acked = threading.Event()
        self.acked.set()
        self.closed = False

    def sendall(self, data: bytes) -> None:
        for i in range(0, len(data), self.link.max_payload):
            if not self.acked.wait(self.link.timeout) or self.closed:
                raise OSError("the host stopped reading the stream")
            self.acked.clear()
            self.link.send(message(A_WRTE, self.local, self.remote, data[i : i + self.link.max_payload]))

    def recv(self, n: int) -> bytes:
        while not self.buffer:
            try:
                item = self.inbox.get(timeout=self.link.timeout)
            except queue.Empty:
                raise TimeoutError("the host sent nothing on the stream") from None
            if item is None:
                return b""
            self.buffer = item
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                self.link.send(message(A_CLSE, self.local, self.remote))


class _Link:
    """One host connected to the device (an adb server after ``adb connect``)."""

    def __init__(self, owner: DeviceTransport, conn: socket.socket) -> None:
        self.owner, self.conn = owner, conn
        self.timeout = owner.timeout
        self.max_payload = MAX_PAYLOAD
        self.streams: dict[int, _Stream] = {}
        self.ids = itertools.count(1)
        self.write_lock = threading.Lock()

    def send(self, data: bytes) -> None:
        with self.write_lock:
            self.conn.sendall(data)

    def _read(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.conn.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the host went away")
            buf += chunk
        return bytes(buf)

    def run(self) -> None:
        while True:
            command, arg0, arg1, length, _checksum, magic = struct.unpack("<6I", self._read(24))
            if magic != command ^ 0xFFFFFFFF or length > MAX_PAYLOAD * 4:
                raise ConnectionError("a message header that is not adb's")
            payload = self._read(length) if length else b""
            if command == A_CNXN:
                self.max_payload = max(4096, min(arg1, MAX_PAYLOAD))
                self.send(message(A_CNXN, VERSION, self.max_payload, self.owner.banner()))
            elif command == A_OPEN:
                local = next(self.ids)
                service = payload.rstrip(b"\0").decode("utf-8", errors="replace")
                if not service.startswith(("shell", "exec:", "sync:")):
                    self.send(message(A_CLSE, 0, arg0))
                    continue
                if len(self.streams) >= self.owner.max_streams:  # each stream is a thread: bounded
                    log.warning(
                        "device transport: refused a stream (%s): the host holds %d open, the limit",
                        service[:40], len(self.streams),
                    )  # fmt: skip
                    self.send(message(A_CLSE, 0, arg0))
                    continue
                stream = self.streams[local] = _Stream(self, local, arg0)
                self.send(message(A_OKAY, local, arg0))
                threading.Thread(target=self._serve, args=(stream, service), daemon=True).start()
            elif command == A_WRTE:
                stream = self.streams.get(arg1)
                if stream is not None:
                    stream.inbox.put(payload)
                    self.send(message(A_OKAY, arg1, arg0))
            elif command == A_OKAY:
                stream = self.streams.get(arg1)
                if stream is not None:
                    stream.acked.set()
            elif command == A_CLSE:
                stream = self.streams.pop(arg1, None)
                if stream is not None:
                    stream.inbox.put(None)
                    stream.acked.set()
                    stream.close()
            # SYNC, AUTH, STLS: none is asked of this device; anything else is ignored as adbd does

    def _serve(self, stream: _Stream, service: str) -> None:
        try:
            self.owner.server._service(stream, service, smart=False)
        except Exception as err:  # the stream ends; the link and the server go on
            log.debug("device transport: service %s ended: %s", service, err)
        finally:
            stream.close()
            self.streams.pop(stream.local, None)


class DeviceTransport(Listener):
    """The phone of *server* (an :class:`~gui_gym.android.sim.adb.server.AdbServer`) listening as a
    network device on *host*:*port* (``adb connect host:port``): at most *max_connections* hosts at
    once, each with at most *max_streams* open streams (see the module docstring)."""

    name = "adb-device"

    def __init__(
        self,
        server: Any,
        host: str = "127.0.0.1",
        port: int = 5555,
        timeout: float = 30.0,
        max_connections: int = MAX_CONNECTIONS,
        max_streams: int = MAX_STREAMS,
    ) -> None:
        if int(max_streams) < 1:
            raise ValueError(f"max_streams must be at least 1, got {max_streams}")
        super().__init__(host, port, timeout, max_connections)
        self.server = server
        self.max_streams = int(max_streams)

    def banner(self) -> bytes:
        from gui_gym.android.sim.adb.server import FEATURES
        from gui_gym.android.sim.adb.shell import PROPS

        props = ";".join(f"{k}={PROPS[k]}" for k in ("ro.product.name", "ro.product.model", "ro.product.device"))
        return f"device::{props};features={','.join(FEATURES)}".encode()

    def handle(self, conn: socket.socket) -> None:
        conn.settimeout(None)  # a link idles between commands; its streams keep their own time limits
        try:
            with conn:
                _Link(self, conn).run()
        except (OSError, ConnectionError, struct.error):
            pass
