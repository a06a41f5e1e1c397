"""UI-Mem's self-evolving update (§3.4, App. G Alg. 2): after each iteration, experience in.

Every finished episode is offered to an *extractor*, which returns what it teaches:

- a success: its workflow (the essential states in the order they were reached) and a skill for
  each subtask it completed;
- a failure: the skills of the subtasks it did complete, and a diagnosis of the first subtask it
  failed (a root cause and a correction guideline).

:func:`evolve` writes them into the :class:`~wrappers.memory.store.ExperienceMemory`, where
near-duplicates merge, and advances the memory's clock by one iteration.

:class:`BuiltinExtractor` needs no model. The essential states are the task's milestones
(``info["task_milestones"]``, reached per step in ``info["milestones"]``); a subtask's skill is
the grounded action descriptions between the previous milestone and this one; a diagnosis names
the first milestone not reached, the actions taken after the last one reached and the reasons the
env gave for the invalid ones. Everything is abstracted by substituting the episode's slot values
(``info["placeholders"]``) with ``{{slot}}``. :class:`~wrappers.memory.llm.LLMExtractor` asks a
language model instead, with the paper's prompts (Figs. 11-13).

An episode is an :class:`EpisodeRecord`, plain JSON data, which
:class:`~wrappers.memory.wrapper.GuidanceReward` publishes for the trainer's batch settling.

>>> record = EpisodeRecord(task_id="AddContact", instruction="Add Zara", placeholders={"Name": "Zara"},
...     milestones=["Open Contacts", "Save Zara"], success=True, steps=[
...     ("Launch Contacts", ["Open Contacts"], True, ""), ("Tap 'Create'", [], True, ""),
...     ("Type 'Zara'", [], True, ""), ("Tap 'Save'", ["Save Zara"], True, "")])
>>> x = BuiltinExtractor()(record)
>>> x.workflow, x.skills[1]
(['Open Contacts', 'Save {{Name}}'], ('Save {{Name}}', "Tap 'Create', then type '{{Name}}', then tap 'Save'"))
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from wrappers.memory.store import ExperienceMemory
from wrappers.memory.templates import abstract

log = logging.getLogger(__name__)

__all__ = ["BuiltinExtractor", "EpisodeRecord", "Extraction", "Extractor", "evolve"]


@dataclass
class EpisodeRecord:
    """What the update needs of one episode (plain data; :meth:`from_dict` checks it).

    ``steps`` are ``(action description, milestones reached at the step, format valid, reason)``.
    """

    task_id: str
    instruction: str
    milestones: list[str]
    success: bool
    steps: list[tuple[str, list[str], bool, str]]
    placeholders: dict[str, str] = field(default_factory=dict)
    scene: str = ""
    level: str = "none"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> EpisodeRecord:
        """A record from :meth:`to_dict`'s data; ValueError naming the bad field."""
        try:
            steps = [(str(a), [str(m) for m in ms], bool(v), str(r)) for a, ms, v, r in d["steps"]]
            return cls(
                task_id=str(d["task_id"]), instruction=str(d["instruction"]),
                milestones=[str(m) for m in d["milestones"]], success=bool(d["success"]), steps=steps,
                placeholders={str(k): str(v) for k, v in dict(d.get("placeholders") or {}).items()},
                scene=str(d.get("scene", "")), level=str(d.get("level", "none")),
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as err:
            raise ValueError(f"not an episode record ({type(err).__name__}: {err})") from None


@dataclass
class Extraction:
    """What an episode teaches (abstract texts): a workflow (successes), ``(subtask, skill)``
    pairs, and a diagnosis ``(subtask, root cause, guideline)`` of the first failed subtask."""

    workflow: list[str] | None = None
    skills: list[tuple[str, str]] = field(default_factory=list)
    failure: tuple[str, str, str] | None = None
    rationale: str = ""


class Extractor(Protocol):
    def __call__(self, record: EpisodeRecord) -> Extraction: ...


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


def _summary(actions: Sequence[str]) -> str:
    """Action descriptions as one instruction: repeats collapsed, "then" between them."""
    kept: list[str] = []
    for a in actions:
        a = a.strip().rstrip(".")
        if a and (not kept or kept[-1] != a):
            kept.append(a)
    return ", then ".join([kept[0], *map(_lower_first, kept[1:])]) if kept else ""


class BuiltinExtractor:
    """The extractor without a model (see the module docstring).

    Args:
        skill_actions: at most this many actions in a skill: the last ones before the milestone
            (the earlier ones of a long stretch are mostly wandering).
        diagnosis_actions: at most this many of the failing actions in a diagnosis.
    """

    def __init__(self, skill_actions: int = 3, diagnosis_actions: int = 8) -> None:
        self.skill_actions, self.diagnosis_actions = skill_actions, diagnosis_actions

    def __call__(self, record: EpisodeRecord) -> Extraction:
        values = record.placeholders

        def ab(text: str) -> str:
            return abstract(text, values)

        order: list[str] = []  # milestones in the order they were reached
        skills: list[tuple[str, str]] = []
        since: list[str] = []  # valid actions since the last milestone
        for description, reached, valid, _ in record.steps:
            if valid and description:
                since.append(description)
            for m in reached:
                if m not in order:
                    order.append(m)
                    text = _summary(since[-self.skill_actions :])
                    if text:
                        skills.append((ab(m), ab(text)))
                    since = []
        out = Extraction(skills=skills)
        if record.success:
            out.workflow = [ab(m) for m in order] or None
            out.rationale = "the order in which the milestones were reached"
            return out
        missing = next((m for m in record.milestones if m not in order), None)
        if missing is None:
            return out  # every milestone reached and still failed: nothing to pin on a subtask
        after = len(record.steps)
        if order:  # the steps after the last milestone reached
            after = max(i for i, (_, reached, _, _) in enumerate(record.steps) if reached) + 1
        tail = record.steps[after:] if order else record.steps
        tried = [d for d, _, valid, _ in tail if valid and d][-self.diagnosis_actions :]
        reasons = [r for _, _, valid, r in tail if not valid and r]
        last = f"after '{order[-1]}'" if order else "from the start"
        cause = f"'{missing}' was not reached {last}"
        if tried:
            cause += f"; the actions were: {_summary(tried)}"
        if reasons:
            cause += f"; {len(reasons)} invalid: {'; '.join(dict.fromkeys(reasons))}"
        repeated = [a for a, n in Counter(tried).most_common(2) if n > 1]
        guideline = f"To reach '{missing}'"
        if repeated:
            guideline += ", do not repeat " + " or ".join(f"'{a}'" for a in repeated)
        elif tried:
            guideline += f", '{tried[-1]}' was not enough"
        if reasons:
            guideline += "; use valid actions (" + reasons[0].rstrip(".") + ")"
        out.failure = (ab(missing), ab(cause), ab(guideline + "."))
        return out


def evolve(
    memory: ExperienceMemory, records: Iterable[EpisodeRecord], extractor: Extractor | None = None
) -> dict[str, int]:
    """Alg. 2 over one iteration's episodes: extract, write into ``memory`` (merging near
    duplicates), then advance its clock. An extractor that fails on an episode is logged and the
    built-in one used for it. Returns counts of what was written."""
    builtin = BuiltinExtractor()
    extractor = extractor or builtin
    counts = Counter({"workflows": 0, "skills": 0, "failures": 0, "episodes": 0})
    for record in records:
        counts["episodes"] += 1
        try:
            x = extractor(record)
        except Exception as err:  # an LLM that fails never stops training: the built-in one steps in
            log.warning("experience extraction failed for %s (%s); using the built-in extractor", record.task_id, err)
            x = builtin(record)
        scene = record.scene
        if record.success and x.workflow:
            instruction = abstract(record.instruction, record.placeholders)
            length = float(len(record.steps))
            memory.add_workflow(
                record.task_id, x.workflow, instruction=instruction, scene=scene, length=length, rationale=x.rationale
            )
            counts["workflows"] += 1
        for subtask, text in x.skills:
            memory.add_skill(scene, subtask, text)
            counts["skills"] += 1
        if x.failure is not None and not record.success:
            memory.add_failure(scene, *x.failure)
            counts["failures"] += 1
    memory.tick()
    return dict(counts)
