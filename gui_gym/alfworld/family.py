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

from collections.abc import Sequence
from typing import Any

from gui_gym.alfworld.catalog import generated, select, spec_of
from gui_gym.alfworld.commands import KINDS, candidate_kind, command_kind
from gui_gym.alfworld.engine import WELCOME
from gui_gym.alfworld.matching import VOCABULARY
from gui_gym.core.family import Candidate, EditActions
from gui_gym.core.matching import MatchingVocabulary
from gui_gym.core.task import TaskSpec

__all__ = ["FAMILY", "ALFWorldFamily"]


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
            out.append(Candidate(command, candidate_kind(command), command, command_kind(command)))
        return out

    def matching(self) -> MatchingVocabulary:
        """The household's words for ADMIRE's milestone matcher (:mod:`gui_gym.alfworld.matching`)."""
        return VOCABULARY

    def edit_actions(self) -> EditActions:
        return EditActions(noop="look", noop_kind="wait", noop_description="look")


FAMILY = ALFWorldFamily()
