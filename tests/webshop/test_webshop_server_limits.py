"""The served shop's limits over real sockets on loopback: a slowloris client (silent, or dribbling
its request faster than any per-read timeout) is dropped once its request deadline passes,
connections past ``max_connections`` get 503 with a one-line reason, and oversized request
lines and headers get 414 and 431."""

from __future__ import annotations

import http.client
import logging
import socket
import time
import urllib.request
from collections.abc import Callable, Iterator

import pytest
from _webshop_catalog import small_shop

from agents.cli import build_parser
from gui_gym.webshop.server import MAX_CONNECTIONS, MAX_HEAD, REQUEST_TIMEOUT, ShopServer, serve

SHOP = small_shop()
#: a generous bound for "it does not hang": the request deadline in these tests is 1 s
BOUND_S = 10.0


@pytest.fixture(scope="module")
def quick() -> Iterator[ShopServer]:
    srv = serve(SHOP, request_timeout=1.0)
    yield srv
    srv.shutdown()


def connect(server: ShopServer) -> socket.socket:
    host, port = server.httpd.server_address[:2]
    return socket.create_connection((host, port), timeout=BOUND_S)


def dropped(s: socket.socket) -> bool:
    """Whether the server closed *s* (it answers nothing to a client it drops)."""
    try:
        return s.recv(1024) == b""
    except ConnectionResetError:
        return True


def get(server: ShopServer, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    host, port = server.httpd.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=BOUND_S)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8")
    finally:
        conn.close()


def wait_for(condition: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + BOUND_S
    while not condition():
        if time.monotonic() > end:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.01)


def test_a_silent_client_is_dropped(quick: ShopServer) -> None:
    t0 = time.monotonic()
    with connect(quick) as s:
        assert dropped(s)
    assert time.monotonic() - t0 < BOUND_S


def test_a_client_dribbling_its_request_is_dropped_at_the_deadline(quick: ShopServer) -> None:
    """One byte every 0.1 s never lets a 1 s per-read timeout fire; the request deadline does."""
    t0 = time.monotonic()
    with connect(quick) as s:
        s.sendall(b"GET / HTTP/1.1\r\nHost: shop\r\n")
        s.settimeout(0.1)
        closed, sent = False, 0
        while not closed and time.monotonic() - t0 < BOUND_S:
            try:
                s.sendall(b"X-Slow: " if sent == 0 else b"a")
                sent += 1
                closed = s.recv(1024) == b""
            except TimeoutError:
                continue  # nothing yet: keep dribbling
            except (BrokenPipeError, ConnectionResetError):
                closed = True
    assert closed, "the server kept a dribbling client past the bound"
    assert sent >= 5  # it dribbled across several of the server's reads before being dropped
    with urllib.request.urlopen(quick.url + "/", timeout=BOUND_S) as r:  # the server goes on
        assert r.status == 200


def test_oversized_request_lines_and_headers_are_refused(quick: ShopServer) -> None:
    status, _ = get(quick, "/" + "a" * 70_000)
    assert status == 414
    headers = {f"X-Filler-{i}": "b" * 500 for i in range(MAX_HEAD // 500 + 1)}
    status, text = get(quick, "/", headers)
    assert status == 431 and "Traceback" not in text
    status, _ = get(quick, "/", {f"X-Small-{i}": "c" * 100 for i in range(MAX_HEAD // 200)})  # under the limit
    assert status == 200


def test_connections_past_the_limit_get_503(caplog: pytest.LogCaptureFixture) -> None:
    srv = serve(SHOP, request_timeout=30.0, max_connections=2)
    held = []
    try:
        held = [connect(srv) for _ in range(2)]  # silent: each holds a handler thread
        wait_for(lambda: srv.httpd.active == 2, "the server to take both connections")
        with caplog.at_level(logging.WARNING):
            status, text = get(srv, "/")
        assert status == 503
        assert text == "503 Service Unavailable: the shop is at its limit of 2 connections; try again shortly\n"
        assert srv.httpd.refused == 1
        assert any("at its limit of 2 connections" in r.getMessage() for r in caplog.records)
        held.pop().close()  # a freed slot serves again
        wait_for(lambda: srv.httpd.active < 2, "the server to free the closed connection's slot")
        status, text = get(srv, "/")
        assert status == 200 and "Start shopping" in text
    finally:
        for s in held:
            s.close()
        srv.shutdown()


def test_the_defaults_are_finite_and_the_cli_takes_the_limits() -> None:
    assert (REQUEST_TIMEOUT, MAX_CONNECTIONS) == (10.0, 64)
    args = build_parser().parse_args(["webshop", "serve", "--request-timeout", "2.5", "--max-connections", "8"])
    assert (args.request_timeout, args.max_connections) == (2.5, 8)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["webshop", "serve", "--max-connections", "0"])
    with pytest.raises(ValueError, match="max_connections"):
        serve(SHOP, max_connections=0)
