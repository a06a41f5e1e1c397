"""A loopback TCP listener that hands each connection to a thread, and drops them all on close:
what the adb server and the network device share.

At most ``max_connections`` connections are served at once (each holds a thread): one more is
refused — :meth:`Listener.refuse` answers it as its protocol can, a warning is logged, and it is
closed — so a client that opens connections without end cannot exhaust the server's threads.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
import time
from typing import Any

__all__ = ["MAX_CONNECTIONS", "Listener", "linger_close"]

#: Connections served at once by default (adb clients open one per command; 64 is plenty).
MAX_CONNECTIONS = 64
#: How long a refused connection may take to read its answer before it is closed.
REFUSE_LINGER_S = 0.25
log = logging.getLogger(__name__)


def linger_close(conn: socket.socket, seconds: float, limit: int = 1 << 20) -> None:
    """End the output and read what the client still sends, for up to *seconds* and *limit* bytes,
    then close: closing with unread input would reset the connection, and the client could lose
    the answer sent just before."""
    deadline = time.monotonic() + seconds
    with contextlib.suppress(OSError):
        conn.shutdown(socket.SHUT_WR)
        while limit > 0 and (left := deadline - time.monotonic()) > 0:
            conn.settimeout(left)
            chunk = conn.recv(min(limit, 65536))
            if not chunk:
                break
            limit -= len(chunk)
    with contextlib.suppress(OSError):
        conn.close()


class Listener:
    """Listen on *host*:*port* (0: any free port); :meth:`handle` serves one connection, at most
    *max_connections* at once (see the module docstring)."""

    name = "listener"

    def __init__(self, host: str, port: int, timeout: float, max_connections: int = MAX_CONNECTIONS) -> None:
        if int(max_connections) < 1:
            raise ValueError(f"max_connections must be at least 1, got {max_connections}")
        self.timeout = float(timeout)
        self.max_connections = int(max_connections)
        self.refused = 0  # connections refused at the limit
        self._sock = socket.create_server((host, port))
        self._sock.settimeout(0.5)
        self.host, self.port = self._sock.getsockname()[:2]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._clients: set[socket.socket] = set()

    def handle(self, conn: socket.socket) -> None:  # pragma: no cover - each subclass has its own
        raise NotImplementedError

    def refuse(self, conn: socket.socket) -> None:
        """Tell a client over the connection limit why it is refused, where its protocol can say
        so (nothing here); the connection is closed afterwards."""

    def start(self) -> Any:
        self._thread = threading.Thread(target=self.serve_forever, name=self.name, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        while not self._stop.is_set():
            try:
                conn, addr = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            # only this thread adds clients, so the count can only fall between check and add
            if len(self._clients) >= self.max_connections:
                self._refuse(conn, addr)
                continue
            conn.settimeout(self.timeout)
            # replies are small writes (OKAY, then the output): send each at once
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._clients.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name=f"{self.name}-client", daemon=True).start()

    def _refuse(self, conn: socket.socket, addr: Any) -> None:
        self.refused += 1
        log.warning(
            "%s on %s: refused a connection from %s: at its limit of %d connections",
            self.name, self.address, addr[0] if isinstance(addr, tuple) else addr, self.max_connections,
        )  # fmt: skip
        try:
            conn.settimeout(REFUSE_LINGER_S)  # the answer is small; a client that reads nothing is not waited for
            self.refuse(conn)
        except OSError:
            pass
        finally:  # briefly: this runs on the accepting thread
            linger_close(conn, REFUSE_LINGER_S)

    def _serve(self, conn: socket.socket) -> None:
        try:
            self.handle(conn)
        finally:
            self._clients.discard(conn)

    def close(self) -> None:
        """Stop listening and drop every connection (a killed server, as clients see it)."""
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.close()
        for c in list(self._clients):
            with contextlib.suppress(OSError):
                c.shutdown(socket.SHUT_RDWR)
                c.close()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def running(self) -> bool:
        """Whether it still listens (a ``host:kill`` or :meth:`close` stops it)."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def connections(self) -> int:
        """How many connections are being served now."""
        return len(self._clients)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"
