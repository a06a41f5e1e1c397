"""Speed of ``ALFWorld-v0``'s embedded engine, and of the real TextWorld on the same games, in one run.

Usage::

    python benchmarks/alfworld.py                      # ~1 minute
    python benchmarks/alfworld.py --quick              # a few seconds, smoke test
    python benchmarks/alfworld.py --textworld-python /path/to/venv/bin/python   # + real TextWorld

What is measured (CPU time of this process unless said otherwise, so a busy machine does not
distort the per-core figures):

* the engine alone (:class:`gui_gym.alfworld.engine.Engine`): steps/s and resets/s over generated
  games of every split, driven by a seeded random walk over the admissible commands (90%) and
  invalid commands (10%), 50 steps an episode;
* the whole env (``gym.make("ALFWorld-v0")``, Gymnasium's default wrappers, contract ``info``,
  milestones): steps/s, and the mean time of a reset on a game already generated (the same game
  again) and on a new game (generation + compilation + reset);
* generation: ``generate(seed, split, index)`` (which includes the expert's check and walkthrough), and
  ``World.from_problem`` (compilation);
* TextWorld: when ``textworld`` and ``alfworld`` import here, or in the interpreter given by
  ``--textworld-python`` (a subprocess), the same generated games written as ``game.tw-pddl`` files are
  played through alfworld's way of making the env (``AlfredDemangler`` + ``AlfredInfos``) with the
  same commands the engine played; steps and resets are timed there (wall clock, one process)
  and the per-step ratio is printed. The engine's text is checked against TextWorld's on every
  step of those games (a free fidelity check).

Targets (issue 16): >= 10,000 engine steps/s per core, reset <= 1 ms, >= 500x TextWorld per step.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import gymnasium as gym

import gui_gym  # noqa: F401
from gui_gym.alfworld.engine import Engine, World
from gui_gym.alfworld.generator import SPLITS, generate
from gui_gym.alfworld.grammar import Grammar
from gui_gym.alfworld.pddl import format_problem

cpu, wall = time.process_time, time.perf_counter


def households(n: int) -> list:
    """``n`` generated games spread over the splits (deterministic)."""
    splits = list(SPLITS)
    return [generate(0, splits[i % len(splits)], i // len(splits)) for i in range(n)]


def walk(engine: Engine, rng: random.Random, steps: int) -> list[str]:
    """A seeded walk's commands: admissible (90%) or invalid (10%)."""
    commands = []
    obs = engine.reset()
    for _ in range(steps):
        command = rng.choice(obs.admissible) if rng.random() < 0.9 else "go to the moon"
        commands.append(command)
        obs = engine.step(command)
        if obs.won:
            break
    return commands


def bench_engine(games: list, episodes: int, rng: random.Random) -> dict:
    worlds = [World.from_problem(h.problem, Grammar.current(h.goal_text)) for h in games]
    engines = [Engine(w) for w in worlds]
    scripts = [walk(e, rng, 50) for e in engines]  # fixed command lists, then timed replays
    steps = resets = 0
    t_step = t_reset = 0.0
    for ep in range(episodes):
        e, script = engines[ep % len(engines)], scripts[ep % len(engines)]
        t0 = cpu()
        e.reset()
        t1 = cpu()
        for command in script:
            e.step(command)
        t2 = cpu()
        t_reset += t1 - t0
        t_step += t2 - t1
        resets += 1
        steps += len(script)
    return {
        "engine_steps": steps,
        "engine_steps_per_cpu_s": steps / t_step,
        "engine_reset_ms": 1e3 * t_reset / resets,
        "engine_resets_per_cpu_s": resets / t_reset,
        "scripts": scripts,
    }


def bench_env(n_games: int, steps: int, rng: random.Random) -> dict:
    env = gym.make("ALFWorld-v0", split="train", num_games=n_games)
    done, n, t_step = True, 0, 0.0
    while n < steps:
        if done:
            _, info = env.reset(seed=rng.randrange(1 << 30))
        admissible = info["admissible_actions"]
        command = rng.choice(admissible) if rng.random() < 0.9 else "xyzzy"
        t0 = cpu()
        _, _, term, trunc, info = env.step(command)
        t_step += cpu() - t0
        done = term or trunc
        n += 1
    # resets: the same game again (generated before) and a new game each time
    same, new = [], []
    for _ in range(200):
        t0 = cpu()
        env.reset(seed=0)
        same.append(cpu() - t0)
    for i in range(min(200, n_games)):
        t0 = cpu()
        env.reset(seed=i, options={"task": env.unwrapped.entries[i].task_id})
        new.append(cpu() - t0)
    env.close()
    return {
        "env_steps_per_cpu_s": n / t_step,
        "env_reset_same_game_ms": 1e3 * statistics.mean(same),
        "env_reset_new_game_ms": 1e3 * statistics.mean(new),
    }


def bench_generation(n: int) -> dict:
    t0 = cpu()
    made = [generate(0, "train", 10_000 + i) for i in range(n)]
    t1 = cpu()
    for h in made:
        World.from_problem(h.problem, Grammar.current(h.goal_text))
    t2 = cpu()
    return {"generate_ms": 1e3 * (t1 - t0) / n, "compile_ms": 1e3 * (t2 - t1) / n}


# -- TextWorld, in this interpreter or another one ------------------------------------------

TEXTWORLD_SCRIPT = r"""
import json, os, sys, time
import textworld, textworld.gym
from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
import alfworld
data = os.path.join(os.path.dirname(alfworld.__file__), "data")
domain = open(os.path.join(data, "alfred.pddl")).read()
grammar = open(os.path.join(data, "alfred.twl2")).read()
jobs = json.load(sys.stdin)
out = []
for i, job in enumerate(jobs):
    path = os.path.join(job["dir"], f"g{i}", "game.tw-pddl")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"pddl_domain": domain, "grammar": grammar.replace("UNKNOWN GOAL", job["goal"]),
                   "pddl_problem": job["problem"], "solvable": True, "walkthrough": []}, f)
    infos = textworld.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
    env_id = textworld.gym.register_game(path, infos, max_episode_steps=10_000,
                                         wrappers=[AlfredDemangler(shuffle=False), AlfredInfos])
    env = textworld.gym.make(env_id)
    t0 = time.perf_counter(); obs, info = env.reset(); t1 = time.perf_counter()
    record = {"reset_s": t1 - t0, "step_s": [], "texts": [obs], "admissible": [sorted(info["admissible_commands"])]}
    for command in job["commands"]:
        t0 = time.perf_counter(); obs, _, done, info = env.step(command); t1 = time.perf_counter()
        record["step_s"].append(t1 - t0); record["texts"].append(obs)
        record["admissible"].append(sorted(info["admissible_commands"]))
        if done:
            break
    env.close()
    out.append(record)
json.dump(out, sys.stdout)
"""


def bench_textworld(games: list, scripts: list, python: str | None, limit: int) -> dict | None:
    try:
        import alfworld  # noqa: F401
        import textworld  # noqa: F401

        python = python or sys.executable
    except ImportError:
        if python is None:
            return None
    jobs = []
    with tempfile.TemporaryDirectory() as tmp:
        for h, script in list(zip(games, scripts, strict=False))[:limit]:
            jobs.append({"dir": tmp, "goal": h.goal_text, "problem": format_problem(h.problem), "commands": script})
        proc = subprocess.run(
            [python, "-c", TEXTWORLD_SCRIPT], input=json.dumps(jobs), capture_output=True, text=True, check=False
        )
    if proc.returncode != 0:
        print(proc.stderr[-2000:], file=sys.stderr)
        raise SystemExit(f"the TextWorld run failed (exit {proc.returncode})")
    records = json.loads(proc.stdout)
    mismatches = 0
    compared = 0
    for h, job, rec in zip(games, jobs, records, strict=False):
        engine = Engine(World.from_problem(h.problem, Grammar.current(h.goal_text)))
        obs = engine.reset()
        mine = [(obs.text, obs.admissible)]
        for command in job["commands"][: len(rec["texts"]) - 1]:
            obs = engine.step(command)
            mine.append((obs.text, obs.admissible))
        for (text, admissible), want_text, want_adm in zip(mine, rec["texts"], rec["admissible"], strict=True):
            compared += 1
            mismatches += (text, admissible) != (want_text, want_adm)
    steps = [s for r in records for s in r["step_s"]]
    resets = [r["reset_s"] for r in records]
    return {
        "textworld_games": len(records),
        "textworld_steps": len(steps),
        "textworld_step_ms_median": 1e3 * statistics.median(steps),
        "textworld_step_ms_mean": 1e3 * statistics.mean(steps),
        "textworld_reset_ms_median": 1e3 * statistics.median(resets),
        "fidelity_compared": compared,
        "fidelity_mismatches": mismatches,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a few seconds: a smoke test, not figures")
    p.add_argument("--textworld-python", help="an interpreter with alfworld + textworld installed")
    p.add_argument("--textworld-games", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    quick = args.quick
    rng = random.Random(args.seed)
    games = households(12 if quick else 120)
    print(f"# ALFWorld-v0 benchmark  python {platform.python_version()}  {platform.machine()}  pid {os.getpid()}")
    result = bench_engine(games, 60 if quick else 2000, rng)
    scripts = result.pop("scripts")
    result |= bench_env(50 if quick else 400, 500 if quick else 20_000, rng)
    result |= bench_generation(30 if quick else 600)
    tw = bench_textworld(games, scripts, args.textworld_python, 3 if quick else args.textworld_games)
    if tw:
        result |= tw
        result["speedup_per_step"] = tw["textworld_step_ms_mean"] / (1e3 / result["engine_steps_per_cpu_s"])
    for k, v in result.items():
        print(f"{k:32s} {v:,.4g}" if isinstance(v, float) else f"{k:32s} {v}")
    if not tw:
        print("textworld: not installed here (pass --textworld-python); recorded baseline in "
              "tests/alfworld/fixtures/timings.json")  # fmt: skip


if __name__ == "__main__":
    main()
