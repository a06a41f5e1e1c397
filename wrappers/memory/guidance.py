"""Guidance as UI-Mem gives it to a rollout, at three levels (§3.3, Fig. 14).

- ``"strong"``: the workflow, and for each step the retrieved subtask skills (``Tip:``) and failure
  diagnoses (``Avoid:``);
- ``"weak"``: the workflow only;
- ``"none"``: nothing (pure exploration).

Rendered in Fig. 14's shape, one numbered line per workflow step, the step's experience in
parentheses (left out when a step has none; ``Tip:`` or ``Avoid:`` left out when empty; several
items numbered ``1. … 2. …``)::

    1.Open Contacts, tap 'Add new contact'.  (Guidance: Tip: Tap the floating '+' button. Avoid: Don't
    use the 'Select contacts' add button.)
    2.Tap 'Save'.

(one line per step; wrapped here).

>>> g = Guidance((GuidanceStep("Open Contacts", ("Tap the app icon.",), ()), GuidanceStep("Tap 'Save'.")))
>>> print(g.render("strong"))
1.Open Contacts  (Guidance: Tip: Tap the app icon.)
2.Tap 'Save'.
>>> print(g.render("weak"))
1.Open Contacts
2.Tap 'Save'.
>>> g.render("none")
''
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["LEVELS", "Guidance", "GuidanceStep", "check_level"]

#: the guidance levels, from most to least
LEVELS = ("strong", "weak", "none")


def check_level(level: str) -> str:
    """``level`` if it is one of :data:`LEVELS` (ValueError otherwise)."""
    if level not in LEVELS:
        raise ValueError(f"unknown guidance level {level!r}; choose from {', '.join(LEVELS)}")
    return level


def _items(items: Sequence[str]) -> str:
    if len(items) == 1:
        return items[0]
    return " ".join(f"{i}. {text}" for i, text in enumerate(items, 1))


@dataclass(frozen=True)
class GuidanceStep:
    """One workflow step with its skills (tips) and failure diagnoses (warnings), filled in."""

    text: str
    tips: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    def render(self, index: int, strong: bool) -> str:
        line = f"{index}.{self.text}"
        if not strong or not (self.tips or self.warnings):
            return line
        parts = ([f"Tip: {_items(self.tips)}"] if self.tips else []) + (
            [f"Avoid: {_items(self.warnings)}"] if self.warnings else []
        )
        return f"{line}  (Guidance: {' '.join(parts)})"


@dataclass(frozen=True)
class Guidance:
    """A retrieved workflow with its experience: what a level of guidance shows a rollout."""

    steps: tuple[GuidanceStep, ...] = ()

    def render(self, level: str) -> str:
        """The guidance text of ``level`` (empty for ``"none"`` and for an empty memory)."""
        if check_level(level) == "none":
            return ""
        return "\n".join(s.render(i, level == "strong") for i, s in enumerate(self.steps, 1))

    def __bool__(self) -> bool:
        return bool(self.steps)
