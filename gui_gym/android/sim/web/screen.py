"""A screen that shows a page: the input a finger and a keyboard give a WebView or a browser tab.

:class:`PageScreen` is what the Miniwob app's activity and Chrome's tab share: a tap on the page is
the page's tap (a list, a date or a time field opens Android's own picker instead), a long press a
held touch, a swipe or scroll a finger moving on the page, typing key input into the page's focused
field, Enter the page's Enter; the page's focus is the screen's (an editable element focused raises
the keyboard). A subclass builds the screen (:meth:`web_node` gives the page's node) and says where
its page is (:meth:`page_view`, :attr:`frame`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.sim.key_input import CLEAR_ALL
from gui_gym.android.sim.web.pickers import PagePickers, open_picker, picker_at
from gui_gym.android.sim.widgets import Inapplicable, Screen

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.web.webview import Frame, WebView
    from gui_gym.android.ui import Node

LONG_PRESS_MS = 600.0
_BAD = frozenset(chr(c) for c in range(0x20) if c not in (0x09, 0x0A)) | {"\ufffe", "\uffff"}


def finger_path(start: tuple[int, int], end: tuple[int, int], steps: int = 8) -> list[tuple[int, int]]:
    """The points a finger moving from ``start`` to ``end`` passes (screen pixels)."""
    (x0, y0), (x1, y1) = start, end
    return [(round(x0 + (x1 - x0) * i / steps), round(y0 + (y1 - y0) * i / steps)) for i in range(steps + 1)]


def check_text(text: str) -> None:
    """Refuse what a keyboard cannot type (control characters, lone surrogates)."""
    bad = [c for c in text if c in _BAD or 0xD800 <= ord(c) <= 0xDFFF]
    if bad:
        raise Inapplicable(f"text contains characters a keyboard cannot type: {bad[:3]!r}")


class PageScreen(PagePickers, Screen):
    """A screen whose content is a page (see the module)."""

    #: where the page is on screen and its zoom
    frame: ClassVar[Frame]

    def page_view(self, dev: Device) -> WebView:
        raise NotImplementedError

    def web_node(self, dev: Device, package: str, rid: str, key: str) -> Node:
        """The page's node: its picture is the page's pixels (keyed by ``key`` and the page's
        version), a touch, a long press or a scroll on it is the page's."""
        view = self.page_view(dev)
        root = view.nodes(package, rid)
        root.picture = view.screenshot
        root.role = "picture"
        root.style = ("fit", key, id(view), view.version)
        root.on_tap = lambda: self._touch(dev, view, 0.0)
        root.on_long_press = lambda: self._touch(dev, view, LONG_PRESS_MS)
        root.on_scroll = lambda direction, frac: self._scroll(dev, view, direction, frac)
        return root

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
        f = self.frame
        x, y = dev.touch_point or ((f.left + f.right) // 2, (f.top + f.bottom) // 2)
        span = (f.bottom - f.top) if direction in ("up", "down") else (f.right - f.left)
        dist = max(1, int(span * frac * 0.6))
        end = {"down": (x, y - dist), "up": (x, y + dist), "right": (x - dist, y), "left": (x + dist, y)}[direction]
        end = (min(max(end[0], f.left), f.right - 1), min(max(end[1], f.top), f.bottom - 1))
        before = view.scroll_offsets()
        view.touch(finger_path((x, y), end))
        self._follow_focus(dev, view)
        return view.scroll_offsets() != before

    def _inside(self, point: tuple[int, int]) -> bool:
        f = self.frame
        return f.left <= point[0] < f.right and f.top <= point[1] < f.bottom

    def on_gesture(self, dev: Device, points: list[tuple[int, int]]) -> str | None:
        if not self._inside(points[0]):
            return None
        view = self.page_view(dev)
        view.touch(finger_path(points[0], points[-1]) if len(points) == 2 else points)
        self._follow_focus(dev, view)
        (x0, y0), (x1, y1) = points[0], points[-1]
        return f"Swipe on the page from ({x0}, {y0}) to ({x1}, {y1})"

    def check_input_text(self, dev: Device, point: tuple[int, int] | None, text: str) -> None:
        view = self.page_view(dev)
        if point is not None and self._inside(point) and not view.editable_at(*point):
            raise Inapplicable("input_text needs a text field: the page has none at its target")
        if point is None and not view.focused_editable():
            raise Inapplicable("input_text needs a text field: nothing on the page takes text")
        check_text(text)

    def on_key_input(self, dev: Device, key: str, text: str, delete: int, enter: bool) -> str | None:
        view = self.page_view(dev)
        if not view.focused_editable():
            self.focus = None
            raise Inapplicable("no text field has focus on the page: tap a field first")
        check_text(text)

        old = view.focused_value()
        if not text and (not old or delete == 0):
            raise Inapplicable("nothing to type")
        clear = delete >= CLEAR_ALL
        view.type(text.replace("\n", ""), delete=0 if clear else min(delete, len(old)), select_all=clear)
        dev.state.keyboard = True
        done = f'Type "{text}" into the page\'s field' if text else "Delete text in the page's field"
        if enter:
            view.enter()
            done += ", then Enter"
        self._follow_focus(dev, view)
        return done

    def on_enter(self, dev: Device, key: str) -> str | None:
        view = self.page_view(dev)
        view.enter()
        self._follow_focus(dev, view)
        return "Press Enter"

    # -- helpers -------------------------------------------------------------------------
    def claim_focus(self, dev: Device) -> bool:
        """Take the focus a page gave a field by itself (see :meth:`Device.key_target`)."""
        self._follow_focus(dev, self.page_view(dev))
        return self.focus is not None

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
        page = view.tree().get("tree")  # the page's nodes as read for this step's dump: no second build
        stack = [page] if page is not None else []
        while stack:
            _role, text, desc, _flags, rect, kids, _hint, _id = stack.pop()
            box = view.frame.to_screen(rect)
            if box is None or not (box[0] <= point[0] < box[2] and box[1] <= point[1] < box[3]):
                continue
            if text or desc:
                best = text or desc
            stack.extend(kids)
        return best[:60]
