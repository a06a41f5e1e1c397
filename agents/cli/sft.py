"""``gui-gym sft``: behaviour-clone a policy on the oracle before RL (:mod:`agents.sft`).

::

    gui-gym sft [--env ID] --tasks easy,medium --out runs/sft [--noise 0.3] [--epochs 20] [--k 8]
    gui-gym sft --policy lm --lm-path DIR --tasks easy --out runs/sft-lm   # an LM, best on a GPU
    gui-gym train --init runs/sft ...           # RL from the cloned policy
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from agents.cli.common import (
    ENV_HELP,
    ENV_KWARGS_HELP,
    add_config_flags,
    config_values,
    env_kwargs,
    lm_screen,
    parse_env_kwarg,
)

__all__ = ["add_parser", "cmd_sft"]

_HELP = {
    "tasks": "tasks to imitate: a tier, a task id, or comma-separated ids",
    "eval_tasks": "tasks of the pass@k evaluation (default: the training tasks, held-out seeds)",
    "demos_per_task": "oracle episodes per task (and as many noisy-oracle ones)",
    "noise": "probability of a random action in a noisy-oracle step (its state labelled with the oracle's)",
    "k": "pass@k's k: sampled episodes per evaluation seed",
    "patience": "epochs without a better one (more tiers in 0 < pass@k < 1, then higher pass@1) before stopping",
    "policy": "candidate (MiniLM candidate-action policy, CPU) or lm (a local transformers causal LM)",
    "lm_path": "local transformers checkpoint directory for --policy lm",
    "device": "the LM's device (default: cuda when there is one)",
    "lr": "learning rate (default: 3e-3 for the candidate head, 1e-5 for an LM)",
    "out": "run directory: checkpoint.pt (for gui-gym train --init), sft.jsonl, sft_summary.json",
}


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "sft",
        help="behaviour-clone a policy (candidate or LM) on oracle trajectories (a warm start for RL)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--env", "--env-id", dest="env_id", metavar="ID", help=ENV_HELP)
    p.add_argument("--env-kwargs", nargs="+", type=parse_env_kwarg, metavar="KEY=VALUE", help=ENV_KWARGS_HELP)
    from agents.sft import SFTConfig

    add_config_flags(p, SFTConfig, _HELP, skip=("env_id", "env_kwargs", "tiers"))
    p.set_defaults(func=cmd_sft)


def cmd_sft(args: argparse.Namespace) -> int:
    from agents.sft import SFTConfig, clone

    values: dict[str, Any] = config_values(args, SFTConfig, skip=("env_kwargs", "tiers"))
    values["env_kwargs"] = lm_screen(values, env_kwargs(getattr(args, "env_kwargs", None)))
    cfg = SFTConfig(**values)
    try:
        summary = clone(cfg)
    except (ValueError, FileExistsError) as e:
        print(f"gui-gym sft: {e}")
        return 2
    k, kept, before = cfg.k, summary["kept"], summary["before"]
    print(f"{summary['demonstration_steps']} oracle steps imitated (coverage {summary['coverage']:.1%}); "
          f"kept epoch {summary['kept_epoch']} of {summary['epochs_run']}")  # fmt: skip
    tiers = [*sorted({key.split("_", 1)[1] for key in kept if key.startswith("pass@")} - {"all"}), "all"]
    print(f"{'tier':<8} {'pass@1 before':>14} {f'pass@{k} before':>14} {'pass@1':>8} {f'pass@{k}':>8}")
    for t in tiers:
        print(f"{t:<8} {before[f'pass@1_{t}']:>14.1%} {before[f'pass@{k}_{t}']:>14.1%} "
              f"{kept[f'pass@1_{t}']:>8.1%} {kept[f'pass@{k}_{t}']:>8.1%}")  # fmt: skip
    same = f" --policy lm --lm-path {cfg.lm_path}" if cfg.policy == "lm" else ""
    print(f"warm start for RL: gui-gym train --init {cfg.out}{same} ...")
    print(json.dumps({"out": cfg.out, "kept_epoch": summary["kept_epoch"]}))
    return 0
