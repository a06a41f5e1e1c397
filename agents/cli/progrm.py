"""``gui-gym progrm``: label trajectory logs, synthesise data, train and evaluate a progress model.

::

    gui-gym rollout --policy oracle,noisy,random --episodes 300 --out runs/trajs.jsonl
    gui-gym progrm synth runs/trajs.jsonl runs/synth.jsonl                 # App. B (optional)
    gui-gym progrm label runs/synth.jsonl runs/labelled.jsonl --source lcs  # or --source env
    gui-gym progrm train runs/labelled.jsonl --out runs/progrm              # resumes if interrupted
    gui-gym progrm eval runs/progrm/best.pt runs/labelled.jsonl --split-from runs/progrm

Every command reads and writes :mod:`gui_gym.core.trajectory` JSONL; a corrupt line is
reported with its file and line number and the rest of the file is used.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.cli.common import add_threads_argument
from gui_gym.core.io import read_json
from gui_gym.core.trajectory import Trajectory, read_jsonl, write_jsonl

log = logging.getLogger("gui_gym.progrm")


def _read(path: str) -> list[Trajectory]:
    """The trajectories in ``path``: FileNotFoundError, or ValueError naming the file when it is
    empty, damaged or holds no trajectory (corrupt lines among good ones: a warning with
    file:line each, then skipped)."""
    trajectories = read_jsonl(path)
    if not trajectories:
        raise ValueError(f"{path} holds no readable trajectory (an empty file)")
    return trajectories


def labelled_examples(trajectories: Sequence[Trajectory], path: str = "") -> list[Any]:
    """Training examples from labelled trajectories (labels from ``progrm label``) with env labels attached."""
    from wrappers.progress import env_labels, examples, read_labels

    out = []
    unlabelled = 0
    for i, t in enumerate(trajectories):
        stored = read_labels(t)
        if stored is None or not t.steps:
            unlabelled += 1
            continue
        labels, keys = stored
        out.extend(examples(t, labels, key_steps=keys, env_labels=env_labels(t).labels, index=i))
    if unlabelled:
        print(
            f"warning: {unlabelled} trajectories in {path or 'the input'} have no progress labels: skipped",
            file=sys.stderr,
        )
    if not out:
        raise ValueError(f"{path or 'the input'} has no labelled trajectory: run `gui-gym progrm label` on it first")
    return out


def cmd_synth(args: argparse.Namespace) -> int:
    from wrappers.progress import synthesize

    if Path(args.output).is_dir():
        raise ValueError(
            f"{args.output} is a directory: give the file to write, e.g. {Path(args.output) / 'synth.jsonl'}"
        )
    trajectories = _read(args.input)
    # the logs are GuiAndroid-v0 rollouts (`gui-gym rollout`): its family gives the edit actions
    try:
        out = synthesize(
            trajectories, seed=args.seed, augment_per_success=args.augment_per_success, edits="GuiAndroid-v0"
        )
    except ValueError as e:  # a trajectory synthesis cannot use (a success without steps, ...)
        raise ValueError(f"cannot synthesise from {args.input}: {e}") from None
    write_jsonl(args.output, out)
    successes = sum(t.success for t in out)
    print(
        f"wrote {len(out)} trajectories to {args.output} ({len(out) - len(trajectories)} synthesised; "
        f"{successes} successful, {len(out) - successes} failed)"
    )
    return 0


def cmd_label(args: argparse.Namespace) -> int:
    from wrappers.progress import ActionMatch, ProgressLabeller, attach_labels, label_trajectories

    trajectories = _read(args.input)
    labeller = None
    if args.source == "lcs":
        match = ActionMatch(epsilon=args.epsilon, hard=args.hard)
        if args.recipes and Path(args.recipes).is_file() and not args.refit:
            labeller = ProgressLabeller.load(args.recipes, match=match)
            print(f"recipes from {args.recipes}")
        else:
            labeller = ProgressLabeller(theta=args.theta, match=match, group_by=args.group_by)
    pairs, report = label_trajectories(
        trajectories, source=args.source, labeller=labeller, fallback=args.fallback, progress=not args.quiet
    )
    write_jsonl(args.output, [attach_labels(t, labels) for t, labels in pairs])
    if labeller is not None and args.recipes and (args.refit or not Path(args.recipes).is_file()):
        labeller.save(args.recipes)
        print(f"recipes saved to {args.recipes}")
    print(report.summary())
    print(f"wrote {len(pairs)} labelled trajectories to {args.output}")
    return 0


def _train_config(args: argparse.Namespace) -> Any:
    from wrappers.progress import ProgressTrainConfig

    return ProgressTrainConfig(
        encoder=args.encoder,
        hidden=args.hidden,
        finetune=args.finetune,
        lr=args.lr,
        batch_size=args.batch_size,
        epochs=args.epochs,
        patience=args.patience,
        val_fraction=args.val_fraction,
        seed=args.seed,
        device=args.device,
    )


def cmd_train(args: argparse.Namespace) -> int:
    from wrappers.progress import split_by_task, train_progress_model

    config = _train_config(args)
    data = labelled_examples(_read(args.input), args.input)
    train_set, val_set = split_by_task(data, config.val_fraction, config.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    split = {
        "train_tasks": sorted({e.task_id for e in train_set}),
        "val_tasks": sorted({e.task_id for e in val_set}),
        "data": str(args.input),
    }
    (out / "split.json").write_text(json.dumps(split, indent=1))
    print(
        f"{len(train_set)} training and {len(val_set)} validation states "
        f"({len(split['train_tasks'])} / {len(split['val_tasks'])} tasks); split in {out / 'split.json'}"
    )
    try:
        result = train_progress_model(
            train_set, out, config, val_examples=val_set, resume=not args.no_resume, progress=not args.quiet
        )
    except ValueError as e:
        raise ValueError(f"{e} [on the command line: --no-resume, or another --out]") from None
    print(f"{result.stopped_reason} after {result.epochs_run} epochs; best validation BCE {result.best_val_loss:.4f}")
    print(f"checkpoint: {out / 'best.pt'} (resume state: {out / 'last.pt'}; metrics: {out / 'metrics.jsonl'})")
    return 0 if result.stopped_reason != "nan loss" else 1


def cmd_eval(args: argparse.Namespace) -> int:
    from wrappers.progress import ProgressModel, evaluate

    model = ProgressModel.load(args.checkpoint, device=args.device)
    data = labelled_examples(_read(args.input), args.input)
    baseline = None
    if args.split_from:
        split_path = Path(args.split_from) / "split.json"
        split = read_json(split_path, "task split", "give --split-from the --out of a `progrm train` run")
        val_tasks = split.get("val_tasks") if isinstance(split, dict) else None
        if not isinstance(val_tasks, list) or not all(isinstance(t, str) for t in val_tasks):
            raise ValueError(f"{split_path}: not a task split (no list of val_tasks)")
        held_out = set(val_tasks)
        seen = [e.label for e in data if e.task_id not in held_out]
        data = [e for e in data if e.task_id in held_out]
        if not data:
            raise ValueError(f"none of the held-out tasks of {split_path} is in {args.input}")
        # The constant predictor a learned model must beat: the mean label of the training tasks.
        baseline = sum(seen) / len(seen) if seen else None
    metrics = evaluate(model, data, threshold=args.threshold, baseline_label=baseline)
    print(format_metrics(metrics))
    if args.json:
        Path(args.json).write_text(json.dumps(metrics, indent=1, default=float))
        print(f"metrics: {args.json}")
    return 0


def format_metrics(m: dict[str, Any]) -> str:
    """ProgRM Tables 2-3 as text."""

    def f(x: Any, pct: bool = False) -> str:
        if x is None:
            return "n/a"
        return f"{100 * x:.1f}%" if pct else f"{x:.3f}"

    lines = [
        f"states {m.get('states')}, trajectories {m.get('trajectories')}, env key steps {m.get('key_steps')}",
        f"key-step progress MAE (vs env milestones)  {f(m.get('key_step_mae'))}",
        f"label MAE                                  {f(m.get('label_mae'))}",
        f"mean final-step score: success {f(m.get('final_score_success'))}, failure {f(m.get('final_score_failure'))}",
        f"success prediction at {m.get('threshold', 0.5):g}: "
        f"accuracy {f(m.get('accuracy'), True)}, precision {f(m.get('precision'), True)}, "
        f"recall {f(m.get('recall'), True)}, F1 {f(m.get('f1'), True)}",
    ]
    if m.get("constant_baseline"):
        b = m["constant_baseline"]
        lines.append(
            f"constant predictor {b['value']:.3f} (mean training label): key-step MAE {f(b.get('key_step_mae'))}, "
            f"label MAE {f(b.get('label_mae'))}"
        )
    if m.get("latency_ms_per_step") is not None:
        lines.append(
            f"latency per step: {m['latency_ms_per_step']:.1f} ms (median, one at a time), "
            f"{m.get('cold_ms_per_step', float('nan')):.1f} ms (mean, from an empty cache), "
            f"{m.get('batched_ms_per_step', float('nan')):.2f} ms (batched)"
        )
    return "\n".join(lines)


def add_parser(sub: Any) -> None:
    """Register ``gui-gym progrm ...``."""
    top = sub.add_parser("progrm", help="ProgRM: label trajectories, train and evaluate a progress reward model")
    cmds = top.add_subparsers(dest="progrm_command", required=True)

    p = cmds.add_parser("synth", help="add App. B synthetic trajectories (mismatched failures, edited successes)")
    p.add_argument("input", metavar="IN.jsonl")
    p.add_argument("output", metavar="OUT.jsonl")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--augment-per-success", type=int, default=1)
    add_threads_argument(p)
    p.set_defaults(func=cmd_synth)

    p = cmds.add_parser("label", help="progress labels from LCS recipes (default) or env milestones")
    p.add_argument("input", metavar="IN.jsonl")
    p.add_argument("output", metavar="OUT.jsonl")
    p.add_argument("--source", choices=("lcs", "env"), default="lcs")
    p.add_argument(
        "--fallback",
        choices=("env", "skip"),
        default="env",
        help="tasks without a successful trajectory: env labels (default) or leave them out",
    )
    p.add_argument("--theta", type=float, default=0.6, help="grouping threshold θ_L (default 0.6)")
    p.add_argument("--epsilon", type=float, default=0.4, help="soft-match score of two no-ops (default 0.4)")
    p.add_argument("--hard", action="store_true", help="hard LCS (exact matches) instead of soft")
    p.add_argument("--group-by", choices=("task_id", "instruction"), default="task_id")
    p.add_argument("--recipes", metavar="FILE.json", help="load the recipe library from FILE, or save it there")
    p.add_argument("--refit", action="store_true", help="rebuild the recipes even if --recipes exists")
    p.add_argument("--quiet", action="store_true")
    add_threads_argument(p)
    p.set_defaults(func=cmd_label)

    def model_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--device", default="cpu")

    p = cmds.add_parser("train", help="train Prog([g, a_1..a_t, o_t+1]) with BCE on labelled trajectories")
    p.add_argument("input", metavar="LABELLED.jsonl")
    p.add_argument("--out", required=True, metavar="DIR", help="checkpoints and metrics; an unfinished run resumes")
    p.add_argument("--encoder", metavar="DIR", help="a local transformers encoder (default all-MiniLM-L6-v2)")
    p.add_argument("--finetune", action="store_true", help="train the encoder too (slow on a CPU)")
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--val-fraction", type=float, default=0.2, help="share of tasks held out for validation")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-resume", action="store_true", help="start over even if DIR has a checkpoint")
    p.add_argument("--quiet", action="store_true")
    model_args(p)
    add_threads_argument(p)
    p.set_defaults(func=cmd_train)

    p = cmds.add_parser("eval", help="ProgRM Tables 2-3: key-step MAE, final scores, success prediction, latency")
    p.add_argument("checkpoint", metavar="CKPT.pt")
    p.add_argument("input", metavar="LABELLED.jsonl")
    p.add_argument("--split-from", metavar="RUN_DIR", help="evaluate on the validation tasks of a training run")
    p.add_argument("--threshold", type=float, default=0.5)
    p.add_argument("--json", metavar="FILE", help="also write the metrics as JSON")
    model_args(p)
    add_threads_argument(p)
    p.set_defaults(func=cmd_eval)
