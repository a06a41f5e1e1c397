"""The headless-Chromium harness (tests/_browser.py) against a tiny form served on loopback."""

from __future__ import annotations

import html
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pytest
from _browser import Browser

FORM_PAGE = b"""<!doctype html>
<html><head><title>form</title></head><body>
<form method="post" action="/submit">
  <input id="name" name="name" value="placeholder">
  <select id="size" name="size"><option value="s">small</option><option value="l">large</option></select>
  <button id="go" type="submit">Go</button>
</form>
</body></html>"""


class FormHandler(BaseHTTPRequestHandler):
    """GET / is the form; POST /submit echoes the posted fields back in ``#result``."""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._send(FORM_PAGE)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        fields = parse_qs(self.rfile.read(length).decode())
        name, size = fields.get("name", [""])[0], fields.get("size", [""])[0]
        self.server.posts.append((name, size))  # type: ignore[attr-defined]
        body = f'<!doctype html><p id="result">hello {html.escape(name)}, size {html.escape(size)}</p>'
        self._send(body.encode())

    def _send(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def form_url() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """The form's URL on 127.0.0.1 and the list of (name, size) pairs the server was posted."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), FormHandler)
    server.daemon_threads = True
    server.posts = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", server.posts  # type: ignore[attr-defined]
    finally:
        server.shutdown()
        server.server_close()


def test_fill_submit_and_read_the_result(browser: Browser, form_url: tuple[str, list[tuple[str, str]]]) -> None:
    url, posts = form_url
    browser.open(url)
    assert browser.text("#go") == "Go"
    browser.fill("#name", "Ada & <Bob>")  # replaces the placeholder, keeps characters HTML escapes
    browser.fill("#size", "large")
    browser.click("#go")
    assert browser.text("#result") == "hello Ada & <Bob>, size l"
    assert posts == [("Ada & <Bob>", "l")]
    assert browser.url == url + "submit"
    assert 'id="result"' in browser.page_source()


def test_a_missing_element_fails_with_its_selector(browser: Browser, form_url: tuple[str, Any]) -> None:
    saved, browser.timeout = browser.timeout, 0.5
    try:
        browser.open(form_url[0])
        with pytest.raises(AssertionError, match=r"no element matches '#absent'"):
            browser.text("#absent")
    finally:
        browser.timeout = saved


def test_only_loopback_is_reachable(browser: Browser, form_url: tuple[str, Any]) -> None:
    from selenium.common.exceptions import WebDriverException

    browser.open(form_url[0].replace("127.0.0.1", "localhost"))
    assert browser.text("#go") == "Go"
    # refused inside Chromium (closed proxy on loopback, no name resolution): nothing leaves the machine
    with pytest.raises(WebDriverException, match=r"net::ERR_(PROXY_CONNECTION_FAILED|NAME_NOT_RESOLVED)"):
        browser.open("http://example.com/")


def _run_harness_without_chromium(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Runs a one-test pytest session that asks for ``browser`` with no Chromium on PATH."""
    (tmp_path / "conftest.py").write_text(
        f"import sys\nsys.path.insert(0, {os.path.dirname(__file__)!r})\nfrom _browser import browser\n"
    )
    (tmp_path / "test_uses_browser.py").write_text("def test_it(browser):\n    pass\n")
    run_env = {k: v for k, v in os.environ.items() if k != "GUI_GYM_NO_BROWSER"}
    run_env.update(PATH=str(tmp_path), **env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "no:xdist", str(tmp_path)],
        cwd=tmp_path,
        env=run_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_without_chromium_the_fixture_fails_saying_what_to_install(tmp_path: Path) -> None:
    result = _run_harness_without_chromium(tmp_path)
    assert result.returncode == 1, result.stdout
    assert "1 error" in result.stdout
    assert "bash tests/install_browser.sh" in result.stdout
    assert "apt-get install -y --no-install-recommends chromium chromium-driver" in result.stdout


def test_gui_gym_no_browser_skips_instead(tmp_path: Path) -> None:
    result = _run_harness_without_chromium(tmp_path, GUI_GYM_NO_BROWSER="1")
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout
    assert "GUI_GYM_NO_BROWSER=1" in result.stdout
