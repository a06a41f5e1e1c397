"""The KL reference of an LM policy warm-started by behaviour cloning: the clone, not the untrained LM.

Usage::

    python benchmarks/lm_kl_reference.py --device cuda      # ~2 min on one H100 (tiny LM)
    python benchmarks/lm_kl_reference.py --layers 1 --hidden 32 --epochs 1   # a CPU smoke run

A random-weight Llama (:func:`agents.policies.tiny_lm.tiny_lm`) is cloned on the oracle of two
easy phone tasks (``gui-gym sft --policy lm``), then each algorithm with a KL term starts RL from
the clone (``--init``): AdaGRPO (MobileRL, β = 10⁻³ in the loss), REINFORCE++ (ProgRM, β = 10⁻³
in the reward) and EMPO (β = 10⁻⁴, on the expert trajectories). For each it prints

* whether π_ref holds the clone's weights (it must; before the fix it held the untrained LM's),
* the k1 estimate log π_old − log π_ref of every token the clone sampled in its first rollout
  (0 with the fix), and what it would be against the untrained LM (the bug's reference),
* the ``kl`` the first update logs where the KL is in the loss.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

from agents.policies.tiny_lm import tiny_lm
from agents.sft import SFTConfig, clone
from agents.train import TrainConfig, Trainer

TASKS = "SystemWifiTurnOn,ClockStopWatchRunning"


def _mean_abs(kl: list[list[np.ndarray]]) -> float:
    flat = [abs(float(v)) for steps in kl for k in steps for v in np.ravel(k)]
    return float(np.mean(flat)) if flat else float("nan")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default=None, help="cuda or cpu (default: cuda when there is one)")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    p.add_argument("--out", default="runs/lm-kl-reference")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    out = Path(args.out)
    screen = {"ui_format": "mobilerl_appc"}  # what an LM reads on the phone (MobileRL App. C)

    start = time.perf_counter()
    lm = tiny_lm(out / "lm", vocab="actions", layers=args.layers, hidden=args.hidden, family="GuiAndroid-v0")
    sft = SFTConfig(tasks=TASKS, env_kwargs=screen, policy="lm", lm_path=lm, device=device, demos_per_task=2,
                    epochs=args.epochs, patience=args.epochs, lr=1e-3, batch=16, k=2, eval_seeds=1, num_envs=4,
                    max_steps=10, out=str(out / "sft"), progress=False)  # fmt: skip
    summary = clone(sft)
    name = torch.cuda.get_device_name() if device.startswith("cuda") else "CPU"
    print(f"clone: {summary['demonstration_steps']} demonstration steps, kept epoch {summary['kept_epoch']}, "
          f"{time.perf_counter() - start:.0f} s on {name}")  # fmt: skip

    rows = []
    for algo in ("adagrpo", "reinforce++", "empo"):
        env = {"env_id": "GuiExperience-v0", "tasks": TASKS} if algo == "empo" else {"tasks": TASKS}
        cfg = TrainConfig(**env, env_kwargs={} if algo == "empo" else screen, policy="lm", lm_path=lm, device=device,
                          algo=algo, init=str(out / "sft"), iterations=1, tasks_per_iter=2, group_size=4, num_envs=4,
                          max_steps=10, eval_every=0, out=str(out / algo), progress=False)  # fmt: skip
        trainer = Trainer(cfg)
        try:
            assert trainer.reference is not None, f"{algo} has no KL term"
            pairs = zip(trainer.reference.state_dict().values(), trainer.policy.state_dict().values(), strict=True)
            same = all(torch.equal(a, b) for a, b in pairs)
            episodes, _ = trainer.rollout()
            kl = trainer._token_kl(episodes)
            untrained = copy.deepcopy(trainer.reference)  # the bug's reference: the LM before cloning
            untrained.load_state_dict(type(trainer.policy)(lm, family=cfg.env_id, device=device).state_dict())
            trainer.reference, fixed = untrained, trainer.reference
            bug = trainer._token_kl(episodes)
            trainer.reference = fixed
            row = trainer.iterate()
        finally:
            trainer.close()
        rows.append({"algo": algo, "reference_is_clone": same, "k1_mean_abs": _mean_abs(kl),
                     "k1_mean_abs_untrained_ref": _mean_abs(bug), "kl_logged": row.get("kl")})  # fmt: skip
        print(json.dumps(rows[-1]))
    (out / "summary.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
