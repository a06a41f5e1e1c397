"""Households generated from ``(seed, split, index)``: ALFWorld's worlds without its data set.

A *scene* (ALFRED's FloorPlan numbers: kitchens 1-30, living rooms 201-230, bedrooms 301-330,
bathrooms 401-430) is a deterministic layout of receptacles and locations drawn from ALFRED's
per-room vocabulary (:mod:`gui_gym.alfworld.vocabulary`); an instance places portable objects on
it (only in receptacles that can contain them, up to three of a class, lamps on tables, desks and
dressers) and picks a task of a type the room allows (``GOALS_VALID`` of alfworld's constants:
light in living rooms and bedrooms, heat and cool in kitchens, clean in kitchens and bathrooms),
rejecting a start where the goal already holds and keeping only instances the built-in expert
solves (its plan is the instance's walkthrough).

Splits, as upstream's: ``train`` (3,553 by default, any index works), ``eval_in_distribution``
(140: the train scenes, other households) and ``eval_out_of_distribution`` (134: ALFRED's unseen
scenes 10, 219, 308, 424, never used in train). Ids look like the data set's
(``Cabinet_bar__minus_01_dot_00_bar__plus_00_dot_38_bar__minus_02_dot_58``, sink basins
``Sink_bar_…_bar_SinkBasin``), so alfworld's names come out the same (``cabinet 3``, ``sinkbasin 1``).

Example:
    >>> h = generate(0, "train", 7)
    >>> h == generate(0, "train", 7), h.split, h.params.task_type in h.task_id
    (True, 'train', True)
    >>> len(h.walkthrough) > 0
    True
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from gui_gym.alfworld import vocabulary as V
from gui_gym.alfworld.engine import Engine, World
from gui_gym.alfworld.expert import plan
from gui_gym.alfworld.grammar import Grammar
from gui_gym.alfworld.pddl import Problem, format_problem
from gui_gym.alfworld.tasks import TASK_TYPES, TaskParams, goal_formula, goal_text, task_id

__all__ = ["SPLITS", "Household", "generate", "write_game"]

SPLITS = {"train": 3553, "eval_in_distribution": 140, "eval_out_of_distribution": 134}
_SPLIT_CODE = {"train": 1, "eval_in_distribution": 2, "eval_out_of_distribution": 3}
#: Task types in the proportions of ALFWorld's training games (alfworld's README: 790 simple,
#: 308 light, 650 clean, 459 heat, 533 cool, 813 two).
_TYPE_WEIGHTS = np.array([790, 308, 650, 459, 533, 813], dtype=float) / 3553
_VALID_ROOMS = {
    "pick_and_place_simple": V.ROOM_TYPES,
    "look_at_obj_in_light": ("livingroom", "bedroom"),
    "pick_clean_then_place_in_recep": ("kitchen", "bathroom"),
    "pick_heat_then_place_in_recep": ("kitchen",),
    "pick_cool_then_place_in_recep": ("kitchen",),
    "pick_two_obj_and_place": V.ROOM_TYPES,
}
_STATE_CLASSES = {
    "pick_clean_then_place_in_recep": frozenset(V.CLEANABLE),
    "pick_heat_then_place_in_recep": frozenset(V.HEATABLE),
    "pick_cool_then_place_in_recep": frozenset(V.COOLABLE),
}
_APPLIANCE = {
    "pick_clean_then_place_in_recep": "SinkBasin",
    "pick_heat_then_place_in_recep": "Microwave",
    "pick_cool_then_place_in_recep": "Fridge",
}
_MAX_TRIES = 200


@dataclass(frozen=True, eq=False)
class Household:
    """One generated game: the PDDL problem, the task, its goal text and id, and the expert's plan."""

    problem: Problem
    params: TaskParams
    goal_text: str
    task_id: str
    split: str
    index: int
    seed: int
    scene: int
    walkthrough: tuple[str, ...] = field(default=())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Household) and (self.task_id, self.problem.init, self.walkthrough) == (
            other.task_id,
            other.problem.init,
            other.walkthrough,
        )

    __hash__ = None  # type: ignore[assignment]


def _room(scene: int) -> str:
    return next(room for room, scenes in V.SCENES.items() if scene in scenes)


def _scenes(split: str) -> list[int]:
    unseen = set(V.UNSEEN_SCENES)
    every = [s for scenes in V.SCENES.values() for s in scenes]
    return [s for s in every if (s in unseen) == (split == "eval_out_of_distribution")]


def _coord(rng: np.random.Generator) -> str:
    value = float(rng.uniform(-3, 3))
    sign = "minus" if value < 0 else "plus"
    return f"_{sign}_{abs(value):05.2f}".replace(".", "_dot_")


def _entity(cls: str, rng: np.random.Generator) -> str:
    coords = "_bar_".join(_coord(rng) for _ in range(3))
    if cls in V.BASINS:
        return f"{V.BASINS[cls]}_bar_{coords}_bar_{cls}"
    return f"{cls}_bar_{coords}"


def _location(rng: np.random.Generator, used: set[str]) -> str:
    while True:
        parts = [
            int(rng.integers(-12, 13)),
            int(rng.integers(-12, 13)),
            int(rng.integers(0, 4)),
            int(rng.choice([0, 15, 30, 45, 60])),
        ]
        name = "loc" + "".join(f"_bar__minus_{-p}" if p < 0 else f"_bar_{p}" for p in parts)
        if name not in used:
            used.add(name)
            return name


@dataclass(frozen=True)
class _Layout:
    scene: int
    room: str
    receptacles: tuple[tuple[str, str, str], ...]  # (id, class, location)
    start: str


@lru_cache(maxsize=256)
def _layout(seed: int, scene: int) -> _Layout:
    """A scene's receptacles and locations (the same for every instance of the scene)."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0, scene]))
    room = _room(scene)
    used: set[str] = set()
    receptacles: list[tuple[str, str, str]] = []
    for cls, (share, counts) in V.RECEPTACLES_BY_ROOM[room].items():
        if rng.random() >= share:
            continue
        count = int(rng.choice(counts))
        previous = ""
        for _ in range(count):
            # Now and then two receptacles stand at one spot (cabinet pairs, a drawer in a dresser).
            loc = previous if previous and rng.random() < 0.12 else _location(rng, used)
            receptacles.append((_entity(cls, rng), cls, loc))
            previous = loc
    start = _location(rng, used)
    return _Layout(scene, room, tuple(sorted(receptacles)), start)


def _classes(layout: _Layout) -> set[str]:
    return {cls for _, cls, _ in layout.receptacles}


def _choose_task(rng: np.random.Generator, layout: _Layout, task_type: str) -> TaskParams | None:
    """A task of ``task_type`` the layout allows, with a target class of the room, or ``None``."""
    present = _classes(layout)
    objects = sorted(V.OBJECTS_BY_ROOM[layout.room])
    if task_type == "look_at_obj_in_light":
        if not present & set(V.LAMP_RECEPTACLES):
            return None
        obj = objects[int(rng.integers(len(objects)))]
        if not any(obj in V.CAN_CONTAIN.get(c, ()) for c in present):
            return None
        return TaskParams(task_type, obj, toggle_target=str(rng.choice(V.LAMPS)))
    if task_type in _APPLIANCE:
        if _APPLIANCE[task_type] not in present:
            return None
        objects = [o for o in objects if o in _STATE_CLASSES[task_type]]
    if not objects:
        return None
    obj = objects[int(rng.integers(len(objects)))]
    parents = sorted(c for c in present if obj in V.CAN_CONTAIN.get(c, ()))
    if len(parents) < 2:  # somewhere to take it from and somewhere else to put it
        return None
    parent = parents[int(rng.integers(len(parents)))]
    return TaskParams(task_type, obj, parent_target=parent)


def _populate(rng: np.random.Generator, layout: _Layout, params: TaskParams) -> Problem | None:
    """Objects placed on the layout for the task; ``None`` if the task cannot be set up."""
    objects: dict[str, str] = {"agent1": "agent"}
    init: set[tuple[str, ...]] = {("atlocation", "agent1", layout.start)}
    where = {rid: loc for rid, _, loc in layout.receptacles}
    by_class: dict[str, list[str]] = {}
    for rid, cls, loc in layout.receptacles:
        objects[rid] = "receptacle"
        objects[loc] = "location"
        by_class.setdefault(cls, []).append(rid)
        init |= {("receptacletype", rid, f"{cls}Type"), ("receptacleatlocation", rid, loc)}
        if cls in V.OPENABLE:
            init.add(("openable", rid))
            if rng.random() < 0.1:
                init.add(("opened", rid))
    objects[layout.start] = "location"
    wanted = {params.object_target: 2 if params.task_type == "pick_two_obj_and_place" else 1}
    classes: dict[str, int] = {}
    for cls, share in V.OBJECTS_BY_ROOM[layout.room].items():
        if cls in wanted or rng.random() < share:
            classes[cls] = max(wanted.get(cls, 1), int(rng.integers(1, 4)))
    if params.task_type == "look_at_obj_in_light":
        classes[params.toggle_target] = 1
    for cls, count in sorted(classes.items()):
        if cls in V.LAMPS:
            homes = [r for c in V.LAMP_RECEPTACLES for r in by_class.get(c, ())]
        else:
            homes = [r for c, rs in by_class.items() if cls in V.CAN_CONTAIN.get(c, ()) for r in rs]
        if not homes:
            if cls in wanted or cls in V.LAMPS:
                return None
            continue
        for _ in range(count):
            oid = _entity(cls, rng)
            home = homes[int(rng.integers(len(homes)))]
            objects[oid] = "object"
            init |= {
                ("objecttype", oid, f"{cls}Type"),
                ("inreceptacle", oid, home),
                ("objectatlocation", oid, where[home]),
            }
            if cls in V.LAMPS:
                init.add(("toggleable", oid))
                continue
            init.add(("pickupable", oid))
            for pred, members in (("heatable", V.HEATABLE), ("coolable", V.COOLABLE), ("cleanable", V.CLEANABLE),
                                  ("sliceable", V.SLICEABLE)):  # fmt: skip
                if cls in members:
                    init.add((pred, oid))
    present = {c for c in classes if c not in V.LAMPS}
    for rcls in by_class:
        for ocls in sorted(present & set(V.CAN_CONTAIN.get(rcls, ()))):
            init.add(("cancontain", f"{rcls}Type", f"{ocls}Type"))
    for t in {f"{c}Type" for c in classes}:
        objects[t] = "otype"
    for t in {f"{c}Type" for c in by_class}:
        objects[t] = "rtype"
    return Problem(name="", domain="alfred", objects=objects, init=frozenset(init), goal=goal_formula(params))


def _trial(rng: np.random.Generator) -> str:
    day = int(rng.integers(0, 120))
    month, date = 7 + day // 30, 1 + day % 30
    clock = f"{int(rng.integers(24)):02d}{int(rng.integers(60)):02d}{int(rng.integers(60)):02d}"
    return f"trial_T2019{month:02d}{date:02d}_{clock}_{int(rng.integers(1_000_000)):06d}"


def generate(seed: int, split: str, index: int) -> Household:
    """The household of ``(seed, split, index)``: the same everywhere, every time."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    if not isinstance(index, (int, np.integer)) or isinstance(index, bool) or index < 0:
        raise ValueError(f"index must be a non-negative integer, got {index!r}")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), _SPLIT_CODE[split], int(index)]))
    task_type = TASK_TYPES[int(rng.choice(len(TASK_TYPES), p=_TYPE_WEIGHTS))]
    scenes = [s for s in _scenes(split) if _room(s) in _VALID_ROOMS[task_type]]
    for _ in range(_MAX_TRIES):
        scene = int(scenes[int(rng.integers(len(scenes)))])
        layout = _layout(int(seed), scene)
        params = _choose_task(rng, layout, task_type)
        if params is None:
            continue
        problem = _populate(rng, layout, params)
        if problem is None:
            continue
        text = goal_text(params, rng)
        engine = Engine(World.from_problem(problem, Grammar.current(text)))
        if engine.won():
            continue
        try:
            walkthrough = plan(engine)
        except ValueError:
            continue
        tid = task_id(params, scene, _trial(rng))
        named = Problem(tid.replace("/", "_"), problem.domain, problem.objects, problem.init, problem.goal)
        return Household(named, params, text, tid, split, int(index), int(seed), scene, tuple(walkthrough))
    raise RuntimeError(f"no solvable household for {(seed, split, index)} in {_MAX_TRIES} tries")


def write_game(household: Household, path: str | os.PathLike[str], domain: str, grammar: str) -> None:
    """Write a household as an ALFWorld ``game.tw-pddl`` (upstream's keys), for the real TextWorld:
    ``domain`` and ``grammar`` are the texts of alfworld's ``alfred.pddl`` and ``alfred.twl2``."""
    data = {
        "pddl_domain": domain,
        "grammar": grammar.replace("UNKNOWN GOAL", household.goal_text),
        "pddl_problem": format_problem(household.problem),
        "solvable": True,
        "walkthrough": list(household.walkthrough),
    }
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f)
