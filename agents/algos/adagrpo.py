"""MobileRL's AdaGRPO data components (paper 003 §2.2.2-2.2.3, App. B): replay, curriculum, pruning.

- :class:`ReplayBuffer` and :func:`mix_batches`: difficulty-adaptive positive replay (AdaPR).
- :class:`FailureCurriculum`: failure curriculum filtering (FCF) of the training tasks.
- :func:`prune_negatives`: the 1:2 positive-to-negative cap of App. B.3.1.

A round of AdaGRPO with these pieces (advantages from ``agents.algos.advantages``)::

    buffer.evict(t)                                    # age eviction before this round's replay
    chosen = curriculum.sample(tasks, n, rng)          # FCF picks this round's tasks
    rollouts, advantages = ...                         # groups, SPA, group advantages
    keep = prune_negatives(advantages, ratio=2.0, rng=rng)
    for batch in mix_batches([rollouts[i] for i in keep], buffer, gamma=1.0, minibatch=M):
        update(batch)                                  # on-policy + replayed from earlier rounds
    buffer.add(rollouts, advantages, iteration=t)      # last: nothing is replayed in its own round
    curriculum.update({task: outcomes, ...})           # at the end of each epoch

Replayed items come back exactly as they were added, so store in them what the loss needs
(tokens, old log-probs, advantage).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

import numpy as np

from agents.algos.advantages import finite
from gui_gym.core.io import atomic_write_json, read_json
from wrappers.state import StateFileError

T = TypeVar("T")

_ROUNDING = 1e-9  # ⌈κN⌉ and ⌊γm⌋ of products such as 0.1·30 = 3.0000000000000004


@dataclass
class _Entry(Generic[T]):
    item: T
    advantage: float
    iteration: int


class ReplayBuffer(Generic[T]):
    """The AdaPR buffer (§2.2.2, App. B "Buffer entry and exit conditions"; Table 4: 256, κ=0.25).

    Entry: each round, of the round's N rollouts only the top ⌈κ·N⌉ by advantage are eligible,
    and of those only the ones with a positive advantage enter (*positive* replay).
    Exit, in this order:

    1. age: an item added at round a is removed at round t when t − a > ``max_age`` ("older than
       N = 1/κ rounds"). Evicting at the start of round t and adding after its updates (see
       the module doc) makes an item replayable in rounds a+1 … a+N: exactly N rounds.
    2. capacity: beyond ``capacity`` items the lowest advantages go first (the older on ties).
    3. sampling: a drawn item leaves the buffer. App. B.3.1 expects a stored trajectory "to be
       sampled only once on average"; removing it on draw makes that exact and keeps one
       trajectory from dominating several updates.

    Advantages are the ones given at entry ("current" as of the round they were computed).

    >>> buf = ReplayBuffer(capacity=4, kappa=0.5)  # max_age = round(1/0.5) = 2
    >>> buf.add(["a", "b", "c", "d"], [1.0, 0.5, -0.5, -1.0], iteration=0)  # top ⌈0.5·4⌉ = 2
    2
    >>> buf.add(["e", "f"], [0.0, -1.0], iteration=1)  # "e" is the top 1 but A = 0 is not positive
    0
    >>> buf.evict(2), len(buf)  # age 2 is not older than 2 rounds
    (0, 2)
    >>> buf.sample(4, gamma=0.25)  # at most ⌊0.25·4⌋ = 1, highest advantage first
    ['a']
    >>> buf.evict(3), len(buf)  # "b" is now 3 rounds old
    (1, 0)
    """

    def __init__(self, capacity: int = 256, kappa: float = 0.25, max_age: int | None = None) -> None:
        if not (isinstance(capacity, int) and capacity >= 1):
            raise ValueError(f"capacity must be a positive int, got {capacity!r}")
        if not 0.0 < kappa <= 1.0:
            raise ValueError(f"kappa (the share of each round that may enter) must be in (0, 1], got {kappa}")
        if max_age is None:
            max_age = round(1.0 / kappa)  # MobileRL: N = 1/κ rounds
        if not (isinstance(max_age, int) and max_age >= 0):
            raise ValueError(f"max_age must be an int >= 0 (rounds), got {max_age!r}")
        self.capacity = capacity
        self.kappa = float(kappa)
        self.max_age = max_age
        self._entries: list[_Entry[T]] = []  # in insertion order: the index breaks ties by age

    def __len__(self) -> int:
        return len(self._entries)

    def add(self, items: Sequence[T], advantages: Sequence[float], iteration: int) -> int:
        """Offer round ``iteration``'s rollouts; returns how many entered (and survived eviction)."""
        adv = finite(advantages, "advantages", allow_empty=True)
        if len(items) != adv.size:
            raise ValueError(f"{len(items)} items but {adv.size} advantages")
        newest = max((e.iteration for e in self._entries), default=iteration)
        if iteration < newest:
            raise ValueError(f"iteration {iteration} is before round {newest}, already in the buffer")
        k = math.ceil(self.kappa * adv.size - _ROUNDING)
        top = sorted(sorted(range(adv.size), key=lambda i: -adv[i])[:k])  # stable, then rollout order
        new = [_Entry(items[i], float(adv[i]), int(iteration)) for i in top if adv[i] > 0]
        self._entries.extend(new)
        self.evict(iteration)
        alive = {id(e) for e in self._entries}
        return sum(id(e) in alive for e in new)

    def evict(self, iteration: int) -> int:
        """Apply age-based, then capacity-based eviction at round ``iteration``; returns how many left."""
        before = len(self._entries)
        self._entries = [e for e in self._entries if iteration - e.iteration <= self.max_age]
        excess = len(self._entries) - self.capacity
        if excess > 0:
            order = sorted(range(len(self._entries)), key=lambda i: (self._entries[i].advantage, i))
            gone = set(order[:excess])
            self._entries = [e for i, e in enumerate(self._entries) if i not in gone]
        return before - len(self._entries)

    def sample(self, m: int, gamma: float = 1.0) -> list[T]:
        """Draw at most ⌊γ·m⌋ items, highest advantage first (the newer on ties); they leave the buffer."""
        if not (isinstance(m, int) and m >= 0):
            raise ValueError(f"m must be an int >= 0, got {m!r}")
        if not 0.0 <= gamma <= 1.0:
            raise ValueError(f"gamma (the replay share) must be in [0, 1], got {gamma}")
        k = min(math.floor(gamma * m + _ROUNDING), len(self._entries))
        order = sorted(range(len(self._entries)), key=lambda i: (-self._entries[i].advantage, -i))
        taken = set(order[:k])
        out = [self._entries[i].item for i in order[:k]]
        self._entries = [e for i, e in enumerate(self._entries) if i not in taken]
        return out

    def state_dict(self) -> dict[str, Any]:
        """Plain values and the items as given: pickling it restores the buffer exactly."""
        return {
            "capacity": self.capacity,
            "kappa": self.kappa,
            "max_age": self.max_age,
            "entries": [{"item": e.item, "advantage": e.advantage, "iteration": e.iteration} for e in self._entries],
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (settings included)."""
        try:
            fresh: ReplayBuffer[T] = ReplayBuffer(int(state["capacity"]), float(state["kappa"]), int(state["max_age"]))
            entries = [_Entry(e["item"], float(e["advantage"]), int(e["iteration"])) for e in state["entries"]]
        except (KeyError, TypeError) as e:
            raise ValueError(f"not a ReplayBuffer state_dict ({e!r})") from e
        self.capacity, self.kappa, self.max_age = fresh.capacity, fresh.kappa, fresh.max_age
        self._entries = entries


def mix_batches(on_policy: Sequence[T], buffer: ReplayBuffer[T], gamma: float, minibatch: int) -> list[list[T]]:
    """AdaPR mixture sampling (§2.2.2): the round's mini-batches, each topped up from the buffer.

    ``on_policy`` is split, in order, into mini-batches of ``minibatch`` items; each gets at most
    ⌊γ·m⌋ replayed items appended (m its on-policy count; the highest advantages, which leave the
    buffer). Every on-policy item is used once; replay runs out when the buffer does.

    Reading of the paper: q = γ·p_B + (1 − γ)·p_on taken literally would, with Table 4's γ = 1.0,
    train on replay alone, while App. B reports an on-policy : replay mixture of about 1:1. So γ
    is read as the cap of replayed per on-policy trajectory: M on-policy + at most γM replayed,
    a replay share of at most γ/(1 + γ) (1:1 at γ = 1).

    >>> buf = ReplayBuffer(kappa=1.0)
    >>> buf.add(["r1", "r2", "r3"], [3.0, 2.0, 1.0], iteration=0)
    3
    >>> mix_batches(["a", "b", "c", "d", "e"], buf, gamma=1.0, minibatch=2)
    [['a', 'b', 'r1', 'r2'], ['c', 'd', 'r3'], ['e']]
    """
    if not (isinstance(minibatch, int) and minibatch >= 1):
        raise ValueError(f"minibatch must be a positive int, got {minibatch!r}")
    batches = []
    for start in range(0, len(on_policy), minibatch):
        fresh = list(on_policy[start : start + minibatch])
        batches.append(fresh + buffer.sample(len(fresh), gamma))
    return batches


class FailureCurriculum:
    """Failure curriculum filtering (§2.2.3): down-weight, then drop, tasks that never succeed.

    At the end of each epoch :meth:`update` gets the rewards of every task sampled that epoch.
    A task whose rewards are all zero (|r| < ``tol``) adds one to its consecutive failure count
    f; any non-zero reward resets f to 0. With f ≥ ``fail_epochs`` (2) it is in cooldown, sampled
    with weight exp(−f); once it has failed ``cooldown`` (3) cooldown epochs, i.e. f reaches
    ``fail_epochs + cooldown``, it is removed for good (weight 0). A task not sampled in an epoch
    keeps its state: a cooldown only advances on evidence, so no task is removed unseen.
    Pass the outcome rewards (success 0/1, or SPA's), not shaped rewards that are never zero.

    >>> fcf = FailureCurriculum()
    >>> for _ in range(3):
    ...     _ = fcf.update({"hard": [0.0, 0.0], "easy": [1.0, 0.0]})
    >>> fcf.weights(["hard", "easy", "new"]).round(4).tolist()  # exp(−3): 2nd cooldown epoch
    [0.0498, 1.0, 1.0]
    >>> fcf.update({"hard": [0.0]}), fcf.update({"hard": [0.0]}), sorted(fcf.removed)
    ([], ['hard'], ['hard'])
    """

    kind = "failure_curriculum"
    format_version = 1

    def __init__(self, fail_epochs: int = 2, cooldown: int = 3, tol: float = 1e-8) -> None:
        if not (isinstance(fail_epochs, int) and fail_epochs >= 1):
            raise ValueError(f"fail_epochs must be an int >= 1, got {fail_epochs!r}")
        if not (isinstance(cooldown, int) and cooldown >= 0):
            raise ValueError(f"cooldown must be an int >= 0 (epochs), got {cooldown!r}")
        if not (math.isfinite(tol) and tol >= 0):
            raise ValueError(f"tol must be a finite number >= 0, got {tol}")
        self.fail_epochs = fail_epochs
        self.cooldown = cooldown
        self.tol = float(tol)
        self._failures: dict[str, int] = {}  # consecutive all-zero epochs f, per task
        self._removed: set[str] = set()

    @property
    def removed(self) -> frozenset[str]:
        """Tasks removed for good."""
        return frozenset(self._removed)

    @property
    def in_cooldown(self) -> frozenset[str]:
        """Tasks sampled with weight exp(−f) (fail_epochs ≤ f < fail_epochs + cooldown)."""
        return frozenset(t for t, f in self._failures.items() if f >= self.fail_epochs and t not in self._removed)

    @property
    def failures(self) -> dict[str, int]:
        """The consecutive failure count f of every task seen."""
        return dict(self._failures)

    def update(self, epoch_rewards: Mapping[str, Sequence[float]]) -> list[str]:
        """Record one epoch's rewards per sampled task; returns the tasks removed by this epoch."""
        newly = []
        for task, rewards in epoch_rewards.items():
            r = finite(rewards, f"rewards of task {task!r}")
            if task in self._removed:
                continue  # removal is permanent
            f = self._failures.get(task, 0) + 1 if bool(np.all(np.abs(r) < self.tol)) else 0
            self._failures[task] = f
            if f >= self.fail_epochs + self.cooldown:
                self._removed.add(task)
                newly.append(task)
        return sorted(newly)

    def weights(self, tasks: Sequence[str]) -> np.ndarray:
        """Unnormalised sampling weights: 1, exp(−f) in cooldown, 0 once removed."""
        out = np.ones(len(tasks))
        for i, task in enumerate(tasks):
            f = self._failures.get(task, 0)
            if task in self._removed:
                out[i] = 0.0
            elif f >= self.fail_epochs:
                out[i] = math.exp(-f)
        return out

    def sample(self, tasks: Sequence[str], n: int, rng: np.random.Generator) -> list[str]:
        """``n`` tasks drawn with replacement in proportion to :meth:`weights`."""
        if len(tasks) == 0:
            raise ValueError("no tasks to sample from")
        w = self.weights(tasks)
        if w.sum() <= 0:
            raise RuntimeError(
                f"the failure curriculum has removed every one of the {len(tasks)} tasks (none succeeded for "
                f"{self.fail_epochs + self.cooldown} sampled epochs in a row): start a fresh FailureCurriculum, "
                "or train on easier tasks first"
            )
        return [tasks[i] for i in rng.choice(len(tasks), size=n, replace=True, p=w / w.sum())]

    def state_dict(self) -> dict[str, Any]:
        return {
            "fail_epochs": self.fail_epochs,
            "cooldown": self.cooldown,
            "tol": self.tol,
            "failures": dict(sorted(self._failures.items())),
            "removed": sorted(self._removed),
        }

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        """Restore what :meth:`state_dict` returned (settings included)."""
        try:
            fresh = FailureCurriculum(int(state["fail_epochs"]), int(state["cooldown"]), float(state["tol"]))
            failures = {str(t): int(f) for t, f in state["failures"].items()}
            removed = {str(t) for t in state["removed"]}
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"not a FailureCurriculum state_dict ({e!r})") from e
        self.fail_epochs, self.cooldown, self.tol = fresh.fail_epochs, fresh.cooldown, fresh.tol
        self._failures, self._removed = failures, removed

    def save(self, path: str | os.PathLike) -> Path:
        """Write the failure histories to ``path`` as JSON, atomically (the old file kept as ``.bak``)."""
        atomic_write_json(path, {"kind": self.kind, "format_version": self.format_version, "data": self.state_dict()})
        return Path(path)

    @classmethod
    def load(cls, path: str | os.PathLike) -> FailureCurriculum:
        """The curriculum saved at ``path``: FCF keeps failure histories across training runs."""
        try:
            doc = read_json(path, "failure curriculum")
            if not isinstance(doc, dict) or doc.get("kind") != cls.kind:
                raise ValueError(f"not a {cls.kind} file")
            if int(doc.get("format_version", 0)) > cls.format_version:
                raise ValueError(f"format version {doc['format_version']} is newer than this gui-gym reads")
            out = cls()
            out.load_state_dict(doc["data"])
        except FileNotFoundError as e:
            raise StateFileError(f"{path}: no such {cls.kind} file") from e
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise StateFileError(f"{path}: cannot read this {cls.kind} ({e})") from e
        return out


def prune_negatives(
    advantages: Sequence[float], ratio: float = 2.0, rng: np.random.Generator | None = None
) -> list[int]:
    """Indices to keep so that negatives number at most ``ratio`` × positives (App. B.3.1's 1:2).

    Every A > 0 is kept; of the A < 0, the lowest advantages are discarded first, ties broken at
    random by ``rng`` (a fresh generator when None: a fixed order would always drop the same
    rollout positions). A = 0 is kept: it adds no gradient, only to the loss's denominator.
    With no positive at all every negative is discarded. Returns sorted indices.

    >>> prune_negatives([1.0, -0.5, -2.0, -1.0, 0.0, -0.1], ratio=2.0)
    [0, 1, 4, 5]
    """
    if not (math.isfinite(ratio) and ratio >= 0):
        raise ValueError(f"ratio (negatives per positive) must be a finite number >= 0, got {ratio}")
    adv = finite(advantages, "advantages", allow_empty=True)
    rng = np.random.default_rng() if rng is None else rng
    negatives = np.flatnonzero(adv < 0)
    budget = math.floor(ratio * int((adv > 0).sum()) + _ROUNDING)
    shuffled = rng.permutation(negatives)
    kept = shuffled[np.argsort(-adv[shuffled], kind="stable")][:budget]  # highest first, random ties
    return sorted(int(i) for i in np.concatenate([np.flatnonzero(adv >= 0), kept]))
