"""Behaviour cloning: warm-start a policy on the expert's trajectories before RL (``gui-gym sft``).

The papers start RL from models that already solve some tasks of every difficulty. This module
gives a policy that start (the candidate policy, or with ``policy="lm"`` a local transformers
causal LM, the papers' kind of policy, best on a GPU): it imitates the env's oracle
(``oracle_action()``, every family has one) on training seeds disjoint from evaluation (from
:data:`SFT_SEED_BASE` up; the trainer evaluates on seeds 0..n-1):

- oracle episodes, and noisy-oracle ones where each step takes a random admissible action with
  probability ``noise`` and every state visited is labelled with the oracle's action there (so
  the policy also learns to recover);
- the loss is the negative log-likelihood of the oracle's candidate (steps whose oracle action is
  no candidate are counted and left out: ``coverage``), or for an LM of the oracle's action text
  and the end-of-sequence token after it, per token (every step is covered), backpropagated an
  LM's ``micro_batch`` of sequences at a time, so a batch need not fit in memory at once;
- after every epoch, sampled evaluation on held-out seeds of the evaluation tasks: pass@1 (the
  mean success) and pass@k (a task seed counts when one of ``k`` samples succeeds) per difficulty
  tier. The kept epoch has the most tiers in the band 0 < pass@k < 1 (where RL has both
  successes and failures to compare), then the most tiers with a success, then the highest
  pass@1, then the lowest imitation loss: the most capable policy that still leaves every tier
  something to learn. Training stops ``patience`` epochs after the last new best (or once every
  tier is at pass@k = 1: more epochs only overfit).

The result is a run directory like ``gui-gym train``'s (``checkpoint.pt`` at iteration 0), so
``gui-gym train --init DIR`` starts RL from the cloned policy; ``sft.jsonl`` holds each epoch's
loss, pass@1 / pass@k per tier and wall seconds (written as each epoch ends),
``sft_summary.json`` the kept epoch.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import math
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from tqdm import tqdm

from agents.collect import Episode, Instance
from agents.policies.base import Decision
from agents.train import TrainConfig, Trainer, check_policy, task_ids
from gui_gym.core.family import family_of
from gui_gym.core.io import atomic_write_json

log = logging.getLogger(__name__)

__all__ = ["SFT_SEED_BASE", "SFTConfig", "clone", "collect_demonstrations", "pass_at_k"]

#: Demonstration seeds start here: disjoint from evaluation (0..n-1) and from RL training (10⁶ up).
SFT_SEED_BASE = 500_000


@dataclass
class SFTConfig:
    """Behaviour cloning's settings (see the module docstring)."""

    env_id: str = "GuiAndroid-v0"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    tasks: str = "easy"
    eval_tasks: str | None = None  # default: the training tasks (held-out seeds)
    demos_per_task: int = 4  # oracle episodes per task (as many noisy ones again when noise > 0)
    noise: float = 0.3  # probability of a random action in a noisy-oracle step
    epochs: int = 20
    patience: int = 3  # epochs without a better kept epoch before stopping
    batch: int = 64
    lr: float | None = None  # default: 3e-3 for the candidate head, 1e-5 for an LM (SFT's usual rate)
    k: int = 8  # pass@k
    eval_seeds: int = 4  # held-out seeds per evaluation task
    max_steps: int = 20
    encoder: str | None = None
    hidden: int = 128
    policy: str = "candidate"  # "candidate" | "lm" (a local transformers causal LM, lm_path)
    lm_path: str | None = None
    device: str | None = None  # the LM's device: default "cuda" when there is one
    seed: int = 0
    num_envs: int = 8
    out: str = "runs/sft"
    progress: bool = True
    tiers: dict[str, str] = field(default_factory=dict)  # task → tier for pass@k (default: the family's difficulty)

    def check(self) -> None:
        if not 0.0 <= self.noise < 1.0:
            raise ValueError(f"noise must be in [0, 1), got {self.noise}")
        for name in ("demos_per_task", "epochs", "batch", "k", "eval_seeds", "max_steps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        check_policy(self.policy, self.lm_path)
        if self.lr is not None and not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")

    @property
    def learning_rate(self) -> float:
        """``lr``, or the policy's default when it is ``None``."""
        if self.lr is not None:
            return self.lr
        return 1e-5 if self.policy == "lm" else 3e-3


def collect_demonstrations(
    policy: Any, env_id: str, tasks: Sequence[str], episodes: int, noise: float, rng: np.random.Generator,
    max_steps: int = 20, env_kwargs: dict[str, Any] | None = None,
) -> tuple[list[Decision], dict[str, int]]:  # fmt: skip
    """The oracle's decisions on ``episodes`` seeds of each task (and as many noisy-oracle episodes
    when ``noise`` > 0), as ``policy.imitate`` makes them; and counts (steps, covered, episodes)."""
    family = family_of(env_id)
    out: list[Decision] = []
    counts = {"steps": 0, "covered": 0, "episodes": 0, "successes": 0}
    for task in tasks:
        env = gym.make(env_id, task=task, max_steps=max_steps, **(env_kwargs or {}))
        try:
            for i in range(episodes * (2 if noise > 0 else 1)):
                noisy = i >= episodes
                obs, info = env.reset(seed=SFT_SEED_BASE + i)
                history: list[Decision] = []
                while True:
                    expert = env.unwrapped.oracle_action()
                    decision = policy.imitate(obs, history, expert)
                    counts["steps"] += 1
                    action = expert
                    if decision is not None:
                        counts["covered"] += 1
                        out.append(decision)
                    taken = decision
                    if noisy and rng.random() < noise:
                        cands = family.admissible_actions(obs, info)
                        if cands:
                            pick = cands[int(rng.integers(len(cands)))]
                            action = pick.action
                            taken = policy.imitate(obs, history, action)
                    obs, _, term, trunc, info = env.step(action)
                    if taken is not None:
                        history.append(taken)
                    if term or trunc:
                        counts["episodes"] += 1
                        counts["successes"] += bool(info.get("success"))
                        break
        finally:
            env.close()
    return out, counts


def pass_at_k(episodes: Sequence[Episode], k: int, tiers: dict[str, str] | None = None) -> dict[str, float]:
    """pass@1 and pass@k per difficulty tier and overall, from ``k`` sampled episodes per task seed
    (``tiers``: task → tier in place of each episode's difficulty)."""
    by_seed: dict[tuple[str, int], list[bool]] = defaultdict(list)
    tier: dict[str, str] = {}
    for ep in episodes:
        by_seed[(ep.task_id, ep.instance.seed)].append(bool(ep.success))
        tier[ep.task_id] = (tiers or {}).get(ep.task_id, ep.difficulty)
    out: dict[str, float] = {}
    for name in [*sorted(set(tier.values())), "all"]:
        runs = [v for (t, _), v in by_seed.items() if name == "all" or tier[t] == name]
        out[f"pass@1_{name}"] = float(np.mean([np.mean(v) for v in runs])) if runs else 0.0
        out[f"pass@{k}_{name}"] = float(np.mean([any(v[:k]) for v in runs])) if runs else 0.0
    return out


def _in_band(stats: dict[str, Any], k: int) -> tuple[int, int, int]:
    """(tiers with 0 < pass@k < 1, tiers with a success, tiers)."""
    tiers = [key for key in stats if key.startswith(f"pass@{k}_") and not key.endswith("_all")]
    return sum(0.0 < stats[t] < 1.0 for t in tiers), sum(stats[t] > 0.0 for t in tiers), len(tiers)


def _score(stats: dict[str, Any], k: int) -> tuple[int, int, float, float]:
    """How an epoch ranks: tiers in the band, tiers with a success, pass@1 over every task, then
    the lower imitation loss (so while nothing succeeds yet, the epoch that imitates best is kept
    and training goes on while the loss falls; the untrained epoch 0 has none).

    >>> _score({"pass@8_easy": 1.0, "pass@8_hard": 0.5, "pass@1_all": 0.4, "loss": 0.25}, 8)
    (1, 2, 0.4, -0.25)
    """
    inside, solved, _ = _in_band(stats, k)
    loss = stats.get("loss")
    return inside, solved, float(stats.get("pass@1_all", 0.0)), -math.inf if loss is None else -float(loss)


def _tiers(stats: dict[str, float], k: int) -> list[str]:
    return [key.split("_", 1)[1] for key in stats if key.startswith(f"pass@{k}_") and not key.endswith("_all")]


def _accumulate_nll(policy: Any, batch: Sequence[Decision], micro: int) -> float:
    """Backpropagate the batch's per-token NLL, ``micro`` decisions at a time (gradients add up to
    the whole batch's: each part is divided by the batch's token count); returns the NLL."""
    total = max(1, sum(d.tokens for d in batch))
    nll = 0.0
    for s in range(0, len(batch), micro):
        logp, mask, _ = policy.log_probs(batch[s : s + micro])
        part = -(logp * mask).sum() / total
        part.backward()
        nll += float(part.detach())
    return nll


def clone(cfg: SFTConfig) -> dict[str, Any]:
    """Behaviour-clone the policy (see the module docstring); returns the summary."""
    cfg.check()
    torch.manual_seed(cfg.seed)
    tcfg = TrainConfig(
        env_id=cfg.env_id, env_kwargs=dict(cfg.env_kwargs), tasks=cfg.tasks, eval_tasks=cfg.eval_tasks,
        iterations=1, max_steps=cfg.max_steps, encoder=cfg.encoder, hidden=cfg.hidden, seed=cfg.seed,
        num_envs=cfg.num_envs, eval_every=0, eval_episodes=cfg.eval_seeds, eval_greedy=False, out=cfg.out,
        progress=cfg.progress, lr=cfg.learning_rate, policy=cfg.policy, lm_path=cfg.lm_path, device=cfg.device,
    )  # fmt: skip
    trainer = Trainer(tcfg)
    try:
        policy = trainer.policy
        rng = np.random.default_rng(cfg.seed)
        tasks = task_ids(cfg.tasks, cfg.env_id, cfg.env_kwargs)
        demos, counts = collect_demonstrations(
            policy, cfg.env_id, tasks, cfg.demos_per_task, cfg.noise, rng, cfg.max_steps, cfg.env_kwargs
        )
        if not demos:
            raise ValueError("the oracle's actions are never among the policy's candidates: nothing to imitate")
        coverage = counts["covered"] / max(1, counts["steps"])
        log.info("%d demonstration steps (coverage %.1f%%)", len(demos), 100 * coverage)
        eval_tasks = trainer.eval_tasks
        instances = [
            Instance(t, s, g, m)
            for g, (t, s) in enumerate((t, s) for t in eval_tasks for s in range(cfg.eval_seeds))
            for m in range(cfg.k)
        ]

        def evaluate() -> dict[str, float]:
            episodes, _ = trainer.eval_rollouts.collect(policy, instances, greedy=False, iteration=0)
            return pass_at_k(episodes, cfg.k, cfg.tiers)

        out_dir = Path(cfg.out)
        rows: list[dict[str, Any]] = []
        (out_dir / "sft.jsonl").unlink(missing_ok=True)

        def record(row: dict[str, Any]) -> None:  # each epoch's row as it finishes: a cut run keeps its curve
            rows.append(row)
            with open(out_dir / "sft.jsonl", "a", encoding="utf-8") as f:
                f.write(json.dumps(row) + "\n")

        started = time.perf_counter()
        record({"epoch": 0, "loss": None, **evaluate(), "seconds": round(time.perf_counter() - started, 1)})
        best = (_score(rows[0], cfg.k), 0, copy.deepcopy(policy.state_dict()))
        micro = int(getattr(policy, "micro_batch", cfg.batch))  # an LM's backward holds this many sequences
        bar = tqdm(range(1, cfg.epochs + 1), desc="sft", disable=not cfg.progress, unit="epoch")
        for epoch in bar:
            started = time.perf_counter()
            order = rng.permutation(len(demos))
            losses = []
            for start in range(0, len(order), cfg.batch):
                batch = [demos[i] for i in order[start : start + cfg.batch]]
                trainer.optimizer.zero_grad()
                losses.append(_accumulate_nll(policy, batch, micro))
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                trainer.optimizer.step()
            row = {"epoch": epoch, "loss": float(np.mean(losses)), **evaluate(),
                   "seconds": round(time.perf_counter() - started, 1)}  # fmt: skip
            record(row)
            inside, _, tiers = _in_band(row, cfg.k)
            bar.set_postfix(loss=f"{row['loss']:.3f}", band=f"{inside}/{tiers}")
            if _score(row, cfg.k) > best[0]:
                best = (_score(row, cfg.k), epoch, copy.deepcopy(policy.state_dict()))
            saturated = all(row[f"pass@{cfg.k}_{t}"] == 1.0 for t in _tiers(row, cfg.k))
            if saturated or epoch - best[1] >= cfg.patience:
                break
        policy.load_state_dict(best[2])
        trainer.save()
        kept = next(r for r in rows if r["epoch"] == best[1])
        summary = {
            "config": dataclasses.asdict(cfg), "demonstration_steps": len(demos), "coverage": coverage,
            "oracle_episodes": counts["episodes"], "oracle_successes": counts["successes"],
            "kept_epoch": best[1], "epochs_run": rows[-1]["epoch"], "tiers_in_band": best[0][0], "kept": kept,
            "before": rows[0],
        }  # fmt: skip
        atomic_write_json(out_dir / "sft_summary.json", summary)
        return summary
    finally:
        trainer.close()
