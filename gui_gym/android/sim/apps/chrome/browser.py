"""AndroidWorld's three browser tasks (``android_world/task_evals/single/browser.py``): BrowserMaze,
BrowserMultiply and BrowserDraw.

As AndroidWorld sets them up: the instance's ``browser_task_seed`` (one ``random.randint(0,
2**32 - 1)``) goes into ``task.html`` (:mod:`.pages`), written to the shared storage's Download
folder after the storage is wiped and Chrome's data cleared; the episode starts on the home screen,
and the agent opens the file from the Files app with Chrome. Success is AndroidWorld's check:
Chrome in front and an element on screen whose text is exactly "Success!" (the page puts it there
when the puzzle is solved). The step limits are AndroidWorld's (complexity 2, 2.2 for Multiply:
20 and 22 steps).

The pages run in a real headless Chromium, so these tasks are selected by id (or with
``task="androidworld-browser"``), never by ``"all"``.
"""

from __future__ import annotations

import random
from collections import deque
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.actions import Action, format_action
from gui_gym.android.sim.apps.chrome import pages
from gui_gym.android.sim.apps.chrome.app import ChromeData, tab
from gui_gym.android.sim.apps.files import data as files_data
from gui_gym.android.sim.apps.files.androidworld import browse_step, file_row, reveal_file_step
from gui_gym.android.sim.apps.markor.common import clear_device_storage
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask
from gui_gym.android.sim.tasks.base import Oracle, Params, in_app

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

FOLDER = "Download"
NAME = "task.html"
PREAMBLE = "Open the file task.html in Downloads in the file manager; when prompted open it with Chrome. "


def success_shown(dev: Device) -> bool:
    """``BrowserTask.is_successful``: Chrome in front and an element whose text is "Success!"."""
    if not in_app(dev, "chrome"):
        return False
    return any(n.text == pages.SUCCESS for w in dev.windows() for n in w.root.walk())


class BrowserTask(AndroidWorldTask):
    """One of the three pages (see the module)."""

    app = "chrome"
    apps: ClassVar[tuple[str, ...]] = ("chrome", "files")
    requires: ClassVar[tuple[str, ...]] = ("browser",)
    subsets: ClassVar[tuple[str, ...]] = ("androidworld-browser",)
    step_limit: ClassVar[int | None] = 20

    def generate(self, r: random.Random) -> Params:
        return {"browser_task_seed": r.randint(0, 2**32 - 1)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        clear_device_storage(dev)
        dev.state.data["chrome"] = ChromeData()  # pm clear com.android.chrome
        files_data.mkdir(dev, FOLDER)
        files_data.write(dev, f"{FOLDER}/{NAME}", pages.page(self.id, params["browser_task_seed"]), dev.state.now)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return success_shown(dev)

    # -- the oracle ----------------------------------------------------------------------
    def oracle(self, o: Oracle) -> str:
        if success_shown(o.dev):
            return o.finish()
        if not _page_open(o.dev):
            return _open_step(o)
        return self.solve(o)

    def solve(self, o: Oracle) -> str:
        raise NotImplementedError


def _page_open(dev: Device) -> bool:
    data = dev.state.data.get("chrome")
    return (
        in_app(dev, "chrome")
        and data is not None
        and data.path == f"{FOLDER}/{NAME}"
        and dev.top_screen().dialog is None
    )


def _open_step(o: Oracle) -> str:
    """One step toward the task page in Chrome: the Files app, Download, the file, Chrome."""
    dialog = o.dialog
    if in_app(o.dev, "files") and isinstance(dialog, MenuDialog) and dialog.title == "Open with":
        return o.tap(o.find("Chrome"))
    step = browse_step(o, FOLDER)
    if step is not None:
        return step
    step = reveal_file_step(o, FOLDER, NAME)
    return step if step is not None else o.tap(file_row(o, NAME))


def _page(o: Oracle, expression: str) -> object:
    return tab(o.dev).view.read(expression)


def _tap_page(o: Oracle, rect: list[float]) -> str:
    view = tab(o.dev).view
    box = view.frame.to_screen(rect)
    return o.swipe("up") if box is None else format_action(Action("tap", element=box))


_BUTTON = (
    "(() => {{ const b = Array.from(document.querySelectorAll('button'))"
    ".find(e => e.textContent.trim() === {label!r}); if (!b) return null;"
    " const r = b.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }})()"
)


class BrowserMaze(BrowserTask):
    id = "BrowserMaze"
    difficulty = "easy"
    optimal_steps = 9
    tags = ("game_playing", "multi_app", "complex_ui_understanding", "memorization", "parameterized")
    template = PREAMBLE + "Then navigate the X to the bottom-right cell, by using the direction buttons."

    def solve(self, o: Oracle) -> str:
        grid = pages.puzzle(self.id, o.p["browser_task_seed"])
        at = _page(  # where the X is, read from the maze's cells
            o,
            "(() => { const rows = Array.from(document.querySelectorAll('#maze .row'));"
            " for (let r = 0; r < rows.length; r++) { const c = Array.from(rows[r].children)"
            ".findIndex(e => e.textContent.trim() === 'X'); if (c >= 0) return [r, c]; } return null; })()",
        )
        if not isinstance(at, list):
            return o.finish()
        move = _first_move(grid, (at[0], at[1]))
        rect = _page(o, _BUTTON.format(label=move))
        return _tap_page(o, rect) if isinstance(rect, list) else o.finish()


def _first_move(grid: list[str], start: tuple[int, int]) -> str:
    """The first button of a shortest way from ``start`` to the goal through open cells."""
    n = len(grid)
    goal = (n - 1, n - 1)
    moves = (("Up", -1, 0), ("Down", 1, 0), ("Left", 0, -1), ("Right", 0, 1))
    first: dict[tuple[int, int], str] = {start: ""}
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        if (r, c) == goal:
            return first[(r, c)]
        for name, dr, dc in moves:
            nr, nc = r + dr, c + dc
            if 0 <= nr < n and 0 <= nc < n and grid[nr][nc] != "#" and (nr, nc) not in first:
                first[(nr, nc)] = first[(r, c)] or name
                queue.append((nr, nc))
    return "Right"


class BrowserMultiply(BrowserTask):
    id = "BrowserMultiply"
    difficulty = "hard"
    optimal_steps = 11
    tags = ("math_counting", "memorization", "screen_reading")
    template = (
        PREAMBLE + "Then click the button 5 times, remember the numbers displayed, and enter their product in the form."
    )
    step_limit: ClassVar[int | None] = 22

    def solve(self, o: Oracle) -> str:
        numbers = pages.puzzle(self.id, o.p["browser_task_seed"])
        product = 1
        for n in numbers:
            product *= n
        shown = _page(o, "getComputedStyle(document.getElementById('form')).display !== 'none'")
        if not shown:
            return _tap_page(o, _page(o, _BUTTON.format(label="Click Me")))
        field = _page(
            o,
            "(() => { const e = document.getElementById('answer'), r = e.getBoundingClientRect();"
            " return [r.left, r.top, r.right, r.bottom, e.value, document.activeElement === e]; })()",
        )
        if field[4] != str(product):
            if not field[5]:
                return _tap_page(o, field[:4])
            return o.type(str(product))
        return _tap_page(o, _page(o, _BUTTON.format(label="Submit")))


class BrowserDraw(BrowserTask):
    id = "BrowserDraw"
    difficulty = "easy"
    optimal_steps = 5
    tags = ("game_playing", "parameterized")
    template = PREAMBLE + "Then create a drawing using the three colors shown at the top and hit submit."

    def solve(self, o: Oracle) -> str:
        colors = pages.puzzle(self.id, o.p["browser_task_seed"])
        state = _page(
            o,
            "(() => { const c = document.getElementById('canvas');"
            " const d = c.getContext('2d').getImageData(0, 0, 300, 300).data;"
            " const seen = new Set(); for (let i = 0; i < d.length; i += 4) seen.add('#' + [d[i], d[i+1], d[i+2]]"
            ".map(v => v.toString(16).padStart(2, '0')).join(''));"
            " const r = c.getBoundingClientRect(), used = [];"
            " for (let y = 0; y < 300; y++) {"
            "   for (let x = 0; x < 300; x++) { if (d[(y * 300 + x) * 4 + 3]) { used.push(y); break; } } }"
            " const box = [r.left, r.top, r.right, r.bottom];"
            " return [Array.from(seen), c.getContext('2d').strokeStyle, box, used]; })()",
        )
        seen, stroke, canvas, used = state
        for k, color in enumerate(colors):
            if color in seen:
                continue
            if stroke != color:  # pick the colour first
                rect = _page(
                    o,
                    "(() => { const b = Array.from(document.querySelectorAll('.color-button'))"
                    f".find(e => getComputedStyle(e).backgroundColor === {_rgb(color)!r});"
                    " const r = b.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()",
                )
                return _tap_page(o, rect)
            view = tab(o.dev).view
            box = view.frame.to_screen(canvas)
            if box is None:
                return o.swipe("down")
            l, t, r, b = box
            band = range(t + (b - t) * k // 3 + 4, t + (b - t) * (k + 1) // 3 - 4)
            y = _row_centre(view.frame, canvas, band, set(used))
            return format_action(Action("swipe", point=(l + (r - l) // 5, y), end=(r - (r - l) // 5, y)))
        return _tap_page(o, _page(o, _BUTTON.format(label="Submit")))


def _row_centre(frame: object, canvas: list[float], rows: range, used: set[int]) -> int:
    """The screen row of ``rows`` whose line lands closest to the middle of a canvas pixel row
    nothing is drawn on or beside yet: a 1-pixel line there covers that row almost whole, so its
    pixels take the colour itself rather than an anti-aliased blend (the page maps a touch to
    ``(y - top) * 300 / height`` of the canvas's border box). A colour the canvas's rounding still
    misses is drawn again on the next such row."""
    top, height = canvas[1], canvas[3] - canvas[1]

    def canvas_row(y: int) -> float:
        return ((y - frame.top) / frame.zoom - top) * 300 / height  # type: ignore[attr-defined]

    free = [y for y in rows if not used & {int(canvas_row(y)) + d for d in (-1, 0, 1)}]
    return min(free or list(rows), key=lambda y: abs(canvas_row(y) % 1 - 0.5))


def _rgb(color: str) -> str:
    """``#rrggbb`` as a computed style writes it."""
    return f"rgb({int(color[1:3], 16)}, {int(color[3:5], 16)}, {int(color[5:7], 16)})"


TEMPLATES = [BrowserMaze, BrowserMultiply, BrowserDraw]
