"""ALFWorld's six task types: their parameters, goal formulas, goal texts and task ids.

A task is ALFRED's ``pddl_params`` (:class:`TaskParams`: the task type and the object, receptacle,
lamp and movable-receptacle classes it names, in ALFRED's spelling such as ``"Egg"`` or
``"CounterTop"``). From it come

- the goal formula (:func:`goal_formula`), exactly what :func:`~gui_gym.alfworld.pddl.parse_problem`
  reads from the goal upstream writes for that type (alfworld/gen/goal_library.py: simple :18,
  clean :47, heat :76, cool :103, two :130, light :164; its ``#`` stands for PDDL's ``-``,
  alfworld/gen/game_states/planned_game_state.py:15-23), and its PDDL text (:func:`goal_pddl`);
- the goal text (:func:`goal_text`): one of upstream's two templates for the type, with the class
  names lower-cased as alfworld/agents/utils/misc.py:79-92 fills them in;
- the task id (:func:`task_id`), shaped like the data set's directories:
  ``pick_heat_then_place_in_recep-Egg-None-CounterTop-12/trial_T20190908_123456_789012``
  (``<type>-<object>-<movable receptacle>-<receptacle, or the lamp for the light task>-<scene>``).

It also holds what upstream's data set says about how often each type, object and receptacle
occurs (``UPSTREAM_*``), which the world generator samples from.

Example:
    >>> import random
    >>> p = TaskParams("pick_heat_then_place_in_recep", "Egg", "CounterTop")
    >>> goal_text(p, random.Random(1)) in ("put a hot egg in countertop", "heat some egg and put it in countertop")
    True
    >>> task_id(p, 12, "trial_T20190908_123456_789012")
    'pick_heat_then_place_in_recep-Egg-None-CounterTop-12/trial_T20190908_123456_789012'
    >>> goal_formula(TaskParams("look_at_obj_in_light", "Book", None, "DeskLamp"))[2]
    ('exists', {'?o': 'object', '?a': 'agent'}, ('and', ('objecttype', '?o', 'BookType'), ('holds', '?a', '?o')))
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

from gui_gym.alfworld import vocabulary as voc
from gui_gym.alfworld.pddl import format_goal

__all__ = [
    "TASK_TYPES",
    "TEMPLATES",
    "UPSTREAM_OBJECTS",
    "UPSTREAM_RECEPTACLES",
    "UPSTREAM_ROOMS",
    "UPSTREAM_SPLIT_TYPES",
    "TaskParams",
    "goal_formula",
    "goal_pddl",
    "goal_text",
    "parse_task_id",
    "task_id",
]

#: The six task types, numbered 1..6 as upstream numbers them (ALFWorld's ``task_types`` option).
TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)
LIGHT = "look_at_obj_in_light"

#: Upstream's two goal-text templates per type (alfworld/gen/goal_library.py:36-37, :66-67,
#: :95-96, :122-123, :155-156, :193-194).
TEMPLATES: dict[str, tuple[str, str]] = {
    "pick_and_place_simple": ("put a {obj} in {recep}", "put some {obj} on {recep}"),
    "look_at_obj_in_light": ("look at {obj} under the {toggle}", "examine the {obj} with the {toggle}"),
    "pick_clean_then_place_in_recep": ("put a clean {obj} in {recep}", "clean some {obj} and put it in {recep}"),
    "pick_heat_then_place_in_recep": ("put a hot {obj} in {recep}", "heat some {obj} and put it in {recep}"),
    "pick_cool_then_place_in_recep": ("put a cool {obj} in {recep}", "cool some {obj} and put it in {recep}"),
    "pick_two_obj_and_place": ("put two {obj} in {recep}", "find two {obj} and put them in {recep}"),
}

# -- upstream statistics ---------------------------------------------------------------------------
# Counted over ALFWorld's data set (json_2.1.1, the game.tw-pddl files marked solvable): the task
# type, object class, receptacle class and scene are the parts of each game's directory name. The
# train split holds 3,553 games, valid_seen 140 and valid_unseen 134. Only DeskLamp is ever the lamp
# of a light task, no task slices its object and none names a movable receptacle.

#: Games per task type in each upstream split (train / valid_seen / valid_unseen).
UPSTREAM_SPLIT_TYPES: dict[str, dict[str, int]] = {
    "train": {
        "pick_and_place_simple": 790,
        "look_at_obj_in_light": 308,
        "pick_clean_then_place_in_recep": 650,
        "pick_heat_then_place_in_recep": 459,
        "pick_cool_then_place_in_recep": 533,
        "pick_two_obj_and_place": 813,
    },
    "valid_seen": {
        "pick_and_place_simple": 35,
        "look_at_obj_in_light": 13,
        "pick_clean_then_place_in_recep": 27,
        "pick_heat_then_place_in_recep": 16,
        "pick_cool_then_place_in_recep": 25,
        "pick_two_obj_and_place": 24,
    },
    "valid_unseen": {
        "pick_and_place_simple": 24,
        "look_at_obj_in_light": 18,
        "pick_clean_then_place_in_recep": 31,
        "pick_heat_then_place_in_recep": 23,
        "pick_cool_then_place_in_recep": 21,
        "pick_two_obj_and_place": 17,
    },
}

#: Train games per task type and room type (light tasks only in bedrooms and living rooms, heat
#: and cool only in kitchens, clean in kitchens and bathrooms: alfworld/gen/constants.py:44-50).
UPSTREAM_ROOMS: dict[str, dict[str, int]] = {
    "pick_and_place_simple": {"Kitchen": 79, "LivingRoom": 210, "Bedroom": 237, "Bathroom": 264},
    "look_at_obj_in_light": {"LivingRoom": 51, "Bedroom": 257},
    "pick_clean_then_place_in_recep": {"Kitchen": 501, "Bathroom": 149},
    "pick_heat_then_place_in_recep": {"Kitchen": 459},
    "pick_cool_then_place_in_recep": {"Kitchen": 533},
    "pick_two_obj_and_place": {"Kitchen": 124, "LivingRoom": 216, "Bedroom": 240, "Bathroom": 233},
}

# fmt: off
#: Train games per task type and object class (``object_target``).
UPSTREAM_OBJECTS: dict[str, dict[str, int]] = {
    "pick_and_place_simple": {
        "AlarmClock": 22, "Book": 47, "Bowl": 5, "Box": 19, "Bread": 3, "ButterKnife": 6, "CD": 30,
        "Candle": 49, "CellPhone": 51, "Cloth": 10, "CreditCard": 33, "DishSponge": 9, "Egg": 4, "Fork": 2,
        "Glassbottle": 9, "HandTowel": 29, "Kettle": 9, "KeyChain": 52, "Knife": 1, "Laptop": 21, "Lettuce": 2,
        "Mug": 3, "Newspaper": 17, "Pan": 5, "Pen": 20, "Pencil": 24, "PepperShaker": 12, "Pillow": 17,
        "Plate": 3, "Potato": 3, "RemoteControl": 33, "SaltShaker": 3, "SoapBar": 6, "SoapBottle": 51,
        "SprayBottle": 50, "Statue": 22, "TissueBox": 16, "ToiletPaper": 57, "Tomato": 8, "Vase": 10,
        "Watch": 12, "WineBottle": 5,
    },
    "look_at_obj_in_light": {
        "AlarmClock": 41, "Book": 30, "Bowl": 17, "Box": 9, "CD": 33, "CellPhone": 9, "CreditCard": 5,
        "KeyChain": 4, "Laptop": 20, "Mug": 4, "Newspaper": 14, "Pen": 18, "Pencil": 23, "Pillow": 47,
        "Plate": 3, "Statue": 11, "TissueBox": 10, "Vase": 4, "Watch": 6,
    },
    "pick_clean_then_place_in_recep": {
        "Apple": 25, "Bowl": 26, "ButterKnife": 26, "Cloth": 47, "Cup": 20, "DishSponge": 23, "Egg": 23,
        "Fork": 23, "Kettle": 47, "Knife": 33, "Ladle": 38, "Lettuce": 31, "Mug": 32, "Pan": 28, "Plate": 22,
        "Pot": 16, "Potato": 25, "SoapBar": 84, "Spatula": 29, "Spoon": 26, "Tomato": 26,
    },
    "pick_heat_then_place_in_recep": {
        "Apple": 52, "Bread": 12, "Cup": 71, "Egg": 70, "Mug": 102, "Plate": 39, "Potato": 60, "Tomato": 53,
    },
    "pick_cool_then_place_in_recep": {
        "Apple": 44, "Bowl": 49, "Bread": 40, "Cup": 40, "Egg": 25, "Lettuce": 37, "Mug": 74, "Pan": 46,
        "Plate": 25, "Pot": 57, "Potato": 44, "Tomato": 34, "WineBottle": 18,
    },
    "pick_two_obj_and_place": {
        "AlarmClock": 21, "Apple": 1, "Book": 37, "Bowl": 9, "Box": 3, "Bread": 3, "CD": 26, "Candle": 35,
        "CellPhone": 53, "Cloth": 6, "CreditCard": 52, "Cup": 14, "DishSponge": 7, "Egg": 4, "Glassbottle": 3,
        "HandTowel": 16, "Kettle": 6, "KeyChain": 34, "Knife": 2, "Ladle": 4, "Laptop": 11, "Lettuce": 11,
        "Mug": 5, "Newspaper": 36, "Pan": 2, "Pen": 28, "Pencil": 28, "PepperShaker": 22, "Pillow": 7,
        "Plate": 5, "Pot": 3, "Potato": 4, "RemoteControl": 43, "SaltShaker": 25, "SoapBar": 16,
        "SoapBottle": 44, "Spatula": 6, "Spoon": 5, "SprayBottle": 58, "Statue": 10, "TissueBox": 26,
        "ToiletPaper": 43, "Tomato": 3, "Vase": 14, "Watch": 13, "WateringCan": 3, "WineBottle": 6,
    },
}

#: Train games per task type and receptacle class (``parent_target``; the lamp for light tasks).
UPSTREAM_RECEPTACLES: dict[str, dict[str, int]] = {
    "pick_and_place_simple": {
        "ArmChair": 71, "Bed": 19, "Cabinet": 33, "Cart": 12, "CoffeeTable": 43, "CounterTop": 35, "Desk": 57,
        "DiningTable": 27, "Drawer": 39, "Dresser": 45, "Fridge": 7, "GarbageCan": 53, "Microwave": 15,
        "Ottoman": 20, "Safe": 18, "Shelf": 52, "SideTable": 57, "Sofa": 53, "StoveBurner": 3, "Toilet": 89,
        "ToiletPaperHanger": 42,
    },
    "look_at_obj_in_light": {"DeskLamp": 308},
    "pick_clean_then_place_in_recep": {
        "Cabinet": 58, "Cart": 11, "CoffeeMachine": 32, "CounterTop": 96, "DiningTable": 99, "Drawer": 82,
        "Dresser": 2, "Fridge": 40, "GarbageCan": 31, "Microwave": 50, "Shelf": 40, "SideTable": 40,
        "StoveBurner": 37, "Toilet": 32,
    },
    "pick_heat_then_place_in_recep": {
        "Cabinet": 71, "CoffeeMachine": 55, "CounterTop": 66, "DiningTable": 43, "Fridge": 105, "GarbageCan": 55,
        "Shelf": 20, "SideTable": 44,
    },
    "pick_cool_then_place_in_recep": {
        "Cabinet": 64, "CoffeeMachine": 47, "CounterTop": 89, "DiningTable": 93, "GarbageCan": 46,
        "Microwave": 97, "Shelf": 45, "SideTable": 13, "StoveBurner": 39,
    },
    "pick_two_obj_and_place": {
        "ArmChair": 68, "Bed": 31, "Cabinet": 67, "Cart": 16, "CoffeeTable": 50, "CounterTop": 37, "Desk": 55,
        "DiningTable": 29, "Drawer": 112, "Dresser": 48, "Fridge": 19, "GarbageCan": 52, "Microwave": 11,
        "Ottoman": 11, "Safe": 7, "Shelf": 52, "SideTable": 42, "Sofa": 47, "Toilet": 59,
    },
}
# fmt: on

# The state predicate and property each state-changing type asks of its object.
_STATE = {
    "pick_clean_then_place_in_recep": ("cleanable", "isclean"),
    "pick_heat_then_place_in_recep": ("heatable", "ishot"),
    "pick_cool_then_place_in_recep": ("coolable", "iscool"),
}
_TRIAL = re.compile(r"trial_T\d{8}_\d{6}_\d{6}")


@dataclass(frozen=True)
class TaskParams:
    """ALFRED's ``pddl_params`` of one task. Classes are spelt as ALFRED spells them (``"Egg"``,
    ``"CounterTop"``, ``"DeskLamp"``); a class the task does not name is None (an empty string,
    as ALFRED's files write it, is read as None). The light task names ``toggle_target`` and no
    ``parent_target``; the other five name ``parent_target`` and no lamp. Neither ALFWorld's six
    types nor its data set use ``mrecep_target`` or ``object_sliced``, so both are refused."""

    task_type: str
    object_target: str
    parent_target: str | None = None
    toggle_target: str | None = None
    mrecep_target: str | None = None
    object_sliced: bool = False

    def __post_init__(self) -> None:
        for name in ("parent_target", "toggle_target", "mrecep_target"):
            if getattr(self, name) == "":
                object.__setattr__(self, name, None)
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {self.task_type!r}; the types are {', '.join(TASK_TYPES)}")
        if self.object_target not in voc.OBJECT_CLASSES:
            raise ValueError(f"{self.object_target!r} is not an ALFRED object class (vocabulary.OBJECT_CLASSES)")
        if self.mrecep_target is not None or self.object_sliced:
            raise ValueError("ALFWorld's six task types use no movable receptacle and no sliced object")
        if self.task_type == LIGHT:
            if self.toggle_target not in voc.TOGGLEABLE or self.parent_target is not None:
                raise ValueError(
                    f"look_at_obj_in_light names a lamp ({', '.join(sorted(voc.TOGGLEABLE))}) as toggle_target "
                    f"and no parent_target; got toggle_target={self.toggle_target!r}, "
                    f"parent_target={self.parent_target!r}"
                )
        elif self.parent_target not in voc.RECEPTACLE_CLASSES or self.toggle_target is not None:
            raise ValueError(
                f"{self.task_type} names a receptacle class as parent_target (vocabulary.RECEPTACLE_CLASSES) "
                f"and no toggle_target; got parent_target={self.parent_target!r}, "
                f"toggle_target={self.toggle_target!r}"
            )

    @property
    def receptacle(self) -> str:
        """The class in the fourth part of the task id: the receptacle, or the lamp for light tasks."""
        return self.toggle_target if self.task_type == LIGHT else self.parent_target  # type: ignore[return-value]


def goal_formula(params: TaskParams) -> tuple[Any, ...]:
    """The goal as nested tuples, equal to what ``parse_problem`` reads from upstream's goal PDDL
    for this task (operators and predicates lower-case, quantified variables as typed dicts)."""
    obj = f"{params.object_target}Type"
    t = params.task_type
    if t == LIGHT:
        lamp = ("and", ("objecttype", "?ot", f"{params.toggle_target}Type"), ("toggleable", "?ot"),
                ("istoggled", "?ot"), ("receptacleatlocation", "?r", "?l"), ("atlocation", "?a", "?l"),
                ("inreceptacle", "?ot", "?r"))  # fmt: skip
        held = ("and", ("objecttype", "?o", obj), ("holds", "?a", "?o"))
        return (
            "and",
            ("exists", {"?ot": "object", "?r": "receptacle", "?a": "agent", "?l": "location"}, lamp),
            ("exists", {"?o": "object", "?a": "agent"}, held),
        )
    recep = f"{params.parent_target}Type"
    if t == "pick_two_obj_and_place":
        second = ("and", ("not", ("=", "?o1", "?o2")), ("objecttype", "?o2", obj), ("receptacletype", "?r", recep),
                  ("inreceptacle", "?o2", "?r"))  # fmt: skip
        first = ("and", ("objecttype", "?o1", obj), ("receptacletype", "?r", recep), ("inreceptacle", "?o1", "?r"),
                 ("exists", {"?o2": "object"}, second))  # fmt: skip
        return ("and", ("exists", {"?r": "receptacle"}, ("exists", {"?o1": "object"}, first)))
    if t in _STATE:
        prop, state = _STATE[t]
        body = ("and", (prop, "?o"), ("objecttype", "?o", obj), ("receptacletype", "?r", recep), (state, "?o"),
                ("inreceptacle", "?o", "?r"))  # fmt: skip
    else:
        body = ("and", ("inreceptacle", "?o", "?r"), ("objecttype", "?o", obj), ("receptacletype", "?r", recep))
    return ("and", ("exists", {"?r": "receptacle"}, ("exists", {"?o": "object"}, body)))


def goal_pddl(params: TaskParams) -> str:
    """The ``(:goal ...)`` PDDL text of the task: a problem holding it parses to :func:`goal_formula`."""
    return format_goal(goal_formula(params))


def goal_text(params: TaskParams, rng: random.Random) -> str:
    """The task line the game shows (without ``Your task is to:``): one of upstream's two
    templates for the type, picked with ``rng``, names lower-cased."""
    template = rng.choice(TEMPLATES[params.task_type])
    return template.format(
        obj=params.object_target.lower(),
        recep=(params.parent_target or "").lower(),
        toggle=(params.toggle_target or "").lower(),
    )


def task_id(params: TaskParams, scene: int, trial: str) -> str:
    """``<type>-<object>-<movable receptacle or None>-<receptacle or lamp>-<scene>/<trial>``, the
    data set's directory of the game (``trial`` is ``trial_TYYYYMMDD_HHMMSS_ffffff``)."""
    if not _TRIAL.fullmatch(trial):
        raise ValueError(f"a trial name looks like 'trial_T20190908_123456_789012', got {trial!r}")
    voc.room_of(scene)  # a scene number ALFRED has
    return f"{params.task_type}-{params.object_target}-{params.mrecep_target}-{params.receptacle}-{scene}/{trial}"


def parse_task_id(text: str) -> tuple[TaskParams, int, str | None]:
    """The parameters, scene and trial name (None when absent) of a task id or data-set directory
    name such as ``look_at_obj_in_light-Book-None-DeskLamp-301/trial_T20190907_174127_043461``."""
    head, _, trial = text.strip("/").partition("/")
    parts = head.split("-")
    if len(parts) != 5 or not parts[4].isdigit():
        raise ValueError(f"a task id reads <type>-<object>-<mrecep>-<receptacle>-<scene>[/trial...], got {text!r}")
    ttype, obj, mrecep, recep, scene = parts
    none = None if mrecep == "None" else mrecep
    if ttype == LIGHT:
        params = TaskParams(ttype, obj, None, recep, none)
    else:
        params = TaskParams(ttype, obj, recep, None, none)
    if trial and not _TRIAL.fullmatch(trial):
        raise ValueError(f"a trial name looks like 'trial_T20190908_123456_789012', got {trial!r}")
    return params, int(scene), trial or None
