"""Group samplers: which task instances an iteration rolls out, and with what reset options.

A sampler turns the training tasks into the iteration's :class:`~agents.collect.Instance`\\ s:
``n_groups`` task instances (a task and a reset seed) × ``group_size`` members. It sees every
rollout of the iteration (:meth:`GroupSampler.observe`) and the end of every epoch
(:meth:`GroupSampler.end_epoch`), so it can steer later draws, and it can attach reset options
to each rollout (``Instance.options``, merged into ``env.reset(options=...)`` with the task),
e.g. to stratify guidance across a group. Its state is checkpointed with the run.

=============  ==============================================================================
``uniform``    tasks drawn uniformly (without replacement while there are enough of them)
``fcf``        MobileRL's failure curriculum (§2.2.3): tasks that keep failing are down-weighted,
               then removed (:class:`~agents.algos.adagrpo.FailureCurriculum`)
``uimem``      UI-Mem's stratified groups (§3.3): strong, weak and unguided rollouts in the shares
               of the dropout curriculum on each task's success (:mod:`agents.curriculum`)
=============  ==============================================================================

A new sampler is a class here (or in its own module) with one line in :data:`SAMPLERS`.

Example:
    >>> import numpy as np
    >>> sampler = UniformSampler()
    >>> batch = sampler.sample(["A", "B", "C"], n_groups=2, group_size=2, rng=np.random.default_rng(0))
    >>> [(i.group, i.member) for i in batch], batch[0].seed == batch[1].seed
    ([(0, 0), (0, 1), (1, 0), (1, 1)], True)
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from agents.algos.adagrpo import FailureCurriculum
from agents.collect import Instance
from agents.curriculum import LEVELS, CurriculumConfig, mix, strata
from gui_gym.core.contract import GUIDANCE

if TYPE_CHECKING:
    from agents.collect import Episode

__all__ = [
    "SAMPLERS",
    "TRAIN_SEED_BASE",
    "FCFSampler",
    "GroupSampler",
    "GuidanceSampler",
    "UniformSampler",
    "make_sampler",
]

#: Training seeds start here; evaluation uses seeds below it, so evaluation instances are held out.
TRAIN_SEED_BASE = 1_000_000


@runtime_checkable
class GroupSampler(Protocol):
    """What the trainer asks of a sampler (see the module docstring)."""

    name: str

    def sample(
        self, tasks: Sequence[str], n_groups: int, group_size: int, rng: np.random.Generator, first_group: int = 0
    ) -> list[Instance]:
        """``n_groups`` instances × ``group_size`` members; groups numbered from ``first_group``."""
        ...

    def observe(self, episodes: Sequence[Episode]) -> None:
        """Every episode rolled out this iteration (DAPO's dropped groups too)."""
        ...

    def end_epoch(self) -> dict[str, Any]:
        """An epoch is over; returns metrics for the iteration's row (may be empty)."""
        ...

    def state_dict(self) -> dict[str, Any]: ...

    def load_state_dict(self, state: Mapping[str, Any]) -> None: ...


class UniformSampler:
    """Tasks drawn uniformly: without replacement while there are at least ``n_groups`` tasks.

    Subclasses change :meth:`choose` (which tasks) and :meth:`options` (per-rollout reset
    options); the seeds and group numbering stay the same for every sampler.
    """

    name = "uniform"

    @classmethod
    def from_config(cls, cfg: Any) -> UniformSampler:
        """The sampler a :class:`~agents.train.TrainConfig` asks for."""
        return cls()

    def choose(self, tasks: Sequence[str], n_groups: int, rng: np.random.Generator) -> list[str]:
        """The task of each group."""
        replace = n_groups > len(tasks)
        return [str(t) for t in rng.choice(list(tasks), size=n_groups, replace=replace)]

    def options(self, task: str, group: int, member: int) -> dict[str, Any] | None:
        """Reset options of one rollout beyond the task (None: none)."""
        return None

    def sample(
        self, tasks: Sequence[str], n_groups: int, group_size: int, rng: np.random.Generator, first_group: int = 0
    ) -> list[Instance]:
        if len(tasks) == 0:
            raise ValueError("no tasks to sample from")
        chosen = self.choose(tasks, n_groups, rng)
        seeds = rng.integers(TRAIN_SEED_BASE, 2**31 - 1, size=n_groups)
        return [
            Instance(t, int(s), first_group + g, m, self.options(t, first_group + g, m))
            for g, (t, s) in enumerate(zip(chosen, seeds, strict=True))
            for m in range(group_size)
        ]

    def observe(self, episodes: Sequence[Episode]) -> None:
        pass

    def end_epoch(self) -> dict[str, Any]:
        return {}

    def state_dict(self) -> dict[str, Any]:
        return {}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        pass


class FCFSampler(UniformSampler):
    """Failure curriculum filtering (MobileRL §2.2.3): tasks drawn with replacement by FCF weight.

    Each iteration's outcomes (success 0/1, or SPA's) are collected per task; at the end of an
    epoch they update the :class:`~agents.algos.adagrpo.FailureCurriculum`, whose failure
    histories are this sampler's checkpointed state.

    >>> sampler = FCFSampler(fail_epochs=1, cooldown=1)
    >>> sampler.curriculum.update({"hard": [0.0]})
    []
    >>> sampler.curriculum.weights(["hard", "easy"]).round(4).tolist()
    [0.3679, 1.0]
    """

    name = "fcf"

    def __init__(self, fail_epochs: int = 2, cooldown: int = 3, curriculum: FailureCurriculum | None = None) -> None:
        self.curriculum = curriculum if curriculum is not None else FailureCurriculum(fail_epochs, cooldown)
        self.epoch_outcomes: dict[str, list[float]] = defaultdict(list)

    @classmethod
    def from_config(cls, cfg: Any) -> FCFSampler:
        return cls(cfg.fcf_fail_epochs, cfg.fcf_cooldown)

    def choose(self, tasks: Sequence[str], n_groups: int, rng: np.random.Generator) -> list[str]:
        return self.curriculum.sample(list(tasks), n_groups, rng)

    def observe(self, episodes: Sequence[Episode]) -> None:
        for ep in episodes:
            self.epoch_outcomes[ep.task_id].append(ep.outcome)

    def end_epoch(self) -> dict[str, Any]:
        self.curriculum.update(dict(self.epoch_outcomes))
        self.epoch_outcomes.clear()
        return {"fcf_removed": len(self.curriculum.removed), "fcf_cooldown": len(self.curriculum.in_cooldown)}

    def state_dict(self) -> dict[str, Any]:
        return {"fcf": self.curriculum.state_dict(), "epoch_outcomes": dict(self.epoch_outcomes)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.curriculum.load_state_dict(state["fcf"])
        self.epoch_outcomes = defaultdict(list, state.get("epoch_outcomes", {}))


class GuidanceSampler(UniformSampler):
    """Groups stratified by guidance level along the dropout curriculum (see the module docstring).

    Each rollout's reset options carry its level (``{"guidance": "strong"}``), which a
    :class:`~wrappers.memory.GuidanceWrapper` on the env (the reward term ``uimem``) turns into the
    guidance it shows. The per-task success averages are the sampler's checkpointed state.
    """

    name = "uimem"

    def __init__(self, config: CurriculumConfig | None = None) -> None:
        self.config = config or CurriculumConfig()
        self.success: dict[str, float] = {}

    @classmethod
    def from_config(cls, cfg: Any) -> GuidanceSampler:
        return cls()

    def levels(self, task: str, group_size: int) -> list[str]:
        """The guidance level of each member of a group of ``task`` (strong first)."""
        counts = strata(self.success.get(task, self.config.initial), group_size, self.config)
        return [level for level, n in zip(LEVELS, counts, strict=True) for _ in range(n)]

    def sample(
        self, tasks: Sequence[str], n_groups: int, group_size: int, rng: np.random.Generator, first_group: int = 0
    ) -> list[Instance]:
        out = super().sample(tasks, n_groups, group_size, rng, first_group)
        levels: dict[int, list[str]] = {}
        for inst in out:
            if inst.group not in levels:
                levels[inst.group] = self.levels(inst.task, group_size)
        return [
            Instance(i.task, i.seed, i.group, i.member, {**(i.options or {}), GUIDANCE: levels[i.group][i.member]})
            for i in out
        ]

    def observe(self, episodes: Sequence[Episode]) -> None:
        """Move each task's success average by its episodes' outcomes (all levels, as Alg. 2)."""
        g = self.config.ema
        for ep in episodes:
            s = self.success.get(ep.task_id, self.config.initial)
            self.success[ep.task_id] = g * s + (1.0 - g) * (1.0 if ep.success else 0.0)

    def end_epoch(self) -> dict[str, Any]:
        if not self.success:
            return {}
        values = list(self.success.values())
        shares = np.array([mix(s, self.config) for s in values])
        return {
            "uimem_success_ema": float(np.mean(values)),
            "uimem_strong_share": float(shares[:, 0].mean()),
            "uimem_none_share": float(shares[:, 2].mean()),
        }

    def state_dict(self) -> dict[str, Any]:
        return {"success": dict(self.success), "config": asdict(self.config)}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        self.success = {str(k): float(v) for k, v in dict(state.get("success", {})).items()}
        if "config" in state:
            self.config = CurriculumConfig(**dict(state["config"]))


#: Sampler name → class (``TrainConfig.sampler``; each algorithm names its default).
SAMPLERS: dict[str, type[UniformSampler]] = {"uniform": UniformSampler, "fcf": FCFSampler, "uimem": GuidanceSampler}


def make_sampler(name: str, cfg: Any = None) -> UniformSampler:
    """The sampler called ``name``, with its settings from ``cfg`` (a TrainConfig; None: defaults)."""
    if name not in SAMPLERS:
        raise ValueError(f"unknown sampler {name!r}; choose from {', '.join(SAMPLERS)}")
    cls = SAMPLERS[name]
    return cls.from_config(cfg) if cfg is not None else cls()
