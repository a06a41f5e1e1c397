"""TextRooms: a small text world that keeps the env contract, defined here to prove the seams.

A house of four rooms (hall, kitchen, garden, study) with a few objects; the agent goes from
room to room, takes, drops, opens and switches things on. It is not shipped: it exists so the
tests can show that the contract checker, every reward term, the candidate policy and
``gui-gym train --env`` work on a family with no Android code on the path.

Register it by importing this module; ``gym.make("textrooms:TextRooms-v0")`` does that.

Example:
    >>> import gymnasium as gym
    >>> env = gym.make("TextRooms-v0", task="LightLamp")
    >>> obs, info = env.reset(seed=0)
    >>> obs["text"].splitlines()[0]
    'You are in the hall.'
    >>> _, r, term, trunc, info = env.step("go to the study")
    >>> info["action_kind"], info["action_description"]
    ('navigate', 'Go to the study: You enter the study.')
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium.envs.registration import register, registry

from gui_gym.core import contract as C
from gui_gym.core.family import Candidate, EditActions, select_tasks
from gui_gym.core.spaces import AnyText
from gui_gym.core.task import TaskSpec

ROOMS = ("hall", "kitchen", "garden", "study")
DOORS = {"hall": ("kitchen", "garden", "study"), "kitchen": ("hall",), "garden": ("hall",), "study": ("hall",)}


@dataclass
class World:
    room: str = "hall"
    where: dict[str, str] = field(default_factory=dict)  # object -> room, or "inventory"
    lamp_on: bool = False
    chest_open: bool = False


@dataclass(frozen=True)
class Task:
    """A task: its spec, where objects start, the milestones (predicates) and the success check."""

    spec: TaskSpec
    milestones: tuple[tuple[str, Any], ...]
    check: Any

    @property
    def id(self) -> str:
        return self.spec.id


def _placed(rng: np.random.Generator, objects: Sequence[str], avoid: str = "hall") -> dict[str, str]:
    rooms = [r for r in ROOMS if r != avoid]
    return {o: rooms[int(rng.integers(len(rooms)))] for o in objects}


def _holds(obj: str) -> Any:
    return lambda w: w.where[obj] == "inventory"


def _apple_in_hall(w: World) -> bool:
    return w.where["apple"] == "hall"


def _task(tid: str, tier: str, instruction: str, milestones: tuple[tuple[str, Any], ...], check: Any) -> Task:
    return Task(TaskSpec(tid, "house", tier, instruction, tuple(m for m, _ in milestones)), milestones, check)


TASKS: dict[str, Task] = {
    t.id: t
    for t in (
        _task("LightLamp", "easy", "Switch on the lamp.", (("Switch on the lamp", lambda w: w.lamp_on),),
              lambda w: w.lamp_on),
        _task("FetchApple", "easy", "Bring the apple to the hall.",
              (("Take the apple", _holds("apple")), ("Drop the apple in the hall", _apple_in_hall)), _apple_in_hall),
        _task("OpenChest", "medium", "Open the chest in the study with the key.",
              (("Take the key", _holds("key")), ("Open the chest", lambda w: w.chest_open)), lambda w: w.chest_open),
    )
}  # fmt: skip


COMMAND = re.compile(r"^\s*(go to|take|drop|open|switch on|look|inventory|finish)\b\s*(?:the\s+)?(.*?)\s*\.?\s*$", re.I)
KINDS = ("go", "take", "drop", "open", "switch_on", "look", "inventory", "finish")
CONTRACT_KIND = {
    "go to": C.NAVIGATE, "take": C.INTERACT, "drop": C.INTERACT, "open": C.INTERACT,
    "switch on": C.INTERACT, "look": C.WAIT, "inventory": C.WAIT, "finish": C.FINISH,
}  # fmt: skip


class TextRoomsEnv(gym.Env):
    """The env: text in (``go to the kitchen``, ``take the apple``, ``finish`` …), text out."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"]}
    family: ClassVar[Any] = None  # TextRoomsFamily(), set below

    def __init__(self, task: str | list[str] | None = None, max_steps: int = 12, render_mode: str | None = None):
        self.pool = [TASKS[t.id] for t in FAMILY.tasks(task)]
        self.max_steps = int(max_steps)
        self.render_mode = render_mode
        self.observation_space = gym.spaces.Dict({"instruction": AnyText(200), "text": AnyText(2000)})
        self.action_space = AnyText(500)
        self.world = World()
        self.task: Task | None = None
        self._steps = 0
        self._reached = 0
        self._feedback = ""

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        options = options or {}
        pool = [TASKS[t.id] for t in FAMILY.tasks(options[C.TASK])] if C.TASK in options else self.pool
        self.task = pool[int(self.np_random.integers(len(pool)))]
        self.world = World(where=_placed(self.np_random, ("apple", "lamp", "key")))
        self.world.where["chest"] = "study"
        self._steps, self._reached, self._feedback = 0, 0, ""
        info = self._info(True, "Reset", C.WAIT)
        info[C.DIFFICULTY] = self.task.spec.difficulty
        info[C.TASK_MILESTONES] = [m for m, _ in self.task.milestones]
        info[C.PLACEHOLDERS] = {}
        return self._obs(), info

    def step(self, action: Any):
        if self.task is None:
            raise gym.error.ResetNeeded("call reset() first")
        self._steps += 1
        ok, description, kind, reason = self._apply(action)
        terminated = ok and kind == C.FINISH
        truncated = not terminated and self._steps >= self.max_steps
        info = self._info(ok, description, kind if ok else C.INVALID)
        if not ok:
            info[C.REASON] = reason
        reward = 0.0
        if terminated or truncated:
            info[C.SUCCESS] = bool(self.task.check(self.world))
            reward = float(info[C.SUCCESS])
        return self._obs(), reward, terminated, truncated, info

    def render(self) -> str | None:
        return self._obs()["text"] if self.render_mode == "ansi" else None

    # -- internals -----------------------------------------------------------------------
    def _apply(self, action: Any) -> tuple[bool, str, str, str]:
        m = COMMAND.match(action) if isinstance(action, str) else None
        if not m:
            return (
                False,
                f"Invalid action: {str(action)[:60]!r}",
                C.INVALID,
                "expected go to / take / drop / open / switch on / look / inventory / finish",
            )
        verb, obj = m.group(1).lower(), m.group(2).lower()
        w, here = self.world, self.world.room
        kind = CONTRACT_KIND[verb]
        if verb == "go to":
            if obj not in DOORS[here]:
                return (
                    False,
                    f"Invalid action: no way to {obj!r}",
                    C.INVALID,
                    f"from the {here} you can go to {', '.join(DOORS[here])}",
                )
            w.room = obj
            return True, f"Go to the {obj}: You enter the {obj}.", kind, ""
        if verb in ("look", "inventory", "finish"):
            return (
                True,
                {"look": "Look around", "inventory": "Check the inventory", "finish": "Finish the task"}[verb],
                kind,
                "",
            )
        if w.where.get(obj) not in (here, "inventory"):
            return False, f"Invalid action: there is no {obj} here", C.INVALID, f"no {obj!r} in the {here}"
        if verb == "take" and obj in ("apple", "key") and w.where[obj] == here:
            w.where[obj] = "inventory"
        elif verb == "drop" and w.where[obj] == "inventory":
            w.where[obj] = here
        elif verb == "open" and obj == "chest" and not w.chest_open and w.where.get("key") == "inventory":
            w.chest_open = True
        elif verb == "switch on" and obj == "lamp" and not w.lamp_on:
            w.lamp_on = True
        else:
            return (
                False,
                f"Invalid action: cannot {verb} the {obj}",
                C.INVALID,
                f"{verb} does not apply to the {obj} now",
            )
        self._feedback = f"You {verb} the {obj}."
        return True, f"{verb.capitalize()} the {obj}: {self._feedback}", kind, ""

    def _obs(self) -> dict[str, str]:
        w = self.world
        seen = sorted(o for o, r in w.where.items() if r == w.room)
        held = sorted(o for o, r in w.where.items() if r == "inventory")
        lines = [f"You are in the {w.room}.", f"You see: {', '.join(seen) or 'nothing'}.",
                 f"You carry: {', '.join(held) or 'nothing'}.", f"Exits: {', '.join(DOORS[w.room])}."]  # fmt: skip
        return {"instruction": self.task.spec.template if self.task else "", "text": "\n".join(lines)}

    def _info(self, valid: bool, description: str, kind: str) -> dict[str, Any]:
        assert self.task is not None
        before = self._reached
        ms = self.task.milestones
        while self._reached < len(ms) and ms[self._reached][1](self.world):
            self._reached += 1
        return {
            C.TASK_ID: self.task.id, C.INSTRUCTION: self.task.spec.template, C.FORMAT_VALID: valid,
            C.ACTION_KIND: kind, C.ACTION_DESCRIPTION: description,
            C.MILESTONES: [m for m, _ in ms[before : self._reached]], C.PROGRESS: self._reached / len(ms),
            C.ADMISSIBLE_ACTIONS: [c.action for c in FAMILY.admissible_actions(self._obs())],
        }  # fmt: skip


class TextRoomsFamily:
    """The family of ``TextRooms-v0``: what trainers, policies and wrappers learn about it."""

    name = "textrooms"
    candidate_kinds = KINDS

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        return select_tasks([t.spec for t in TASKS.values()], selection, "TextRooms-v0")

    def instruction(self, obs: Any) -> str:
        return str(obs.get("instruction", ""))

    def observation_text(self, obs: Any, full: bool = False) -> str:
        text = str(obs.get("text", ""))
        return text if full else " | ".join(line.rstrip(".") for line in text.splitlines())

    def action_prompt(self) -> str:
        return (
            "You are in a house. Reply with one command: go to <room>, take <object>, drop <object>, "
            "open <object>, switch on <object>, look, inventory, or finish."
        )

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        text = str(obs.get("text", "")) if isinstance(obs, dict) else ""
        field_ = dict(re.findall(r"^(You see|You carry|Exits): (.*)\.$", text, re.M))
        listed = lambda key: [x for x in field_.get(key, "").split(", ") if x and x != "nothing"]  # noqa: E731
        out = [Candidate(f"go to the {r}", "go", f"go to the {r}", C.NAVIGATE) for r in listed("Exits")]
        for o in listed("You see"):
            out += [Candidate(f"take the {o}", "take", f"take the {o}", C.INTERACT)] if o in ("apple", "key") else []
            out += (
                [Candidate(f"switch on the {o}", "switch_on", f"switch on the {o}", C.INTERACT)] if o == "lamp" else []
            )
            out += [Candidate(f"open the {o}", "open", f"open the {o}", C.INTERACT)] if o == "chest" else []
        out += [Candidate(f"drop the {o}", "drop", f"drop the {o}", C.INTERACT) for o in listed("You carry")]
        out.append(Candidate("look", "look", "look around", C.WAIT))
        out.append(Candidate("finish", "finish", "finish: the task is done", C.FINISH))
        return out[:limit]

    def edit_actions(self) -> EditActions:
        return EditActions(noop="look", noop_kind=C.WAIT, noop_description="Look around")


FAMILY = TextRoomsFamily()
TextRoomsEnv.family = FAMILY

if "TextRooms-v0" not in registry:
    register(id="TextRooms-v0", entry_point=TextRoomsEnv)
