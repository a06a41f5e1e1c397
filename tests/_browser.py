"""A real headless Chromium for tests, driven through Selenium and Debian's ChromeDriver.

Chromium and ChromeDriver come from Debian's packages ``chromium`` and ``chromium-driver``
(``bash tests/install_browser.sh`` installs them); chromium-driver depends on the exact chromium
version, so the pair always matches. Both paths are handed to Selenium, which then never runs
Selenium Manager (it would try to download a driver, and only package registries are reachable).

The browser reaches loopback only: every host name but localhost resolves to nothing, and any
other address goes to a closed proxy port, so a page under test cannot leak to the network.

A test asks for the session-scoped ``browser`` fixture (registered in ``conftest.py``). Without
Chromium the fixture fails, saying what to install; with ``GUI_GYM_NO_BROWSER=1`` it skips.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver
    from selenium.webdriver.remote.webelement import WebElement

INSTALL_HINT = (
    "run `bash tests/install_browser.sh` (as root it does `apt-get install -y --no-install-recommends "
    "chromium chromium-driver`), or set GUI_GYM_NO_BROWSER=1 to skip the browser tests"
)
PAGE_LOAD_TIMEOUT_S = 30.0
ELEMENT_TIMEOUT_S = 10.0
PROXY_VARS = ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")

# Headless, no sandbox (CI runs as root), and nothing that phones home: without the
# background-networking flags Chromium keeps trying Google's hosts on a closed network.
CHROMIUM_ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-quic",
    "--window-size=1280,1024",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
    "--proxy-server=http://127.0.0.1:9",  # loopback bypasses a proxy; anything else hits a closed port
)


class Browser:
    """The few page actions a test needs, each waiting up to ``timeout`` s for its element.

    ``driver`` is the underlying Selenium WebDriver for anything not covered here.
    """

    def __init__(self, driver: WebDriver, timeout: float = ELEMENT_TIMEOUT_S) -> None:
        self.driver = driver
        self.timeout = timeout

    def open(self, url: str) -> None:
        """Load ``url`` and wait for the page to finish loading."""
        self.driver.get(url)

    def fill(self, css: str, text: str) -> None:
        """Replace the value of the field at ``css``; for a ``<select>``, choose the option by
        its visible text (or, failing that, by its value)."""
        element = self._find(css)
        if element.tag_name.lower() == "select":
            from selenium.common.exceptions import NoSuchElementException
            from selenium.webdriver.support.ui import Select

            select = Select(element)
            try:
                select.select_by_visible_text(text)
            except NoSuchElementException:
                select.select_by_value(text)
            return
        element.clear()
        element.send_keys(text)

    def click(self, css: str) -> None:
        """Click the element at ``css`` once it is clickable. ChromeDriver waits for a navigation
        the click starts before it runs the next command, so a following ``text`` reads the new page."""
        from selenium.webdriver.support import expected_conditions as ec

        self._wait(ec.element_to_be_clickable(("css selector", css)), css).click()

    def text(self, css: str) -> str:
        """The rendered text of the first element at ``css``."""
        return self._find(css).text

    def page_source(self) -> str:
        """The current DOM serialized as HTML."""
        return self.driver.page_source

    @property
    def url(self) -> str:
        """The address of the page now shown."""
        return self.driver.current_url

    def _find(self, css: str) -> WebElement:
        from selenium.webdriver.support import expected_conditions as ec

        return self._wait(ec.presence_of_element_located(("css selector", css)), css)

    def _wait(self, condition: Callable[[WebDriver], WebElement], css: str) -> WebElement:
        from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
        from selenium.webdriver.support.ui import WebDriverWait

        wait = WebDriverWait(self.driver, self.timeout, ignored_exceptions=(StaleElementReferenceException,))
        try:
            return wait.until(condition)
        except TimeoutException:
            raise AssertionError(
                f"no element matches {css!r} after {self.timeout:g} s on {self.driver.current_url}"
            ) from None


def find_chromium() -> tuple[str, str] | None:
    """Paths of ``chromium`` and ``chromedriver`` on PATH, or None when either is missing."""
    chromium, chromedriver = shutil.which("chromium"), shutil.which("chromedriver")
    return (chromium, chromedriver) if chromium and chromedriver else None


def start_driver(chromium: str, chromedriver: str) -> WebDriver:
    """A headless Chromium under ChromeDriver, with page-load and script timeouts set."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for arg in CHROMIUM_ARGS:
        options.add_argument(arg)
    # Selenium talks to ChromeDriver on loopback, and reads the proxy variables when it connects:
    # a proxy set in the environment must not apply to it, nor to the processes it starts.
    with pytest.MonkeyPatch.context() as env:
        for var in PROXY_VARS:
            env.delenv(var, raising=False)
        driver = webdriver.Chrome(options=options, service=Service(chromedriver))
    driver.set_page_load_timeout(PAGE_LOAD_TIMEOUT_S)
    driver.set_script_timeout(ELEMENT_TIMEOUT_S)
    return driver


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    """One headless Chromium per test session (per xdist worker), quit at the end."""
    if os.environ.get("GUI_GYM_NO_BROWSER") == "1":
        # an explicit opt-out for machines that cannot install Chromium; CI never sets it, and
        # without it a missing browser fails the run (below) instead of skipping
        pytest.skip("GUI_GYM_NO_BROWSER=1: the headless-Chromium tests are skipped")
    paths = find_chromium()
    if paths is None:
        pytest.fail(f"headless Chromium ('chromium' and 'chromedriver' on PATH) is not installed: {INSTALL_HINT}")
    try:
        import selenium  # noqa: F401
    except ImportError:
        pytest.fail("the Python package selenium is missing: pip install -e '.[dev]'")
    driver = start_driver(*paths)
    try:
        yield Browser(driver)
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def chromium_present() -> None:
    """The phone's pages need Chromium on PATH (the product drives it over the DevTools pipe, no
    ChromeDriver): without it the test fails saying what to install; ``GUI_GYM_NO_BROWSER=1`` skips."""
    if os.environ.get("GUI_GYM_NO_BROWSER") == "1":
        # the same explicit opt-out as the browser fixture's (machines that cannot install Chromium);
        # CI never sets it, so there a missing Chromium fails below instead of skipping
        pytest.skip("GUI_GYM_NO_BROWSER=1: the headless-Chromium tests are skipped")
    from gui_gym.android.sim.web.chromium import BrowserError, find_chromium

    try:
        find_chromium()
    except BrowserError as e:
        pytest.fail(str(e))
