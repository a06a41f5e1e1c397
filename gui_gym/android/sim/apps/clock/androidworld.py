"""AndroidWorld's Clock tasks (``task_evals/single/clock.py``): the stopwatch running or paused,
and a timer entered on the keypad but not started.

AndroidWorld starts each of them with ``pm clear com.google.android.deskclock`` (the app's data
wiped: no timer, the stopwatch reset at 00:00 and not running) and judges them on the screen,
not on stored data: the current activity must be DeskClock and the accessibility elements it
reads (``state.ui_elements``: text and content description) must show the state. :func:`judge`
reads the same elements from the simulated screen and applies the same rules, so a verdict here
is the one AndroidWorld's code gives for this screen.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.forest import UIElement, window_elements
from gui_gym.android.sim.apps.clock.app import ClockData, ClockMain, entry_parts
from gui_gym.android.sim.apps.clock.tasks import clock_tab, in_clock, on_tab
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device


def db(dev: Device) -> ClockData:
    return dev.data("clock")


def current_activity(dev: Device) -> str:
    """What ``adb_utils.get_current_activity`` reports: the visible app's activity (the launcher
    while no app is in front)."""
    app = dev.app() if not dev.state.recents_open else None
    if app is None:
        return "com.google.android.apps.nexuslauncher/com.android.launcher3.uioverrides.QuickstepLauncher"
    return f"{app.package}/{app.activity}"


def ui_elements(dev: Device) -> list[UIElement]:
    """``env.get_state().ui_elements``: the screen's accessibility elements, invisible ones left out."""
    return [e.element for e in window_elements(dev.windows(), exclude_invisible=True)]


def clear_clock(dev: Device) -> None:
    """``pm clear com.google.android.deskclock``: the app's data as installed, the app closed."""
    dev.state.data["clock"] = dev.apps["clock"].initial_data()
    dev.state.stacks.pop("clock", None)
    if dev.state.foreground == "clock":
        dev.state.foreground = None
    dev.invalidate()


# -- AndroidWorld's screen rules (``clock.py``: _is_stopwatch_running, _is_stopwatch_paused, _is_timer_set)


def stopwatch_running(elements: list[UIElement], activity: str) -> bool:
    """Elements described "Pause" and "Lap" on DeskClock."""
    if "DeskClock" not in activity:
        return False
    descs = {e.content_description for e in elements}
    return "Pause" in descs and "Lap" in descs


def stopwatch_paused(elements: list[UIElement], activity: str) -> bool:
    """An element described "Start" and at least two elements described or reading "Stopwatch"."""
    if "DeskClock" not in activity:
        return False
    start, named = False, 0
    for e in elements:
        if e.content_description == "Start":
            start = True
        elif e.content_description == "Stopwatch" or e.text == "Stopwatch":
            named += 1
    return start and named >= 2


def timer_set(elements: list[UIElement], activity: str, hours: int, minutes: int, seconds: int) -> bool:
    """An element reading ``HHh MMm SSs`` or described ``H hours, M minutes, S seconds``."""
    if "DeskClock" not in activity:
        return False
    text = f"{hours:02d}h {minutes:02d}m {seconds:02d}s"
    desc = f"{hours} hours, {minutes} minutes, {seconds} seconds"
    return any(e.text == text or e.content_description == desc for e in elements)


class _ClockTask(AndroidWorldTask):
    app = "clock"
    apps = ("clock",)
    difficulty = "easy"

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        clear_clock(dev)


class ClockStopWatchRunning(_ClockTask):
    id = "ClockStopWatchRunning"
    template = "Run the stopwatch."
    optimal_steps = 3
    tags = ("",)
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone("Open the Stopwatch tab", lambda d, p: on_tab(d, "Stopwatch") or db(d).sw_running),
        Milestone("Start the stopwatch", lambda d, p: db(d).sw_running),
    )

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return stopwatch_running(ui_elements(dev), current_activity(dev))

    def oracle(self, o: Oracle) -> str:
        act = clock_tab(o, "Stopwatch")
        if act is not None:
            return act
        if db(o.dev).sw_running:
            return o.finish()
        return o.tap(o.find(desc="Start", role="fab"))


class ClockStopWatchPausedVerify(_ClockTask):
    """The stopwatch starts reset (not running), so it is paused once the Stopwatch tab shows it."""

    id = "ClockStopWatchPausedVerify"
    template = "Pause the stopwatch."
    optimal_steps = 1
    tags = ("verification",)
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone("Open the Stopwatch tab with the stopwatch paused", lambda d, p: on_stopwatch(d, running=False)),
    )

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return stopwatch_paused(ui_elements(dev), current_activity(dev))

    def oracle(self, o: Oracle) -> str:
        act = clock_tab(o, "Stopwatch")
        if act is not None:
            return act
        if db(o.dev).sw_running:
            return o.tap(o.find(desc="Pause", role="fab"))
        return o.finish()


def on_stopwatch(dev: Device, running: bool) -> bool:
    """Clock is in front on its Stopwatch tab, the stopwatch running (or not)."""
    s = dev.top_screen()
    return (
        in_clock(dev)
        and isinstance(s, ClockMain)
        and s.tab == "Stopwatch"
        and s.dialog is None
        and db(dev).sw_running == running
    )


def entry_is(dev: Device, p: Params) -> bool:
    """The timer keypad holds the asked time and no timer was started from it."""
    d = db(dev)
    return d.timer is None and entry_parts(d.timer_entry) == (p["hours"], p["minutes"], p["seconds"])


def keypad_digits(p: Params) -> str:
    """The keys that enter ``hours``, ``minutes``, ``seconds`` from an empty keypad (leading zeros
    are not typed: a first 0 does nothing)."""
    return f"{p['hours']:02d}{p['minutes']:02d}{p['seconds']:02d}".lstrip("0")


class ClockTimerEntry(_ClockTask):
    id = "ClockTimerEntry"
    template = "Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds. Do not start the timer."
    optimal_steps = 3
    tags = ("data_entry", "parameterized")
    placeholders: ClassVar[dict[str, str]] = {"Hours": "hours", "Minutes": "minutes", "Seconds": "seconds"}
    milestones = (
        Milestone("Open the Clock app", lambda d, p: in_clock(d)),
        Milestone("Open the Timer tab", lambda d, p: on_tab(d, "Timer")),
        Milestone(
            "Enter <Hours> hours, <Minutes> minutes and <Seconds> seconds on the timer keypad",
            lambda d, p: entry_is(d, p),
        ),
    )

    def generate(self, r: random.Random) -> Params:
        hours = r.randint(0, 23)
        minutes = r.randint(0, 59)
        seconds = r.randint(0, 59)
        return {"hours": hours, "minutes": minutes, "seconds": seconds}

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return timer_set(ui_elements(dev), current_activity(dev), params["hours"], params["minutes"], params["seconds"])

    def oracle(self, o: Oracle) -> str:
        act = clock_tab(o, "Timer")
        if act is not None:
            return act
        d, want = db(o.dev), keypad_digits(o.p)
        if d.timer is not None:  # a started timer: delete it to get the keypad back
            return o.tap(o.find("Delete", role="textbutton"))
        if d.timer_entry == want:
            return o.finish()
        if not want.startswith(d.timer_entry):
            return o.tap(o.find(desc="Delete", role="icon"))
        return o.tap(o.find(want[len(d.timer_entry)], role="button"))


TEMPLATES = (ClockStopWatchPausedVerify, ClockStopWatchRunning, ClockTimerEntry)
