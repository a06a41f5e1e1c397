"""Screenshots: type, size, determinism, and that they follow the screen and the theme."""

from __future__ import annotations

import numpy as np
import pytest
from _util import TASK_IDS, find_el, make, tap

from gui_gym.android.sim.device import Device
from gui_gym.android.sim.render import Renderer
from gui_gym.android.ui import to_xml

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
        obs["whole"] = to_xml(env.unwrapped.device.screen())
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
    """The label and dimmed-layer caches never change a frame: compare every step of an episode
    with dialogs, pickers and the keyboard against a fresh renderer."""

    env = make("SimpleCalendarAddOneEvent", obs_mode="pixels", screen_size=(216, 480))
    obs, _ = env.reset(seed=3)
    done = False
    while not done:
        obs, _, term, trunc, _ = env.step(env.unwrapped.oracle_action())
        done = term or trunc
        fresh = Renderer((216, 480)).render(env.unwrapped.device.screen())
        assert np.array_equal(obs["screen"], fresh)
