"""The shop in a browser: a loopback HTTP server rendering WebShop's pages as HTML.

``gui-gym webshop serve`` (or :func:`serve` in-process) starts it. A person picks a goal (or
takes a random one), searches, opens items, chooses options and buys; the last page shows the
score upstream's reward gives the purchase. Recorded episodes (the project's trajectory JSON
Lines, ``--replay FILE``) can be stepped through page by page.

Every page is the env's own HTML (:func:`gui_gym.webshop.pages.render_html`): the same pages
the agent reads, with every product text and query escaped. Responses forbid scripts (a
``Content-Security-Policy`` without ``script-src``); a malformed request gets a 4xx answer
with a one-line reason, never a traceback.

Routes: ``GET /`` (start page), ``POST /new`` (field ``task``: a goal id, or empty for a random
goal), ``GET /s/<id>`` (the session's page), ``POST /s/<id>/act`` (fields ``action`` =
``search`` with ``query``, or ``click[...]``), ``GET /replay/<n>?step=<k>``.

Limits, so that slow or greedy clients cannot hold the server: a connection must deliver its
whole request (line, headers and body) within ``request_timeout`` seconds (default 10) — a
client that sends nothing or dribbles its bytes is disconnected then, without an answer; at most
``max_connections`` (default 64) are served at once — one more gets ``503 Service Unavailable``
with a one-line reason and is closed; a request line over 64 KiB gets 414, request line and
headers over :data:`MAX_HEAD` bytes (16 KiB) or over 100 header lines get 431, and a form over
:data:`MAX_BODY` bytes (64 KiB) gets 413.

Example:
    >>> from gui_gym.webshop.engine import Shop
    >>> server = serve(Shop.generated(num_products=200), port=0)
    >>> import urllib.request
    >>> urllib.request.urlopen(server.url + "/").status
    200
    >>> server.shutdown()
"""

from __future__ import annotations

import contextlib
import html
import http.client
import io
import logging
import random
import re
import secrets
import socket
import threading
import time
import urllib.parse
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from gui_gym.webshop.engine import Session, Shop
from gui_gym.webshop.goals import split_indices
from gui_gym.webshop.pages import render_html
from gui_gym.webshop.tasks import GoalTask, goal_tasks, resolve

__all__ = [
    "MAX_BODY",
    "MAX_CONNECTIONS",
    "MAX_HEAD",
    "REQUEST_TIMEOUT",
    "Replay",
    "ShopServer",
    "read_replays",
    "serve",
]

MAX_BODY = 64 * 1024
#: The request line and headers together, in bytes (a browser sends well under 8 KiB).
MAX_HEAD = 16 * 1024
MAX_SESSIONS = 1000
#: Seconds a connection may take to send its whole request.
REQUEST_TIMEOUT = 10.0
#: Connections served at once (each holds a thread).
MAX_CONNECTIONS = 64
log = logging.getLogger(__name__)
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action 'self'; base-uri 'none'"
_SESSION = re.compile(r"^/s/([0-9a-f]{16})(/act)?$")
_REPLAY = re.compile(r"^/replay/(\d{1,6})$")


@dataclass
class Replay:
    """A recorded episode: its goal id and its actions, in order."""

    task_id: str
    actions: list[str]
    source: str = ""


def read_replays(path: str | Path) -> list[Replay]:
    """The episodes of a trajectory JSON Lines file (``gui_gym.core.trajectory``)."""
    from gui_gym.core.trajectory import read_jsonl

    return [Replay(t.task_id, [s.action for s in t.steps], str(path)) for t in read_jsonl(str(path))]


@dataclass
class ShopServer:
    """A running shop: ``url``, ``shutdown()``; sessions live in memory (the oldest go first)."""

    shop: Shop
    httpd: _HTTPServer
    replays: list[Replay] = field(default_factory=list)
    sessions: OrderedDict[str, Session] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None
    _tasks: list[GoalTask] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._tasks = goal_tasks(self.shop, split_indices(len(self.shop.goals), "all"))

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def shutdown(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self.thread is not None:
            self.thread.join(timeout=5)

    # -- sessions ----------------------------------------------------------------------------
    def new_session(self, task: str | None) -> str:
        """A session on goal *task* (an id, or a selection such as ``test:hard`` whose first goal
        is taken), or on a random goal."""
        if task:
            chosen = resolve(task, self._tasks, self._tasks)[0]
        else:
            chosen = random.choice(self._tasks)
        key = secrets.token_hex(8)
        with self.lock:
            self.sessions[key] = Session(self.shop, chosen.index)
            while len(self.sessions) > MAX_SESSIONS:
                self.sessions.popitem(last=False)
        return key

    def replay_session(self, n: int, step: int) -> tuple[Session, list[str]]:
        replay = self.replays[n]
        index = int(replay.task_id.rsplit(":", 1)[-1]) if ":" in replay.task_id else int(replay.task_id)
        session = Session(self.shop, index)
        for action in replay.actions[:step]:
            session.step(action)
        return session, replay.actions


class _HTTPServer(ThreadingHTTPServer):
    """A thread per connection, at most ``max_connections`` at once; one more gets a 503."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], max_connections: int) -> None:
        super().__init__(address, handler)
        self.max_connections = max_connections
        self.active = 0
        self.refused = 0
        self._count = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._count:
            full = self.active >= self.max_connections
            if not full:
                self.active += 1
        if full:
            self.refused += 1
            log.warning(
                "webshop server: refused a connection from %s: at its limit of %d connections",
                client_address[0], self.max_connections,
            )  # fmt: skip
            _refuse(request, self.max_connections)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread was started: its slot is free again
            self._release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._release()

    def _release(self) -> None:
        with self._count:
            self.active -= 1


#: How long a refused connection may take to read its 503 (this runs on the accepting thread).
_REFUSE_LINGER_S = 0.25


def _refuse(sock: socket.socket, limit: int) -> None:
    """Answer 503 and close: the request already sent is read first (closing with unread input
    resets the connection, and the client could lose the answer), briefly, then dropped."""
    body = f"503 Service Unavailable: the shop is at its limit of {limit} connections; try again shortly\n".encode()
    head = (
        "HTTP/1.0 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
    )
    deadline = time.monotonic() + _REFUSE_LINGER_S
    with contextlib.suppress(OSError):
        sock.settimeout(_REFUSE_LINGER_S)
        sock.sendall(head.encode() + body)
        sock.shutdown(socket.SHUT_WR)
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(65536):
                break
    with contextlib.suppress(OSError):
        sock.close()


class _Deadline(io.RawIOBase):
    """A connection's input that ends in a :class:`TimeoutError` once *seconds* have passed since
    it was opened, however the client paces its bytes (a per-read timeout alone lets a client
    that sends one byte at a time hold its thread for ever)."""

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        self.sock, self.seconds = sock, seconds
        self.deadline = time.monotonic() + seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"the request took longer than {self.seconds:g} s")
        self.sock.settimeout(left)
        return self.sock.recv_into(buffer)


class _Request(io.BufferedReader):
    """The request's input: by its deadline (:class:`_Deadline`), and at most :data:`MAX_HEAD`
    bytes of request line and headers (past it the headers' parser answers 431)."""

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        super().__init__(_Deadline(sock, seconds))
        self.head = 0
        self.lines = 0

    def readline(self, size: int | None = -1) -> bytes:
        line = super().readline(-1 if size is None else size)
        self.head += len(line)
        self.lines += 1
        # the request line is read first, and answered 414 by the handler past 64 KiB
        if self.lines > 1 and self.head > MAX_HEAD:
            raise http.client.LineTooLong(f"request line and headers of more than {MAX_HEAD} bytes")
        return line


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{html.escape(title)}</title></head><body>{body}</body></html>"
    )


class _Handler(BaseHTTPRequestHandler):
    server_version = "gui-gym-webshop"
    timeout = REQUEST_TIMEOUT  # seconds a client may take to send its whole request
    shop_server: ShopServer  # set on the subclass by serve()

    def setup(self) -> None:
        super().setup()
        # one request per connection (HTTP/1.0): the connection's deadline is the request's
        self.rfile.close()  # the plain reader setup() made; the socket stays open
        self.rfile = _Request(self.connection, float(self.timeout))

    def send_response_only(self, code: int, message: str | None = None) -> None:
        # the answer gets the full timeout again, not what the request left of it
        self.connection.settimeout(self.timeout)
        super().send_response_only(code, message)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: a test suite and a person's terminal need no access log

    # -- answers -----------------------------------------------------------------------------------
    def _send(self, status: int, body: str, content_type: str = "text/html; charset=utf-8") -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Content-Security-Policy", _CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: HTTPStatus, reason: str) -> None:
        self._send(status, f"{status.value} {status.phrase}: {reason}\n", "text/plain; charset=utf-8")

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.SEE_OTHER)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _form(self) -> dict[str, str] | None:
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            self._error(HTTPStatus.BAD_REQUEST, "Content-Length is not a number")
            return None
        if length < 0 or length > MAX_BODY:
            self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a form of at most {MAX_BODY} bytes")
            return None
        try:
            raw = self.rfile.read(length).decode("utf-8")
            fields = urllib.parse.parse_qs(raw, keep_blank_values=True, strict_parsing=False, max_num_fields=20)
        except (UnicodeDecodeError, ValueError):
            self._error(HTTPStatus.BAD_REQUEST, "the form is not UTF-8 url-encoded fields")
            return None
        return {k: v[0] for k, v in fields.items()}

    # -- routes -------------------------------------------------------------------------------------
    def do_GET(self) -> None:
        path, _, query = self.path.partition("?")
        if path == "/":
            return self._send(HTTPStatus.OK, self._start_page())
        m = _SESSION.match(path)
        if m and not m.group(2):
            session = self.shop_server.sessions.get(m.group(1))
            if session is None:
                return self._error(HTTPStatus.NOT_FOUND, "no such session; start one at /")
            return self._send(HTTPStatus.OK, self._session_page(m.group(1), session))
        m = _REPLAY.match(path)
        if m:
            return self._replay(int(m.group(1)), urllib.parse.parse_qs(query))
        if m is None and path.startswith("/s/"):
            return self._error(HTTPStatus.NOT_FOUND, "no such session; start one at /")
        self._error(HTTPStatus.NOT_FOUND, "no such page")

    def do_POST(self) -> None:
        path = self.path.partition("?")[0]
        if path == "/new":
            form = self._form()
            if form is None:
                return None
            try:
                key = self.shop_server.new_session(form.get("task", "").strip() or None)
            except ValueError as err:
                return self._error(HTTPStatus.BAD_REQUEST, str(err))
            return self._redirect(f"/s/{key}")
        m = _SESSION.match(path)
        if not (m and m.group(2)):
            return self._error(HTTPStatus.NOT_FOUND, "no such form")
        session = self.shop_server.sessions.get(m.group(1))
        if session is None:
            return self._error(HTTPStatus.NOT_FOUND, "no such session; start one at /")
        form = self._form()
        if form is None:
            return None
        action = form.get("action")
        if action is None:
            return self._error(HTTPStatus.BAD_REQUEST, "the form needs an 'action' field")
        if action == "search":
            action = f"search[{form.get('query', '')}]"
        with self.shop_server.lock:
            session.step(action)  # an action that does nothing leaves the page as it was
        self._redirect(f"/s/{m.group(1)}")

    def do_PUT(self) -> None:
        self._error(HTTPStatus.METHOD_NOT_ALLOWED, "GET pages, POST forms")

    do_DELETE = do_PATCH = do_PUT

    # -- pages --------------------------------------------------------------------------------------
    def _start_page(self) -> str:
        replays = "".join(
            f'<li><a href="/replay/{i}?step=0">{html.escape(r.task_id)} ({len(r.actions)} steps)</a></li>'
            for i, r in enumerate(self.shop_server.replays)
        )
        n = len(self.shop_server.shop.goals)
        body = (
            "<h1>WebShop</h1>"
            f"<p>{len(self.shop_server.shop.catalog.products)} products, {n} goals.</p>"
            '<form method="post" action="/new"><label for="task">Goal id (empty: a random goal)</label> '
            f'<input id="task" name="task" placeholder="{html.escape(self.shop_server.shop.goal_kind)}:0"> '
            '<button id="start" type="submit">Start shopping</button></form>'
            + (f"<h2>Recorded episodes</h2><ul>{replays}</ul>" if replays else "")
        )
        return _page("WebShop", body)

    def _bar(self, session: Session, note: str = "") -> str:
        score = ""
        if session.reward_info is not None:
            score = f' <strong id="score">Score: {session.reward_info.score:.3f}</strong>'
        return (
            f'<nav class="bar"><a href="/">WebShop</a> · goal {html.escape(session.shop.goal_kind)}:'
            f"{session.goal_index}{score}{note}</nav>"
        )

    def _session_page(self, key: str, session: Session) -> str:
        return render_html(session.page, action_url=f"/s/{key}/act", extra=self._bar(session), chosen=session.options)

    def _replay(self, n: int, query: dict[str, list[str]]) -> None:
        if n >= len(self.shop_server.replays):
            return self._error(HTTPStatus.NOT_FOUND, "no such recorded episode")
        try:
            step = int(query.get("step", ["0"])[0])
        except ValueError:
            return self._error(HTTPStatus.BAD_REQUEST, "step must be a number")
        actions = self.shop_server.replays[n].actions
        if not 0 <= step <= len(actions):
            return self._error(HTTPStatus.BAD_REQUEST, f"step must be within 0..{len(actions)}")
        try:
            session, actions = self.shop_server.replay_session(n, step)
        except (ValueError, IndexError) as err:
            return self._error(HTTPStatus.UNPROCESSABLE_ENTITY, f"the episode does not replay here: {err}")
        links = []
        if step > 0:
            links.append(f'<a id="prev-step" href="/replay/{n}?step={step - 1}">previous step</a>')
        if step < len(actions):
            links.append(f'<a id="next-step" href="/replay/{n}?step={step + 1}">next step</a>')
        last = f" · after <code>{html.escape(actions[step - 1])}</code>" if step else " · start"
        note = f" · replay step {step}/{len(actions)}{last} · " + " ".join(links)
        page = render_html(session.page, action_url="", extra=self._bar(session, note), chosen=session.options)
        self._send(HTTPStatus.OK, page)


def serve(
    shop: Shop,
    host: str = "127.0.0.1",
    port: int = 0,
    replays: Sequence[Replay] = (),
    block: bool = False,
    request_timeout: float = REQUEST_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
) -> ShopServer:
    """Start the shop's server (in a thread unless *block*). Loopback by default: the shop is
    for one machine's person and tests, not a network. A connection that has not sent its whole
    request within *request_timeout* seconds is disconnected; past *max_connections* at once a
    connection gets 503 (see the module docstring)."""
    if not request_timeout > 0:
        raise ValueError(f"request_timeout must be positive, got {request_timeout}")
    if int(max_connections) < 1:
        raise ValueError(f"max_connections must be at least 1, got {max_connections}")
    handler = type("Handler", (_Handler,), {"timeout": float(request_timeout)})
    httpd = _HTTPServer((host, port), handler, int(max_connections))
    server = ShopServer(shop, httpd, list(replays))
    handler.shop_server = server  # type: ignore[attr-defined]
    if block:
        httpd.serve_forever()
        return server
    server.thread = threading.Thread(target=httpd.serve_forever, name="webshop-server", daemon=True)
    server.thread.start()
    return server
