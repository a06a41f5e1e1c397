"""Steps/s of ``GuiAndroid-v0`` bare and under the reward-shaping wrappers, in one run.

Usage::

    python benchmarks/wrapper_overhead.py            # ~1 minute
    python benchmarks/wrapper_overhead.py --quick    # a few seconds, smoke test

Every configuration replays the same recorded action traces (text mode, the whole task pool:
the oracle's actions mixed with taps on random elements and Back, as in env_throughput.py), so
they do identical env work and differ only by the wrappers:

* ``bare``: ``gym.make("GuiAndroid-v0", obs_mode="text")``;
* ``spa``: ``ShortestPathReward`` (no matching);
* ``milestone (static)``: ``MilestoneReward`` on the annotated milestones with the default
  ``SemanticMatcher``, its embedding cache warm (one untimed pass first): the target is that
  cached matching adds <= 25% to a text-mode step;
* ``milestone (adaptive) + spa``: ``MilestoneReward(book=MilestoneBook())`` (observation digests,
  the built-in generator on every success) under ``ShortestPathReward``;
* ``milestone (static), cold cache``: the first pass, encoding each new text (model already
  loaded), for scale.

steps/s is steps per CPU-second of this process (reset and step), the best of the rounds;
configurations run in interleaved rounds so that a slow phase of the machine hits all alike.
"""

from __future__ import annotations

import argparse
import logging
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.forest import element_box
from gui_gym.android.sim.tasks import TASKS
from wrappers import MilestoneBook, MilestoneReward, ShortestPathReward
from wrappers.matching import SemanticMatcher

cpu = time.process_time
TARGET = 0.25


def record_traces(episodes: int, seed: int) -> list[tuple[str, int, list[str]]]:
    """(task, seed, actions) per episode: 70% oracle, 20% taps on random elements, 10% Back."""
    rng = np.random.default_rng(seed)
    traces = []
    tasks = list(TASKS)
    for e in range(episodes):
        task = tasks[e % len(tasks)]
        env = gym.make("GuiAndroid-v0", task=task, obs_mode="text")
        _, info = env.reset(seed=e)
        actions: list[str] = []
        while True:
            u = rng.random()
            if u < 0.7:
                a = env.unwrapped.oracle_action()
            elif u < 0.9 and info["ui_elements"]:
                el = info["ui_elements"][int(rng.integers(len(info["ui_elements"])))]
                a = f'do(action="Tap", element={list(element_box(el))})'
            else:
                a = 'do(action="Back")'
            actions.append(a)
            _, _, term, trunc, info = env.step(a)
            if term or trunc:
                break
        traces.append((task, e, actions))
    return traces


def replay(make_env: Callable[[str], gym.Env], traces: list[tuple[str, int, list[str]]]) -> tuple[int, float]:
    """Replay every trace; returns (steps, CPU seconds in reset + step)."""
    steps, spent = 0, 0.0
    envs: dict[str, gym.Env] = {}
    for task, seed, actions in traces:
        env = envs.get(task) or envs.setdefault(task, make_env(task))
        t = cpu()
        env.reset(seed=seed)
        for a in actions:
            env.step(a)
        spent += cpu() - t
        steps += len(actions)
    return steps, spent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=400)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="few episodes and rounds (smoke test)")
    args = ap.parse_args()
    if args.quick:
        args.episodes, args.rounds = 67, 2
    logging.disable(logging.WARNING)  # tasks without milestones warn once each

    print(f"python {platform.python_version()}, {platform.machine()}, gymnasium {gym.__version__}")
    traces = record_traces(args.episodes, args.seed)
    n_steps = sum(len(a) for *_, a in traces)
    print(f"{len(traces)} episodes, {n_steps} steps per pass (text mode, all {len(TASKS)} tasks)")

    t = time.perf_counter()
    matcher = SemanticMatcher()
    matcher.encode(["warm up"])
    print(f"matcher: mode={matcher.mode}, delta={matcher.delta}; model load {time.perf_counter() - t:.1f} s")

    def bare(task: str) -> gym.Env:
        return gym.make("GuiAndroid-v0", task=task, obs_mode="text")

    configs: dict[str, Callable[[str], gym.Env]] = {
        "bare": bare,
        "spa": lambda task: ShortestPathReward(bare(task)),
        "milestone (static)": lambda task: MilestoneReward(bare(task), matcher=matcher),
        "milestone (adaptive) + spa": lambda task: ShortestPathReward(
            MilestoneReward(bare(task), book=book, matcher=matcher)
        ),
    }
    book = MilestoneBook()

    cold_steps, cold_time = replay(configs["milestone (static)"], traces)  # fills the cache
    texts = len(matcher.cache)
    best: dict[str, float] = {}
    for _ in range(args.rounds):
        for name, make_env in configs.items():
            steps, spent = replay(make_env, traces)
            best[name] = max(best.get(name, 0.0), steps / spent)

    print(f"\n{'configuration':34s} {'steps/s (CPU)':>14s} {'overhead vs bare':>17s}")
    for name, rate in best.items():
        over = best["bare"] / rate - 1.0
        print(f"{name:34s} {rate:14,.0f} {over:+16.1%}")
    cold = cold_steps / cold_time
    print(f"{'milestone (static), cold cache':34s} {cold:14,.0f} {best['bare'] / cold - 1:+16.1%}")
    over = best["bare"] / best["milestone (static)"] - 1.0
    verdict = "met" if over <= TARGET else "NOT met"
    print(f"\ncached milestone matching adds {over:.1%} to a text-mode step (target <= {TARGET:.0%}): {verdict}")
    print(f"texts encoded: {texts}; book coverage after the run: {book.coverage(list(TASKS)):.0%}")


if __name__ == "__main__":
    main()
