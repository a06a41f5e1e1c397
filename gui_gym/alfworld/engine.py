"""The embedded ALFWorld engine: a pure-Python interpreter of ALFWorld's PDDL world and its text.

ALFWorld's text game is TextWorld's PDDL environment (``textworld/envs/pddl/pddl.py``) running the
domain ``alfred.pddl`` and the grammar ``alfred.twl2`` of alfworld 0.4.2. Its behaviour is fully
determined by those two files, TextWorld's list formatting and alfworld's names, and this module
reproduces it: the same observation text, the same sorted admissible commands, the same ``won``,
quirks included. It reads no upstream file at run time; the facts it follows are cited where used.

The state is a set of facts per predicate, as in TextWorld's ``PddlState``: ``inreceptacle``,
``objectatlocation``, ``opened``, ``holds``, ``ishot`` … with lower-cased ids. Like TextWorld, an
action's delete effects leave an explicit negative fact behind (``PddlState.apply`` adds
``not_inreceptacle(o, r)`` when an object leaves a receptacle), which the grammar's ``look`` reads
(alfred.twl2:352).

Commands (the current grammar; alfred.twl2:175-437, preconditions from alfred.pddl):

=====================================  ==============================================================
``go to R``                            R at another location (alfred.pddl GotoLocation)
``open R`` / ``close R``               R openable, here, closed / open
``take O from R``                      O in R here, R open or not openable, hands empty, O pickupable
``move O to R``                        holding O, R here and open or not openable, R's type can
                                       contain O's type (legacy: ``put O in/on R``)
``examine R`` / ``examine O``          R here / holding O
``use O``                              O toggleable, in a receptacle here (open or not)
``heat/cool/clean O with R``           holding O that is heatable/coolable/cleanable, R here is a
                                       microwave / fridge / sink basin (open or not)
``slice O with K``                     O sliceable and at this location, holding a knife or butter knife
``look``, ``inventory``, ``help``      always (``help`` only in the current grammar)
=====================================  ==============================================================

Anything else — a typo, a wrong number, a command that does not apply now — gets
``Nothing happens.`` and changes nothing (pddl.py:160-162); a command is stripped first (pddl.py:136).

Example:
    >>> from gui_gym.alfworld.pddl import parse_problem
    >>> problem = parse_problem('''(define (problem p) (:domain alfred)
    ...  (:objects agent1 - agent Egg_bar_1 - object Fridge_bar_1 - receptacle
    ...            EggType - otype FridgeType - rtype loc_bar_0 loc_bar_1 - location)
    ...  (:init (atLocation agent1 loc_bar_0) (receptacleAtLocation Fridge_bar_1 loc_bar_1)
    ...         (receptacleType Fridge_bar_1 FridgeType) (objectType Egg_bar_1 EggType)
    ...         (openable Fridge_bar_1) (inReceptacle Egg_bar_1 Fridge_bar_1)
    ...         (objectAtLocation Egg_bar_1 loc_bar_1) (pickupable Egg_bar_1) (coolable Egg_bar_1))
    ...  (:goal (exists (?o - object) (and (objectType ?o EggType) (isCool ?o)))))''')
    >>> engine = Engine(World.from_problem(problem, Grammar.current("cool some egg")))
    >>> print(engine.reset().text)
    -= Welcome to TextWorld, ALFRED! =-
    <BLANKLINE>
    You are in the middle of a room. Looking quickly around you, you see a fridge 1.
    <BLANKLINE>
    Your task is to: cool some egg.
    >>> engine.step("go to fridge 1").text
    'You arrive at fridge 1. The fridge 1 is closed.'
    >>> engine.step("open fridge 1").text
    'You open the fridge 1. The fridge 1 is open. In it, you see a egg 1.'
    >>> _ = engine.step("take egg 1 from fridge 1")
    >>> obs = engine.step("cool egg 1 with fridge 1")
    >>> obs.text, obs.won
    ('You cool the egg 1 using the fridge 1.', True)
    >>> obs.admissible  # no (canContain FridgeType EggType) here, so no "move egg 1 to fridge 1"
    ['close fridge 1', 'cool egg 1 with fridge 1', 'examine egg 1', 'examine fridge 1', 'help', 'inventory', 'look']
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from gui_gym.alfworld.backends.base import Observation
from gui_gym.alfworld.grammar import Grammar, read_grammar
from gui_gym.alfworld.names import demangle
from gui_gym.alfworld.pddl import GameFile, Problem, read_game

__all__ = ["NOTHING_HAPPENS", "Action", "Engine", "EngineBackend", "World", "format_list"]

NOTHING_HAPPENS = "Nothing happens."
WELCOME = "-= Welcome to TextWorld, ALFRED! =-"  # alfred.twl2:5
HELP = (  # alfred.twl2:432; TextWorld's text drops the rule's leading newline
    "Available commands:\n"
    "  look:                             look around your current location\n"
    "  inventory:                        check your current inventory\n"
    "  go to (receptacle):               move to a receptacle\n"
    "  open (receptacle):                open a receptacle\n"
    "  close (receptacle):               close a receptacle\n"
    "  take (object) from (receptacle):  take an object from a receptacle\n"
    "  move (object) to (receptacle):  place an object in or on a receptacle\n"
    "  examine (something):              examine a receptacle or an object\n"
    "  use (object):                     use an object\n"
    "  heat (object) with (receptacle):  heat an object using a receptacle\n"
    "  clean (object) with (receptacle): clean an object using a receptacle\n"
    "  cool (object) with (receptacle):  cool an object using a receptacle\n"
    "  slice (object) with (object):     slice an object using a sharp object\n"
)

# Receptacle and object types the domain's actions name (alfred.pddl CleanObject, HeatObject,
# CoolObject, SliceObject), lower-cased as fast-downward reads them.
SINK_BASIN, MICROWAVE, FRIDGE = "sinkbasintype", "microwavetype", "fridgetype"
BLADES = frozenset({"knifetype", "butterknifetype"})

#: Predicates that actions change; every other predicate is static for a game.
DYNAMIC = (
    "atlocation", "objectatlocation", "opened", "inreceptacle", "holds", "holdsany", "isclean",
    "ishot", "iscool", "ison", "istoggled", "issliced",
)  # fmt: skip

#: The predicates each verb's effects change (alfred.pddl), so that the goal is re-evaluated only
#: after an action that can change it.
EFFECTS: dict[str, frozenset[str]] = {
    "goto": frozenset({"atlocation"}),
    "open": frozenset({"opened"}),
    "close": frozenset({"opened"}),
    "take": frozenset({"inreceptacle", "objectatlocation", "holds", "holdsany"}),
    "put": frozenset({"inreceptacle", "objectatlocation", "holds", "holdsany"}),
    "use": frozenset({"ison", "istoggled"}),
    "heat": frozenset({"ishot", "iscool"}),
    "cool": frozenset({"ishot", "iscool"}),
    "clean": frozenset({"isclean"}),
    "slice": frozenset({"issliced"}),
    "look": frozenset(),
    "inventory": frozenset(),
    "help": frozenset(),
    "examine": frozenset(),
}

#: An admissible action: its verb and its arguments (ids), e.g. ``("take", "egg_bar_1", "fridge_bar_1")``.
Action = tuple[str, ...]


def format_list(items: list[str]) -> str:
    """A list as TextWorld's grammar writes it (alfred.twl2:405-419, textgen ``display_list``):
    ``nothing``, ``a X``, ``a X, and a Y``, ``a X, a Y, and a Z`` — a comma before ``and`` even for two.

    >>> format_list([]), format_list(["a egg 1"]), format_list(["a egg 1", "a mug 2"])
    ('nothing', 'a egg 1', 'a egg 1, and a mug 2')
    """
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + ", and " + items[-1]


@dataclass(frozen=True, eq=False)
class World:
    """One game, compiled: its entities, names, static facts, initial facts, goal and grammar.

    Immutable and shared by every :class:`Engine` that plays it; ids are lower-cased.
    """

    types: Mapping[str, str]  # id -> declared type (object, receptacle, location, agent, otype, rtype)
    names: Mapping[str, str]  # id -> display name
    static: Mapping[str, frozenset[tuple[str, ...]]]  # predicate -> facts no action changes
    initial: Mapping[str, frozenset[tuple[str, ...]]]  # predicate -> initial facts of DYNAMIC predicates
    goal: tuple[Any, ...]
    grammar: Grammar
    agent: str
    # indexes of static facts
    receptacle_locations: Mapping[str, tuple[str, ...]]  # receptacle -> its locations
    location_receptacles: Mapping[str, tuple[str, ...]]  # location -> receptacles there (sorted)
    receptacle_types: Mapping[str, frozenset[str]]
    object_types: Mapping[str, frozenset[str]]
    name: str = ""

    def __post_init__(self) -> None:
        # Unary static facts as sets of ids, and the commands that only depend on static facts,
        # so that listing the admissible commands is set lookups and no string formatting.
        unary = {p: frozenset(f[0] for f in fs if len(f) == 1) for p, fs in self.static.items()}
        object.__setattr__(self, "unary", unary)
        n = self.names
        goto: dict[str, list[tuple[str, Action]]] = {}
        for loc in self.location_receptacles:
            goto[loc] = [
                (f"go to {n[r]}", ("goto", other, r))
                for other, rs in self.location_receptacles.items()
                if other != loc
                for r in rs
            ]
        object.__setattr__(self, "goto_from", goto)
        object.__setattr__(
            self,
            "goto_anywhere",
            [(f"go to {n[r]}", ("goto", loc, r)) for loc, rs in self.location_receptacles.items() for r in rs],
        )
        object.__setattr__(self, "goal_normal", _normalize(self.goal))
        object.__setattr__(self, "goal_predicates", frozenset(_predicates(self.goal)))
        index: dict[tuple[str, int, str], list[tuple[str, ...]]] = defaultdict(list)
        for pred, facts in self.static.items():
            for fact in facts:
                for pos, value in enumerate(fact):
                    index[(pred, pos, value)].append(fact)
        object.__setattr__(self, "static_index", dict(index))

    def is_(self, predicate: str, entity: str) -> bool:
        """Whether a unary static fact holds (``openable``, ``pickupable``, ``heatable`` …)."""
        return entity in self.unary.get(predicate, ())  # type: ignore[attr-defined]

    @classmethod
    def from_problem(cls, problem: Problem, grammar: Grammar, *, rng: random.Random | None = None) -> World:
        """Compile a parsed PDDL problem. ``rng`` shuffles the numbering of names (alfworld's
        training-time ``domain_randomization``); without it names are numbered as in evaluation."""
        types = {k.lower(): v.lower() for k, v in problem.objects.items()}
        facts: dict[str, set[tuple[str, ...]]] = defaultdict(set)
        for fact in problem.init:
            facts[fact[0]].add(tuple(a.lower() for a in fact[1:]))
        # TextWorld names the entities that occur in facts (pddl.py:41-49 via misc.py Demangler).
        names = demangle({a for fs in facts.values() for f in fs for a in f}, rng)
        agents = sorted(a for a, t in types.items() if t == "agent")
        agent = agents[0] if agents else "agent1"
        by_receptacle: dict[str, list[str]] = defaultdict(list)
        by_location: dict[str, list[str]] = defaultdict(list)
        for r, loc in sorted(facts.get("receptacleatlocation", ())):
            by_receptacle[r].append(loc)
            by_location[loc].append(r)
        rtypes: dict[str, set[str]] = defaultdict(set)
        for r, t in facts.get("receptacletype", ()):
            rtypes[r].add(t)
        otypes: dict[str, set[str]] = defaultdict(set)
        for o, t in facts.get("objecttype", ()):
            otypes[o].add(t)
        return cls(
            types=types,
            names=names,
            static={p: frozenset(fs) for p, fs in facts.items() if p not in DYNAMIC},
            initial={p: frozenset(facts.get(p, ())) for p in DYNAMIC},
            goal=_lower_formula(problem.goal),
            grammar=grammar,
            agent=agent,
            receptacle_locations={r: tuple(ls) for r, ls in by_receptacle.items()},
            location_receptacles={loc: tuple(rs) for loc, rs in by_location.items()},
            receptacle_types={r: frozenset(ts) for r, ts in rtypes.items()},
            object_types={o: frozenset(ts) for o, ts in otypes.items()},
            name=problem.name,
        )

    @classmethod
    def from_game(cls, game: GameFile | str, *, rng: random.Random | None = None) -> World:
        """Compile a ``game.tw-pddl`` (a path or a :class:`~gui_gym.alfworld.pddl.GameFile`)."""
        game = read_game(game) if isinstance(game, str) else game
        return cls.from_problem(game.problem, read_grammar(game.grammar, game.domain), rng=rng)

    def has(self, predicate: str, *args: str) -> bool:
        """Whether a static fact holds."""
        return args in self.static.get(predicate, ())

    def of_type(self, declared: str) -> list[str]:
        """The ids of a declared type, sorted."""
        return sorted(k for k, v in self.types.items() if v == declared)


class Engine:
    """Plays one :class:`World`: :meth:`reset`, then :meth:`step` commands (see the module doc).

    ``admissible`` and ``won`` describe the current state; :attr:`facts` is the state itself
    (read it, do not change it).
    """

    def __init__(self, world: World) -> None:
        self.world = world
        self.facts: dict[str, set[tuple[str, ...]]] = {}
        self._not_in: set[tuple[str, str]] = set()  # explicit not_inreceptacle facts
        self._actions: dict[str, Action] = {}
        self._won = False
        self.reset()

    # -- the game ---------------------------------------------------------------------------
    def reset(self) -> Observation:
        """The start of the game: TextWorld's intro text (alfred.twl2:5)."""
        w = self.world
        self.facts = {p: set(fs) for p, fs in w.initial.items()}
        self._not_in = set()
        self._actions = self._applicable()
        self._won = _holds(w.goal_normal, self, {})  # type: ignore[attr-defined]
        text = f"{WELCOME}\n\n{self._look(bound=False)}\n\n{w.grammar.task}"
        return Observation(text, sorted(self._actions), self._won)

    def step(self, command: str) -> Observation:
        """Play ``command``; one that is not admissible now changes nothing (``Nothing happens.``)."""
        action = self._actions.get(command.strip()) if isinstance(command, str) else None
        text = NOTHING_HAPPENS if action is None else self._apply(action)
        if action is not None:
            self._actions = self._applicable()
            # The goal can only change when the action changes a predicate it mentions.
            if EFFECTS[action[0]] & self.world.goal_predicates:  # type: ignore[attr-defined]
                self._won = _holds(self.world.goal_normal, self, {})  # type: ignore[attr-defined]
        return Observation(text, sorted(self._actions), self._won)

    @property
    def admissible(self) -> list[str]:
        """The admissible commands now, sorted (TextWorld's ``sorted(set(...))``, pddl.py:102)."""
        return sorted(self._actions)

    def action(self, command: str) -> Action | None:
        """The action an admissible command stands for, else ``None``."""
        return self._actions.get(command.strip())

    def won(self) -> bool:
        """Whether the goal holds."""
        return self._won

    # -- state queries (the expert and the env read these) ----------------------------------
    def location(self) -> str | None:
        """The agent's location id."""
        at = sorted(loc for a, loc in self.facts["atlocation"] if a == self.world.agent)
        return at[0] if at else None

    def held(self) -> str | None:
        """The id of the object the agent holds, if any."""
        held = sorted(o for a, o in self.facts["holds"] if a == self.world.agent)
        return held[0] if held else None

    def contents(self, receptacle: str) -> list[str]:
        """The objects in a receptacle, sorted by id."""
        return sorted(o for o, r in self.facts["inreceptacle"] if r == receptacle)

    def receptacles_of(self, obj: str) -> list[str]:
        """The receptacles an object is in, sorted."""
        return sorted(r for o, r in self.facts["inreceptacle"] if o == obj)

    def is_open(self, receptacle: str) -> bool:
        return (receptacle,) in self.facts["opened"]

    def has(self, predicate: str, *args: str) -> bool:
        """Whether a fact (static or dynamic) holds now."""
        facts = self.facts.get(predicate)
        return args in (facts if facts is not None else self.world.static.get(predicate, ()))

    def command(self, action: Action) -> str:
        """The text of an action in this game's grammar."""
        n = self.world.names
        verb, *args = action
        if verb in ("look", "inventory", "help"):
            return verb
        if verb == "goto":
            return f"go to {n[args[1]]}"
        if verb in ("open", "close", "examine"):
            return f"{verb} {n[args[0]]}"
        if verb == "use":
            return f"use {n[args[0]]}"
        if verb == "take":
            return f"take {n[args[0]]} from {n[args[1]]}"
        if verb == "put":
            return self.world.grammar.put_template.format(o=n[args[0]], r=n[args[1]])
        return f"{verb} {n[args[0]]} with {n[args[1]]}"  # heat, cool, clean, slice

    # -- applicable actions (alfred.pddl's preconditions) -----------------------------------
    def _applicable(self) -> dict[str, Action]:
        w, f, n = self.world, self.facts, self.world.names
        is_ = w.is_
        here = self.location()
        held = self.held()
        actions: dict[str, Action] = {"look": ("look",), "inventory": ("inventory",)}
        if w.grammar.help:
            actions["help"] = ("help",)
        if here is None:
            return actions
        # GotoLocation: every receptacle at another location (the own location is never offered).
        actions.update(w.goto_from.get(here, w.goto_anywhere))  # type: ignore[attr-defined]
        local = w.location_receptacles.get(here, ())
        opened = f["opened"]
        reachable = set()
        for r in local:
            actions[f"examine {n[r]}"] = ("examine", r)
            if is_("openable", r):
                if (r,) in opened:
                    actions[f"close {n[r]}"] = ("close", r)
                    reachable.add(r)
                else:
                    actions[f"open {n[r]}"] = ("open", r)
            else:
                reachable.add(r)
        if local:
            hands_free = (w.agent,) not in f["holdsany"]
            for o, r in f["inreceptacle"]:
                if r in local:
                    if hands_free and r in reachable and is_("pickupable", o):
                        actions[f"take {n[o]} from {n[r]}"] = ("take", o, r)
                    if is_("toggleable", o):
                        actions.setdefault(f"use {n[o]}", ("use", o))
        if held is not None:
            actions[f"examine {n[held]}"] = ("examine", held)
            otypes = w.object_types.get(held, frozenset())
            cancontain = w.static.get("cancontain", frozenset())
            put = w.grammar.put_template
            for r in local:
                rtypes = w.receptacle_types.get(r, frozenset())
                if r in reachable and any((rt, ot) in cancontain for rt in rtypes for ot in otypes):
                    actions[put.format(o=n[held], r=n[r])] = ("put", held, r)
                if SINK_BASIN in rtypes and is_("cleanable", held):
                    actions[f"clean {n[held]} with {n[r]}"] = ("clean", held, r)
                if MICROWAVE in rtypes and is_("heatable", held):
                    actions[f"heat {n[held]} with {n[r]}"] = ("heat", held, r)
                if FRIDGE in rtypes and is_("coolable", held):
                    actions[f"cool {n[held]} with {n[r]}"] = ("cool", held, r)
            if otypes & BLADES:
                for o, loc in f["objectatlocation"]:
                    if loc == here and is_("sliceable", o):
                        actions[f"slice {n[o]} with {n[held]}"] = ("slice", o, held)
        return actions

    # -- effects and feedback (alfred.pddl's effects, alfred.twl2's feedback) ---------------
    def _apply(self, action: Action) -> str:
        w, f, n = self.world, self.facts, self.world.names
        verb, *args = action
        agent, here = w.agent, self.location()
        if verb == "look":
            return self._look(bound=True)
        if verb == "inventory":
            return self._inventory()
        if verb == "help":
            return HELP
        if verb == "goto":
            loc, r = args
            f["atlocation"] = {(a, x) for a, x in f["atlocation"] if a != agent} | {(agent, loc)}
            where = n[loc] if w.grammar.arrive_at_location else n[r]
            return f"You arrive at {where}. {self._examine_receptacle(r)}"
        if verb == "open":
            f["opened"].add((args[0],))
            return f"You open the {n[args[0]]}. {self._examine_receptacle(args[0])}"
        if verb == "close":
            f["opened"].discard((args[0],))
            return f"You close the {n[args[0]]}."
        if verb == "examine":
            thing = args[0]
            return self._examine_object(thing) if w.types.get(thing) == "object" else self._examine_receptacle(thing)
        if verb == "take":
            o, r = args
            f["inreceptacle"].discard((o, r))
            self._not_in.add((o, r))
            f["objectatlocation"].discard((o, here))
            f["holds"].add((agent, o))
            f["holdsany"].add((agent,))
            return f"You pick up the {n[o]} from the {n[r]}."
        if verb == "put":
            o, r = args
            f["inreceptacle"].add((o, r))
            self._not_in.discard((o, r))
            f["objectatlocation"].add((o, here))
            f["holds"].discard((agent, o))
            f["holdsany"].discard((agent,))
            if w.grammar.put_template == "move {o} to {r}":
                return f"You move the {n[o]} to the {n[r]}."
            return f"You put the {n[o]} in/on the {n[r]}."
        if verb == "use":
            o = args[0]
            f["ison"] ^= {(o,)}
            f["istoggled"].add((o,))
            return f"You turn on the {n[o]}."  # isToggled is never undone (alfred.twl2:253-258)
        if verb == "heat":
            f["ishot"].add((args[0],))
            f["iscool"].discard((args[0],))
            return f"You heat the {n[args[0]]} using the {n[args[1]]}."
        if verb == "cool":
            f["iscool"].add((args[0],))
            f["ishot"].discard((args[0],))
            return f"You cool the {n[args[0]]} using the {n[args[1]]}."
        if verb == "clean":
            f["isclean"].add((args[0],))
            return f"You clean the {n[args[0]]} using the {n[args[1]]}."
        if verb == "slice":
            f["issliced"].add((args[0],))
            return f"You sliced the {n[args[0]]} with the {n[args[1]]}."
        raise AssertionError(f"unknown action {action!r}")

    def _items(self, ids: Iterable[str]) -> str:
        n = self.world.names
        return format_list([f"a {n[i]}" for i in sorted(ids)])

    def _examine_receptacle(self, r: str) -> str:
        # alfred.twl2:97-109
        name = self.world.names[r]
        inside = (o for o, x in self.facts["inreceptacle"] if x == r)
        if self.world.has("openable", r):
            if (r,) in self.facts["opened"]:
                return f"The {name} is open. In it, you see {self._items(inside)}."
            return f"The {name} is closed."
        return f"On the {name}, you see {self._items(inside)}."

    def _examine_object(self, o: str) -> str:
        # alfred.twl2:111-171: the first rule whose condition holds
        w, name = self.world, self.world.names[o]
        if w.has("isreceptacleobject", o):
            inner = (a for a, b in w.static.get("inreceptacleobject", ()) if b == o)
            return f"This is a normal {name}. In it, you see {self._items(inner)}."
        clean, hot, cool = self.has("isclean", o), self.has("ishot", o), self.has("iscool", o)
        sliced = self.has("issliced", o)
        if sliced:
            if clean and hot:
                return f"This is a hot and clean sliced {name}."
            if clean and cool:
                return f"This is a cool and clean sliced {name}."
            if clean:
                return f"This is a clean sliced {name}."
            if hot:
                return f"This is a hot sliced {name}."
            if cool:
                return f"This is a cool sliced {name}."
        if clean and hot:
            return f"This is a hot and clean {name}."
        if clean and cool:
            return f"This is a cool and clean {name}."
        if hot:
            return f"This is a hot {name}."
        if clean:
            return f"This is a clean {name}."
        if cool:
            return f"This is a cold {name}."
        if w.has("toggleable", o) and self.has("istoggled", o):
            return f"This {name} is on."
        if w.has("sliceable", o) and sliced:
            return f"This is a sliced {name}."
        return f"There's nothing special about {name}."

    def _inventory(self) -> str:
        # alfred.twl2:87-95
        agent = self.world.agent
        if (agent,) not in self.facts["holdsany"]:
            return "You are not carrying anything."
        return f"You are carrying: {self._items(o for a, o in self.facts['holds'] if a == agent)}."

    def _look(self, *, bound: bool) -> str:
        """alfred.twl2:334-368. ``bound``: the agent's location is bound (the ``look`` action); at
        the intro nothing is bound, so the list of "appliances" runs over every receptacle."""
        w, n = self.world, self.world.names
        here = self.location()
        local = w.location_receptacles.get(here, ()) if here is not None else ()
        if local:
            facing = format_list([n[r] for r in local])
            floor = [
                f"a {n[o]}"
                for o in sorted(o for o, loc in self.facts["objectatlocation"] if loc == here)
                for r in local
                if (o, r) in self._not_in
            ]
            return f"You are facing the {facing}. Next to it, you see {format_list(floor)}."
        if bound:
            appliances = "nothing"
        else:
            pairs = sorted(w.static.get("receptacleatlocation", ()))
            appliances = format_list([f"a {n[r]}" for r, _ in pairs])
        return f"You are in the middle of a room. Looking quickly around you, you see {appliances}."


class EngineBackend:
    """The embedded engine behind the :class:`~gui_gym.alfworld.backends.base.Backend` protocol.

    ``shuffle_names`` numbers the entities in a random order at every load (alfworld's
    training-time domain randomization), drawn from ``seed``.
    """

    def __init__(self, shuffle_names: bool = False, seed: int | None = None) -> None:
        self.shuffle_names = shuffle_names
        self._rng = random.Random(seed)
        self.engine: Engine | None = None

    def load(self, game_file: str) -> None:
        rng = self._rng if self.shuffle_names else None
        self.engine = Engine(World.from_game(game_file, rng=rng))

    def reset(self) -> Observation:
        if self.engine is None:
            raise RuntimeError("load(game_file) before reset()")
        return self.engine.reset()

    def step(self, command: str) -> Observation:
        if self.engine is None:
            raise RuntimeError("load(game_file) and reset() before step()")
        return self.engine.step(command)

    def close(self) -> None:
        self.engine = None


# -- the goal: a PDDL formula over the facts -------------------------------------------------


def _lower_formula(formula: Any) -> Any:
    if isinstance(formula, dict):
        return {k.lower(): v.lower() for k, v in formula.items()}
    if isinstance(formula, tuple):
        return tuple(_lower_formula(x) for x in formula)
    return formula.lower() if isinstance(formula, str) else formula


def _predicates(formula: Any) -> set[str]:
    """The predicates a formula mentions."""
    if not isinstance(formula, tuple) or not formula:
        return set()
    head = formula[0]
    if head in ("exists", "forall"):
        return _predicates(formula[2])
    if head in _CONNECTIVES:
        return set().union(*(_predicates(x) for x in formula[1:]))
    return {head}


def _facts(engine: Engine, predicate: str) -> Iterable[tuple[str, ...]]:
    facts = engine.facts.get(predicate)
    return facts if facts is not None else engine.world.static.get(predicate, ())


def _value(term: str, binding: Mapping[str, str]) -> str:
    return binding.get(term, term) if term.startswith("?") else term


def _holds(formula: tuple[Any, ...], engine: Engine, binding: dict[str, str]) -> bool:
    head = formula[0]
    if head == "and":
        return all(_holds(x, engine, binding) for x in formula[1:])
    if head == "or":
        return any(_holds(x, engine, binding) for x in formula[1:])
    if head == "not":
        return not _holds(formula[1], engine, binding)
    if head == "imply":
        return not _holds(formula[1], engine, binding) or _holds(formula[2], engine, binding)
    if head == "=":
        return _value(formula[1], binding) == _value(formula[2], binding)
    if head == "exists":
        return next(_solutions(formula[2], formula[1], engine, binding), None) is not None
    if head == "forall":
        vars_ = list(formula[1].items())
        return all(_holds(formula[2], engine, b) for b in _by_type(vars_, engine, binding))
    args = tuple(_value(a, binding) for a in formula[1:])
    return args in _facts(engine, head)


def _by_type(vars_: list[tuple[str, str]], engine: Engine, binding: dict[str, str]) -> Iterator[dict[str, str]]:
    if not vars_:
        yield binding
        return
    (var, declared), rest = vars_[0], vars_[1:]
    for value in engine.world.of_type(declared):
        yield from _by_type(rest, engine, {**binding, var: value})


_CONNECTIVES = frozenset({"and", "or", "not", "imply", "=", "exists", "forall"})


def _normalize(formula: Any) -> Any:
    """The goal with nested existentials merged into one conjunctive query where that keeps its
    meaning (``exists r (exists o (and …))`` → ``exists r, o (and …)``; an ``exists`` inside an
    ``and`` under an ``exists`` is lifted when its variables are fresh), so :func:`_solutions`
    joins over facts instead of enumerating entities."""
    if not isinstance(formula, tuple) or not formula:
        return formula
    head = formula[0]
    if head in ("forall",):
        return (head, formula[1], _normalize(formula[2]))
    if head != "exists":
        return (head, *(_normalize(x) for x in formula[1:])) if head in _CONNECTIVES else formula
    variables = dict(formula[1])
    parts = [_normalize(formula[2])]
    flat: list[Any] = []
    while parts:
        part = parts.pop(0)
        if part[0] == "and":
            parts[:0] = list(part[1:])
        elif part[0] == "exists" and not set(part[1]) & set(variables):
            variables.update(part[1])
            parts.insert(0, part[2])
        else:
            flat.append(part)
    return ("exists", variables, ("and", *flat))


def _solutions(
    body: tuple[Any, ...], variables: dict[str, str], engine: Engine, binding: dict[str, str]
) -> Iterator[dict[str, str]]:
    """Bindings of ``variables`` that make ``body`` true: positive literals of a conjunction bind
    variables from the facts (a join, smallest fact set first), the rest is checked once its
    variables are bound."""
    parts = body[1:] if body[0] == "and" else (body,)
    unbound = {v: t for v, t in variables.items() if v not in binding}
    literal, facts, best = None, (), None
    index = engine.world.static_index  # type: ignore[attr-defined]
    for p in parts:
        if p[0] in _CONNECTIVES or not any(a in unbound for a in p[1:]):
            continue
        known = [(i, _value(a, binding)) for i, a in enumerate(p[1:]) if a not in unbound]
        dynamic = engine.facts.get(p[0])
        if dynamic is None and known:
            candidates: Any = index.get((p[0], *known[0]), ())
        else:
            candidates = dynamic if dynamic is not None else engine.world.static.get(p[0], ())
        key = (-len(known), len(candidates))
        if best is None or key < best:
            literal, facts, best = p, candidates, key
            if not facts:
                return
    if literal is None:
        for b in _by_type(list(unbound.items()), engine, binding):
            if all(_holds(p, engine, b) for p in parts):
                yield b
        return
    rest = ("and", *[p for p in parts if p is not literal])
    types = engine.world.types
    for fact in facts:
        if len(fact) != len(literal) - 1:
            continue
        b = dict(binding)
        for term, value in zip(literal[1:], fact, strict=True):
            if term[0] == "?":
                bound = b.get(term)
                if bound is None and term in unbound and types.get(value) == unbound[term]:
                    b[term] = value
                elif bound != value:
                    break
            elif term != value:
                break
        else:
            yield from _solutions(rest, variables, engine, b)
