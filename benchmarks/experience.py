"""Speed of ``GuiExperience-v0``: steps/s with screens re-rendered on the simulator (cold) and from
its cache (warm), in text and pixel modes, beside ``GuiAndroid-v0`` on the same oracle actions; and
the time to build and export the embedded set.

Usage::

    python benchmarks/experience.py            # about a minute
    python benchmarks/experience.py --quick    # seconds: fewer experiences, no screenshot export

What is measured (CPU time of this process):

* steps/s of the experience env playing every selected experience's expert actions: *cold* (each
  experience's screens replayed on the simulator once, cache empty) and *warm* (the same episodes
  again, screens from the cache), with ``obs_mode="text"`` (XML dump) and ``"both"`` (540×1200
  screenshots too);
* steps/s of ``GuiAndroid-v0`` on the same tasks, seeds and actions (the live simulator);
* ``generate()``: the oracle trajectories of every task at 8 seeds (the shipped set);
* ``gui-gym export-experience``: the set as JSON Lines, and with 1080×2400 screenshots (PNG) and
  dumps for a sample of experiences (per experience).

Targets (issue 18): the warm text env well above the live simulator (it only reads and scores);
the embedded set rebuilt in seconds.
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym

import gui_gym  # noqa: F401
from gui_gym.experience.embedded import embedded_experiences, generate
from gui_gym.experience.record import dumps
from gui_gym.experience.screens import PIXEL_CACHE, SimScreens
from gui_gym.experience.tasks import select_experiences


def play(env: gym.Env, ids: list[str]) -> tuple[int, float]:
    """Steps and CPU seconds to play each experience's expert actions once."""
    steps, t0 = 0, time.process_time()
    for i, eid in enumerate(ids):
        env.reset(seed=i, options={"task": eid})
        while True:
            _, _, term, trunc, _ = env.step(env.unwrapped.oracle_action())
            steps += 1
            if term or trunc:
                break
    return steps, time.process_time() - t0


def live(ids: list[str], obs_mode: str) -> tuple[int, float]:
    """``GuiAndroid-v0`` on the same tasks and seeds, stepping the recorded simulator actions."""
    by_id = {e.id: e for e in embedded_experiences()}
    env = gym.make("GuiAndroid-v0", obs_mode=obs_mode, max_steps=10_000)
    steps, t0 = 0, time.process_time()
    for eid in ids:
        e = by_id[eid]
        env.reset(seed=e.seed, options={"task": e.task})
        for s in e.steps:
            env.step(s.native)
            steps += 1
    return steps, time.process_time() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    ids = [e.id for e in select_experiences(embedded_experiences(), "train")]
    ids = ids[:: 8 if args.quick else 2]
    print(f"# GuiExperience-v0 ({platform.processor() or platform.machine()}, {len(ids)} experiences)")
    for mode in ("text", "both"):
        # screenshots are cached for the last PIXEL_CACHE trajectories only (memory): warm is theirs
        some = ids if mode == "text" else ids[:PIXEL_CACHE]
        env = gym.make("GuiExperience-v0", obs_mode=mode, cache_size=len(ids) + 1)
        n, cold = play(env, ids)
        play(env, some)
        k, warm = play(env, some)
        m, sim = live(ids, mode)
        print(
            f"obs_mode={mode}: cold {n / cold:,.0f} steps/s ({len(ids)} experiences), warm {k / warm:,.0f} "
            f"steps/s ({len(some)}); GuiAndroid-v0 {m / sim:,.0f} steps/s; warm/live {(k / warm) / (m / sim):.1f}x"
        )
    t0 = time.process_time()
    made = generate(seeds=(0,) if args.quick else tuple(range(8)))
    print(f"generate: {len(made)} experiences, {sum(len(e) for e in made)} steps in {time.process_time() - t0:.1f} s")
    t0 = time.process_time()
    text = dumps(embedded_experiences())
    print(f"export (JSON Lines): {len(text) / 1e6:.2f} MB in {time.process_time() - t0:.2f} s")
    if not args.quick:
        from PIL import Image

        sample = select_experiences(embedded_experiences(), "test")[::10]
        source = SimScreens("xml", pixels=True, screen_size=(1080, 2400), cache_size=1)
        with tempfile.TemporaryDirectory() as tmp:
            t0, shots = time.process_time(), 0
            for e in sample:
                for t, screen in enumerate(source.screens(e)):
                    Image.fromarray(screen.pixels).save(Path(tmp) / f"{e.id.replace('/', '_')}_{t}.png")
                    shots += 1
            spent = time.process_time() - t0
        print(f"export with screenshots: {shots} PNGs of {len(sample)} experiences, {spent / len(sample):.2f} s each")


if __name__ == "__main__":
    main()
