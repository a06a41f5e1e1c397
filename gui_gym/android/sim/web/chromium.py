"""A headless Chromium driven over the DevTools protocol through a pipe.

Chromium is started with ``--remote-debugging-pipe``: it reads protocol commands from file
descriptor 3 and writes replies and events to descriptor 4, each message JSON ended by a NUL byte.
No port is opened and nothing but the standard library is needed. One :class:`Chromium` is one
browser process with one page (a tab at the phone's viewport); a hung or crashed page is a
:class:`BrowserError`, and :meth:`Chromium.restart` starts afresh.

The browser reaches nothing but ``file://`` pages and loopback: every host name resolves to
nothing and any other address goes to a closed proxy port.

Example (needs Chromium; ``apt-get install chromium``)::

    >>> with Chromium() as browser:                                    # doctest: +SKIP
    ...     browser.navigate("data:text/html,<p id=x>hi</p>")
    ...     browser.evaluate("document.getElementById('x').textContent")
    'hi'
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import select
import shutil
import tempfile
import time
import weakref
from typing import Any

#: how to get Chromium where it is missing (Debian's package; the test suite's installer runs it)
INSTALL_HINT = (
    "Chromium is needed for web pages on the phone (the MiniWoB app, Chrome): install Debian's package "
    "(`apt-get install -y --no-install-recommends chromium`, or `bash tests/install_browser.sh`), or "
    "point GUI_GYM_CHROMIUM at a Chromium binary"
)
#: the binaries tried, in order, after ``$GUI_GYM_CHROMIUM``
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
# Headless, no sandbox (containers run as root), nothing that phones home or reaches the network.
ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-quic",
    "--disable-features=Translate,MediaRouter,OptimizationHints",
    "--mute-audio",
    "--hide-scrollbars",
    "--allow-file-access-from-files",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",
    "--remote-debugging-pipe",
)
START_TIMEOUT_S = 20.0
COMMAND_TIMEOUT_S = 10.0


class BrowserError(RuntimeError):
    """The browser is missing, died, or did not answer in time; the message says which."""


def find_chromium() -> str:
    """The Chromium binary: ``$GUI_GYM_CHROMIUM`` or the first of :data:`CANDIDATES` on PATH."""
    env = os.environ.get("GUI_GYM_CHROMIUM")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise BrowserError(f"GUI_GYM_CHROMIUM={env!r} is not an executable file; {INSTALL_HINT}")
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    raise BrowserError(f"no Chromium found on PATH ({', '.join(CANDIDATES)}); {INSTALL_HINT}")


def _kill(pid: int, fds: tuple[int, ...], profile: str) -> None:
    """End the browser process and free what it held (also run when its owner is collected)."""
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    with contextlib.suppress(OSError):
        os.kill(pid, 9)
    with contextlib.suppress(ChildProcessError, OSError):
        os.waitpid(pid, 0)
    shutil.rmtree(profile, ignore_errors=True)


class Chromium:
    """One headless Chromium process and one page of ``width`` x ``height`` CSS pixels at
    ``scale`` device pixels per CSS pixel, driven over the DevTools protocol.

    Commands block until Chromium answers, at most ``timeout`` seconds (then :class:`BrowserError`).
    """

    def __init__(
        self, width: int = 411, height: int = 914, scale: float = 1.0, timeout: float = COMMAND_TIMEOUT_S
    ) -> None:
        self.width, self.height, self.scale, self.timeout = width, height, scale, timeout
        self._pid = 0
        self._to = self._from = -1
        self._buf = b""
        self._next_id = 0
        self._session = ""
        self._finalizer: weakref.finalize | None = None
        self.start()

    # -- lifecycle -----------------------------------------------------------------------
    def start(self) -> None:
        """Start the browser and open the page (about:blank)."""
        binary = find_chromium()
        profile = tempfile.mkdtemp(prefix="gui-gym-chromium-")
        to_r, to_w = os.pipe()  # commands: we write, Chromium reads on fd 3
        from_r, from_w = os.pipe()  # replies: Chromium writes on fd 4, we read
        devnull = os.open(os.devnull, os.O_RDWR)
        actions = [
            (os.POSIX_SPAWN_DUP2, to_r, 3),
            (os.POSIX_SPAWN_DUP2, from_w, 4),
            (os.POSIX_SPAWN_DUP2, devnull, 0),
            (os.POSIX_SPAWN_DUP2, devnull, 1),
            (os.POSIX_SPAWN_DUP2, devnull, 2),
        ]
        argv = [binary, *ARGS, f"--user-data-dir={profile}", "about:blank"]
        try:
            pid = os.posix_spawn(binary, argv, dict(os.environ), file_actions=actions)
        except OSError as e:
            for fd in (to_r, to_w, from_r, from_w, devnull):
                os.close(fd)
            shutil.rmtree(profile, ignore_errors=True)
            raise BrowserError(f"could not start {binary}: {e}; {INSTALL_HINT}") from e
        for fd in (to_r, from_w, devnull):
            os.close(fd)
        self._pid, self._to, self._from, self._buf = pid, to_w, from_r, b""
        self._finalizer = weakref.finalize(self, _kill, pid, (to_w, from_r), profile)
        try:
            target = self.send("Target.createTarget", {"url": "about:blank"}, timeout=START_TIMEOUT_S)["targetId"]
            self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            self.command(
                "Emulation.setDeviceMetricsOverride",
                {"width": self.width, "height": self.height, "deviceScaleFactor": self.scale, "mobile": False},
            )
            self.command("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})
            self.command("Page.enable")
            self.command("Runtime.enable")
        except BrowserError:
            self.close()
            raise

    def close(self) -> None:
        """End the browser process (idempotent)."""
        if self._finalizer is not None:
            self._finalizer()
            self._finalizer = None
        self._pid, self._session = 0, ""

    def resize(self, width: int, height: int, scale: float) -> None:
        """Lay the page out in a ``width`` x ``height`` CSS-pixel viewport, ``scale`` device
        pixels per CSS pixel (kept across :meth:`restart`)."""
        self.width, self.height, self.scale = width, height, scale
        self.command(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": scale, "mobile": False},
        )

    def restart(self) -> None:
        """A fresh browser and page (after a crash or a hung page)."""
        self.close()
        self.start()

    @property
    def alive(self) -> bool:
        if not self._pid:
            return False
        try:
            return os.waitpid(self._pid, os.WNOHANG) == (0, 0)
        except ChildProcessError:
            return False

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the protocol --------------------------------------------------------------------
    def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: str = "", timeout: float | None = None
    ) -> dict[str, Any]:
        """One protocol command and its result; events in between are dropped."""
        if not self._pid:
            raise BrowserError("the browser is closed")
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        data = json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to, data) :]
        except OSError as e:
            raise BrowserError(f"the browser is gone ({method}: {e})") from e
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            reply = self._read(deadline, method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message', reply['error'])}")
                return reply.get("result", {})

    def commands(self, calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
        """Several commands to the page, sent at once (Chromium runs them in order); the last's
        result, after every one has been answered (an error in any is raised)."""
        if not self._pid:
            raise BrowserError("the browser is closed")
        first = self._next_id + 1
        data = b""
        for method, params in calls:
            self._next_id += 1
            msg = {"id": self._next_id, "method": method, "params": params, "sessionId": self._session}
            data += json.dumps(msg).encode() + b"\0"
        try:
            while data:
                data = data[os.write(self._to, data) :]
        except OSError as e:
            raise BrowserError(f"the browser is gone ({calls[0][0]}: {e})") from e
        deadline = time.monotonic() + self.timeout
        result: dict[str, Any] = {}
        answered = 0
        while answered < len(calls):
            reply = self._read(deadline, calls[0][0])
            rid = reply.get("id")
            if isinstance(rid, int) and first <= rid <= self._next_id:
                answered += 1
                if "error" in reply:
                    raise BrowserError(f"{calls[rid - first][0]}: {reply['error'].get('message', reply['error'])}")
                if rid == self._next_id:
                    result = reply.get("result", {})
        return result

    def command(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None
    ) -> dict[str, Any]:
        """A command to the page."""
        return self.send(method, params, session=self._session, timeout=timeout)

    def _read(self, deadline: float, method: str) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError(f"the browser did not answer {method} within {self.timeout:g} s")
            ready, _, _ = select.select([self._from], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from, 1 << 20)
            if not chunk:
                raise BrowserError(f"the browser exited while answering {method}")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    # -- the page ------------------------------------------------------------------------
    def navigate(self, url: str) -> None:
        """Load ``url`` and wait until the document has loaded."""
        result = self.command("Page.navigate", {"url": url})
        if result.get("errorText"):
            raise BrowserError(f"could not load {url}: {result['errorText']}")
        deadline = time.monotonic() + self.timeout
        while self.evaluate("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise BrowserError(f"{url} did not finish loading within {self.timeout:g} s")
            time.sleep(0.002)

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-able values come back as Python)."""
        result = self.command(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text", "error")
            raise BrowserError(f"the page raised: {text.splitlines()[0]}")
        return result.get("result", {}).get("value")

    def touch(self, points: list[tuple[float, float]], hold_ms: float = 0.0) -> None:
        """A finger down at ``points[0]``, moved through the others, lifted (CSS pixels): the
        touch events a WebView gets, from which the page's own gesture handling makes a tap
        (and its click), a long press or a scroll."""
        x, y = points[0]
        self.command("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
        for x, y in points[1:]:
            self.command("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
        if hold_ms:
            time.sleep(hold_ms / 1000)
        self.command("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})

    def click(self, x: float, y: float, hold_ms: float = 0.0) -> None:
        """A click at page point (``x``, ``y``) in CSS pixels: the pointer moved there, pressed and
        released (held ``hold_ms`` in between): the mouse events a WebView's tap ends in."""
        base = {"x": x, "y": y, "button": "left", "clickCount": 1}
        moved = {"x": x, "y": y, "type": "mouseMoved", "button": "none", "clickCount": 0}
        press = [("Input.dispatchMouseEvent", moved), ("Input.dispatchMouseEvent", {**base, "type": "mousePressed"})]
        release = [("Input.dispatchMouseEvent", {**base, "type": "mouseReleased"})]
        if hold_ms:
            self.commands(press)
            time.sleep(hold_ms / 1000)
            self.commands(release)
        else:
            self.commands(press + release)

    def drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 8) -> None:
        """A finger moved from (``x0``, ``y0``) to (``x1``, ``y1``): pressed, moved, released."""
        self.command(
            "Input.dispatchMouseEvent", {"type": "mousePressed", "x": x0, "y": y0, "button": "left", "clickCount": 1}
        )
        for i in range(1, steps + 1):
            x, y = x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps
            self.command(
                "Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y, "button": "left", "buttons": 1}
            )
        self.command(
            "Input.dispatchMouseEvent", {"type": "mouseReleased", "x": x1, "y": y1, "button": "left", "clickCount": 1}
        )

    def scroll(self, x: float, y: float, dy: float) -> None:
        """A wheel scroll of ``dy`` CSS pixels (positive: the content moves up) at (``x``, ``y``)."""
        self.command("Input.dispatchMouseEvent", {"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": dy})

    def insert_text(self, text: str) -> None:
        """Type ``text`` into the focused element, as an input method commits it."""
        if text:
            self.command("Input.insertText", {"text": text})

    @staticmethod
    def key_calls(key: str, code: str, key_code: int, text: str = "") -> list[tuple[str, dict[str, Any]]]:
        """The commands of one key press (down, then up): ``key`` and ``code`` as the DOM names them."""
        down: dict[str, Any] = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": key_code}
        if text:
            down["text"] = text
        up = {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code}
        return [("Input.dispatchKeyEvent", down), ("Input.dispatchKeyEvent", up)]

    def key(self, key: str, code: str, key_code: int, text: str = "") -> None:
        """One key press (down, then up)."""
        self.commands(self.key_calls(key, code, key_code, text))

    def screenshot(self) -> bytes:
        """The page's viewport as PNG bytes (``width*scale`` x ``height*scale`` pixels)."""
        data = self.command("Page.captureScreenshot", {"format": "png", "fromSurface": True})["data"]
        return base64.b64decode(data)
