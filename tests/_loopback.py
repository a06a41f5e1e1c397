"""A canned OpenAI-compatible HTTP server on loopback, shared by the LLM and judge tests."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


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


class CannedHandler(BaseHTTPRequestHandler):
    """Quiet request handler with helpers to answer in the OpenAI chat-completions format."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def send_json(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def reply(self, content: str | None) -> None:
        """A chat completion whose one choice says ``content``."""
        body = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "finish_reason": "stop"}]}
        body["choices"][0]["message"] = {"role": "assistant", "content": content}
        self.send_json(200, json.dumps(body).encode())


@contextmanager
def serving(server: CannedServer) -> Iterator[CannedServer]:
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def dead_url() -> str:
    """A loopback URL where nothing listens (connection refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
