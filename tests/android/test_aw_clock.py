"""AndroidWorld's Clock tasks on the simulated phone: the oracle solves seeds 0-29 through the env,
idling fails, near misses fail, and the screen rules judge as AndroidWorld's ``clock.py`` does."""

from __future__ import annotations

import random

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import Action, format_action
from gui_gym.android.forest import BoundingBox, UIElement
from gui_gym.android.sim.apps.clock.androidworld import (
    ClockTimerEntry,
    db,
    stopwatch_paused,
    stopwatch_running,
    timer_set,
    ui_elements,
)
from gui_gym.android.sim.apps.clock.app import ClockMain, setup_description, setup_text

TASK_IDS = ("ClockStopWatchPausedVerify", "ClockStopWatchRunning", "ClockTimerEntry")
DESK_CLOCK = "com.google.android.deskclock/com.android.deskclock.DeskClock"


def _env(task_id: str) -> gym.Env:
    return gym.make("GuiAndroid-v0", task=task_id)


def _reset(env: gym.Env, seed: int) -> dict:
    _, info = env.reset(options={"params": {"seed": seed}})
    return info


def _oracle(env: gym.Env, until: str | None = None) -> dict:
    """Step the oracle to the end (or up to, not including, its first action starting ``until``)."""
    info: dict = {}
    for _ in range(60):
        action = env.unwrapped.oracle_action()
        if until is not None and action.startswith(until):
            return info
        _, _, term, trunc, info = env.step(action)
        if term or trunc:
            return info
    raise AssertionError("the oracle did not end")


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_oracle_solves_every_seed(task_id: str) -> None:
    env = _env(task_id)
    for seed in range(30):
        _reset(env, seed)
        info = _oracle(env)
        assert info["success"] is True, f"{task_id} seed {seed}"
        assert info["progress"] == 1.0, f"{task_id} seed {seed}"


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_idle_fails(task_id: str) -> None:
    env = _env(task_id)
    for seed in range(3):
        _reset(env, seed)
        _, reward, term, _, info = env.step("finish()")
        assert term and info["success"] is False and reward == 0.0


def test_every_task_starts_from_cleared_clock_data() -> None:
    """``pm clear com.google.android.deskclock``: no timer, the stopwatch reset and not running."""
    for task_id in TASK_IDS:
        env = _env(task_id)
        _reset(env, 4)
        d = db(env.unwrapped.device)
        assert (d.sw_running, d.sw_base, d.laps, d.timer, d.timer_entry, d.alarms) == (False, 0, [], None, "", [])


def test_running_near_misses_fail() -> None:
    env = _env("ClockStopWatchRunning")
    _reset(env, 0)
    _oracle(env, until="finish")
    dev = env.unwrapped.device
    assert env.unwrapped.task.check(dev, env.unwrapped.params, None, None)
    env.step(format_action(Action("home")))  # running, but Clock is not in front
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False


def test_running_then_paused_fails_running_and_passes_paused() -> None:
    env = _env("ClockStopWatchRunning")
    _reset(env, 1)
    _oracle(env, until="finish")
    dev = env.unwrapped.device
    screen = dev.top_screen()
    assert isinstance(screen, ClockMain) and screen.tab == "Stopwatch"
    pause = next(n for n in dev.elements() if n.desc == "Pause")
    env.step(f'do(action="Tap", element=[{",".join(map(str, pause.bounds))}])')
    els = ui_elements(dev)
    assert not stopwatch_running(els, DESK_CLOCK) and stopwatch_paused(els, DESK_CLOCK)


def test_paused_verify_needs_the_stopwatch_not_running() -> None:
    env = _env("ClockStopWatchPausedVerify")
    _reset(env, 2)
    _oracle(env, until="finish")
    dev = env.unwrapped.device
    start = next(n for n in dev.elements() if n.desc == "Start")
    env.step(f'do(action="Tap", element=[{",".join(map(str, start.bounds))}])')  # now it runs: not paused
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False


def test_timer_near_misses_fail() -> None:
    env = _env("ClockTimerEntry")
    # A wrong entry: the oracle's entry with its last key deleted.
    _reset(env, 0)
    _oracle(env, until="finish")
    task, dev, p = env.unwrapped.task, env.unwrapped.device, env.unwrapped.params
    assert task.check(dev, p, None, None)
    delete = next(n for n in dev.elements() if n.desc == "Delete" and n.role == "icon")
    env.step(f'do(action="Tap", element=[{",".join(map(str, delete.bounds))}])')
    assert not task.check(dev, p, None, None)
    # The right entry, started: the keypad's display is gone.
    _reset(env, 0)
    _oracle(env, until="finish")
    start = next(n for n in env.unwrapped.device.elements() if n.desc == "Start")
    env.step(f'do(action="Tap", element=[{",".join(map(str, start.bounds))}])')
    _, _, term, _, info = env.step("finish()")
    assert term and info["success"] is False


def test_timer_draws_and_display_are_androidworlds() -> None:
    # clock.py ClockTimerEntry.generate_random_params: randint(0, 23), randint(0, 59), randint(0, 59)
    # on the seeded generator, in that order.
    r = random.Random(0)
    want = {"hours": r.randint(0, 23), "minutes": r.randint(0, 59), "seconds": r.randint(0, 59)}
    assert want == {"hours": 12, "minutes": 48, "seconds": 56}
    assert ClockTimerEntry().sample_seed(0) == {**want, "seed": 0}
    # The keypad's display as DeskClock shows and describes it; clock.py _is_timer_set accepts
    # the text "01h 05m 09s" or the (unpluralised) description "1 hours, 5 minutes, 9 seconds".
    assert setup_text(1, 5, 9) == "01h 05m 09s"
    assert setup_description(1, 5, 9) == "1 hour, 5 minutes, 9 seconds"
    text_only = [UIElement(text="01h 05m 09s")]
    desc_only = [UIElement(content_description="1 hours, 5 minutes, 9 seconds")]
    plural = [UIElement(content_description="1 hour, 5 minutes, 9 seconds")]
    assert timer_set(text_only, DESK_CLOCK, 1, 5, 9) and timer_set(desc_only, DESK_CLOCK, 1, 5, 9)
    assert not timer_set(plural, DESK_CLOCK, 1, 5, 9)
    assert not timer_set(text_only, "com.android.launcher3/.Launcher", 1, 5, 9)


def test_stopwatch_rules_are_androidworlds() -> None:
    """clock.py _is_stopwatch_paused: "Start" plus two elements named "Stopwatch" (an element
    described "Start" counts only as the Start button); _is_stopwatch_running: "Pause" and "Lap"."""
    box = BoundingBox(0, 10, 0, 10)
    nav = [UIElement(content_description="Stopwatch", bbox_pixels=box), UIElement(text="Stopwatch")]
    assert stopwatch_paused([UIElement(content_description="Start"), *nav], DESK_CLOCK)
    assert not stopwatch_paused([UIElement(content_description="Start"), nav[0]], DESK_CLOCK)
    assert not stopwatch_paused([UIElement(content_description="Start", text="Stopwatch"), nav[0]], DESK_CLOCK)
    assert stopwatch_running(
        [UIElement(content_description="Pause"), UIElement(content_description="Lap")], "DeskClock"
    )
    assert not stopwatch_running([UIElement(content_description="Pause"), UIElement(text="Lap")], "DeskClock")


def test_the_navigation_bar_names_each_tab_twice() -> None:
    """A Material navigation item is described by its title and holds a label with it: on any tab
    the "Stopwatch" item alone gives the two elements _is_stopwatch_paused counts."""
    env = _env("ClockStopWatchPausedVerify")
    _reset(env, 0)
    env.step('do(action="Launch", app="Clock")')
    els = ui_elements(env.unwrapped.device)
    named = [e for e in els if "Stopwatch" in (e.text, e.content_description)]
    assert [(e.text, e.content_description) for e in named] == [(None, "Stopwatch"), ("Stopwatch", None)]
