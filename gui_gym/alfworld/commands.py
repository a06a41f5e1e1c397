"""ALFWorld's commands as the env contract sees them: each verb's candidate kind and action kind."""

from __future__ import annotations

from gui_gym.core import contract as C

__all__ = ["KINDS", "candidate_kind", "command_kind"]

#: Candidate kinds: the command verbs, ``go`` for ``go to``.
KINDS = ("go", "open", "close", "take", "move", "put", "examine", "use", "heat", "cool", "clean", "slice", "look",
         "inventory", "help")  # fmt: skip

_KINDS = {
    "go": C.NAVIGATE, "look": C.WAIT, "inventory": C.WAIT, "examine": C.WAIT, "help": C.WAIT,
    "open": C.INTERACT, "close": C.INTERACT, "take": C.INTERACT, "move": C.INTERACT, "put": C.INTERACT,
    "use": C.INTERACT, "heat": C.INTERACT, "cool": C.INTERACT, "clean": C.INTERACT, "slice": C.INTERACT,
}  # fmt: skip


def command_kind(command: str) -> str:
    """The contract's action kind of an ALFWorld command (by its verb).

    >>> command_kind("go to fridge 1"), command_kind("look"), command_kind("heat egg 1 with microwave 1")
    ('navigate', 'wait', 'interact')
    """
    verb = command.split(" ", 1)[0] if command else ""
    return _KINDS.get(verb, C.INVALID)


def candidate_kind(command: str) -> str:
    """The candidate kind of an admissible command (its verb).

    >>> candidate_kind("go to fridge 1"), candidate_kind("move egg 1 to countertop 1")
    ('go', 'move')
    """
    verb = command.split(" ", 1)[0] if command else ""
    return verb if verb in KINDS else "look"
