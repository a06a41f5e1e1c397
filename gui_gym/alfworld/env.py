"""``ALFWorld-v0``: ALFWorld's text households behind the gui-gym env contract.

By default the env plays generated households on the embedded engine
(:mod:`gui_gym.alfworld.engine`), which speaks TextWorld's text byte for byte; ``game_files=``
plays ALFWorld's own ``game.tw-pddl`` files on it, and ``backend="textworld"`` plays them on the
real TextWorld (``pip install alfworld``; games under ``$ALFWORLD_DATA`` or ``game_files``), with
the embedded engine following along for milestones and the expert.

- observation: ``{"instruction": goal, "text": what TextWorld says, "admissible": the admissible
  commands, one per line}``; the action: a command (text). A command that is not admissible gets
  ``Nothing happens.``, changes nothing and is reported (``format_valid=False``, a ``reason``
  naming close admissible commands).
- ``info``: the contract's keys (``admissible_actions``, ``action_description`` = ``"<command>:
  <feedback>"``, milestones from the expert's sub-goals, ``progress``, ``success`` = won) plus
  ``task_type``, ``won`` and ``game_file``.
- an episode ends when the goal holds (reward 1) or after ``max_steps`` (50, verl-agent's limit).

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("ALFWorld-v0", split="eval_out_of_distribution")
    >>> obs, info = env.reset(seed=0)
    >>> obs["text"].splitlines()[0]
    '-= Welcome to TextWorld, ALFRED! =-'
    >>> info["task_type"] in info["task_id"]
    True
    >>> _, reward, terminated, truncated, info = env.step("xyzzy")
    >>> info["format_valid"], info["action_description"]
    (False, "Invalid action: 'xyzzy': Nothing happens.")
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium as gym

from gui_gym.alfworld.catalog import Entry, file_entries, generated, select
from gui_gym.alfworld.commands import command_kind
from gui_gym.alfworld.engine import NOTHING_HAPPENS, Engine, World
from gui_gym.alfworld.expert import Goal, Milestone, milestones, next_command, read_goal
from gui_gym.alfworld.generator import SPLITS, generate
from gui_gym.alfworld.grammar import Grammar, read_grammar
from gui_gym.alfworld.pddl import read_game
from gui_gym.core import contract as C
from gui_gym.core.spaces import AnyText

__all__ = ["BACKENDS", "GRAMMARS", "MAX_STEPS", "ALFWorldEnv"]

MAX_STEPS = 50  # verl-agent's ALFWorld episode limit
BACKENDS = ("embedded", "textworld")
GRAMMARS = ("current", "legacy")
TEXT_LIMIT = 16_000
ADMISSIBLE_LIMIT = 32_000
WORLD_CACHE = 256  # compiled worlds kept per env (a kitchen is ~100 kB)


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ALFWorldEnv(gym.Env):
    """ALFWorld as a Gymnasium env (see the module docstring).

    Args:
        task: the tasks to draw from: an id, a list, a tier (``easy``/``medium``/``hard``), a task
            type (``pick_heat_then_place_in_recep``), a split name, or ``None`` (the whole pool).
        split: the generated split of the default pool: ``train`` (3,553 games), ``eval_in_distribution``
            (140: seen layouts, new households) or ``eval_out_of_distribution`` (134: unseen layouts).
        num_games: the pool's size (default: the split's upstream size; ``train`` has no upper limit).
        game_files: ALFWorld game files to play instead (a ``game.tw-pddl``, a directory searched
            for them, or a list).
        backend: ``"embedded"`` (default) or ``"textworld"`` (the real engine; needs ``alfworld``).
        grammar: ``"current"`` (alfworld 0.4.2: ``move X to Y``) or ``"legacy"`` (the ReAct prompts':
            ``put X in/on Y``, ``You arrive at loc N.``); default: the game file's own, else current.
        shuffle_names: number objects in a random order every episode (alfworld's training-time
            domain randomization); default off, as in evaluation.
        world_seed: the seed of the generated world (the same ``(world_seed, split, index)`` is the
            same household everywhere).
        max_steps: the episode's step limit.
    """

    # "text" is TextWorld's feedback: "Nothing happens." after a command that is not admissible.
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "render_fps": 4, C.FEEDBACK_KEYS: ("text",)}
    family: ClassVar[Any] = "gui_gym.alfworld.family:FAMILY"

    def __init__(
        self,
        task: str | Sequence[str] | None = None,
        split: str = "train",
        num_games: int | None = None,
        game_files: Any = None,
        backend: str = "embedded",
        grammar: str | None = None,
        shuffle_names: bool = False,
        world_seed: int = 0,
        max_steps: int = MAX_STEPS,
        render_mode: str | None = None,
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}; choose from {', '.join(BACKENDS)}")
        if grammar is not None and grammar not in GRAMMARS:
            raise ValueError(f"unknown grammar {grammar!r}; choose from {', '.join(GRAMMARS)}")
        if split not in SPLITS:
            raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        if int(max_steps) < 1:
            raise ValueError(f"max_steps must be at least 1, got {max_steps}")
        self.split, self.world_seed, self.num_games = split, int(world_seed), num_games
        self.grammar, self.shuffle_names = grammar, bool(shuffle_names)
        self.max_steps, self.render_mode = int(max_steps), render_mode
        self.backend_name = backend
        self._tw: Any = None
        if backend == "textworld" and shuffle_names:
            raise ValueError(
                "shuffle_names=True needs backend='embedded': TextWorld's own shuffling draws from Python's global "
                "random state, which the embedded engine (milestones, expert) cannot follow"
            )
        if backend == "textworld":
            from gui_gym.alfworld.backends.textworld import TextWorldBackend
            from gui_gym.alfworld.dataset import find_games

            if game_files is None:
                game_files = find_games(split)
            self._tw = TextWorldBackend(shuffle_names=False)
        self.entries: list[Entry] = (
            file_entries(game_files) if game_files is not None else list(generated(split, self.world_seed, num_games))
        )
        self.pool = select(self.entries, task, world_seed=self.world_seed)
        self.observation_space = gym.spaces.Dict(
            {"instruction": AnyText(1_000), "text": AnyText(TEXT_LIMIT), "admissible": AnyText(ADMISSIBLE_LIMIT)}
        )
        self.action_space = AnyText(10_000)
        self._worlds: dict[tuple[Any, ...], World] = {}
        self.engine: Engine | None = None
        self.entry: Entry | None = None
        self.goal: Goal | None = None
        self._milestones: list[Milestone] = []
        self._reached = 0
        self._steps = 0
        self._text = ""
        self._admissible: list[str] = []
        self._won = False
        self._done = True

    # -- gymnasium API ---------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        pool = select(self.entries, options[C.TASK], world_seed=self.world_seed) if C.TASK in options else self.pool
        entry = pool[int(self.np_random.integers(len(pool)))] if len(pool) > 1 else pool[0]
        names_rng = random.Random(int(self.np_random.integers(2**31))) if self.shuffle_names else None
        world = self._world(entry, names_rng)
        self.entry, self.engine = entry, Engine(world)
        self.goal = read_goal(world)
        self._milestones = milestones(world, self.goal) if self.goal is not None else []
        obs = self.engine.reset()
        if self._tw is not None:
            self._tw.load(entry.path)
            obs = self._tw.reset()
        self._text, self._admissible, self._won = obs.text, list(obs.admissible), obs.won
        self._steps, self._reached, self._done = 0, 0, False
        reached = self._advance()
        info = self._info(True, "Reset", C.WAIT, reached)
        info[C.DIFFICULTY] = entry.difficulty
        info[C.TASK_MILESTONES] = [m.label for m in self._milestones]
        info[C.PLACEHOLDERS] = {}
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.engine is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        self._steps += 1
        command = action.strip() if isinstance(action, str) else ""
        valid = isinstance(action, str) and command in self._admissible
        obs = self.engine.step(command if valid else "")
        if self._tw is not None:
            obs = self._tw.step(command if valid else "")
        self._text, self._admissible, self._won = obs.text, list(obs.admissible), obs.won
        reached = self._advance()
        if valid:
            info = self._info(True, f"{command}: {obs.text}", command_kind(command), reached)
        else:
            shown = _clip(command) if isinstance(action, str) else f"<{type(action).__name__}>"
            info = self._info(False, f"Invalid action: {shown!r}: {NOTHING_HAPPENS}", C.INVALID, reached)
            info[C.REASON] = self._reason(action, command)
        terminated = self._won
        truncated = not terminated and self._steps >= self.max_steps
        reward = 0.0
        if terminated or truncated:
            self._done = True
            info[C.SUCCESS] = bool(self._won)
            reward = 1.0 if self._won else 0.0
        return self._obs(), reward, terminated, truncated, info

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self.engine is None:
            return None
        return f"[{self.engine.world.grammar.goal}]\n{self._text}\n> " + " | ".join(self._admissible)

    def close(self) -> None:
        if self._tw is not None:
            self._tw.close()

    # -- extras ------------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """The built-in expert's next command from the current state (it knows where everything is)."""
        if self.engine is None:
            raise gym.error.ResetNeeded("call reset() before oracle_action()")
        if self.goal is None:
            raise RuntimeError(f"the expert does not know the goal of {self.entry.task_id if self.entry else '?'}")
        command = next_command(self.engine, self.goal)
        return command if command is not None else "look"

    @property
    def instruction(self) -> str:
        return self.engine.world.grammar.goal if self.engine is not None else ""

    # -- internals ---------------------------------------------------------------------------
    def _world(self, entry: Entry, names_rng: random.Random | None) -> World:
        """The entry's compiled world (kept for reuse unless names are shuffled)."""
        if names_rng is None:
            key = (entry.task_id, entry.path, entry.split, entry.index)
            world = self._worlds.get(key)
            if world is None:
                world = self._compile(entry, None)
                if len(self._worlds) >= WORLD_CACHE:
                    self._worlds.pop(next(iter(self._worlds)))
                self._worlds[key] = world
            return world
        return self._compile(entry, names_rng)

    def _compile(self, entry: Entry, names_rng: random.Random | None) -> World:
        if entry.path:
            game = read_game(entry.path)
            grammar = read_grammar(game.grammar, game.domain)
            problem = game.problem
        else:
            household = generate(self.world_seed, entry.split, entry.index)
            grammar, problem = Grammar.current(household.goal_text), household.problem
        if self.grammar is not None:
            make = Grammar.legacy_version if self.grammar == "legacy" else Grammar.current
            grammar = make(grammar.goal)
        return World.from_problem(problem, grammar, rng=names_rng)

    def _advance(self) -> list[str]:
        assert self.engine is not None
        start = self._reached
        while self._reached < len(self._milestones) and self._milestones[self._reached].reached(self.engine):
            self._reached += 1
        return [m.label for m in self._milestones[start : self._reached]]

    def _reason(self, action: Any, command: str) -> str:
        if not isinstance(action, str):
            return f"an ALFWorld action is a command (text), not {type(action).__name__}"
        if not command:
            return "an empty command; send one of info['admissible_actions']"
        close = difflib.get_close_matches(command[:200], self._admissible, n=3, cutoff=0.6)
        hint = f"; did you mean {' / '.join(repr(c) for c in close)}?" if close else ""
        return f"{_clip(command)!r} is not admissible now{hint}"

    def _obs(self) -> dict[str, str]:
        goal = self.engine.world.grammar.goal if self.engine is not None else ""
        return {
            "instruction": goal[:1_000],
            "text": self._text[:TEXT_LIMIT],
            "admissible": "\n".join(self._admissible)[:ADMISSIBLE_LIMIT],
        }

    def _info(self, valid: bool, description: str, kind: str, reached: list[str]) -> dict[str, Any]:
        assert self.entry is not None
        n = len(self._milestones)
        return {
            C.TASK_ID: self.entry.task_id,
            C.INSTRUCTION: self.instruction,
            C.ADMISSIBLE_ACTIONS: list(self._admissible),
            C.FORMAT_VALID: valid,
            C.ACTION_KIND: kind,
            C.ACTION_DESCRIPTION: description,
            C.MILESTONES: reached,
            C.PROGRESS: self._reached / n if n else float(self._won),
            "task_type": self.entry.task_type,
            "won": bool(self._won),
            "game_file": self.entry.path,
        }
