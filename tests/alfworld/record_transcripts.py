"""Write the hand-made ALFWorld game files and record what the real TextWorld engine says on them.

Runs only where ``alfworld==0.4.2`` (with ``textworld[pddl]``) is installed; CI never runs it. It
(1) builds each world below into a ``game.tw-pddl`` file (the JSON ALFWorld's data set uses:
``pddl_domain``, ``grammar``, ``pddl_problem``, ``solvable``, ``walkthrough``), taking the domain and
grammar from the installed ``alfworld/data`` files, and (2) drives each game through TextWorld's gym
interface with the wrappers ALFWorld's own ``AlfredTWEnv`` uses, writing one JSONL transcript per
(game, grammar, script) under ``fixtures/transcripts`` and the timings to ``fixtures/timings.json``.

Usage: ``python tests/alfworld/record_transcripts.py`` from the repository root.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

try:
    import alfworld
    import textworld
    import textworld.gym
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredInfos
except ImportError as exc:  # pytest imports this file for doctests on machines without the engine
    MISSING: ImportError | None = exc
else:
    MISSING = None

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
GAMES = FIXTURES / "games"
TRANSCRIPTS = FIXTURES / "transcripts"

# ---------------------------------------------------------------------------------------------
# Legacy grammar: the ALFWorld 2.1.1 game files (the ones the ReAct prompts were written against)
# predate the "help" action and say "put X in/on Y" and "You arrive at loc N.". alfworld's
# scripts/patch_tw-pddl.py turns 2.1.1 files into 2.1.2 ones with these three replacements plus the
# help action; this undoes them on the installed 2.1.2 files.
# ---------------------------------------------------------------------------------------------
LEGACY_SWAPS = (
    ("You arrive at {r.name}.", "You arrive at {lend.name}."),
    ("move {o} to {r}", "put {o} in/on {r}"),
    ("You move the {o.name} to the {r.name}.", "You put the {o.name} in/on the {r.name}."),
)


def legacy_grammar(grammar: str) -> str:
    """The 2.1.1 grammar: the installed one without the help action and with the old wording."""
    head, sep, _help = grammar.partition("\naction help {")
    assert sep, "installed alfred.twl2 has no help action to strip"
    out = head.rstrip("\n") + "\n"
    for new, old in LEGACY_SWAPS:
        assert new in out, f"installed grammar lacks {new!r}"
        out = out.replace(new, old)
    return out


def legacy_domain(domain: str) -> str:
    """The 2.1.1 domain: the installed one without the ``help`` action (the last one in the file)."""
    head, sep, _tail = domain.partition("(:action help")
    assert sep, "installed alfred.pddl has no help action to strip"
    return head.rstrip() + "\n)\n"


# ---------------------------------------------------------------------------------------------
# Worlds. Ids follow ALFRED's mangling (Class|x|y|z -> Class_bar_x_bar_y_bar_z, '-'/'+'/'.' ->
# _minus_/_plus_/_dot_); sink and bathtub basins carry the "|SinkBasin" suffix as in the data set.
# ---------------------------------------------------------------------------------------------


def mangle(text: str) -> str:
    """ALFRED object id -> PDDL name, the way ALFWorld's data set writes them."""
    for src, dst in (("|", "_bar_"), ("-", "_minus_"), ("+", "_plus_"), (".", "_dot_"), (",", "_comma_")):
        text = text.replace(src, dst)
    return text


def oid(cls: str, x: float, y: float, z: float, suffix: str = "") -> str:
    """An ALFRED-style object id such as ``Apple|-01.20|+00.90|+00.35``."""
    parts = [cls, *(f"{v:+06.2f}" for v in (x, y, z))]
    if suffix:
        parts.append(suffix)
    return mangle("|".join(parts))


def loc(*nums: int) -> str:
    """An ALFRED-style location name such as ``loc|-4|2|3|45``."""
    return mangle("|".join(["loc", *(str(n) for n in nums)]))


@dataclass
class Recep:
    rid: str
    rtype: str
    location: str
    openable: bool = False
    opened: bool = False


@dataclass
class Obj:
    oid: str
    otype: str
    recep: str  # receptacle id it starts in
    props: tuple[str, ...] = ("pickupable",)


@dataclass
class World:
    name: str
    task_type: str
    goal_text: str
    goal_pddl: str
    start: str
    receps: list[Recep]
    objs: list[Obj]
    can_contain: list[tuple[str, str]]
    walkthrough: list[str]
    probes: list[str]
    legacy: bool = False
    extra_locations: list[str] = field(default_factory=list)
    # Stress worlds (record_quirks.py): declarations ("Id - type") and facts ("(pred a b)") beyond the
    # ones derived from receps/objs, and the option of declaring everything in reverse order.
    extra_objects: list[str] = field(default_factory=list)
    extra_init: list[str] = field(default_factory=list)
    reversed_declarations: bool = False


ALWAYS_RTYPES = ("SinkType", "SinkBasinType", "MicrowaveType", "FridgeType")
ALWAYS_OTYPES = ("KnifeType", "ButterKnifeType")


def problem_text(w: World) -> str:
    """The PDDL problem for a world, laid out like the data set's ``initial_state.pddl``."""
    rtypes = sorted({r.rtype for r in w.receps} | set(ALWAYS_RTYPES))
    otypes = sorted({o.otype for o in w.objs} | set(ALWAYS_OTYPES))
    locations = sorted({r.location for r in w.receps} | {w.start} | set(w.extra_locations))
    recep_loc = {r.rid: r.location for r in w.receps}
    ind = "        "
    lines = [f"(define (problem plan_{w.name})", "(:domain alfred)", "(:objects", "agent1 - agent"]
    lines += [f"{ind}{t} - otype" for t in otypes]
    lines += [f"{ind}{t} - rtype" for t in rtypes]
    lines += [f"{ind}{o.oid} - object" for o in sorted(w.objs, key=lambda o: o.oid)]
    lines += [f"{ind}{r.rid} - receptacle" for r in sorted(w.receps, key=lambda r: r.rid)]
    lines += [f"{ind}{x} - location" for x in locations]
    lines += [f"{ind}{x}" for x in w.extra_objects]
    if w.reversed_declarations:
        lines[4:] = lines[:3:-1]
    lines += [f"{ind})", "", "(:init"]
    init_start = len(lines)
    lines += [f"{ind}(receptacleType {r.rid} {r.rtype})" for r in w.receps]
    lines += [f"{ind}(objectType {o.oid} {o.otype})" for o in w.objs]
    lines += [f"{ind}(canContain {rt} {ot})" for rt, ot in w.can_contain]
    lines += [f"{ind}({p} {o.oid})" for o in w.objs for p in o.props]
    lines += [f"{ind}(openable {r.rid})" for r in w.receps if r.openable]
    lines += [f"{ind}(opened {r.rid})" for r in w.receps if r.opened]
    lines += [f"{ind}(atLocation agent1 {w.start})"]
    lines += [f"{ind}(inReceptacle {o.oid} {o.recep})" for o in w.objs]
    lines += [f"{ind}(receptacleAtLocation {r.rid} {r.location})" for r in w.receps]
    lines += [f"{ind}(objectAtLocation {o.oid} {recep_loc[o.recep]})" for o in w.objs]
    lines += [f"{ind}{f}" for f in w.extra_init]
    if w.reversed_declarations:
        lines[init_start:] = lines[: init_start - 1 : -1]
    lines += [f"{ind})", "", w.goal_pddl.strip(), ")", ""]
    return "\n".join(lines)


def goal_place(obj: str, recep: str, state: str = "", prop: str = "") -> str:
    """The goal of the pick(-state)-and-place task types (one object of a class in a receptacle type)."""
    extra = f"\n                    ({prop} ?o)\n                    ({state} ?o)" if state else ""
    return f"""(:goal
    (and
        (exists (?r - receptacle)
            (exists (?o - object)
                (and
                    (inReceptacle ?o ?r)
                    (objectType ?o {obj}Type)
                    (receptacleType ?r {recep}Type){extra}
                )
            )
        )
    )
)"""


def goal_two(obj: str, recep: str) -> str:
    """Two distinct objects of one class in one receptacle of a type."""
    return f"""(:goal
    (and
        (exists (?r - receptacle)
            (exists (?o1 - object)
                (and
                    (objectType ?o1 {obj}Type)
                    (receptacleType ?r {recep}Type)
                    (inReceptacle ?o1 ?r)
                    (exists (?o2 - object)
                        (and
                            (not (= ?o1 ?o2))
                            (objectType ?o2 {obj}Type)
                            (inReceptacle ?o2 ?r)
                        )
                    )
                )
            )
        )
    )
)"""


def goal_light(obj: str, toggle: str) -> str:
    """Hold an object of a class while standing where a toggled lamp of a type is."""
    return f"""(:goal
    (and
        (exists (?ot - object ?r - receptacle ?a - agent ?l - location)
            (and
                (objectType ?ot {toggle}Type)
                (toggleable ?ot)
                (isToggled ?ot)
                (receptacleAtLocation ?r ?l)
                (atLocation ?a ?l)
                (inReceptacle ?ot ?r)
            )
        )
        (exists (?o - object ?a - agent)
            (and
                (objectType ?o {obj}Type)
                (holds ?a ?o)
            )
        )
    )
)"""


# Commands every game is probed with first (nothing here is admissible except look/inventory/help).
GENERIC_PROBES = [
    "look",
    "inventory",
    "help",
    "",
    "   ",
    "xyzzy",
    "go to",
    "go to the moon",
    "Look",
    "  look  ",
    "examine room",
    "take all",
    "café ☕ 日本語",
    "go to " + "a" * 300,
]


def bedroom() -> World:
    """pick_and_place_simple: two pencils, drawers (closed, one open), a dresser sharing a drawer's location."""
    desk = Recep(oid("Desk", 1.5, 0.0, -1.2), "DeskType", loc(5, -3, 1, 45))
    d1 = Recep(oid("Drawer", 1.6, 0.2, -1.1), "DrawerType", loc(5, -3, 1, 60), openable=True)
    d2 = Recep(oid("Drawer", -1.6, 0.5, 0.3), "DrawerType", loc(-4, 1, 3, 60), openable=True)
    d3 = Recep(oid("Drawer", -1.7, 0.8, -2.1), "DrawerType", loc(-4, -8, 3, 60), openable=True, opened=True)
    dresser = Recep(oid("Dresser", -1.8, 0.0, -2.1), "DresserType", loc(-4, -8, 3, 60))
    bed = Recep(oid("Bed", 1.0, 0.1, -0.7), "BedType", loc(4, 3, 2, 45))
    can = Recep(oid("GarbageCan", -1.8, 0.0, 0.9), "GarbageCanType", loc(-5, 4, 3, 60))
    p1 = Obj(oid("Pencil", 1.4, 0.8, -1.3), "PencilType", desk.rid)
    p2 = Obj(oid("Pencil", -1.5, 0.6, 0.2), "PencilType", d2.rid)
    book = Obj(oid("Book", 1.2, 0.6, -0.5), "BookType", bed.rid)
    cd = Obj(oid("CD", -1.6, 0.9, -2.0), "CDType", d3.rid)
    pen = Obj(oid("Pen", 1.3, 0.8, -1.1), "PenType", desk.rid)
    pairs = [
        (rt, ot)
        for rt in ("DeskType", "DrawerType", "DresserType")
        for ot in ("PencilType", "PenType", "CDType", "BookType")
    ]
    pairs += [("BedType", "BookType"), ("GarbageCanType", "PencilType"), ("GarbageCanType", "CDType")]
    return World(
        name="simple_pencil_dresser",
        task_type="pick_and_place_simple",
        goal_text="put some pencil on dresser",
        goal_pddl=goal_place("Pencil", "Dresser"),
        start=loc(0, 0, 0, 30),
        receps=[desk, d1, d2, d3, dresser, bed, can],
        objs=[p1, p2, book, cd, pen],
        can_contain=pairs,
        walkthrough=["go to desk 1", "take pencil 1 from desk 1", "go to dresser 1", "move pencil 1 to dresser 1"],
        probes=[
            "open desk 1",
            "take pencil 2 from desk 1",
            "go to drawer 3",
            "take pencil 2 from drawer 3",
            "examine pencil 2",
            "examine drawer 3",
            "open drawer 3",
            "open drawer 3",
            "examine pencil 2",
            "take pencil 9 from drawer 3",
            "take pencil 2 from desk 1",
            "take pencil 2 from drawer 3",
            "take pencil 2 from drawer 3",
            "inventory",
            "examine pencil 2",
            "take pen 1 from desk 1",
            "close drawer 3",
            "go to drawer 2",
            "look",
            "examine dresser 1",
            "take cd 1 from drawer 2",
            "move pencil 2 to bed 1",
            "put pencil 2 in/on drawer 2",
            "move pencil 2 to drawer 2",
            "take pencil 2 from drawer 2",
            "go to dresser 1",
            "use pencil 2",
            "move pencil 2 to dresser 1",
        ],
        legacy=True,
    )


def light() -> World:
    """look_at_obj_in_light: a desklamp on a side table, a book on the bed; two lamps of which one is a floor lamp."""
    side = Recep(oid("SideTable", 2.4, 0.5, -1.6), "SideTableType", loc(9, -3, 2, 60))
    bed = Recep(oid("Bed", 1.0, 0.1, -0.7), "BedType", loc(4, 3, 2, 45))
    shelf1 = Recep(oid("Shelf", -1.7, 1.1, -2.1), "ShelfType", loc(-4, -8, 3, 30))
    shelf2 = Recep(oid("Shelf", -1.7, 1.6, -2.1), "ShelfType", loc(-4, -8, 3, 30))
    lamp = Obj(oid("DeskLamp", 2.6, 0.7, -1.7), "DeskLampType", side.rid, ("toggleable",))
    book = Obj(oid("Book", 1.2, 0.6, -0.5), "BookType", bed.rid)
    vase = Obj(oid("Vase", -1.6, 1.6, -2.3), "VaseType", shelf2.rid)
    alarm = Obj(oid("AlarmClock", -1.6, 1.2, -2.0), "AlarmClockType", shelf1.rid)
    pairs = [
        ("BedType", "BookType"),
        ("SideTableType", "BookType"),
        ("ShelfType", "VaseType"),
        ("ShelfType", "BookType"),
    ]
    pairs += [("ShelfType", "AlarmClockType"), ("SideTableType", "AlarmClockType")]
    return World(
        name="light_book_desklamp",
        task_type="look_at_obj_in_light",
        goal_text="look at book under the desklamp",
        goal_pddl=goal_light("Book", "DeskLamp"),
        start=loc(0, 0, 0, 30),
        receps=[side, bed, shelf1, shelf2],
        objs=[lamp, book, vase, alarm],
        can_contain=pairs,
        walkthrough=["go to bed 1", "take book 1 from bed 1", "go to sidetable 1", "use desklamp 1"],
        probes=[
            "use desklamp 1",
            "go to sidetable 1",
            "examine desklamp 1",
            "examine sidetable 1",
            "use desklamp 1",
            "use desklamp 1",
            "take desklamp 1 from sidetable 1",
            "go to shelf 2",
            "look",
            "go to shelf 1",
            "examine shelf 1",
            "take alarmclock 1 from shelf 1",
            "take alarmclock 1 from shelf 2",
            "examine alarmclock 1",
            "move alarmclock 1 to shelf 1",
            "go to bed 1",
            "take book 1 from bed 1",
            "examine book 1",
            "use book 1",
            "inventory",
            "go to sidetable 1",
        ],
    )


def kitchen(name: str, task: str) -> World:
    """One kitchen for the clean/heat/cool tasks: fridge and microwave (openable), sink basin, cabinets."""
    fridge = Recep(oid("Fridge", -2.1, 0.0, 1.1), "FridgeType", loc(-4, 4, 3, 45), openable=True)
    micro = Recep(oid("Microwave", -0.3, 0.9, 2.1), "MicrowaveType", loc(-1, 5, 0, 30), openable=True)
    sink = Recep(oid("Sink", 0.9, 0.9, 2.6, "SinkBasin"), "SinkBasinType", loc(3, 6, 0, 60))
    counter = Recep(oid("CounterTop", 1.2, 0.9, 0.8), "CounterTopType", loc(3, 1, 1, 45))
    table = Recep(oid("DiningTable", -0.9, 0.0, -1.5), "DiningTableType", loc(-3, -4, 2, 45))
    cab1 = Recep(oid("Cabinet", 1.5, 0.4, 1.9), "CabinetType", loc(4, 5, 1, 60), openable=True)
    cab2 = Recep(oid("Cabinet", -1.5, 0.4, 1.9), "CabinetType", loc(4, 5, 1, 60), openable=True)
    coffee = Recep(oid("CoffeeMachine", 1.7, 0.9, -0.4), "CoffeeMachineType", loc(5, -1, 1, 45))
    stove = Recep(oid("StoveBurner", 1.9, 0.9, 1.1), "StoveBurnerType", loc(5, 2, 1, 45))
    egg = Obj(oid("Egg", -2.0, 0.8, 1.2), "EggType", fridge.rid, ("pickupable", "heatable", "coolable"))
    apple1 = Obj(oid("Apple", 1.1, 1.0, 0.6), "AppleType", counter.rid, ("pickupable", "heatable", "coolable"))
    apple2 = Obj(oid("Apple", -0.8, 0.8, -1.4), "AppleType", table.rid, ("pickupable", "heatable", "coolable"))
    mug = Obj(oid("Mug", 1.5, 0.3, 2.0), "MugType", cab1.rid, ("pickupable", "cleanable", "heatable", "coolable"))
    knife = Obj(oid("Knife", 1.3, 0.9, 0.9), "KnifeType", counter.rid)
    spatula = Obj(oid("Spatula", 0.8, 0.8, 2.6), "SpatulaType", sink.rid, ("pickupable", "cleanable"))
    objs = [egg, apple1, apple2, mug, knife, spatula]
    receps = [fridge, micro, sink, counter, table, cab1, cab2, coffee, stove]
    food = ("EggType", "AppleType", "MugType")
    pairs = [
        (rt, ot)
        for rt in ("FridgeType", "MicrowaveType", "CounterTopType", "DiningTableType", "SinkBasinType")
        for ot in food
    ]
    pairs += [("CabinetType", "MugType"), ("CoffeeMachineType", "MugType"), ("CounterTopType", "KnifeType")]
    pairs += [("SinkBasinType", "SpatulaType"), ("CounterTopType", "SpatulaType"), ("StoveBurnerType", "EggType")]
    w = World(name, task, "", "", loc(0, 0, 0, 30), receps, objs, pairs, [], [])
    return w


def heat() -> World:
    """pick_heat_then_place_in_recep: egg in the closed fridge, heated with the microwave (open and closed)."""
    w = kitchen("heat_egg_countertop", "pick_heat_then_place_in_recep")
    w.goal_text = "heat some egg and put it in countertop"
    w.goal_pddl = goal_place("Egg", "CounterTop", "isHot", "heatable")
    w.walkthrough = [
        "go to fridge 1",
        "open fridge 1",
        "take egg 1 from fridge 1",
        "go to microwave 1",
        "heat egg 1 with microwave 1",
        "go to countertop 1",
        "move egg 1 to countertop 1",
    ]
    w.probes = [
        "take egg 1 from fridge 1",
        "go to fridge 1",
        "take egg 1 from fridge 1",
        "open fridge 1",
        "open fridge 1",
        "take egg 1 from fridge 1",
        "close fridge 1",
        "heat egg 1 with fridge 1",
        "cool egg 1 with fridge 1",
        "examine egg 1",
        "go to microwave 1",
        "examine microwave 1",
        "heat egg 1 with microwave 1",
        "examine egg 1",
        "move egg 1 to microwave 1",
        "open microwave 1",
        "move egg 1 to microwave 1",
        "look",
        "heat egg 1 with microwave 1",
        "take egg 1 from microwave 1",
        "slice egg 1 with knife 1",
        "go to countertop 1",
        "take knife 1 from countertop 1",
        "move egg 1 to countertop 1",
    ]
    w.legacy = True
    return w


def cool() -> World:
    """pick_cool_then_place_in_recep: two apples (counter and table), cooled with the fridge."""
    w = kitchen("cool_apple_diningtable", "pick_cool_then_place_in_recep")
    w.goal_text = "put a cool apple in diningtable"
    w.goal_pddl = goal_place("Apple", "DiningTable", "isCool", "coolable")
    w.walkthrough = [
        "go to countertop 1",
        "take apple 1 from countertop 1",
        "go to fridge 1",
        "cool apple 1 with fridge 1",
        "go to diningtable 1",
        "move apple 1 to diningtable 1",
    ]
    w.probes = [
        "go to countertop 1",
        "take apple 2 from countertop 1",
        "take knife 1 from countertop 1",
        "slice apple 1 with knife 1",
        "move knife 1 to countertop 1",
        "take apple 1 from countertop 1",
        "go to microwave 1",
        "heat apple 1 with microwave 1",
        "examine apple 1",
        "go to fridge 1",
        "cool apple 1 with fridge 1",
        "examine apple 1",
        "go to diningtable 1",
        "move apple 1 to diningtable 1",
    ]
    return w


def clean() -> World:
    """pick_clean_then_place_in_recep: a mug in one of two cabinets sharing a location, cleaned in the sink basin."""
    w = kitchen("clean_mug_coffeemachine", "pick_clean_then_place_in_recep")
    w.goal_text = "clean some mug and put it in coffeemachine"
    w.goal_pddl = goal_place("Mug", "CoffeeMachine", "isClean", "cleanable")
    w.walkthrough = [
        "go to cabinet 1",
        "open cabinet 1",
        "take mug 1 from cabinet 1",
        "go to sinkbasin 1",
        "clean mug 1 with sinkbasin 1",
        "go to coffeemachine 1",
        "move mug 1 to coffeemachine 1",
    ]
    w.probes = [
        "go to cabinet 2",
        "look",
        "go to cabinet 1",
        "open cabinet 1",
        "open cabinet 2",
        "look",
        "take mug 1 from cabinet 2",
        "take mug 1 from cabinet 1",
        "clean mug 1 with sinkbasin 1",
        "go to sinkbasin 1",
        "look",
        "take spatula 1 from sinkbasin 1",
        "examine mug 1",
        "clean mug 1 with sinkbasin 1",
        "examine mug 1",
        "clean mug 1 with sinkbasin 1",
        "go to microwave 1",
        "heat mug 1 with microwave 1",
        "examine mug 1",
        "go to coffeemachine 1",
        "move mug 1 to coffeemachine 1",
    ]
    return w


def two() -> World:
    """pick_two_obj_and_place: three credit cards (one in a closed drawer), two onto the armchair."""
    arm = Recep(oid("ArmChair", 2.4, 0.0, 2.0), "ArmChairType", loc(9, 3, 0, 60))
    sofa = Recep(oid("Sofa", -0.3, 0.0, 2.3), "SofaType", loc(-1, 6, 0, 45))
    coffee = Recep(oid("CoffeeTable", 0.1, 0.0, 0.6), "CoffeeTableType", loc(0, 1, 0, 45))
    drawer = Recep(oid("Drawer", 1.6, 0.2, 2.1), "DrawerType", loc(2, 5, 1, 60), openable=True)
    tv = Recep(oid("TVStand", -2.0, 0.0, 0.0), "TVStandType", loc(-5, 0, 3, 45))
    c1 = Obj(oid("CreditCard", -0.2, 0.5, 2.2), "CreditCardType", sofa.rid)
    c2 = Obj(oid("CreditCard", 0.2, 0.5, 0.5), "CreditCardType", coffee.rid)
    c3 = Obj(oid("CreditCard", 1.6, 0.4, 2.2), "CreditCardType", drawer.rid)
    remote = Obj(oid("RemoteControl", 0.0, 0.5, 0.7), "RemoteControlType", coffee.rid)
    keys = Obj(oid("KeyChain", 0.3, 0.5, 0.4), "KeyChainType", coffee.rid)
    pillow = Obj(oid("Pillow", -0.5, 0.6, 2.3), "PillowType", sofa.rid)
    laptop = Obj(oid("Laptop", -1.9, 0.6, 0.1), "LaptopType", tv.rid)
    small = ("CreditCardType", "RemoteControlType", "KeyChainType")
    pairs = [
        (rt, ot) for rt in ("ArmChairType", "SofaType", "CoffeeTableType", "DrawerType", "TVStandType") for ot in small
    ]
    pairs += [("SofaType", "PillowType"), ("ArmChairType", "PillowType"), ("TVStandType", "LaptopType")]
    return World(
        name="two_creditcard_armchair",
        task_type="pick_two_obj_and_place",
        goal_text="find two creditcard and put them in armchair",
        goal_pddl=goal_two("CreditCard", "ArmChair"),
        start=loc(0, 0, 0, 30),
        receps=[arm, sofa, coffee, drawer, tv],
        objs=[c1, c2, c3, remote, keys, pillow, laptop],
        can_contain=pairs,
        walkthrough=[
            "go to coffeetable 1",
            "take creditcard 2 from coffeetable 1",
            "go to armchair 1",
            "move creditcard 2 to armchair 1",
            "go to sofa 1",
            "take creditcard 3 from sofa 1",
            "go to armchair 1",
            "move creditcard 3 to armchair 1",
        ],
        probes=[
            "go to coffeetable 1",
            "take creditcard 1 from coffeetable 1",
            "take creditcard 2 from coffeetable 1",
            "take remotecontrol 1 from coffeetable 1",
            "go to armchair 1",
            "move creditcard 2 to armchair 1",
            "move creditcard 2 to armchair 1",
            "take creditcard 2 from armchair 1",
            "move creditcard 2 to armchair 1",
            "go to drawer 1",
            "take creditcard 1 from drawer 1",
            "open drawer 1",
            "take creditcard 1 from drawer 1",
            "go to tvstand 1",
            "move creditcard 1 to tvstand 1",
            "take creditcard 1 from tvstand 1",
            "take laptop 1 from tvstand 1",
            "go to armchair 1",
            "move creditcard 1 to armchair 1",
        ],
        legacy=True,
    )


def bathroom() -> World:
    """pick_and_place_simple in a bathroom: a bathtub basin and sink basin (the "basin" naming), a toilet."""
    toilet = Recep(oid("Toilet", -1.9, 0.0, -0.6), "ToiletType", loc(-4, -2, 3, 45))
    sink = Recep(oid("Sink", -1.4, 0.9, 1.7, "SinkBasin"), "SinkBasinType", loc(-3, 5, 3, 60))
    tub = Recep(oid("Bathtub", 0.5, 0.4, -1.1, "BathtubBasin"), "BathtubBasinType", loc(2, -2, 2, 60))
    cab = Recep(oid("Cabinet", -1.6, 0.3, 1.2), "CabinetType", loc(-3, 3, 3, 60), openable=True)
    counter = Recep(oid("CounterTop", -1.5, 0.9, 1.4), "CounterTopType", loc(-3, 4, 3, 45))
    sb = Obj(oid("SoapBottle", -1.5, 1.0, 1.3), "SoapBottleType", counter.rid)
    bar1 = Obj(oid("SoapBar", 0.5, 0.5, -1.0), "SoapBarType", tub.rid, ("pickupable", "cleanable"))
    bar2 = Obj(oid("SoapBar", -1.4, 0.8, 1.6), "SoapBarType", sink.rid, ("pickupable", "cleanable"))
    cloth = Obj(oid("Cloth", -1.6, 0.1, 1.3), "ClothType", cab.rid, ("pickupable", "cleanable"))
    pairs = [
        (rt, ot)
        for rt in ("ToiletType", "CounterTopType", "CabinetType")
        for ot in ("SoapBottleType", "SoapBarType", "ClothType")
    ]
    pairs += [("SinkBasinType", "SoapBarType"), ("BathtubBasinType", "SoapBarType"), ("BathtubBasinType", "ClothType")]
    return World(
        name="simple_soapbottle_toilet",
        task_type="pick_and_place_simple",
        goal_text="put a soapbottle in toilet",
        goal_pddl=goal_place("SoapBottle", "Toilet"),
        start=loc(0, 0, 0, 30),
        receps=[toilet, sink, tub, cab, counter],
        objs=[sb, bar1, bar2, cloth],
        can_contain=pairs,
        walkthrough=[
            "go to countertop 1",
            "take soapbottle 1 from countertop 1",
            "go to toilet 1",
            "move soapbottle 1 to toilet 1",
        ],
        probes=[
            "go to bathtubbasin 1",
            "take soapbar 1 from bathtubbasin 1",
            "go to sinkbasin 1",
            "clean soapbar 1 with sinkbasin 1",
            "clean soapbar 1 with bathtubbasin 1",
            "move soapbar 1 to sinkbasin 1",
            "look",
            "go to cabinet 1",
            "open cabinet 1",
            "take cloth 1 from cabinet 1",
            "move cloth 1 to cabinet 1",
            "close cabinet 1",
            "go to countertop 1",
            "take soapbottle 1 from countertop 1",
            "examine soapbottle 1",
            "go to toilet 1",
            "move soapbottle 1 to toilet 1",
        ],
    )


WORLDS = (bedroom, light, clean, heat, cool, two, bathroom)


def to_legacy(command: str) -> str:
    """A current-grammar command in the legacy grammar's words (and a deliberate legacy probe in current words)."""
    if command.startswith("move ") and " to " in command:
        obj, _, recep = command[len("move ") :].partition(" to ")
        return f"put {obj} in/on {recep}"
    if command.startswith("put ") and " in/on " in command:
        obj, _, recep = command[len("put ") :].partition(" in/on ")
        return f"move {obj} to {recep}"
    return command


def write_game(w: World, grammar_name: str) -> Path:
    """Build one game.tw-pddl (keys in the data set's order) and return its path."""
    data = Path(alfworld.__file__).resolve().parent / "data"
    domain = (data / "alfred.pddl").read_text()
    grammar = (data / "alfred.twl2").read_text()
    walkthrough = list(w.walkthrough)
    if grammar_name == "legacy":
        domain, grammar = legacy_domain(domain), legacy_grammar(grammar)
        walkthrough = [to_legacy(c) for c in walkthrough]
    assert "UNKNOWN GOAL" in grammar
    grammar = grammar.replace("UNKNOWN GOAL", w.goal_text)
    game = {
        "pddl_domain": domain,
        "grammar": grammar,
        "pddl_problem": problem_text(w),
        "solvable": True,
        "walkthrough": walkthrough,
    }
    name = w.name if grammar_name == "current" else f"{w.name}.legacy"
    path = GAMES / name / "game.tw-pddl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(game, indent=None) + "\n")
    return path


def make_env(gamefile: Path):
    """The real env, wrapped and asked for the infos the way AlfredTWEnv.init_env does (eval: no shuffle)."""
    infos = textworld.EnvInfos(won=True, admissible_commands=True, score=True, max_score=True, extras=["gamefile"])
    env_id = textworld.gym.register_game(
        str(gamefile),
        infos,
        max_episode_steps=10_000,
        asynchronous=False,
        wrappers=[AlfredDemangler(shuffle=False), AlfredInfos],
    )
    return textworld.gym.make(env_id)


def record(gamefile: Path, commands: list[str], out: Path, meta: dict, timings: dict) -> bool:
    """Play ``commands`` from a fresh reset; write the JSONL transcript; return whether the game was won."""
    env = make_env(gamefile)
    t0 = time.perf_counter()
    obs, infos = env.reset()
    timings["reset_s"].append(time.perf_counter() - t0)
    rows = [
        {
            "command": None,
            **meta,
            "observation": obs,
            "task": obs.split("\n\n")[-1],
            "admissible_commands": list(infos["admissible_commands"]),
            "won": bool(infos["won"]),
            "score": infos.get("score"),
            "max_score": infos.get("max_score"),
        }
    ]
    won = False
    for cmd in commands:
        t0 = time.perf_counter()
        obs, score, done, infos = env.step(cmd)
        timings["step_s"].append(time.perf_counter() - t0)
        won = won or bool(infos["won"])
        rows.append(
            {
                "command": cmd,
                "observation": obs,
                "admissible_commands": list(infos["admissible_commands"]),
                "won": bool(infos["won"]),
                "score": score,
                "done": bool(done),
            }
        )
        if done:  # TextWorld's gym env ignores further commands once done: stop the script here
            break
    env.close()
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return won


def require_engine(script: str) -> None:
    """Exit with what to install when the real engine is missing (these scripts only run in a scratch venv)."""
    if MISSING is not None:
        sys.exit(
            f"{script} needs the real engine: in a scratch venv, pip install torch==2.13.0, "
            "then pip install alfworld==0.4.2 (it brings textworld[pddl] and compiles fast-downward). "
            f"Import failed: {MISSING}"
        )


def record_world(w: World, timings: dict) -> list[tuple[str, int, bool]]:
    """Write a world's game file(s) and record its walkthrough and probes in each of its grammars."""
    summary = []
    grammars = ["current", "legacy"] if w.legacy else ["current"]
    for g in grammars:
        t0 = time.perf_counter()
        gamefile = write_game(w, g)
        env = make_env(gamefile)
        env.reset()
        env.close()
        timings["load_s"].append(time.perf_counter() - t0)
        conv = to_legacy if g == "legacy" else (lambda c: c)
        scripts = {
            "walkthrough": [conv(c) for c in w.walkthrough],
            "probes": GENERIC_PROBES + [conv(c) for c in w.probes],
        }
        for sname, cmds in scripts.items():
            meta = {"game": gamefile.parent.name, "task_type": w.task_type, "grammar": g, "script": sname}
            out = TRANSCRIPTS / f"{gamefile.parent.name}.{sname}.jsonl"
            won = record(gamefile, cmds, out, meta, timings)
            summary.append((out.name, len(cmds), won))
            print(f"{out.name}: {len(cmds)} steps, won={won}", flush=True)
    return summary


def main() -> None:
    require_engine("record_transcripts.py")
    TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
    timings: dict = {"reset_s": [], "step_s": [], "load_s": []}
    for make in WORLDS:
        record_world(make(), timings)
    stats = {
        k: {
            "n": len(v),
            "median_ms": round(1000 * statistics.median(v), 2),
            "mean_ms": round(1000 * statistics.fmean(v), 2),
            "max_ms": round(1000 * max(v), 2),
        }
        for k, v in timings.items()
    }
    (FIXTURES / "timings.json").write_text(json.dumps(stats, indent=2) + "\n")
    print(json.dumps(stats, indent=2))


if __name__ == "__main__":
    main()
