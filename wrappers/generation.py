"""What a milestone generator Φ receives and returns (ADMIRE Eq. 6-7).

A generator is any callable ``generator(request) -> list[str]`` that returns milestone
*templates*: short steps with ``<Slot>`` placeholders in place of task-specific values
(``Enter the first name "<First>"``). ``request.current`` empty asks for initial milestones from
one successful trajectory (Eq. 6, prompt P_init); otherwise the generator refines the current
ones against a new successful trajectory (Eq. 7, prompt P_update) and returns them unchanged if
the new trajectory shows no better path. A generator that cannot produce milestones (garbage
from an LLM, an unreachable endpoint) raises :class:`GenerationError`; the milestone book then
keeps its previous milestones and logs why.

Example:
    >>> abstract('Type "Zara" into "First name"', {"First": "Zara", "Name": "Zara Costa"})
    'Type "<First>" into "First name"'
    >>> instantiate('Save the contact <Name>', {"Name": "Kofi Rossi"})
    'Save the contact Kofi Rossi'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from gui_gym.core.trajectory import Trajectory


class GenerationError(RuntimeError):
    """The generator produced no usable milestones; the reason is the message."""


@dataclass
class GenerationRequest:
    """One call of Φ for one task.

    ``trajectory`` is the new successful trajectory τ_new; ``current`` the task's milestone
    templates M_G^(i) (empty for initialisation); ``placeholders`` the slot values of τ_new's
    instance; ``history`` earlier successful trajectories of the same task (oldest first),
    for generators that compare several paths.
    """

    task_id: str
    instruction: str
    trajectory: Trajectory
    current: list[str] = field(default_factory=list)
    placeholders: dict[str, str] = field(default_factory=dict)
    history: list[Trajectory] = field(default_factory=list)


class MilestoneGenerator(Protocol):
    def __call__(self, request: GenerationRequest) -> list[str]: ...


def abstract(text: str, placeholders: Mapping[str, str], slot_format: str = "<{}>") -> str:
    """Replace each placeholder value in ``text`` by ``<Slot>`` (longest values first, whole words;
    ``slot_format`` writes the slot another way, e.g. ``"{{{{{}}}}}"`` for UI-Mem's ``{{Slot}}``)."""
    for slot, value in sorted(placeholders.items(), key=lambda kv: -len(kv[1])):
        value = value.strip()
        if len(value) < 2:
            continue
        slot_text = slot_format.format(slot)
        text = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", lambda _m, r=slot_text: r, text)
    return text


def instantiate(text: str, placeholders: Mapping[str, str]) -> str:
    """Fill ``<Slot>`` placeholders with this instance's values; unknown slots stay as they are."""
    return re.sub(r"<(\w+)>", lambda m: placeholders.get(m.group(1), m.group(0)), text)
