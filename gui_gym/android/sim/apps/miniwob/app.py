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
from gui_gym.android.sim.web.pickers import PagePickers, open_picker, picker_at
from gui_gym.android.sim.web.webview import Frame, WebView
from gui_gym.android.sim.widgets import STATUS_H, UI, Inapplicable, Screen
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
_BAD = frozenset(chr(c) for c in range(0x20) if c not in (0x09, 0x0A)) | {"\ufffe", "\uffff"}


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


class PageScreen(PagePickers, Screen):
    """MainActivity: the WebView and the page it shows."""

    title = LABEL

    def build(self, ui: UI, dev: Device) -> None:
        view = web_view(dev)
        root = view.nodes(PKG, WEBVIEW_ID)
        root.picture = view.screenshot
        root.role = "picture"
        root.style = ("fit", "webview", id(view), view.version)
        root.on_tap = lambda: self._touch(dev, view, 0.0)
        root.on_long_press = lambda: self._touch(dev, view, 600.0)
        root.on_scroll = lambda direction, frac: self._scroll(dev, view, direction, frac)
        ui.add(root)

    def page_view(self, dev: Device) -> WebView:
        return web_view(dev)

    # -- input ---------------------------------------------------------------------------
    def _touch(self, dev: Device, view: WebView, hold_ms: float) -> str:
        point = dev.touch_point
        if point is None:
            raise Inapplicable("a touch on the page needs a point")
        found = picker_at(view, point) if not hold_ms else None
        if found is not None:  # a list, a date or a time field: Android's own picker opens
            return open_picker(self, dev, found)
        named = self._named_at(view, point)
        view.touch([point], hold_ms)
        self._follow_focus(dev, view)
        verb = "Long press" if hold_ms else "Tap"
        return f'{verb} "{named}" on the page' if named else f"{verb} the page at ({point[0]}, {point[1]})"

    def _scroll(self, dev: Device, view: WebView, direction: str, frac: float) -> bool:
        x, y = dev.touch_point or ((FRAME.left + FRAME.right) // 2, (FRAME.top + FRAME.bottom) // 2)
        span = (FRAME.bottom - FRAME.top) if direction in ("up", "down") else (FRAME.right - FRAME.left)
        dist = max(1, int(span * frac * 0.6))
        end = {"down": (x, y - dist), "up": (x, y + dist), "right": (x - dist, y), "left": (x + dist, y)}[direction]
        end = (min(max(end[0], FRAME.left), FRAME.right - 1), min(max(end[1], FRAME.top), FRAME.bottom - 1))
        before = view.scroll_offsets()
        view.touch(_path((x, y), end))
        self._follow_focus(dev, view)
        return view.scroll_offsets() != before

    def on_gesture(self, dev: Device, points: list[tuple[int, int]]) -> str | None:
        view = dev.resources.get(_RESOURCE)
        x0, y0 = points[0]
        if view is None or not (FRAME.left <= x0 < FRAME.right and FRAME.top <= y0 < FRAME.bottom):
            return None
        path = _path(points[0], points[-1]) if len(points) == 2 else points
        view.touch(path)
        self._follow_focus(dev, view)
        (x1, y1) = points[-1]
        return f"Swipe on the page from ({x0}, {y0}) to ({x1}, {y1})"

    def check_input_text(self, dev: Device, point: tuple[int, int] | None, text: str) -> None:
        view = dev.resources.get(_RESOURCE)
        if view is None:
            return
        if point is not None and not view.editable_at(*point):
            raise Inapplicable("input_text needs a text field: the page has none at its target")
        if point is None and not view.focused_editable():
            raise Inapplicable("input_text needs a text field: nothing on the page takes text")
        _check_text(text)

    def on_key_input(self, dev: Device, key: str, text: str, delete: int, enter: bool) -> str | None:
        view = web_view(dev)
        if not view.focused_editable():
            self.focus = None
            raise Inapplicable("no text field has focus on the page: tap a field first")
        _check_text(text)
        from gui_gym.android.sim.device import CLEAR_ALL  # the device imports the apps

        old = view.focused_value()
        if not text and (not old or delete == 0):
            raise Inapplicable("nothing to type")
        view.type(
            text.replace("\n", ""),
            delete=0 if delete >= CLEAR_ALL else min(delete, len(old)),
            select_all=delete >= CLEAR_ALL,
        )
        dev.state.keyboard = True
        done = f'Type "{text}" into the page\'s field' if text else "Delete text in the page's field"
        if enter:
            view.enter()
            done += ", then Enter"
        self._follow_focus(dev, view)
        return done

    def on_enter(self, dev: Device, key: str) -> str | None:
        view = web_view(dev)
        view.enter()
        self._follow_focus(dev, view)
        return "Press Enter"

    def on_back(self, dev: Device) -> str | None:
        return "Press Back (nothing happens: the Miniwob app ignores Back)"

    # -- helpers -------------------------------------------------------------------------
    def _follow_focus(self, dev: Device, view: WebView) -> None:
        """The page's focus is the screen's: an editable element focused raises the keyboard."""
        if view.focused_editable():
            self.focus = "page"
            self.form["page"] = view.focused_value()
            dev.state.keyboard = True
        else:
            self.focus = None
            self.form.pop("page", None)

    @staticmethod
    def _named_at(view: WebView, point: tuple[int, int]) -> str:
        """The text or description of the deepest page node at ``point`` that has one."""
        best = ""
        stack = [view.nodes(PKG, WEBVIEW_ID)]
        while stack:
            n = stack.pop()
            if not n.contains(*point):
                continue
            if n.text or n.desc:
                best = n.text or n.desc
            stack.extend(n.children)
        return best[:60]


def _path(start: tuple[int, int], end: tuple[int, int], steps: int = 8) -> list[tuple[int, int]]:
    (x0, y0), (x1, y1) = start, end
    return [(round(x0 + (x1 - x0) * i / steps), round(y0 + (y1 - y0) * i / steps)) for i in range(steps + 1)]


def _check_text(text: str) -> None:
    bad = [c for c in text if c in _BAD or 0xD800 <= ord(c) <= 0xDFFF]
    if bad:
        raise Inapplicable(f"text contains characters a keyboard cannot type: {bad[:3]!r}")


class MiniWobApp(App):
    requires = ("browser",)
    name = "miniwob"
    label = LABEL
    package = PKG
    activity = ACTIVITY
    aliases = ("miniwob",)
    color = (250, 220, 40)  # the query's yellow
    layout = (("android.widget.RelativeLayout", ""),)

    def initial_data(self) -> Any:
        return MiniWobData()

    def root(self, dev: Device) -> Screen:
        return PageScreen()
