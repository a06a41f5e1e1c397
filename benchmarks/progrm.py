"""ProgRM on the simulated phone: labelling speed, LCS vs env labels, model training and accuracy.

Usage::

    python benchmarks/progrm.py                       # ~15 minutes on 2 cores
    python benchmarks/progrm.py --quick               # ~2 minutes, smoke test
    python benchmarks/progrm.py --data runs/bench.jsonl   # reuse (or create) the trajectory file

1. **Data.** ``--trajectories`` (10,000: ProgRM's dataset had 10,438) episodes over all 67 tasks
   from the oracle (20%), the ε-noisy oracle (ε = 0.3, 50%) and the random policy (30%), with
   the screens recorded (:func:`agents.rollout.rollout`).
2. **Labelling time** of all of them, LCS (recipe library + key steps, Eq. 3-4, 8-10; MiniLM
   loaded beforehand, its text encoding included) and env (milestones). Target: ≤ 60 s.
3. **LCS labels vs env labels** (ProgRM's "gap between LCS-based and environment-reward-based
   key step discovery"): the MAE of LCS labels against env labels at the env's key steps
   (where a milestone is reached), over all states, and on successful trajectories only.
4. **Progress models** ProgRM-Env and ProgRM-LCS trained on the same ``--train-trajectories``
   (balanced sample), split by task: the held-out tasks are never seen in training. Reported:
   training time (encoding + epochs), per-step latency, and ProgRM Tables 2-3 on the held-out
   tasks (key-step MAE against env milestones, final-step scores, success prediction), next to
   a constant predictor (the mean training label).
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import gymnasium as gym

import gui_gym  # noqa: F401
from agents.policies import NoisyOraclePolicy, OraclePolicy, RandomPolicy
from agents.rollout import rollout
from gui_gym.core.trajectory import Trajectory, read_jsonl, write_jsonl
from wrappers.progress import (
    ActionMatch,
    ProgressLabeller,
    ProgressTrainConfig,
    evaluate,
    examples,
    label_trajectories,
    split_by_task,
    train_progress_model,
)


def collect(n: int, seed: int) -> list[Trajectory]:
    env = gym.make("GuiAndroid-v0")
    mix = [
        ("oracle", OraclePolicy(env), n // 5),
        ("noisy", NoisyOraclePolicy(env, epsilon=0.3, seed=seed + 1), n // 2),
        ("random", RandomPolicy("GuiAndroid-v0", seed=seed + 2), n - n // 5 - n // 2),
    ]
    out: list[Trajectory] = []
    for k, (name, policy, count) in enumerate(mix):
        for r in rollout(env, policy, count, seed=seed + 100_000 * (k + 1)):
            r.trajectory.meta["policy"] = name
            out.append(r.trajectory)
    return out


def label_gap(lcs_pairs, env_by_id) -> dict[str, float]:
    key_err, all_err, succ_err = [], [], []
    for t, lab in lcs_pairs:
        env = env_by_id[id(t)]
        diff = np.abs(np.array(lab.labels) - np.array(env.labels))
        all_err.extend(diff)
        key_err.extend(diff[np.array(env.key_steps, dtype=bool)])
        if t.success:
            succ_err.extend(diff)
    return {
        "key_step_mae": float(np.mean(key_err)),
        "all_states_mae": float(np.mean(all_err)),
        "success_states_mae": float(np.mean(succ_err)) if succ_err else float("nan"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="1,000 trajectories, 300 for training, 3 epochs")
    ap.add_argument("--trajectories", type=int, default=10_000)
    ap.add_argument("--train-trajectories", type=int, default=3_000)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", metavar="FILE.jsonl", help="trajectory file to reuse (written if missing)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args()
    if args.quick:
        args.trajectories, args.train_trajectories, args.epochs = 1_000, 300, 3
    logging.basicConfig(level=logging.ERROR)
    print(f"# ProgRM benchmark ({platform.processor() or platform.machine()}, python {platform.python_version()})")
    figures: dict[str, object] = {}

    # --- 1. data
    t0 = time.perf_counter()
    if args.data and Path(args.data).is_file():
        trajs = read_jsonl(args.data)[: args.trajectories]
        print(f"data: {len(trajs)} trajectories from {args.data}")
    else:
        trajs = collect(args.trajectories, args.seed)
        if args.data:
            write_jsonl(args.data, trajs)
        print(f"data: collected {len(trajs)} trajectories in {time.perf_counter() - t0:.1f} s")
    steps = sum(len(t) for t in trajs)
    succ = sum(t.success for t in trajs)
    print(f"  {succ} successful, {len(trajs) - succ} failed, {steps} steps")
    figures["data"] = {"trajectories": len(trajs), "successful": succ, "steps": steps}

    # --- 2. labelling time
    match = ActionMatch()
    match.text_similarity(["warm"], ["up"])  # load MiniLM outside the timing
    t0 = time.perf_counter()
    lcs_pairs, report = label_trajectories(trajs, "lcs", labeller=ProgressLabeller(match=match))
    lcs_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    env_pairs, _ = label_trajectories(trajs, "env")
    env_s = time.perf_counter() - t0
    print(f"labelling {len(trajs)} trajectories: LCS {lcs_s:.1f} s ({report.recipes} recipes), env {env_s:.2f} s")
    print(f"  target <= 60 s for 10,000: {'met' if lcs_s <= 60 * len(trajs) / 10_000 else 'NOT met'}")
    figures["labelling_s"] = {"lcs": lcs_s, "env": env_s, "recipes": report.recipes}

    # --- 3. LCS vs env labels
    env_by_id = {id(t): lab for t, lab in env_pairs}
    gap = label_gap(lcs_pairs, env_by_id)
    print(
        f"LCS labels vs env labels: key-step MAE {gap['key_step_mae']:.3f}, all states {gap['all_states_mae']:.3f}, "
        f"successful trajectories {gap['success_states_mae']:.3f}"
    )
    figures["label_gap"] = gap

    # --- 4. progress models, held-out tasks
    rng = random.Random(args.seed)
    lcs_by_id = {id(t): lab for t, lab in lcs_pairs}
    pool = [t for t, _ in env_pairs]
    sample = rng.sample(pool, min(args.train_trajectories, len(pool)))
    models = {}
    for source, by_id in (("env", env_by_id), ("lcs", lcs_by_id)):
        data = []
        for i, t in enumerate(sample):
            data.extend(examples(t, by_id[id(t)].labels, by_id[id(t)].key_steps, env_by_id[id(t)].labels, index=i))
        train_set, test_set = split_by_task(data, 0.25, args.seed)
        config = ProgressTrainConfig(epochs=args.epochs, seed=args.seed)
        with tempfile.TemporaryDirectory() as out:
            t0 = time.perf_counter()
            result = train_progress_model(train_set, out, config, val_examples=test_set, progress=False)
            train_s = time.perf_counter() - t0
        baseline = float(np.mean([e.label for e in train_set]))
        m = evaluate(result.model, test_set, baseline_label=baseline)
        models[source] = {
            "train_s": train_s,
            "epochs": result.epochs_run,
            "train_states": len(train_set),
            "test_states": len(test_set),
            "test_tasks": len({e.task_id for e in test_set}),
            **{k: m[k] for k in ("key_step_mae", "label_mae", "final_score_success", "final_score_failure")},
            **{k: m[k] for k in ("accuracy", "precision", "recall", "f1", "false_positive_rate")},
            "latency_ms_per_step": m["latency_ms_per_step"],
            "cold_ms_per_step": m["cold_ms_per_step"],
            "batched_ms_per_step": m["batched_ms_per_step"],
            "constant": m["constant_baseline"],
        }
    print(f"\nprogress models: {len(sample)} trajectories, 75% of tasks to train, the other 25% held out")
    print(f"{'':28}{'ProgRM-Env':>12}{'ProgRM-LCS':>12}{'constant':>10}")
    env_m, lcs_m = models["env"], models["lcs"]
    rows = [
        ("training time (s)", "train_s", "{:.0f}"),
        ("epochs", "epochs", "{}"),
        ("key-step MAE (vs env)", "key_step_mae", "{:.3f}"),
        ("final score, successful", "final_score_success", "{:.3f}"),
        ("final score, failed", "final_score_failure", "{:.3f}"),
        ("success accuracy @0.5", "accuracy", "{:.3f}"),
        ("precision", "precision", "{:.3f}"),
        ("recall", "recall", "{:.3f}"),
        ("F1", "f1", "{:.3f}"),
        ("latency ms/step (median)", "latency_ms_per_step", "{:.1f}"),
        ("latency ms/step (mean, cold)", "cold_ms_per_step", "{:.1f}"),
        ("latency ms/step (batched)", "batched_ms_per_step", "{:.2f}"),
    ]
    for name, key, fmt in rows:
        const = env_m["constant"].get(key)
        c = fmt.format(const) if isinstance(const, float) else ""
        print(f"{name:28}{fmt.format(env_m[key]):>12}{fmt.format(lcs_m[key]):>12}{c:>10}")
    figures["models"] = models
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1, default=float))


if __name__ == "__main__":
    main()
