"""The reference trainer: rollout → advantage → loss, for every named algorithm.

One iteration, top to bottom (:meth:`Trainer.iterate`):

1. sample ``tasks_per_iter`` task instances (FCF-weighted for AdaGRPO) and roll out a group
   of ``group_size`` trajectories of each (:mod:`agents.collect`, a gymnasium vector env or
   Ray actors);
2. DAPO only: drop groups whose rewards are all equal and sample more, at most
   ``max_resample`` times;
3. advantages per group (:mod:`agents.algos.advantages`) from the final per-step rewards the
   wrappers publish (``info["episode_rewards"]``), SPA-adjusted for AdaGRPO;
4. AdaGRPO only: the top κ enter the AdaPR buffer, replayed trajectories join the batch, and
   negatives are pruned to 1:2;
5. ``ppo_epochs`` passes of clipped-surrogate updates over mini-batches
   (:func:`agents.algos.losses.policy_loss`); a non-finite loss skips that update;
6. metrics (success, every reward component, lengths, loss statistics) to ``metrics.jsonl``
   and ``metrics.csv``, held-out evaluation every ``eval_every`` iterations, and an atomic
   checkpoint that ``resume=True`` continues from exactly.

Example (``gui-gym train`` does the same from the command line)::

    from agents.train import TrainConfig, Trainer

    cfg = TrainConfig(tasks="easy", reward="milestone+spa", algo="grpo", iterations=50, out="runs/a")
    summary = Trainer(cfg).run()                    # Trainer(cfg, resume=True) continues it
"""

from __future__ import annotations

import copy
import csv
import functools
import json
import logging
import math
import os
import pickle
import random
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from agents.algos.adagrpo import FailureCurriculum, ReplayBuffer, prune_negatives
from agents.algos.advantages import (
    dynamic_sampling_mask,
    group_advantages,
    reinforce_pp_advantages,
    rloo_advantages,
    step_group_advantages,
)
from agents.algos.losses import policy_loss
from agents.algos.variants import Algorithm, algorithm
from agents.collect import Episode, Instance, collect, make_vector_env
from agents.policies.base import Decision, TrainablePolicy
from gui_gym.core.io import atomic_write
from wrappers.spa import adjust_group
from wrappers.spec import RewardState, make_env, parse_reward
from wrappers.state import read_torch_checkpoint

log = logging.getLogger(__name__)

__all__ = ["TrainConfig", "Trainer", "load_checkpoint", "train"]

CHECKPOINT = "checkpoint.pt"
FORMAT, VERSION = "gui-gym-train", 1
#: Training seeds start here; evaluation uses seeds below it, so evaluation instances are held out.
TRAIN_SEED_BASE = 1_000_000


@dataclass
class TrainConfig:
    """Every hyperparameter of a run, with the papers' defaults (ours where they are silent).

    ADMIRE App. A.1.2: 4 tasks × 8 trajectories per iteration, 2 update epochs per iteration,
    mini-batch 128, clip 0.2, lr 1e-6, no KL, no entropy bonus, at most 20 steps. MobileRL
    Table 4: gradient clipping 1.0, KL β = 0.001, SPA α = 1.0, AdaPR buffer 256 / γ = 1.0 /
    κ = 0.25. The learning rate of the candidate policy's small head is ours (``lr=None``
    picks 1e-6 for a language model and 3e-3 for the candidate head).
    """

    # environment
    env_id: str = "GuiAndroid-v0"
    tasks: str = "easy"  # a tier, a task id, or comma-separated ids
    eval_tasks: str | None = None  # default: the training tasks, on held-out seeds
    reward: str = "outcome"  # see wrappers.spec
    max_steps: int | None = 20  # ADMIRE caps trajectories at 20 steps
    ui_format: str | None = None  # None: "compressed" (MobileRL App. C) for --policy lm, else "xml"
    # algorithm
    algo: str = "grpo"
    level: str = "trajectory"  # "step": ADMIRE's step-level GRPO (Eq. 12-13)
    iterations: int = 100
    tasks_per_iter: int = 4
    group_size: int = 8
    ppo_epochs: int = 2
    minibatch: int = 128  # decisions per gradient step
    lr: float | None = None
    clip_low: float | None = None  # None: the algorithm's (0.2)
    clip_high: float | None = None  # None: the algorithm's (0.2; DAPO 0.28)
    kl_coef: float | None = None  # None: the algorithm's (0; REINFORCE++ and AdaGRPO 0.001)
    entropy_coef: float = 0.0
    max_grad_norm: float = 1.0
    gamma: float = 1.0  # REINFORCE++ discount
    max_resample: int = 3  # DAPO dynamic sampling: extra sampling rounds per iteration
    spa_alpha: float = 1.0
    replay_capacity: int = 256
    replay_kappa: float = 0.25
    replay_gamma: float = 1.0
    fcf_fail_epochs: int = 2
    fcf_cooldown: int = 3
    prune_ratio: float = 2.0
    # policy
    policy: str = "candidate"  # "candidate" | "lm"
    lm_path: str | None = None
    encoder: str | None = None  # candidate policy: local sentence-transformers dir (default MiniLM)
    hidden: int = 128
    temperature: float = 1.0
    device: str | None = None
    # run
    seed: int = 0
    num_envs: int = 8
    vectorization: str = "sync"
    eval_every: int = 10
    eval_episodes: int = 4  # per evaluation task, seeds 0..n-1
    eval_greedy: bool = True
    out: str = "runs/train"
    progress: bool = True
    tensorboard: bool = False
    ray: bool = False
    ray_address: str | None = None
    ray_workers: int = 2
    extra: dict[str, Any] = field(default_factory=dict)

    def check(self) -> None:
        """Raise ``ValueError`` naming the first setting that cannot work."""
        algorithm(self.algo, self.level)
        parse_reward(self.reward)
        for name in ("iterations", "tasks_per_iter", "group_size", "ppo_epochs", "minibatch", "num_envs"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.eval_every < 0 or self.eval_episodes < 0:
            raise ValueError("eval_every and eval_episodes must be non-negative")
        if self.policy not in ("candidate", "lm"):
            raise ValueError(f"policy must be 'candidate' or 'lm', got {self.policy!r}")
        if self.policy == "lm" and not self.lm_path:
            raise ValueError("--policy lm needs --lm-path: a local transformers checkpoint directory")
        if self.vectorization not in ("sync", "async"):
            raise ValueError(f"vectorization must be 'sync' or 'async', got {self.vectorization!r}")

    @property
    def screen_format(self) -> str:
        return self.ui_format or ("compressed" if self.policy == "lm" else "xml")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


def task_ids(spec: str | None) -> list[str]:
    """The task ids of a tier, an id, or a comma-separated list (unknown ids: ValueError)."""
    from gui_gym.android.env import resolve_tasks

    parts = [p.strip() for p in str(spec or "").split(",") if p.strip()]
    try:
        templates = resolve_tasks(parts[0] if len(parts) == 1 else (parts or None))
    except (KeyError, ValueError) as e:
        raise ValueError(f"unknown task selection {spec!r}: {e}") from e
    return [t.id for t in templates]


def _difficulty(task_id: str) -> str:
    from gui_gym.android.sim.tasks import TASKS

    task = TASKS.get(task_id)
    return getattr(task, "difficulty", "?")


def build_policy(cfg: TrainConfig) -> TrainablePolicy:
    if cfg.policy == "lm":
        from agents.policies.lm import LMPolicy

        return LMPolicy(cfg.lm_path, device=cfg.device, temperature=cfg.temperature)
    from agents.policies.candidate import CandidatePolicy

    return CandidatePolicy(encoder=cfg.encoder, hidden=cfg.hidden, temperature=cfg.temperature, seed=cfg.seed)


# ----------------------------------------------------------------------------- advantages


def compute_advantages(
    episodes: Sequence[Episode],
    algo: Algorithm,
    spa_alpha: float = 1.0,
    gamma: float = 1.0,
    kl: Sequence[np.ndarray] | None = None,
    kl_coef: float = 0.0,
) -> list[np.ndarray]:
    """Per-step advantages of each episode (one array per episode, one value per step).

    Groups are the episodes that share ``instance.group``. ``kl`` (REINFORCE++) holds each
    episode's per-step KL to the reference policy.
    """
    by_group: dict[int, list[int]] = defaultdict(list)
    for i, ep in enumerate(episodes):
        by_group[ep.instance.group].append(i)
    out: list[np.ndarray | None] = [None] * len(episodes)
    if algo.advantage == "reinforce++":
        rewards = [_terminal_rewards(ep) for ep in episodes]
        adv = reinforce_pp_advantages(rewards, kl=kl, kl_coef=kl_coef if kl is not None else 0.0, gamma=gamma)
        return [np.asarray(a, dtype=np.float64) for a in adv]
    for idx in by_group.values():
        eps = [episodes[i] for i in idx]
        if algo.advantage == "step-group":
            values = step_group_advantages([ep.rewards for ep in eps])
            for i, v in zip(idx, values, strict=True):
                out[i] = np.asarray(v, dtype=np.float64)
            continue
        returns = group_returns(eps, spa_alpha if algo.spa else None)
        a = group_advantages(returns) if algo.advantage == "group" else rloo_advantages(returns)
        for i, ai in zip(idx, a, strict=True):
            out[i] = np.full(episodes[i].length, float(ai))
    return [o if o is not None else np.zeros(0) for o in out]


def group_returns(episodes: Sequence[Episode], spa_alpha: float | None = None) -> list[float]:
    """R(τ) of each episode of one group; with ``spa_alpha``, SPA over the group (MobileRL Eq. 2)."""
    if spa_alpha is None:
        return [ep.ret for ep in episodes]
    return adjust_group(
        [ep.length for ep in episodes],
        [ep.outcome for ep in episodes],
        alpha=spa_alpha,
        successes=[ep.success for ep in episodes],
    )


def _terminal_rewards(ep: Episode) -> np.ndarray:
    """Per-step rewards with the outcome once, at the last step (REINFORCE++ returns sum them)."""
    out = ep.rewards.copy()
    outcome = ep.components.get("outcome")
    if outcome is not None and len(outcome) == len(out):
        out = out - outcome
        out[-1] += outcome[-1]
    return out


# ----------------------------------------------------------------------------- the trainer


class Trainer:
    """Runs :class:`TrainConfig` in ``cfg.out``: ``Trainer(cfg).run()`` (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, resume: bool = False, policy: TrainablePolicy | None = None) -> None:
        cfg.check()
        self.cfg = cfg
        self.algo = algorithm(cfg.algo, cfg.level)
        self.clip_low = cfg.clip_low if cfg.clip_low is not None else self.algo.clip_low
        self.clip_high = cfg.clip_high if cfg.clip_high is not None else self.algo.clip_high
        self.kl_coef = cfg.kl_coef if cfg.kl_coef is not None else self.algo.kl_coef
        self.out = Path(cfg.out)
        self.train_tasks = task_ids(cfg.tasks)
        self.eval_tasks = task_ids(cfg.eval_tasks) if cfg.eval_tasks else list(self.train_tasks)
        self.iters_per_epoch = max(1, math.ceil(len(self.train_tasks) / cfg.tasks_per_iter))

        self.iteration = 0
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        random.seed(cfg.seed)
        self.reward_state = RewardState()
        self.replay: ReplayBuffer[Episode] = ReplayBuffer(cfg.replay_capacity, cfg.replay_kappa)
        self.fcf = FailureCurriculum(cfg.fcf_fail_epochs, cfg.fcf_cooldown)
        self.epoch_outcomes: dict[str, list[float]] = defaultdict(list)
        self.history: list[dict[str, Any]] = []

        self.policy = policy if policy is not None else build_policy(cfg)
        lr = cfg.lr if cfg.lr is not None else (1e-6 if cfg.policy == "lm" else 3e-3)
        self.optimizer = torch.optim.Adam([p for p in self.policy.parameters() if p.requires_grad], lr=lr)
        self.reference: TrainablePolicy | None = None
        if self.kl_coef > 0:
            self.reference = copy.deepcopy(self.policy)
            for p in self.reference.parameters():
                p.requires_grad_(False)

        if resume:
            self._load(self.out / CHECKPOINT)
        elif (self.out / CHECKPOINT).exists():
            raise FileExistsError(
                f"{self.out} already holds a run; pass --resume to continue it or choose another --out"
            )
        self.out.mkdir(parents=True, exist_ok=True)
        self.rollouts = self._rollout_backend()
        self.eval_rollouts = self._rollout_backend(reward="outcome")
        self._tb = self._tensorboard() if cfg.tensorboard else None

    # -- rollouts ------------------------------------------------------------------------
    def _env_fn(self, reward: str) -> Any:
        """A picklable env factory (Ray workers get a copy; local sub-envs share the reward state)."""
        cfg = self.cfg
        return functools.partial(
            make_env, cfg.env_id, tasks=self.train_tasks, reward=reward, state=self.reward_state,
            spa_alpha=cfg.spa_alpha, max_steps=cfg.max_steps, ui_format=cfg.screen_format,
        )  # fmt: skip

    def _rollout_backend(self, reward: str | None = None) -> Any:
        cfg = self.cfg
        reward = reward or cfg.reward
        if cfg.ray or cfg.ray_address:
            from agents.distributed import RayRollouts

            return RayRollouts(
                self._env_fn(reward), functools.partial(build_policy, cfg), cfg.ray_workers, address=cfg.ray_address
            )
        return LocalRollouts(self._env_fn(reward), cfg.num_envs, cfg.vectorization)

    # -- one iteration -------------------------------------------------------------------
    @property
    def epoch(self) -> int:
        return self.iteration // self.iters_per_epoch

    def sample_instances(self, n_groups: int, first_group: int = 0) -> list[Instance]:
        """``n_groups`` task instances × ``group_size`` members (FCF-weighted for AdaGRPO)."""
        cfg = self.cfg
        if self.algo.fcf:
            tasks = self.fcf.sample(self.train_tasks, n_groups, self.rng)
        else:
            replace = n_groups > len(self.train_tasks)
            tasks = list(self.rng.choice(self.train_tasks, size=n_groups, replace=replace))
        seeds = self.rng.integers(TRAIN_SEED_BASE, 2**31 - 1, size=n_groups)
        return [
            Instance(str(t), int(s), first_group + g, m)
            for g, (t, s) in enumerate(zip(tasks, seeds, strict=True))
            for m in range(cfg.group_size)
        ]

    def rollout(self) -> tuple[list[Episode], dict[str, Any]]:
        """This iteration's on-policy episodes (after DAPO's dynamic sampling) and rollout stats."""
        cfg = self.cfg
        stats: dict[str, Any] = {"dropped_episodes": 0, "resample_rounds": 0, "zero_variance_groups": 0}
        episodes: list[Episode] = []
        want, first, rounds = cfg.tasks_per_iter, 0, 0
        while True:
            instances = self.sample_instances(want, first)
            first += want
            got, errors = self.rollouts.collect(self.policy, instances, iteration=self.iteration)
            stats["dropped_episodes"] += len(errors)
            stats.setdefault("all_episodes", []).extend(got)
            if not self.algo.dynamic_sampling:
                episodes = got
                break
            groups = _groups(got)
            keep = dynamic_sampling_mask([[ep.ret for ep in g] for g in groups])
            stats["zero_variance_groups"] += sum(not k for k in keep)
            episodes += [ep for g, k in zip(groups, keep, strict=True) if k for ep in g]
            have = len({ep.instance.group for ep in episodes})
            if have >= cfg.tasks_per_iter or rounds >= cfg.max_resample:
                if have < cfg.tasks_per_iter:
                    log.info("dynamic sampling: %d/%d groups with reward variance after %d extra rounds",
                             have, cfg.tasks_per_iter, rounds)  # fmt: skip
                break
            want, rounds = cfg.tasks_per_iter - have, rounds + 1
        stats["resample_rounds"] = rounds
        return episodes, stats

    def iterate(self) -> dict[str, Any]:
        """One iteration (rollout, advantages, update); returns its metrics."""
        cfg, algo = self.cfg, self.algo
        t0 = time.perf_counter()
        self.rollouts.set_epoch(self.epoch)
        episodes, stats = self.rollout()
        seen = stats.pop("all_episodes")
        t1 = time.perf_counter()

        kl = None
        if algo.advantage == "reinforce++" and self.reference is not None and self.kl_coef > 0 and episodes:
            kl = self._step_kl(episodes)
        advantages = compute_advantages(episodes, algo, cfg.spa_alpha, cfg.gamma, kl, self.kl_coef)
        for ep, a in zip(episodes, advantages, strict=True):
            ep.advantages = a

        # AdaPR (MobileRL §2.2.2, App. B): evict stale entries, top the batch up with at most γ·N
        # replayed trajectories (about 1:1 with γ = 1), and offer this round's rollouts after the update.
        batch = list(episodes)
        traj_adv = [float(ep.advantages[0]) if ep.length else 0.0 for ep in episodes]
        if algo.replay:
            self.replay.evict(self.iteration)
            replayed = self.replay.sample(len(batch), cfg.replay_gamma)
            batch += replayed
            stats["replayed"] = len(replayed)
        if algo.prune and batch:
            keep = prune_negatives([float(ep.advantages[0]) if ep.length else 0.0 for ep in batch],
                                   cfg.prune_ratio, self.rng)  # fmt: skip
            stats["pruned"] = len(batch) - len(keep)
            batch = [batch[i] for i in keep]
        update = self.update(batch) if batch else {"updates": 0, "skipped_updates": 0}
        if algo.replay:
            stats["replay_entered"] = self.replay.add(episodes, traj_adv, self.iteration)
            stats["replay_size"] = len(self.replay)
        t2 = time.perf_counter()

        if algo.fcf:
            for ep in seen:
                self.epoch_outcomes[ep.task_id].append(ep.outcome)
        metrics = self._metrics(seen, stats, update)
        metrics.update(time_rollout=t1 - t0, time_update=t2 - t1)
        self.iteration += 1
        if algo.fcf and self.iteration % self.iters_per_epoch == 0:
            self.fcf.update(dict(self.epoch_outcomes))
            self.epoch_outcomes.clear()
            metrics["fcf_removed"] = len(self.fcf.removed)
            metrics["fcf_cooldown"] = len(self.fcf.in_cooldown)
        return metrics

    def _step_kl(self, episodes: Sequence[Episode]) -> list[np.ndarray]:
        """Per-step KL (k3, summed over a step's tokens) of the policy to the reference."""
        assert self.reference is not None
        decisions = [d for ep in episodes for d in ep.decisions]
        with torch.no_grad():
            ref, mask, _ = self.reference.log_probs(decisions)
            from agents.algos.losses import kl_k3

            old = _padded([d.logp for d in decisions], ref.shape[1])
            per_step = (kl_k3(old, ref) * mask).sum(dim=1).cpu().numpy()
        out, i = [], 0
        for ep in episodes:
            out.append(per_step[i : i + ep.length].astype(np.float64))
            i += ep.length
        return out

    def update(self, batch: Sequence[Episode]) -> dict[str, Any]:
        """``ppo_epochs`` passes of clipped-surrogate updates over mini-batches of decisions."""
        cfg = self.cfg
        rows: list[tuple[Decision, float, int]] = [
            (d, float(a), t) for t, ep in enumerate(batch) for d, a in zip(ep.decisions, ep.advantages, strict=True)
        ]
        totals: dict[str, float] = defaultdict(float)
        updates = skipped = 0
        # The reference is frozen: score every decision under it once, not once per epoch.
        refs: list[torch.Tensor] | None = None
        if self.reference is not None and self.kl_coef > 0 and self.algo.advantage != "reinforce++":
            with torch.no_grad():
                refs = []
                for start in range(0, len(rows), cfg.minibatch):
                    ref, mask, _ = self.reference.log_probs([r[0] for r in rows[start : start + cfg.minibatch]])
                    refs += [row[m].cpu() for row, m in zip(ref, mask.bool(), strict=True)]
        params = [p for p in self.policy.parameters() if p.requires_grad]
        for _ in range(cfg.ppo_epochs):
            order = self.rng.permutation(len(rows))
            for start in range(0, len(rows), cfg.minibatch):
                mb = [rows[i] for i in order[start : start + cfg.minibatch]]
                decisions = [r[0] for r in mb]
                logp, mask, entropy = self.policy.log_probs(decisions)
                old = _padded([d.logp for d in decisions], logp.shape[1]).to(logp.device)
                adv = torch.tensor([r[1] for r in mb], dtype=logp.dtype, device=logp.device)
                groups = torch.tensor([r[2] for r in mb], device=logp.device)
                ref = None
                if refs is not None:
                    ref = _padded([refs[i].numpy() for i in order[start : start + cfg.minibatch]], logp.shape[1])
                    ref = ref.to(logp.device)
                try:
                    loss, stats = policy_loss(
                        logp, old, adv, mask, self.clip_low, self.clip_high, self.algo.aggregation, groups=groups,
                        ref_logp=ref, kl_coef=self.kl_coef if ref is not None else 0.0,
                        entropy=entropy, entropy_coef=cfg.entropy_coef,
                    )  # fmt: skip
                    if not torch.isfinite(loss):
                        raise FloatingPointError(f"loss is {loss.item()}")
                except FloatingPointError as e:
                    log.warning("iteration %d: skipped an update with a non-finite loss (%s)", self.iteration, e)
                    skipped += 1
                    continue
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                grad_norm = torch.nn.utils.clip_grad_norm_(params, cfg.max_grad_norm)
                if not torch.isfinite(grad_norm):
                    log.warning("iteration %d: skipped an update with a non-finite gradient", self.iteration)
                    self.optimizer.zero_grad(set_to_none=True)
                    skipped += 1
                    continue
                self.optimizer.step()
                updates += 1
                totals["loss"] += float(loss.detach())
                totals["grad_norm"] += float(grad_norm)
                for k, v in stats.items():
                    totals[k] += float(v)
        out: dict[str, Any] = {k: v / max(1, updates) for k, v in totals.items()}
        out.update(updates=updates, skipped_updates=skipped, batch_trajectories=len(batch), batch_decisions=len(rows))
        return out

    # -- evaluation ----------------------------------------------------------------------
    def evaluate(self, episodes_per_task: int | None = None) -> dict[str, Any]:
        """Success on held-out seeds (0..n-1, never trained on) of the evaluation tasks; never FCF-filtered."""
        n = self.cfg.eval_episodes if episodes_per_task is None else episodes_per_task
        episodes, errors = self.evaluation_episodes(self.eval_tasks, n)
        if not episodes and not errors:
            return {}
        return _success_stats(episodes, prefix="eval_") | {"eval_dropped": len(errors)}

    def evaluation_episodes(
        self, tasks: Sequence[str], episodes_per_task: int
    ) -> tuple[list[Episode], list[tuple[Instance, str]]]:
        """The policy on seeds 0..n-1 of ``tasks`` (any tasks, trained on or not) with the env's own reward."""
        instances = [
            Instance(t, s, i, 0) for i, (t, s) in enumerate((t, s) for t in tasks for s in range(episodes_per_task))
        ]
        if not instances:
            return [], []
        return self.eval_rollouts.collect(self.policy, instances, greedy=self.cfg.eval_greedy, iteration=self.iteration)

    # -- loop ----------------------------------------------------------------------------
    def run(self, close: bool = True) -> dict[str, Any]:
        """Train until ``cfg.iterations``; returns a summary. Ctrl-C loses at most the current iteration.

        ``close=False`` keeps the envs open (for more evaluation); call :meth:`close` after."""
        cfg = self.cfg
        if self.iteration == 0 and cfg.eval_every and cfg.eval_episodes:
            first = self.evaluate()
            first["iteration"] = -1
            self._record(first)
        bar = tqdm(total=cfg.iterations, initial=self.iteration, desc=f"{cfg.algo}/{cfg.reward}",
                   disable=not cfg.progress, unit="it")  # fmt: skip
        failures = 0
        try:
            while self.iteration < cfg.iterations:
                metrics = self.iterate()
                failures = failures + 1 if metrics["episodes"] == 0 else 0
                if failures >= 3:
                    raise RuntimeError("three iterations in a row produced no episode: every env failed; see the log")
                done = self.iteration
                if cfg.eval_every and cfg.eval_episodes and (done % cfg.eval_every == 0 or done == cfg.iterations):
                    metrics.update(self.evaluate())
                metrics["iteration"] = done - 1
                self._record(metrics, save=True)
                bar.update(1)
                post = {"success": f"{metrics['success_rate']:.2f}"}
                if "eval_success_rate" in metrics:
                    post["eval"] = f"{metrics['eval_success_rate']:.2f}"
                bar.set_postfix(post, refresh=False)
        except BaseException:
            self.close()
            raise
        finally:
            bar.close()
        if close:
            self.close()
        return self.summary()

    def summary(self) -> dict[str, Any]:
        evals = [m for m in self.history if "eval_success_rate" in m]
        return {
            "iterations": self.iteration,
            "first_eval": evals[0] if evals else None,
            "last_eval": evals[-1] if evals else None,
            "out": str(self.out),
        }

    def close(self) -> None:
        for backend in (getattr(self, "rollouts", None), getattr(self, "eval_rollouts", None)):
            if backend is not None:
                backend.close()
        if self._tb is not None:
            self._tb.close()

    # -- metrics -------------------------------------------------------------------------
    def _metrics(self, episodes: Sequence[Episode], stats: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
        m: dict[str, Any] = {"epoch": self.epoch, **_success_stats(episodes)}
        if episodes:
            names = sorted({k for ep in episodes for k in ep.components})
            for k in names:  # each term's mean per-step value, then the trajectory-level R(τ)
                m[f"reward_{k}"] = float(np.mean([np.mean(ep.components.get(k, [0.0])) for ep in episodes]))
            m["return"] = float(np.mean([ep.ret for ep in episodes]))
            counted = [ep.milestones for ep in episodes if ep.milestones is not None]
            if counted:  # ADMIRE App. B.2 / B.6: hits per episode, and the share with milestones at all
                m["milestone_hits"] = float(np.mean([hit for hit, _ in counted]))
                m["milestone_hit_rate"] = sum(h for h, _ in counted) / max(1, sum(k for _, k in counted))
                m["milestone_coverage"] = float(np.mean([k > 0 for _, k in counted]))
        m.update(stats)
        m.update(update)
        return m

    def _record(self, metrics: dict[str, Any], save: bool = False) -> None:
        """Add a metrics row; with ``save``, checkpoint (with the row) before the files get it."""
        metrics = {k: (float(v) if isinstance(v, np.floating | np.integer) else v) for k, v in metrics.items()}
        self.history.append(metrics)
        if save:
            self.save()
        with open(self.out / "metrics.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(metrics) + "\n")
        keys = list(dict.fromkeys(k for m in self.history for k in m))
        keys.remove("iteration")

        def write(f: Any) -> None:
            w = csv.DictWriter(f, fieldnames=["iteration", *keys])
            w.writeheader()
            w.writerows(self.history)

        atomic_write(self.out / "metrics.csv", write)
        if self._tb is not None:
            for k, v in metrics.items():
                if isinstance(v, int | float) and k != "iteration":
                    self._tb.add_scalar(k, v, metrics["iteration"])

    def _tensorboard(self) -> Any:
        try:
            from torch.utils.tensorboard import SummaryWriter
        except ImportError:
            log.warning("tensorboard is not installed (pip install tensorboard); writing CSV/JSONL only")
            return None
        return SummaryWriter(str(self.out / "tb"))

    # -- checkpoints ---------------------------------------------------------------------
    def save(self) -> Path:
        """Write ``checkpoint.pt`` atomically: everything a resumed run needs to continue exactly."""
        state = {
            "format": FORMAT,
            "version": VERSION,
            "config": asdict(self.cfg),
            "iteration": self.iteration,
            "policy": self.policy.state_dict(),
            "policy_config": self.policy.config(),
            "optimizer": self.optimizer.state_dict(),
            "reference": None if self.reference is None else self.reference.state_dict(),
            "rng": self.rng.bit_generator.state,
            "torch_rng": torch.get_rng_state(),
            "python_rng": random.getstate(),
            # Python objects (buffer of episodes, FCF, milestone book): pickled, for trusted runs only.
            "objects": pickle.dumps(
                {
                    "replay": self.replay.state_dict(),
                    "fcf": self.fcf.state_dict(),
                    "epoch_outcomes": dict(self.epoch_outcomes),
                    "reward_state": self.reward_state,
                    "history": self.history,
                }
            ),
        }
        path = self.out / CHECKPOINT
        atomic_write(path, lambda f: torch.save(state, f), binary=True)
        return path

    def _load(self, path: Path) -> None:
        ckpt = load_checkpoint(path)
        saved = TrainConfig.from_dict(ckpt["config"])
        for key in ("policy", "algo", "level", "reward", "tasks", "group_size", "tasks_per_iter", "hidden"):
            if getattr(saved, key) != getattr(self.cfg, key):
                raise ValueError(
                    f"{path} was trained with {key}={getattr(saved, key)!r}, not {getattr(self.cfg, key)!r}; "
                    "resume with the same settings or start a new --out"
                )
        try:
            self.policy.load_state_dict(ckpt["policy"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            if self.reference is not None and ckpt.get("reference") is not None:
                self.reference.load_state_dict(ckpt["reference"])
            objects = pickle.loads(ckpt["objects"])
        except (RuntimeError, ValueError, KeyError, pickle.UnpicklingError) as e:
            raise ValueError(f"{path} does not match this policy or is damaged: {e}") from e
        self.iteration = int(ckpt["iteration"])
        self.rng.bit_generator.state = ckpt["rng"]
        torch.set_rng_state(ckpt["torch_rng"])
        random.setstate(ckpt["python_rng"])
        self.replay.load_state_dict(objects["replay"])
        self.fcf.load_state_dict(objects["fcf"])
        self.epoch_outcomes = defaultdict(list, objects["epoch_outcomes"])
        self.reward_state = objects["reward_state"]
        self.history = list(objects["history"])
        # metrics.jsonl may hold the interrupted iteration: rewrite it from the checkpoint's history
        lines = "".join(json.dumps(m) + "\n" for m in self.history)
        atomic_write(self.out / "metrics.jsonl", lambda f: f.write(lines))


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A training checkpoint as a dict; FileNotFoundError / ValueError (naming the file) otherwise.

    Training checkpoints pickle Python objects (the replay buffer, the milestone book): load
    only runs you trust. The policy weights alone are in ``policy.pt`` (``weights_only``).
    """
    return read_torch_checkpoint(
        path, "training checkpoint", FORMAT, VERSION, "start a run without --resume first", weights_only=False
    )


class LocalRollouts:
    """Rollouts on this machine over a gymnasium vector env (:func:`agents.collect.collect`)."""

    def __init__(self, make_env: Any, num_envs: int, vectorization: str = "sync") -> None:
        self.envs = make_vector_env(make_env, num_envs, vectorization)

    def collect(
        self, policy: TrainablePolicy, instances: Sequence[Instance], greedy: bool = False, iteration: int = 0
    ) -> tuple[list[Episode], list[tuple[Instance, str]]]:
        if hasattr(policy, "eval"):
            policy.eval()
        with torch.no_grad():
            episodes, errors = collect(
                self.envs, policy, instances, greedy=greedy, iteration=iteration, difficulty=_difficulty
            )
        if hasattr(policy, "train"):
            policy.train()
        return episodes, errors

    def set_epoch(self, epoch: int) -> None:
        self.envs.call("set_epoch", epoch)

    def close(self) -> None:
        self.envs.close()


def _groups(episodes: Sequence[Episode]) -> list[list[Episode]]:
    by: dict[int, list[Episode]] = defaultdict(list)
    for ep in episodes:
        by[ep.instance.group].append(ep)
    return list(by.values())


def _padded(rows: Sequence[np.ndarray], width: int) -> torch.Tensor:
    out = torch.zeros(len(rows), width, dtype=torch.float32)
    for i, r in enumerate(rows):
        n = min(len(r), width)
        out[i, :n] = torch.as_tensor(np.asarray(r[:n], dtype=np.float32))
    return out


def _success_stats(episodes: Sequence[Episode], prefix: str = "") -> dict[str, Any]:
    m: dict[str, Any] = {f"{prefix}episodes": len(episodes)}
    if not episodes:
        m[f"{prefix}success_rate"] = 0.0
        return m
    m[f"{prefix}success_rate"] = float(np.mean([ep.success for ep in episodes]))
    m[f"{prefix}mean_length"] = float(np.mean([ep.length for ep in episodes]))
    wins = [ep.length for ep in episodes if ep.success]
    if wins:
        m[f"{prefix}success_length"] = float(np.mean(wins))
    m[f"{prefix}invalid_rate"] = float(sum(ep.invalid for ep in episodes) / max(1, sum(ep.length for ep in episodes)))
    for tier in ("easy", "medium", "hard"):
        eps = [ep for ep in episodes if ep.difficulty == tier]
        if eps and len(eps) < len(episodes):
            m[f"{prefix}success_{tier}"] = float(np.mean([ep.success for ep in eps]))
    return m


def train(cfg: TrainConfig, resume: bool = False) -> dict[str, Any]:
    """``Trainer(cfg, resume).run()``."""
    return Trainer(cfg, resume=resume).run()
