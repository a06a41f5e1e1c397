"""OpenAICompatibleLLM against misbehaving servers on loopback: every failure an LLMError, in bounded time and memory.

The servers are raw sockets (a thread per connection) so that they can drip bytes, stream
without end, cut a body short or answer with garbage; well-formed servers are ``http.server``.
Time bounds here are hang detectors, several times the client's deadline, while the servers
would keep going for a minute.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _loopback import CannedHandler, CannedServer, serving
from hypothesis import given, settings
from hypothesis import strategies as st

from wrappers.generation import GenerationError
from wrappers.llm import DEFAULT_MAX_RESPONSE_BYTES, LLMError, OpenAICompatibleLLM, parse_milestones, strip_think

Answer = Callable[[socket.socket], None]
SERVER_LIMIT = 60.0  # seconds a dripping or endless server keeps going if the client does not stop it
HANG = 10.0  # seconds within which a client with timeout=1 must have given up (a hang detector)


# -- a raw-socket server ---------------------------------------------------------------------------
class RawServer:
    """Accepts on 127.0.0.1; reads each request (unless ``read_request`` is False) and runs ``answer``."""

    def __init__(self, answer: Answer, read_request: bool = True, tls: ssl.SSLContext | None = None) -> None:
        self.answer = answer
        self.read_request = read_request
        self.tls = tls
        self.requests: list[bytes] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.1)
        self.port = self._listener.getsockname()[1]
        self._stop = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def url(self, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}/v1"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(SERVER_LIMIT)
            try:
                if self.tls is not None:
                    conn = self.tls.wrap_socket(conn, server_side=True)
                self.requests.append(_read_request(conn) if self.read_request else conn.recv(65536))
                self.answer(conn)
            except OSError:  # the client gave up: that is what these servers wait for
                pass

    def close(self) -> None:
        self._stop.set()
        self._listener.close()


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    while length and len(body) < int(length.group(1)):
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@contextmanager
def raw_server(answer: Answer, read_request: bool = True, tls: ssl.SSLContext | None = None) -> Iterator[RawServer]:
    server = RawServer(answer, read_request, tls)
    try:
        yield server
    finally:
        server.close()


def respond(body: bytes, status: str = "200 OK", headers: str | None = None) -> Answer:
    """An answer with ``body`` (Content-Length set unless ``headers`` are given), then close."""
    head = headers if headers is not None else f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"

    def answer(conn: socket.socket) -> None:
        conn.sendall(f"HTTP/1.1 {status}\r\n{head}Connection: close\r\n\r\n".encode() + body)

    return answer


def keep_sending(first: bytes, then: bytes, every: float = 0.0) -> Answer:
    """Send ``first``, then ``then`` again and again (every ``every`` s) until the client hangs up."""

    def answer(conn: socket.socket) -> None:
        conn.sendall(first)
        end = time.monotonic() + SERVER_LIMIT
        while time.monotonic() < end:
            conn.sendall(then)
            if every:
                time.sleep(every)

    return answer


def completion(content: Any) -> bytes:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]}).encode()


def client(url: str, **kw: Any) -> OpenAICompatibleLLM:
    return OpenAICompatibleLLM(url, model="tiny", **{"timeout": 5.0, "retries": 0, "backoff": 0.0, **kw})


def fails(llm: OpenAICompatibleLLM, match: str) -> tuple[str, float]:
    """Call ``llm`` expecting an LLMError matching ``match``; the message and the seconds it took."""
    start = time.monotonic()
    with pytest.raises(LLMError, match=match) as e:
        llm.complete("x")
    return str(e.value), time.monotonic() - start


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("GUI_GYM_LLM_API_KEY", "OPENAI_API_KEY", "http_proxy", "https_proxy", "no_proxy"):
        monkeypatch.delenv(var, raising=False)
        monkeypatch.delenv(var.upper(), raising=False)


# -- 1. a total deadline ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "first, drip",
    [
        (b"HTTP/1.1 200 OK\r\nX-Drip: ", b"a"),  # headers, one byte at a time
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", b" "),  # the body, one byte at a time
        (b"", b"HTTP/1.1 100 Continue\r\n\r\n"),  # interim responses without end
    ],
    ids=["headers", "body", "100-continue"],
)
def test_a_slow_drip_is_cut_off_at_the_deadline(first: bytes, drip: bytes) -> None:
    with raw_server(keep_sending(first, drip, every=0.05)) as srv:
        msg, took = fails(client(srv.url(), timeout=1.0, retries=3), r"no complete reply within timeout=1s")
    assert took < HANG  # the server drips for a minute; each byte arrives well within any read timeout
    assert srv.url() in msg


def test_a_silent_server_is_cut_off_at_the_deadline() -> None:
    with raw_server(lambda conn: time.sleep(SERVER_LIMIT)) as srv:
        _, took = fails(client(srv.url(), timeout=1.0), "timeout=1s")
    assert took < HANG


def test_retries_stop_at_the_deadline() -> None:
    with raw_server(respond(b"busy", "500 Internal Server Error")) as srv:
        llm = client(srv.url(), timeout=1.0, retries=10_000, backoff=0.01, max_backoff=0.01)
        msg, took = fails(llm, r"timeout=1s")  # out of time waiting to retry, or during the last attempt
    assert took < HANG
    assert 1 < len(srv.requests) < 10_000  # retried, but only while time was left
    assert "HTTP 500 Internal Server Error: busy" in msg  # the failure that was being retried is named


def test_a_retry_after_beyond_the_deadline_is_not_waited_for() -> None:
    answer = respond(b"later", "503 Service Unavailable", "Retry-After: 20\r\nContent-Length: 5\r\n")
    with raw_server(answer) as srv:
        msg, took = fails(client(srv.url(), timeout=2.0, retries=3), r"after 1 attempt\(s\): HTTP 503")
    assert took < HANG and len(srv.requests) == 1
    assert "no time left" in msg


# -- 2. a size cap ---------------------------------------------------------------------------------
def test_an_endless_body_stops_at_the_default_cap() -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"  # read until close
    with raw_server(keep_sending(head, b"[" * 65536)) as srv:
        fails(client(srv.url(), timeout=30.0), f"over max_response_bytes={DEFAULT_MAX_RESPONSE_BYTES} bytes")


def test_an_endless_chunked_body_stops_at_the_cap() -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    with raw_server(keep_sending(head, b"10000\r\n" + b"x" * 0x10000 + b"\r\n")) as srv:
        fails(client(srv.url(), timeout=30.0, max_response_bytes=2**20), "over max_response_bytes=1048576 bytes")


def test_a_content_length_over_the_cap_is_refused_before_reading() -> None:
    first = b"HTTP/1.1 200 OK\r\nContent-Length: 1000000000000\r\n\r\n"
    with raw_server(keep_sending(first, b"x" * 65536)) as srv:
        fails(client(srv.url(), timeout=30.0), r"announced a reply of 1000000000000 bytes \(Content-Length\)")


def test_a_reply_within_the_cap_is_read() -> None:
    body = completion("y" * 5000)
    with raw_server(respond(body)) as srv:
        assert client(srv.url(), max_response_bytes=len(body)).complete("x") == "y" * 5000
        fails(client(srv.url(), max_response_bytes=len(body) - 1), "announced a reply")


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_max_response_bytes_must_be_a_positive_int(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_response_bytes"):
        client("http://127.0.0.1:9/v1", max_response_bytes=bad)


# -- 3. linear-time parsing --------------------------------------------------------------------------
_LINEAR_CHECK = """
import json, sys
from wrappers.generation import GenerationError
from wrappers.llm import LLMError, OpenAICompatibleLLM, parse_milestones, strip_think

n = 2_000_000
out = {}
out["unclosed"] = len(strip_think("<think>" * (n // 7)))
out["nested"] = strip_think("<think>" * (n // 16) + "x" + "</think>" * (n // 16)).count("</think>")
out["closed"] = strip_think("<think>a</think>" * (n // 16) + "yes")
fences = {"blanks": "```\\n" + " " * n + "x```", "tags": "```" + "a" * n + "\\n[1]\\n``` and more"}
for name, text in fences.items():
    try:
        parse_milestones(text)
    except GenerationError as e:
        out[name] = str(e)[:120]
llm = OpenAICompatibleLLM("http://127.0.0.1:9/v1", "m")
for name, body in {"deep": b"[" * n, "deep-content": b'{"choices": [{"message": {"content": ' + b"[" * n}.items():
    try:
        llm._parse(body)
    except LLMError as e:
        out[name] = str(e)[:160]
print(json.dumps(out))
"""


def test_reply_parsing_is_linear_on_adversarial_replies() -> None:
    """2 MB replies built to make backtracking or rescanning parsers quadratic (hours); a hang detector bounds it."""
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_LINEAR_CHECK)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["unclosed"] == 7 * (2_000_000 // 7)  # nothing closes, so nothing is dropped
    assert out["nested"] == 2_000_000 // 16 - 1  # the first </think> closes the block; the rest stay
    assert out["closed"] == "yes"
    assert out["blanks"].startswith("expected a JSON array") and "not JSON" in out["blanks"]
    assert "not JSON" in out["tags"]
    assert "not JSON (nested too deeply to parse)" in out["deep"]
    assert "nested too deeply" in out["deep-content"]


_PIECES = st.sampled_from(["<think>", "</think>", "<THINK>", "</Think>", "<think", "think>", "</", "a", "\n"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECES, max_size=14).map("".join))
def test_strip_think_matches_the_non_greedy_regex(text: str) -> None:
    assert strip_think(text) == re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL | re.IGNORECASE)


def test_parse_milestones_rejects_deep_nesting_clearly() -> None:
    with pytest.raises(GenerationError, match="nested too deeply"):
        parse_milestones("[" * 100_000 + "]" * 100_000)


# -- 4. redirects and credentials --------------------------------------------------------------------
class _Recorder(CannedHandler):
    server: CannedServer

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        with self.server.lock:
            self.server.requests.append((self.path, dict(self.headers)))
        target = getattr(self.server, "redirect_to", None)
        if target:
            self.send_response(target[0])
            self.send_header("Location", target[1])
            self.send_header("Content-Length", "0")
            self.end_headers()
        else:
            self.reply("ok")


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_not_followed_and_the_key_stays_home(status: int) -> None:
    with serving(CannedServer(_Recorder)) as elsewhere, serving(CannedServer(_Recorder)) as home:
        home.redirect_to = (status, elsewhere.url("stolen") + "/chat/completions")  # type: ignore[attr-defined]
        msg, _ = fails(client(home.url("api"), api_key="sk-secret", retries=2), rf"redirected \(HTTP {status}\)")
        assert elsewhere.url("stolen") in msg and "sk-secret" not in msg
        assert [h["Authorization"] for _, h in home.requests] == ["Bearer sk-secret"]  # not retried either
        assert elsewhere.requests == []  # the other origin never saw a request, let alone the key


def test_an_http_proxy_gets_the_absolute_url(monkeypatch: pytest.MonkeyPatch) -> None:
    with serving(CannedServer(_Recorder)) as proxy:
        port = proxy.server_address[1]
        monkeypatch.setenv("http_proxy", f"http://user:p%40ss@127.0.0.1:{port}")
        assert client("http://llm.invalid:8000/v1").complete("x") == "ok"  # no name lookup: the proxy does it
        path, headers = proxy.requests[-1]
        assert path == "http://llm.invalid:8000/v1/chat/completions"
        assert headers["Proxy-Authorization"] == "Basic dXNlcjpwQHNz"  # user:p@ss


def test_no_proxy_hosts_are_reached_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    with raw_server(respond(b"proxy!", "502 Bad Gateway")) as proxy, serving(CannedServer(_Recorder)) as direct:
        monkeypatch.setenv("http_proxy", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.setenv("no_proxy", "127.0.0.1")
        assert client(direct.url("api")).complete("x") == "ok"
        assert proxy.requests == [] and len(direct.requests) == 1


def test_an_https_proxy_tunnel_never_sees_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with raw_server(respond(b"", "200 Connection established", "")) as proxy:
        monkeypatch.setenv("https_proxy", f"http://127.0.0.1:{proxy.port}")
        fails(client("https://llm.invalid/v1", api_key="sk-secret"), "LLMError|TLS|connection")
    assert proxy.requests[0].startswith(b"CONNECT llm.invalid:443 HTTP/")
    assert b"sk-secret" not in b"".join(proxy.requests)  # TLS would carry it end to end, never in the clear


# -- 5. & 6. every failure an LLMError -----------------------------------------------------------------
@pytest.mark.parametrize(
    "body, match",
    [
        (b"[" * 100_000, r"not JSON \(nested too deeply to parse\)"),
        (b'{"choices": [{"message": {"content": "\xff\xfe"}}]}', r"not UTF-8 \(bad byte at offset 38\)"),
        (b"<html>oops", r"not JSON .*<html>oops"),
        (b'{"choices": 1' + b"1" * 5000 + b"}", "not JSON"),  # an integer too long to convert
        (b"", "not JSON"),
        (b"null", "no choices"),
        (b"[]", "no choices"),
        (b'"choices"', "no choices"),
        (b'{"choices": []}', "no choices"),
        (b'{"choices": "abc"}', "no choices"),
        (b'{"choices": [1]}', "no choices"),
        (b'{"error": "overloaded"}', "an error.*overloaded"),
        (b'{"choices": [{"message": "hi"}]}', "without text content"),
        (b'{"choices": [{"finish_reason": "length"}]}', r"without text content \(finish_reason='length'\)"),
        (b'{"choices": [{"message": {"content": 5}}]}', "without text content"),
    ],
)
def test_bad_bodies_are_llm_errors(body: bytes, match: str) -> None:
    with raw_server(respond(body)) as srv:
        msg, _ = fails(client(srv.url(), retries=2), match)
    assert len(srv.requests) == 1 and len(msg) < 1000  # not retried; the echo is cut short


def test_content_parts_with_odd_items_are_joined_as_text() -> None:
    parts = [{"type": "text", "text": "a"}, {"type": "text", "text": 5}, "junk", {"type": "text", "text": "b"}]
    with raw_server(respond(completion(parts))) as srv:
        assert client(srv.url()).complete("x") == "ab"


@pytest.mark.parametrize(
    "status, match",
    [("500 Internal Server Error", r"HTTP 500 Internal Server Error: xxxx"), ("400 Bad Request", r"HTTP 400 .*Check")],
)
def test_http_errors_echo_a_short_cut_of_the_body(status: str, match: str) -> None:
    with raw_server(respond(b"x" * 2_000_000, status)) as srv:
        msg, _ = fails(client(srv.url()), match)
    assert len(msg) < 1000


@pytest.mark.parametrize(
    "answer, match",
    [
        (respond(b"x" * 50, headers="Content-Length: 100\r\n"), r"closed the connection mid-body \(50 of 100 bytes\)"),
        (
            respond(b"64\r\n" + b"x" * 10, headers="Transfer-Encoding: chunked\r\n"),
            r"closed the connection mid-body \(after 0 bytes\)",
        ),
        (lambda conn: None, "connection failed .*RemoteDisconnected"),
        (lambda conn: conn.sendall(b"garbage\r\n\r\n"), "connection failed .*BadStatusLine"),
        (lambda conn: conn.sendall(b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n"), "more than 100 headers"),
        (lambda conn: conn.sendall(b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70_000 + b"\r\n\r\n"), "LineTooLong"),
    ],
    ids=["truncated", "chunk-cut", "closed", "bad-status", "many-headers", "long-header"],
)
def test_broken_responses_are_retried_then_llm_errors(answer: Answer, match: str) -> None:
    with raw_server(answer) as srv:
        msg, _ = fails(client(srv.url(), retries=1), match)
    assert len(srv.requests) == 2 and "after 2 attempt(s)" in msg


def test_chunked_and_read_until_close_bodies_are_read() -> None:
    body = completion("fine")
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    with raw_server(respond(chunked, headers="Transfer-Encoding: chunked\r\n")) as srv:
        assert client(srv.url()).complete("x") == "fine"
    with raw_server(respond(body, headers="")) as srv:  # neither: the body runs to the close
        assert client(srv.url()).complete("x") == "fine"


def test_a_tls_error_is_an_llm_error_and_not_retried() -> None:
    with raw_server(respond(b"plain http", "400 Bad Request"), read_request=False) as srv:
        fails(client(srv.url("https"), retries=3), r"TLS error .*http:// vs https://")
    assert len(srv.requests) == 1


# a self-signed certificate for 127.0.0.1 (EC P-256, valid until 2126), made for these tests only
TEST_CERT = """-----BEGIN CERTIFICATE-----
MIIBtzCCAV2gAwIBAgIULHUOyrH/43Up4P1fpyMkMtDFoCwwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyMzE2MjQ0MFoYDzIxMjYxMDMw
MTYyNDQwWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAShPPzRTCvAuk6JXiGLbBt3uuX8kejJxuQQJnd016KX+2SMr/sx372M
30eMnl1hwDIeVcNmzKCbP0o/i3V9Y/sjo4GKMIGHMB0GA1UdDgQWBBQUrmGxOlQ2
K+ZYhHhQYmulz+qXDTAfBgNVHSMEGDAWgBQUrmGxOlQ2K+ZYhHhQYmulz+qXDTAP
BgNVHRMBAf8EBTADAQH/MA8GA1UdEQQIMAaHBH8AAAEwDgYDVR0PAQH/BAQDAgKE
MBMGA1UdJQQMMAoGCCsGAQUFBwMBMAoGCCqGSM49BAMCA0gAMEUCIQDMUjyNJs2F
D/NHvcsRUA1PjcS/ytDnsZcRIHReTt4PHgIgHlfPXvpQzV/3w8bZgMB/rfDiInJH
ZTEGhVFvhxStMng=
-----END CERTIFICATE-----
"""
TEST_KEY = """-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgAQMXaTz3PUYKQgbn
9Njv3FP36p39wanafkGd/zop9jqhRANCAAShPPzRTCvAuk6JXiGLbBt3uuX8kejJ
xuQQJnd016KX+2SMr/sx372M30eMnl1hwDIeVcNmzKCbP0o/i3V9Y/sj
-----END PRIVATE KEY-----
"""


@pytest.fixture
def cert_file(tmp_path: Path) -> Path:
    (tmp_path / "cert.pem").write_text(TEST_CERT)
    return tmp_path / "cert.pem"


@pytest.fixture
def tls(tmp_path: Path, cert_file: Path) -> ssl.SSLContext:
    """A server TLS context with the test certificate (clients trust it once $SSL_CERT_FILE names it)."""
    (tmp_path / "key.pem").write_text(TEST_KEY)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, tmp_path / "key.pem")
    return context


def test_https_works_and_an_untrusted_certificate_is_a_final_llm_error(
    tls: ssl.SSLContext, cert_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with raw_server(respond(completion("secure")), tls=tls) as srv:
        fails(client(srv.url("https"), retries=3), r"TLS error .*CERTIFICATE_VERIFY_FAILED.*certificate is valid")
        assert srv.requests == []  # no request was sent over the unverified connection, and none retried
        monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
        assert client(srv.url("https")).complete("x") == "secure"
        assert srv.requests[0].startswith(b"POST /v1/chat/completions HTTP/1.1")


def test_a_slow_drip_over_tls_is_cut_off_at_the_deadline(
    tls: ssl.SSLContext, cert_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    with raw_server(keep_sending(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", b" ", 0.05), tls=tls) as srv:
        _, took = fails(client(srv.url("https"), timeout=1.0), "no complete reply within timeout=1s")
    assert took < HANG


def test_a_stalled_tls_handshake_is_cut_off_at_the_deadline() -> None:
    with raw_server(lambda conn: time.sleep(SERVER_LIMIT), read_request=False) as srv:  # takes the hello, says nothing
        _, took = fails(client(srv.url("https"), timeout=1.0), "no complete reply within timeout=1s")
    assert took < HANG


def test_an_unknown_host_is_an_llm_error() -> None:
    msg, _ = fails(client("http://no-such-host.invalid:8000/v1", timeout=10.0), "no-such-host.invalid")
    assert "connection failed" in msg or "timeout=10s" in msg


def test_bad_arguments_are_llm_errors_or_refused_at_construction() -> None:
    llm = client("http://127.0.0.1:9/v1")
    with pytest.raises(LLMError, match="prompt must be a str"):
        llm.complete(b"bytes")  # type: ignore[arg-type]
    with pytest.raises(LLMError, match="images must be encoded image files"):
        llm.complete("x", images=["not bytes"])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="api_key must be printable ASCII") as e:
        client("http://127.0.0.1:9/v1", api_key="sk-se\ncret")
    assert "sk-se" not in str(e.value)
    assert client("http://127.0.0.1:9/v1", api_key=" sk-padded\n")._api_key == "sk-padded"
    with pytest.raises(ValueError, match="invalid port"):
        client("http://127.0.0.1:99999/v1")
