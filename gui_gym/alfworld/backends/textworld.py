"""The real thing behind the :class:`~gui_gym.alfworld.backends.base.Backend` protocol: ALFWorld
games played by TextWorld's PDDL engine, set up the way alfworld 0.4.2 sets it up.

This is the reference the embedded engine is measured against and the way to run the original
engine on the original data set. It needs ``alfworld`` (which pulls ``textworld[pddl]`` and
compiles the ``fast_downward_textworld`` planner from source: several minutes); nothing of either is
imported until a game is loaded, so the rest of the package works without them, and without them
:meth:`TextWorldBackend.load` raises :class:`TextWorldMissingError` (an ``ImportError``) saying
what to install.

The env is what ``AlfredTWEnv.init_env`` builds (alfworld/agents/environment/alfred_tw_env.py:245-277
in the alfworld wheel): TextWorld's gym env over one game, wrappers ``AlfredDemangler`` (object ids
to names such as ``pencil 2``; ``shuffle`` is alfworld's ``domain_randomization``, off for
evaluation) and ``AlfredInfos``, with ``EnvInfos(won=True, admissible_commands=True,
extras=["gamefile"])``, played synchronously. Two choices differ and change no text: the env is
built directly rather than through ``textworld.gym.register_games`` + ``make`` (which is all
``make`` does with it), so that loading thousands of games does not fill TextWorld's global
registry; and there is no step limit (upstream passes its 50, after which TextWorld ignores
commands), because the caller's env owns the episode length.

Example (needs alfworld; the file is one of this repository's recorded test games):
    >>> backend = TextWorldBackend()  # doctest: +SKIP
    >>> backend.load("tests/alfworld/fixtures/games/simple_pencil_dresser/game.tw-pddl")  # doctest: +SKIP
    >>> obs = backend.reset()  # doctest: +SKIP
    >>> obs.text.splitlines()[-1], obs.won  # doctest: +SKIP
    ('Your task is to: put some pencil on dresser.', False)
    >>> backend.step("go to desk 1").text  # doctest: +SKIP
    'You arrive at desk 1. On the desk 1, you see a pen 1, and a pencil 1.'
    >>> backend.step("fly away").text  # doctest: +SKIP
    'Nothing happens.'
    >>> backend.close()  # doctest: +SKIP
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from gui_gym.alfworld.backends.base import Observation
from gui_gym.alfworld.pddl import read_game
from gui_gym.core.io import CorruptFileError

__all__ = ["INSTALL_HINT", "TextWorldBackend", "TextWorldMissingError"]

INSTALL_HINT = (
    'pip install "alfworld==0.4.2" "textworld[pddl]" (alfworld compiles the fast_downward_textworld '
    "planner from source, which takes several minutes; if anything pulls torch, pin it first: "
    "pip install torch==2.13.0)"
)


class TextWorldMissingError(ImportError):
    """alfworld, TextWorld or TextWorld's PDDL planner is not installed; the message says what to install."""


class TextWorldBackend:
    """Plays ALFWorld game files on the real TextWorld engine (see the module docstring).

    ``shuffle_names`` is alfworld's ``domain_randomization``: object numbers are drawn afresh at
    every reset from Python's global :mod:`random` (as alfworld does, so ``random.seed`` fixes
    them) instead of following the sorted object ids. Off, as for upstream's evaluation splits,
    the text matches the recorded transcripts.

    Errors: :meth:`load` raises :class:`TextWorldMissingError` without the engine,
    FileNotFoundError for a missing file and :class:`~gui_gym.core.io.CorruptFileError` naming a
    file that is no ALFWorld game or that TextWorld cannot play; :meth:`step` before
    :meth:`reset` raises ``RuntimeError``.
    """

    def __init__(self, shuffle_names: bool = False) -> None:
        self.shuffle_names = shuffle_names
        self.game_file: str | None = None
        self._env: Any = None
        self._fresh: Observation | None = None  # the start of the game load() already reset to
        self._started = False

    def load(self, game_file: str | os.PathLike[str]) -> None:
        """Load a ``game.tw-pddl``. The file is read and started here, so a game TextWorld cannot
        play fails now with the file named; the first :meth:`reset` then costs nothing."""
        engine = _import_engine()
        path = str(Path(game_file))
        read_game(path)  # a missing or malformed file is named before TextWorld sees it
        self.close()
        infos = engine.EnvInfos(won=True, admissible_commands=True, extras=["gamefile"])
        wrappers = [engine.AlfredDemangler(shuffle=self.shuffle_names), engine.AlfredInfos]
        env = engine.TextworldGymEnv([path], infos, max_episode_steps=None, asynchronous=False, wrappers=wrappers)
        try:
            self._fresh = _start(env, path)
        except BaseException:
            env.close()
            raise
        self._env, self.game_file = env, path

    def reset(self) -> Observation:
        """Start the loaded game afresh (TextWorld re-reads the file, about half a second)."""
        env, path = self._loaded()
        obs, self._fresh = self._fresh, None
        self._started = True
        return obs if obs is not None else _start(env, path)

    def step(self, command: str) -> Observation:
        """Play ``command``; TextWorld answers ``Nothing happens.`` for one that is not admissible
        and, once the game is won, repeats its last observation for any command."""
        env, _path = self._loaded()
        if not self._started:
            raise RuntimeError("call reset() before step(): the game has not been started")
        text, _score, _done, infos = env.step(command)
        return _observation(text, infos)

    def close(self) -> None:
        """Release the TextWorld env; :meth:`load` makes a new one."""
        env, self._env, self.game_file, self._fresh, self._started = self._env, None, None, None, False
        if env is not None:
            env.close()

    def __enter__(self) -> TextWorldBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _loaded(self) -> tuple[Any, str]:
        if self._env is None or self.game_file is None:
            raise RuntimeError("no game loaded: call load(game_file) first")
        return self._env, self.game_file


def _import_engine() -> SimpleNamespace:
    """The pieces of TextWorld and alfworld the backend uses; :class:`TextWorldMissingError` if absent.

    ``fast_downward`` is imported too: TextWorld imports without it and fails only when a PDDL
    game is loaded (textworld/envs/pddl/pddl.py:15-36).
    """
    try:
        import fast_downward  # noqa: F401
        import textworld
        from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
        from textworld.gym.envs import TextworldGymEnv
    except ImportError as e:
        raise TextWorldMissingError(
            f"the TextWorld backend needs the real ALFWorld engine: {INSTALL_HINT}. ({e})"
        ) from e
    return SimpleNamespace(
        EnvInfos=textworld.EnvInfos,
        TextworldGymEnv=TextworldGymEnv,
        AlfredDemangler=AlfredDemangler,
        AlfredInfos=AlfredInfos,
    )


def _start(env: Any, path: str) -> Observation:
    """Reset ``env`` (TextWorld loads the game file here) with its failures named after the file.

    TextWorld's PDDL stack reports a bad game in many ways: tatsu parse errors for a grammar,
    ``KeyError`` for an unknown predicate, even ``SystemExit`` from fast_downward's translator
    (fast_downward/translate/pddl_parser/parsing_functions.py:127), which must not end the caller.
    """
    try:
        text, infos = env.reset()
    except (Exception, SystemExit) as e:
        raise CorruptFileError(f"{path}: TextWorld cannot play this game file: {type(e).__name__}: {e}") from e
    return _observation(text, infos)


def _observation(text: str, infos: dict[str, Any]) -> Observation:
    return Observation(text=text, admissible=sorted(set(infos["admissible_commands"])), won=bool(infos["won"]))
