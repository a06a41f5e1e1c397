"""The ALFWorld family: what code outside ``gui_gym.alfworld`` learns about ``ALFWorld-v0``.

Reached through :func:`gui_gym.core.family.family_of`. Every game is a task (ALFWorld's unit), so
``tasks()`` lists the generated games of the training split — 3,553 of them — and a selection may
name a tier, a task type, a split, ids, or a comma list of those.

Example:
    >>> from gui_gym.core.family import family_of
    >>> family = family_of("ALFWorld-v0")
    >>> len(family.tasks()), len(family.tasks("eval_out_of_distribution"))
    (3553, 134)
    >>> {t.app for t in family.tasks("pick_two_obj_and_place")}
    {'pick_two_obj_and_place'}
    >>> obs = {"instruction": "put some pencil on dresser", "text": "You arrive at desk 1. On the desk 1, "
    ...        "you see a pencil 1.", "admissible": "go to bed 1\\ntake pencil 1 from desk 1\\nlook"}
    >>> [(c.action, c.kind, c.action_kind) for c in family.admissible_actions(obs)][1:]
    [('take pencil 1 from desk 1', 'take', 'interact'), ('look', 'look', 'wait')]
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from typing import Any

from gui_gym.alfworld.catalog import Entry, generated
from gui_gym.alfworld.engine import WELCOME
from gui_gym.alfworld.env import command_kind
from gui_gym.alfworld.generator import SPLITS
from gui_gym.alfworld.tasks import TASK_TYPES
from gui_gym.core.family import Candidate, EditActions
from gui_gym.core.task import DIFFICULTIES, TaskSpec

__all__ = ["FAMILY", "ALFWorldFamily", "select"]

#: Candidate kinds: the command verbs, ``go`` for ``go to``.
KINDS = ("go", "open", "close", "take", "move", "put", "examine", "use", "heat", "cool", "clean", "slice", "look",
         "inventory", "help")  # fmt: skip


def select(entries: Sequence[Entry], selection: str | Sequence[str] | None, world_seed: int = 0) -> list[Entry]:
    """The entries a selection names among ``entries``: ``None``/``"all"`` (all of them), a tier, a
    task type, a split (its generated games), task ids (also of the other splits), or a comma list.
    Unknown words raise ``ValueError`` naming close ids or the words that work."""
    entries = list(entries)
    if selection is None:
        return entries
    words = [w.strip() for w in selection.split(",")] if isinstance(selection, str) else [str(w) for w in selection]
    by_id = {e.task_id: e for e in entries}
    out: list[Entry] = []
    for word in filter(None, words):
        if word == "all":
            out.extend(entries)
        elif word in DIFFICULTIES:
            out.extend(e for e in entries if e.difficulty == word)
        elif word in TASK_TYPES:
            out.extend(e for e in entries if e.task_type == word)
        elif word in SPLITS:
            out.extend(generated(word, world_seed))
        elif word in by_id:
            out.append(by_id[word])
        else:
            found = _any_split(word, world_seed)
            if found is None:
                close = difflib.get_close_matches(word, list(by_id), n=3, cutoff=0.6)
                hint = f" Did you mean {', '.join(close)}?" if close else ""
                raise ValueError(
                    f"unknown task id {word!r} for ALFWorld-v0.{hint} A selection is a task id, a tier "
                    f"({', '.join(DIFFICULTIES)}), a task type, a split ({', '.join(SPLITS)}) or 'all'."
                )
            out.append(found)
    if not out:
        raise ValueError(f"no ALFWorld task selected by {selection!r}")
    return list(dict.fromkeys(out))


def _any_split(task_id: str, world_seed: int) -> Entry | None:
    for split in SPLITS:
        for e in generated(split, world_seed):
            if e.task_id == task_id:
                return e
    return None


def spec_of(entry: Entry) -> TaskSpec:
    """The :class:`~gui_gym.core.task.TaskSpec` of a game: ``app`` is its task type."""
    return TaskSpec(entry.task_id, entry.task_type, entry.difficulty, entry.instruction, apps=(entry.task_type,))


class ALFWorldFamily:
    """The :class:`~gui_gym.core.family.EnvFamily` of ``ALFWorld-v0``."""

    name = "alfworld"
    candidate_kinds: tuple[str, ...] = KINDS

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        return [spec_of(e) for e in select(generated("train"), selection)]

    def instruction(self, obs: Any) -> str:
        return str(obs.get("instruction", "")) if isinstance(obs, dict) else ""

    def observation_text(self, obs: Any, full: bool = False) -> str:
        """Compact: the observation's lines joined by ``" | "`` (the welcome banner and the task
        line left out); full: the text as TextWorld gives it, then the admissible commands, one
        per line, as ALFWorld agents' prompts list them."""
        if not isinstance(obs, dict):
            raise TypeError(f"an ALFWorld observation is the env's dict, got {type(obs).__name__}")
        text = str(obs.get("text", ""))
        if full:
            admissible = str(obs.get("admissible", ""))
            return f"{text}\n\nAdmissible commands:\n{admissible}" if admissible else text
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        lines = [line for line in lines if line != WELCOME and not line.startswith("Your task is to: ")]
        return " | ".join(lines)

    def action_prompt(self) -> str:
        return "\n".join(
            [
                "You are in a household (ALFWorld). Each turn you see the task, your previous commands, what",
                "you observe and the admissible commands. Reply with exactly one admissible command on one line,",
                "copied as listed, for example: go to countertop 1 | open fridge 1 | take apple 1 from fridge 1 |",
                "heat apple 1 with microwave 1 | move apple 1 to diningtable 1 | use desklamp 1 | look.",
                "Anything else does nothing.",
            ]
        )

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        """The admissible commands the observation lists (in TextWorld's sorted order)."""
        listed = obs.get("admissible", "") if isinstance(obs, dict) else ""
        commands = [c for c in str(listed).split("\n") if c]
        out = []
        for command in commands[:limit]:
            verb = command.split(" ", 1)[0]
            kind = "go" if verb == "go" else verb if verb in KINDS else "look"
            out.append(Candidate(command, kind, command, command_kind(command)))
        return out

    def edit_actions(self) -> EditActions:
        return EditActions(noop="look", noop_kind="wait", noop_description="look")


FAMILY = ALFWorldFamily()
