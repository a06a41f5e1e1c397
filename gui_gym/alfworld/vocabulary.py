"""ALFRED's households as facts: object and receptacle classes, what holds what, and what rooms hold.

Two sources, both cited where used (paths relative to the ``alfworld`` 0.4.2 wheel's package):

- **Rules** from ``gen/constants.py``: ALFRED's object classes (:136-245), movable receptacles
  (:476-484), which receptacle class can contain which object class (``VAL_RECEPTACLE_OBJECTS``,
  :554-1130, the three tables sharing ``TableTop``'s list), the classes that can be heated, cooled,
  cleaned, toggled and sliced (``VAL_ACTION_OBJECTS``, :1134-1199), the openable ones
  (``OPENABLE_CLASS_LIST``, :1232), the scene numbers of each room type (``SCENE_TYPE``, :131-134)
  and at most three instances of a class (``MAX_NUM_OF_OBJ_INSTANCES``, :21). Sliced classes
  (``AppleSliced`` …) are left out: no ALFWorld game starts with a sliced object.
- **Statistics** of the data set the game files come from (ALFWorld's ``json_2.1.1``: 4,026
  solvable ``game.tw-pddl`` files over 112 of ALFRED's 120 scenes, 28 of each room type). The
  problem files mark ``pickupable`` per object from the simulator's metadata, which
  ``constants.py`` does not list; :data:`PICKUPABLE` is every class the files mark so. The files'
  ``canContain`` facts are exactly :data:`CAN_CONTAIN` restricted to the classes present (checked
  on all 4,026 files), and every property fact follows the class (every ``Mug`` is cleanable,
  heatable and coolable). Room contents (:data:`ROOM_RECEPTACLES`, :data:`ROOM_OBJECTS`,
  :data:`ROOM_DECOR`, :data:`ROOM_FIXTURES`) and where objects lie (:data:`PLACEMENT`) are counted
  over those files. No file marks a receptacle ``opened`` at the start.

Scenes are ALFRED's FloorPlan numbers: kitchens 1-30, living rooms 201-230, bedrooms 301-330,
bathrooms 401-430. ALFWorld's unseen-validation games use scenes 10, 219, 308 and 424
(:data:`UNSEEN_SCENES`); eight more scenes appear in no ALFWorld game at all
(:data:`UNUSED_SCENES`).

Example:
    >>> room_of(12), room_of(308)
    ('Kitchen', 'Bedroom')
    >>> "Egg" in CAN_CONTAIN["Microwave"], "Egg" in CAN_CONTAIN["Drawer"]
    (True, False)
    >>> OBJECT_PROPERTIES["Mug"]
    ('pickupable', 'isReceptacleObject', 'cleanable', 'heatable', 'coolable')
"""

from __future__ import annotations

__all__ = [
    "CAN_CONTAIN",
    "CLEANABLE",
    "COOLABLE",
    "HEATABLE",
    "MOVABLE_RECEPTACLES",
    "OBJECT_CLASSES",
    "OBJECT_PROPERTIES",
    "OPENABLE",
    "PICKUPABLE",
    "PLACEMENT",
    "RECEPTACLE_CLASSES",
    "RECEPTACLE_HEIGHTS",
    "ROOM_DECOR",
    "ROOM_FIXTURES",
    "ROOM_INSTANCES",
    "ROOM_OBJECTS",
    "ROOM_RECEPTACLES",
    "ROOM_TOTALS",
    "ROOM_TYPES",
    "SCENES",
    "SCENES_OBSERVED",
    "SLICEABLE",
    "TOGGLEABLE",
    "UNSEEN_SCENES",
    "UNUSED_SCENES",
    "room_of",
]

#: ALFRED's four room types and their scene numbers (gen/constants.py:131-134).
ROOM_TYPES = ("Kitchen", "LivingRoom", "Bedroom", "Bathroom")
SCENES: dict[str, range] = {
    "Kitchen": range(1, 31),
    "LivingRoom": range(201, 231),
    "Bedroom": range(301, 331),
    "Bathroom": range(401, 431),
}
#: The scenes of ALFWorld's valid_unseen games (one of each room type).
UNSEEN_SCENES = (10, 219, 308, 424)
#: Scenes of ALFRED that no ALFWorld game (train or validation) uses.
UNUSED_SCENES = (9, 29, 215, 226, 315, 325, 404, 425)
#: Scenes of each room type the room statistics below were counted over.
SCENES_OBSERVED = 28


def room_of(scene: int) -> str:
    """The room type of an ALFRED scene number; ValueError for a number no room type has."""
    for room, numbers in SCENES.items():
        if scene in numbers:
            return room
    raise ValueError(f"no ALFRED scene {scene!r}: kitchens are 1-30, living rooms 201-230, bedrooms 301-330, "
                     "bathrooms 401-430")  # fmt: skip


#: ALFRED's object classes, in its order (gen/constants.py:136-245).
OBJECT_CLASSES = (
    "AlarmClock", "Apple", "ArmChair", "BaseballBat", "BasketBall", "Bathtub", "BathtubBasin", "Bed", "Blinds",
    "Book", "Boots", "Bowl", "Box", "Bread", "ButterKnife", "Cabinet", "Candle", "Cart", "CD", "CellPhone", "Chair",
    "Cloth", "CoffeeMachine", "CounterTop", "CreditCard", "Cup", "Curtains", "Desk", "DeskLamp", "DishSponge",
    "Drawer", "Dresser", "Egg", "FloorLamp", "Footstool", "Fork", "Fridge", "GarbageCan", "Glassbottle", "HandTowel",
    "HandTowelHolder", "HousePlant", "Kettle", "KeyChain", "Knife", "Ladle", "Laptop", "LaundryHamper",
    "LaundryHamperLid", "Lettuce", "LightSwitch", "Microwave", "Mirror", "Mug", "Newspaper", "Ottoman", "Painting",
    "Pan", "PaperTowel", "PaperTowelRoll", "Pen", "Pencil", "PepperShaker", "Pillow", "Plate", "Plunger", "Poster",
    "Pot", "Potato", "RemoteControl", "Safe", "SaltShaker", "ScrubBrush", "Shelf", "ShowerDoor", "ShowerGlass",
    "Sink", "SinkBasin", "SoapBar", "SoapBottle", "Sofa", "Spatula", "Spoon", "SprayBottle", "Statue", "StoveBurner",
    "StoveKnob", "DiningTable", "CoffeeTable", "SideTable", "TeddyBear", "Television", "TennisRacket", "TissueBox",
    "Toaster", "Toilet", "ToiletPaper", "ToiletPaperHanger", "ToiletPaperRoll", "Tomato", "Towel", "TowelHolder",
    "TVStand", "Vase", "Watch", "WateringCan", "Window", "WineBottle",
)  # fmt: skip

#: Objects that can hold other objects in ALFRED (gen/constants.py:476-484); ALFWorld's problem
#: files mark them ``isReceptacleObject``, but no action of its domain puts anything into them.
MOVABLE_RECEPTACLES = frozenset({"Bowl", "Box", "Cup", "Mug", "Plate", "Pan", "Pot"})

#: Receptacle class -> the object classes it can contain (gen/constants.py:554-1130, static
#: receptacles only, sliced classes left out). ``PutObject`` needs ``canContain`` (alfred.pddl).
CAN_CONTAIN: dict[str, frozenset[str]] = {
    "ArmChair": frozenset({"BasketBall", "Book", "Box", "CellPhone", "Cloth", "CreditCard", "KeyChain", "Laptop",
                           "Newspaper", "Pillow", "RemoteControl"}),
    "BathtubBasin": frozenset({"Cloth", "DishSponge", "HandTowel", "SoapBar"}),
    "Bed": frozenset({"BaseballBat", "BasketBall", "Book", "CellPhone", "Laptop", "Newspaper", "Pillow",
                      "TennisRacket"}),
    "Cabinet": frozenset({"Book", "Bowl", "Box", "CD", "Candle", "Cloth", "Cup", "DishSponge", "Glassbottle",
                          "HandTowel", "Kettle", "Ladle", "Mug", "Newspaper", "Pan", "PepperShaker", "Plate", "Plunger",
                          "Pot", "SaltShaker", "SoapBar", "SoapBottle", "SprayBottle", "TissueBox", "ToiletPaper",
                          "ToiletPaperRoll", "Vase", "WateringCan", "WineBottle"}),
    "Cart": frozenset({"Candle", "Cloth", "DishSponge", "HandTowel", "Mug", "PaperTowel", "Plunger", "SoapBar",
                       "SoapBottle", "SprayBottle", "Statue", "TissueBox", "ToiletPaper", "ToiletPaperRoll", "Vase"}),
    "CoffeeMachine": frozenset({"Mug"}),
    "Desk": frozenset({"AlarmClock", "BasketBall", "Book", "Bowl", "Box", "CD", "Candle", "CellPhone", "Cloth",
                       "CreditCard", "Cup", "Glassbottle", "KeyChain", "Laptop", "Mug", "Newspaper", "Pen", "Pencil",
                       "Plate", "RemoteControl", "SoapBottle", "SprayBottle", "Statue", "TennisRacket", "TissueBox",
                       "ToiletPaper", "ToiletPaperRoll", "Vase", "Watch", "WateringCan", "WineBottle"}),
    "Drawer": frozenset({"Book", "ButterKnife", "CD", "Candle", "CellPhone", "Cloth", "CreditCard", "DishSponge",
                         "Fork", "HandTowel", "KeyChain", "Knife", "Ladle", "Newspaper", "Pen", "Pencil",
                         "PepperShaker", "RemoteControl", "SaltShaker", "SoapBar", "SoapBottle", "Spatula", "Spoon",
                         "SprayBottle", "TissueBox", "ToiletPaper", "ToiletPaperRoll", "Watch", "WateringCan"}),
    "Dresser": frozenset({"AlarmClock", "BasketBall", "Book", "Bowl", "Box", "CD", "Candle", "CellPhone", "Cloth",
                          "CreditCard", "Cup", "Glassbottle", "KeyChain", "Laptop", "Mug", "Newspaper", "Pen",
                          "Pencil", "Plate", "RemoteControl", "SprayBottle", "Statue", "TennisRacket", "TissueBox",
                          "ToiletPaper", "ToiletPaperRoll", "Vase", "Watch", "WateringCan", "WineBottle"}),
    "Fridge": frozenset({"Apple", "Bowl", "Bread", "Cup", "Egg", "Glassbottle", "Lettuce", "Mug", "Pan", "Plate",
                         "Pot", "Potato", "Tomato", "WineBottle"}),
    "GarbageCan": frozenset({"Apple", "Bread", "CD", "Cloth", "DishSponge", "Egg", "HandTowel", "Lettuce",
                             "Newspaper", "PaperTowel", "Pen", "Pencil", "Potato", "SoapBar", "SoapBottle",
                             "SprayBottle", "TissueBox", "ToiletPaper", "ToiletPaperRoll", "Tomato", "WineBottle"}),
    "HandTowelHolder": frozenset({"HandTowel"}),
    "LaundryHamper": frozenset({"Cloth"}),
    "Microwave": frozenset({"Apple", "Bowl", "Bread", "Cup", "Egg", "Glassbottle", "Mug", "Plate", "Potato",
                            "Tomato"}),
    "Ottoman": frozenset({"BasketBall", "Book", "Box", "CellPhone", "Cloth", "CreditCard", "KeyChain", "Laptop",
                          "Newspaper", "Pillow", "RemoteControl"}),
    "Safe": frozenset({"CD", "CellPhone", "CreditCard", "KeyChain", "Statue", "Vase", "Watch"}),
    "Shelf": frozenset({"AlarmClock", "Book", "Bowl", "Box", "CD", "Candle", "CellPhone", "Cloth", "CreditCard", "Cup",
                        "DishSponge", "Glassbottle", "HandTowel", "Kettle", "KeyChain", "Mug", "Newspaper",
                        "PaperTowel", "Pen", "Pencil", "PepperShaker", "Plate", "Pot", "RemoteControl", "SaltShaker",
                        "SoapBar", "SoapBottle", "SprayBottle", "Statue", "TissueBox", "ToiletPaper",
                        "ToiletPaperRoll", "Vase", "Watch", "WateringCan", "WineBottle"}),
    "SinkBasin": frozenset({"Apple", "Bowl", "ButterKnife", "Cloth", "Cup", "DishSponge", "Egg", "Fork", "Glassbottle",
                            "HandTowel", "Kettle", "Knife", "Ladle", "Lettuce", "Mug", "Pan", "Plate", "Pot", "Potato",
                            "SoapBar", "Spatula", "Spoon", "Tomato"}),
    "Sofa": frozenset({"BasketBall", "Book", "Box", "CellPhone", "Cloth", "CreditCard", "KeyChain", "Laptop",
                       "Newspaper", "Pillow", "RemoteControl"}),
    "StoveBurner": frozenset({"Kettle", "Pan", "Pot"}),
    "TVStand": frozenset({"TissueBox"}),
    "Toaster": frozenset(),  # only BreadSliced
    "Toilet": frozenset({"Candle", "Cloth", "DishSponge", "HandTowel", "Newspaper", "PaperTowel", "SoapBar",
                         "SoapBottle", "SprayBottle", "TissueBox", "ToiletPaper", "ToiletPaperRoll"}),
    "ToiletPaperHanger": frozenset({"ToiletPaper", "ToiletPaperRoll"}),
    "TowelHolder": frozenset({"Towel"}),
}  # fmt: skip
_TABLE_TOP = frozenset({
    "AlarmClock", "Apple", "BaseballBat", "BasketBall", "Book", "Bowl", "Box", "Bread", "ButterKnife", "CD", "Candle",
    "CellPhone", "Cloth", "CreditCard", "Cup", "DishSponge", "Egg", "Fork", "Glassbottle", "HandTowel", "Kettle",
    "KeyChain", "Knife", "Ladle", "Laptop", "Lettuce", "Mug", "Newspaper", "Pan", "PaperTowel", "Pen", "Pencil",
    "PepperShaker", "Plate", "Pot", "Potato", "RemoteControl", "SaltShaker", "SoapBar", "SoapBottle", "Spatula",
    "Spoon", "SprayBottle", "Statue", "TennisRacket", "TissueBox", "ToiletPaper", "ToiletPaperRoll", "Tomato", "Vase",
    "Watch", "WateringCan", "WineBottle",
})  # fmt: skip
# CounterTop's list and TableTop's (shared by the three tables, gen/constants.py:1127-1129) are equal.
for _table in ("CounterTop", "DiningTable", "CoffeeTable", "SideTable"):
    CAN_CONTAIN[_table] = _TABLE_TOP
CAN_CONTAIN = dict(sorted(CAN_CONTAIN.items()))

#: The static receptacle classes (what ``receptacleType`` names), sorted.
RECEPTACLE_CLASSES = tuple(CAN_CONTAIN)
#: Classes a receptacle of which is ``openable`` (gen/constants.py:1232).
OPENABLE = frozenset({"Fridge", "Cabinet", "Microwave", "Drawer", "Safe", "Box"})
#: Classes the data set's problems mark ``pickupable``.
PICKUPABLE = frozenset({
    "AlarmClock", "Apple", "BaseballBat", "BasketBall", "Book", "Boots", "Bowl", "Box", "Bread", "ButterKnife", "CD",
    "Candle", "CellPhone", "Cloth", "CreditCard", "Cup", "DishSponge", "Egg", "Footstool", "Fork", "Glassbottle",
    "HandTowel", "Kettle", "KeyChain", "Knife", "Ladle", "Laptop", "Lettuce", "Mug", "Newspaper", "Pan",
    "PaperTowelRoll", "Pen", "Pencil", "PepperShaker", "Pillow", "Plate", "Plunger", "Pot", "Potato", "RemoteControl",
    "SaltShaker", "ScrubBrush", "SoapBar", "SoapBottle", "Spatula", "Spoon", "SprayBottle", "Statue", "TeddyBear",
    "TennisRacket", "TissueBox", "ToiletPaper", "Tomato", "Towel", "Vase", "Watch", "WateringCan", "WineBottle",
})  # fmt: skip
#: ``VAL_ACTION_OBJECTS`` (gen/constants.py:1134-1199) without the sliced classes.
HEATABLE = frozenset({"Apple", "Bread", "Cup", "Egg", "Mug", "Plate", "Potato", "Tomato"})
COOLABLE = frozenset({"Apple", "Bowl", "Bread", "Cup", "Egg", "Lettuce", "Mug", "Pan", "Plate", "Pot", "Potato",
                      "Tomato", "WineBottle"})  # fmt: skip
CLEANABLE = frozenset({"Apple", "Bowl", "ButterKnife", "Cloth", "Cup", "DishSponge", "Egg", "Fork", "Kettle", "Knife",
                       "Ladle", "Lettuce", "Mug", "Pan", "Plate", "Pot", "Potato", "SoapBar", "Spatula", "Spoon",
                       "Tomato"})  # fmt: skip
TOGGLEABLE = frozenset({"DeskLamp", "FloorLamp"})
SLICEABLE = frozenset({"Apple", "Bread", "Egg", "Lettuce", "Potato", "Tomato"})

#: Class -> the property facts an object of it carries, in the order the data set's problems list
#: them (pickupable, isReceptacleObject, cleanable, heatable, coolable, toggleable, sliceable).
OBJECT_PROPERTIES: dict[str, tuple[str, ...]] = {
    c: tuple(
        p
        for p, members in (
            ("pickupable", PICKUPABLE),
            ("isReceptacleObject", MOVABLE_RECEPTACLES),
            ("cleanable", CLEANABLE),
            ("heatable", HEATABLE),
            ("coolable", COOLABLE),
            ("toggleable", TOGGLEABLE),
            ("sliceable", SLICEABLE),
        )
        if c in members
    )
    for c in OBJECT_CLASSES
}

# fmt: off
#: Room type -> receptacle class -> its count in each of the 28 observed scenes that have one
#: (a class in 14 of 28 scenes has 14 counts). Kitchens always have a fridge, a microwave and a sink
#: basin; bathrooms always a sink basin and a toilet.
ROOM_RECEPTACLES: dict[str, dict[str, tuple[int, ...]]] = {
    "Kitchen": {
        "Cabinet": (2, 4, 4, 6, 8, 9, 9, 10, 10, 10, 11, 11, 12, 13, 13, 13, 13, 15, 16, 18, 19, 20, 20, 20, 21, 23,
                    26, 27),
        "CoffeeMachine": (1,) * 28,
        "CounterTop": (1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4),
        "DiningTable": (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3),
        "Drawer": (1, 1, 2, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 8, 9, 12, 12, 13, 27),
        "Fridge": (1,) * 28,
        "GarbageCan": (1,) * 28,
        "Microwave": (1,) * 28,
        "Safe": (1,),
        "Shelf": (3, 3, 3, 3, 3),
        "SideTable": (1, 1, 1),
        "SinkBasin": (1,) * 28,
        "StoveBurner": (4,) * 27 + (6,),
        "Toaster": (1,) * 28,
    },
    "LivingRoom": {
        "ArmChair": (1,) * 17 + (2,) * 8 + (3,),
        "Cabinet": (1, 4, 4, 8),
        "CoffeeTable": (1,) * 18 + (2,) * 5,
        "Desk": (1,),
        "DiningTable": (1,) * 11 + (2,) * 3,
        "Drawer": (1, 1, 1, 1, 1, 1, 2, 4, 4, 4, 4, 4, 4, 5, 6, 6, 7, 7, 7, 8, 12, 21),
        "Dresser": (1,) * 9 + (2,),
        "GarbageCan": (1,) * 28,
        "Ottoman": (1, 1, 1, 1),
        "Safe": (1, 1),
        "Shelf": (1, 2, 3, 4, 5, 6, 8, 8, 12, 13, 14),
        "SideTable": (1,) * 10 + (2,) * 6 + (3,) * 5 + (5,),
        "Sofa": (1,) * 22 + (2,) * 6,
        "TVStand": (1,) * 10 + (2, 2),
    },
    "Bedroom": {
        "ArmChair": (1, 1, 1, 1, 2, 3),
        "Bed": (1,) * 24 + (2,) * 4,
        "Cabinet": (1, 2, 4, 4),
        "CounterTop": (1,),
        "Desk": (1,) * 16 + (2,) * 3,
        "DiningTable": (1, 1, 1, 1),
        "Drawer": (2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 5, 5, 6, 6, 6, 8, 10, 10, 11, 11, 13, 16, 17),
        "Dresser": (1,) * 11 + (2, 2),
        "GarbageCan": (1,) * 28,
        "LaundryHamper": (1,) * 8,
        "Safe": (1,) * 5,
        "Shelf": (1, 1, 1, 1, 1, 1, 2, 2, 2, 5, 5, 5, 6, 6, 7, 8, 9, 12, 14),
        "SideTable": (1,) * 12 + (2,) * 6,
    },
    "Bathroom": {
        "BathtubBasin": (1,) * 19,
        "Cabinet": (2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 9),
        "Cart": (1, 1),
        "CounterTop": (1,) * 20 + (2,) * 4,
        "Drawer": (1, 1, 2, 2, 2, 4, 4, 4, 4, 6, 6, 8, 8, 8, 8),
        "Dresser": (1, 1),
        "GarbageCan": (1,) * 28,
        "HandTowelHolder": (1,) * 16 + (2,) * 11 + (4,),
        "Shelf": (1, 1, 1, 2, 2, 3, 4),
        "SideTable": (1, 1),
        "SinkBasin": (1,) * 14 + (2,) * 14,
        "Toilet": (1,) * 28,
        "ToiletPaperHanger": (1,) * 28,
        "TowelHolder": (1,) * 20 + (2,) * 8,
    },
}

#: Room type -> the number of receptacles of each of its 28 observed scenes.
ROOM_TOTALS: dict[str, tuple[int, ...]] = {
    "Kitchen": (20, 20, 22, 24, 24, 25, 27, 27, 28, 29, 29, 29, 30, 33, 33, 34, 35, 36, 36, 36, 39, 39, 39, 40, 41, 51,
                52, 54),
    "LivingRoom": (6, 8, 8, 8, 9, 9, 11, 11, 12, 12, 12, 13, 13, 14, 14, 14, 15, 15, 16, 16, 16, 16, 18, 20, 22, 27,
                   31, 35),
    "Bedroom": (7, 7, 8, 9, 9, 9, 9, 10, 11, 11, 11, 11, 12, 14, 14, 15, 16, 17, 17, 18, 19, 20, 21, 22, 22, 22, 25,
                27),
    "Bathroom": (10, 10, 10, 10, 11, 11, 12, 12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 16, 16, 16, 17, 17, 17, 18,
                 18, 19, 21),
}

#: Room type -> pickupable object class -> percent of the room's train games that have it in a
#: receptacle. Left out: TeddyBear and PaperTowelRoll (the files put them where no ``canContain``
#: allows), and classes under 3 %.
ROOM_OBJECTS: dict[str, dict[str, int]] = {
    "Kitchen": {"SaltShaker": 100, "PepperShaker": 100, "Bowl": 100, "Bread": 100, "Pot": 100, "Pan": 100,
                "Spatula": 100, "Cup": 100, "Tomato": 99, "Apple": 99, "SoapBottle": 99, "Egg": 99, "Potato": 99,
                "DishSponge": 99, "Spoon": 99, "Mug": 98, "Knife": 98, "Fork": 98, "Lettuce": 98, "Plate": 97,
                "ButterKnife": 95, "Kettle": 52, "WineBottle": 42, "Ladle": 35, "Glassbottle": 23, "Vase": 15,
                "Statue": 15, "Book": 11, "CellPhone": 11, "CreditCard": 9, "Pencil": 7, "SprayBottle": 7, "Pen": 6},
    "LivingRoom": {"CreditCard": 100, "Pillow": 100, "Laptop": 100, "RemoteControl": 97, "Statue": 96,
                   "KeyChain": 92, "Box": 86, "Newspaper": 62, "Watch": 49, "Vase": 49, "Plate": 35, "TissueBox": 34,
                   "Book": 26, "CellPhone": 21, "Pen": 20, "Pencil": 16, "Bowl": 11, "Candle": 9, "WateringCan": 9},
    "Bedroom": {"CreditCard": 100, "Pillow": 100, "CellPhone": 100, "Laptop": 100, "Pen": 100, "Book": 100,
                "Pencil": 100, "AlarmClock": 99, "KeyChain": 98, "CD": 93, "Mug": 49, "Bowl": 45, "Statue": 15,
                "TissueBox": 14, "RemoteControl": 12, "Box": 9, "Watch": 7, "Vase": 6},
    "Bathroom": {"HandTowel": 100, "Towel": 100, "SprayBottle": 100, "Cloth": 100, "ToiletPaper": 99, "SoapBar": 97,
                 "Candle": 97, "SoapBottle": 96, "TissueBox": 25, "DishSponge": 23},
}

#: Percent of object classes present with 1, 2 or 3 instances (the data set's games; above three,
#: under 1 %, the limit being gen/constants.py:21).
ROOM_INSTANCES = {1: 43, 2: 32, 3: 25}

#: Object class -> receptacle class -> percent of its train-game instances lying there (pairs
#: ``canContain`` allows, at least 1 %).
PLACEMENT: dict[str, dict[str, int]] = {
    "AlarmClock": {"Desk": 34, "Shelf": 21, "SideTable": 19, "Dresser": 17, "DiningTable": 7, "CounterTop": 1},
    "Apple": {"CounterTop": 25, "Fridge": 24, "DiningTable": 15, "Microwave": 13, "GarbageCan": 12, "SinkBasin": 9,
              "SideTable": 2},
    "Book": {"Bed": 37, "Desk": 14, "CounterTop": 10, "Drawer": 10, "Dresser": 6, "DiningTable": 5, "Cabinet": 4,
             "SideTable": 4, "CoffeeTable": 3, "ArmChair": 3, "Sofa": 2, "Shelf": 2},
    "Bowl": {"Cabinet": 30, "CounterTop": 18, "Fridge": 17, "DiningTable": 15, "Desk": 6, "Shelf": 6, "SinkBasin": 3,
             "Microwave": 2, "Dresser": 2, "SideTable": 1, "CoffeeTable": 1},
    "Box": {"DiningTable": 24, "Sofa": 22, "CoffeeTable": 21, "Shelf": 8, "SideTable": 8, "Desk": 7, "Cabinet": 4,
            "Dresser": 3, "ArmChair": 3},
    "Bread": {"CounterTop": 55, "DiningTable": 31, "Fridge": 12, "SideTable": 1, "GarbageCan": 1},
    "ButterKnife": {"CounterTop": 59, "DiningTable": 27, "Drawer": 8, "SinkBasin": 5, "SideTable": 1},
    "CD": {"Drawer": 29, "Desk": 20, "Dresser": 14, "SideTable": 13, "GarbageCan": 8, "Shelf": 8, "DiningTable": 6,
           "Cabinet": 2, "Safe": 1},
    "Candle": {"CounterTop": 28, "Toilet": 28, "Drawer": 12, "Cabinet": 12, "Shelf": 6, "SideTable": 6,
               "CoffeeTable": 2, "DiningTable": 2, "Cart": 2, "Dresser": 1},
    "CellPhone": {"Bed": 21, "Drawer": 21, "Desk": 13, "Dresser": 9, "SideTable": 9, "CounterTop": 7,
                  "DiningTable": 6, "Shelf": 6, "ArmChair": 3, "CoffeeTable": 2, "Safe": 2, "Sofa": 1},
    "Cloth": {"BathtubBasin": 30, "Cabinet": 20, "CounterTop": 17, "Drawer": 15, "SinkBasin": 8, "Shelf": 4,
              "Toilet": 3, "Cart": 1, "Dresser": 1},
    "CreditCard": {"Drawer": 25, "Shelf": 14, "SideTable": 13, "Desk": 10, "Dresser": 9, "Sofa": 7, "ArmChair": 7,
                   "CounterTop": 6, "CoffeeTable": 6, "DiningTable": 5},
    "Cup": {"Cabinet": 23, "CounterTop": 21, "Fridge": 21, "DiningTable": 15, "SinkBasin": 9, "Microwave": 7,
            "SideTable": 2, "Shelf": 2},
    "DishSponge": {"CounterTop": 25, "Cabinet": 22, "Drawer": 21, "DiningTable": 12, "SinkBasin": 8, "GarbageCan": 5,
                   "Shelf": 3, "BathtubBasin": 2, "SideTable": 1, "Toilet": 1},
    "Egg": {"Fridge": 25, "CounterTop": 24, "SinkBasin": 13, "GarbageCan": 13, "Microwave": 12, "DiningTable": 12,
            "SideTable": 2},
    "Fork": {"CounterTop": 44, "DiningTable": 24, "Drawer": 22, "SinkBasin": 9, "SideTable": 2},
    "Glassbottle": {"Cabinet": 33, "CounterTop": 29, "DiningTable": 15, "SinkBasin": 10, "Fridge": 10, "Shelf": 4},
    "HandTowel": {"HandTowelHolder": 96, "CounterTop": 4},
    "Kettle": {"StoveBurner": 41, "CounterTop": 25, "Cabinet": 24, "DiningTable": 7, "SinkBasin": 2},
    "KeyChain": {"Drawer": 23, "SideTable": 16, "Shelf": 12, "Desk": 12, "Dresser": 11, "CoffeeTable": 7,
                 "DiningTable": 5, "ArmChair": 5, "Sofa": 4, "Safe": 3, "Ottoman": 1},
    "Knife": {"CounterTop": 48, "DiningTable": 25, "Drawer": 21, "SinkBasin": 5, "SideTable": 1},
    "Ladle": {"CounterTop": 41, "Cabinet": 25, "Drawer": 17, "DiningTable": 14, "SinkBasin": 2},
    "Laptop": {"Bed": 48, "Desk": 12, "Sofa": 10, "DiningTable": 9, "CoffeeTable": 9, "Dresser": 5, "SideTable": 3,
               "ArmChair": 2, "Ottoman": 1, "CounterTop": 1},
    "Lettuce": {"CounterTop": 41, "DiningTable": 28, "Fridge": 23, "SinkBasin": 5, "SideTable": 2, "GarbageCan": 1},
    "Mug": {"CounterTop": 24, "CoffeeMachine": 15, "Cabinet": 14, "Fridge": 12, "DiningTable": 10, "Microwave": 6,
            "Desk": 5, "SinkBasin": 5, "Shelf": 4, "SideTable": 3, "Dresser": 2},
    "Newspaper": {"Sofa": 20, "CoffeeTable": 18, "DiningTable": 17, "SideTable": 14, "Shelf": 11, "Dresser": 8,
                  "ArmChair": 7, "Drawer": 2, "Ottoman": 1},
    "Pan": {"StoveBurner": 52, "CounterTop": 33, "Cabinet": 7, "DiningTable": 4, "Fridge": 4},
    "Pen": {"Desk": 22, "Drawer": 17, "Dresser": 14, "SideTable": 13, "Shelf": 13, "DiningTable": 9, "CounterTop": 5,
            "CoffeeTable": 3, "GarbageCan": 2},
    "Pencil": {"Drawer": 20, "Desk": 19, "SideTable": 17, "Shelf": 14, "Dresser": 10, "DiningTable": 8,
               "GarbageCan": 6, "CounterTop": 4, "CoffeeTable": 2},
    "PepperShaker": {"Cabinet": 33, "CounterTop": 30, "DiningTable": 16, "Drawer": 15, "Shelf": 3, "SideTable": 2},
    "Pillow": {"Bed": 69, "Sofa": 24, "ArmChair": 6},
    "Plate": {"Cabinet": 37, "CounterTop": 28, "DiningTable": 19, "Fridge": 8, "Shelf": 3, "SinkBasin": 2,
              "CoffeeTable": 2, "SideTable": 1},
    "Pot": {"StoveBurner": 73, "CounterTop": 14, "Fridge": 4, "DiningTable": 4, "Cabinet": 3},
    "Potato": {"CounterTop": 28, "Fridge": 26, "DiningTable": 17, "SinkBasin": 11, "Microwave": 10, "GarbageCan": 6,
               "SideTable": 1},
    "RemoteControl": {"CoffeeTable": 22, "Sofa": 17, "SideTable": 14, "DiningTable": 11, "Drawer": 9, "ArmChair": 8,
                      "Dresser": 8, "Desk": 5, "Shelf": 3, "Ottoman": 1, "CounterTop": 1},
    "SaltShaker": {"CounterTop": 32, "Cabinet": 32, "DiningTable": 18, "Drawer": 14, "Shelf": 3, "SideTable": 2},
    "SoapBar": {"CounterTop": 20, "Toilet": 16, "SinkBasin": 15, "Cabinet": 12, "BathtubBasin": 12, "Drawer": 11,
                "GarbageCan": 7, "Shelf": 4, "SideTable": 2, "Cart": 1},
    "SoapBottle": {"CounterTop": 32, "Cabinet": 28, "DiningTable": 15, "GarbageCan": 10, "Toilet": 6, "Shelf": 5,
                   "Drawer": 2, "SideTable": 1},
    "Spatula": {"CounterTop": 45, "DiningTable": 25, "Drawer": 21, "SinkBasin": 9, "SideTable": 1},
    "Spoon": {"CounterTop": 38, "Drawer": 28, "DiningTable": 22, "SinkBasin": 11, "SideTable": 2},
    "SprayBottle": {"CounterTop": 32, "Toilet": 23, "Cabinet": 18, "GarbageCan": 10, "Shelf": 6, "Cart": 3,
                    "DiningTable": 3, "SideTable": 2, "Dresser": 1},
    "Statue": {"Shelf": 30, "CoffeeTable": 17, "CounterTop": 15, "DiningTable": 14, "SideTable": 13, "Dresser": 8,
               "Desk": 3},
    "TissueBox": {"Shelf": 18, "CoffeeTable": 15, "Drawer": 14, "CounterTop": 13, "DiningTable": 11, "SideTable": 11,
                  "Desk": 8, "TVStand": 3, "Cabinet": 2, "Cart": 2, "Dresser": 1, "Toilet": 1, "GarbageCan": 1},
    "ToiletPaper": {"Toilet": 23, "CounterTop": 23, "ToiletPaperHanger": 12, "Drawer": 11, "Cabinet": 11,
                    "GarbageCan": 9, "Shelf": 5, "Dresser": 2, "Cart": 2, "SideTable": 1},
    "Tomato": {"Fridge": 33, "CounterTop": 30, "DiningTable": 20, "GarbageCan": 9, "SinkBasin": 7, "SideTable": 2},
    "Towel": {"TowelHolder": 100},
    "Vase": {"Shelf": 35, "CounterTop": 16, "Cabinet": 15, "CoffeeTable": 10, "DiningTable": 9, "Dresser": 8,
             "SideTable": 6, "Desk": 1},
    "Watch": {"Drawer": 25, "CoffeeTable": 23, "SideTable": 18, "DiningTable": 13, "Dresser": 12, "Shelf": 7,
              "Desk": 3},
    "WateringCan": {"CoffeeTable": 53, "Shelf": 38, "SideTable": 9},
    "WineBottle": {"CounterTop": 37, "Cabinet": 25, "DiningTable": 24, "GarbageCan": 9, "Shelf": 3, "Fridge": 1},
}

#: Room type -> objects that are not pickupable yet lie in a receptacle, shown in the text like
#: any other (``a desklamp 1``): (class, observed scenes having it, receptacle class -> scenes).
#: The desk lamp, the lamp of every light task, stands on a desk, dresser, side table, shelf or
#: coffee table.
ROOM_DECOR: dict[str, tuple[tuple[str, int, dict[str, int]], ...]] = {
    "Kitchen": (("HousePlant", 10, {"CounterTop": 8, "DiningTable": 2}),),
    "LivingRoom": (
        ("Television", 21, {"TVStand": 11, "Dresser": 7, "CoffeeTable": 2, "SideTable": 1}),
        ("HousePlant", 15, {"SideTable": 8, "CoffeeTable": 4, "DiningTable": 1, "Dresser": 1, "TVStand": 1}),
        ("DeskLamp", 6, {"SideTable": 5, "CoffeeTable": 1}),
    ),
    "Bedroom": (
        ("DeskLamp", 19, {"Desk": 8, "Dresser": 5, "SideTable": 5, "Shelf": 2}),
        ("HousePlant", 6, {"Shelf": 3, "Desk": 2, "Dresser": 1}),
        ("Television", 1, {"Dresser": 1}),
    ),
    "Bathroom": (("Mirror", 3, {"CounterTop": 3}), ("HousePlant", 1, {"SideTable": 1})),
}

#: Room type -> objects in no receptacle (on the floor or on a wall; the text never shows them):
#: (class, observed scenes having it, most instances). Some are pickupable (a plunger, a baseball
#: bat) but, in no receptacle, cannot be taken.
ROOM_FIXTURES: dict[str, tuple[tuple[str, int, int], ...]] = {
    "Kitchen": (("StoveKnob", 28, 6), ("LightSwitch", 28, 1), ("Window", 25, 2), ("Chair", 23, 4)),
    "LivingRoom": (("FloorLamp", 28, 1), ("LightSwitch", 28, 1), ("Painting", 28, 3), ("Window", 26, 2),
                   ("Chair", 19, 4)),
    "Bedroom": (("LightSwitch", 28, 1), ("Window", 26, 2), ("Mirror", 26, 1), ("Blinds", 25, 2), ("Chair", 22, 2),
                ("Painting", 12, 3), ("BaseballBat", 12, 1), ("BasketBall", 11, 1), ("TennisRacket", 10, 1),
                ("Boots", 3, 1)),
    "Bathroom": (("ScrubBrush", 28, 1), ("Plunger", 28, 1), ("LightSwitch", 28, 1), ("Mirror", 25, 1),
                 ("Window", 18, 1), ("ShowerDoor", 16, 1)),
}

#: Receptacle class -> (lowest, highest) height in metres of its id's y coordinate in the data set.
RECEPTACLE_HEIGHTS: dict[str, tuple[float, float]] = {
    "ArmChair": (0.0, 0.0), "BathtubBasin": (0.2, 0.6), "Bed": (0.0, 0.0), "Cabinet": (0.26, 2.5),
    "Cart": (0.0, 0.0), "CoffeeMachine": (0.71, 1.31), "CoffeeTable": (0.0, 0.1), "CounterTop": (0.9, 1.0),
    "Desk": (0.0, 0.0), "DiningTable": (0.0, 0.0), "Drawer": (0.05, 1.07), "Dresser": (0.0, 0.0),
    "Fridge": (0.0, 0.0), "GarbageCan": (0.0, 0.0), "HandTowelHolder": (1.44, 1.94), "LaundryHamper": (0.0, 0.04),
    "Microwave": (0.69, 1.75), "Ottoman": (0.0, 0.03), "Safe": (0.0, 0.0), "Shelf": (0.01, 1.97),
    "SideTable": (0.0, 0.0), "SinkBasin": (0.8, 1.14), "Sofa": (0.0, 0.1), "StoveBurner": (0.82, 1.33),
    "TVStand": (0.0, 0.0), "Toaster": (0.81, 1.31), "Toilet": (0.0, 0.03), "ToiletPaperHanger": (0.65, 1.13),
    "TowelHolder": (0.86, 1.83),
}
# fmt: on
