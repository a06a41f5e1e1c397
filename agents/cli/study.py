"""``gui-gym study``: the reward-shaping study (also ``python benchmarks/reward_study.py``).

::

    gui-gym study --mode quick                       # ~15 min on 2 CPU cores → benchmarks/results/quick-study
    gui-gym study --mode full                        # overnight on 2 cores → benchmarks/results/full-study
    gui-gym study --mode full-alfworld               # ADMIRE Table 4 on ALFWorld-v0 (and full-webshop)
    gui-gym study --mode quick --settings outcome,spa --seeds 0 --iterations 5 --out runs/try
    gui-gym study --report-only                      # rebuild reward_study.md from the raw files
    gui-gym study --pack --out benchmarks/results/quick-study   # gzip the finished runs' raw files
    gui-gym study --pack --slim --out DIR           # ... keeping only the metrics columns the report reads

Rerunning the same command resumes the study: finished runs are skipped, interrupted ones
continue from their checkpoints (``--retry-failed`` also reruns crashed and diverged ones).
A run's ``eval.jsonl`` and ``metrics.jsonl`` are gzipped when it finishes (``--pack`` does it for
the finished runs of a study written before); the report reads either form.
"""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import Any

from agents.cli.common import DEFAULT_ENV, ENV_HELP
from agents.study.settings import MODES, all_settings
from gui_gym.core.threads import configure_threads

#: Each mode's study directory unless --out names another.
DEFAULT_OUT = "benchmarks/results/{mode}-study"


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "study",
        help="the reward-shaping study: every reward setting × seeds, tables and curves",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--mode", choices=sorted(MODES), default="quick", help="budget (default: quick)")
    p.add_argument("--env", default=DEFAULT_ENV, metavar="ID", help=ENV_HELP + "; give --train-tasks of its family")
    p.add_argument("--out", help=f"study directory (default: {DEFAULT_OUT})")
    p.add_argument(
        "--settings",
        help=f"comma-separated subset of: {', '.join(s.name for s in all_settings())} (default: the mode's)",
    )
    p.add_argument("--seeds", help="comma-separated seeds (default: the mode's, e.g. 0,1,2)")
    p.add_argument("--iterations", type=int, help="training iterations per run (default: the mode's)")
    p.add_argument("--workers", type=int, help="runs trained at once, one process each (default: the mode's)")
    p.add_argument("--train-tasks", help="comma-separated training task ids (default: the mode's split)")
    p.add_argument("--heldout-tasks", help="comma-separated held-out task ids (default: the mode's split)")
    p.add_argument("--rm-episodes", type=int, help="rollouts to train the reward models on (default: the mode's)")
    p.add_argument("--retry-failed", action="store_true", help="rerun crashed and diverged runs")
    only = p.add_mutually_exclusive_group()
    only.add_argument("--report-only", action="store_true", help="only rebuild the report from OUT's raw files")
    only.add_argument(
        "--pack", action="store_true", help="only gzip the eval.jsonl and metrics.jsonl of OUT's finished runs"
    )
    p.add_argument("--slim", action="store_true", help="with --pack: keep only the metrics columns the report reads")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_study)


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def _command(args: argparse.Namespace) -> str:
    """The command line that reproduces this study (recorded in the report)."""
    parts = ["gui-gym", "study", "--mode", args.mode, "--out", args.out]
    if args.env != DEFAULT_ENV:
        parts += ["--env", args.env]
    for name in ("settings", "seeds", "iterations", "workers", "train_tasks", "heldout_tasks", "rm_episodes"):
        value = getattr(args, name)
        if value is not None:
            parts += ["--" + name.replace("_", "-"), str(value)]
    return " ".join(shlex.quote(p) for p in parts)


def cmd_study(args: argparse.Namespace) -> int:
    from agents.study.report import write_report
    from agents.study.runner import estimate_minutes, pack_study, run_study

    if args.out is None:
        args.out = DEFAULT_OUT.format(mode=args.mode)
    if args.pack:
        n = pack_study(args.out, slim=args.slim)
        rest = n["finished"] - n["packed"]
        print(f"packed {n['packed']} of the {n['finished']} finished runs in {args.out}"
              + (f" (the other {rest} had no plain raw files)" if rest else "")
              + (f"; {n.get('slimmed', 0)} metrics files slimmed" if args.slim else "")
              + f"; the finished runs' raw files: {n['before']:,} → {n['after']:,} bytes")  # fmt: skip
        return 0
    if args.report_only:
        print(f"wrote {write_report(Path(args.out))}")
        return 0
    seeds = _split(args.seeds)
    cfg = MODES[args.mode].with_overrides(
        settings=tuple(_split(args.settings)) if args.settings else None,
        seeds=tuple(int(s) for s in seeds) if seeds else None,
        iterations=args.iterations,
        workers=args.workers,
        train_tasks=args.train_tasks,
        heldout_tasks=args.heldout_tasks,
        rm_episodes=args.rm_episodes,
    )
    if args.env != DEFAULT_ENV:  # the default env stays out of the config, so earlier studies resume
        cfg = cfg.with_overrides(extra={**cfg.extra, "env_id": args.env})
    elif "env_id" in cfg.extra:
        args.env = cfg.extra["env_id"]  # the mode's own env (full-alfworld, full-webshop)
    cfg.setting_list()  # unknown names: a message before anything runs
    configure_threads(getattr(args, "threads", None), workers=cfg.workers)  # the workers share the cores
    runs = len(cfg.settings) * len(cfg.seeds)
    minutes = estimate_minutes(cfg, args.out, args.retry_failed)
    print(
        f"study ({cfg.mode}): {len(cfg.settings)} settings × {len(cfg.seeds)} seeds = {runs} runs of "
        f"{cfg.iterations} iterations on {cfg.workers} worker(s), about {minutes:.0f} min "
        f"of training left; results in {args.out}"
    )
    try:
        path = run_study(cfg, args.out, command=_command(args), retry_failed=args.retry_failed, progress=not args.quiet)
    except KeyboardInterrupt:
        print(f"\ninterrupted; rerun the same command to resume ({args.out})")
        return 130
    print(f"wrote {path}")
    return 0
