"""Chrome (com.android.chrome): a tab showing a local page in a real headless Chromium.

What AndroidWorld's browser tasks need of Chrome: the Files app opens ``task.html`` with it (the
"Open with" prompt lists Chrome), and Chrome shows the page under its toolbar (the home button,
the address bar ``url_bar`` holding the page's address, the tab switcher and the menu). The page
runs in a headless Chromium (:mod:`gui_gym.android.sim.web`) at the phone's density (2.625 screen
pixels per CSS pixel, a 411-pixel-wide layout); its elements are in the dump as Chrome exposes them
(an ``android.webkit.WebView`` and the page's nodes), its pixels in the screenshot, and a finger on
it is a touch on the page. Launched from the home screen Chrome shows an empty tab.

As Chrome does, a page without a viewport tag is laid out 980 CSS pixels wide and zoomed out to
the screen's width (AndroidWorld's maze and multiplication pages); ``width=device-width`` lays it
out at the screen's 411 (its drawing page). Chrome's first-run screens are not shown.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.media import media
from gui_gym.android.sim.web.screen import PageScreen
from gui_gym.android.sim.web.webview import Frame, WebView
from gui_gym.android.sim.widgets import NAV_TOP, STATUS_H, UI, Inapplicable, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.android.chrome"
LABEL = "Chrome"
ACTIVITY = "com.google.android.apps.chrome.Main"
TOOLBAR_H = 147  # 56dp
DENSITY = 2.625
_CSS_W, _CSS_H = int(SCREEN_W / DENSITY), int((NAV_TOP - STATUS_H - TOOLBAR_H) / DENSITY)
FRAME = Frame(0, STATUS_H + TOOLBAR_H, round(_CSS_W * DENSITY), STATUS_H + TOOLBAR_H + round(_CSS_H * DENSITY), DENSITY)
BLANK = "about:blank"
#: the layout width (CSS pixels) Chrome gives a page: 980 without a viewport tag, the screen's
#: width (0 here) for ``width=device-width`` or a tag with only a scale, else the tag's width
LAYOUT_WIDTH_JS = r"""(() => {
  const tag = document.querySelector('meta[name="viewport" i]');
  if (!tag) return 980;
  const content = tag.getAttribute('content') || '';
  const width = /(?:^|[,;\s])width\s*=\s*([^,;\s]+)/i.exec(content);
  if (!width) return /initial-scale/i.test(content) ? 0 : 980;
  if (width[1].toLowerCase() === 'device-width') return 0;
  const n = parseFloat(width[1]);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, 10000) : 980;
})()"""


def page_frame(layout_width: float) -> Frame:
    """The tab's frame for a page laid out ``layout_width`` CSS pixels wide (0: the screen's
    width), zoomed so that the layout fills the screen's width, as Chrome shows it."""
    if not layout_width or not isinstance(layout_width, int | float):
        return FRAME
    f = FRAME
    return Frame(f.left, f.top, f.right, f.bottom, (f.right - f.left) / float(layout_width))


#: how DocumentsUI hands a file of the shared storage to the app that opens it
DOCUMENTS = "content://com.android.externalstorage.documents/document/primary%3A"
_RESOURCE = "chrome-webview"


@dataclass
class ChromeData:
    """The tab: the address shown and the shared-storage file it shows (``""``: none)."""

    url: str = ""
    path: str = ""


def _db(dev: Device) -> ChromeData:
    return dev.data("chrome")


class _Tab:
    """The browser behind the tab, and where its pages are written to load them."""

    def __init__(self) -> None:
        self.view = WebView(FRAME)
        self.folder = tempfile.mkdtemp(prefix="gui-gym-chrome-")
        self.shown: tuple[str, bytes] | None = None

    def show(self, path: str, raw: bytes | None) -> None:
        """Load the storage's file ``path`` (its bytes ``raw``; ``None``: an empty tab)."""
        if raw is None:
            if self.shown is not None or not self.view.url:
                self.view.load(BLANK)
                self.view.fit(FRAME)
                self.shown = None
            return
        if self.shown == (path, raw):
            return
        file = os.path.join(self.folder, "page.html")
        with open(file, "wb") as f:
            f.write(raw)
        self.view.load("file://" + file)
        self.view.fit(page_frame(self.view.evaluate(LAYOUT_WIDTH_JS, changes=False)))
        self.shown = (path, raw)

    def close(self) -> None:
        self.view.close()
        for name in os.listdir(self.folder):
            os.remove(os.path.join(self.folder, name))
        os.rmdir(self.folder)


def tab(dev: Device) -> _Tab:
    t = dev.resources.get(_RESOURCE)
    if t is None:
        t = dev.resources[_RESOURCE] = _Tab()
    return t


def open_file(dev: Device, path: str) -> str:
    """Open the shared storage's ``path`` in Chrome (what "Open with" Chrome does)."""
    data = _db(dev)
    data.path, data.url = path, DOCUMENTS + path.replace("/", "%2F")
    dev.launch("chrome")
    return f'Open "{path.rsplit("/", 1)[-1]}" with Chrome'


def _rid(name: str) -> str:
    return f"{PKG}:id/{name}"


class TabScreen(PageScreen):
    """Main: the toolbar and the page."""

    title = LABEL
    frame = FRAME

    def build(self, ui: UI, dev: Device) -> None:
        data = _db(dev)
        t = tab(dev)
        f = media(dev).files.get(data.path) if data.path else None
        t.show(data.path, f.data() if f is not None else None)
        top = STATUS_H
        bar = Node(
            "android.widget.FrameLayout", (0, top, SCREEN_W, top + TOOLBAR_H), rid=_rid("toolbar"), role="toolbar"
        )
        field = Node(
            "android.widget.EditText",
            (140, top + 20, 820, top + 127),
            data.url or "Search or type URL",
            rid=_rid("url_bar"),
            package=PKG,
            focusable=True,
            on_tap=self._address,
            role="field",
            style=None if data.url else "hint",
            label="Address",
        )
        buttons = (  # (left, description, view id, icon, what a tap does)
            (16, "Open the home page", "home_button", "home", lambda: self._home(dev)),
            (840, "Switch or close tabs", "tab_switcher_button", "tabs", self._tabs),
            (960, "Customize and control Google Chrome", "menu_button", "more", self._menu),
        )
        icons = [
            Node(
                "android.widget.ImageButton",
                (x, top + 22, x + 103, top + 125),
                desc=desc,
                rid=_rid(rid),
                package=PKG,
                on_tap=tap,
                role="icon",
                style=icon,
            )
            for x, desc, rid, icon, tap in buttons
        ]
        bar.children = [icons[0], field, *icons[1:]]
        ui.add(bar)
        root = self.web_node(dev, PKG, _rid("compositor_view_holder"), "chrome")
        root.cls = "android.widget.FrameLayout"  # Chrome's content view holds the page's WebView node
        ui.add(root)

    def page_view(self, dev: Device) -> WebView:
        return tab(dev).view

    def _home(self, dev: Device) -> str:
        data = _db(dev)
        data.url = data.path = ""
        return 'Tap "Open the home page" in Chrome'

    @staticmethod
    def _address() -> str:
        raise Inapplicable("the address bar takes no typed address here: pages open from the Files app")

    @staticmethod
    def _tabs() -> str:
        return 'Tap "Switch or close tabs" in Chrome (one tab)'

    @staticmethod
    def _menu() -> str:
        raise Inapplicable("Chrome's menu is not modelled")


class ChromeApp(App):
    requires = ("browser",)
    name = "chrome"
    label = LABEL
    package = PKG
    activity = ACTIVITY
    aliases = ("chrome", "google chrome")
    color = (66, 133, 244)
    icon = "chrome"
    layout = (("android.widget.FrameLayout", _rid("coordinator")),)

    def initial_data(self) -> Any:
        return ChromeData()

    def root(self, dev: Device) -> Screen:
        return TabScreen()
