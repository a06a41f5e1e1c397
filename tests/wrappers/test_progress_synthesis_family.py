"""ProgRM synthesis takes its edit actions from the env's family: without them only the
family-free edits apply (removing no-ops and invalid steps, mismatched pairs); a family with a
no-op but no effectless pairs nor undo gets only no-op edits."""

from __future__ import annotations

import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.core.family import EditActions, family_of
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.progress.synthesis import EDIT_KINDS, augment_success, edit_actions, synthesize

# A text world's no-op: looking around changes nothing. No scroll pair, no undo.
TEXT_EDITS = EditActions(noop="look", noop_kind="wait", noop_description="look: You are in the middle of a room.")


def text_episode(task: str, seed: int = 0, success: bool = True, noops: bool = True) -> Trajectory:
    """A text-world episode as a recorder keeps it, with a look (kind wait) and an invalid command."""

    def step(command: str, kind: str, feedback: str, valid: bool = True, progress: float = 0.0) -> Step:
        return Step(
            command,
            observation=feedback,
            format_valid=valid,
            action_description=f"{command}: {feedback}",
            action_kind=kind if valid else "invalid",
            progress=progress,
        )

    steps = [step("go to fridge 1", "navigate", "You arrive at fridge 1.")]
    if noops:
        steps += [step("look", "wait", "You are facing the fridge 1."), step("fly", "", "Nothing happens.", False)]
    steps += [
        step("open fridge 1", "interact", "You open the fridge 1.", progress=0.5),
        step("take apple 1 from fridge 1", "interact", "You pick up the apple 1.", progress=1.0),
    ]
    steps[-2].milestones = ["open the fridge"]
    return Trajectory(task, f"Do {task}.", seed=seed, steps=steps, success=success)


def test_without_edit_actions_only_noops_are_removed() -> None:
    proto = text_episode("heat")
    kinds_seen = set()
    for seed in range(20):
        aug = augment_success(proto, rng=seed, max_edits=2, edits=None)
        kinds_seen |= {e["kind"] for e in aug.meta["edits"]}
        assert not any(s.info.get("synthetic") for s in aug.steps)  # nothing inserted
        removed = [s.action for s in proto.steps if s not in aug.steps]
        assert removed and set(removed) <= {"look", "fly"}
        assert aug.steps[-1] == proto.steps[-1]
    assert kinds_seen == {"remove_noop"}
    # an edit that needs the family's actions has nowhere to apply, and the error says why
    with pytest.raises(ValueError, match="no edit actions given"):
        augment_success(proto, rng=0, kinds=("insert_noop", "swipe_pair", "back_repeat"), edits=None)
    with pytest.raises(ValueError, match="no edit actions given"):
        augment_success(text_episode("heat", noops=False), rng=0, edits=None)


def test_synthesize_without_edit_actions() -> None:
    data = [text_episode("heat"), text_episode("cool", noops=False), text_episode("clean", success=False)]
    out = synthesize(data, seed=0, edits=None)
    augmented = [t for t in out if t.meta.get("synthetic") == "augment"]
    mismatched = [t for t in out if t.meta.get("synthetic") == "mismatch"]
    # only the success with no-ops can be augmented; mismatched failures need no family
    assert [t.task_id for t in augmented] == ["heat"]
    assert [e["kind"] for t in augmented for e in t.meta["edits"]] == ["remove_noop"] * len(augmented[0].meta["edits"])
    assert mismatched and all(not t.success for t in mismatched)
    assert out[: len(data)] == data


def test_a_family_with_only_a_noop() -> None:
    proto = text_episode("heat", noops=False)
    made = set()
    for seed in range(20):
        aug = augment_success(proto, rng=seed, max_edits=3, kinds=EDIT_KINDS, edits=TEXT_EDITS)
        made |= {e["kind"] for e in aug.meta["edits"]}
        inserted = [s for s in aug.steps if s.info.get("synthetic")]
        assert inserted and all(
            (s.action, s.action_kind, s.action_description) == ("look", "wait", TEXT_EDITS.noop_description)
            for s in inserted
        )
    assert made == {"insert_noop"}


def test_edit_actions_from_an_env_id_or_a_family() -> None:
    family = family_of("GuiAndroid-v0")
    by_id, by_family = edit_actions("GuiAndroid-v0"), edit_actions(family)
    assert by_id.noop == by_family.noop == 'do(action="Wait")' and by_id.undo == by_family.undo
    assert edit_actions(TEXT_EDITS) is TEXT_EDITS and edit_actions(None) is None
    with pytest.raises(TypeError):
        edit_actions(42)  # type: ignore[arg-type]
    # the Android family's undo may follow a tap or a first launch, not a relaunch nor a swipe
    undoable = by_id.undoable
    launch = 'do(action="Launch", app="Clock")'
    assert undoable('do(action="Tap", element=[0,0,10,10])', [])
    assert undoable(launch, ['do(action="Launch", app="Contacts")']) and not undoable(launch, [launch])
    assert not undoable(by_id.effectless_pairs[0][0][0], []) and not undoable("not an action", [])
    # the same seed gives the same augmentation whichever way the edits were named
    proto = text_episode("heat")
    a = augment_success(proto, rng=np.random.default_rng(3), edits="GuiAndroid-v0")
    b = augment_success(proto, rng=np.random.default_rng(3), edits=family)
    assert a == b
