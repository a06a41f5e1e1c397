"""Speed of ``GuiAndroidEnv(backend="adb")`` through ``serve-adb`` on loopback, beside the
in-process simulator in the same run, and the cost of its dump and screencap.

Usage::

    python benchmarks/device.py            # about a minute
    python benchmarks/device.py --quick

What is measured (wall clock: the adb path spends its time in sockets and a server thread):

* steps/s of the same oracle episodes (the simulator's actions) on the in-process simulator and
  over adb, text mode and text + 540×1200 screenshots; the adb backend waits for the screen to
  settle (two equal dumps) after each action, so a step costs at least three round trips;
* the time of a reset, apart: over adb it closes the apps, sets the date and writes the task's
  start state (settings, contacts through the app's editor, SMS rows, notes);
* one ``uiautomator dump`` + ``cat`` and one ``screencap -p`` (1080×2400 PNG) over adb.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from gui_gym.android.backends.adb import AdbBackend
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.sim.adb.server import serve_adb

TASKS = ["ClockStopWatchRunning", "SystemWifiTurnOn", "ContactsAddContact", "TasksCompleteTask"]


def episodes(env: GuiAndroidEnv, actions: dict[tuple[str, int], list[str]], server=None) -> tuple[int, float, float]:
    """Play the recorded episodes: (steps, seconds in steps, seconds in resets)."""
    steps, t_steps, t_resets = 0, 0.0, 0.0
    for (task, seed), acts in actions.items():
        if server is not None:  # an instruction-only task's data, as the simulator sets it up
            server.backend.start(task, np.random.default_rng(seed))
        t0 = time.perf_counter()
        env.reset(seed=seed, options={"task": task})
        t1 = time.perf_counter()
        for a in acts:
            env.step(a)
            steps += 1
        t_resets, t_steps = t_resets + t1 - t0, t_steps + time.perf_counter() - t1
    return steps, t_steps, t_resets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    seeds = range(1 if args.quick else 3)
    sim = GuiAndroidEnv(max_steps=200)
    actions: dict[tuple[str, int], list[str]] = {}
    for task in TASKS:
        for seed in seeds:
            sim.reset(seed=seed, options={"task": task})
            acts = []
            while True:
                a = sim.oracle_action()
                acts.append(a)
                _, _, term, trunc, _ = sim.step(a)
                if term or trunc:
                    break
            actions[(task, seed)] = acts
    print(f"# GuiAndroid-v0 over adb ({platform.processor() or platform.machine()}, {len(actions)} episodes)")
    with serve_adb(port=0) as server:
        for mode in ("text", "both"):
            local = GuiAndroidEnv(obs_mode=mode, max_steps=200)
            n, t_local, r_local = episodes(local, actions)
            remote = GuiAndroidEnv(obs_mode=mode, max_steps=200, backend="adb",
                                   backend_options={"port": server.port, "settle_timeout": 0.5})  # fmt: skip
            m, t_remote, r_remote = episodes(remote, actions, server)
            k = len(actions)
            print(f"obs_mode={mode}: in-process {n / t_local:,.0f} steps/s, over adb {m / t_remote:,.1f} steps/s "
                  f"({t_remote / m * 1000:.0f} ms a step; {(n / t_local) / (m / t_remote):.0f}x); "
                  f"reset {r_local / k * 1000:.1f} ms in-process, {r_remote / k * 1000:.0f} ms over adb")  # fmt: skip
        backend = AdbBackend(port=server.port)
        reps = 5 if args.quick else 20
        t0 = time.perf_counter()
        for _ in range(reps):
            backend._dump()
        dump = (time.perf_counter() - t0) / reps
        t0 = time.perf_counter()
        for _ in range(max(1, reps // 4)):
            backend.screenshot((540, 1200))
        cap = (time.perf_counter() - t0) / max(1, reps // 4)
        print(f"uiautomator dump + cat: {dump * 1000:.1f} ms; screencap -p (1080x2400 PNG): {cap * 1000:.0f} ms")


if __name__ == "__main__":
    main()
