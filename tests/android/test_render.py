"""Screenshots: type, size, determinism, that they follow the screen and the theme, and that
frames drawn incrementally equal fresh ones."""

from __future__ import annotations

from collections.abc import Iterator

import gymnasium as gym
import numpy as np
import pytest
from _util import TASK_IDS, find_el, make, tap

from gui_gym.android.sim.device import Device
from gui_gym.android.sim.render import Renderer
from gui_gym.android.ui import Node, to_xml
from tests.android.observation_record import Driver

LAUNCH = 'do(action="Launch", app="Contacts")'


@pytest.mark.parametrize("size", [(108, 240), (54, 120), (270, 600), (16, 16)])
def test_screenshot_dtype_and_shape(size: tuple[int, int]) -> None:
    env = make("ContactsAddContact", obs_mode="pixels", screen_size=size)
    obs, _ = env.reset(seed=0)
    for o in (obs, env.step(LAUNCH)[0]):
        img = o["screen"]
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8
        assert img.shape == (size[1], size[0], 3)
        assert env.observation_space["screen"].contains(img)


def test_screenshots_differ_between_screens() -> None:
    env = make("ContactsAddContact", obs_mode="pixels", screen_size=(108, 240))
    obs, _ = env.reset(seed=0)
    shots = [obs["screen"]]
    obs, _, _, _, info = env.step(LAUNCH)
    shots.append(obs["screen"])
    obs, _, _, _, info = env.step(tap(find_el(info, content_description="Create contact")))
    shots.append(obs["screen"])
    obs, _, _, _, info = env.step('do(action="Type", text="Sofia")')
    shots.append(obs["screen"])
    obs, _, _, _, info = env.step('do(action="Back")')  # keyboard hidden
    shots.append(obs["screen"])
    for i in range(len(shots)):
        for j in range(i + 1, len(shots)):
            assert not np.array_equal(shots[i], shots[j]), (i, j)


def test_screenshots_identical_for_identical_state() -> None:
    a = make("ContactsAddContact", obs_mode="both", screen_size=(108, 240), render_mode="rgb_array")
    b = make("ContactsAddContact", obs_mode="both", screen_size=(108, 240), render_mode="rgb_array")
    oa, _ = a.reset(seed=2)
    ob, _ = b.reset(seed=2)
    np.testing.assert_array_equal(oa["screen"], ob["screen"])
    for act in (LAUNCH, 'do(action="Swipe", direction="up")', 'do(action="Home")', LAUNCH):
        oa = a.step(act)[0]
        ob = b.step(act)[0]
        np.testing.assert_array_equal(oa["screen"], ob["screen"])
        np.testing.assert_array_equal(a.render(), oa["screen"])
    # the same state rendered by a fresh renderer (no cache) gives the same pixels
    fresh = Renderer((108, 240)).render(a.unwrapped.device.screen())
    np.testing.assert_array_equal(fresh, oa["screen"])
    # returned arrays are copies: scribbling on one does not change the next frame
    oa["screen"][:] = 0
    np.testing.assert_array_equal(a.unwrapped.observe()["screen"], ob["screen"])


def test_dark_theme_renders_darker() -> None:
    dev = Device()
    from gui_gym.android.actions import parse_action

    dev.act(parse_action(LAUNCH))
    r = Renderer((108, 240))
    light = r.render(dev.screen(), dark=False)
    dark = r.render(dev.screen(), dark=True)
    assert dark.mean() < light.mean() - 20
    assert not np.array_equal(light, dark)

    env = make("ContactsAddContact", obs_mode="pixels", screen_size=(108, 240))
    env.reset(seed=0)
    light_obs = env.step(LAUNCH)[0]["screen"]
    env.unwrapped.device.state.settings["dark_theme"] = True
    env.unwrapped.device.invalidate()
    dark_obs = env.unwrapped.observe()["screen"]
    assert dark_obs.mean() < light_obs.mean() - 20


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_every_oracle_screen_renders(task_id: str) -> None:
    env = make(task_id, obs_mode="both", screen_size=(54, 120))
    env.reset(seed=0)
    prev = None
    for _ in range(300):
        a = env.unwrapped.oracle_action()
        obs, _, term, trunc, _ = env.step(a)
        screen = env.unwrapped.device.screen()
        # what a picture shows (a video's frame) is in the pixels only: its key counts as the dump
        obs["whole"] = (to_xml(screen), [n.style for n in screen.walk() if n.role == "picture"])
        if term or trunc:
            break
        img = obs["screen"]
        assert img.shape == (120, 54, 3) and img.dtype == np.uint8
        assert img.min() < img.max(), f"blank frame after {a}"
        # The dump shows the active window only; the pixels show every window, so two frames
        # are compared when the whole screen (status bar and toasts included) is the same.
        if prev is not None and prev[0] == obs["whole"]:
            np.testing.assert_array_equal(prev[1], img)
        prev = (obs["whole"], img)


def test_cached_frames_match_uncached_renders() -> None:
    """The label, node and band caches never change a frame: compare every step of an episode
    with dialogs, pickers and the keyboard against a fresh renderer."""

    env = make("SimpleCalendarAddOneEvent", obs_mode="pixels", screen_size=(216, 480))
    obs, _ = env.reset(seed=3)
    done = False
    while not done:
        obs, _, term, trunc, _ = env.step(env.unwrapped.oracle_action())
        done = term or trunc
        fresh = Renderer((216, 480)).render(env.unwrapped.device.screen())
        assert np.array_equal(obs["screen"], fresh)


def _walk_frames(
    size: tuple[int, int], tasks: list[str], steps: int, seed: int
) -> Iterator[tuple[np.ndarray, Node, bool]]:
    """Random walks (the oracle, taps, long presses, typing, swipes, Back, app switches) over
    ``tasks``, with the dark theme switched now and then: yields (env frame, screen, dark)."""
    env = gym.make("GuiAndroid-v0", obs_mode="pixels", screen_size=size)
    rng = np.random.default_rng(seed)
    for k, task in enumerate(tasks):
        obs, info = env.reset(seed=seed + k, options={"task": task})
        driver = Driver(seed + k, "mixed")
        dev = env.unwrapped.device
        for _ in range(steps):
            if rng.random() < 0.12:  # the theme flips under an unchanged tree, and back
                dev.state.settings["dark_theme"] = not dev.state.settings.get("dark_theme")
                dev.invalidate()
                obs = env.unwrapped.observe()
            else:
                obs, _, term, trunc, info = env.step(driver.act(env, info))
                if term or trunc:
                    break
            yield obs["screen"], dev.screen(), bool(dev.state.settings.get("dark_theme"))
    env.close()


@pytest.mark.parametrize("size", [(216, 480), (131, 293)])
def test_incremental_frames_equal_fresh_renders(size: tuple[int, int]) -> None:
    """Frames drawn from a renderer's history (kept bands, cached bands, repainted bands) equal a
    fresh renderer's, over random walks through every task with dialogs, the keyboard, toasts and
    both themes; a small band cache (evicting all the time) too. No returned frame changes later."""
    tasks = sorted(TASK_IDS)
    small = Renderer(size, cache_frames=0.3)
    recent: list[tuple[np.ndarray, np.ndarray]] = []
    seen: set[str] = set()
    frames = 0
    for frame, screen, dark in _walk_frames(size, tasks, steps=12, seed=size[0]):
        fresh = Renderer(size).render(screen, dark=dark)
        np.testing.assert_array_equal(frame, fresh)
        np.testing.assert_array_equal(small.render(screen, dark=dark), fresh)
        recent = [*recent[-3:], (frame, frame.copy())]
        for returned, copy in recent:
            np.testing.assert_array_equal(returned, copy)
        seen |= {n.role for n in screen.walk()} | ({"dark"} if dark else set())
        frames += 1
    assert frames > 4 * len(tasks)
    assert {"scrim", "keyboard", "toast", "dark"} <= seen, "the walks missed a case they are meant to cover"


@pytest.mark.parametrize("size", [(16, 16), (270, 600)])
def test_every_op_writes_inside_its_reach(size: tuple[int, int]) -> None:
    """Repaints rest on each compiled op writing only inside its reach: painted alone on black
    and on white, no op changes a pixel outside it (at a tiny size too, where shapes overflow
    their boxes)."""
    from gui_gym.android.sim.render import _Item

    r = Renderer(size)
    for _frame, screen, dark in _walk_frames(size, sorted(TASK_IDS)[::3], steps=6, seed=7):
        r.render(screen, dark=dark)
    ops = [op for compiled in r._compiled for item in compiled.values() for op in item.ops]
    assert len(ops) > 50
    w, h = size
    for op in ops:
        l, t, rr, b = op[1]
        outside = np.ones((h, w), bool)
        outside[max(t, 0) : max(b, 0), max(l, 0) : max(rr, 0)] = False
        for bg in ((0, 0, 0), (255, 255, 255)):
            r._repaint((0, 0, w, h), [_Item(op[1], (op,))], bg)
            changed = (np.asarray(r._canvas) != bg).any(axis=2)
            assert not (changed & outside).any(), f"op {op[:3]} writes outside its reach {op[1]}"
