"""Training speed: rollout steps/s (local vs Ray), update time per iteration, the README preset.

    python benchmarks/training.py                       # everything (the preset takes ~10 min)
    python benchmarks/training.py --skip-preset --ray-workers 2 4

Rollouts use the candidate policy with the embedded MiniLM on the easy tasks, sampling, after
a warm-up pass that fills the embedding cache (the cold cache is reported separately). Each
figure is one measurement on this machine; compare ratios from the same run.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from agents.collect import Instance
from agents.policies.candidate import CandidatePolicy
from agents.train import TRAIN_SEED_BASE, LocalRollouts, TrainConfig, Trainer, build_policy, task_ids
from wrappers.spec import make_env


def instances(n_groups: int, group: int, seed: int) -> list[Instance]:
    rng = np.random.default_rng(seed)
    tasks = task_ids("easy")
    return [
        Instance(str(rng.choice(tasks)), int(TRAIN_SEED_BASE + rng.integers(1 << 30)), g, m)
        for g in range(n_groups)
        for m in range(group)
    ]


def steps_per_s(backend, policy, insts) -> tuple[float, int, float]:
    t = time.perf_counter()
    episodes, _ = backend.collect(policy, insts)
    dt = time.perf_counter() - t
    steps = sum(ep.length for ep in episodes)
    return steps / dt, steps, dt


def bench_rollouts(args) -> None:
    make = functools.partial(make_env, "GuiAndroid-v0", tasks=task_ids("easy"), reward="outcome", max_steps=12)
    policy = CandidatePolicy("GuiAndroid-v0")
    backend = LocalRollouts(make, args.num_envs)
    rate, steps, dt = steps_per_s(backend, policy, instances(8, 8, 1))
    print(f"local sync x{args.num_envs}, cold embedding cache: {rate:7.1f} steps/s ({steps} steps, {dt:.1f} s)")
    backend.close()
    # The rest run one instance set whose texts are already encoded (each Ray worker warms its own cache).
    insts = instances(8, 8, 2)
    for threads in (torch.get_num_threads(), 1):
        torch.set_num_threads(threads)
        backend = LocalRollouts(make, args.num_envs)
        steps_per_s(backend, policy, insts)
        rate, steps, dt = steps_per_s(backend, policy, insts)
        print(f"local sync x{args.num_envs}, warm, torch threads {threads}: {rate:7.1f} steps/s ({steps} steps)")
        backend.close()
    for n in args.ray_workers:
        try:
            from agents.distributed import RayRollouts
        except ImportError as e:
            print(f"ray: skipped ({e})")
            break
        backend = RayRollouts(make, functools.partial(build_policy, TrainConfig()), workers=n)
        steps_per_s(backend, policy, insts)
        rate, steps, dt = steps_per_s(backend, policy, insts)
        print(f"ray x{n} workers, warm:                  {rate:7.1f} steps/s ({steps} steps)")
        backend.close()


def bench_update(args) -> None:
    out = tempfile.mkdtemp()
    cfg = TrainConfig(tasks="easy", iterations=3, tasks_per_iter=8, group_size=8, max_steps=12, eval_every=0,
                      out=out, progress=False)  # fmt: skip
    trainer = Trainer(cfg)
    rows = [trainer.iterate() for _ in range(cfg.iterations)]
    trainer.close()
    shutil.rmtree(out)
    for r in rows[1:]:
        print(f"iteration: rollout {r['time_rollout']:.2f} s, update {r['time_update']:.2f} s "
              f"({r['batch_decisions']} decisions, {r['updates']} gradient steps)")  # fmt: skip


def bench_preset(args) -> None:
    out = Path(tempfile.mkdtemp()) / "quick"
    t = time.perf_counter()
    cmd = [sys.executable, "-m", "agents.cli", "train", "--preset", "quick", "--out", str(out), "--no-progress"]
    subprocess.run(cmd, check=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    dt = time.perf_counter() - t
    summary = json.loads((out / "summary.json").read_text())
    first, last = summary["first_eval"], summary["last_eval"]
    print(f"README preset: {dt / 60:.1f} min wall clock; held-out success random "
          f"{summary['random_policy']['success_rate']:.1%}, before {first['eval_success_rate']:.1%}, "
          f"after {last['eval_success_rate']:.1%}")  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--ray-workers", type=int, nargs="*", default=[2])
    p.add_argument("--skip-preset", action="store_true")
    args = p.parse_args()
    print(f"cpus: {os.cpu_count()}, torch threads: {torch.get_num_threads()}")
    bench_rollouts(args)
    bench_update(args)
    if not args.skip_preset:
        bench_preset(args)


if __name__ == "__main__":
    main()
