"""ALFWorld households generated from (seed, split, index): ALFRED's rooms, objects and tasks.

:func:`generate` builds one :class:`Household`: a PDDL problem in the form of ALFWorld's game files
(ids such as ``Cabinet_bar__minus_01_dot_00_bar__plus_00_dot_38_bar__minus_02_dot_58``, locations
such as ``loc_bar__minus_4_bar_12_bar_1_bar_45``, the facts the data set's problems carry), its
task (:class:`~gui_gym.alfworld.tasks.TaskParams`), goal text and task id. :func:`write_game`
writes it as a ``game.tw-pddl`` that ALFWorld's TextWorld environment loads.

**Layouts.** Each ALFRED scene number (FloorPlan 1-30 kitchens, 201-230 living rooms, 301-330
bedrooms, 401-430 bathrooms) is one procedurally generated layout, the same for every seed
(:func:`layout`): its receptacles with their counts drawn from what the data set's scenes of that
room type have (:data:`~gui_gym.alfworld.vocabulary.ROOM_RECEPTACLES`), set along the walls in
drawer columns, shelf stacks, cabinet rows and burner grids, each with the navigation point the
agent stands on to reach it (receptacles at one height in one column share it, as in the data
set); the start point, where no receptacle is; lamps, house plants and televisions standing in
receptacles; fixtures in none (light switches, windows); and the object classes the room holds.

**Instances.** A seed, split and index choose the task type, a scene where upstream allows that
type (light tasks where a desk lamp stands, heat and cool in kitchens, clean where a sink basin
is), the task's classes weighted as upstream's train split has them, and 1-3 instances of each
object class, each in a receptacle of a class that can contain it, chosen as often as the data
set puts that class there. The goal never holds at the start: no object the simple and two-object
tasks ask for starts in a receptacle of the target class, and no object starts hot, cool, clean
or held. Everything the task needs is present (two objects for pick_two, the microwave, fridge,
sink basin or lamp), so every task is solvable.

**Splits** (:data:`SPLITS`): ``train`` (3,553 by default, any index works),
``eval_in_distribution`` (140: the train scenes, other instances) and ``eval_out_of_distribution``
(134: only :data:`OOD_SCENES`, ALFWorld's unseen scenes 10, 219, 308 and 424 plus the eight scenes
no ALFWorld game uses, never drawn for train). Within its default size a split has exactly
upstream's task-type counts (train, valid_seen, valid_unseen); beyond it train draws types with
the same weights.

Randomness comes from :class:`random.Random` seeded with a BLAKE2 hash of the arguments, so the
same arguments give the same household in every process.

Example:
    >>> h = generate(0, "train", 7)
    >>> h == generate(0, "train", 7), h.task_id.split("-")[0] in TASK_TYPES
    (True, True)
    >>> h.problem.facts("atLocation")[0][0]
    'agent1'
"""

from __future__ import annotations

import hashlib
import json
import os
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from pathlib import Path

from gui_gym.alfworld import vocabulary as voc
from gui_gym.alfworld.engine import Engine, World
from gui_gym.alfworld.expert import plan
from gui_gym.alfworld.grammar import Grammar
from gui_gym.alfworld.pddl import Problem, format_problem
from gui_gym.alfworld.tasks import (
    TASK_TYPES,
    UPSTREAM_OBJECTS,
    UPSTREAM_RECEPTACLES,
    UPSTREAM_ROOMS,
    UPSTREAM_SPLIT_TYPES,
    TaskParams,
    goal_formula,
    goal_text,
    task_id,
)
from gui_gym.core.io import atomic_write

__all__ = [
    "OOD_SCENES",
    "SPLITS",
    "TRAIN_SCENES",
    "Household",
    "Layout",
    "Receptacle",
    "generate",
    "layout",
    "write_game",
]

#: Split name -> its default size (upstream's train, valid_seen and valid_unseen).
_MAX_ATTEMPTS = 50  # draws of one index before giving up (the expert solves nearly every first draw)
SPLITS = {"train": 3553, "eval_in_distribution": 140, "eval_out_of_distribution": 134}
_UPSTREAM_SPLIT = {"train": "train", "eval_in_distribution": "valid_seen", "eval_out_of_distribution": "valid_unseen"}
#: Layouts held out of train: ALFWorld's unseen scenes and the scenes no ALFWorld game uses.
OOD_SCENES = tuple(sorted(voc.UNSEEN_SCENES + voc.UNUSED_SCENES))
#: Layouts of train and eval_in_distribution.
TRAIN_SCENES = tuple(s for room in voc.ROOM_TYPES for s in voc.SCENES[room] if s not in OOD_SCENES)
#: Chance that one openable receptacle starts open (the data set has none; the engine must show one).
OPEN_AT_START = 0.1

LIGHT = "look_at_obj_in_light"
# What a task type needs in the room besides its classes.
_NEEDS = {
    "look_at_obj_in_light": "DeskLamp",
    "pick_clean_then_place_in_recep": "SinkBasin",
    "pick_heat_then_place_in_recep": "Microwave",
    "pick_cool_then_place_in_recep": "Fridge",
}
# Types whose goal holds as soon as a target object lies in a receptacle of the target class.
_PLACE_ONLY = ("pick_and_place_simple", "pick_two_obj_and_place")
# Classes the domain names in its actions (alfred.pddl: CleanObject, HeatObject, CoolObject,
# SliceObject), declared in every problem as the data set's problems declare them.
_ALWAYS_RTYPES = ("Fridge", "Microwave", "Sink", "SinkBasin")
_ALWAYS_OTYPES = ("ButterKnife", "Knife")
# Room half-widths in metres (ALFRED's rooms: bathrooms small, living rooms large).
_HALF_WIDTH = {"Kitchen": (2.0, 3.5), "LivingRoom": (2.5, 4.5), "Bedroom": (2.0, 3.5), "Bathroom": (1.25, 2.25)}
# Furniture that may stand away from the walls.
_FREE_STANDING = frozenset({"ArmChair", "Bed", "Cart", "CoffeeTable", "DiningTable", "Ottoman", "Sofa"})
# Receptacles a drawer column may belong to (the column then shares their spot).
_DRAWER_HOSTS = ("Dresser", "Desk", "SideTable", "CounterTop", "Cabinet")
_GRID = 0.25  # metres per navigation-grid step (gen/constants.py:91)
# Fixtures' heights in metres (the rest stand on the floor).
_FIXTURE_HEIGHTS = {"Blinds": 2.2, "LightSwitch": 1.2, "Mirror": 1.5, "Painting": 1.8, "ShowerDoor": 1.0,
                    "StoveKnob": 0.9, "Window": 1.5}  # fmt: skip


@dataclass(frozen=True)
class Receptacle:
    """A receptacle of a layout: its PDDL id, class and the location the agent reaches it from."""

    id: str
    cls: str
    location: str


@dataclass(frozen=True)
class Layout:
    """One scene's fixed part: receptacles, start location, decor (non-pickupable objects in
    receptacles, as ``(id, class, receptacle id)``), fixtures (objects in none, as ``(id, class,
    location)``) and the object classes its instances hold."""

    scene: int
    room: str
    receptacles: tuple[Receptacle, ...]
    start: str
    decor: tuple[tuple[str, str, str], ...]
    fixtures: tuple[tuple[str, str, str], ...]
    object_classes: tuple[str, ...]
    by_class: dict[str, tuple[Receptacle, ...]] = field(init=False, repr=False, compare=False)
    by_id: dict[str, Receptacle] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        groups: dict[str, list[Receptacle]] = {}
        for r in self.receptacles:
            groups.setdefault(r.cls, []).append(r)
        object.__setattr__(self, "by_class", {c: tuple(rs) for c, rs in groups.items()})
        object.__setattr__(self, "by_id", {r.id: r for r in self.receptacles})

    def has(self, cls: str) -> bool:
        """Whether a receptacle or decor object of class ``cls`` is in the layout."""
        return cls in self.by_class or any(c == cls for _, c, _ in self.decor)


@dataclass(frozen=True)
class Household:
    """One generated world and task: the PDDL problem (agent, receptacles, objects, locations,
    facts and goal), the task's parameters, goal text and id, and where it came from."""

    problem: Problem
    params: TaskParams
    goal_text: str
    task_id: str
    split: str
    index: int
    seed: int
    scene: int
    #: the built-in expert's commands from the start to the goal (current grammar)
    walkthrough: tuple[str, ...] = ()

    @property
    def room(self) -> str:
        """The room type (``Kitchen``, ``LivingRoom``, ``Bedroom`` or ``Bathroom``)."""
        return voc.room_of(self.scene)


# -- public API ------------------------------------------------------------------------------------


def generate(seed: int, split: str, index: int) -> Household:
    """The household ``index`` of ``split`` under ``seed``; the same arguments give the same
    household. ValueError names the splits for an unknown one and the valid indices for a bad
    index (negative; at or beyond the size of an evaluation split).

    Every household is played by the built-in expert (:mod:`gui_gym.alfworld.expert`) on the
    embedded engine before it is returned: the goal must not hold at the start and the expert must
    reach it; its commands are the household's ``walkthrough``. A draw that fails is drawn again."""
    _check(seed, split, index)
    for attempt in range(_MAX_ATTEMPTS):
        parts = ("world", seed, split, index) if attempt == 0 else ("world", seed, split, index, attempt)
        rng = _rng(*parts)
        ttype = _task_type(seed, split, index, rng)
        scene = _scene(split, ttype, rng)
        lay = layout(scene)
        params = _params(ttype, lay, rng)
        placed = _place(lay, params, rng)
        trial = _trial(rng)
        opened = _opened(lay, rng)
        problem = _problem(lay, params, placed, opened, f"plan_{trial}")
        text = goal_text(params, rng)
        walkthrough = _solve(problem, text)
        if walkthrough is None:
            continue
        return Household(
            problem=problem,
            params=params,
            goal_text=text,
            task_id=task_id(params, scene, trial),
            split=split,
            index=index,
            seed=seed,
            scene=scene,
            walkthrough=walkthrough,
        )
    raise RuntimeError(f"no household the expert solves for seed={seed} split={split!r} index={index}")


def _solve(problem: Problem, text: str) -> tuple[str, ...] | None:
    """The expert's commands from the start to the goal; ``None`` if the goal holds at the start
    or the expert cannot reach it."""
    engine = Engine(World.from_problem(problem, Grammar.current(text)))
    if engine.won():
        return None
    try:
        return tuple(plan(engine))
    except ValueError:
        return None


def write_game(
    household: Household, path: str | os.PathLike[str], domain: str, grammar: str, walkthrough: Sequence[str] = ()
) -> Path:
    """Write ``household`` as a game file and return its path: ``path`` itself when it ends in
    ``.tw-pddl`` (TextWorld loads nothing else), else ``path/game.tw-pddl`` as in the data set.
    The JSON has the data set's keys: ``pddl_domain`` (``domain``, alfworld/data/alfred.pddl's
    text), ``grammar`` (``grammar``, alfred.twl2's text, with ``UNKNOWN GOAL`` replaced by the goal
    text as alfworld/agents/utils/misc.py:107 does), ``pddl_problem``, ``solvable`` (true:
    generated tasks are solvable by construction) and ``walkthrough`` (what TextWorld reports as
    the walkthrough; default: the household's, the built-in expert's)."""
    if "UNKNOWN GOAL" not in grammar:
        raise ValueError("the grammar has no 'UNKNOWN GOAL' to fill in: pass the text of alfworld/data/alfred.twl2")
    game = {
        "pddl_domain": domain,
        "grammar": grammar.replace("UNKNOWN GOAL", household.goal_text),
        "pddl_problem": format_problem(household.problem),
        "solvable": True,
        "walkthrough": list(walkthrough or household.walkthrough),
    }
    target = Path(path)
    if target.suffix != ".tw-pddl":  # TextWorld picks its PDDL backend by this extension
        target = target / "game.tw-pddl"
    atomic_write(target, lambda f: f.write(json.dumps(game) + "\n"))
    return target


@cache
def layout(scene: int) -> Layout:
    """The layout of ALFRED scene ``scene`` (the same in every process; ValueError for a number
    that is no scene)."""
    room = voc.room_of(scene)
    rng = _rng("layout", scene)
    half = rng.uniform(*_HALF_WIDTH[room])
    ids = _Ids()
    counts = _receptacle_counts(room, rng)
    receptacles = _receptacles(counts, half, rng, ids)
    spots = {r.location for r in receptacles}
    start = _free_location(half, rng, spots, horizon=30)
    lay = Layout(scene, room, tuple(receptacles), start, (), (), ())
    decor = _decor(lay, rng, ids)
    fixtures = _fixtures(lay, counts, half, rng, ids, spots | {start})
    holders = {r.cls for r in receptacles}
    classes = tuple(
        c
        for c, pct in voc.ROOM_OBJECTS[room].items()
        if rng.random() * 100 < pct and any(c in voc.CAN_CONTAIN[h] for h in holders)
    )
    return Layout(scene, room, tuple(receptacles), start, decor, fixtures, classes)


def _receptacle_counts(room: str, rng: random.Random) -> dict[str, int]:
    """How many receptacles of each class: each class as often and as many as the room type's
    scenes have it, then the biggest groups trimmed to the larger of two totals such scenes have
    (classes drawn apart would otherwise pile up more receptacles than real rooms hold)."""
    counts = {
        cls: rng.choice(seen)
        for cls, seen in voc.ROOM_RECEPTACLES[room].items()
        if rng.random() < len(seen) / voc.SCENES_OBSERVED
    }
    total = max(rng.choice(voc.ROOM_TOTALS[room]), rng.choice(voc.ROOM_TOTALS[room]))
    while sum(counts.values()) > total:
        cls, n = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if n == 1:
            break
        counts[cls] = n - 1
    return counts


# -- choosing the task -----------------------------------------------------------------------------


def _check(seed: int, split: str, index: int) -> None:
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; the splits are {', '.join(SPLITS)}")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an int, got {seed!r}")
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise ValueError(f"index must be an int >= 0, got {index!r}")
    if split != "train" and index >= SPLITS[split]:
        raise ValueError(f"{split} has {SPLITS[split]} households: index 0..{SPLITS[split] - 1}, got {index}")


def _rng(*parts: object) -> random.Random:
    """A generator seeded from a stable hash of ``parts`` (never Python's salted ``hash``)."""
    digest = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return random.Random(int.from_bytes(digest, "big"))


@lru_cache(maxsize=64)
def _schedule(seed: int, split: str) -> tuple[str, ...]:
    """The task types of a split's first SPLITS[split] indices: upstream's counts, shuffled."""
    counts = UPSTREAM_SPLIT_TYPES[_UPSTREAM_SPLIT[split]]
    order = [t for t in TASK_TYPES for _ in range(counts[t])]
    _rng("schedule", seed, split).shuffle(order)
    return tuple(order)


def _task_type(seed: int, split: str, index: int, rng: random.Random) -> str:
    if index < SPLITS[split]:
        return _schedule(seed, split)[index]
    counts = UPSTREAM_SPLIT_TYPES["train"]
    return rng.choices(TASK_TYPES, weights=[counts[t] for t in TASK_TYPES])[0]


@cache
def _pools(split: str, ttype: str) -> tuple[tuple[str, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """The rooms where ``ttype`` can be set in ``split``'s layouts, their upstream weights and scenes."""
    scenes = OOD_SCENES if split == "eval_out_of_distribution" else TRAIN_SCENES
    need = _NEEDS.get(ttype)
    rooms, weights, pools = [], [], []
    for room, weight in UPSTREAM_ROOMS[ttype].items():
        pool = tuple(s for s in scenes if voc.room_of(s) == room and (need is None or layout(s).has(need)))
        if pool:
            rooms.append(room)
            weights.append(weight)
            pools.append(pool)
    if not pools:
        raise RuntimeError(f"no layout of {split} can hold a {ttype} task")  # a vocabulary change broke this
    return tuple(rooms), tuple(weights), tuple(pools)


def _scene(split: str, ttype: str, rng: random.Random) -> int:
    _, weights, pools = _pools(split, ttype)
    return rng.choice(rng.choices(pools, weights=weights)[0])


def _params(ttype: str, lay: Layout, rng: random.Random) -> TaskParams:
    """The task's classes: an object class the room holds (if any fits) weighted by upstream's
    counts, then a receptacle class the layout has that can contain it."""
    options = {c: _parents(ttype, c, lay) for c in UPSTREAM_OBJECTS[ttype]}
    feasible = {c: p for c, p in options.items() if p}
    local = {c: p for c, p in feasible.items() if c in lay.object_classes}
    pick = local or feasible
    objs = sorted(pick)
    obj = rng.choices(objs, weights=[UPSTREAM_OBJECTS[ttype][c] for c in objs])[0]
    if ttype == LIGHT:
        return TaskParams(ttype, obj, None, "DeskLamp")
    parents = pick[obj]
    parent = rng.choices(parents, weights=[UPSTREAM_RECEPTACLES[ttype][p] for p in parents])[0]
    return TaskParams(ttype, obj, parent)


def _parents(ttype: str, obj: str, lay: Layout) -> list[str]:
    """Receptacle classes of the layout a ``ttype`` task could ask ``obj`` to be put in (for the
    light task: ``["DeskLamp"]`` when ``obj`` has a receptacle to lie in)."""
    holders = [c for c in lay.by_class if obj in voc.CAN_CONTAIN[c]]
    if ttype == LIGHT:
        return ["DeskLamp"] if holders else []
    parents = sorted(p for p in UPSTREAM_RECEPTACLES[ttype] if p in holders)
    if ttype in _PLACE_ONLY:  # the objects must start somewhere else
        parents = [p for p in parents if any(h != p for h in holders)]
    return parents


# -- placing objects -------------------------------------------------------------------------------


def _place(lay: Layout, params: TaskParams, rng: random.Random) -> list[tuple[str, str, str]]:
    """``(id, class, receptacle id)`` of every pickupable object: 1-3 of each class the layout
    holds and of the target class (2-3 for pick_two), in receptacles that can contain them."""
    target = params.object_target
    avoid = params.parent_target if params.task_type in _PLACE_ONLY else None
    counts = (1, 2, 3)
    weights = [voc.ROOM_INSTANCES[n] for n in counts]
    used = {i for i, _, _ in lay.decor} | {i for i, _, _ in lay.fixtures}
    placed = []
    for cls in sorted(set(lay.object_classes) | {target}):
        if cls == target and params.task_type == "pick_two_obj_and_place":
            n = rng.choices(counts[1:], weights=weights[1:])[0]
        else:
            n = rng.choices(counts, weights=weights)[0]
        for _ in range(n):
            recep = _holder(lay, cls, avoid if cls == target else None, rng)
            if recep is None:
                break
            placed.append((_object_id(cls, recep, rng, used), cls, recep.id))
    return placed


def _holder(lay: Layout, cls: str, avoid: str | None, rng: random.Random) -> Receptacle | None:
    """A receptacle for an object of ``cls``: its class weighted by where the data set puts
    ``cls`` (uniform when none of those is here), then one of that class."""
    classes = [c for c in lay.by_class if cls in voc.CAN_CONTAIN[c] and c != avoid]
    if not classes:
        return None
    prefs = voc.PLACEMENT.get(cls, {})
    weights = [prefs.get(c, 0) for c in classes]
    if not any(weights):
        weights = [1] * len(classes)
    chosen = rng.choices(classes, weights=weights)[0]
    return rng.choice(lay.by_class[chosen])


def _opened(lay: Layout, rng: random.Random) -> tuple[str, ...]:
    if rng.random() >= OPEN_AT_START:
        return ()
    openable = [r.id for r in lay.receptacles if r.cls in voc.OPENABLE]
    return (rng.choice(openable),) if openable else ()


def _trial(rng: random.Random) -> str:
    """A trial name like the data set's (recorded 6-9 September 2019)."""
    day = rng.randint(6, 9)
    hms = f"{rng.randrange(24):02d}{rng.randrange(60):02d}{rng.randrange(60):02d}"
    return f"trial_T201909{day:02d}_{hms}_{rng.randrange(1_000_000):06d}"


# -- the PDDL problem ------------------------------------------------------------------------------


def _problem(
    lay: Layout, params: TaskParams, placed: list[tuple[str, str, str]], opened: Iterable[str], name: str
) -> Problem:
    """The problem's objects and facts, as the data set's problems state them."""
    static = _static(lay.scene)
    objects = dict(static.objects)
    facts = set(static.facts)
    classes = set(static.classes)
    for oid, cls, rid in placed:
        objects[oid] = "object"
        classes.add(cls)
        facts.add(("objecttype", oid, f"{cls}Type"))
        facts.update((p.lower(), oid) for p in voc.OBJECT_PROPERTIES[cls])
        facts.add(("inreceptacle", oid, rid))
        facts.add(("objectatlocation", oid, lay.by_id[rid].location))
    for cls in classes | set(_ALWAYS_OTYPES):
        objects[f"{cls}Type"] = "otype"
    for rcls in static.rtypes:
        contain = voc.CAN_CONTAIN.get(rcls, frozenset())
        facts.update(("cancontain", f"{rcls}Type", f"{c}Type") for c in classes if c in contain)
    facts.update(("opened", rid) for rid in opened)
    return Problem(name=name, domain="alfred", objects=objects, init=frozenset(facts), goal=goal_formula(params))


@dataclass(frozen=True)
class _Static:
    """The part of every problem of one layout that no instance changes."""

    objects: dict[str, str]
    facts: frozenset[tuple[str, ...]]
    classes: frozenset[str]  # object classes with objectType facts (decor and fixtures)
    rtypes: tuple[str, ...]  # receptacle classes present


@cache
def _static(scene: int) -> _Static:
    lay = layout(scene)
    objects = {"agent1": "agent"}
    facts: set[tuple[str, ...]] = {("atlocation", "agent1", lay.start)}
    rtypes = tuple(sorted(lay.by_class))
    for rcls in set(rtypes) | set(_ALWAYS_RTYPES):
        objects[f"{rcls}Type"] = "rtype"
    locations = {lay.start}
    for r in lay.receptacles:
        objects[r.id] = "receptacle"
        locations.add(r.location)
        facts.add(("receptacletype", r.id, f"{r.cls}Type"))
        facts.add(("receptacleatlocation", r.id, r.location))
        if r.cls in voc.OPENABLE:
            facts.add(("openable", r.id))
    classes = set()
    things = [(oid, cls, lay.by_id[rid].location, rid) for oid, cls, rid in lay.decor]
    things += [(oid, cls, loc, None) for oid, cls, loc in lay.fixtures]
    for oid, cls, loc, rid in things:
        objects[oid] = "object"
        locations.add(loc)
        classes.add(cls)
        facts.add(("objecttype", oid, f"{cls}Type"))
        facts.update((p.lower(), oid) for p in voc.OBJECT_PROPERTIES[cls])
        facts.add(("objectatlocation", oid, loc))
        if rid is not None:
            facts.add(("inreceptacle", oid, rid))
    objects.update((loc, "location") for loc in locations)
    return _Static(objects, frozenset(facts), frozenset(classes), rtypes)


# -- building layouts ------------------------------------------------------------------------------


class _Ids:
    """ALFRED-style ids (``Class|+x.xx|+y.yy|+z.zz`` mangled as the data set mangles them), unique."""

    def __init__(self) -> None:
        self.used: set[str] = set()

    def make(self, cls: str, x: float, y: float, z: float, rng: random.Random, suffix: str = "") -> str:
        while True:
            oid = _mangle_id(cls, x, y, z, suffix)
            if oid not in self.used:
                self.used.add(oid)
                return oid
            x += rng.choice((-0.01, 0.01))


def _coord(v: float) -> str:
    """A coordinate as ALFRED writes it in ids: ``+01.25``, ``-00.31``, and ``00.00`` for zero."""
    v = round(v, 2)
    text = "00.00" if v == 0 else f"{v:+06.2f}"
    return text.replace("-", "_minus_").replace("+", "_plus_").replace(".", "_dot_")


def _mangle_id(cls: str, x: float, y: float, z: float, suffix: str = "") -> str:
    # Basins are named after their sink or bathtub with the basin class as a suffix, so that
    # alfworld's Demangler (agents/utils/misc.py:36-37) names them "sinkbasin N", "bathtubbasin N".
    if cls in ("SinkBasin", "BathtubBasin"):
        cls, suffix = cls.removesuffix("Basin"), cls
    parts = [cls, _coord(x), _coord(y), _coord(z)] + ([suffix] if suffix else [])
    return "_bar_".join(parts)


def _location(x: int, z: int, rotation: int, horizon: int) -> str:
    """``loc|x|z|rotation|horizon`` (grid steps, quarter turns, degrees), mangled:
    ``loc_bar__minus_4_bar_12_bar_1_bar_45``."""
    return "_bar_".join(["loc", *(str(v).replace("-", "_minus_") for v in (x, z, rotation, horizon))])


def _horizon(y: float) -> int:
    """The camera pitch (degrees down) the data set's locations use for a receptacle at height ``y``."""
    for top, horizon in ((0.35, 60), (0.85, 45), (1.25, 30), (1.6, 15), (1.85, 0)):
        if y < top:
            return horizon
    return -30


@dataclass
class _Spot:
    """Where a unit of receptacles stands: its centre, the wall it faces and the agent's stand-off."""

    x: float
    z: float
    rotation: int  # the way the agent faces to see it: 0 +z, 1 +x, 2 -z, 3 -x
    distance: int  # grid steps between the agent and the unit
    along: tuple[float, float]  # unit vector along the wall, for rows

    def location(self, x: float, z: float, y: float) -> str:
        gx, gz = round(x / _GRID), round(z / _GRID)
        dx, dz = ((0, 1), (1, 0), (0, -1), (-1, 0))[self.rotation]
        return _location(gx - dx * self.distance, gz - dz * self.distance, self.rotation, _horizon(y))


def _spot(cls: str, half: float, rng: random.Random) -> _Spot:
    distance = rng.randint(2, 4)
    if cls in _FREE_STANDING and rng.random() < 0.5:
        x, z = rng.uniform(-half / 2, half / 2), rng.uniform(-half / 2, half / 2)
        rotation = rng.randrange(4)
    else:
        rotation = rng.randrange(4)
        depth, along = half - 0.3, rng.uniform(-half + 0.4, half - 0.4)
        x, z = ((along, depth), (depth, along), (along, -depth), (-depth, along))[rotation]
    along_vec = ((1.0, 0.0), (0.0, 1.0))[rotation % 2]
    return _Spot(x, z, rotation, distance, along_vec)


def _receptacles(counts: dict[str, int], half: float, rng: random.Random, ids: _Ids) -> list[Receptacle]:
    """Receptacles for ``counts`` (class -> how many), in units: drawer columns, shelf stacks,
    cabinet and burner rows, the rest one by one."""
    out: list[Receptacle] = []
    hosts: list[tuple[_Spot, str]] = []

    def add(cls: str, spot: _Spot, x: float, y: float, z: float) -> None:
        out.append(Receptacle(ids.make(cls, x, y, z, rng), cls, spot.location(x, z, y)))

    for cls in sorted(c for c in counts if c != "Drawer"):
        n = counts[cls]
        low, high = voc.RECEPTACLE_HEIGHTS[cls]
        while n > 0:
            spot = _spot(cls, half, rng)
            ax, az = spot.along
            if cls == "Cabinet":  # a row along the wall, low or high
                k = min(n, rng.randint(2, 4))
                y = rng.uniform(0.3, 0.5) if rng.random() < 0.5 else rng.uniform(1.8, 2.2)
                step = rng.uniform(0.3, 0.6)
                for i in range(k):
                    add(cls, spot, spot.x + ax * step * i, y, spot.z + az * step * i)
                n -= k
            elif cls == "StoveBurner":  # all burners in a grid two deep
                dx, dz = ((0, 1), (1, 0), (0, -1), (-1, 0))[spot.rotation]
                y, step = rng.uniform(low, high), rng.uniform(0.25, 0.35)
                for i in range(n):
                    col, row = divmod(i, 2)
                    add(cls, spot, spot.x + (ax * col + dx * row) * step, y, spot.z + (az * col + dz * row) * step)
                n = 0
            elif cls == "Shelf":  # a stack
                k = min(n, rng.randint(1, 4))
                for i in range(k):
                    add(cls, spot, spot.x, low + (high - low) * (i + 0.5) / k, spot.z)
                n -= k
            else:
                add(cls, spot, spot.x, rng.uniform(low, high), spot.z)
                if cls in _DRAWER_HOSTS:
                    hosts.append((spot, cls))
                n -= 1
    n = counts.get("Drawer", 0)
    while n > 0:  # columns, the first ones inside a dresser, desk, side table or counter
        k = min(n, rng.randint(1, 4))
        if hosts and rng.random() < 0.6:
            spot, _ = hosts.pop(rng.randrange(len(hosts)))
        else:
            spot = _spot("Drawer", half, rng)
        y0, step = rng.uniform(0.05, 0.3), rng.uniform(0.15, 0.25)
        for i in range(k):
            add("Drawer", spot, spot.x, min(y0 + step * i, 1.07), spot.z)
        n -= k
    return out


def _decor(lay: Layout, rng: random.Random, ids: _Ids) -> tuple[tuple[str, str, str], ...]:
    """Lamps, plants, televisions and mirrors standing in receptacles (one of each at most, in a
    receptacle class the data set has them in)."""
    out = []
    for cls, seen, where in voc.ROOM_DECOR[lay.room]:
        if lay.scene not in _decor_scenes(lay.room, cls, seen):
            continue
        options = [c for c in where if c in lay.by_class]
        if not options:
            continue
        host = rng.choice(lay.by_class[rng.choices(options, weights=[where[c] for c in options])[0]])
        out.append((_object_id(cls, host, rng, ids.used), cls, host.id))
    return tuple(out)


@cache
def _decor_scenes(room: str, cls: str, seen: int) -> frozenset[int]:
    """The scenes of ``room`` having a ``cls``: as large a share of its 30 as the data set's
    scenes have (drawn once for the room, so that the share holds exactly: lamps decide where
    light tasks can be)."""
    scenes = list(voc.SCENES[room])
    return frozenset(_rng("decor", room, cls).sample(scenes, round(len(scenes) * seen / voc.SCENES_OBSERVED)))


def _fixtures(
    lay: Layout, counts: dict[str, int], half: float, rng: random.Random, ids: _Ids, taken: set[str]
) -> tuple[tuple[str, str, str], ...]:
    """Objects in no receptacle, each at a location of its own (no receptacle's, not the start)."""
    out = []
    for cls, seen, most in voc.ROOM_FIXTURES[lay.room]:
        if rng.random() >= seen / voc.SCENES_OBSERVED:
            continue
        n = counts.get("StoveBurner", 4) if cls == "StoveKnob" else rng.randint(1, most)
        for _ in range(n):
            spot = _spot(cls, half, rng)
            y = _FIXTURE_HEIGHTS.get(cls, 0.0) + rng.uniform(0.0, 0.1)
            oid = ids.make(cls, spot.x, y, spot.z, rng)
            loc = _free_location(half, rng, taken, horizon=_horizon(y))
            taken.add(loc)
            out.append((oid, cls, loc))
    return tuple(out)


def _free_location(half: float, rng: random.Random, taken: set[str], horizon: int) -> str:
    """A grid location inside the room that no receptacle (nor anything in ``taken``) uses."""
    span = max(1, int(half / _GRID) - 1)
    while True:
        loc = _location(rng.randint(-span, span), rng.randint(-span, span), rng.randrange(4), horizon)
        if loc not in taken:
            return loc


def _object_id(cls: str, host: Receptacle, rng: random.Random, used: set[str]) -> str:
    """An id for an object of ``cls`` lying in ``host``: near its coordinates, a little above."""
    x, y, z = _host_coords(host.id)
    top = y + (rng.uniform(0.4, 0.9) if y < 0.1 else rng.uniform(0.02, 0.3))
    while True:
        oid = _mangle_id(cls, x + rng.uniform(-0.25, 0.25), top, z + rng.uniform(-0.25, 0.25))
        if oid not in used:
            used.add(oid)
            return oid


def _host_coords(rid: str) -> tuple[float, float, float]:
    parts = rid.split("_bar_")[1:4]
    x, y, z = (float(p.replace("_minus_", "-").replace("_plus_", "+").replace("_dot_", ".")) for p in parts)
    return x, y, z
