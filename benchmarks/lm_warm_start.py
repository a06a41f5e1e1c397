"""Behaviour cloning of a causal LM policy on the study's tasks: pass@1 and pass@k per tier before
RL, the warm start the papers give their LM policies (issue: a study that can test their claims).

    python benchmarks/lm_warm_start.py --device cuda --layers 4 --hidden 256 --epochs 8 --lr 1e-3
    python benchmarks/lm_warm_start.py --device cpu --tasks SystemWifiTurnOn --epochs 1   # a smoke run

No model is downloaded: the LM is a Llama-architecture model built from a config with
:func:`agents.policies.tiny_lm.tiny_lm` (random weights, the ``actions`` byte-level BPE learnt from
the family's action prompt), so it starts at pass@k = 0 and everything it can do it learns from
the oracle (``gui-gym sft --policy lm``, on the study's demonstration seeds; evaluation on the
held-out seeds the study's warm start is evaluated on). Tiers are the full Android study's
(``benchmarks/results/full-study/tiers.json``, oracle length cut at 6 and 11 steps) when present,
else the tasks' declared difficulty. The screen is MobileRL App. C's compact one
(``ui_format="mobilerl_appc"``), as ``gui-gym train --policy lm`` reads it.

Prints each epoch's loss, pass@1 / pass@k per tier and wall seconds (rollouts included), then
the kept epoch; ``OUT/sft.jsonl`` and ``OUT/sft_summary.json`` hold the same.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from safetensors.torch import load_file

from agents.policies.tiny_lm import tiny_lm
from agents.sft import SFTConfig, clone
from agents.study.settings import MODES

TIERS = Path(__file__).resolve().parent / "results" / "full-study" / "tiers.json"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tasks", default=MODES["full"].train_tasks, help="comma-separated task ids (default: the study's)")
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when there is one)")
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--patience", type=int, default=3)
    p.add_argument("--lr", type=float, default=1e-3, help="from scratch: well above a pretrained model's 1e-5")
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--demos-per-task", type=int, default=4, help="as the study's warm start")
    p.add_argument("--eval-seeds", type=int, default=2, help="as the study's warm start")
    p.add_argument("--k", type=int, default=8)
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--out", default="runs/lm-warm-start")
    args = p.parse_args()
    torch.set_num_threads(args.threads)

    out = Path(args.out)
    lm = tiny_lm(out / "lm", vocab="actions", layers=args.layers, hidden=args.hidden, family="GuiAndroid-v0")
    params = sum(t.numel() for t in load_file(out / "lm" / "model.safetensors").values())
    tiers = {t: v["tier"] for t, v in json.loads(TIERS.read_text()).items()} if TIERS.exists() else {}
    cfg = SFTConfig(
        tasks=args.tasks, env_kwargs={"ui_format": "mobilerl_appc"}, policy="lm", lm_path=lm, device=args.device,
        demos_per_task=args.demos_per_task, epochs=args.epochs, patience=args.patience, lr=args.lr, batch=args.batch,
        k=args.k, eval_seeds=args.eval_seeds, num_envs=args.num_envs, out=str(out / "sft"), tiers=tiers,
    )  # fmt: skip
    start = time.perf_counter()
    summary = clone(cfg)
    wall = time.perf_counter() - start
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    name = torch.cuda.get_device_name() if device.startswith("cuda") else "CPU"
    print(f"LM: {args.layers} layers, hidden {args.hidden}, {params:,} parameters; "
          f"{summary['demonstration_steps']} demonstration steps; {wall:.0f} s on {name}")  # fmt: skip
    k = args.k
    tiers_shown = ("easy", "medium", "hard", "all")
    print(f"{'epoch':>5} {'loss':>7} {'s':>5}  " + "  ".join(f"{t:>6} p@1 p@{k}" for t in tiers_shown))
    for line in (out / "sft" / "sft.jsonl").read_text().splitlines():
        row = json.loads(line)
        cells = "  ".join(
            f"{100 * row.get(f'pass@1_{t}', float('nan')):>10.1f} {100 * row.get(f'pass@{k}_{t}', float('nan')):>4.0f}"
            for t in tiers_shown
        )
        loss = "-" if row["loss"] is None else f"{row['loss']:.3f}"
        print(f"{row['epoch']:>5} {loss:>7} {row['seconds']:>5.0f}  {cells}")
    print(f"kept epoch {summary['kept_epoch']} of {summary['epochs_run']} (0 < pass@{k} < 1 on "
          f"{summary['tiers_in_band']} tiers)")  # fmt: skip


if __name__ == "__main__":
    main()
