"""Synthetic reward-model training trajectories, after ProgRM App. B ("RM training data synthesis").

ProgRM balances its reward-model data by synthesis:

* **failed** trajectories from a *mismatched* instruction and action trajectory: the goal of
  task ``a`` with the steps of an episode of task ``b`` (:func:`mismatched`). Random-walk
  failures, the paper's second source, are collected by rolling out a random policy elsewhere;
* **successful** trajectories from a successful "prototype" by removing or adding empty
  actions (no-ops) and effectless action pairs (:func:`augment_success`).

:func:`synthesize` adds both to a list of collected trajectories, pushing the
success:failure trajectory ratio toward the paper's 5,729 : 4,709 ≈ 1.22 (App. C).

The edits of :func:`augment_success` (names in :data:`EDIT_KINDS`) use the actions the env's
family offers for them (:meth:`gui_gym.core.family.EnvFamily.edit_actions`, an
:class:`~gui_gym.core.family.EditActions`, passed as ``edits``); without them only
``remove_noop`` applies (and :func:`mismatched` failures). The examples below are
``GuiAndroid-v0``'s (``family_of("GuiAndroid-v0").edit_actions()``):

``insert_noop``
    the family's no-op (``do(action="Wait")``) before any step but the last; it is taken on the
    screen of the step that follows it.
``remove_noop``
    drop a step of the prototype that is a no-op (contract kind ``wait``, or the family's no-op
    action in a log without kinds) or was ``format_valid=False`` (the env applies nothing for an
    invalid action), never the last step nor a step that reached a milestone.
``swipe_pair``
    one of the family's effectless pairs before any step but the last. Android's is ``Swipe up``
    then ``Swipe down`` (finger directions, ``dist="medium"``): the paper's "scrolling down
    followed by scrolling up" in content terms — the finger moves up to scroll the content down.
    This order returns a list to where it was from the top of a list, where most screens sit (not
    when the first swipe is cut short by the end of the list); the opposite order is *not*
    effectless there (the first swipe hits the start and does nothing, the second then scrolls
    half a page).
``back_repeat``
    the family's undo action (``do(action="Back")``) then a copy of the previous step, after a
    prototype step that the family says undo may follow (``EditActions.undoable``: on Android a
    valid tap, or a launch of an app not launched before, which would resume wherever that app
    was left), that reached no milestone and *opened* something, judged from the text
    observations around it (:func:`_opens`): either nothing of the screen before it is gone (an
    overlay opened on top) or almost nothing is left (a new screen, item overlap below
    :data:`NEW_SCREEN_OVERLAP`), and no newly shown item has the focus (with the keyboard up
    Back hides the keyboard instead). A tap that changes the screen in place (a toggle, a keypad
    digit, a date) or closes an overlay (a menu item) is not undone by Back. Back is taken on the
    screen after that step, the repeat on the screen before it (its own observation). Steps
    without observations never qualify.

Inserted steps have ``milestones=[]``, ``reward=0.0``, ``format_valid=True``,
``info={"synthetic": True}``, the progress of the step before them (0.0 at the start) and the
action kind the family gives (a repeat keeps the kind of the step it repeats).

What is approximate (nothing is replayed in a simulator here):

* observations of inserted steps are copied from neighbouring steps. For a swipe pair the
  screen between the two swipes is approximated by the current one; for back-then-repeat the
  screen after Back is taken to be the screen before the repeated step.
* descriptions are the family's wording in the common case (``"Wait for 3 seconds"``,
  ``"Press Back"``, ``"Scroll down the list"``), not what the env would say on that very
  screen (``"Press Back to hide the keyboard"``, ``"... (already at the start)"``, or
  ``"Invalid action: nothing scrollable here"`` with ``format_valid=False`` for a swipe on a
  screen without a list — still a no-op, but recorded here as valid).
* effectlessness is a property of the screen, not of the action, and back-then-repeat is
  chosen from screen text alone. Replaying single edits at every place of oracle
  trajectories of every ``GuiAndroid-v0`` task (seeds 0-2 and 10-29) kept every no-op edit
  and all but one of 11,312 swipe-pair edits successful (swipe down first: 96.9%); of the
  back-then-repeat edits after *any* valid milestone-free tap or launch only 64% stay
  successful (Back hides the keyboard, closes a picker, or leaves a form), which is why
  :func:`_opens` restricts them: all 505 that qualify stay successful (the test measures it).
* a Wait advances the device clock by 3 s and an invalid action by 1 s: removing or adding
  one is effectless only for tasks that do not depend on elapsed time.
* a mismatched pair of related tasks (e.g. "turn on Bluetooth" with the steps of "turn off
  Wi-Fi and turn on Bluetooth") may in fact satisfy the instruction; it is labelled failed.

Example:
    >>> import gui_gym
    >>> from gui_gym.core.family import family_of
    >>> from gui_gym.core.trajectory import Step, Trajectory
    >>> edits = family_of("GuiAndroid-v0").edit_actions()
    >>> a = Trajectory("ClockStopWatchRunning", "Start the stopwatch.", seed=0, success=True, steps=[
    ...     Step('finish(message="done")', observation="stopwatch running", reward=1.0, progress=1.0)],
    ...     meta={"final_observation": "stopwatch running"})
    >>> b = Trajectory("SystemWifiTurnOn", "Turn on Wi-Fi.", seed=3, steps=[
    ...     Step('do(action="Launch", app="Settings")', observation="home", milestones=["Open Settings"],
    ...          progress=0.5)])
    >>> aug = augment_success(a, rng=0, max_edits=1, kinds=("insert_noop",), edits=edits)
    >>> [(s.action, s.action_kind, s.observation, s.progress) for s in aug.steps]
    [('do(action="Wait")', 'wait', 'stopwatch running', 0.0), ('finish(message="done")', '', 'stopwatch running', 1.0)]
    >>> aug.success, aug.meta["synthetic"], aug.meta["prototype_seed"]
    (True, 'augment', 0)
    >>> m = mismatched([a, b], n=1, rng=0)[0]
    >>> m.task_id != m.meta["source_task_id"], m.success, [s.milestones for s in m.steps]
    (True, False, [[]])
    >>> out = synthesize([a, b], seed=0, edits=edits)  # 1 original + 1 augmented success; 1 original failure
    >>> [(t.success, t.meta.get("synthetic")) for t in out]
    [(True, None), (False, None), (True, 'augment'), (False, 'mismatch')]
"""

from __future__ import annotations

import bisect
import copy
import logging
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gui_gym.core import contract as C
from gui_gym.core.family import EditActions, EnvFamily, family_of, is_overlay, text_items
from gui_gym.core.trajectory import Step, Trajectory

__all__ = [
    "EDIT_KINDS",
    "PROGRM_SUCCESS_FAILURE_RATIO",
    "Edits",
    "augment_success",
    "edit_actions",
    "mismatched",
    "synthesize",
]

log = logging.getLogger(__name__)

#: Successful : failed trajectories in ProgRM's RM data (App. C: 5,729 and 4,709).
PROGRM_SUCCESS_FAILURE_RATIO = 5729 / 4709
#: The edits :func:`augment_success` chooses from.
EDIT_KINDS = ("insert_noop", "remove_noop", "swipe_pair", "back_repeat")
#: Meta keys that describe the task instance, not the steps: dropped from mismatched trajectories.
TASK_META_KEYS = ("placeholders", "task_milestones")
#: What ``edits`` may be: the family's edit actions, the family, an env id, or ``None`` (none).
Edits = EditActions | EnvFamily | str | None

#: Below this overlap (multiset Jaccard of screen items) the screen after a step is a new one.
NEW_SCREEN_OVERLAP = 0.1
_FOCUSED = re.compile(r"\((?:[\w-]+, )*focused(?:, [\w-]+)*\)\s*$")

Rng = np.random.Generator | int | None


def _rng(rng: Rng) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def edit_actions(edits: Edits) -> EditActions | None:
    """The :class:`~gui_gym.core.family.EditActions` of ``edits``: as given, a family's, or an env id's.

    >>> import gui_gym
    >>> edit_actions("GuiAndroid-v0").noop, edit_actions(None)
    ('do(action="Wait")', None)
    """
    if edits is None or isinstance(edits, EditActions):
        return edits
    try:
        family = family_of(edits)
    except TypeError:
        raise TypeError(
            f"edits must be EditActions, an EnvFamily, an env id or None, got {type(edits).__name__}"
        ) from None
    return family.edit_actions()


# ----------------------------------------------------------------------------- failures


def mismatched(trajectories: Sequence[Trajectory], n: int, rng: Rng = None) -> list[Trajectory]:
    """``n`` failed trajectories: the instruction of one task with the steps of another task's episode.

    Each pick draws a step source ``i`` uniformly from ``trajectories`` and an instruction
    source uniformly from the trajectories of a different ``task_id``. The result carries the
    instruction's ``task_id``, ``instruction`` and ``seed`` (the instance the instruction
    belongs to), the source's steps and ``truncated``, ``success=False``, and every step with
    ``milestones=[]``, ``progress=0.0`` and ``reward=0.0`` (the env's milestones belonged to the
    other task). ``meta`` is the source's, less :data:`TASK_META_KEYS`, with ``synthetic``,
    ``source_task_id``, ``source_index`` and ``instruction_index`` added. Inputs are not changed.

    Raises:
        ValueError: ``n`` is negative, or ``n > 0`` and the trajectories hold fewer than two tasks.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if n == 0:
        return []
    tasks = sorted({t.task_id for t in trajectories})
    if len(tasks) < 2:
        raise ValueError(
            f"mismatched pairs need trajectories of at least 2 distinct task_ids, got {len(tasks)} ({tasks}); "
            "an instruction is never paired with steps of its own task"
        )
    gen = _rng(rng)
    # Per task, index - rank of each of its trajectories: the k-th trajectory of *another* task is
    # then k + (how many of these are <= k), found by bisection instead of listing the others.
    gaps: dict[str, list[int]] = {}
    for j, t in enumerate(trajectories):
        own = gaps.setdefault(t.task_id, [])
        own.append(j - len(own))
    out = []
    for _ in range(n):
        i = int(gen.integers(len(trajectories)))
        source = trajectories[i]
        own = gaps[source.task_id]
        k = int(gen.integers(len(trajectories) - len(own)))
        j = k + bisect.bisect_right(own, k)
        goal = trajectories[j]
        steps = copy.deepcopy(source.steps)
        for step in steps:
            step.milestones = []
            step.progress = 0.0
            step.reward = 0.0
        meta = {k: copy.deepcopy(v) for k, v in source.meta.items() if k not in TASK_META_KEYS}
        meta.update(synthetic="mismatch", source_task_id=source.task_id, source_index=i, instruction_index=j)
        out.append(
            Trajectory(
                task_id=goal.task_id,
                instruction=goal.instruction,
                seed=goal.seed,
                steps=steps,
                success=False,
                truncated=source.truncated,
                meta=meta,
            )
        )
    return out


# ----------------------------------------------------------------------------- successes


@dataclass
class _Slot:
    """A step being edited: whether it is the prototype's, and whether it is glued to the step before."""

    step: Step
    original: bool
    glued: bool = False  # nothing may be inserted right before it


def _inserted(action: str, kind: str, description: str, observation: str, progress: float) -> Step:
    return Step(
        action=action,
        observation=observation,
        reward=0.0,
        format_valid=True,
        action_description=description,
        milestones=[],
        progress=progress,
        info={"synthetic": True},
        action_kind=kind,
    )


def _progress_before(slots: list[_Slot], pos: int) -> float:
    return float(slots[pos - 1].step.progress) if pos > 0 else 0.0


def _is_noop(step: Step, edits: EditActions | None) -> bool:
    """An invalid step or a wait; a log without kinds has the family's no-op action for a wait."""
    kind = step.action_kind or step.info.get(C.ACTION_KIND)
    if not step.format_valid or kind in (C.WAIT, C.INVALID):
        return True
    return not kind and edits is not None and step.action == edits.noop


def _items(observation: str) -> Counter[str]:
    return Counter(text_items(observation, limit=len(observation)))


def _opens(before: str, after: str) -> bool:
    """Whether a step taken on screen ``before`` that led to ``after`` opened something Back closes.

    True when nothing of ``before`` is gone (an overlay on top) or the overlap of the two is
    below :data:`NEW_SCREEN_OVERLAP` (a new screen), and no newly shown item has the focus (a
    text field with the keyboard up, which Back would hide first).
    """
    b, a = _items(before), _items(after)
    if not b or not a or a == b:
        return False
    if is_overlay(before) and not is_overlay(after):  # a dialog closed: the screen under it shows again
        return False
    if any(_FOCUSED.search(item) for item in a - b):
        return False
    overlap = sum((a & b).values()) / sum((a | b).values())
    return not (b - a) or overlap < NEW_SCREEN_OVERLAP


def _back_repeatable(slots: list[_Slot], p: int, edits: EditActions) -> bool:
    step = slots[p].step
    return (
        slots[p].original
        and step.format_valid
        and not step.milestones
        and not slots[p + 1].glued
        and edits.undoable is not None
        and _opens(step.observation, slots[p + 1].step.observation)
        and edits.undoable(step.action, [s.step.action for s in slots[:p]])
    )


def _candidates(slots: list[_Slot], kind: str, edits: EditActions | None) -> list[int]:
    """Positions where edit ``kind`` applies; the last slot (the step that ended the episode) stays last."""
    last = len(slots) - 1
    if kind not in EDIT_KINDS:
        raise ValueError(f"unknown edit kind {kind!r}; expected one of {EDIT_KINDS}")
    if kind == "remove_noop":
        return [
            p
            for p in range(last)
            if slots[p].original and not slots[p].step.milestones and _is_noop(slots[p].step, edits)
        ]
    if edits is None or (kind == "swipe_pair" and not edits.effectless_pairs):
        return []
    if kind in ("insert_noop", "swipe_pair"):  # insert before position p
        return [p for p in range(last + 1) if not slots[p].glued]
    if edits.undo is None:  # back_repeat: insert after position p
        return []
    return [p for p in range(last) if _back_repeatable(slots, p, edits)]


def _apply(slots: list[_Slot], kind: str, p: int, edits: EditActions | None, gen: np.random.Generator) -> None:
    if kind == "remove_noop":
        del slots[p]
        return
    assert edits is not None  # _candidates offers no other edit without them
    if kind == "insert_noop":
        obs = slots[p].step.observation
        noop = _inserted(edits.noop, edits.noop_kind, edits.noop_description, obs, _progress_before(slots, p))
        slots.insert(p, _Slot(noop, False))
    elif kind == "swipe_pair":
        pairs = edits.effectless_pairs
        first, second = pairs[int(gen.integers(len(pairs)))] if len(pairs) > 1 else pairs[0]
        obs, progress = slots[p].step.observation, _progress_before(slots, p)
        slots[p:p] = [
            _Slot(_inserted(*first, obs, progress), False),
            _Slot(_inserted(*second, obs, progress), False, glued=True),
        ]
    elif kind == "back_repeat":
        assert edits.undo is not None
        step = slots[p].step
        after = slots[p + 1].step.observation  # the screen after step p
        back = _Slot(_inserted(*edits.undo, after, float(step.progress)), False, glued=True)
        again = _inserted(
            step.action, step.action_kind, step.action_description, step.observation, float(step.progress)
        )
        slots[p + 1 : p + 1] = [back, _Slot(again, False, glued=True)]
    else:  # pragma: no cover - _candidates rejects unknown kinds first
        raise ValueError(kind)


def augment_success(
    trajectory: Trajectory,
    rng: Rng = None,
    max_edits: int = 2,
    kinds: Sequence[str] = EDIT_KINDS,
    edits: Edits = None,
) -> Trajectory:
    """A new successful trajectory from a successful prototype, by 1..``max_edits`` effectless edits.

    ``edits`` are the actions the edits insert: the env family's
    :class:`~gui_gym.core.family.EditActions` (or the family, or an env id, to ask it); with
    ``None`` only ``remove_noop`` applies.

    The number of edits is drawn uniformly from ``1..max_edits``; each edit draws a kind
    uniformly among those of ``kinds`` that apply (see the module docstring), then a position
    uniformly among its places. Edits never split an inserted pair nor a Back from the step it
    undoes, only remove steps of the prototype, and keep the last step last; fewer edits are
    made when none applies any more.
    ``meta`` gets ``synthetic="augment"``, ``prototype_seed`` and ``edits``, a list of
    ``{"kind", "position"}`` in the order made; ``position`` is the index of the first inserted
    step, or of the removed step, in the steps as they were right after (before) that edit.

    Raises:
        ValueError: the trajectory is not successful or has no steps, ``max_edits < 1``, an
            unknown kind, or no edit of ``kinds`` applies to it.
    """
    if not trajectory.success:
        raise ValueError(f"augment_success needs a successful prototype; {trajectory.task_id!r} is a failure")
    if not trajectory.steps:
        raise ValueError("augment_success needs a prototype with at least one step")
    if max_edits < 1:
        raise ValueError(f"max_edits must be >= 1, got {max_edits}")
    kinds = tuple(kinds)
    unknown = [k for k in kinds if k not in EDIT_KINDS]
    if unknown or not kinds:
        raise ValueError(f"unknown edit kinds {unknown}; expected a non-empty choice of {EDIT_KINDS}")
    actions = edit_actions(edits)
    gen = _rng(rng)
    slots = [_Slot(s, True) for s in copy.deepcopy(trajectory.steps)]
    made: list[dict[str, object]] = []
    for _ in range(int(gen.integers(1, max_edits + 1))):
        options = {k: c for k in kinds if (c := _candidates(slots, k, actions))}
        if not options:
            break
        names = sorted(options, key=EDIT_KINDS.index)
        kind = names[int(gen.integers(len(names)))]
        places = options[kind]
        p = places[int(gen.integers(len(places)))]
        _apply(slots, kind, p, actions, gen)
        made.append({"kind": kind, "position": p + 1 if kind == "back_repeat" else p})
    if not made:
        hint = "" if actions is not None else " (no edit actions given: only remove_noop can apply)"
        raise ValueError(f"no edit of {kinds} applies to this {len(trajectory.steps)}-step trajectory{hint}")
    meta = copy.deepcopy(trajectory.meta)
    meta.update(synthetic="augment", prototype_seed=trajectory.seed, edits=made)
    return Trajectory(
        task_id=trajectory.task_id,
        instruction=trajectory.instruction,
        seed=trajectory.seed,
        steps=[s.step for s in slots],
        success=True,
        truncated=trajectory.truncated,
        meta=meta,
    )


# ----------------------------------------------------------------------------- the data set


def synthesize(
    trajectories: Sequence[Trajectory],
    seed: int = 0,
    mismatch_ratio: float | None = None,
    augment_per_success: int = 1,
    target_ratio: float = PROGRM_SUCCESS_FAILURE_RATIO,
    max_edits: int = 2,
    edits: Edits = None,
) -> list[Trajectory]:
    """The trajectories, then ``augment_per_success`` augmentations of each success, then mismatched failures.

    ``edits``: the actions :func:`augment_success` inserts (the env family's, see there). A
    success that no edit applies to (without ``edits``: one with no no-op to remove) gets no
    augmentation.

    How many mismatched failures: with ``mismatch_ratio=None`` (the default) just enough to
    bring the failures to ``round(successes / target_ratio)``, where successes count the
    originals and the augmentations, so the success:failure ratio moves toward ProgRM's ≈1.22
    (App. C); none when the failures already reach it. A number instead asks for
    ``round(mismatch_ratio * len(trajectories))`` of them. Mismatches pair originals only; with
    fewer than two tasks none is made and a warning is logged. Inputs are not changed.
    """
    if augment_per_success < 0:
        raise ValueError(f"augment_per_success must be >= 0, got {augment_per_success}")
    if target_ratio <= 0:
        raise ValueError(f"target_ratio must be positive, got {target_ratio}")
    if mismatch_ratio is not None and mismatch_ratio < 0:
        raise ValueError(f"mismatch_ratio must be >= 0, got {mismatch_ratio}")
    actions = edit_actions(edits)
    gen = np.random.default_rng(seed)
    originals = [copy.deepcopy(t) for t in trajectories]
    augmented = [
        aug
        for t in trajectories
        if t.success
        for _ in range(augment_per_success)
        if (aug := _augment_or_none(t, gen, max_edits, actions)) is not None
    ]
    successes = sum(t.success for t in trajectories) + len(augmented)
    failures = len(trajectories) - sum(t.success for t in trajectories)
    if mismatch_ratio is None:
        n_mismatch = max(0, round(successes / target_ratio) - failures)
    else:
        n_mismatch = round(mismatch_ratio * len(trajectories))
    if n_mismatch and len({t.task_id for t in trajectories}) < 2:
        log.warning(
            "synthesize: %d mismatched failures wanted but the data hold fewer than 2 tasks; none made", n_mismatch
        )
        n_mismatch = 0
    failed = mismatched(trajectories, n_mismatch, gen)
    log.info(
        "synthesize: %d originals (%d successes, %d failures) + %d augmented successes + %d mismatched failures "
        "-> %d successes : %d failures",
        len(trajectories),
        successes - len(augmented),
        failures,
        len(augmented),
        len(failed),
        successes,
        failures + len(failed),
    )
    return originals + augmented + failed


def _augment_or_none(
    trajectory: Trajectory, gen: np.random.Generator, max_edits: int, edits: EditActions | None
) -> Trajectory | None:
    if edits is not None:  # with the family's no-op every success can be edited: errors are real
        return augment_success(trajectory, gen, max_edits=max_edits, edits=edits)
    try:
        return augment_success(trajectory, gen, max_edits=max_edits, edits=None)
    except ValueError:
        return None
