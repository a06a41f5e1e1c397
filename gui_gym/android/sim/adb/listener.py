"""A loopback TCP listener that hands each connection to a thread, and drops them all on close:
what the adb server and the network device share."""

from __future__ import annotations

import contextlib
import socket
import threading
from typing import Any

__all__ = ["Listener"]


class Listener:
    """Listen on *host*:*port* (0: any free port); :meth:`handle` serves one connection."""

    name = "listener"

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.timeout = float(timeout)
        self._sock = socket.create_server((host, port))
        self._sock.settimeout(0.5)
        self.host, self.port = self._sock.getsockname()[:2]
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._clients: set[socket.socket] = set()

    def handle(self, conn: socket.socket) -> None:  # pragma: no cover - each subclass has its own
        raise NotImplementedError

    def start(self) -> Any:
        self._thread = threading.Thread(target=self.serve_forever, name=self.name, daemon=True)
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            conn.settimeout(self.timeout)
            # replies are small writes (OKAY, then the output): send each at once
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._clients.add(conn)
            threading.Thread(target=self._serve, args=(conn,), name=f"{self.name}-client", daemon=True).start()

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
    def address(self) -> str:
        return f"{self.host}:{self.port}"
