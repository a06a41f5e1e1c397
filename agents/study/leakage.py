"""What a study's settings learn from never meets what they are evaluated on.

A study evaluates every run on seeds ``0..eval_episodes-1`` of the training tasks ("seen tasks,
held-out seeds") and of the held-out tasks ("unseen tasks"); an instance is a (task, seed) pair,
and seed *s* of a task is the same instance wherever it is drawn. A run learns from:

==========================  =================================================================
source                      instances
==========================  =================================================================
policy rollouts             the training tasks at seeds from :data:`~agents.sampling.TRAIN_SEED_BASE` up
behaviour cloning           the training tasks at seeds ``SFT_SEED_BASE + i`` (warm start)
reward-model rollouts       the training tasks at seeds ``ROLLOUT_SEED + i`` (ProgRM, the ORM)
expert trajectories         the (task, seed) of every experience a setting with its own env
                            trains on (EMPO: :func:`experience_file` makes them)
==========================  =================================================================

:func:`check_disjoint` refuses a setting whose sources hold a held-out task (by task) or an
evaluated instance of a training task (by seed), naming the source and the first instances.
The runner calls it before any run starts and again in each run.

Example:
    >>> src = Source("expert trajectories", {"SystemWifiTurnOn": range(0, 6)})
    >>> ev = Evaluation({"SystemWifiTurnOn"}, set(), 16)
    >>> overlaps(src, ev)
    [('SystemWifiTurnOn', 0), ('SystemWifiTurnOn', 1), ('SystemWifiTurnOn', 2)]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agents.study.settings import Setting, StudyConfig

__all__ = [
    "EXPERIENCE_SEEDS",
    "EXPERIENCE_SEED_BASE",
    "Evaluation",
    "LeakageError",
    "Source",
    "check_disjoint",
    "experience_file",
    "overlaps",
    "sources",
]

#: The seeds of the expert trajectories a study's experience setting trains on: as many per task
#: as the embedded set's train split (6), far from every evaluated seed.
EXPERIENCE_SEED_BASE = 800_000
EXPERIENCE_SEEDS = tuple(range(EXPERIENCE_SEED_BASE, EXPERIENCE_SEED_BASE + 6))
EXPERIENCE_FILE = "experience.jsonl"


class LeakageError(ValueError):
    """A setting would learn from an instance it is evaluated on."""


@dataclass(frozen=True)
class Source:
    """One thing a run learns from: per task, the seeds it draws (a range or an explicit set)."""

    name: str
    seeds: Mapping[str, Collection[int]]


@dataclass(frozen=True)
class Evaluation:
    """The instances a study evaluates: seeds ``0..n-1`` of its seen and unseen tasks."""

    seen: Collection[str]
    unseen: Collection[str]
    n: int


def overlaps(src: Source, ev: Evaluation, limit: int = 3) -> list[tuple[str, int]]:
    """The first ``limit`` (task, seed) of ``src`` that ``ev`` evaluates (a held-out task at any seed)."""
    found: list[tuple[str, int]] = []
    for task, seeds in src.seeds.items():
        if task in ev.unseen:
            found += [(task, s) for s in sorted(seeds)[:limit]]
        elif task in ev.seen:
            found += [(task, s) for s in _below(seeds, ev.n)]
        if len(found) >= limit:
            break
    return found[:limit]


def _below(seeds: Collection[int], n: int) -> Iterable[int]:
    if isinstance(seeds, range):  # a training range of 2³¹ seeds is not enumerated
        return range(max(seeds.start, 0), min(seeds.stop, n), seeds.step) if seeds.step > 0 else ()
    return sorted(s for s in seeds if 0 <= s < n)


def sources(cfg: StudyConfig, s: Setting, tasks: list[str], experience: Iterable[str] = ()) -> list[Source]:
    """What a run of ``s`` learns from. ``tasks`` are the study's training task ids; ``experience``
    the ids (``"<task>/<seed>"``) of the expert trajectories it trains on, for a setting with its own env."""
    from agents.sampling import TRAIN_SEED_BASE
    from agents.sft import SFT_SEED_BASE
    from agents.study.reward_models import ROLLOUT_SEED

    found: list[Source] = []
    if s.env_id is None:
        found.append(Source("policy rollouts", dict.fromkeys(tasks, range(TRAIN_SEED_BASE, 2**31 - 1))))
    if cfg.warm_start:  # oracle and noisy-oracle demonstrations: twice sft_demos seeds per task
        found.append(
            Source("behaviour cloning", dict.fromkeys(tasks, range(SFT_SEED_BASE, SFT_SEED_BASE + 2 * cfg.sft_demos)))
        )
    if s.needs:
        span = range(ROLLOUT_SEED, ROLLOUT_SEED + cfg.rm_episodes)
        found.append(Source("reward-model rollouts", dict.fromkeys(tasks, span)))
    by_task: dict[str, set[int]] = {}
    for eid in experience:
        task, _, seed = eid.rpartition("/")
        if not task or not seed.lstrip("-").isdigit():
            raise LeakageError(f"expert trajectory {eid!r} names no task/seed: cannot show it is not evaluated")
        by_task.setdefault(task, set()).add(int(seed))
    if by_task:
        found.append(Source("expert trajectories", by_task))
    return found


def check_disjoint(
    cfg: StudyConfig, s: Setting, seen: list[str], unseen: list[str], experience: Iterable[str] = ()
) -> None:
    """Raise :class:`LeakageError` when a source of ``s`` meets the evaluation (see the module doc)."""
    ev = Evaluation(set(seen), set(unseen), max(cfg.eval_episodes, cfg.curve_episodes))
    for src in sources(cfg, s, seen, experience):
        hit = overlaps(src, ev)
        if hit:
            shown = ", ".join(f"{t}/{seed}" for t, seed in hit)
            raise LeakageError(
                f"setting {s.name!r} would learn from instances the study evaluates ({src.name}: {shown}); "
                f"evaluation uses seeds 0..{ev.n - 1} of the training tasks and every seed of the held-out tasks"
            )


def experience_file(out: Path, tasks: list[str]) -> Path:
    """``OUT/experience.jsonl``: the oracle's trajectories of the training tasks at
    :data:`EXPERIENCE_SEEDS` (made once; a file for other tasks or seeds is an error)."""
    from gui_gym.core.io import atomic_write
    from gui_gym.experience.embedded import generate
    from gui_gym.experience.readers import read_gui_gym
    from gui_gym.experience.record import dumps

    path = out / EXPERIENCE_FILE
    want = {f"{t}/{seed}" for t in tasks for seed in EXPERIENCE_SEEDS}
    if path.exists():
        have = {e.id for e in read_gui_gym(path)}
        if have != want:
            raise ValueError(f"{path} holds other trajectories than this study's training tasks at seeds "
                             f"{EXPERIENCE_SEEDS[0]}-{EXPERIENCE_SEEDS[-1]}: delete it to make it again")  # fmt: skip
        return path
    made = generate(tasks, EXPERIENCE_SEEDS)
    atomic_write(path, lambda f: f.write(dumps(made)))
    return path
