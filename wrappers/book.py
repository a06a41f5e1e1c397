"""ADMIRE's adaptive milestone memory M (Alg. 1 line 1), keyed by task template.

For each task the book holds milestone *templates* with ``<Slot>`` placeholders, distilled by a
generator Φ from successful trajectories: initialised from the first one (Eq. 6), refined when a
later one shows a better path (Eq. 7), and filled with each episode's own values by
:meth:`MilestoneBook.milestones`. It also keeps what App. B reports: every version of each
task's milestones (with the epoch and the exemplar's length), hit counts per milestone per
epoch (App. B.2), and coverage, the share of tasks that have milestones (App. B.6).

The book is a :class:`~wrappers.state.SharedState`: give it a ``path`` and the envs of an
``AsyncVectorEnv`` (or several machines on a shared disk) read and refine one book; without a
path it is shared in memory. Hit counts are added up in memory and written with the next
change or :meth:`flush`, so a busy book does not rewrite its file every episode. A file damaged
during a run is left as it is, and the run's changes (hit counts included) go to a recovery file
beside it, named in a warning (:mod:`wrappers.state`).

Example:
    >>> from gui_gym.core import Step, Trajectory
    >>> book = MilestoneBook(generator=lambda req: [abstract(s.action_description, req.placeholders)
    ...                                              for s in req.trajectory.steps])
    >>> t = Trajectory("ContactsFavorite", "Add Hana Silva to my favourite contacts.", success=True,
    ...                steps=[Step("a", action_description='Open the contact "Hana Silva"')],
    ...                meta={"placeholders": {"Name": "Hana Silva"}})
    >>> book.update(t, epoch=0)
    True
    >>> book.templates("ContactsFavorite"), book.milestones("ContactsFavorite", {"Name": "Kofi Rossi"})
    (['Open the contact "<Name>"'], ['Open the contact "Kofi Rossi"'])
    >>> book.coverage(["ContactsFavorite", "ContactsAddContact"])
    0.5
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gui_gym.core.trajectory import Step, Trajectory
from wrappers.generation import GenerationError, GenerationRequest, MilestoneGenerator, abstract, instantiate
from wrappers.state import SharedState

log = logging.getLogger(__name__)

__all__ = ["MilestoneBook", "abstract", "instantiate"]


class MilestoneBook(SharedState):
    """Adaptive milestones per task template, with their versions, hit counts and coverage.

    ``generator`` is Φ (default: :class:`wrappers.distill.BuiltinMilestoneGenerator`, which
    needs no LLM; :class:`wrappers.llm_generator.LLMMilestoneGenerator` runs the paper's prompts).
    ``history`` successful trajectories per task are kept for generators that compare paths.
    """

    kind = "milestone_book"

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        generator: MilestoneGenerator | None = None,
        history: int = 8,
    ) -> None:
        self.generator = generator
        self.history = history
        self._pending: dict[str, dict[str, Counter[str]]] = {}  # task -> epoch -> template -> hits
        self._pending_episodes: Counter[str] = Counter()
        super().__init__(path)

    # -- document ------------------------------------------------------------------------
    def _empty(self) -> dict[str, Any]:
        return {"tasks": {}}

    def _check(self, doc: dict[str, Any]) -> None:
        """Every field the book reads later, checked now: a bad entry fails at load, naming its task."""
        tasks = doc.get("tasks")
        if not isinstance(tasks, dict):
            raise ValueError("'tasks' must be an object")
        for tid, entry in tasks.items():
            try:
                _check_entry(entry)
            except ValueError as e:
                raise ValueError(f"task {tid!r}: {e}") from None

    @staticmethod
    def _entry(data: dict[str, Any], task_id: str) -> dict[str, Any]:
        return data["tasks"].setdefault(
            task_id, {"milestones": [], "versions": [], "history": [], "hits": {}, "episodes": 0, "successes": 0}
        )

    # -- reading -------------------------------------------------------------------------
    def templates(self, task_id: str) -> list[str]:
        """The task's current milestone templates (``[]`` if it has none yet)."""
        with self._lock:
            self._refresh()
            entry = self._data["tasks"].get(task_id)
            return list(entry["milestones"]) if entry else []

    def milestones(self, task_id: str, placeholders: Mapping[str, str] | None = None) -> list[str]:
        """The task's milestones with this instance's values filled in."""
        return [instantiate(m, placeholders or {}) for m in self.templates(task_id)]

    def version(self, task_id: str) -> int:
        """How many times the task's milestones were set (0: never)."""
        return len(self.versions(task_id))

    def versions(self, task_id: str) -> list[dict[str, Any]]:
        """Every version: ``{"version", "milestones", "epoch", "source", "length"}``."""
        with self._lock:
            self._refresh()
            entry = self._data["tasks"].get(task_id)
            return [dict(v) for v in entry["versions"]] if entry else []

    def tasks(self) -> list[str]:
        """Every task the book has seen an episode of."""
        with self._lock:
            self._refresh()
            return sorted(set(self._data["tasks"]) | set(self._pending_episodes))

    def coverage(self, task_ids: Iterable[str] | None = None) -> float:
        """Share of ``task_ids`` (default: every task seen) that have milestones (App. B.6)."""
        ids = list(task_ids) if task_ids is not None else self.tasks()
        if not ids:
            return 0.0
        return sum(bool(self.templates(t)) for t in ids) / len(ids)

    def hit_counts(self, task_id: str) -> dict[int, dict[str, int]]:
        """Hits per epoch per milestone template (App. B.2), pending counts included."""
        with self._lock:
            self._refresh()
            entry = self._data["tasks"].get(task_id, {})
            out: dict[int, Counter[str]] = {int(e): Counter(c) for e, c in entry.get("hits", {}).items()}
            for e, c in self._pending.get(task_id, {}).items():
                out.setdefault(int(e), Counter()).update(c)
            return {e: dict(c) for e, c in sorted(out.items())}

    # -- changing ------------------------------------------------------------------------
    def set(self, task_id: str, milestones: Sequence[str], epoch: int = 0, source: str = "manual") -> None:
        """Set a task's milestone templates by hand (a new version)."""
        ms = _validated(milestones)
        with self._change() as data:
            self._add_version(self._entry(data, task_id), ms, epoch, source, length=None)

    def record(self, task_id: str, hit_templates: Sequence[str], epoch: int = 0) -> None:
        """Count one episode of ``task_id`` and the milestones it hit (kept in memory until flushed)."""
        with self._lock:
            self._pending_episodes[task_id] += 1
            hits = self._pending.setdefault(task_id, {}).setdefault(str(epoch), Counter())
            hits.update(hit_templates)

    def flush(self) -> None:
        """Write the pending hit counts (a no-op when there are none)."""
        with self._lock:
            if self._pending or self._pending_episodes:
                with self._change():
                    pass

    def update(self, trajectory: Trajectory, epoch: int = 0, all_hit: bool = False) -> bool:
        """Offer a successful trajectory to Φ (Eq. 6 if the task has no milestones, else Eq. 7).

        Returns True if the task's milestones changed. ``all_hit`` says the trajectory met every
        current milestone: then Φ is asked only if the trajectory is shorter than the one the
        milestones came from — Alg. 1 line 10 refines from a *superior* trajectory, and the
        refinement prompt (Fig. 15) keeps milestones that are already sufficient — which spares
        the generator (an LLM call) on most successes once milestones fit. A failed
        trajectory, or a generator that fails (garbage from an LLM, an endpoint that is down),
        changes nothing: the previous milestones stay and the reason is logged.
        """
        if not trajectory.success:
            return False
        task_id = trajectory.task_id
        placeholders = dict(trajectory.meta.get("placeholders") or {})
        with self._lock:
            self._refresh()
            entry = self._data["tasks"].get(task_id) or {}
            current = list(entry.get("milestones", []))
            exemplar = (entry.get("versions") or [{}])[-1].get("length")
            if current and all_hit and (exemplar is None or len(trajectory.steps) >= exemplar):
                with self._change() as data:
                    self._remember(self._entry(data, task_id), trajectory)
                return False
            history = [_from_record(r) for r in entry.get("history", [])]
        if self.generator is None:
            self.generator = self._default_generator()
        generator = self.generator
        request = GenerationRequest(
            task_id=task_id,
            instruction=trajectory.instruction,
            trajectory=trajectory,
            current=current,
            placeholders=placeholders,
            history=history,
        )
        try:
            new = _validated(generator(request))
        except GenerationError as e:
            log.warning("milestones of %s kept (version %d): %s", task_id, len(entry.get("versions", [])), e)
            new = None
        except Exception as e:  # a broken generator must not end the episode that called it
            log.error("milestone generator failed on %s (%s: %s); milestones kept", task_id, type(e).__name__, e)
            new = None
        with self._change() as data:
            entry = self._entry(data, task_id)
            self._remember(entry, trajectory)
            if new is None or new == entry["milestones"]:
                return False
            source = "init" if not entry["milestones"] else "refine"
            self._add_version(entry, new, epoch, source, length=len(trajectory.steps))
            return True

    # -- internals -----------------------------------------------------------------------
    def _remember(self, entry: dict[str, Any], trajectory: Trajectory) -> None:
        entry["successes"] += 1
        entry["history"] = [*entry["history"], _to_record(trajectory)][-self.history :]

    @staticmethod
    def _add_version(entry: dict[str, Any], ms: list[str], epoch: int, source: str, length: int | None) -> None:
        entry["milestones"] = ms
        entry["versions"].append(
            {
                "version": len(entry["versions"]) + 1,
                "milestones": ms,
                "epoch": epoch,
                "source": source,
                "length": length,
            }
        )

    @staticmethod
    def _default_generator() -> MilestoneGenerator:
        from wrappers.distill import BuiltinMilestoneGenerator

        return BuiltinMilestoneGenerator()

    def _before_write(self, data: dict[str, Any]) -> None:
        """Fold the pending episode and hit counts into the document about to be written."""
        for task_id, n in self._pending_episodes.items():
            self._entry(data, task_id)["episodes"] += n
        for task_id, epochs in self._pending.items():
            hits = self._entry(data, task_id)["hits"]
            for epoch, counts in epochs.items():
                merged = Counter(hits.get(epoch, {}))
                merged.update(counts)
                hits[epoch] = dict(merged)
        self._pending.clear()
        self._pending_episodes.clear()


_ENTRY_KEYS = ("milestones", "versions", "history", "hits", "episodes", "successes")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _strings(v: Any) -> bool:
    return isinstance(v, list) and all(isinstance(m, str) for m in v)


def _check_entry(entry: Any) -> None:
    """Raise ValueError naming the first field of a task's entry that the book could not use."""
    if not isinstance(entry, dict):
        raise ValueError("the entry must be an object")
    if missing := [k for k in _ENTRY_KEYS if k not in entry]:
        raise ValueError(f"missing {', '.join(missing)}")
    if not _strings(entry["milestones"]):
        raise ValueError("'milestones' must be a list of strings")
    for k in ("episodes", "successes"):
        if not _is_int(entry[k]) or entry[k] < 0:
            raise ValueError(f"{k!r} must be a count (an integer >= 0), not {entry[k]!r}")
    if not isinstance(entry["versions"], list):
        raise ValueError("'versions' must be a list")
    for i, v in enumerate(entry["versions"]):
        if not (
            isinstance(v, dict)
            and _is_int(v.get("version"))
            and _strings(v.get("milestones"))
            and _is_int(v.get("epoch"))
            and isinstance(v.get("source"), str)
            and (v.get("length") is None or _is_int(v["length"]))
        ):
            raise ValueError(
                f"versions[{i}] must be an object with an integer version and epoch, a list of "
                f"string milestones, a string source and an integer or null length: {str(v)[:200]}"
            )
    hits = entry["hits"]
    if not isinstance(hits, dict):
        raise ValueError("'hits' must be an object")
    for epoch, counts in hits.items():
        if not epoch.lstrip("-").isdigit():
            raise ValueError(f"hits: epoch {epoch!r} is not an integer")
        if not isinstance(counts, dict) or not all(_is_int(n) and n >= 0 for n in counts.values()):
            raise ValueError(f"hits[{epoch!r}] must map milestones to counts")
    if not isinstance(entry["history"], list):
        raise ValueError("'history' must be a list")
    for i, r in enumerate(entry["history"]):
        try:
            _check_record(r)
        except ValueError as e:
            raise ValueError(f"history[{i}]: {e}") from None


def _check_record(r: Any) -> None:
    """What :func:`_from_record` reads of a remembered trajectory."""
    if not isinstance(r, dict) or not isinstance(r.get("task_id"), str) or not isinstance(r.get("instruction"), str):
        raise ValueError("a record must be an object with a string task_id and instruction")
    placeholders = r.get("placeholders", {})
    if not isinstance(placeholders, dict) or not all(isinstance(v, str) for v in placeholders.values()):
        raise ValueError("placeholders must map names to strings")
    steps = r.get("steps")
    if not isinstance(steps, list):
        raise ValueError("steps must be a list")
    for j, step in enumerate(steps):
        # [description, format_valid, obs] then, in newer records, the action and its kind.
        if not (
            isinstance(step, list)
            and 3 <= len(step) <= 5
            and isinstance(step[0], str)
            and isinstance(step[1], bool)
            and all(isinstance(x, str) for x in step[3:])
        ):
            raise ValueError(f"steps[{j}] must be [description, format_valid, obs, action?, kind?]: {str(step)[:200]}")


def _validated(milestones: Any) -> list[str]:
    if not isinstance(milestones, (list, tuple)) or not milestones:
        raise GenerationError(f"expected a non-empty list of milestones, got {str(milestones)[:200]!r}")
    out = [m.strip() for m in milestones if isinstance(m, str) and m.strip()]
    if len(out) != len(milestones):
        raise GenerationError(f"every milestone must be a non-empty string: {str(milestones)[:200]!r}")
    return out


def _to_record(t: Trajectory) -> dict[str, Any]:
    """The part of a trajectory generators read, small enough to keep several per task."""
    return {
        "task_id": t.task_id,
        "instruction": t.instruction,
        "placeholders": dict(t.meta.get("placeholders") or {}),
        "start_obs": t.meta.get("start_obs"),
        "steps": [[s.action_description, s.format_valid, s.info.get("obs"), s.action, s.action_kind] for s in t.steps],
    }


def _from_record(r: dict[str, Any]) -> Trajectory:
    # Records written before steps carried their kind have four fields: the kind is then unknown.
    steps = [
        Step(
            action=rest[0] if rest else "",
            action_description=d,
            format_valid=ok,
            info={"obs": o},
            action_kind=rest[1] if len(rest) > 1 else "",
        )
        for d, ok, o, *rest in r["steps"]
    ]
    meta = {"placeholders": r.get("placeholders", {}), "start_obs": r.get("start_obs")}
    return Trajectory(task_id=r["task_id"], instruction=r["instruction"], steps=steps, success=True, meta=meta)


#: What batch settling publishes for a success and reads back (:func:`wrappers.milestone.settle_milestones`).
trajectory_record = _to_record
record_trajectory = _from_record
