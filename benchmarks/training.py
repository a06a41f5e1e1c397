"""Training speed: rollout steps/s (local vs Ray), update time per iteration, the README preset,
and the thread setting: before and now, on an idle machine and beside a busy process.

    python benchmarks/training.py                       # everything (the preset takes ~10 min)
    python benchmarks/training.py --skip-preset --ray-workers 2 4
    python benchmarks/training.py --threads-only --iterations 10   # before/now × idle/busy, ~10 min

Rollouts use the candidate policy with the embedded MiniLM on the easy tasks, sampling, after
a warm-up pass that fills the embedding cache (the cold cache is reported separately). Each
figure is one measurement on this machine; compare ratios from the same run.

``--threads-only`` runs ``gui-gym train --preset quick --iterations N`` four times in one
process, interleaved: the code of ``--before`` (default: the last commit with torch's default
threads and batched encoding, unpacked with ``git archive``) and this checkout (texts encoded
alone, numerics on one thread), each on the machine as it is ("idle") and beside one
CPU-burning process ("busy"). It also times MiniLM on the same texts encoded alone and batched.
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


#: The commit before texts were encoded alone and numerics pinned to one thread.
BEFORE = "239e856"
ROOT = Path(__file__).resolve().parent.parent


def bench_encoding(args) -> None:
    """MiniLM texts/s: each text alone on one thread (what gui-gym does) vs batches of 64."""
    import gui_gym.core.threads as gthreads
    from gui_gym.core.threads import one_thread
    from wrappers.matching import SemanticMatcher

    policy = CandidatePolicy("GuiAndroid-v0")
    LocalRollouts(functools.partial(make_env, "GuiAndroid-v0", tasks=task_ids("easy"), max_steps=12), 8).collect(
        policy, instances(4, 4, 3)
    )  # real texts: labels, screen items, instructions
    texts = list(policy.matcher.cache)[:400]
    model = SemanticMatcher().load()
    for name, threads in (("default threads", torch.get_num_threads()), ("1 thread", 1)):
        torch.set_num_threads(threads)
        t = time.perf_counter()
        model.encode(texts, batch_size=64, show_progress_bar=False)
        batched = len(texts) / (time.perf_counter() - t)
        print(f"MiniLM, {len(texts)} texts, batches of 64, {name} ({threads}): {batched:6.0f} texts/s")
    with one_thread():
        t = time.perf_counter()
        for text in texts:
            model.encode([text], batch_size=1, show_progress_bar=False)
        alone = len(texts) / (time.perf_counter() - t)
    print(f"MiniLM, {len(texts)} texts, each alone on one thread:      {alone:6.0f} texts/s")
    matcher = SemanticMatcher()
    for n in (2, 1):  # SemanticMatcher.encode: alone, spread over n threads (a model copy each)
        gthreads._budget = n
        matcher.encode([f"warm up {i}" for i in range(n)])  # loads the copies
        for text in texts:
            matcher.cache.pop(text, None)
        t = time.perf_counter()
        matcher.encode(texts)
        rate = len(texts) / (time.perf_counter() - t)
        print(f"MiniLM, {len(texts)} texts, each alone, over {n} thread(s) (SemanticMatcher): {rate:6.0f} texts/s")
    gthreads._budget = None


def _preset(code: Path, iterations: int, out: Path) -> tuple[float, dict]:
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "GUI_GYM_THREADS")}
    cmd = [sys.executable, "-m", "agents.cli", "train", "--preset", "quick", "--iterations", str(iterations),
           "--out", str(out), "--no-progress"]  # fmt: skip
    t = time.perf_counter()
    subprocess.run(cmd, cwd=code, env={**env, "PYTHONUNBUFFERED": "1"}, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t, json.loads((out / "summary.json").read_text())


def bench_threads(args) -> None:
    """The README preset, before and now, idle and beside a busy process: wall clock and results."""
    tmp = Path(tempfile.mkdtemp())
    before = tmp / "before"
    before.mkdir()
    archive = subprocess.run(["git", "archive", args.before], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(before)], input=archive, check=True)
    codes = {f"before ({args.before}: torch default threads, batched encoding)": before,
             "now (numerics on 1 thread, texts encoded alone)": ROOT}  # fmt: skip
    rows = []
    for load in ("idle", "busy"):
        burner = None
        if load == "busy":
            burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
            time.sleep(2.0)
        try:
            for name, code in codes.items():
                loadavg = os.getloadavg()[0]
                dt, summary = _preset(code, args.iterations, tmp / f"{load}-{len(rows)}")
                rows.append((load, name, dt, loadavg, summary))
                print(f"{load:4}  {name:62} {dt / 60:5.2f} min  (load average {loadavg:.1f} at start)", flush=True)
        finally:
            if burner is not None:
                burner.kill()
                burner.wait()
    shutil.rmtree(tmp)
    cores = len(os.sched_getaffinity(0))
    print(f"\nREADME preset, {args.iterations} iterations, {os.cpu_count()} cores ({cores} usable):")
    for load in ("idle", "busy"):
        (_, _, old, _, _), (_, _, new, _, _) = [r for r in rows if r[0] == load]
        print(f"  {load}: before {old / 60:.2f} min, now {new / 60:.2f} min: now takes {new / old:.2f}x the time")
    for load, name, _, _, summary in rows:
        first, last = summary["first_eval"], summary["last_eval"]
        print(f"  held-out success, {load}, {name.split(' (')[0]}: before training {first['eval_success_rate']:.1%}, "
              f"after {last['eval_success_rate']:.1%}")  # fmt: skip
    now = [r[4]["last_eval"] for r in rows if r[1].startswith("now")]
    same = all({k: v for k, v in e.items() if not k.startswith("time_")} ==
               {k: v for k, v in now[0].items() if not k.startswith("time_")} for e in now)  # fmt: skip
    print(f"  now, idle vs busy: the same final evaluation row: {same}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--num-envs", type=int, default=8)
    p.add_argument("--ray-workers", type=int, nargs="*", default=[2])
    p.add_argument("--skip-preset", action="store_true")
    p.add_argument("--threads-only", action="store_true", help="only the encoding and thread-setting comparison")
    p.add_argument("--iterations", type=int, default=10, help="iterations of each preset run in the comparison")
    p.add_argument("--before", default=BEFORE, help=f"the git commit to compare with (default {BEFORE})")
    args = p.parse_args()
    print(f"cpus: {os.cpu_count()}, torch threads: {torch.get_num_threads()}")
    if args.threads_only:
        bench_encoding(args)
        bench_threads(args)
        return
    bench_rollouts(args)
    bench_update(args)
    bench_encoding(args)
    if not args.skip_preset:
        bench_preset(args)
        bench_threads(args)


if __name__ == "__main__":
    main()
