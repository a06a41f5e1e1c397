"""The built-in milestone generator on a text world's trajectories: it reads the contract's
action kinds, so ``look`` and ``inventory`` (kind ``wait``) never become milestones, whatever
the family's command syntax."""

from __future__ import annotations

from gui_gym.core.trajectory import Step, Trajectory
from wrappers.distill import BuiltinMilestoneGenerator, clean_steps, distill_trajectory
from wrappers.generation import GenerationRequest, instantiate

START = "You are in the middle of a room. Looking quickly around you, you see a fridge 1 and a microwave 1."


def step(command: str, kind: str, feedback: str) -> Step:
    """One text-world step as a recorder keeps it: the feedback is the observation (its digest)."""
    return Step(
        action=command,
        action_kind=kind,
        action_description=f"{command}: {feedback}",
        info={"obs": feedback},
    )


def heat(obj: str, looks: int = 1) -> Trajectory:
    """Heat an object from the fridge and put it on the countertop, looking around on the way."""
    steps = [
        step("look", "wait", START),
        step("go to fridge 1", "navigate", "You arrive at fridge 1. The fridge 1 is closed."),
        step("open fridge 1", "interact", f"You open the fridge 1. The fridge 1 is open. In it, you see a {obj} 1."),
        step("inventory", "wait", "You are not carrying anything."),
    ]
    steps += [step("inventory", "wait", "You are not carrying anything.")] * (looks - 1)
    steps += [
        step(f"take {obj} 1 from fridge 1", "interact", f"You pick up the {obj} 1 from the fridge 1."),
        step("look", "wait", "You are facing the fridge 1."),
        step("go to microwave 1", "navigate", "You arrive at microwave 1. The microwave 1 is closed."),
        step(f"heat {obj} 1 with microwave 1", "interact", f"You heat the {obj} 1 using the microwave 1."),
        step("go to countertop 1", "navigate", "You arrive at countertop 1. On the countertop 1, you see nothing."),
        step(f"put {obj} 1 in/on countertop 1", "interact", f"You put the {obj} 1 in/on the countertop 1."),
    ]
    return Trajectory(
        "pick_heat_then_place_in_recep",
        f"Put a hot {obj} on the countertop.",
        steps=steps,
        success=True,
        meta={"start_obs": START, "placeholders": {"Object": obj}},
    )


def commands(steps: list[Step]) -> list[str]:
    return [s.action for s in steps]


def test_look_and_inventory_are_never_milestones() -> None:
    assert commands(clean_steps(heat("apple"))) == [
        "go to fridge 1",
        "open fridge 1",
        "take apple 1 from fridge 1",
        "go to microwave 1",
        "heat apple 1 with microwave 1",
        "go to countertop 1",
        "put apple 1 in/on countertop 1",
    ]
    milestones = distill_trajectory(heat("apple"))
    assert len(milestones) == 7
    assert not any(m.startswith(("look", "inventory")) for m in milestones)
    # the instance's object is a slot; numbers no slot covers are any value
    assert milestones[2] == (
        "take <Object> <number> from fridge <number>: You pick up the <Object> <number> from the fridge <number>."
    )


def test_milestones_from_three_instances_fit_a_fourth() -> None:
    gen = BuiltinMilestoneGenerator()
    new, *history = heat("apple"), heat("potato", looks=3), heat("egg")
    milestones = gen(GenerationRequest(new.task_id, new.instruction, new, [], {"Object": "apple"}, history))
    assert len(milestones) == 7 and not any("look" in m or "inventory" in m for m in milestones)
    held = heat("tomato")
    filled = [instantiate(m, {"Object": "tomato"}).replace("<number>", "1") for m in milestones]
    assert filled == [s.action_description for s in clean_steps(held)]
