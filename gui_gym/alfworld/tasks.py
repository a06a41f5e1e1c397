"""ALFWorld's six task types: their goals (PDDL), goal texts and task ids, as upstream writes them.

The goals follow ``alfworld/gen/goal_library.py`` (alfworld 0.4.2; pick_and_place_simple :37, clean :68,
heat :97, cool :124, pick_two :157, look_at_obj_in_light :194), the goal texts its two templates per
type with the class names lower-cased (``misc.py:78-90``), and the task ids the data set's directory
names ``<type>-<Object>-<MovableRecep|None>-<Parent>-<scene>/trial_T<date>_<time>_<micro>``.

Example:
    >>> p = TaskParams("pick_heat_then_place_in_recep", "Egg", "CounterTop")
    >>> goal_text(p, variant=1)
    'heat some egg and put it in countertop'
    >>> task_id(p, 12, "trial_T20190908_123456_789012")
    'pick_heat_then_place_in_recep-Egg-None-CounterTop-12/trial_T20190908_123456_789012'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gui_gym.alfworld.pddl import parse_formula

__all__ = ["TASK_TYPES", "TEMPLATES", "TaskParams", "goal_formula", "goal_pddl", "goal_text", "task_id"]

#: In upstream's order (alfred_tw_env.py TASK_TYPES 1..6).
TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)

TEMPLATES = {
    "pick_and_place_simple": ("put a {obj} in {recep}", "put some {obj} on {recep}"),
    "look_at_obj_in_light": ("look at {obj} under the {toggle}", "examine the {obj} with the {toggle}"),
    "pick_clean_then_place_in_recep": ("put a clean {obj} in {recep}", "clean some {obj} and put it in {recep}"),
    "pick_heat_then_place_in_recep": ("put a hot {obj} in {recep}", "heat some {obj} and put it in {recep}"),
    "pick_cool_then_place_in_recep": ("put a cool {obj} in {recep}", "cool some {obj} and put it in {recep}"),
    "pick_two_obj_and_place": ("put two {obj} in {recep}", "find two {obj} and put them in {recep}"),
}

_STATE = {
    "pick_clean_then_place_in_recep": ("cleanable", "isClean"),
    "pick_heat_then_place_in_recep": ("heatable", "isHot"),
    "pick_cool_then_place_in_recep": ("coolable", "isCool"),
}


@dataclass(frozen=True)
class TaskParams:
    """A task's parameters, named as ALFRED's ``pddl_params`` (classes in ALFRED's case)."""

    task_type: str
    object_target: str
    parent_target: str = ""
    toggle_target: str = ""
    mrecep_target: str = ""
    object_sliced: bool = False

    def __post_init__(self) -> None:
        if self.task_type not in TASK_TYPES:
            raise ValueError(f"unknown task type {self.task_type!r}; choose from {', '.join(TASK_TYPES)}")


def goal_pddl(p: TaskParams) -> str:
    """The PDDL goal (``(:goal ...)`` section) of a task."""
    o, r = f"{p.object_target}Type", f"{p.parent_target}Type"
    if p.task_type == "look_at_obj_in_light":
        lamp = f"{p.toggle_target}Type"
        return (
            "(:goal\n    (and\n"
            "        (exists (?ot - object ?r - receptacle ?a - agent ?l - location)\n            (and\n"
            f"                (objectType ?ot {lamp})\n                (toggleable ?ot)\n"
            "                (isToggled ?ot)\n                (receptacleAtLocation ?r ?l)\n"
            "                (atLocation ?a ?l)\n                (inReceptacle ?ot ?r)\n            )\n        )\n"
            "        (exists (?o - object ?a - agent)\n            (and\n"
            f"                (objectType ?o {o})\n                (holds ?a ?o)\n            )\n        )\n    )\n)"
        )
    if p.task_type == "pick_two_obj_and_place":
        return (
            "(:goal\n    (and\n        (exists (?r - receptacle)\n            (exists (?o1 - object)\n"
            "                (and\n"
            f"                    (objectType ?o1 {o})\n                    (receptacleType ?r {r})\n"
            "                    (inReceptacle ?o1 ?r)\n                    (exists (?o2 - object)\n"
            "                        (and\n                            (not (= ?o1 ?o2))\n"
            f"                            (objectType ?o2 {o})\n"
            "                            (inReceptacle ?o2 ?r)\n                        )\n"
            "                    )\n                )\n            )\n        )\n    )\n)"
        )
    state = ""
    if p.task_type in _STATE:
        able, is_ = _STATE[p.task_type]
        state = f"\n                    ({able} ?o)\n                    ({is_} ?o)"
    return (
        "(:goal\n    (and\n        (exists (?r - receptacle)\n            (exists (?o - object)\n"
        "                (and\n                    (inReceptacle ?o ?r)\n"
        f"                    (objectType ?o {o})\n                    (receptacleType ?r {r}){state}\n"
        "                )\n            )\n        )\n    )\n)"
    )


def goal_formula(p: TaskParams) -> tuple[Any, ...]:
    """The goal as :func:`gui_gym.alfworld.pddl.parse_problem` represents it."""
    return parse_formula(goal_pddl(p))


def goal_text(p: TaskParams, rng: Any = None, variant: int | None = None) -> str:
    """One of upstream's two goal texts (``variant`` 0/1, or drawn with ``rng.integers``/``randrange``)."""
    if variant is None:
        variant = int(rng.integers(2)) if hasattr(rng, "integers") else int(rng.randrange(2)) if rng else 0
    template = TEMPLATES[p.task_type][variant]
    return template.format(obj=p.object_target.lower(), recep=p.parent_target.lower(), toggle=p.toggle_target.lower())


def task_id(p: TaskParams, scene: int, trial: str) -> str:
    """The data set's directory name of a task: ``<type>-<Object>-<Mrecep|None>-<Parent>-<scene>/<trial>``."""
    parent = p.toggle_target if p.task_type == "look_at_obj_in_light" else p.parent_target
    return f"{p.task_type}-{p.object_target}-{p.mrecep_target or 'None'}-{parent}-{scene}/{trial}"
