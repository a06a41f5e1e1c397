"""ProgRM App. B data synthesis: mismatched failures, effectless edits of successes, the balance rule.

The edits are checked where it matters, in the simulator: augmented oracle trajectories are
replayed from the prototype's seed and must still succeed.
"""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android import list_tasks
from gui_gym.android.actions import parse_action
from gui_gym.android.screen import screen_text
from gui_gym.core.family import family_of
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.progress.synthesis import (
    EDIT_KINDS,
    PROGRM_SUCCESS_FAILURE_RATIO,
    augment_success,
    mismatched,
    synthesize,
)

ENV_ID = "GuiAndroid-v0"
EDITS = family_of(ENV_ID).edit_actions()
WAIT = EDITS.noop
BACK = EDITS.undo[0]
(SWIPE_UP, _, _), (SWIPE_DOWN, _, _) = EDITS.effectless_pairs[0]
TASKS = (
    "ContactsAddContact",
    "ClockStopWatchRunning",
    "SimpleCalendarAddOneEvent",
    "TasksAddTaskWithDetails",
    "SystemWifiTurnOn",
)
SEEDS = (0, 1)
INVALID_TAP = 'do(action="Tap", element=[0,0,10,10])'  # the status bar: nothing clickable, a no-op


# ----------------------------------------------------------------------------- helpers


def record(task: str, seed: int, noise: dict[int, str] | None = None) -> Trajectory:
    """Roll out the oracle, recording Steps as a collector would; ``noise`` inserts actions before oracle step k."""
    env = gym.make(ENV_ID, task=task)
    obs, info = env.reset(seed=seed)
    t = Trajectory(task_id=task, instruction=info["instruction"], seed=seed)
    t.meta.update(task_milestones=list(info["task_milestones"]), placeholders=dict(info["placeholders"]))
    pending = dict(noise or {})
    k = 0  # oracle actions taken
    while True:
        if k in pending:
            action = pending.pop(k)
        else:
            action = env.unwrapped.oracle_action()
            k += 1
        before = screen_text(obs)
        obs, reward, terminated, truncated, info = env.step(action)
        t.steps.append(Step.from_info(action, info, observation=before, reward=float(reward)))
        if terminated or truncated:
            break
    t.success, t.truncated = bool(info["success"]), bool(truncated)
    t.meta["final_observation"] = screen_text(obs)
    return t


def replay(t: Trajectory) -> tuple[bool, list[dict]]:
    """Replay the actions from the trajectory's seed: (success at the recorded last step, per-step infos)."""
    env = gym.make(ENV_ID, task=t.task_id)
    env.reset(seed=t.seed)
    infos = []
    for i, step in enumerate(t.steps):
        _, _, terminated, truncated, info = env.step(step.action)
        infos.append(info)
        if terminated or truncated:
            return i == len(t.steps) - 1 and bool(info["success"]), infos
    return False, infos


def synthetic(step: Step) -> bool:
    return step.info.get("synthetic") is True


def check_shapes(aug: Trajectory, proto: Trajectory) -> None:
    """Every inserted step is one of the documented shapes, with the documented fields."""
    steps = aug.steps
    assert steps[-1] == proto.steps[-1]  # the step that ended the episode stays last
    i = 0
    while i < len(steps):
        s = steps[i]
        if not synthetic(s):
            i += 1
            continue
        assert s.milestones == [] and s.reward == 0.0 and s.format_valid and s.info == {"synthetic": True}
        assert s.progress == (steps[i - 1].progress if i else 0.0)
        if s.action == WAIT:
            assert s.action_description == "Wait for 3 seconds"
            assert s.observation == steps[i + 1].observation
            i += 1
        elif s.action == SWIPE_UP:
            down = steps[i + 1]
            assert synthetic(down) and down.action == SWIPE_DOWN and down.progress == s.progress
            assert s.observation == down.observation == steps[i + 2].observation
            i += 2
        elif s.action == BACK:
            undone, again = steps[i - 1], steps[i + 1]
            assert not synthetic(undone) and parse_action(undone.action).kind in ("tap", "launch")
            assert undone.format_valid and not undone.milestones
            assert synthetic(again) and again.milestones == [] and again.progress == undone.progress
            assert (again.action, again.action_description) == (undone.action, undone.action_description)
            assert again.observation == undone.observation  # the repeat is taken on the screen before
            assert s.observation == steps[i + 2].observation  # Back on the screen after the undone step
            i += 2
        else:
            raise AssertionError(f"unexpected inserted step {s.action!r}")


def originals(aug: Trajectory) -> list[Step]:
    return [s for s in aug.steps if not synthetic(s)]


def is_subsequence(sub: list[Step], seq: list[Step]) -> bool:
    it = iter(seq)
    return all(any(s == x for x in it) for s in sub)


@pytest.fixture(scope="module")
def prototypes() -> list[Trajectory]:
    out = [record(task, seed) for task in TASKS for seed in SEEDS]
    assert all(t.success for t in out)
    return out


def toy(task: str, n: int = 2, success: bool = True, seed: int = 0) -> Trajectory:
    steps = [
        Step(f'do(action="Tap", element=[0,{100 * k},1080,{100 * k + 90}])', observation=f"{task} screen {k}")
        for k in range(n - 1)
    ]
    steps.append(Step('finish(message="done")', observation=f"{task} screen {n - 1}", reward=float(success)))
    for k, s in enumerate(steps):
        s.milestones, s.progress = [f"{task} m{k}"], (k + 1) / n
    meta = {"final_observation": f"{task} end", "placeholders": {"Name": "Zara"}, "task_milestones": ["x"], "note": 1}
    return Trajectory(task, f"Do {task}.", seed=seed, steps=steps, success=success, meta=meta)


# ----------------------------------------------------------------------------- mismatched


def test_mismatched_pairs_other_tasks_and_clears_labels() -> None:
    data = [toy("A", 3), toy("B", 2, success=False), toy("C", 4), toy("A", 2, seed=7)]
    before = copy.deepcopy(data)
    out = mismatched(data, n=60, rng=np.random.default_rng(0))
    assert data == before  # inputs untouched
    assert len(out) == 60
    for m in out:
        src = data[m.meta["source_index"]]
        assert m.task_id != src.task_id == m.meta["source_task_id"]
        assert m.instruction == f"Do {m.task_id}."
        assert not m.success and m.meta["synthetic"] == "mismatch"
        assert [s.action for s in m.steps] == [s.action for s in src.steps]
        assert all(s.milestones == [] and s.progress == 0.0 and s.reward == 0.0 for s in m.steps)
        assert "placeholders" not in m.meta and "task_milestones" not in m.meta
        assert m.meta["note"] == 1 and m.meta["final_observation"] == src.meta["final_observation"]
        m.steps[0].action_description = "changed"  # a deep copy: the source is not affected
        assert src.steps[0].action_description == ""
    assert {m.meta["source_index"] for m in out} == {0, 1, 2, 3}


def test_mismatched_is_deterministic_per_seed() -> None:
    data = [toy("A"), toy("B"), toy("C")]

    def pick(rng: int | np.random.Generator) -> list[tuple[str, int]]:
        return [(m.task_id, m.meta["source_index"]) for m in mismatched(data, 20, rng)]

    assert pick(3) == pick(3) == pick(np.random.default_rng(3))
    assert pick(3) != pick(4)


def test_mismatched_needs_two_tasks() -> None:
    with pytest.raises(ValueError, match="at least 2 distinct task_ids"):
        mismatched([toy("A"), toy("A", seed=1)], n=1, rng=0)
    with pytest.raises(ValueError, match="n must be"):
        mismatched([toy("A"), toy("B")], n=-1, rng=0)
    assert mismatched([toy("A")], n=0, rng=0) == []


# ----------------------------------------------------------------------------- augment_success


def test_augment_success_errors() -> None:
    with pytest.raises(ValueError, match="successful prototype"):
        augment_success(toy("A", success=False), rng=0, edits=EDITS)
    with pytest.raises(ValueError, match="at least one step"):
        augment_success(Trajectory("A", "x", success=True), rng=0, edits=EDITS)
    with pytest.raises(ValueError, match="max_edits"):
        augment_success(toy("A"), rng=0, max_edits=0, edits=EDITS)
    with pytest.raises(ValueError, match="unknown edit kinds"):
        augment_success(toy("A"), rng=0, kinds=("teleport",), edits=EDITS)
    with pytest.raises(ValueError, match="no edit"):
        augment_success(toy("A"), rng=0, kinds=("remove_noop",), edits=EDITS)  # the toy has no no-op


def test_augment_success_structure(prototypes: list[Trajectory]) -> None:
    seen = set()
    for proto in prototypes:
        frozen = copy.deepcopy(proto)
        for seed in range(6):
            aug = augment_success(proto, rng=seed, max_edits=3, edits=EDITS)
            assert proto == frozen  # the prototype is not mutated
            assert aug.success and aug.meta["synthetic"] == "augment" and aug.meta["prototype_seed"] == proto.seed
            assert aug.task_id == proto.task_id and aug.seed == proto.seed
            assert 1 <= len(aug.meta["edits"]) <= 3
            seen.update(e["kind"] for e in aug.meta["edits"])
            check_shapes(aug, proto)
            assert originals(aug) == proto.steps  # no no-op to remove in an oracle trajectory
            assert aug == augment_success(
                proto, rng=np.random.default_rng(seed), max_edits=3, edits=EDITS
            )  # deterministic
    assert seen == {"insert_noop", "swipe_pair", "back_repeat"}


def test_noop_and_swipe_edits_replay_successfully(prototypes: list[Trajectory]) -> None:
    """Replayed in the simulator, Wait and swipe-up/swipe-down edits keep the episode successful,
    and the recorded milestones and progress of every step are what the env reports."""
    n = 0
    for proto in prototypes:
        for seed in range(8):
            aug = augment_success(proto, rng=seed, max_edits=2, kinds=("insert_noop", "swipe_pair"), edits=EDITS)
            ok, infos = replay(aug)
            assert ok, (proto.task_id, proto.seed, aug.meta["edits"])
            assert [i["milestones"] for i in infos] == [s.milestones for s in aug.steps]
            assert [i["progress"] for i in infos] == pytest.approx([s.progress for s in aug.steps])
            n += 1
    assert n == len(TASKS) * len(SEEDS) * 8


def test_remove_noop_replays_successfully() -> None:
    """Prototypes with real no-ops (a Wait, an invalid tap) lose them and still succeed."""
    for task in TASKS:
        proto = record(task, 0, noise={1: WAIT, 2: INVALID_TAP})
        assert proto.success
        noops = [s for s in proto.steps if s.action == WAIT or not s.format_valid]
        assert len(noops) == 2 and not noops[1].format_valid
        for seed in range(4):
            aug = augment_success(proto, rng=seed, max_edits=2, kinds=("remove_noop",), edits=EDITS)
            kept = originals(aug)
            assert len(kept) == len(proto.steps) - len(aug.meta["edits"])
            assert is_subsequence(kept, proto.steps) and kept[-1] == proto.steps[-1]
            assert all(s in noops for s in proto.steps if s not in kept)
            assert replay(aug)[0], (task, aug.meta["edits"])


def test_back_then_repeat_replay_rate(prototypes: list[Trajectory]) -> None:
    """How often back-then-repeat edits keep an oracle trajectory successful, over every task that has one."""
    others = [record(spec.id, 0) for spec in list_tasks() if spec.id not in TASKS]
    ok = total = 0
    failed = []
    tasks_with_edit = set()
    for proto in [*prototypes, *others]:
        for seed in range(3):
            try:
                aug = augment_success(proto, rng=seed, max_edits=2, kinds=("back_repeat",), edits=EDITS)
            except ValueError:  # no step of this prototype qualifies
                break
            check_shapes(aug, proto)
            tasks_with_edit.add(proto.task_id)
            success = replay(aug)[0]
            ok += success
            total += 1
            if not success:
                failed.append((proto.task_id, proto.seed, aug.meta["edits"]))
    rate = ok / total
    print(f"back-then-repeat replay success: {ok}/{total} = {rate:.1%} over {len(tasks_with_edit)} tasks")
    assert total >= 40 and len(tasks_with_edit) >= 10
    assert rate >= 0.8, failed
    assert {"SimpleCalendarAddOneEvent", "TasksAddTaskWithDetails"} <= tasks_with_edit


def test_back_repeat_skips_steps_back_would_not_undo() -> None:
    """A tap that changes its screen in place, or brings up the keyboard, is not followed by Back."""
    finish = Step('finish(message="done")', observation="list | X")
    in_place = Step('do(action="Tap", element=[0,0,100,100])', observation="list | Switch (checked)")
    after = Step(WAIT, observation="list | Switch")
    t = Trajectory("A", "x", success=True, steps=[in_place, after, finish])
    with pytest.raises(ValueError, match="no edit"):
        augment_success(t, rng=0, kinds=("back_repeat",), edits=EDITS)
    keyboard = Step('do(action="Tap", element=[0,0,100,100])', observation="list | Button")
    form = Step(WAIT, observation='form | EditText "Name" (focused) | View "q w e r t y"')
    t = Trajectory("A", "x", success=True, steps=[keyboard, form, finish])
    with pytest.raises(ValueError, match="no edit"):
        augment_success(t, rng=0, kinds=("back_repeat",), edits=EDITS)
    opens = Step('do(action="Tap", element=[0,0,100,100])', observation="list | Button")
    dialog = Step(WAIT, observation='list | Button | TextView "Sure?" | Button "OK"')
    t = Trajectory("A", "x", success=True, steps=[opens, dialog, finish])
    aug = augment_success(t, rng=0, max_edits=1, kinds=("back_repeat",), edits=EDITS)
    assert [s.action for s in aug.steps] == [opens.action, BACK, opens.action, WAIT, finish.action]


# ----------------------------------------------------------------------------- synthesize


def test_synthesize_balances_toward_progrm_ratio() -> None:
    data = [toy(f"T{k}", 3) for k in range(10)] + [toy(f"T{k}", 2, success=False) for k in range(3)]
    frozen = copy.deepcopy(data)
    out = synthesize(data, seed=0, edits=EDITS)
    assert data == frozen
    assert out[: len(data)] == data and out[0] is not data[0]
    aug = [t for t in out if t.meta.get("synthetic") == "augment"]
    mis = [t for t in out if t.meta.get("synthetic") == "mismatch"]
    assert len(aug) == 10 and len(out) == len(data) + len(aug) + len(mis)
    successes = sum(t.success for t in out)
    failures = len(out) - successes
    assert successes == 20 and failures == round(20 / PROGRM_SUCCESS_FAILURE_RATIO) == 16
    assert len(mis) == 13
    gap = lambda f: abs(successes / f - PROGRM_SUCCESS_FAILURE_RATIO)  # noqa: E731
    assert gap(failures) < min(gap(failures - 1), gap(failures + 1))  # the closest count to ≈1.22
    assert [t.to_dict() for t in out] == [t.to_dict() for t in synthesize(data, seed=0, edits=EDITS)]
    assert [t.to_dict() for t in out] != [t.to_dict() for t in synthesize(data, seed=1, edits=EDITS)]


def test_synthesize_adds_no_failures_when_already_balanced_and_honours_options() -> None:
    data = [toy("A"), toy("B", success=False), toy("C", success=False), toy("D", success=False)]
    out = synthesize(data, seed=0, augment_per_success=2, edits=EDITS)  # 3 successes vs 3 failures: enough failures
    assert sum(t.meta.get("synthetic") == "augment" for t in out) == 2
    assert not any(t.meta.get("synthetic") == "mismatch" for t in out)
    out = synthesize(data, seed=0, augment_per_success=0, mismatch_ratio=1.5, edits=EDITS)
    assert sum(t.meta.get("synthetic") == "mismatch" for t in out) == 6
    single = synthesize([toy("A"), toy("A", seed=1)], seed=0, edits=EDITS)  # one task: no mismatch possible, a warning
    assert [t.meta.get("synthetic") for t in single] == [None, None, "augment", "augment"]
    with pytest.raises(ValueError, match="augment_per_success"):
        synthesize(data, augment_per_success=-1, edits=EDITS)
    with pytest.raises(ValueError, match="mismatch_ratio"):
        synthesize(data, mismatch_ratio=-0.5, edits=EDITS)


def test_edit_kinds_are_documented() -> None:
    import wrappers.progress.synthesis as synthesis

    for kind in EDIT_KINDS:
        assert f"``{kind}``" in synthesis.__doc__
