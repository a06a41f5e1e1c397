"""The served shop over real HTTP on loopback: pages, forms, replays and bad requests."""

from __future__ import annotations

import http.client
import urllib.parse
import urllib.request
from collections.abc import Iterator

import pytest
from _webshop_catalog import small_shop

from gui_gym.core.trajectory import Step, Trajectory, write_jsonl
from gui_gym.webshop.server import ShopServer, read_replays, serve

SHOP = small_shop()
#: the goal whose product is B0TEST0001 (16 oz)
GOAL = f"human:{next(i for i, g in enumerate(SHOP.goals) if g['asin'] == 'B0TEST0001')}"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[ShopServer]:
    shop = SHOP
    path = tmp_path_factory.mktemp("replay") / "episodes.jsonl"
    t = Trajectory(task_id=GOAL, instruction="")
    t.steps += [Step(action="search[argan shampoo 1]"), Step(action="click[b0test0001]"), Step(action="click[16 oz]")]
    t.steps.append(Step(action="click[buy now]"))
    write_jsonl(str(path), [t])
    srv = serve(shop, replays=read_replays(path), request_timeout=1.0)
    yield srv
    srv.shutdown()


def request(server: ShopServer, method: str, path: str, body: bytes | None = None, headers=None):
    conn = http.client.HTTPConnection(server.httpd.server_address[0], server.httpd.server_address[1], timeout=10)
    conn.request(method, path, body=body, headers=headers or {"Content-Type": "application/x-www-form-urlencoded"})
    response = conn.getresponse()
    data = response.read().decode("utf-8")
    conn.close()
    return response, data


def post(server: ShopServer, path: str, **fields: str):
    return request(server, "POST", path, urllib.parse.urlencode(fields).encode())


def start(server: ShopServer, task: str = GOAL) -> str:
    response, _ = post(server, "/new", task=task)
    assert response.status == 303
    return response.getheader("Location")


def test_shop_for_a_goal_and_read_the_score(server: ShopServer) -> None:
    page = start(server)
    response, html = request(server, "GET", page)
    assert response.status == 200 and "Content-Security-Policy" in response.headers
    assert "script-src" not in response.headers["Content-Security-Policy"]
    assert 'id="search_input"' in html and "sulfate free shampoo" in html
    for fields in ({"action": "search", "query": "argan shampoo 1"}, {"action": "click[b0test0001]"}):
        response, _ = post(server, page + "/act", **fields)
        assert response.status == 303 and response.getheader("Location") == page
    _, html = request(server, "GET", page)
    assert "Acme Argan Shampoo 1 for Dry Hair" in html and "32 oz | 2 pack" in html
    post(server, page + "/act", action="click[16 oz]")
    _, html = request(server, "GET", page)
    assert 'class="option chosen" aria-pressed="true">16 oz' in html
    post(server, page + "/act", action="click[buy now]")
    _, html = request(server, "GET", page)
    assert 'id="score">Score: 1.000' in html and "Thank you for shopping with us!" in html


def test_queries_and_products_are_escaped(server: ShopServer) -> None:
    page = start(server)
    post(server, page + "/act", action="search", query='<script>alert("x")</script> & "q"')
    _, html = request(server, "GET", page)
    assert "<script>" not in html and "<script" not in html.lower()
    response, _ = post(server, page + "/act", action="click[<img src=x onerror=alert(1)>]")
    assert response.status == 303  # a click on nothing does nothing
    _, html = request(server, "GET", page)
    assert "onerror=alert" not in html


def test_replay_steps_through_a_recorded_episode(server: ShopServer) -> None:
    _, html = request(server, "GET", "/")
    assert 'href="/replay/0?step=0"' in html
    _, html = request(server, "GET", "/replay/0?step=2")
    assert "replay step 2/4" in html and "click[b0test0001]" in html and 'id="next-step"' in html
    _, html = request(server, "GET", "/replay/0?step=4")
    assert 'id="score">Score: 1.000' in html and 'id="next-step"' not in html


@pytest.mark.parametrize(
    "method,path,body,status",
    [
        ("GET", "/nowhere", None, 404),
        ("GET", "/s/0123456789abcdef", None, 404),
        ("GET", "/s/../../etc/passwd", None, 404),
        ("POST", "/new", b"task=no-such-goal", 400),
        ("POST", "/new", b"task=%ff%fe", 400),
        ("GET", "/replay/9", None, 404),
        ("GET", "/replay/0?step=99", None, 400),
        ("GET", "/replay/0?step=x", None, 400),
        ("PUT", "/", b"", 405),
        ("DELETE", "/", None, 405),
        ("POST", "/somewhere", b"", 404),
    ],
)
def test_malformed_requests_get_4xx(server: ShopServer, method: str, path: str, body, status: int) -> None:
    response, text = request(server, method, path, body)
    assert response.status == status and "Traceback" not in text


def test_forms_without_action_or_too_large_are_refused(server: ShopServer) -> None:
    page = start(server)
    response, _ = post(server, page + "/act", query="x")
    assert response.status == 400
    response, _ = request(server, "POST", page + "/act", b"action=" + b"a" * 70_000)
    assert response.status == 413
    response, _ = request(server, "POST", page + "/act", b"", {"Content-Length": "nope", "Content-Type": "text/plain"})
    assert response.status == 400


def test_urllib_round_trip(server: ShopServer) -> None:
    with urllib.request.urlopen(server.url + "/") as r:
        assert r.status == 200 and "Start shopping" in r.read().decode()


def test_new_session_takes_a_selection(server: ShopServer) -> None:
    tier = next(t.difficulty for t in server._tasks)
    response, _ = post(server, "/new", task=tier)
    assert response.status == 303
    response, text = post(server, "/new", task="human:99999")
    assert response.status == 400 and "unknown task id" in text


def test_a_stalled_body_is_dropped_and_the_server_goes_on(server: ShopServer) -> None:
    import socket

    host, port = server.httpd.server_address[:2]
    with socket.create_connection((host, port), timeout=10) as stalled:
        stalled.sendall(b"POST /new HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nta")
        assert stalled.recv(1024) == b""  # closed after the server's 1 s request timeout, no answer
    with urllib.request.urlopen(server.url + "/", timeout=10) as r:
        assert r.status == 200
