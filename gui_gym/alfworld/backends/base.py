"""The seam between ``ALFWorld-v0`` and what plays a game: text in, TextWorld's text out.

A backend loads one ALFWorld game at a time and reports after every command what TextWorld
reports: the observation text, the sorted admissible commands and whether the goal holds. The
embedded engine (:class:`gui_gym.alfworld.engine.Engine`) and the adapter to the real TextWorld
(:class:`gui_gym.alfworld.backends.textworld.TextWorldBackend`) both keep this protocol, so the env
and the fidelity tests can run either.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol, runtime_checkable

__all__ = ["Backend", "Observation"]


class Observation(NamedTuple):
    """What a game says after a reset or a command, as TextWorld + alfworld give it.

    ``text`` is the observation (the welcome text at reset, the command's feedback after a step,
    ``"Nothing happens."`` for a command that is not admissible); ``admissible`` the admissible
    commands, sorted, without duplicates; ``won`` whether the PDDL goal holds.
    """

    text: str
    admissible: list[str]
    won: bool


@runtime_checkable
class Backend(Protocol):
    """Plays ALFWorld games: ``load`` a game file, ``reset`` it, ``step`` commands."""

    def load(self, game_file: str) -> None:
        """Load the ``game.tw-pddl`` at ``game_file`` (the next :meth:`reset` starts it)."""
        ...

    def reset(self) -> Observation:
        """Start the loaded game afresh."""
        ...

    def step(self, command: str) -> Observation:
        """Play one command; one that is not admissible changes nothing (``Nothing happens.``)."""
        ...

    def close(self) -> None:
        """Release what the backend holds (processes, files)."""
        ...
