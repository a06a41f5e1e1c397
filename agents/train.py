"""The reference trainer: rollout → advantage → loss, for every named algorithm.

The trainer knows no env family: it reads task lists from the env's family
(:func:`gui_gym.core.family.family_of`), everything else from the env contract's ``info``, and
asks the algorithm object (:mod:`agents.algos.registry`) and the group sampler
(:mod:`agents.sampling`) for what differs between algorithms. One iteration, top to bottom
(:meth:`Trainer.iterate`):

1. the sampler draws ``tasks_per_iter`` task instances (uniformly; FCF-weighted for AdaGRPO)
   and a group of ``group_size`` trajectories of each is rolled out (:mod:`agents.collect`,
   a gymnasium vector env or Ray actors);
2. the algorithm may keep only some groups and ask for more (DAPO drops groups whose rewards
   are all equal), at most ``max_resample`` times;
3. the batch's settled rewards: terms final only over a batch are settled now
   (:func:`wrappers.spec.settle_batch`: ADMIRE's milestone book refined from the batch's
   successes, then every episode credited against it; SPA's T_min from each group), and the
   algorithm's advantages per group from the final per-step rewards, with R(τ) the algorithm's
   choice (:mod:`agents.algos.returns`: the sum, SPA-adjusted for AdaGRPO, step-level for ADMIRE);
4. the algorithm selects the batch (AdaGRPO: replayed trajectories join it and negatives are
   pruned to 1:2; after the update the top κ enter the AdaPR buffer);
5. ``ppo_epochs`` passes of clipped-surrogate updates over mini-batches
   (:func:`agents.algos.losses.policy_loss`); a non-finite loss skips that update;
6. metrics (success, every reward component, lengths, loss statistics) to ``metrics.jsonl``
   and ``metrics.csv``, held-out evaluation every ``eval_every`` iterations, and an atomic
   checkpoint that ``resume=True`` continues from exactly.

Example (``gui-gym train`` does the same from the command line)::

    from agents.train import TrainConfig, Trainer

    cfg = TrainConfig(tasks="easy", reward="milestone+spa", algo="grpo", iterations=50, out="runs/a")
    summary = Trainer(cfg).run()                    # Trainer(cfg, resume=True) continues it

Any registered env id works (``env_id``, with ``env_kwargs`` for ``gym.make``), including
gymnasium's ``"module:EnvId"`` form for an env registered by the user's own module.
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

import gui_gym  # noqa: F401  (registers the env ids)
from agents.algos.adagrpo import ReplayBuffer
from agents.algos.base import Algorithm, Round, by_group
from agents.algos.grpo import group_returns
from agents.algos.losses import policy_loss
from agents.algos.registry import algorithm
from agents.collect import EPISODE_CLASSES, Episode, Instance, LocalRollouts
from agents.policies.base import Decision, TrainablePolicy
from agents.sampling import SAMPLERS, TRAIN_SEED_BASE, UniformSampler, make_sampler
from gui_gym.core.contract import DIFFICULTIES
from gui_gym.core.family import EnvFamily, family_of, family_tasks
from gui_gym.core.io import atomic_write, load_plain
from gui_gym.core.threads import pin_numeric_threads
from wrappers.memory import ExperienceMemory
from wrappers.spec import RewardState, make_env, parse_reward, settle_batch
from wrappers.state import read_torch_checkpoint

log = logging.getLogger(__name__)

__all__ = [
    "TRAIN_SEED_BASE",
    "LocalRollouts",
    "TrainConfig",
    "Trainer",
    "build_policy",
    "check_policy",
    "compute_advantages",
    "env_family",
    "group_returns",
    "load_checkpoint",
    "policy_from_run",
    "task_ids",
    "train",
]

CHECKPOINT = "checkpoint.pt"
FORMAT, VERSION = "gui-gym-train", 1
#: Settings a resumed run must share with the run it continues.
RESUME_KEYS = (
    "env_id",
    "policy",
    "algo",
    "level",
    "returns",
    "sampler",
    "reward",
    "tasks",
    "group_size",
    "tasks_per_iter",
    "hidden",
)


@dataclass
class TrainConfig:
    """Every hyperparameter of a run, with the papers' defaults (ours where they are silent).

    ADMIRE App. A.1.2: 4 tasks × 8 trajectories per iteration, 2 update epochs per iteration,
    mini-batch 128, clip 0.2, lr 1e-6, no KL, no entropy bonus, at most 20 steps. MobileRL
    Table 4: gradient clipping 1.0, KL β = 0.001, SPA α = 1.0, AdaPR buffer 256 / γ = 1.0 /
    κ = 0.25. The learning rate of the candidate policy's small head is ours (``lr=None``
    picks 1e-6 for a language model, 3e-3 for the candidate head trained from scratch and 3e-4
    for one warm-started with ``init``: fine-tuning a cloned policy at the from-scratch rate
    undoes the cloning within 30 iterations, benchmarks/RESULTS.md "reward_study").
    """

    # environment
    env_id: str = "GuiAndroid-v0"  # any registered id, or "module:EnvId"
    env_kwargs: dict[str, Any] = field(default_factory=dict)  # more gym.make arguments
    tasks: str = "easy"  # a tier, a task id, or comma-separated ids
    eval_tasks: str | None = None  # default: the training tasks, on held-out seeds
    reward: str = "outcome"  # see wrappers.spec
    max_steps: int | None = 20  # ADMIRE caps trajectories at 20 steps
    # algorithm
    algo: str = "grpo"
    level: str = "trajectory"  # "step": ADMIRE's step-level GRPO (Eq. 12-13)
    returns: str | None = None  # R(τ): "sum", "spa", "mean" (agents.algos.returns); None: the algorithm's
    sampler: str | None = None  # group sampler (agents.sampling); None: the algorithm's (AdaGRPO: fcf)
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
    init: str | None = None  # start from the policy of this run directory or checkpoint (gui-gym sft's)
    hidden: int = 128
    temperature: float = 1.0
    device: str | None = None
    # run
    seed: int = 0
    num_envs: int = 8
    vectorization: str = "sync"
    step_timeout_s: float | None = 60.0  # a reset or step slower than this: the sub-env is hung (agents.collect)
    max_retries: int = 2  # an episode whose sub-env died or hung is retried this often, then dropped
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
        algorithm(self.algo, self.level, self.returns)
        parse_reward(self.reward)
        if self.sampler is not None and self.sampler not in SAMPLERS:
            raise ValueError(f"unknown sampler {self.sampler!r}; choose from {', '.join(SAMPLERS)}")
        if self.sampler == "uimem" and not any(name == "uimem" for name, _ in parse_reward(self.reward)):
            raise ValueError(
                "--sampler uimem gives rollouts guidance levels that only the uimem reward term turns "
                "into guidance: add uimem to --reward"
            )
        if not isinstance(self.env_kwargs, dict):
            raise ValueError(f"env_kwargs must be a dict of gym.make arguments, got {self.env_kwargs!r}")
        for name in ("iterations", "tasks_per_iter", "group_size", "ppo_epochs", "minibatch", "num_envs"):
            if int(getattr(self, name)) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.eval_every < 0 or self.eval_episodes < 0:
            raise ValueError("eval_every and eval_episodes must be non-negative")
        check_policy(self.policy, self.lm_path)
        if self.step_timeout_s is not None and not self.step_timeout_s > 0:
            raise ValueError(f"step_timeout_s must be positive (or None: no bound), got {self.step_timeout_s}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.vectorization not in ("sync", "async"):
            raise ValueError(f"vectorization must be 'sync' or 'async', got {self.vectorization!r}")

    @property
    def make_kwargs(self) -> dict[str, Any]:
        """The ``gym.make`` arguments beyond the task: ``max_steps``, then ``env_kwargs`` (which win)."""
        return {"max_steps": self.max_steps, **self.env_kwargs}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TrainConfig:
        """A config from :func:`dataclasses.asdict` output, also of older versions (unknown keys dropped)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


def env_family(env_id: str | None = None) -> EnvFamily:
    """The family of ``env_id`` (default: :class:`TrainConfig`'s); ValueError for an unknown id.

    ``"module:EnvId"`` imports ``module`` first (which registers ``EnvId``), as ``gym.make`` does.
    """
    return family_of(env_id or TrainConfig.env_id)


def task_ids(spec: str | None, env_id: str | None = None, env_kwargs: dict[str, Any] | None = None) -> list[str]:
    """The task ids of a tier, an id, or a comma-separated list of the env's family (unknown ids:
    ValueError), for the env ``env_kwargs`` make (an experience env's data set).

    >>> task_ids("SystemWifiTurnOn,ClockStopWatchRunning")
    ['SystemWifiTurnOn', 'ClockStopWatchRunning']
    """
    family = env_family(env_id)
    try:
        specs = family_tasks(family, str(spec) if spec else None, env_kwargs)
    except (KeyError, ValueError) as e:
        raise ValueError(f"unknown task selection {spec!r}: {e}") from e
    return [t.id for t in specs]


def check_policy(policy: str, lm_path: str | None) -> None:
    """Refuse a policy kind this trainer has no builder for, and an LM without its checkpoint."""
    if policy not in ("candidate", "lm"):
        raise ValueError(f"policy must be 'candidate' or 'lm', got {policy!r}")
    if policy == "lm" and not lm_path:
        raise ValueError("--policy lm needs --lm-path: a local transformers checkpoint directory")


def default_lr(cfg: TrainConfig) -> float:
    """The learning rate of ``lr=None``: the papers' 1e-6 for a language model; for the candidate
    head 3e-3 from scratch and 3e-4 from a warm start (the papers fine-tune capable models at small
    rates; at 3e-3 RL from a cloned policy fell from 75 % to 25 % seen success in 30 iterations).

    >>> default_lr(TrainConfig()), default_lr(TrainConfig(init="runs/sft")), default_lr(TrainConfig(policy="lm"))
    (0.003, 0.0003, 1e-06)
    """
    if cfg.policy == "lm":
        return 1e-6
    return 3e-4 if cfg.init else 3e-3


def build_policy(cfg: TrainConfig) -> TrainablePolicy:
    """The policy of ``cfg``, told the env's family (its action prompt, its candidate kinds)."""
    if cfg.policy == "lm":
        from agents.policies.lm import LMPolicy

        return LMPolicy(cfg.lm_path, family=cfg.env_id, device=cfg.device, temperature=cfg.temperature)
    from agents.policies.candidate import CandidatePolicy

    return CandidatePolicy(
        cfg.env_id, encoder=cfg.encoder, hidden=cfg.hidden, temperature=cfg.temperature, seed=cfg.seed
    )


def policy_from_run(run: str | os.PathLike[str]) -> tuple[TrainablePolicy, TrainConfig]:
    """The trained policy of a run directory (its ``checkpoint.pt``) and the run's config."""
    path = Path(run) / CHECKPOINT if Path(run).is_dir() else Path(run)
    ckpt = load_checkpoint(path)
    try:
        cfg = TrainConfig.from_dict(ckpt["config"])
        policy = build_policy(cfg)
        policy.load_state_dict(ckpt["policy"])
        if ckpt.get("embeddings") is not None and hasattr(policy, "load_embedding_state"):
            policy.load_embedding_state(ckpt["embeddings"])
    except (KeyError, TypeError, RuntimeError, ValueError) as e:
        raise ValueError(f"{path} does not hold a trained policy this code can load: {type(e).__name__}: {e}") from e
    return policy, cfg


# ----------------------------------------------------------------------------- advantages


def compute_advantages(
    episodes: Sequence[Episode],
    algo: Algorithm,
    spa_alpha: float = 1.0,
    gamma: float = 1.0,
    kl: Sequence[np.ndarray] | None = None,
    kl_coef: float = 0.0,
) -> list[np.ndarray]:
    """Per-step advantages of each episode: :meth:`Algorithm.advantages <agents.algos.base.Algorithm.advantages>`."""
    return algo.advantages(episodes, spa_alpha=spa_alpha, gamma=gamma, kl=kl, kl_coef=kl_coef)


# ----------------------------------------------------------------------------- the trainer


class Trainer:
    """Runs :class:`TrainConfig` in ``cfg.out``: ``Trainer(cfg).run()`` (see the module docstring)."""

    def __init__(self, cfg: TrainConfig, resume: bool = False, policy: TrainablePolicy | None = None) -> None:
        cfg.check()
        self.cfg = cfg
        # Every result is computed on one intra-op thread, process-wide: with more, torch's last
        # bits depend on the thread count (and MKL's vary run to run), so runs would not repeat.
        pin_numeric_threads()
        self.algo = algorithm(cfg.algo, cfg.level, cfg.returns)
        _warn_sum_of_milestones(cfg.reward, self.algo)
        self.clip_low = cfg.clip_low if cfg.clip_low is not None else self.algo.clip_low
        self.clip_high = cfg.clip_high if cfg.clip_high is not None else self.algo.clip_high
        self.kl_coef = cfg.kl_coef if cfg.kl_coef is not None else self.algo.kl_coef
        self.out = Path(cfg.out)
        self.family = env_family(cfg.env_id)
        self.train_tasks = task_ids(cfg.tasks, cfg.env_id, cfg.env_kwargs)
        self.eval_tasks = (
            task_ids(cfg.eval_tasks, cfg.env_id, cfg.env_kwargs) if cfg.eval_tasks else list(self.train_tasks)
        )
        self.iters_per_epoch = max(1, math.ceil(len(self.train_tasks) / cfg.tasks_per_iter))

        self.iteration = 0
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        random.seed(cfg.seed)
        self.reward_state = RewardState()
        self.replay: ReplayBuffer[Episode] = ReplayBuffer(cfg.replay_capacity, cfg.replay_kappa)
        self.sampler: UniformSampler = make_sampler(cfg.sampler or self.algo.sampler, cfg)
        self.history: list[dict[str, Any]] = []

        self.policy = policy if policy is not None else build_policy(cfg)
        lr = cfg.lr if cfg.lr is not None else default_lr(cfg)
        self.optimizer = torch.optim.Adam([p for p in self.policy.parameters() if p.requires_grad], lr=lr)
        # The KL reference is the policy training starts from: set after a warm start or a resume
        # has loaded the weights, never the freshly built (random) policy.
        self.reference: TrainablePolicy | None = None

        if resume and not (self.out / CHECKPOINT).exists() and (self.out / "metrics.jsonl").exists():
            log.warning("%s was stopped before its first checkpoint: starting it over", self.out)
            resume = False
        if resume:
            self._load(self.out / CHECKPOINT)
        elif cfg.init:
            self._warm_start(cfg.init)
        elif (self.out / CHECKPOINT).exists():
            raise FileExistsError(
                f"{self.out} already holds a run; pass --resume to continue it or choose another --out"
            )
        else:  # rows of a run stopped before its first checkpoint would be written twice
            for stale in ("metrics.jsonl", "metrics.csv"):
                (self.out / stale).unlink(missing_ok=True)
        if self.kl_coef > 0 and self.reference is None:
            self.reference = self._frozen_copy()
        self.out.mkdir(parents=True, exist_ok=True)
        if any(name == "uimem" for name, _ in parse_reward(cfg.reward)):
            if self.reward_state.memory is None:
                # UI-Mem's memory is a file of the run: async workers and Ray actors read the guidance
                # it holds now, not a copy from the start, and the memory can be read after the run
                self.reward_state.memory = ExperienceMemory(self.out / MEMORY)
            if self.reward_state.memory.matcher is None:  # near-duplicates merge by embedding (Alg. 2)
                from wrappers.matching import SemanticMatcher

                self.reward_state.memory.matcher = SemanticMatcher(cfg.encoder, mode="cosine")
        self.rollouts = self._rollout_backend()
        self.eval_rollouts = self._rollout_backend(reward="outcome")
        self._tb = self._tensorboard() if cfg.tensorboard else None

    # -- rollouts ------------------------------------------------------------------------
    def _env_fn(self, reward: str) -> Any:
        """A picklable env factory (Ray workers get a copy; local sub-envs share the reward state)."""
        cfg = self.cfg
        return functools.partial(
            make_env, cfg.env_id, tasks=self.train_tasks, reward=reward, state=self.reward_state,
            spa_alpha=cfg.spa_alpha, batch=True, **cfg.make_kwargs,
        )  # fmt: skip

    def _rollout_backend(self, reward: str | None = None) -> Any:
        cfg = self.cfg
        reward = reward or cfg.reward
        if cfg.ray or cfg.ray_address:
            from agents.distributed import RayRollouts

            return RayRollouts(
                self._env_fn(reward), functools.partial(build_policy, cfg), cfg.ray_workers, address=cfg.ray_address
            )
        return LocalRollouts(
            self._env_fn(reward), cfg.num_envs, cfg.vectorization, step_timeout_s=cfg.step_timeout_s,
            max_retries=cfg.max_retries,
        )  # fmt: skip

    # -- one iteration -------------------------------------------------------------------
    @property
    def epoch(self) -> int:
        return self.iteration // self.iters_per_epoch

    def sample_instances(self, n_groups: int, first_group: int = 0) -> list[Instance]:
        """``n_groups`` task instances × ``group_size`` members, drawn by the group sampler."""
        return self.sampler.sample(self.train_tasks, n_groups, self.cfg.group_size, self.rng, first_group)

    def rollout(self) -> tuple[list[Episode], dict[str, Any]]:
        """This iteration's on-policy episodes (after the algorithm's group selection) and rollout stats."""
        cfg = self.cfg
        stats: dict[str, Any] = {"dropped_episodes": 0, "resample_rounds": 0, "zero_variance_groups": 0}
        episodes: list[Episode] = []
        want, first, rounds = cfg.tasks_per_iter, 0, 0
        while True:
            instances = self.sample_instances(want, first)
            first += want
            got, errors = self.rollouts.collect(self.policy, instances, iteration=self.iteration)
            stats["dropped_episodes"] += len(errors)
            # ADMIRE Alg. 1 / MobileRL Eq. 2: terms final only over the batch are settled before any use
            settle_batch(cfg.reward, got, self.reward_state, self.epoch, cfg.spa_alpha)
            for ep in got:
                ep.settle = {}  # used up: replayed and checkpointed episodes need not carry it
            stats.setdefault("all_episodes", []).extend(got)
            groups = [[got[i] for i in idx] for idx in by_group(got)]
            keep = self.algo.keep_groups(groups, spa_alpha=cfg.spa_alpha)
            if keep is None:
                episodes = got
                break
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
        if algo.kl_in_reward and self.reference is not None and self.kl_coef > 0 and episodes:
            kl = self._token_kl(episodes)
        advantages = algo.advantages(episodes, spa_alpha=cfg.spa_alpha, gamma=cfg.gamma, kl=kl, kl_coef=self.kl_coef)
        for ep, a in zip(episodes, advantages, strict=True):
            if isinstance(a, list):  # one advantage per token of each step (REINFORCE++ with its KL)
                ep.token_advantages = [np.asarray(x, dtype=np.float64) for x in a]
                ep.advantages = np.asarray([float(np.mean(x)) for x in a], dtype=np.float64)
            else:
                ep.token_advantages, ep.advantages = None, np.asarray(a, dtype=np.float64)

        rnd = Round(self.iteration, self.rng, self.replay, cfg.replay_gamma, cfg.prune_ratio, stats)
        batch = algo.select(episodes, rnd)
        update = self.update(batch) if batch else {"updates": 0, "skipped_updates": 0}
        algo.after_update(episodes, rnd)
        t2 = time.perf_counter()

        self.sampler.observe(seen)
        metrics = self._metrics(seen, stats, update)
        metrics.update(time_rollout=t1 - t0, time_update=t2 - t1)
        self.iteration += 1
        if self.iteration % self.iters_per_epoch == 0:
            metrics.update(self.sampler.end_epoch())
        return metrics

    def _token_kl(self, episodes: Sequence[Episode]) -> list[list[np.ndarray]]:
        """Per episode, per step: the k1 estimate log π_old(tok) − log π_ref(tok) of each sampled
        token, REINFORCE++'s per-token KL in the reward (ProgRM §2.4)."""
        assert self.reference is not None
        decisions = [d for ep in episodes for d in ep.decisions]
        per_step: list[np.ndarray] = []
        with torch.no_grad():
            for start in range(0, len(decisions), self.cfg.minibatch):
                chunk = decisions[start : start + self.cfg.minibatch]
                ref, mask, _ = self.reference.log_probs(chunk)
                old = _padded([d.logp for d in chunk], ref.shape[1])
                k1 = (old - ref.float().cpu()).numpy()
                per_step += [row[m].astype(np.float64) for row, m in zip(k1, mask.bool().cpu().numpy(), strict=True)]
        out, i = [], 0
        for ep in episodes:
            out.append(per_step[i : i + ep.length])
            i += ep.length
        return out

    def update(self, batch: Sequence[Episode]) -> dict[str, Any]:
        """``ppo_epochs`` passes of clipped-surrogate updates over mini-batches of decisions."""
        cfg = self.cfg
        rows: list[tuple[Decision, np.ndarray, int]] = []
        for t, ep in enumerate(batch):
            per_token = ep.token_advantages or [
                np.full(len(d.logp), a) for d, a in zip(ep.decisions, ep.advantages, strict=True)
            ]
            rows += [(d, np.asarray(a, dtype=np.float64), t) for d, a in zip(ep.decisions, per_token, strict=True)]
        # MobileRL Eq. 1: each token weighs M/(G·T_i) with T_i its trajectory's tokens in the *whole*
        # batch, so that a trajectory split between the M shuffled mini-batches still weighs 1/G
        n_minibatches = math.ceil(len(rows) / cfg.minibatch)
        weight = [n_minibatches / (len(batch) * max(1, sum(len(d.logp) for d in ep.decisions))) for ep in batch]
        totals: dict[str, float] = defaultdict(float)
        updates = skipped = 0
        # The reference is frozen: score every decision under it once, not once per epoch.
        refs: list[torch.Tensor] | None = None
        if self.reference is not None and self.kl_coef > 0 and not self.algo.kl_in_reward:
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
                adv = _padded([r[1] for r in mb], logp.shape[1]).to(device=logp.device, dtype=logp.dtype)
                groups = torch.tensor([r[2] for r in mb], device=logp.device)
                weights = torch.tensor([weight[r[2]] for r in mb], dtype=torch.float64, device=logp.device)
                ref = None
                if refs is not None:
                    ref = _padded([refs[i].numpy() for i in order[start : start + cfg.minibatch]], logp.shape[1])
                    ref = ref.to(logp.device)
                try:
                    loss, stats = policy_loss(
                        logp, old, adv, mask, self.clip_low, self.clip_high, self.algo.aggregation, groups=groups,
                        ref_logp=ref, kl_coef=self.kl_coef if ref is not None else 0.0,
                        entropy=entropy, entropy_coef=cfg.entropy_coef, token_weights=weights,
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

    def _frozen_copy(self) -> TrainablePolicy:
        """A frozen copy of the policy as it is now: the KL reference π_ref."""
        reference = copy.deepcopy(self.policy)
        for p in reference.parameters():
            p.requires_grad_(False)
        return reference

    def _warm_start(self, run: str) -> None:
        """Load the policy of another run (``gui-gym sft``'s, a trained one) before the first iteration."""
        path = Path(run) / CHECKPOINT if Path(run).is_dir() else Path(run)
        ckpt = load_checkpoint(path)
        try:
            self.policy.load_state_dict(ckpt["policy"])
            if ckpt.get("embeddings") is not None and hasattr(self.policy, "load_embedding_state"):
                self.policy.load_embedding_state(ckpt["embeddings"])
        except (KeyError, RuntimeError, ValueError, TypeError) as e:
            raise ValueError(
                f"--init {run}: its policy does not fit this run's (same --policy, --hidden and --encoder "
                f"needed): {type(e).__name__}: {str(e)[:200]}"
            ) from None
        log.info("warm start from %s", path)

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
            m.update(reward_model_stats(episodes))  # ProgRM: the learned reward against the true success
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
            # The embeddings the policy has read (tensors and plain data): a resumed run reads the same.
            "embeddings": self.policy.embedding_state() if hasattr(self.policy, "embedding_state") else None,
            # Python objects (buffer of episodes, sampler state, milestone book): pickled, and read back
            # as plain data and known classes only (load_objects).
            "objects": pickle.dumps(
                {
                    "replay": self.replay.state_dict(),
                    "sampler": {"name": self.sampler.name, "state": self.sampler.state_dict()},
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
        try:
            saved = TrainConfig.from_dict(ckpt["config"])
        except (KeyError, TypeError) as e:
            raise ValueError(f"{path} has no readable config ({e}); it is damaged or not a training checkpoint") from e
        for key in RESUME_KEYS:
            was, now = getattr(saved, key), getattr(self.cfg, key)
            if key == "sampler":  # None is the algorithm's own sampler: compare what ran
                was, now = was or self.algo.sampler, now or self.algo.sampler
            if was != now:
                raise ValueError(
                    f"{path} was trained with {key}={was!r}, not {now!r}; "
                    "resume with the same settings or start a new --out"
                )
        try:
            self.policy.load_state_dict(ckpt["policy"])
            self.optimizer.load_state_dict(ckpt["optimizer"])
            if self.kl_coef > 0:  # the saved reference: the policy this run started from
                self.reference = self._frozen_copy()
                if ckpt.get("reference") is not None:
                    self.reference.load_state_dict(ckpt["reference"])
            objects = load_objects(ckpt["objects"])
            if ckpt.get("embeddings") is not None and hasattr(self.policy, "load_embedding_state"):
                self.policy.load_embedding_state(ckpt["embeddings"])
            self.iteration = int(ckpt["iteration"])
            self.rng.bit_generator.state = ckpt["rng"]
            torch.set_rng_state(ckpt["torch_rng"])
            random.setstate(ckpt["python_rng"])
            self.replay.load_state_dict(objects["replay"])
            old_fcf = {"name": "fcf", "state": {k: objects.get(k) for k in ("fcf", "epoch_outcomes")}}
            sampler = objects.get("sampler") or old_fcf
            if sampler["name"] == self.sampler.name:  # older checkpoints kept the FCF state on its own
                self.sampler.load_state_dict(sampler["state"])
            self.reward_state = objects["reward_state"]
            self.history = list(objects["history"])
        except (
            RuntimeError,
            ValueError,
            KeyError,
            TypeError,
            AttributeError,
            ImportError,
            pickle.UnpicklingError,
        ) as e:
            raise ValueError(f"{path} does not match this policy or is damaged: {type(e).__name__}: {e}") from e
        # metrics.jsonl may hold the interrupted iteration: rewrite it from the checkpoint's history
        lines = "".join(json.dumps(m) + "\n" for m in self.history)
        atomic_write(self.out / "metrics.jsonl", lambda f: f.write(lines))


#: Classes that moved since a checkpoint could have been written: (module, name) → new place.
MOVED = {("agents.envs", "RewardState"): ("wrappers.spec", "RewardState")}
#: The classes a checkpoint's objects hold beyond plain data: episodes and the shared reward state.
#: UI-Mem's experience memory of a run (``--reward uimem``), in the run's directory
MEMORY = "uimem_memory.json"
CHECKPOINT_CLASSES = (
    *EPISODE_CLASSES,
    ("wrappers.spec", "RewardState"),
    ("wrappers.book", "MilestoneBook"),
    ("wrappers.distill", "BuiltinMilestoneGenerator"),  # the book keeps the Φ it used
    ("wrappers.spa", "ShortestLengths"),
    ("wrappers.memory.store", "ExperienceMemory"),
    ("wrappers.memory.store", "MemoryConfig"),
)


def load_objects(data: bytes) -> Any:
    """The Python objects of a training checkpoint (replay buffer, sampler state, reward state):
    plain data and :data:`CHECKPOINT_CLASSES` only, moved classes found at their new place."""
    return load_plain(data, CHECKPOINT_CLASSES, MOVED)


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A training checkpoint as a dict; FileNotFoundError / ValueError (naming the file) otherwise.

    The file is read with ``weights_only`` (tensors and plain data); the replay buffer and the
    milestone book inside it are read by :func:`load_objects`, so a crafted file runs no code.
    """
    return read_torch_checkpoint(path, "training checkpoint", FORMAT, VERSION, "start a run without --resume first")


def _warn_sum_of_milestones(reward: str, algo: Algorithm) -> None:
    """ADMIRE's failure credit is paid every step: summed into R(τ), stalling pays. Say so once."""
    if algo.returns == "sum" and any(name.startswith("milestone") for name, _ in parse_reward(reward)):
        log.warning(
            "R(τ) = sum with %s: ADMIRE pays a failed episode k/K at every step, so a long failure "
            "outscores a short one; ADMIRE trains it at step level (--level step, Eq. 12-13)",
            reward,
        )


def _padded(rows: Sequence[np.ndarray], width: int) -> torch.Tensor:
    out = torch.zeros(len(rows), width, dtype=torch.float32)
    for i, r in enumerate(rows):
        n = min(len(r), width)
        out[i, :n] = torch.as_tensor(np.asarray(r[:n], dtype=np.float32))
    return out


def reward_model_stats(episodes: Sequence[Episode], threshold: float = 0.5) -> dict[str, float]:
    """How a learned reward model's final-state score agrees with the true success (ProgRM Table 2's
    question, asked of the rollouts RL trains on): ``rm_accuracy`` (score ≥ ``threshold`` iff
    success), ``rm_auc`` (the chance a success outscores a failure, ties half) and the mean score
    of successes and of failures. Empty when no episode carries a score.

    >>> from agents.collect import Episode, Instance
    >>> def ep(score, win):
    ...     return Episode(Instance("T", 0), "T", "easy", [None], np.zeros(1), {}, win, False, 0, rm_score=score)
    >>> stats = reward_model_stats([ep(0.9, True), ep(0.4, True), ep(0.6, False), ep(0.1, False)])
    >>> stats["rm_accuracy"], stats["rm_auc"], stats["rm_score_success"], stats["rm_score_failure"]
    (0.5, 0.75, 0.65, 0.35)
    """
    scored = [(float(ep.rm_score), bool(ep.success)) for ep in episodes if ep.rm_score is not None]
    if not scored:
        return {}
    wins = [s for s, ok in scored if ok]
    losses = [s for s, ok in scored if not ok]
    m = {"rm_accuracy": float(np.mean([(s >= threshold) == ok for s, ok in scored]))}
    if wins:
        m["rm_score_success"] = float(np.mean(wins))
    if losses:
        m["rm_score_failure"] = float(np.mean(losses))
    if wins and losses:
        w, lo = np.asarray(wins)[:, None], np.asarray(losses)[None, :]
        m["rm_auc"] = float(np.mean((w > lo) + 0.5 * (w == lo)))
    return m


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
    for tier in DIFFICULTIES:
        eps = [ep for ep in episodes if ep.difficulty == tier]
        if eps and len(eps) < len(episodes):
            m[f"{prefix}success_{tier}"] = float(np.mean([ep.success for ep in eps]))
    return m


def train(cfg: TrainConfig, resume: bool = False) -> dict[str, Any]:
    """``Trainer(cfg, resume).run()``."""
    return Trainer(cfg, resume=resume).run()
