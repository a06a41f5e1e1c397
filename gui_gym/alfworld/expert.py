"""The built-in expert: what an ALFWorld goal asks for, the next command towards it, and its milestones.

ALFWorld's six task types have goals of two shapes (alfworld/gen/goal_library.py): *place* — one
or two objects of a class, optionally hot / cool / clean, in a receptacle of a class — and *light*
— holding an object of a class at the location of a turned-on lamp of a class. :func:`read_goal`
recognises both from the PDDL goal itself (so it works on real game files too);
:func:`next_command` is a full-knowledge policy that reads the engine's state and returns the
next command of a shortest-in-practice plan; :func:`plan` rolls it out on a copy of the engine.
:func:`milestones` gives the goal's ordered sub-goals with a check on the state each.

Example:
    >>> from gui_gym.alfworld.engine import Engine, World
    >>> engine = Engine(World.from_game("tests/alfworld/fixtures/games/heat_egg_countertop/game.tw-pddl"))
    >>> goal = read_goal(engine.world)
    >>> goal.kind, goal.object_class, goal.state, goal.receptacle_class
    ('place', 'egg', 'ishot', 'countertop')
    >>> plan(engine, goal)[:3]
    ['go to fridge 1', 'open fridge 1', 'take egg 1 from fridge 1']
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from gui_gym.alfworld.engine import Engine, World

__all__ = [
    "Goal",
    "Milestone",
    "goal_of_task_id",
    "milestone_labels",
    "milestones",
    "next_command",
    "plan",
    "read_goal",
]

#: State predicates a goal may ask of the object, and the appliance type that makes each true.
STATES = {"ishot": "microwavetype", "iscool": "fridgetype", "isclean": "sinkbasintype"}
STATE_VERBS = {"ishot": "heat", "iscool": "cool", "isclean": "clean"}
MAX_PLAN = 120  # no ALFWorld plan is near this long; a longer roll-out means the goal is out of reach


@dataclass(frozen=True)
class Goal:
    """What a goal asks, read from its PDDL: ``kind`` ``place`` or ``light``; ``object_type``
    (lower-cased, ``eggtype``), how many distinct objects (``count``), a ``state`` predicate
    (``ishot``/``iscool``/``isclean``) or ``None``, ``sliced``; for place the receptacle type, for
    light the lamp type."""

    kind: str
    object_type: str
    count: int = 1
    state: str | None = None
    sliced: bool = False
    receptacle_type: str | None = None
    lamp_type: str | None = None

    @property
    def object_class(self) -> str:
        return self.object_type.removesuffix("type")

    @property
    def receptacle_class(self) -> str | None:
        return self.receptacle_type.removesuffix("type") if self.receptacle_type else None

    @property
    def lamp_class(self) -> str | None:
        return self.lamp_type.removesuffix("type") if self.lamp_type else None


def _literals(formula: Any) -> Iterator[tuple[str, ...]]:
    """The positive literals of a formula (under and / exists), skipping negations."""
    if not isinstance(formula, tuple) or not formula:
        return
    head = formula[0]
    if head in ("and", "or"):
        for x in formula[1:]:
            yield from _literals(x)
    elif head in ("exists", "forall"):
        yield from _literals(formula[2])
    elif head not in ("not", "=", "imply"):
        yield formula


def read_goal(world: World) -> Goal | None:
    """The :class:`Goal` of a world's PDDL goal, or ``None`` for a goal of another shape."""
    literals = list(_literals(world.goal))
    object_type = {lit[1]: lit[2] for lit in literals if lit[0] == "objecttype" and len(lit) == 3}
    held = [lit[2] for lit in literals if lit[0] == "holds" and len(lit) == 3]
    toggled = [lit[1] for lit in literals if lit[0] == "istoggled" and len(lit) == 2]
    if held and toggled and held[0] in object_type and toggled[0] in object_type:
        return Goal("light", object_type[held[0]], lamp_type=object_type[toggled[0]])
    placed = [lit for lit in literals if lit[0] == "inreceptacle" and len(lit) == 3 and lit[1] in object_type]
    if not placed:
        return None
    objects = sorted({lit[1] for lit in placed})
    receptacle_type = {lit[1]: lit[2] for lit in literals if lit[0] == "receptacletype" and len(lit) == 3}
    rtype = receptacle_type.get(placed[0][2])
    otypes = {object_type[o] for o in objects}
    if rtype is None or len(otypes) != 1:
        return None
    first = objects[0]
    state = next((lit[0] for lit in literals if lit[0] in STATES and lit[1] == first), None)
    sliced = any(lit[0] == "issliced" and lit[1] == first for lit in literals)
    return Goal("place", otypes.pop(), count=len(objects), state=state, sliced=sliced, receptacle_type=rtype)


# -- the policy ------------------------------------------------------------------------------


class _View:
    """Read-only helpers over an engine's state for the policy."""

    def __init__(self, engine: Engine, goal: Goal) -> None:
        self.e, self.w, self.goal = engine, engine.world, goal
        self.here = engine.location()
        self.held = engine.held()

    def of_type(self, otype: str) -> list[str]:
        return sorted(o for o, ts in self.w.object_types.items() if otype in ts)

    def receptacles_of_type(self, rtype: str) -> list[str]:
        return sorted(r for r, ts in self.w.receptacle_types.items() if rtype in ts)

    def is_here(self, r: str) -> bool:
        return self.here in self.w.receptacle_locations.get(r, ())

    def reachable(self, r: str) -> bool:
        return not self.w.is_("openable", r) or self.e.is_open(r)

    def ok(self, o: str) -> bool:
        """Whether an object is in the state the goal asks."""
        g = self.goal
        return (g.state is None or self.e.has(g.state, o)) and (not g.sliced or self.e.has("issliced", o))

    def go(self, r: str) -> str:
        return f"go to {self.w.names[r]}"

    def reach(self, r: str) -> str | None:
        """The next command to stand at ``r`` with it open, or ``None`` if that is so already."""
        if not self.is_here(r):
            return self.go(r)
        if not self.reachable(r):
            return f"open {self.w.names[r]}"
        return None

    def cost(self, r: str) -> int:
        return (0 if self.is_here(r) else 1) + (0 if self.reachable(r) else 1)


def next_command(engine: Engine, goal: Goal) -> str | None:
    """The expert's next command from the engine's current state (``None`` once the goal holds or
    when it cannot be reached). Always an admissible command."""
    if engine.won():
        return None
    v = _View(engine, goal)
    command = _light(v) if goal.kind == "light" else _place(v)
    return command if command in engine.admissible else None


def _put_away(v: _View) -> str | None:
    """Put down what is held (anywhere it fits, here first)."""
    n, held = v.w.names, v.held
    assert held is not None
    otypes = v.w.object_types.get(held, frozenset())
    cancontain = v.w.static.get("cancontain", frozenset())
    fits = [
        r
        for r in sorted(v.w.receptacle_locations)
        if any((rt, ot) in cancontain for rt in v.w.receptacle_types.get(r, ()) for ot in otypes)
    ]
    if not fits:
        return None
    r = min(fits, key=lambda r: (v.cost(r), n[r]))
    return v.reach(r) or v.w.grammar.put_template.format(o=n[held], r=n[r])


def _fetch(v: _View, candidates: list[str]) -> str | None:
    """Go to, open, and take the cheapest of ``candidates`` (objects lying in receptacles)."""
    n = v.w.names
    options = [(o, r) for o in candidates for r in v.e.receptacles_of(o) if v.w.is_("pickupable", o)]
    if not options:
        return None
    o, r = min(options, key=lambda p: (v.cost(p[1]) + (0 if v.ok(p[0]) else 2), n[p[0]], n[p[1]]))
    return v.reach(r) or f"take {n[o]} from {n[r]}"


def _place(v: _View) -> str | None:
    g, n = v.goal, v.w.names
    assert g.receptacle_type is not None
    targets = v.receptacles_of_type(g.receptacle_type)
    objects = v.of_type(g.object_type)
    if not targets:
        return None

    def placed(r: str) -> list[str]:
        return [o for o in v.e.contents(r) if o in objects and v.ok(o)]

    target = min(targets, key=lambda r: (-min(len(placed(r)), g.count), v.cost(r), n[r]))
    if v.held is not None:
        if v.held not in objects:
            return _put_away(v)
        if g.state is not None and not v.e.has(g.state, v.held):
            appliances = v.receptacles_of_type(STATES[g.state])
            if not appliances:
                return None
            a = min(appliances, key=lambda r: (v.cost(r), n[r]))
            return (v.go(a) if not v.is_here(a) else None) or f"{STATE_VERBS[g.state]} {n[v.held]} with {n[a]}"
        return v.reach(target) or v.w.grammar.put_template.format(o=n[v.held], r=n[target])
    done = set(placed(target))
    return _fetch(v, [o for o in objects if o not in done])


def _light(v: _View) -> str | None:
    g, n = v.goal, v.w.names
    assert g.lamp_type is not None
    objects = v.of_type(g.object_type)
    lamps = [(lamp, r) for lamp in v.of_type(g.lamp_type) for r in v.e.receptacles_of(lamp)]
    if not lamps:
        return None
    if v.held is not None and v.held not in objects:
        return _put_away(v)
    if v.held is None:
        return _fetch(v, objects)
    lamp, r = min(lamps, key=lambda p: (0 if v.is_here(p[1]) else 1, n[p[0]]))
    if not v.is_here(r):
        return v.go(r)
    return f"use {n[lamp]}"


def plan(engine: Engine, goal: Goal | None = None) -> list[str]:
    """The expert's commands from the engine's current state to the goal, played on a copy
    (``[]`` if the goal holds; raises ``ValueError`` when the goal cannot be reached)."""
    goal = goal or read_goal(engine.world)
    if goal is None:
        raise ValueError("the expert does not know this goal's shape (neither place nor light)")
    sim = copy.copy(engine)
    sim.facts = {p: set(fs) for p, fs in engine.facts.items()}
    sim._not_in = set(engine._not_in)
    commands: list[str] = []
    while not sim.won():
        command = next_command(sim, goal)
        if command is None or len(commands) >= MAX_PLAN:
            raise ValueError(f"the expert cannot reach the goal (stuck after {commands[-5:]})")
        sim.step(command)
        commands.append(command)
    return commands


# -- milestones ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Milestone:
    """A sub-goal: its label and a check on the engine's state."""

    label: str
    reached: Callable[[Engine], bool]


def milestone_labels(goal: Goal) -> list[str]:
    """The labels of a goal's milestones (what :func:`milestones` checks), without a world.

    >>> milestone_labels(Goal("place", "eggtype", state="ishot", receptacle_type="countertoptype"))
    ['Find the egg', 'Take the egg', 'Heat the egg', 'Put the egg in/on the countertop']
    """
    obj, recep = goal.object_class, goal.receptacle_class
    labels = [f"Find the {obj}", f"Take the {obj}"]
    if goal.kind == "light":
        return [*labels, f"Turn on the {goal.lamp_class} holding the {obj}"]
    if goal.state is not None:
        labels.append(f"{STATE_VERBS[goal.state].capitalize()} the {obj}")
    if goal.count == 1:
        return [*labels, f"Put the {obj} in/on the {recep}"]
    return [
        *labels,
        f"Put a {obj} in/on the {recep}",
        f"Take a second {obj}",
        f"Put the second {obj} in/on the {recep}",
    ]


def goal_of_task_id(task_id: str) -> Goal | None:
    """The :class:`Goal` a data-set-shaped task id names (``<type>-<Object>-<Mrecep>-<Parent>-<scene>/…``).

    >>> goal = goal_of_task_id("pick_two_obj_and_place-CreditCard-None-ArmChair-222/trial_T2019")
    >>> goal.object_class, goal.count, goal.receptacle_class
    ('creditcard', 2, 'armchair')
    """
    parts = task_id.split("/", 1)[0].split("-")
    if len(parts) != 5:
        return None
    task_type, obj, _, parent, _ = parts
    otype, rtype = f"{obj.lower()}type", f"{parent.lower()}type"
    if task_type == "look_at_obj_in_light":
        return Goal("light", otype, lamp_type=rtype)
    states = {"pick_clean_then_place_in_recep": "isclean", "pick_heat_then_place_in_recep": "ishot",
              "pick_cool_then_place_in_recep": "iscool"}  # fmt: skip
    if task_type == "pick_two_obj_and_place":
        return Goal("place", otype, count=2, receptacle_type=rtype)
    if task_type in states or task_type == "pick_and_place_simple":
        return Goal("place", otype, state=states.get(task_type), receptacle_type=rtype)
    return None


def milestones(world: World, goal: Goal) -> list[Milestone]:
    """The goal's ordered sub-goals (found, took, heated/cooled/cleaned, turned on, placed)."""
    obj = goal.object_class
    objects = frozenset(o for o, ts in world.object_types.items() if goal.object_type in ts)

    def seen(e: Engine) -> bool:
        here = e.location()
        if e.held() in objects:
            return True
        for r in world.location_receptacles.get(here, ()) if here else ():
            if (not world.is_("openable", r) or e.is_open(r)) and any(o in objects for o in e.contents(r)):
                return True
        return False

    def holding(e: Engine) -> bool:
        return e.held() in objects

    out = [Milestone(f"Find the {obj}", seen), Milestone(f"Take the {obj}", holding)]
    if goal.kind == "light":
        lamp = goal.lamp_class
        out.append(Milestone(f"Turn on the {lamp} holding the {obj}", lambda e: e.won()))
        return out
    state = goal.state
    if state is not None:
        verb = STATE_VERBS[state].capitalize()
        out.append(Milestone(f"{verb} the {obj}", lambda e: any(e.has(state, o) for o in objects)))
    recep = goal.receptacle_class
    rtype = goal.receptacle_type

    def placed(e: Engine) -> int:
        per = {}
        for o, r in e.facts["inreceptacle"]:
            if o in objects and rtype in world.receptacle_types.get(r, ()) and (state is None or e.has(state, o)):
                per[r] = per.get(r, 0) + 1
        return max(per.values(), default=0)

    if goal.count == 1:
        out.append(Milestone(f"Put the {obj} in/on the {recep}", lambda e: e.won()))
    else:
        out.append(Milestone(f"Put a {obj} in/on the {recep}", lambda e: placed(e) >= 1))
        out.append(Milestone(f"Take a second {obj}", lambda e: placed(e) >= 1 and holding(e)))
        out.append(Milestone(f"Put the second {obj} in/on the {recep}", lambda e: e.won()))
    return out
