"""LLM backends for the LLM-driven parts of ADMIRE (paper 000, App. A.1.3 and A.2.2).

ADMIRE uses GPT-4o to initialise and refine milestones (§3.1, Eq. 6-7; prompts in Fig. 14-15)
and, for the process-reward baseline, as an LLM-as-judge of each step (Fig. 16). Here any model
can play those parts through the small :class:`LLM` protocol:

- :class:`OpenAICompatibleLLM` — any server speaking the OpenAI chat-completions API (vLLM,
  SGLang, llama.cpp, Ollama, OpenAI itself), over the standard library's ``http.client``. A
  server cannot hold it up or exhaust its memory: ``timeout`` is a deadline for the whole call
  (connect, reply headers and body, retries), the body is capped at ``max_response_bytes``
  (8 MiB by default), redirects are not followed (the API key goes to ``base_url``'s host
  only), and every failure is an :class:`LLMError`;
- :class:`TransformersLLM` — a local causal LM loaded with ``transformers`` from a path
  (``local_files_only=True``: nothing is downloaded).

:func:`parse_milestones` reads a milestone list back strictly: a JSON array of non-empty
strings, nothing else; :func:`strip_think` drops a reasoning model's ``<think>…</think>`` blocks.
Reply parsing is linear in the reply's length.

Example:
    >>> parse_milestones('```json\\n["Open <App>", "Tap \\\\"Save\\\\""]\\n```')
    ['Open <App>', 'Tap "Save"']
    >>> parse_milestones("1. Open the app")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    wrappers.generation.GenerationError: expected a JSON array ..., but the output is not JSON (...); output: '1. ...'
    >>> judge = OpenAICompatibleLLM("http://localhost:8000/v1", model="Qwen2.5-VL-7B-Instruct")
    >>> judge.url
    'http://localhost:8000/v1/chat/completions'
    >>> judge.complete("Answer 'yes' or 'no'.")  # doctest: +SKIP
    'yes'
"""

from __future__ import annotations

import base64
import contextlib
import functools
import http.client
import io
import json
import os
import re
import selectors
import socket
import ssl
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from wrappers.generation import GenerationError

#: Environment variables read, in this order, for the API key when none is passed.
API_KEY_ENV_VARS = ("GUI_GYM_LLM_API_KEY", "OPENAI_API_KEY")

_ECHO = 200  # characters of a bad output echoed in an error message


class LLMError(RuntimeError):
    """An LLM backend could not produce a reply; the message says what happened and what to check."""


@runtime_checkable
class LLM(Protocol):
    """A text (optionally image) completion backend.

    ``complete`` returns the model's reply to one user turn. ``images`` are encoded image files
    (PNG or JPEG bytes). Backends that set ``supports_images = False`` raise :class:`LLMError`
    when given images; callers check the attribute (absent means False) before sending any.
    """

    def complete(self, prompt: str, images: Sequence[bytes] | None = None) -> str: ...


def _snippet(text: str | bytes, n: int = _ECHO) -> str:
    """The first ``n`` characters of ``text`` (cut before decoding, so a huge body costs nothing)."""
    if isinstance(text, bytes):
        text = text[: 4 * n + 4].decode("utf-8", "replace")
    return text if len(text) <= n else text[:n] + "…"


# -- reply text helpers (all linear in the length of the reply) ---------------------------------------
_THINK_OPEN = re.compile(r"<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_FENCE_TAG = re.compile(r"[\w+-]*")


def strip_think(text: str) -> str:
    """``text`` without its ``<think>…</think>`` blocks (a reasoning model's scratchpad), in linear time.

    Same result as ``re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL | re.IGNORECASE)``,
    which is quadratic when a reply holds many ``<think>`` tags without a closing one (each one
    rescans the rest of the reply): here every tag is found once and paired with the first
    ``</think>`` after it. An unclosed ``<think>`` and everything after it is kept.

    >>> strip_think("<think>hmm</think>yes")
    'yes'
    >>> strip_think("<THINK>a<think>b</think>c</think>d<think>open")
    'c</think>d<think>open'
    """
    opens = [(m.start(), m.end()) for m in _THINK_OPEN.finditer(text)]
    if not opens:
        return text
    closes = [(m.start(), m.end()) for m in _THINK_CLOSE.finditer(text)]
    kept: list[str] = []
    pos = k = 0
    for start, end in opens:
        if start < pos:  # inside a block already dropped
            continue
        while k < len(closes) and closes[k][0] < end:
            k += 1
        if k == len(closes):  # no closing tag after this one, nor after any later one
            break
        kept.append(text[pos:start])
        pos = closes[k][1]
        k += 1
    kept.append(text[pos:])
    return "".join(kept)


def _unfence(body: str) -> str:
    """The inside of one markdown code fence around ``body`` (language tag dropped), else ``body``.

    A string scan rather than a regex: a lazy ``(.*?)\\n?[ \\t]*```\\Z`` backtracks over every
    run of blanks and is quadratic on a long one.
    """
    if len(body) < 6 or not (body.startswith("```") and body.endswith("```")):
        return body
    inner = body[3:-3]
    return inner[_FENCE_TAG.match(inner).end() :].strip()  # type: ignore[union-attr]


def _loads(text: str | bytes) -> Any:
    """``json.loads`` that reports nesting too deep for the parser as a ``ValueError``, not ``RecursionError``."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("nested too deeply to parse") from None


def parse_json_object(text: str, what: str = "a JSON object") -> dict[str, Any]:
    """An LLM's reply that should be one JSON object: surrounding whitespace, a ``<think>`` block
    and at most one markdown code fence allowed; anything else raises
    :class:`~wrappers.generation.GenerationError` saying what was wrong (the output echoed,
    truncated). Linear time.

    >>> parse_json_object('```json\\n{"a": 1}\\n```')
    {'a': 1}
    """
    if not isinstance(text, str):
        raise GenerationError(f"expected the LLM's text output, got {type(text).__name__}")
    body = _unfence(strip_think(text).strip())
    if not body:
        raise GenerationError(f"expected {what}, but the output is empty")
    try:
        value = _loads(body)
    except ValueError as e:
        problem = f"expected {what}, but the output is not JSON ({e}); output: {_snippet(text)!r}"
        raise GenerationError(problem) from None
    if not isinstance(value, dict):
        raise GenerationError(f"expected {what}, got a JSON {type(value).__name__}; output: {_snippet(text)!r}")
    return value


# -- strict milestone-list parsing --------------------------------------------------------------
def parse_milestones(text: str) -> list[str]:
    """Parse an LLM's milestone list strictly (the "strict JSON array" of Fig. 14-15).

    Accepted: a JSON array of non-empty strings, with surrounding whitespace and at most one
    markdown code fence around it (```` ```json ... ``` ````). Anything else — prose around the
    array, numbering, an empty array, non-string or blank items, nesting too deep to parse —
    raises :class:`~wrappers.generation.GenerationError` saying what was wrong (the output is
    echoed, truncated). Items are returned stripped of surrounding whitespace. Linear time.
    """
    if not isinstance(text, str):
        raise GenerationError(f"expected the LLM's text output, got {type(text).__name__}")
    body = text.strip()
    if not body:
        raise GenerationError("expected a JSON array of non-empty strings, but the output is empty")
    body = _unfence(body)
    try:
        value = _loads(body)
    except ValueError as e:
        raise GenerationError(
            f"expected a JSON array of non-empty strings, but the output is not JSON ({e}); output: {_snippet(text)!r}"
        ) from None
    if not isinstance(value, list):
        raise GenerationError(
            f"expected a JSON array of non-empty strings, got a JSON {type(value).__name__}; output: {_snippet(text)!r}"
        )
    if not value:
        raise GenerationError("expected a JSON array of non-empty strings, got an empty array")
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            raise GenerationError(
                f"expected a JSON array of non-empty strings, but item {i} is {_snippet(_dumps(item), 60)}; "
                f"output: {_snippet(text)!r}"
            )
    return [item.strip() for item in value]


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value)
    except (RecursionError, ValueError):
        return f"a deeply nested JSON {type(value).__name__}"


# -- OpenAI-compatible HTTP backend ----------------------------------------------------------------
def _image_mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "image/png"
    if data.startswith(b"\xff\xd8\xff"):
        return "image/jpeg"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    raise LLMError("images must be encoded PNG, JPEG, GIF or WebP files (bytes); got unrecognised data")


def image_data_url(data: bytes) -> str:
    """An encoded image as a base64 ``data:`` URL, the form the OpenAI chat API takes inline.

    >>> image_data_url(b"\\x89PNG\\r\\n\\x1a\\n")[:30]
    'data:image/png;base64,iVBORw0K'
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise LLMError(f"images must be encoded image files as bytes, got {type(data).__name__}")
    return f"data:{_image_mime(bytes(data))};base64,{base64.b64encode(data).decode('ascii')}"


#: Default cap on the size of one reply body: a chat completion is kilobytes, so a body this
#: large is a misbehaving server, and reading on would only exhaust memory.
DEFAULT_MAX_RESPONSE_BYTES = 8 * 2**20
_ERROR_BODY_BYTES = 4096  # bytes of an error response read for its message
_CHUNK = 64 * 1024  # bytes read or sent per socket call


class _OutOfTime(Exception):
    """The call's deadline passed."""


class _Transient(Exception):
    """A failure that another attempt may not meet (connection trouble, HTTP 5xx/429)."""

    def __init__(self, problem: str, retry_after: float | None = None) -> None:
        super().__init__(problem)
        self.retry_after = retry_after


class _Deadline:
    """A monotonic point in time that every socket operation of one call must finish before."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left; raises :class:`_OutOfTime` when none are."""
        left = self.end - time.monotonic()
        if left <= 0:
            raise _OutOfTime
        return left


class _DeadlineReader(io.RawIOBase):
    """A socket's reads, each allowed only the time left before the deadline.

    A per-read socket timeout alone lets a server that drips one byte per read keep a call
    going forever; here every ``recv`` gets what remains of the call's time, so the drip ends
    at the deadline.
    """

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self._sock = sock
        self._raw = sock.makefile("rb", buffering=0)  # holds the socket open while the reply is read
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(self._deadline.left())
        return self._raw.readinto(buffer)

    def close(self) -> None:
        self._raw.close()
        super().close()


class _DeadlineSocketView:
    """What :class:`http.client.HTTPResponse` takes of a socket (``makefile``), reading on a deadline."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self._sock = sock
        self._deadline = deadline

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineReader(self._sock, self._deadline), _CHUNK)


def _resolve(host: str, port: int, deadline: _Deadline) -> list[tuple[Any, ...]]:
    """``getaddrinfo`` within the deadline: the lookup runs in a thread so a stuck resolver cannot hold the call."""
    outcome: list[Any] = []

    def lookup() -> None:
        try:
            outcome.append(socket.getaddrinfo(host, port, type=socket.SOCK_STREAM))
        except Exception as e:  # handed to the caller below
            outcome.append(e)

    thread = threading.Thread(target=lookup, name="llm-resolve", daemon=True)
    thread.start()
    thread.join(deadline.left())
    if not outcome:
        raise _OutOfTime
    if isinstance(outcome[0], Exception):
        raise outcome[0]
    return outcome[0]


def _open_socket(host: str, port: int, deadline: _Deadline) -> socket.socket:
    """A TCP connection to ``host:port``, trying each resolved address, all within the deadline."""
    error: OSError | None = None
    for family, kind, proto, _, address in _resolve(host, port, deadline):
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(deadline.left())
            sock.connect(address)
        except OSError as e:
            sock.close()
            if isinstance(e, TimeoutError):
                deadline.left()  # out of time: raise that, not a connection error
            error = e
            continue
        except BaseException:
            sock.close()
            raise
        return sock
    raise error or OSError(f"{host!r} resolved to no address")


class _HTTPConnection(http.client.HTTPConnection):
    """An HTTP connection whose connect, sends and response reads all end by one deadline."""

    def __init__(self, host: str, port: int, deadline: _Deadline) -> None:
        super().__init__(host, port)
        self.deadline = deadline
        self.response_class = self._response  # type: ignore[assignment]

    def _response(self, sock: socket.socket, *args: Any, **kwargs: Any) -> http.client.HTTPResponse:
        return http.client.HTTPResponse(_DeadlineSocketView(sock, self.deadline), *args, **kwargs)  # type: ignore[arg-type]

    def connect(self) -> None:
        self.sock = _open_socket(self.host, self.port, self.deadline)
        with contextlib.suppress(OSError):  # not every platform has it
            self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if self._tunnel_host:  # type: ignore[attr-defined]
            self._tunnel()  # type: ignore[attr-defined]

    def send(self, data: Any) -> None:
        """``data`` (bytes) in chunks, each allowed only the time left: a slow reader cannot stall the call."""
        if self.sock is None:
            self.connect()
        view = memoryview(data if isinstance(data, bytes | bytearray) else bytes(data))
        for i in range(0, len(view), _CHUNK):
            self.sock.settimeout(self.deadline.left())  # type: ignore[union-attr]
            self.sock.sendall(view[i : i + _CHUNK])  # type: ignore[union-attr]


class _HTTPSConnection(_HTTPConnection):
    """:class:`_HTTPConnection` over TLS; the handshake, too, ends by the deadline."""

    default_port = http.client.HTTPS_PORT

    def __init__(self, host: str, port: int, deadline: _Deadline, context: ssl.SSLContext) -> None:
        super().__init__(host, port, deadline)
        self._context = context

    def connect(self) -> None:
        super().connect()
        server_hostname = self._tunnel_host or self.host  # type: ignore[attr-defined]
        sock = self._context.wrap_socket(self.sock, server_hostname=server_hostname, do_handshake_on_connect=False)  # type: ignore[arg-type]
        self.sock = sock
        sock.setblocking(False)  # handshake step by step, waiting at most the time left for each
        with selectors.DefaultSelector() as selector:
            while True:
                try:
                    sock.do_handshake()
                    return
                except ssl.SSLWantReadError:
                    event = selectors.EVENT_READ
                except ssl.SSLWantWriteError:
                    event = selectors.EVENT_WRITE
                selector.register(sock, event)
                ready = selector.select(self.deadline.left())
                selector.unregister(sock)
                if not ready:
                    raise _OutOfTime


def _tls_context() -> ssl.SSLContext:
    """The default TLS context: certificates and host names checked; ``$SSL_CERT_FILE``, ``$SSL_CERT_DIR`` honoured."""
    return _tls_context_for(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.lru_cache(maxsize=4)
def _tls_context_for(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    return ssl.create_default_context()  # loading the CA store takes ~0.1 s: once per setting, not per call


def _proxy(scheme: str, host: str) -> urllib.parse.SplitResult | None:
    """The proxy ``$http_proxy`` / ``$https_proxy`` name for ``scheme``, unless ``$no_proxy`` exempts ``host``."""
    url = urllib.request.getproxies().get(scheme)
    if not url or urllib.request.proxy_bypass(host):
        return None
    return urllib.parse.urlsplit(url if "://" in url else f"http://{url}")


def _proxy_authorization(proxy: urllib.parse.SplitResult) -> dict[str, str]:
    if proxy.username is None:
        return {}
    user = urllib.parse.unquote(proxy.username)
    password = urllib.parse.unquote(proxy.password or "")
    token = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return {"Proxy-Authorization": f"Basic {token}"}


class OpenAICompatibleLLM:
    """A chat-completions endpoint: ``POST {base_url}/chat/completions`` (OpenAI format).

    Args:
        base_url: the API root, e.g. ``"http://localhost:8000/v1"`` (vLLM) or
            ``"https://api.openai.com/v1"``.
        model: the model name the server expects.
        api_key: sent as ``Authorization: Bearer``; if ``None``, read from the environment
            variable ``GUI_GYM_LLM_API_KEY``, else ``OPENAI_API_KEY``; if neither is set, no
            header is sent (local servers need none).
        timeout: seconds for the whole :meth:`complete` call — name lookup, connecting, the TLS
            handshake, sending, the reply's headers and body, and every retry with its wait.
            It is a deadline, not a per-read timeout: a server dripping bytes slowly is cut off
            when it passes.
        retries: further attempts after a connection error, HTTP 5xx or HTTP 429, made only
            while the deadline leaves time for them.
        backoff: seconds before the first retry, doubled each retry (capped at ``max_backoff``;
            a 429/503 ``Retry-After`` header is honoured up to the same cap). A wait that would
            pass the deadline is not begun: the call fails at once.
        temperature: sampling temperature (0: greedy-like, for reproducible judgments).
        max_tokens: cap on the reply length (``None``: the server's default).
        supports_images: whether the model takes images (sent as base64 ``image_url`` parts);
            set False for a text-only model so callers send text alone.
        system_prompt: an optional system message before the user turn.
        max_response_bytes: cap on the reply body (default :data:`DEFAULT_MAX_RESPONSE_BYTES`,
            8 MiB); a larger one, announced by ``Content-Length`` or found while reading, fails.

    Every failure raises :class:`LLMError` naming the URL, what happened and what to check; no
    other exception leaves :meth:`complete`. Client errors (4xx other than 429), TLS errors and
    malformed replies are not retried; an HTTP error's body is echoed cut short.

    Redirects are not followed: a 3xx reply is an :class:`LLMError` naming the ``Location``, so
    the API key is only ever sent to ``base_url``'s own host (set ``base_url`` to the final
    address). Proxies named by ``$http_proxy`` / ``$https_proxy`` are used, except for hosts in
    ``$no_proxy``.
    """

    supports_images: bool

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        retries: int = 2,
        backoff: float = 1.0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        supports_images: bool = True,
        system_prompt: str | None = None,
        max_backoff: float = 30.0,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
    ) -> None:
        if not isinstance(base_url, str) or not re.match(r"^https?://[^/\s]+", base_url):
            raise ValueError(f"base_url must be an http(s) URL such as 'http://localhost:8000/v1', got {base_url!r}")
        if not model:
            raise ValueError("model must name the model the server serves (e.g. 'gpt-4o')")
        if not timeout > 0 or retries < 0 or backoff < 0 or max_backoff < 0:
            raise ValueError("timeout must be positive; retries, backoff and max_backoff non-negative")
        if isinstance(max_response_bytes, bool) or not isinstance(max_response_bytes, int) or max_response_bytes < 1:
            raise ValueError(f"max_response_bytes must be a positive number of bytes, got {max_response_bytes!r}")
        self.base_url = base_url.rstrip("/")
        self.url = f"{self.base_url}/chat/completions"
        parts = urllib.parse.urlsplit(self.url)
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"base_url has an invalid port: {base_url!r}") from None
        if not parts.hostname:
            raise ValueError(f"base_url must name a host, e.g. 'http://localhost:8000/v1', got {base_url!r}")
        self._scheme = parts.scheme.lower()
        self._host = parts.hostname
        self._port = port or (443 if self._scheme == "https" else 80)
        self._target = parts.path + (f"?{parts.query}" if parts.query else "")
        self.model = model
        if api_key is None:
            api_key = next((os.environ[v] for v in API_KEY_ENV_VARS if os.environ.get(v)), None)
        api_key = api_key.strip() if isinstance(api_key, str) else api_key
        if api_key and not re.fullmatch(r"[\x21-\x7e]+", api_key):  # the key itself is never echoed
            raise ValueError("api_key must be printable ASCII without spaces, as an Authorization header requires")
        self._api_key = api_key
        self.timeout = float(timeout)
        self.retries = int(retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.supports_images = bool(supports_images)
        self.system_prompt = system_prompt
        self.max_response_bytes = max_response_bytes

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(base_url={self.base_url!r}, model={self.model!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> OpenAICompatibleLLM:
        return self  # a client (and its loaded model) is shared, never copied (e.g. by ``env.spec``)

    def payload(self, prompt: str, images: Sequence[bytes] | None = None) -> dict[str, Any]:
        """The JSON body for one user turn (images as base64 data-URL ``image_url`` parts)."""
        if not isinstance(prompt, str):
            raise LLMError(f"the prompt must be a str, got {type(prompt).__name__}")
        if images:
            if not self.supports_images:
                raise LLMError(f"{self!r} was configured with supports_images=False but was given images")
            content: Any = [{"type": "text", "text": prompt}]
            content += [{"type": "image_url", "image_url": {"url": image_data_url(img)}} for img in images]
        else:
            content = prompt
        messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
        messages.append({"role": "user", "content": content})
        body: dict[str, Any] = {"model": self.model, "messages": messages, "temperature": self.temperature}
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        return body

    def complete(self, prompt: str, images: Sequence[bytes] | None = None) -> str:
        """The model's reply to ``prompt`` (and ``images``); :class:`LLMError` on any failure, within ``timeout``."""
        deadline = _Deadline(self.timeout)
        try:
            data = json.dumps(self.payload(prompt, images)).encode("utf-8")
            return self._complete(data, deadline)
        except LLMError:
            raise
        except _OutOfTime:
            raise LLMError(self._out_of_time()) from None
        except Exception as e:  # the public call raises LLMError only; the cause stays chained
            raise LLMError(f"POST {self.url} failed unexpectedly ({type(e).__name__}: {e})") from e

    def _complete(self, data: bytes, deadline: _Deadline) -> str:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        attempts = 0
        problem = ""
        retry_after: float | None = None
        for attempt in range(self.retries + 1):
            if attempt:
                delay = min(self.backoff * 2 ** (attempt - 1) if retry_after is None else retry_after, self.max_backoff)
                if delay >= deadline.end - time.monotonic():
                    problem += f"; no time left within timeout={self.timeout:g}s for another attempt"
                    break
                time.sleep(delay)
            attempts += 1
            try:
                return self._parse(self._post(data, headers, deadline))
            except _Transient as e:
                problem, retry_after = str(e), e.retry_after
            except _OutOfTime:
                raise LLMError(self._out_of_time(attempts, problem)) from None
        raise LLMError(
            f"POST {self.url} failed after {attempts} attempt(s): {problem}. Check that an OpenAI-compatible "
            f"server is running and reachable at base_url={self.base_url!r} and serves model {self.model!r}; "
            f"raise timeout= for slow models."
        )

    def _out_of_time(self, attempts: int = 0, problem: str = "") -> str:
        earlier = f" Attempt {attempts} was cut off; the one before failed with {problem}." if problem else ""
        return (
            f"POST {self.url}: no complete reply within timeout={self.timeout:g}s (the deadline for the whole "
            f"call: connecting, the reply's headers and body, and retries).{earlier} Check that the server at "
            f"base_url={self.base_url!r} is up and not overloaded; raise timeout= for slow models."
        )

    def _connection(self, deadline: _Deadline) -> tuple[_HTTPConnection, str, dict[str, str]]:
        """A connection to the server (or to the proxy for it), the request target, and proxy headers."""
        proxy = _proxy(self._scheme, self._host)
        if proxy is None:
            if self._scheme == "https":
                return _HTTPSConnection(self._host, self._port, deadline, _tls_context()), self._target, {}
            return _HTTPConnection(self._host, self._port, deadline), self._target, {}
        proxy_host, proxy_port = proxy.hostname or "", proxy.port or 80
        auth = _proxy_authorization(proxy)
        if self._scheme == "https":  # a CONNECT tunnel; TLS runs end to end with the server
            conn = _HTTPSConnection(proxy_host, proxy_port, deadline, _tls_context())
            conn.set_tunnel(self._host, self._port, headers=auth)
            return conn, self._target, {}
        return _HTTPConnection(proxy_host, proxy_port, deadline), self.url, auth

    def _post(self, data: bytes, headers: dict[str, str], deadline: _Deadline) -> bytes:
        """One attempt: the body of a 2xx reply; :class:`_Transient` for what a retry may fix, else LLMError."""
        conn, target, extra = self._connection(deadline)
        response: http.client.HTTPResponse | None = None
        try:
            try:
                self._connect(conn)
                conn.request("POST", target, body=data, headers={**headers, **extra})
                response = conn.getresponse()
                if 200 <= response.status < 300:
                    return self._read_body(response)
                self._refuse(response)
            except TimeoutError:
                deadline.left()  # raises _OutOfTime once the deadline has passed
                raise _Transient(f"no reply within timeout={self.timeout:g}s") from None
            except http.client.IncompleteRead as e:
                raise _Transient(f"the server closed the connection mid-body (after {len(e.partial)} bytes)") from None
            except (OSError, http.client.HTTPException) as e:
                raise _Transient(f"connection failed ({type(e).__name__}: {e})") from None
        finally:
            if response is not None:
                response.close()
            conn.close()
        raise AssertionError("unreachable")  # _refuse always raises

    def _connect(self, conn: _HTTPConnection) -> None:
        """Open ``conn``; a TLS failure here (wrong scheme, bad certificate) is final: a retry meets it again."""
        try:
            conn.connect()
        except ssl.SSLError as e:
            raise LLMError(
                f"POST {self.url} failed: TLS error ({e}). Check that base_url's scheme matches the server "
                f"(http:// vs https://) and that its certificate is valid for {self._host!r}."
            ) from None

    def _read_body(self, response: http.client.HTTPResponse) -> bytes:
        """The reply body, read in chunks and refused past ``max_response_bytes`` or when short of Content-Length."""
        limit = self.max_response_bytes
        declared = response.length  # Content-Length, or None (chunked, or read until close)
        if declared is not None and declared > limit:
            raise LLMError(
                f"POST {self.url} announced a reply of {declared} bytes (Content-Length), over "
                f"max_response_bytes={limit}; a chat completion is far smaller. Check base_url, or raise "
                f"max_response_bytes= if the replies are really this large."
            )
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(min(_CHUNK, limit + 1 - size)):
            size += len(chunk)
            if size > limit:
                raise LLMError(
                    f"POST {self.url} sent a reply over max_response_bytes={limit} bytes; reading stopped there. "
                    f"Check base_url, or raise max_response_bytes= if the replies are really this large."
                )
            chunks.append(chunk)
        if declared is not None and size < declared:
            raise _Transient(f"the server closed the connection mid-body ({size} of {declared} bytes)")
        return b"".join(chunks)

    def _refuse(self, response: http.client.HTTPResponse) -> None:
        """Raise for a non-2xx reply: :class:`_Transient` for 5xx/429, :class:`LLMError` otherwise."""
        status = response.status
        detail = _snippet(_read_quietly(response, _ERROR_BODY_BYTES))
        problem = f"HTTP {status} {response.reason}" + (f": {detail}" if detail else "")
        if status == 429 or status >= 500:
            raise _Transient(problem, _retry_after(response.getheader("Retry-After")))
        if 300 <= status < 400:
            location = _snippet(response.getheader("Location") or "(none given)")
            raise LLMError(
                f"POST {self.url} was redirected (HTTP {status}) to {location}; redirects are not followed, so "
                f"that the API key goes only to base_url's host. Set base_url to the address the server names."
            )
        hint = {
            401: "the API key (api_key= or $GUI_GYM_LLM_API_KEY / $OPENAI_API_KEY)",
            403: "the API key and its permissions",
            404: "base_url (the API root, usually ending in /v1) and the model name",
        }.get(status, "the request: base_url, model name and server logs")
        raise LLMError(f"POST {self.url} failed with {problem}. Check {hint}.")

    def _parse(self, raw: bytes) -> str:
        """The reply text of a chat-completion body; :class:`LLMError` saying what is wrong with any other body."""
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise LLMError(
                f"POST {self.url} returned a body that is not UTF-8 (bad byte at offset {e.start}): "
                f"{_snippet(raw)!r}. Is base_url an OpenAI-compatible API root?"
            ) from None
        try:
            reply = _loads(text)
        except ValueError as e:
            raise LLMError(
                f"POST {self.url} returned a body that is not JSON ({_snippet(str(e), 80)}): {_snippet(raw)!r}. "
                f"Is base_url the OpenAI-compatible API root (usually ending in /v1)?"
            ) from None
        choices = reply.get("choices") if isinstance(reply, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            error = reply.get("error") if isinstance(reply, dict) else None
            what = f"an error: {_snippet(raw)!r}" if error else f"no choices: {_snippet(raw)!r}"
            raise LLMError(f"POST {self.url} returned {what}")
        choice = choices[0]
        message = choice.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        if not isinstance(content, str):
            raise LLMError(
                f"POST {self.url} returned a choice without text content "
                f"(finish_reason={_snippet(repr(choice.get('finish_reason')), 60)}): {_snippet(raw)!r}"
            )
        return content


def _read_quietly(response: http.client.HTTPResponse, limit: int) -> bytes:
    """Up to ``limit`` bytes of an error reply's body, or what arrived before the read failed."""
    try:
        return response.read(limit) or b""
    except (OSError, http.client.HTTPException, _OutOfTime, ValueError):
        return b""


def _retry_after(value: str | None) -> float | None:
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None
    return max(0.0, seconds) if seconds is not None and seconds == seconds else None  # NaN: ignored


# -- local transformers backend -------------------------------------------------------------------
class TransformersLLM:
    """A local causal LM through ``transformers``, loaded lazily from ``path``, decoding greedily.

    ``path`` is a directory written by ``save_pretrained`` (``config.json``, weights, tokenizer
    files); it is loaded with ``local_files_only=True``. The prompt goes through the tokenizer's
    chat template when it has one (one user turn, plus ``system_prompt`` if given), otherwise
    it is used as is. :meth:`complete` returns only the newly generated text. Text only:
    ``supports_images`` is False.

    Example:
        >>> llm = TransformersLLM("/models/Qwen2.5-7B-Instruct", max_new_tokens=256)  # doctest: +SKIP
        >>> llm.complete("Output a JSON array of two colours.")  # doctest: +SKIP
        '["red", "blue"]'
    """

    supports_images: ClassVar[bool] = False

    def __init__(
        self,
        path: str | os.PathLike,
        max_new_tokens: int = 256,
        device: str = "cpu",
        dtype: str | None = None,
        system_prompt: str | None = None,
        trust_remote_code: bool = False,
    ) -> None:
        p = Path(path).expanduser()
        if not (p / "config.json").is_file():
            raise FileNotFoundError(
                f"TransformersLLM: no model at {str(p)!r} (expected a directory with config.json, the weights and "
                f"the tokenizer files, as written by save_pretrained). Pass the local path of a causal LM, e.g. "
                f"TransformersLLM('/models/Qwen2.5-7B-Instruct'); nothing is downloaded."
            )
        if max_new_tokens < 1:
            raise ValueError("max_new_tokens must be positive")
        self.path = p
        self.max_new_tokens = int(max_new_tokens)
        self.device = device
        self.dtype = dtype
        self.system_prompt = system_prompt
        self.trust_remote_code = trust_remote_code
        self._tokenizer: Any = None
        self._model: Any = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"TransformersLLM({str(self.path)!r})"

    def __deepcopy__(self, memo: dict[int, Any]) -> TransformersLLM:
        return self  # a client (and its loaded model) is shared, never copied (e.g. by ``env.spec``)

    def __getstate__(self) -> dict[str, Any]:  # pickled without the loaded model: each process loads its own
        return {k: v for k, v in self.__dict__.items() if k not in ("_tokenizer", "_model", "_lock")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state, _tokenizer=None, _model=None, _lock=threading.Lock())

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._model is None:
                try:
                    from transformers import AutoModelForCausalLM, AutoTokenizer

                    kw: dict[str, Any] = {"local_files_only": True, "trust_remote_code": self.trust_remote_code}
                    tokenizer = AutoTokenizer.from_pretrained(self.path, **kw)
                    if self.dtype is not None:
                        kw["dtype"] = self.dtype
                    model = AutoModelForCausalLM.from_pretrained(self.path, **kw)
                    model.to(self.device).eval()
                except Exception as e:
                    raise LLMError(f"TransformersLLM: could not load the model at {str(self.path)!r}: {e}") from e
                self._tokenizer, self._model = tokenizer, model
        return self._tokenizer, self._model

    def complete(self, prompt: str, images: Sequence[bytes] | None = None) -> str:
        if images:
            raise LLMError(f"{self!r} is text-only (supports_images=False) but was given images")
        import torch

        tokenizer, model = self._load()
        if getattr(tokenizer, "chat_template", None):
            messages = [{"role": "system", "content": self.system_prompt}] if self.system_prompt else []
            messages.append({"role": "user", "content": prompt})
            text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            enc = tokenizer(text, return_tensors="pt", add_special_tokens=False)
        else:
            text = f"{self.system_prompt}\n\n{prompt}" if self.system_prompt else prompt
            enc = tokenizer(text, return_tensors="pt")
        input_ids = enc["input_ids"].to(model.device)
        attention_mask = enc.get("attention_mask")
        n = int(input_ids.shape[1])
        limit = getattr(model.config, "max_position_embeddings", None) or getattr(model.config, "n_positions", None)
        if limit and n + self.max_new_tokens > int(limit):
            raise LLMError(
                f"{self!r}: the prompt has {n} tokens; with max_new_tokens={self.max_new_tokens} that exceeds the "
                f"model's context of {limit} tokens"
            )
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        kwargs: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "do_sample": False}
        if pad is not None:
            kwargs["pad_token_id"] = pad
        if attention_mask is not None:
            kwargs["attention_mask"] = attention_mask.to(model.device)
        try:
            with torch.inference_mode():
                out = model.generate(input_ids=input_ids, **kwargs)
        except Exception as e:
            raise LLMError(f"{self!r}: generation failed: {type(e).__name__}: {e}") from e
        return tokenizer.decode(out[0, n:], skip_special_tokens=True).strip()
