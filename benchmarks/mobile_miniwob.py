"""MobileMiniWoB++ speed: the phone's MiniWoB tasks (``GuiAndroid-v0``, ``task="miniwob"``) beside
Farama's ``miniwob`` Gymnasium env on the same pages, in one run.

Usage::

    python benchmarks/mobile_miniwob.py            # about 2 minutes
    python benchmarks/mobile_miniwob.py --quick    # a smoke run

Both sides get the same workload: a tap at a uniformly random point of the 160 x 210 task area
(gui-gym: the phone's tap on the WebView, 500 % zoom; Farama: ``CLICK_COORDS`` at the same CSS
point), an episode reset when the page gives its reward or after 30 steps. gui-gym runs in text
mode (the dump) and pixel mode (540 x 1200 frames); Farama with and without screenshots. Times
are wall clock (each side's browser is another process), seconds per step and per reset.
Targets (the issue): >= 30 steps/s, reset <= 100 ms, at least as fast as Farama's env.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)

TASKS = ("click-button", "click-checkboxes", "click-link", "enter-text", "login-user", "click-tab", "choose-list")
STEPS = 30


def bench(step: Callable[[], bool], reset: Callable[[int], None], n: int) -> tuple[float, float, int, int]:
    """Mean seconds per step and per reset over ``n`` steps (resets in between counted apart)."""
    reset(0)
    resets, step_s, reset_s, episode = 0, 0.0, 0.0, 0
    for i in range(n):
        t = time.perf_counter()
        done = step()
        step_s += time.perf_counter() - t
        episode += 1
        if done or episode >= STEPS:
            t = time.perf_counter()
            reset(i + 1)
            reset_s += time.perf_counter() - t
            resets, episode = resets + 1, 0
    return step_s / n, reset_s / max(1, resets), n, resets


def ours(page: str, mode: str, n: int, rng: np.random.Generator) -> tuple[float, float, int, int]:
    from gui_gym.android.sim.apps.miniwob.app import FRAME
    from gui_gym.android.sim.apps.miniwob.pages import class_name

    env = gym.make("GuiAndroid-v0", task=class_name(page), obs_mode=mode)

    def reset(seed: int) -> None:
        env.reset(seed=seed)

    def step() -> bool:
        x, y = rng.uniform(0, 160), rng.uniform(0, 210)
        sx, sy = int(FRAME.left + x * FRAME.zoom), int(FRAME.top + y * FRAME.zoom)
        _, _, term, trunc, _ = env.step({"action_type": "click", "x": sx, "y": sy})
        return term or trunc

    try:
        return bench(step, reset, n)
    finally:
        env.close()


def farama(page: str, screenshots: bool, n: int, rng: np.random.Generator) -> tuple[float, float, int, int]:
    import miniwob  # noqa: F401  (registers the ids)
    from miniwob.action import ActionTypes

    env = gym.make(f"miniwob/{page}-v1")
    env.unwrapped.set_record_screenshots(screenshots)

    def reset(seed: int) -> None:
        env.reset(seed=seed)

    def step() -> bool:
        x, y = rng.uniform(0, 160), rng.uniform(0, 210)
        action = env.unwrapped.create_action(ActionTypes.CLICK_COORDS, coords=np.array([x, y], dtype=np.float32))
        _, _, term, trunc, _ = env.step(action)
        return term or trunc

    try:
        return bench(step, reset, n)
    finally:
        env.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", type=int, default=60, help="steps per task and configuration (default 60)")
    p.add_argument("--quick", action="store_true", help="two tasks, 10 steps each")
    args = p.parse_args()
    tasks, n = (TASKS[:2], 10) if args.quick else (TASKS, args.steps)
    print(f"tasks: {', '.join(tasks)}; {n} steps each; load average {os.getloadavg()[0]:.2f}")
    rows = {
        "gui-gym text": lambda page, rng: ours(page, "text", n, rng),
        "gui-gym pixels 540x1200": lambda page, rng: ours(page, "pixels", n, rng),
        "Farama miniwob, no screenshots": lambda page, rng: farama(page, False, n, rng),
        "Farama miniwob, screenshots": lambda page, rng: farama(page, True, n, rng),
    }
    totals: dict[str, list[float]] = {k: [0.0, 0.0, 0, 0] for k in rows}
    for page in tasks:  # each task's configurations one after the other: a slow phase hits all
        for name, run in rows.items():
            step_s, reset_s, steps, resets = run(page, np.random.default_rng(0))
            t = totals[name]
            t[0] += step_s * steps
            t[1] += reset_s * resets
            t[2] += steps
            t[3] += resets
    print("| configuration | steps/s (wall) | mean reset ms | steps | resets |")
    print("|---|---:|---:|---:|---:|")
    for name, (step_total, reset_total, steps, resets) in totals.items():
        print(f"| {name} | {steps / step_total:.1f} | {1000 * reset_total / max(1, resets):.0f} | {steps} | {resets} |")
    ours_text = totals["gui-gym text"]
    theirs = totals["Farama miniwob, no screenshots"]
    ratio = (ours_text[2] / ours_text[0]) / (theirs[2] / theirs[0])
    print(f"text steps/s, gui-gym / Farama (no screenshots): {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
