"""ProgRM's progress labels without humans (§2.2): recipes, key steps, and label assignment.

1. **Recipe library.** A task's successful trajectories are grouped so that every pair in
   a group has ``Sim = SoftLCS / min(|T_i|, |T_j|) > θ_L`` (Eq. 3, θ_L = 0.6 in App. A);
   each group's recipe is the left-associative LCS of its members (Eq. 10).
2. **Key steps.** A trajectory is matched to the recipe ``L_j`` with the highest completion
   ratio ``CR = |l_ij| / |L_j|`` (Eq. 4, with ``|l_ij|`` the soft LCS length); its steps
   matched to the recipe are the key steps.
3. **Labels.** The key step matched to recipe position κ (1-based) gets ``κ / |L_j|``; every
   other step inherits the label of the nearest key step before it, and steps before the
   first key step get 0.

With ``source="env"`` ("ProgRM Env"), the key steps are the steps at which the env reported
milestones (``Step.milestones``) and the recipe is the task's annotated milestone list, so
the λ-th milestone gets ``λ / K``: the env's own ``progress``.

Trajectories are grouped per ``task_id`` by default: with ``meta["placeholders"]`` abstracted
(see :mod:`wrappers.progress.match`) the instances of one task share recipes. Group per
``instruction`` for logs without them, as the paper does per goal.

Example (hard matching; two successes of one task and a partial failure):

    >>> from gui_gym.core.trajectory import Step, Trajectory
    >>> def traj(actions, success):
    ...     return Trajectory("T", "do it", steps=[Step(f'do(action="Launch", app="{a}")',
    ...                       action_description=f"Launch {a}") for a in actions], success=success)
    >>> runs = [traj("ABCD", True), traj("AXBCD", True), traj("AB", False)]
    >>> labeller = ProgressLabeller(match=ActionMatch(hard=True)).fit(runs)
    >>> [len(r) for r in labeller.library["T"]]
    [4]
    >>> labeller.label(runs[1]).labels
    [0.25, 0.25, 0.5, 0.75, 1.0]
    >>> labeller.label(runs[2]).labels, labeller.label(runs[2]).completion_ratio
    ([0.25, 0.5], 0.5)
"""

from __future__ import annotations

import copy
import logging
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from gui_gym.core.io import atomic_write_json, read_json
from gui_gym.core.trajectory import Trajectory
from wrappers.progress.lcs import group_lcs, lcs, similarity
from wrappers.progress.match import ActionMatch, ActionToken, trajectory_tokens

__all__ = [
    "THETA_L",
    "LabelReport",
    "Labels",
    "ProgressLabeller",
    "assign_labels",
    "attach_labels",
    "env_labels",
    "label_trajectories",
    "read_labels",
]

log = logging.getLogger(__name__)

#: The grouping threshold θ_L of ProgRM App. A.
THETA_L = 0.6
Source = Literal["lcs", "env"]
Fallback = Literal["env", "skip"]


@dataclass
class Labels:
    """Per-step progress labels of one trajectory and how they were found."""

    labels: list[float]
    key_steps: list[bool]
    source: str  # "lcs" or "env"
    recipe: int | None = None  # index of the matched recipe in the task's library
    completion_ratio: float | None = None  # Eq. 4 for the matched recipe
    positions: list[int | None] = field(default_factory=list)  # recipe position κ of each key step


def assign_labels(n_steps: int, key_positions: dict[int, int], recipe_length: int) -> list[float]:
    """Labels from key steps: step ``t`` matched to position κ gets κ/|L|, carried forward.

    >>> assign_labels(5, {1: 1, 3: 2}, recipe_length=4)
    [0.0, 0.25, 0.25, 0.5, 0.5]
    """
    if recipe_length <= 0:
        return [0.0] * n_steps
    out, current = [], 0.0
    for t in range(n_steps):
        if t in key_positions:
            current = key_positions[t] / recipe_length
        out.append(current)
    return out


def env_labels(trajectory: Trajectory) -> Labels:
    """ "ProgRM Env" labels: key steps are the steps where the env reported milestones.

    The λ-th milestone reached gets λ/K with K the task's milestone count
    (``meta["task_milestones"]``); a log without it uses the step's recorded ``progress``.
    """
    steps = trajectory.steps
    total = trajectory.meta.get("task_milestones")
    count = len(total) if isinstance(total, list | tuple) else total if isinstance(total, int) else None
    keys = [bool(s.milestones) for s in steps]
    positions: dict[int, int] = {}
    reached = 0
    labels = []
    current = 0.0
    for t, step in enumerate(steps):
        if keys[t]:
            reached += len(step.milestones)
            positions[t] = reached
            current = min(1.0, reached / count) if count else float(np.clip(step.progress, 0.0, 1.0))
        labels.append(current)
    return Labels(labels, keys, "env", positions=[positions.get(t) for t in range(len(steps))])


@dataclass
class LabelReport:
    """What a labelling run did, for the user to read."""

    labelled: int = 0
    skipped_empty: int = 0
    skipped_no_recipe: int = 0
    env_fallback: int = 0
    no_recipe_tasks: list[str] = field(default_factory=list)
    recipes: int = 0
    key_steps: int = 0
    steps: int = 0

    def summary(self) -> str:
        parts = [f"labelled {self.labelled} trajectories ({self.steps} steps, {self.key_steps} key steps)"]
        if self.recipes:
            parts.append(f"{self.recipes} recipes")
        if self.skipped_empty:
            parts.append(f"skipped {self.skipped_empty} empty")
        if self.no_recipe_tasks:
            how = (
                f"{self.env_fallback} labelled from env milestones"
                if self.env_fallback
                else f"{self.skipped_no_recipe} skipped"
            )
            parts.append(f"{len(self.no_recipe_tasks)} task(s) without a successful trajectory ({how})")
        return "; ".join(parts)


class ProgressLabeller:
    """Builds the recipe library from successful trajectories and labels any trajectory.

    Args:
        theta: the grouping threshold θ_L (Eq. 3); groups need every pairwise Sim > θ.
        match: the soft match (default :class:`ActionMatch`: Eq. 9 with MiniLM and ε = 0.4).
        group_by: ``"task_id"`` (default) or ``"instruction"`` (the paper's goal g).
    """

    def __init__(self, theta: float = THETA_L, match: ActionMatch | None = None, group_by: str = "task_id") -> None:
        if not 0.0 <= theta <= 1.0:
            raise ValueError(f"theta must lie in [0, 1], got {theta}")
        if group_by not in ("task_id", "instruction"):
            raise ValueError(f"group_by must be 'task_id' or 'instruction', got {group_by!r}")
        self.theta = float(theta)
        self.match = match or ActionMatch()
        self.group_by = group_by
        self.library: dict[str, list[list[ActionToken]]] = {}
        self._memo: dict[tuple[str, tuple[ActionToken, ...]], Labels] = {}

    def key(self, trajectory: Trajectory) -> str:
        return trajectory.task_id if self.group_by == "task_id" else trajectory.instruction

    # -- stage 1: the recipe library ----------------------------------------------------
    def fit(self, trajectories: Iterable[Trajectory], progress: bool = False) -> ProgressLabeller:
        """Build (replace) the recipe library from the successful trajectories among these."""
        by_task: dict[str, Counter[tuple[ActionToken, ...]]] = defaultdict(Counter)
        for t in trajectories:
            if t.success and t.steps:
                by_task[self.key(t)][tuple(trajectory_tokens(t))] += 1
        self.match.prepare([tok for seqs in by_task.values() for seq in seqs for tok in seq])
        items = by_task.items()
        if progress:
            from tqdm import tqdm

            items = tqdm(items, desc="recipes", unit="task", leave=False)
        self.library = {task: self._recipes(seqs) for task, seqs in items}
        self._memo.clear()
        return self

    def _recipes(self, sequences: Counter[tuple[ActionToken, ...]]) -> list[list[ActionToken]]:
        # Most frequent first, then shortest: a group is seeded by the commonest way to succeed,
        # and Eq. 10 keeps its first member's steps. Identical sequences have Sim = 1.
        order = sorted(sequences, key=lambda s: (-sequences[s], len(s)))
        groups: list[list[tuple[ActionToken, ...]]] = []
        for seq in order:
            for group in groups:
                if all(self.similarity(seq, other) > self.theta for other in group):
                    group.append(seq)
                    break
            else:
                groups.append([seq])
        recipes = [group_lcs(g, self.match.matrix) for g in groups]
        return [r for r in recipes if r]

    def similarity(self, a: Sequence[ActionToken], b: Sequence[ActionToken]) -> float:
        """Eq. 3 between two token sequences."""
        return similarity(self.match.matrix(a, b))

    # -- stages 2 and 3: key steps and labels ------------------------------------------
    def recipes_for(self, trajectory: Trajectory) -> list[list[ActionToken]]:
        return self.library.get(self.key(trajectory), [])

    def label(self, trajectory: Trajectory) -> Labels:
        """LCS labels of one trajectory; raises ``KeyError`` when its task has no recipe."""
        recipes = self.recipes_for(trajectory)
        if not recipes:
            raise KeyError(f"no recipe for {self.key(trajectory)!r}: the library has no successful trajectory of it")
        tokens = trajectory_tokens(trajectory)
        memo_key = (self.key(trajectory), tuple(tokens))
        if memo_key in self._memo:  # the same steps (a repeated path) get the same labels
            return copy.deepcopy(self._memo[memo_key])
        best = None
        for j, recipe in enumerate(recipes):
            result = lcs(self.match.matrix(tokens, recipe))
            cr = result.score / len(recipe)
            # Highest CR; ties go to the longer recipe (finer progress), then the earlier one.
            if best is None or cr > best[0] + 1e-12 or (cr >= best[0] - 1e-12 and len(recipe) > len(recipes[best[1]])):
                best = (cr, j, result)
        assert best is not None
        cr, j, result = best
        positions = {i: k + 1 for i, k in result.pairs}
        n = len(tokens)
        labels = Labels(
            labels=assign_labels(n, positions, len(recipes[j])),
            key_steps=[t in positions for t in range(n)],
            source="lcs",
            recipe=j,
            completion_ratio=float(cr),
            positions=[positions.get(t) for t in range(n)],
        )
        self._memo[memo_key] = copy.deepcopy(labels)
        return labels

    # -- persistence ---------------------------------------------------------------------
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the recipe library as JSON (atomically; the previous file is kept as ``.bak``)."""
        data = {
            "theta": self.theta,
            "group_by": self.group_by,
            "library": {k: [[vars(t) for t in r] for r in rs] for k, rs in self.library.items()},
        }
        atomic_write_json(path, data)

    @classmethod
    def load(cls, path: str | os.PathLike[str], match: ActionMatch | None = None) -> ProgressLabeller:
        data = read_json(path, "recipe library")  # FileNotFoundError, or CorruptFileError naming the file
        try:
            out = cls(theta=data["theta"], match=match, group_by=data["group_by"])
            out.library = {k: [[ActionToken(**t) for t in r] for r in rs] for k, rs in data["library"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{path}: not a recipe library ({e})") from e
        return out


def label_trajectories(
    trajectories: Sequence[Trajectory],
    source: Source = "lcs",
    labeller: ProgressLabeller | None = None,
    fallback: Fallback = "env",
    progress: bool = False,
) -> tuple[list[tuple[Trajectory, Labels]], LabelReport]:
    """Label every trajectory; returns ``(trajectory, labels)`` pairs and a report.

    With ``source="lcs"`` the library is fitted on these trajectories unless ``labeller``
    already has one. A trajectory whose task has no successful trajectory gets env labels
    (``fallback="env"``) or is left out (``"skip"``); both are logged with the task ids.
    Empty trajectories are left out.
    """
    if source not in ("lcs", "env"):
        raise ValueError(f"source must be 'lcs' or 'env', got {source!r}")
    if fallback not in ("env", "skip"):
        raise ValueError(f"fallback must be 'env' or 'skip', got {fallback!r}")
    report = LabelReport()
    if source == "lcs":
        if labeller is None:
            labeller = ProgressLabeller()
        if not labeller.library:
            labeller.fit(trajectories, progress=progress)
        report.recipes = sum(len(r) for r in labeller.library.values())
        # One batched encoding of every free text, rather than a few per trajectory.
        labeller.match.prepare([tok for t in trajectories for tok in trajectory_tokens(t)])
    out: list[tuple[Trajectory, Labels]] = []
    missing: set[str] = set()
    items: Iterable[Trajectory] = trajectories
    if progress:
        from tqdm import tqdm

        items = tqdm(trajectories, desc=f"labelling ({source})", unit="traj")
    for t in items:
        if not t.steps:
            report.skipped_empty += 1
            continue
        if source == "env":
            labels = env_labels(t)
        else:
            assert labeller is not None
            if labeller.recipes_for(t):
                labels = labeller.label(t)
            else:
                missing.add(labeller.key(t))
                if fallback == "skip":
                    report.skipped_no_recipe += 1
                    continue
                report.env_fallback += 1
                labels = env_labels(t)
        out.append((t, labels))
        report.labelled += 1
        report.steps += len(t.steps)
        report.key_steps += sum(labels.key_steps)
    report.no_recipe_tasks = sorted(missing)
    if missing:
        log.warning(
            "%d task(s) have no successful trajectory, so no recipe (%s): %s",
            len(missing),
            "labelled from env milestones" if fallback == "env" else "skipped",
            ", ".join(report.no_recipe_tasks[:10]) + (" …" if len(missing) > 10 else ""),
        )
    if report.skipped_empty:
        log.warning("skipped %d empty trajectories", report.skipped_empty)
    return out, report


def attach_labels(trajectory: Trajectory, labels: Labels) -> Trajectory:
    """A copy of ``trajectory`` with the labels in ``step.info`` and the source in ``meta``.

    ``step.info["progress_label"]``, ``step.info["key_step"]`` and ``meta["progress_labels"]``
    (``{"source", "recipe", "completion_ratio"}``); the env's ``progress`` is left as it was.
    """
    out = Trajectory.from_dict(trajectory.to_dict())
    for step, value, key in zip(out.steps, labels.labels, labels.key_steps, strict=True):
        step.info["progress_label"] = round(float(value), 6)
        step.info["key_step"] = bool(key)
    out.meta["progress_labels"] = {
        "source": labels.source,
        "recipe": labels.recipe,
        "completion_ratio": None if labels.completion_ratio is None else round(labels.completion_ratio, 6),
    }
    return out


def read_labels(trajectory: Trajectory) -> tuple[list[float], list[bool]] | None:
    """The labels :func:`attach_labels` stored, or ``None`` when the trajectory has none."""
    try:
        labels = [float(s.info["progress_label"]) for s in trajectory.steps]
        keys = [bool(s.info.get("key_step", False)) for s in trajectory.steps]
    except (KeyError, TypeError, ValueError):
        return None
    if any(not 0.0 <= v <= 1.0 for v in labels):
        return None
    return labels, keys
