"""Miniwob (com.google.androidenv.miniwob): AndroidWorld's MiniWoB app.

One activity (``com.google.androidenv.miniwob.app.MainActivity``, no title bar) holding one WebView
(``webView``, 10dp below the status bar, the rest of the screen) that shows a MiniWoB++ task page
zoomed to 500 %: the 160 x 210 CSS-pixel task is 800 x 1050 screen pixels at the top left, its
yellow query on top. The page runs in a real headless Chromium (:mod:`gui_gym.android.sim.web`):
the dump holds its elements as the WebView exposes them, the screenshot is the page's pixels, and a
finger on the WebView is a touch on the page (a tap clicks, a swipe scrolls or drags, as the page
takes it). Typing goes to the page's focused field as key input. Back does nothing: AndroidWorld's
activity takes it and stays (Home leaves the app).

Launched from the home screen the app shows its index page ("MiniWoB++"); a task's reset loads the
task's page (:mod:`.registry`). The browser starts with the first page and is closed with the env.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.web.screen import PageScreen
from gui_gym.android.sim.web.webview import Frame, WebView
from gui_gym.android.sim.widgets import STATUS_H, UI, Screen
from gui_gym.android.ui import SCREEN_W

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.google.androidenv.miniwob"
LABEL = "Miniwob"
ACTIVITY = "com.google.androidenv.miniwob.app.MainActivity"
WEBVIEW_ID = f"{PKG}:id/webView"
#: the WebView's place: 10dp (26 px at 420 dpi) below the status bar, the page at 500 %
ZOOM = 5
TOP = STATUS_H + 26
HEIGHT_CSS = 432  # whole CSS pixels above the navigation bar
FRAME = Frame(0, TOP, SCREEN_W, TOP + HEIGHT_CSS * ZOOM, float(ZOOM))
INDEX_PAGE = "data:text/html,<title>MiniWoB App</title><h1>MiniWoB++</h1>"
_RESOURCE = "miniwob-webview"


@dataclass
class MiniWobData:
    """What the app keeps: the page it shows (a task's name, or ``""`` for its index page) and
    the episode's utterance (what ``GET_UTTERANCE_ACTION`` answers)."""

    task: str = ""
    utterance: str = ""


def load_task(dev: Device, name: str, seed: int = 0) -> str:
    """What the app does with ``RL_TASK_APP_CONFIG``'s ``{"task": name}`` and then the ``reset``
    extra (AndroidWorld's ``initialize_task`` over adb): load the task's page, start its episode
    as the app's ``reset()`` does (the page's random numbers seeded with ``seed``, which
    AndroidWorld does not pass: the served phone is reproducible) and return the utterance."""
    from gui_gym.android.sim.apps.miniwob import pages  # the pages' module imports this one's data

    view = web_view(dev)
    view.load(pages.page_url(name))
    for _ in range(500):  # the page's load handler makes its cover and display
        if view.evaluate(pages.READY, changes=False):
            break
        view.settle()
    view.evaluate(pages.AW_BEHAVIOUR)
    utterance = " ".join(str(view.evaluate(pages.RESET.format(seed=int(seed))) or "").split())
    data = dev.data("miniwob")
    data.task, data.utterance = name, utterance
    return utterance


def reward_text(dev: Device) -> str:
    """The page's raw reward as the app reports it (``GET_REWARD_ACTION``): JavaScript's number
    text once the page has ended its episode (``1``, ``-1``, ``0.83``), ``""`` before."""
    view = dev.resources.get(_RESOURCE)
    if view is None or not view.url.endswith(".html"):  # no task page: nothing to report
        return ""
    done, raw = view.read("[WOB_DONE_GLOBAL, String(WOB_RAW_REWARD_GLOBAL)]")
    return raw if done else ""


def web_view(dev: Device) -> WebView:
    """The phone's WebView for this app (a browser started on first use)."""
    view = dev.resources.get(_RESOURCE)
    if view is None:
        view = dev.resources[_RESOURCE] = WebView(FRAME)
        view.load(INDEX_PAGE)
    return view


class MainActivity(PageScreen):
    """MainActivity: the WebView and the page it shows."""

    title = LABEL
    frame = FRAME

    def build(self, ui: UI, dev: Device) -> None:
        ui.add(self.web_node(dev, PKG, WEBVIEW_ID, "webview"))

    def page_view(self, dev: Device) -> WebView:
        return web_view(dev)

    def on_back(self, dev: Device) -> str | None:
        return "Press Back (nothing happens: the Miniwob app ignores Back)"


class MiniWobApp(App):
    requires = ("browser",)
    name = "miniwob"
    label = LABEL
    package = PKG
    activity = ACTIVITY
    aliases = ("miniwob",)
    color = (250, 220, 40)  # the query's yellow
    icon = "miniwob"
    layout = (("android.widget.RelativeLayout", ""),)

    def initial_data(self) -> Any:
        return MiniWobData()

    def root(self, dev: Device) -> Screen:
        return MainActivity()
