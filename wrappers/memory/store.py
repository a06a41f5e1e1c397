"""UI-Mem's hierarchical experience memory (UI-Mem §3.2, §3.4, App. E-G).

Three levels, all stored abstract (``{{slot}}`` placeholders, :mod:`wrappers.memory.templates`):

- **workflows**, per task template: ordered lists of essential steps (the plan that led to
  success), each with ``N_succ`` / ``N_used`` counts, the mean length of its successes and a
  rationale;
- **subtask skills**, per ``(scene, subtask)`` (the scene is the app, or another name of where
  the subtask happens): summaries of how the subtask was done, with ``N_succ`` / ``N_used``;
- **failure diagnoses**, per ``(scene, subtask)``: a root cause and a correction guideline, with
  the time they were last seen.

:meth:`ExperienceMemory.retrieve` picks the workflow with the best Eq. 1 score (App. E's variant
with ``ranking="rate"``), fills its slots with the episode's values and, for strong guidance,
attaches each step's best skills (Eq. 1 over the skills) and most recent diagnoses (``R(t)``).
The add methods are the self-evolving update's writes: an entry close to an existing one
(cosine similarity of their embeddings at least ``merge_threshold`` with a ``matcher``, else the
same words) is merged into it: one more success, a fresh timestamp, the more detailed (longer)
text kept. Time is the memory's clock, one :meth:`~ExperienceMemory.tick` per training iteration.

The memory is a :class:`~wrappers.state.SharedState`: in memory, or a JSON file shared by
processes (atomic writes under a file lock; a damaged file is a clear error at load and never
overwritten). Uses counted by :meth:`retrieve` stay in memory until the next write or
:meth:`flush`, as the milestone book's hit counts do. A file damaged during a run is left as it
is and the run's updates are not lost: as for every shared state, each change, :meth:`flush` and
:meth:`save` writes the whole memory to a recovery file beside it, named in a warning
(:attr:`~wrappers.state.SharedState.recovery_path`; see :mod:`wrappers.state`).

>>> mem = ExperienceMemory()
>>> mem.add_workflow("ContactsAddContact", ["Open Contacts", "Enter {{Name}}", "Tap Save"], scene="contacts")
>>> mem.add_skill("contacts", "Enter {{Name}}", "Tap 'First name' and type {{Name}}")
>>> mem.add_failure("contacts", "Tap Save", "Saved before typing", "Type the name before tapping Save")
>>> guidance = mem.retrieve("ContactsAddContact", "strong", values={"Name": "Zara Costa"}, scene="contacts")
>>> print(guidance.render("strong"))
1.Open Contacts
2.Enter Zara Costa  (Guidance: Tip: Tap 'First name' and type Zara Costa)
3.Tap Save  (Guidance: Avoid: Type the name before tapping Save)
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wrappers.memory.guidance import Guidance, GuidanceStep, check_level
from wrappers.memory.ranking import RANKINGS, recency, score_plans
from wrappers.memory.templates import instantiate
from wrappers.state import SharedState

__all__ = ["ExperienceMemory", "MemoryConfig"]


@dataclass(frozen=True)
class MemoryConfig:
    """The memory's constants. The paper gives none of them; these are ours, exposed here.

    Attributes:
        ucb_weight: λ_ucb of Eq. 1 (App. E's ``c``).
        ranking: ``"eq1"`` (Eq. 1) or ``"rate"`` (App. E's success-rate reading).
        decay: λ of App. E's ``R(t) = 1 / (1 + λ·Δt)``, per clock tick (training iteration).
        tips, warnings: how many skills and diagnoses a step of strong guidance shows.
        merge_threshold: δ_dup, the cosine similarity at which a new entry merges into an old one.
        match_threshold: the cosine similarity a subtask (or a task's instruction) needs to borrow
            the experience of another one when it has none of its own (Alg. 1's fallback).
        max_entries: entries kept per task or subtask list; past it the lowest-ranked goes.
    """

    ucb_weight: float = 1.0
    ranking: str = "eq1"
    decay: float = 0.1
    tips: int = 1
    warnings: int = 2
    merge_threshold: float = 0.85
    match_threshold: float = 0.6
    max_entries: int = 8

    def __post_init__(self) -> None:
        if self.ranking not in RANKINGS:
            raise ValueError(f"unknown ranking {self.ranking!r}; choose from {', '.join(RANKINGS)}")
        if self.ucb_weight < 0 or self.decay < 0:
            raise ValueError("ucb_weight and decay must be >= 0")
        if self.tips < 0 or self.warnings < 0 or self.max_entries < 1:
            raise ValueError("tips and warnings must be >= 0 and max_entries >= 1")
        if not (0.0 <= self.merge_threshold <= 1.0 and 0.0 <= self.match_threshold <= 1.0):
            raise ValueError("merge_threshold and match_threshold are cosine similarities in [0, 1]")


def _words(text: str) -> str:
    return " ".join(text.casefold().split())


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


class ExperienceMemory(SharedState):
    """Workflows, subtask skills and failure diagnoses (see the module docstring).

    Args:
        path: the JSON file shared by processes (``None``: in memory).
        config: the constants (:class:`MemoryConfig`).
        matcher: what embeds texts for merging and for the fallback matches (a
            :class:`~wrappers.matching.SemanticMatcher`, anything with ``similarity(a, b)``
            returning a cosine matrix); without one, entries merge when their words are the same.
        extractor: what the self-evolving update (:func:`wrappers.memory.evolve.evolve`) extracts
            experience with: ``None`` for the built-in one, or an
            :class:`~wrappers.memory.llm.LLMExtractor`.
    """

    kind = "uimem_memory"

    def __init__(
        self,
        path: str | os.PathLike | None = None,
        config: MemoryConfig | None = None,
        matcher: Any = None,
        extractor: Any = None,
    ) -> None:
        self.config = config or MemoryConfig()
        self.matcher = matcher
        self.extractor = extractor  # what the self-evolving update extracts with (None: the built-in one)
        self._pending: Counter[tuple[str, ...]] = Counter()  # uses not yet written
        super().__init__(path)

    # -- document -------------------------------------------------------------------------------
    def _empty(self) -> dict[str, Any]:
        return {"clock": 0, "tasks": {}, "scenes": {}}

    def _check(self, doc: dict[str, Any]) -> None:
        if not _int(doc.get("clock")):
            raise ValueError("'clock' must be a non-negative integer")
        tasks, scenes = doc.get("tasks"), doc.get("scenes")
        if not isinstance(tasks, dict) or not isinstance(scenes, dict):
            raise ValueError("'tasks' and 'scenes' must be objects")
        for key, entry in tasks.items():
            where = f"task {key!r}"
            if not isinstance(entry, dict) or not isinstance(entry.get("plans"), list):
                raise ValueError(f"{where}: needs a list of 'plans'")
            if not isinstance(entry.get("instruction"), str) or not isinstance(entry.get("scene"), str):
                raise ValueError(f"{where}: 'instruction' and 'scene' must be strings")
            for plan in entry["plans"]:
                steps = plan.get("steps") if isinstance(plan, dict) else None
                if not isinstance(steps, list) or not steps or not all(isinstance(s, str) and s for s in steps):
                    raise ValueError(f"{where}: a plan's 'steps' must be a non-empty list of strings")
                if not all(_int(plan.get(k)) for k in ("n_succ", "n_used", "updated")):
                    raise ValueError(f"{where}: a plan's n_succ, n_used and updated must be non-negative integers")
                length = plan.get("length")
                if not isinstance(length, (int, float)) or isinstance(length, bool) or not length >= 0:
                    raise ValueError(f"{where}: a plan's 'length' must be a number >= 0")
                if not isinstance(plan.get("rationale"), str):
                    raise ValueError(f"{where}: a plan's 'rationale' must be a string")
        for scene, subtasks in scenes.items():
            if not isinstance(subtasks, dict):
                raise ValueError(f"scene {scene!r}: must map subtasks to their experience")
            for subtask, entry in subtasks.items():
                where = f"scene {scene!r}, subtask {subtask!r}"
                if not isinstance(entry, dict):
                    raise ValueError(f"{where}: must be an object")
                skills, failures = entry.get("skills"), entry.get("failures")
                if not isinstance(skills, list) or not isinstance(failures, list):
                    raise ValueError(f"{where}: needs lists of 'skills' and 'failures'")
                for s in skills:
                    if not isinstance(s, dict) or not isinstance(s.get("text"), str) or not s["text"]:
                        raise ValueError(f"{where}: a skill needs a non-empty 'text'")
                    if not all(_int(s.get(k)) for k in ("n_succ", "n_used", "updated")):
                        raise ValueError(f"{where}: a skill's n_succ, n_used and updated must be non-negative integers")
                for f in failures:
                    if not isinstance(f, dict) or not all(
                        isinstance(f.get(k), str) for k in ("root_cause", "guideline")
                    ):
                        raise ValueError(f"{where}: a failure needs 'root_cause' and 'guideline' strings")
                    if not f["guideline"] or not all(_int(f.get(k)) for k in ("count", "updated")):
                        raise ValueError(f"{where}: a failure needs a guideline and non-negative count and updated")

    def _before_write(self, data: dict[str, Any]) -> None:
        """Fold the uses counted by :meth:`retrieve` into the document about to be written."""
        for key, n in self._pending.items():
            if key[0] == "plan":
                entries = data["tasks"].get(key[1], {}).get("plans", [])
                entry = next((p for p in entries if tuple(p["steps"]) == key[2:]), None)
            else:
                entries = data["scenes"].get(key[1], {}).get(key[2], {}).get("skills", [])
                entry = next((s for s in entries if s["text"] == key[3]), None)
            if entry is not None:
                entry["n_used"] += n
        self._pending.clear()

    def flush(self) -> None:
        """Write the uses counted since the last write (a no-op when there are none)."""
        with self._lock:
            if self._pending:
                with self._change():
                    pass

    # -- reading --------------------------------------------------------------------------------
    @property
    def clock(self) -> int:
        with self._lock:
            self._refresh()
            return int(self._data["clock"])

    def tasks(self) -> list[str]:
        """The task templates with workflows."""
        with self._lock:
            self._refresh()
            return sorted(self._data["tasks"])

    def plans(self, task_key: str) -> list[dict[str, Any]]:
        """The workflows of ``task_key`` (copies, with the uses not yet written)."""
        with self._lock:
            self._refresh()
            out = [dict(p, steps=list(p["steps"])) for p in self._data["tasks"].get(task_key, {}).get("plans", [])]
            for p in out:
                p["n_used"] += self._pending.get(("plan", task_key, *p["steps"]), 0)
            return out

    def skills(self, scene: str, subtask: str) -> list[dict[str, Any]]:
        with self._lock:
            self._refresh()
            out = [dict(s) for s in self._entry_of(scene, subtask).get("skills", [])]
            for s in out:
                s["n_used"] += self._pending.get(("skill", scene, subtask, s["text"]), 0)
            return out

    def failures(self, scene: str, subtask: str) -> list[dict[str, Any]]:
        with self._lock:
            self._refresh()
            return [dict(f) for f in self._entry_of(scene, subtask).get("failures", [])]

    def _entry_of(self, scene: str, subtask: str) -> dict[str, Any]:
        return self._data["scenes"].get(scene, {}).get(subtask, {})

    # -- retrieval (Alg. 1) -----------------------------------------------------------------------
    def _similar(self, text: str, candidates: Sequence[str]) -> str | None:
        """The candidate most similar to ``text`` at ``match_threshold`` or above (needs a matcher)."""
        if self.matcher is None or not candidates:
            return None
        sims = self.matcher.similarity([text], list(candidates))[0]
        best = max(range(len(candidates)), key=lambda i: float(sims[i]))
        return candidates[best] if float(sims[best]) >= self.config.match_threshold else None

    def _task_of(self, task_key: str, instruction: str | None) -> str | None:
        tasks = self._data["tasks"]
        if task_key in tasks:
            return task_key
        if instruction:  # the best analogy among the known templates (Alg. 1, lines 4-6)
            keys = sorted(tasks)
            found = self._similar(instruction, [tasks[k]["instruction"] for k in keys])
            if found is not None:
                return next(k for k in keys if tasks[k]["instruction"] == found)
        return None

    def _subtask_of(self, scene: str, subtask: str) -> tuple[str, str] | None:
        scenes = self._data["scenes"]
        if subtask in scenes.get(scene, {}):
            return scene, subtask
        for other in sorted(scenes):  # the same subtask seen in another scene
            if subtask in scenes[other]:
                return other, subtask
        found = self._similar(subtask, sorted(scenes.get(scene, {})))
        return (scene, found) if found is not None else None

    def retrieve(
        self,
        task_key: str,
        level: str = "strong",
        values: Mapping[str, str] | None = None,
        scene: str = "",
        instruction: str | None = None,
        use: bool = True,
    ) -> Guidance:
        """The guidance of ``level`` for an episode of ``task_key`` (empty when the memory has
        none): the best workflow, filled with ``values``, and for ``"strong"`` each step's best
        skills and most recent failure diagnoses. ``use`` counts the workflow and the skills shown
        as used (Eq. 1's ``N_used``)."""
        check_level(level)
        values = dict(values or {})
        cfg = self.config
        with self._lock:
            self._refresh()
            key = None if level == "none" else self._task_of(task_key, instruction)
            if key is None:
                return Guidance()
            plans = self._data["tasks"][key]["plans"]
            if not plans:
                return Guidance()
            counts = [(p["n_succ"], p["n_used"] + self._pending.get(("plan", key, *p["steps"]), 0)) for p in plans]
            scores = score_plans(counts, cfg.ucb_weight, cfg.ranking)
            plan = plans[max(range(len(plans)), key=lambda i: (scores[i], -i))]
            scene = scene or self._data["tasks"][key]["scene"]
            if use:
                self._pending[("plan", key, *plan["steps"])] += 1
            steps = []
            for step in plan["steps"]:
                tips: tuple[str, ...] = ()
                warnings: tuple[str, ...] = ()
                where = self._subtask_of(scene, step) if level == "strong" else None
                if where is not None:
                    entry = self._entry_of(*where)
                    skills = entry["skills"]
                    pending = [self._pending.get(("skill", *where, s["text"]), 0) for s in skills]
                    s_scores = score_plans(
                        [(s["n_succ"], s["n_used"] + n) for s, n in zip(skills, pending, strict=True)],
                        cfg.ucb_weight, cfg.ranking,
                    )  # fmt: skip
                    order = sorted(range(len(skills)), key=lambda i: (-s_scores[i], i))[: cfg.tips]
                    tips = tuple(instantiate(skills[i]["text"], values) for i in order)
                    if use:
                        for i in order:
                            self._pending[("skill", *where, skills[i]["text"])] += 1
                    clock = self._data["clock"]
                    fails = entry["failures"]
                    f_order = sorted(
                        range(len(fails)),
                        key=lambda i: (-recency(clock - fails[i]["updated"], cfg.decay), -fails[i]["count"], i),
                    )[: cfg.warnings]
                    warnings = tuple(instantiate(fails[i]["guideline"], values) for i in f_order)
                steps.append(GuidanceStep(instantiate(step, values), tips, warnings))
            return Guidance(tuple(steps))

    # -- the self-evolving update's writes (Alg. 2) --------------------------------------------------
    def tick(self) -> int:
        """Advance the clock by one training iteration (App. E's Δt); the new time."""
        with self._lock, self._change() as data:
            data["clock"] += 1
            return int(data["clock"])

    def _same(self, new: str, old: Sequence[str]) -> int | None:
        """The index of the entry of ``old`` that ``new`` merges into, or ``None``."""
        if not old:
            return None
        exact = [i for i, text in enumerate(old) if _words(text) == _words(new)]
        if exact:
            return exact[0]
        if self.matcher is None:
            return None
        sims = self.matcher.similarity([new], list(old))[0]
        best = max(range(len(old)), key=lambda i: float(sims[i]))
        return best if float(sims[best]) >= self.config.merge_threshold else None

    def add_workflow(
        self,
        task_key: str,
        steps: Sequence[str],
        *,
        instruction: str = "",
        scene: str = "",
        length: float | None = None,
        rationale: str = "",
    ) -> None:
        """A successful episode's workflow (abstract steps): one more success of the same plan,
        or a new plan (``N_succ = 1``, ``N_used = 0``); ``length`` is the episode's steps."""
        steps = [s.strip() for s in steps if s and s.strip()]
        if not steps:
            return
        with self._lock, self._change() as data:
            entry = data["tasks"].setdefault(task_key, {"instruction": instruction, "scene": scene, "plans": []})
            entry["instruction"] = entry["instruction"] or instruction
            entry["scene"] = entry["scene"] or scene
            plan = next(
                (p for p in entry["plans"] if [_words(s) for s in p["steps"]] == [_words(s) for s in steps]), None
            )
            n = float(length) if length is not None else float(len(steps))
            if plan is None:
                entry["plans"].append(
                    {"steps": steps, "n_succ": 1, "n_used": 0, "length": n, "rationale": rationale,
                     "updated": data["clock"]}
                )  # fmt: skip
                self._trim_plans(entry["plans"])
            else:
                plan["length"] = (plan["length"] * plan["n_succ"] + n) / (plan["n_succ"] + 1)
                plan["n_succ"] += 1
                plan["updated"] = data["clock"]
                plan["rationale"] = max(plan["rationale"], rationale, key=len)

    def add_skill(self, scene: str, subtask: str, text: str) -> None:
        """How a subtask was done in a successful stretch of an episode (abstract text)."""
        text = text.strip()
        if not text or not subtask.strip():
            return
        with self._lock, self._change() as data:
            skills = self._slot(data, scene, subtask)["skills"]
            i = self._same(text, [s["text"] for s in skills])
            if i is None:
                skills.append({"text": text, "n_succ": 1, "n_used": 0, "updated": data["clock"]})
                self._trim_plans(skills)
            else:
                s = skills[i]
                s["n_succ"] += 1
                s["updated"] = data["clock"]
                s["text"] = max(s["text"], text, key=len)  # the more detailed one (Alg. 2)

    def add_failure(self, scene: str, subtask: str, root_cause: str, guideline: str) -> None:
        """A diagnosis of the first failed subtask of a failed episode (abstract text)."""
        guideline = guideline.strip()
        if not guideline or not subtask.strip():
            return
        with self._lock, self._change() as data:
            fails = self._slot(data, scene, subtask)["failures"]
            i = self._same(guideline, [f["guideline"] for f in fails])
            if i is None:
                fails.append(
                    {"root_cause": root_cause.strip(), "guideline": guideline, "count": 1, "updated": data["clock"]}
                )
                if len(fails) > self.config.max_entries:  # the stalest goes
                    fails.remove(min(fails, key=lambda f: (f["updated"], f["count"])))
            else:
                f = fails[i]
                f["count"] += 1
                f["updated"] = data["clock"]
                f["root_cause"] = max(f["root_cause"], root_cause.strip(), key=len)

    @staticmethod
    def _slot(data: dict[str, Any], scene: str, subtask: str) -> dict[str, Any]:
        return data["scenes"].setdefault(scene, {}).setdefault(subtask.strip(), {"skills": [], "failures": []})

    def _trim_plans(self, entries: list[dict[str, Any]]) -> None:
        """Keep ``max_entries``: the lowest-ranked entry goes (never the newest)."""
        while len(entries) > self.config.max_entries:
            scores = score_plans(
                [(e["n_succ"], e["n_used"]) for e in entries[:-1]], self.config.ucb_weight, self.config.ranking
            )
            entries.pop(min(range(len(scores)), key=lambda i: (scores[i], -i)))

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        # a copy in a worker or a checkpoint reads and counts; merging and extracting (an embedding
        # model, an LLM client) belong to the process that made the memory
        state["matcher"] = state["extractor"] = None
        return state

    def __len__(self) -> int:
        """Entries held: workflows, skills and diagnoses."""
        with self._lock:
            self._refresh()
            plans = sum(len(t["plans"]) for t in self._data["tasks"].values())
            rest = sum(len(e["skills"]) + len(e["failures"]) for s in self._data["scenes"].values() for e in s.values())
            return plans + rest
