"""A canned OpenAI-compatible HTTP server on loopback, shared by the LLM and judge tests."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")


class CannedServer(ThreadingHTTPServer):
    """Serves ``handler`` on 127.0.0.1 (a free port); records requests under ``lock``."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.requests: list[Any] = []
        self.lock = threading.Lock()

    def handle_error(self, request: Any, client_address: Any) -> None:  # a client that gave up: quiet
        pass

    def url(self, mode: str) -> str:
        """The base URL of one canned behaviour: ``http://127.0.0.1:PORT/<mode>/v1``."""
        return f"http://127.0.0.1:{self.server_address[1]}/{mode}/v1"


@contextmanager
def serving(server: CannedServer) -> Iterator[CannedServer]:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def clear_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback requests must not go through a proxy configured in the environment."""
    for var in PROXY_VARS:
        monkeypatch.delenv(var, raising=False)


def dead_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
