"""Record the real engine on stress worlds built to settle one rule each (SOURCES.md, "Rules settled by experiment").

Runs only where ``alfworld==0.4.2`` is installed, like ``record_transcripts.py``, whose world builder and
recorder it reuses: each world below is written to ``fixtures/games/<name>/game.tw-pddl`` (plus a
``<name>.legacy`` copy where the legacy grammar says something different) and played twice from a fresh
reset, ``walkthrough`` (ends won) and ``probes`` (the generic probes, then the world's probes, ending won).

Usage: ``python tests/alfworld/record_quirks.py`` from the repository root.
"""

from __future__ import annotations

from record_transcripts import (
    TRANSCRIPTS,
    Obj,
    Recep,
    World,
    goal_light,
    goal_place,
    loc,
    oid,
    record_world,
    require_engine,
)

PICKUP = ("pickupable",)
FOOD = ("pickupable", "heatable", "coolable", "cleanable", "sliceable")


def spot() -> World:
    """The agent starts facing three receptacles (a desk and two drawers, one open) and carries a pen between them.

    Settles: ``go to`` for a receptacle at the agent's own location (also the start), ``examine`` of an
    object not held, the intro text at a receptacle, look's "Next to it" list after moving an object
    between receptacles of one location (with an object that has left two of them), taking with full
    hands, moving into a closed receptacle or one whose type cannot contain the object.
    """
    start = loc(1, 2, 3, 45)
    desk = Recep(oid("Desk", 1.5, 0.0, -1.2), "DeskType", start)
    open_drawer = Recep(oid("Drawer", 1.6, 0.2, -1.1), "DrawerType", start, openable=True, opened=True)
    shut_drawer = Recep(oid("Drawer", 1.7, 0.2, -1.1), "DrawerType", start, openable=True)
    bed = Recep(oid("Bed", 1.0, 0.1, -0.7), "BedType", loc(4, 3, 2, 45))
    can = Recep(oid("GarbageCan", 1.1, 0.0, -0.9), "GarbageCanType", loc(4, 3, 2, 45))
    pen = Obj(oid("Pen", 1.3, 0.8, -1.1), "PenType", desk.rid)
    pencil = Obj(oid("Pencil", 1.4, 0.8, -1.3), "PencilType", open_drawer.rid)
    cd = Obj(oid("CD", 1.7, 0.3, -1.1), "CDType", shut_drawer.rid)
    book = Obj(oid("Book", 1.2, 0.6, -0.5), "BookType", bed.rid)
    small = ("PenType", "PencilType", "CDType", "BookType")
    pairs = [(rt, ot) for rt in ("DeskType", "DrawerType") for ot in small]
    pairs += [("BedType", "BookType"), ("GarbageCanType", "PencilType"), ("GarbageCanType", "PenType")]
    return World(
        name="spot_book_desk",
        task_type="pick_and_place_simple",
        goal_text="put some book on desk",
        goal_pddl=goal_place("Book", "Desk"),
        start=start,
        receps=[desk, open_drawer, shut_drawer, bed, can],
        objs=[pen, pencil, cd, book],
        can_contain=pairs,
        walkthrough=["go to bed 1", "take book 1 from bed 1", "go to desk 1", "move book 1 to desk 1"],
        probes=[
            "go to desk 1",
            "go to drawer 2",
            "examine pen 1",
            "examine pencil 1",
            "examine cd 1",
            "examine desk 1",
            "examine drawer 1",
            "take pen 1 from desk 1",
            "take pencil 1 from drawer 2",
            "examine pen 1",
            "examine pencil 1",
            "move pen 1 to drawer 1",
            "move pen 1 to drawer 2",
            "look",
            "examine drawer 2",
            "take pen 1 from drawer 2",
            "look",
            "open drawer 1",
            "move pen 1 to drawer 1",
            "look",
            "close drawer 1",
            "look",
            "take pencil 1 from drawer 2",
            "move pencil 1 to desk 1",
            "look",
            "go to bed 1",
            "look",
            "go to garbagecan 1",
            "take book 1 from bed 1",
            "move book 1 to garbagecan 1",
            "move book 1 to bed 1",
            "take book 1 from bed 1",
            "look",
            "go to drawer 1",
            "look",
            "examine book 1",
            "move book 1 to drawer 1",
            "go to desk 1",
            "move book 1 to desk 1",
        ],
        legacy=True,
    )


def order() -> World:
    """A bathroom declared in reverse, with ids whose lower-case order differs from their case-sensitive
    order, and a towel (towel 2) in two receptacles (towel holder and shelf) at one location.

    Settles: the order of the intro, look and examine lists (lower-cased id, not declaration order) and
    what an object with two ``inReceptacle`` facts does.
    """
    toilet = Recep(oid("Toilet", -1.9, 0.0, -0.7), "ToiletType", loc(-6, -3, 1, 30))
    hanger = Recep(oid("ToiletPaperHanger", -2.0, 0.8, -0.1), "ToiletPaperHangerType", loc(-6, -1, 3, 15))
    counter = Recep(oid("CounterTop", 0.6, 0.8, 1.9), "CounterTopType", loc(2, 4, 0, 45))
    holder = Recep(oid("TowelHolder", 1.1, 1.3, -2.0), "TowelHolderType", loc(4, -6, 2, 0))
    shelf = Recep(oid("Shelf", 1.3, 0.9, -2.0), "ShelfType", loc(4, -6, 2, 0))
    candle1 = Obj(oid("Candle", 0.5, 0.8, 1.8), "CandleType", counter.rid)
    candle2 = Obj(oid("Candle", -0.5, 0.8, 1.8), "CandleType", counter.rid)
    cd = Obj(oid("CD", 0.7, 0.8, 1.9), "CDType", counter.rid)
    phone = Obj(oid("CellPhone", 0.4, 0.8, 2.0), "CellPhoneType", counter.rid)
    cloth = Obj(oid("Cloth", 0.8, 0.8, 2.1), "ClothType", counter.rid)
    paper = Obj(oid("ToiletPaper", -2.0, 0.7, -0.1), "ToiletPaperType", hanger.rid)
    towel1 = Obj(oid("Towel", 1.1, 1.2, -2.0), "TowelType", holder.rid)
    towel2 = Obj(oid("Towel", 1.4, 0.9, -2.0), "TowelType", shelf.rid)
    small = ("CandleType", "CellPhoneType", "ClothType", "ToiletPaperType")
    pairs = [("CounterTopType", ot) for ot in (*small, "CDType")] + [("ToiletType", ot) for ot in small]
    pairs += [("ToiletPaperHangerType", "ToiletPaperType"), ("TowelHolderType", "TowelType")]
    pairs += [("ShelfType", "TowelType"), ("ShelfType", "CandleType")]
    return World(
        name="order_candle_toilet",
        task_type="pick_and_place_simple",
        goal_text="put a candle in toilet",
        goal_pddl=goal_place("Candle", "Toilet"),
        start=loc(0, 0, 0, 30),
        receps=[toilet, hanger, counter, holder, shelf],
        objs=[candle1, candle2, cd, phone, cloth, paper, towel1, towel2],
        can_contain=pairs,
        extra_init=[f"(inReceptacle {towel1.oid} {shelf.rid})"],
        reversed_declarations=True,
        walkthrough=[
            "go to countertop 1",
            "take candle 1 from countertop 1",
            "go to toilet 1",
            "move candle 1 to toilet 1",
        ],
        probes=[
            "go to countertop 1",
            "look",
            "go to shelf 1",
            "look",
            "examine towelholder 1",
            "take towel 2 from shelf 1",
            "examine towelholder 1",
            "examine shelf 1",
            "inventory",
            "look",
            "take towel 1 from shelf 1",
            "move towel 2 to towelholder 1",
            "examine towelholder 1",
            "look",
            "take towel 2 from towelholder 1",
            "examine shelf 1",
            "examine towelholder 1",
            "move towel 2 to shelf 1",
            "look",
            "take towel 1 from shelf 1",
            "move towel 1 to towelholder 1",
            "look",
            "go to toiletpaperhanger 1",
            "go to countertop 1",
            "take candle 2 from countertop 1",
            "move candle 2 to countertop 1",
            "take candle 1 from countertop 1",
            "go to toilet 1",
            "move candle 1 to toilet 1",
        ],
    )


# Twelve cabinets whose ids sort as strings in a different order than their coordinates (numbers with
# 1 and 2 digits, signs), eleven apples on one counter, and locations numbered past 10 in the legacy grammar.
CABINET_SPOTS = (
    (-0.5, 0.4, -1.2, loc(-2, -5, 1, 0)),
    (-1.0, 0.4, -1.2, loc(-4, -5, 1, 0)),
    (-10.0, 0.4, 1.2, loc(-10, 5, 1, 180)),
    (0.5, 0.4, -1.2, loc(2, -5, 1, 0)),
    (1.0, 0.4, -1.2, loc(4, -5, 1, 0)),
    (10.0, 0.4, 1.2, loc(10, 5, 1, 180)),
    (2.0, 0.4, -1.2, loc(8, -5, 1, 0)),
    (-2.0, 0.4, -1.2, loc(-8, -5, 1, 0)),
    (2.0, 1.9, -1.2, loc(8, -5, 1, 0)),
    (-2.0, 1.9, -1.2, loc(-8, -5, 0, 0)),
    (11.0, 0.4, 1.2, loc(11, 5, 1, 180)),
    (-11.0, 0.4, 1.2, loc(-11, 5, 1, 180)),
)


def numbering() -> World:
    """Twelve cabinets, eleven apples, and two ghosts: a cabinet declared in (:objects ...) but in no fact, and
    an apple with only an ``objectType`` fact (both with ids that sort after the visible ones).

    Settles: numbering past 9 (ids sorted as strings, numbers handed out from the highest), whether a
    declared-only or a type-only id takes a number, the sorted admissible list with 10+ instances.
    """
    cabs = [
        Recep(oid("Cabinet", x, y, z), "CabinetType", where, openable=True, opened=(i % 3 == 0))
        for i, (x, y, z, where) in enumerate(CABINET_SPOTS)
    ]
    counter = Recep(oid("CounterTop", 1.2, 0.9, 0.8), "CounterTopType", loc(3, 1, 1, 45))
    fridge = Recep(oid("Fridge", -2.1, 0.0, 1.1), "FridgeType", loc(-4, 4, 3, 45), openable=True)
    apples = [
        Obj(oid("Apple", x, 0.95, 0.8), "AppleType", counter.rid, ("pickupable", "heatable", "coolable"))
        for x in (1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0)
    ]
    mug = Obj(oid("Mug", -0.5, 0.4, -1.3), "MugType", cabs[0].rid, ("pickupable", "cleanable"))
    ghost_cabinet = oid("Cabinet", 12.0, 0.4, 1.2)
    ghost_apple = oid("Apple", 9.0, 0.95, 0.8)
    pairs = [(rt, ot) for rt in ("CabinetType", "CounterTopType", "FridgeType") for ot in ("AppleType", "MugType")]
    return World(
        name="numbering_apple_fridge",
        task_type="pick_and_place_simple",
        goal_text="put an apple in fridge",
        goal_pddl=goal_place("Apple", "Fridge"),
        start=loc(0, 0, 0, 30),
        receps=[*cabs, counter, fridge],
        objs=[*apples, mug],
        can_contain=pairs,
        extra_objects=[f"{ghost_cabinet} - receptacle", f"{ghost_apple} - object"],
        extra_init=[f"(objectType {ghost_apple} AppleType)"],
        walkthrough=[
            "go to countertop 1",
            "take apple 2 from countertop 1",
            "go to fridge 1",
            "open fridge 1",
            "move apple 2 to fridge 1",
        ],
        probes=[
            "go to cabinet 13",
            "go to cabinet 10",
            "look",
            "open cabinet 10",
            "go to cabinet 12",
            "go to cabinet 3",
            "look",
            "examine cabinet 4",
            "go to countertop 1",
            "take apple 1 from countertop 1",
            "take apple 10 from countertop 1",
            "go to cabinet 11",
            "move apple 10 to cabinet 11",
            "open cabinet 11",
            "move apple 10 to cabinet 11",
            "examine cabinet 11",
            "go to countertop 1",
            "take apple 2 from countertop 1",
            "go to fridge 1",
            "open fridge 1",
            "move apple 2 to fridge 1",
        ],
        legacy=True,
    )


def states() -> World:
    """A kitchen where one potato, apple, bread and egg go through every state combination, a bowl is a
    receptacle object, and a butter knife slices an apple inside the closed fridge.

    Settles: ``slice`` admissibility and feedback, every ``examine`` text for a held object,
    ``isReceptacleObject`` objects, heat/cool/clean with each state, moving where the type cannot go.
    """
    fridge = Recep(oid("Fridge", -2.1, 0.0, 1.1), "FridgeType", loc(-4, 4, 3, 45), openable=True)
    micro = Recep(oid("Microwave", -0.3, 0.9, 2.1), "MicrowaveType", loc(-1, 5, 0, 30), openable=True)
    sink = Recep(oid("Sink", 0.9, 0.9, 2.6, "SinkBasin"), "SinkBasinType", loc(3, 6, 0, 60))
    counter = Recep(oid("CounterTop", 1.2, 0.9, 0.8), "CounterTopType", loc(3, 1, 1, 45))
    table = Recep(oid("DiningTable", -0.9, 0.0, -1.5), "DiningTableType", loc(-3, -4, 2, 45))
    drawer = Recep(oid("Drawer", 1.3, 0.8, 0.6), "DrawerType", loc(3, 1, 1, 45), openable=True)
    stove = Recep(oid("StoveBurner", 1.9, 0.9, 1.1), "StoveBurnerType", loc(5, 2, 1, 45))
    apple = Obj(oid("Apple", -2.0, 0.8, 1.2), "AppleType", fridge.rid, FOOD)
    potato = Obj(oid("Potato", -0.8, 0.8, -1.4), "PotatoType", table.rid, FOOD)
    bread = Obj(oid("Bread", 1.1, 1.0, 0.6), "BreadType", counter.rid, ("pickupable", "cleanable", "sliceable"))
    egg = Obj(oid("Egg", -0.7, 0.8, -1.6), "EggType", table.rid, ("pickupable", "heatable", "coolable"))
    bowl = Obj(oid("Bowl", 1.0, 0.9, 0.9), "BowlType", counter.rid, ("pickupable", "cleanable", "heatable", "coolable"))
    spoon = Obj(oid("Spoon", 1.0, 0.95, 0.9), "SpoonType", counter.rid, ("pickupable", "cleanable"))
    butter = Obj(oid("ButterKnife", 1.3, 0.9, 0.9), "ButterKnifeType", counter.rid, ("pickupable", "cleanable"))
    knife = Obj(oid("Knife", 1.3, 0.8, 0.6), "KnifeType", drawer.rid, ("pickupable", "cleanable"))
    objs = [apple, potato, bread, egg, bowl, spoon, butter, knife]
    kinds = ("AppleType", "PotatoType", "BreadType", "EggType", "BowlType", "SpoonType", "ButterKnifeType", "KnifeType")
    pairs = [(rt, ot) for rt in ("CounterTopType", "DiningTableType", "SinkBasinType") for ot in kinds]
    pairs += [(rt, ot) for rt in ("FridgeType", "MicrowaveType") for ot in kinds[:5]]
    pairs += [("DrawerType", "KnifeType"), ("DrawerType", "ButterKnifeType"), ("DrawerType", "SpoonType")]
    return World(
        name="states_potato_diningtable",
        task_type="pick_heat_then_place_in_recep",
        goal_text="heat some potato and put it in diningtable",
        goal_pddl=goal_place("Potato", "DiningTable", "isHot", "heatable"),
        start=loc(0, 0, 0, 30),
        receps=[fridge, micro, sink, counter, table, drawer, stove],
        objs=objs,
        can_contain=pairs,
        extra_init=[f"(isReceptacleObject {bowl.oid})", f"(inReceptacleObject {spoon.oid} {bowl.oid})"],
        walkthrough=[
            "go to diningtable 1",
            "take potato 1 from diningtable 1",
            "go to microwave 1",
            "heat potato 1 with microwave 1",
            "go to diningtable 1",
            "move potato 1 to diningtable 1",
        ],
        probes=[
            # receptacle object; a bowl is still "normal" once hot; moving where its type cannot go
            "go to countertop 1",
            "look",
            "examine spoon 1",
            "take bowl 1 from countertop 1",
            "examine bowl 1",
            "take bread 1 from countertop 1",
            "inventory",
            "go to stoveburner 1",
            "move bowl 1 to stoveburner 1",
            "go to microwave 1",
            "move bowl 1 to microwave 1",
            "heat bowl 1 with microwave 1",
            "examine bowl 1",
            "go to countertop 1",
            "move bowl 1 to countertop 1",
            # slicing: needs a knife in hand and the object at the location, even in a closed fridge
            "slice bread 1 with butterknife 1",
            "take butterknife 1 from countertop 1",
            "slice bread 1 with butterknife 1",
            "slice bread 1 with butterknife 1",
            "slice bowl 1 with butterknife 1",
            "examine butterknife 1",
            "go to fridge 1",
            "examine fridge 1",
            "slice apple 1 with butterknife 1",
            "open fridge 1",
            "move butterknife 1 to fridge 1",
            "go to countertop 1",
            "move butterknife 1 to countertop 1",
            "take bread 1 from countertop 1",
            "examine bread 1",
            "go to sinkbasin 1",
            "clean bread 1 with sinkbasin 1",
            "examine bread 1",
            "heat bread 1 with sinkbasin 1",
            "move bread 1 to sinkbasin 1",
            # apple: sliced, then hot, cool, clean in turn
            "go to fridge 1",
            "take apple 1 from fridge 1",
            "examine apple 1",
            "go to microwave 1",
            "heat apple 1 with microwave 1",
            "examine apple 1",
            "go to fridge 1",
            "cool apple 1 with fridge 1",
            "examine apple 1",
            "go to sinkbasin 1",
            "clean apple 1 with sinkbasin 1",
            "examine apple 1",
            "go to microwave 1",
            "heat apple 1 with microwave 1",
            "examine apple 1",
            "go to countertop 1",
            "move apple 1 to countertop 1",
            # egg: cool alone, then hot alone
            "go to diningtable 1",
            "take egg 1 from diningtable 1",
            "examine egg 1",
            "go to fridge 1",
            "cool egg 1 with fridge 1",
            "examine egg 1",
            "cool egg 1 with fridge 1",
            "go to microwave 1",
            "heat egg 1 with microwave 1",
            "examine egg 1",
            "clean egg 1 with sinkbasin 1",
            "go to sinkbasin 1",
            "clean egg 1 with sinkbasin 1",
            "move egg 1 to sinkbasin 1",
            # potato: clean, hot and clean, cool and clean, then hot again and placed (won)
            "go to diningtable 1",
            "take potato 1 from diningtable 1",
            "go to sinkbasin 1",
            "clean potato 1 with sinkbasin 1",
            "examine potato 1",
            "go to microwave 1",
            "heat potato 1 with microwave 1",
            "examine potato 1",
            "go to fridge 1",
            "cool potato 1 with fridge 1",
            "examine potato 1",
            "go to diningtable 1",
            "move potato 1 to diningtable 1",
            "take potato 1 from diningtable 1",
            "go to microwave 1",
            "heat potato 1 with microwave 1",
            "go to diningtable 1",
            "move potato 1 to diningtable 1",
        ],
        legacy=True,
    )


def toggle() -> World:
    """A bedroom with a fixed desk lamp, a desk lamp that can be picked up, and a floor lamp in a closed drawer.

    Settles: ``use`` twice, ``use`` on a lamp inside a closed receptacle, a floor lamp, ``examine`` of a
    held toggleable object before and after toggling, ``use`` of an object that cannot be toggled.
    """
    desk = Recep(oid("Desk", 1.5, 0.0, -1.2), "DeskType", loc(5, -3, 1, 45))
    side = Recep(oid("SideTable", 2.4, 0.5, -1.6), "SideTableType", loc(9, -3, 2, 60))
    drawer = Recep(oid("Drawer", -1.6, 0.5, 0.3), "DrawerType", loc(-4, 1, 3, 60), openable=True)
    bed = Recep(oid("Bed", 1.0, 0.1, -0.7), "BedType", loc(4, 3, 2, 45))
    fixed = Obj(oid("DeskLamp", 1.6, 0.8, -1.3), "DeskLampType", desk.rid, ("toggleable",))
    loose = Obj(oid("DeskLamp", 2.5, 0.7, -1.7), "DeskLampType", side.rid, ("toggleable", "pickupable"))
    floor = Obj(oid("FloorLamp", -1.6, 0.6, 0.3), "FloorLampType", drawer.rid, ("toggleable",))
    book = Obj(oid("Book", 1.2, 0.6, -0.5), "BookType", bed.rid)
    phone = Obj(oid("CellPhone", 1.4, 0.8, -1.1), "CellPhoneType", desk.rid)
    holders = ("DeskType", "SideTableType", "BedType", "DrawerType")
    pairs = [(rt, ot) for rt in holders for ot in ("BookType", "CellPhoneType")]
    pairs += [("SideTableType", "DeskLampType"), ("DeskType", "DeskLampType")]
    return World(
        name="toggle_book_desklamp",
        task_type="look_at_obj_in_light",
        goal_text="examine the book with the desklamp",
        goal_pddl=goal_light("Book", "DeskLamp"),
        start=loc(0, 0, 0, 30),
        receps=[desk, side, drawer, bed],
        objs=[fixed, loose, floor, book, phone],
        can_contain=pairs,
        walkthrough=["go to bed 1", "take book 1 from bed 1", "go to desk 1", "use desklamp 2"],
        probes=[
            "go to drawer 1",
            "use floorlamp 1",
            "use floorlamp 1",
            "examine drawer 1",
            "open drawer 1",
            "look",
            "go to sidetable 1",
            "take desklamp 1 from sidetable 1",
            "examine desklamp 1",
            "use desklamp 1",
            "move desklamp 1 to sidetable 1",
            "use desklamp 1",
            "take desklamp 1 from sidetable 1",
            "examine desklamp 1",
            "inventory",
            "go to desk 1",
            "move desklamp 1 to desk 1",
            "use desklamp 2",
            "use desklamp 2",
            "use desklamp 1",
            "take cellphone 1 from desk 1",
            "use cellphone 1",
            "go to bed 1",
            "move cellphone 1 to bed 1",
            "take book 1 from bed 1",
            "go to drawer 1",
            "go to desk 1",
        ],
    )


QUIRK_WORLDS = (spot, order, numbering, states, toggle)


def main() -> None:
    require_engine("record_quirks.py")
    TRANSCRIPTS.mkdir(parents=True, exist_ok=True)
    timings: dict = {"reset_s": [], "step_s": [], "load_s": []}
    for make in QUIRK_WORLDS:
        record_world(make(), timings)


if __name__ == "__main__":
    main()
