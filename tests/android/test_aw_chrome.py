"""AndroidWorld's browser tasks: BrowserMaze, BrowserMultiply, BrowserDraw.

The puzzles are AndroidWorld's for a seed: the examples below were computed from its pages' logic
(``android_world/task_evals/single/browser.py`` at d9c569f7: one LCG, the maze's shuffled depth-first
search, the five numbers, three colours without replacement). The episodes open ``task.html`` from
the Files app with Chrome and solve it in a real headless Chromium; success is AndroidWorld's check
(Chrome in front and an element reading "Success!").
"""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import pytest

from gui_gym.android.sim.apps.chrome import pages
from gui_gym.android.sim.apps.chrome.app import FRAME, page_frame, tab
from gui_gym.android.sim.apps.chrome.browser import success_shown
from gui_gym.android.sim.web.chromium import Chromium


def test_puzzles_are_androidworlds() -> None:
    assert pages.puzzle("BrowserMaze", 1) == [" ###", " ###", " ###", "   $"]
    assert pages.puzzle("BrowserMaze", 0) == ["    ", "##  ", "## #", "## $"]
    assert pages.puzzle("BrowserMultiply", 0) == [3, 3, 9, 7, 4]
    assert pages.puzzle("BrowserMultiply", 1) == [3, 4, 6, 8, 1]
    assert pages.puzzle("BrowserMultiply", 42) == [3, 1, 6, 3, 4]
    assert pages.puzzle("BrowserDraw", 0) == ["#00ffff", "#008000", "#9400d3"]
    assert pages.puzzle("BrowserDraw", 1) == ["#00ffff", "#808000", "#ff1493"]
    assert pages.puzzle("BrowserDraw", 12345) == ["#ff0000", "#00ff00", "#ff1493"]


def test_the_pages_draw_what_the_puzzles_say(chromium_present: None, tmp_path) -> None:
    with Chromium(width=411, height=778) as browser:
        for seed in (0, 7, 3626764237):
            for task, read in (
                ("BrowserMaze", "grid.map(r => r.join(''))"),
                ("BrowserDraw", "task"),
            ):
                page = tmp_path / f"{task}{seed}.html"
                page.write_bytes(pages.page(task, seed))
                browser.navigate(page.as_uri())
                assert browser.evaluate(read) == pages.puzzle(task, seed), (task, seed)
            page = tmp_path / f"m{seed}.html"
            page.write_bytes(pages.page("BrowserMultiply", seed))
            browser.navigate(page.as_uri())
            for _ in range(4):
                browser.evaluate("clicked()")
            assert browser.evaluate("numbers") == pages.puzzle("BrowserMultiply", seed)


@pytest.fixture(scope="module")
def env(chromium_present: None) -> Iterator[gym.Env]:
    e = gym.make("GuiAndroid-v0", task="BrowserMaze,BrowserMultiply,BrowserDraw")
    yield e
    e.close()


@pytest.mark.parametrize("task", ["BrowserMaze", "BrowserMultiply", "BrowserDraw"])
def test_the_oracle_opens_the_file_with_chrome_and_solves_it(env: gym.Env, task: str) -> None:
    limit = 22 if task == "BrowserMultiply" else 20
    for seed in (0, 1):
        _, info = env.reset(options={"task": task, "params": {"seed": seed}})
        assert info["instruction"].startswith("Open the file task.html in Downloads in the file manager")
        dev = env.unwrapped.device
        assert dev.state.foreground is None  # AndroidWorld starts these on the home screen
        descriptions = []
        for _ in range(limit):
            _, reward, terminated, truncated, info = env.step(env.unwrapped.oracle_action())
            descriptions.append(info["action_description"])
            if terminated or truncated:
                break
        assert info["success"] and reward == 1.0, (task, seed, descriptions)
        assert any("open with" in d for d in descriptions) and any("with Chrome" in d for d in descriptions)


def test_success_needs_chrome_in_front(env: gym.Env) -> None:
    env.reset(options={"task": "BrowserMaze", "params": {"seed": 3}})
    dev = env.unwrapped.device
    for _ in range(20):
        if success_shown(dev):
            break
        env.step(env.unwrapped.oracle_action())
    assert success_shown(dev)
    env.step('do(action="Home")')
    assert not success_shown(dev)  # the page still says it, behind the home screen


def test_files_offers_chrome_for_a_web_page_only(env: gym.Env) -> None:
    env.reset(options={"task": "BrowserMultiply", "params": {"seed": 0}})
    dev = env.unwrapped.device
    for _ in range(10):
        screen = dev.top_screen()
        if screen is not None and getattr(screen.dialog, "title", "") == "Open with":
            break
        env.step(env.unwrapped.oracle_action())
    dialog = dev.top_screen().dialog
    assert dialog is not None and dialog.title == "Open with" and [i[0] for i in dialog.items] == ["Chrome"]


@pytest.mark.parametrize("task, width", [("BrowserMaze", 980), ("BrowserMultiply", 980), ("BrowserDraw", 411)])
def test_chrome_lays_a_page_out_as_its_viewport_tag_says(env: gym.Env, task: str, width: int) -> None:
    """No viewport tag (the maze and multiplication pages): 980 CSS pixels zoomed out to the
    screen; ``width=device-width`` (the drawing page): the screen's 411."""
    env.reset(options={"task": task, "params": {"seed": 0}})
    dev = env.unwrapped.device
    for _ in range(10):
        if dev.state.foreground == "chrome":
            break
        env.step(env.unwrapped.oracle_action())
    dev.windows()  # the tab shows the page
    view = tab(dev).view
    assert view.browser.evaluate("window.innerWidth") == width
    assert view.frame.zoom * width == pytest.approx(FRAME.right - FRAME.left, abs=1)  # 411 CSS px: 1078.9
    assert (view.frame.left, view.frame.top, view.frame.right, view.frame.bottom) == (
        FRAME.left,
        FRAME.top,
        FRAME.right,
        FRAME.bottom,
    )


def test_page_frame_follows_the_layout_width() -> None:
    assert page_frame(0) is FRAME and page_frame(None) is FRAME  # the screen's width
    assert page_frame(980).zoom == pytest.approx((FRAME.right - FRAME.left) / 980)
    assert page_frame(600).bottom == FRAME.bottom
