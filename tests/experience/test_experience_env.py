"""``GuiExperience-v0``: Alg. 1's patches, Eq. 5 at the end, the contract keys, the embedded set, AC-Real."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import gui_gym  # noqa: F401
from gui_gym.core import contract as C
from gui_gym.experience.acreal import ac_real_metrics, evaluate
from gui_gym.experience.embedded import SEEDS, embedded_experiences, generate
from gui_gym.experience.record import Experience, ExpertStep, UIAction

WAIT = '{"action": "wait"}'


def toy(n: int = 3, eid: str = "toy/0", thoughts: bool = False) -> Experience:
    """A data-set experience (no simulator): n clicks on a one-button screen."""
    ui = (
        '<hierarchy><node text="Go" class="android.widget.Button" clickable="true" '
        'bounds="[100,100][300,200]"/></hierarchy>'
    )
    steps = [
        ExpertStep(
            UIAction("click", point=(200, 150), box=(100, 100, 300, 200)),
            ui=ui,
            thought="press go" if thoughts else None,
        )
        for _ in range(n)
    ]
    return Experience(eid, "press go three times", tuple(steps), (1080, 2400), source="ui-s1", difficulty="easy")


CLICK = '{"action": "click", "coordinate": [200, 150]}'


def run(env: gym.Env, actions: list[str]) -> list[tuple]:
    out = []
    for a in actions:
        _, r, term, trunc, info = env.step(a)
        out.append((r, term, trunc, info))
        if term or trunc:
            break
    return out


def test_matches_move_on_and_the_end_carries_eq5_returns() -> None:
    env = gym.make("GuiExperience-v0", data=[toy()])
    env.reset(seed=0)
    steps = run(env, [CLICK] * 3)
    assert [s[0] for s in steps] == [1.0, 1.0, 1.0] and steps[-1][1]
    info = steps[-1][3]
    assert info[C.SUCCESS] and info[C.PROGRESS] == 1.0 and info[C.EPISODE_REWARDS] == [1.75, 1.5, 1.0]
    assert [s[3][C.STEP_INDEX] for s in steps] == [0, 1, 2] and steps[0][3][C.MILESTONES] == ['Click "Go"']


@pytest.mark.parametrize(("threshold", "ends_at"), [(0, 1), (1, 3), (None, 3)])
def test_patch_threshold(threshold, ends_at) -> None:
    env = gym.make("GuiExperience-v0", data=[toy()], patch_threshold=threshold)
    env.reset(seed=0)
    steps = run(env, [WAIT, WAIT, CLICK] if threshold != 1 else [WAIT, CLICK, WAIT])
    assert len(steps) == ends_at and steps[-1][1]
    assert not steps[-1][3][C.SUCCESS]
    if threshold == 0:  # AC-Real: the first mismatch ends it, unpatched
        assert steps[0][3][C.PATCHED] is False and steps[0][3][C.EPISODE_REWARDS] == [0.1]
    if threshold == 1:  # one patch, then the second mismatch ends it (its own step kept)
        assert [s[3][C.PATCHED] for s in steps] == [True, False, False]
        assert steps[-1][3][C.EPISODE_REWARDS] == [0.1, 1.0, 0.1]
    if threshold is None:
        assert [s[3][C.PATCHED] for s in steps] == [True, True, False]


def test_patch_labels_thought_free_off_policy_and_on_policy() -> None:
    expected = '{"action": "click", "coordinate": [200, 150]}'
    env = gym.make("GuiExperience-v0", data=[toy(thoughts=True)])
    env.reset(seed=0)
    info = env.step(WAIT)[4]
    assert info[C.PATCH_LABEL] == f"<action>{expected}</action>" and info[C.EXPERT_ACTION] == expected
    env = gym.make("GuiExperience-v0", data=[toy(thoughts=True)], patch="off-policy")
    env.reset(seed=0)
    assert env.step(WAIT)[4][C.PATCH_LABEL] == f"<think>press go</think><action>{expected}</action>"
    seen = []

    def on_policy(obs, expert, t):
        seen.append((obs["instruction"], expert.action, t))
        return "the Go button is the way"

    env = gym.make("GuiExperience-v0", data=[toy()], patch=on_policy)
    env.reset(seed=0)
    env.step(CLICK)
    assert env.step(WAIT)[4][C.PATCH_LABEL].startswith("<think>the Go button is the way</think>")
    assert seen == [("press go three times", "click", 1)]


def test_invalid_actions_are_no_ops_or_mismatches() -> None:
    env = gym.make("GuiExperience-v0", data=[toy()])
    obs, _ = env.reset(seed=0)
    obs2, r, term, _, info = env.step("this is not an action")
    assert (r, term, info[C.FORMAT_VALID], info[C.ACTION_KIND]) == (0.0, False, False, C.INVALID)
    assert obs2 == obs and info[C.REASON] and not info[C.PATCHED] and env.unwrapped.step_index == 0
    steps = run(env, ["nope"] * 10)
    assert steps[-1][2] and len(steps) == 5  # the limit: 2 × 3 steps, one already spent
    env = gym.make("GuiExperience-v0", data=[toy()], invalid="mismatch")
    env.reset(seed=0)
    assert env.step("nope")[4][C.PATCHED] is True


def test_rewards_under_the_released_rule() -> None:
    env = gym.make("GuiExperience-v0", data=[toy()], rule="released", patch_threshold=None)
    env.reset(seed=0)
    assert env.step(f"<action>{CLICK}</action>")[1] == pytest.approx(0.9)  # no <think>: the format point is lost
    assert env.step(f"<think>go</think><action>{CLICK}</action>")[1] == pytest.approx(1.0)
    assert env.step('<think>x</think><action>{"action": "wait"}</action>')[1] == pytest.approx(0.19)
    env.reset(seed=0)
    assert env.step(CLICK)[1] == 0.0  # the released code reads <action> tags only


def test_bad_arguments_are_refused() -> None:
    for kwargs, match in [
        ({"patch_threshold": -1}, "patch_threshold"),
        ({"patch": "sometimes"}, "patch"),
        ({"rule": "mine"}, "rule"),
        ({"gamma": 2}, "gamma"),
        ({"invalid": "ignore"}, "invalid"),
        ({"task": "NoSuchTask"}, "unknown task id"),
        ({"data": []}, "no experiences"),
    ]:
        with pytest.raises(ValueError, match=match):
            gym.make("GuiExperience-v0", **kwargs)


def test_embedded_oracle_episodes_replay_and_succeed() -> None:
    env = gym.make("GuiExperience-v0", task="test:easy")
    for seed in range(6):
        env.reset(seed=seed)
        while True:
            _, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
            assert r == 1.0
            if term or trunc:
                break
        assert term and info[C.SUCCESS] and info[C.PROGRESS] == 1.0


def test_pixels_come_from_the_replayed_simulator() -> None:
    env = gym.make("GuiExperience-v0", task="ClockStopWatchRunning/0", obs_mode="both", screen_size=(108, 240))
    obs, _ = env.reset(seed=0)
    assert obs["screen"].shape == (240, 108, 3) and obs["screen"].dtype == np.uint8
    first = obs["screen"].copy()
    obs, *_ = env.step(env.unwrapped.oracle_action())
    assert not np.array_equal(first, obs["screen"])  # the app opened


def test_the_shipped_set_is_what_the_simulator_makes() -> None:
    shipped = embedded_experiences()
    assert len(shipped) == len({e.task for e in shipped}) * len(SEEDS)
    some = sorted({e.task for e in shipped})[::9]
    remade = generate(some, SEEDS)
    assert remade == [e for e in shipped if e.task in some]


def test_vector_env_runs_experiences() -> None:
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("GuiExperience-v0", task="train:easy") for _ in range(2)])
    _, infos = envs.reset(seed=0)
    assert list(infos[C.TASK_ID]) and all(t.endswith(("/0", "/1", "/2", "/3", "/4", "/5")) for t in infos[C.TASK_ID])
    for _ in range(5):
        _, rewards, _, _, _ = envs.step([WAIT, WAIT])
        assert rewards.shape == (2,)
    envs.close()


def test_ac_real_metrics_by_hand_and_on_a_scripted_agent() -> None:
    # App. F: s/t = 1/4, 4/4, 0/2 → PG = (0.25 + 1 + 0)/3, TSR = 1/3
    r = ac_real_metrics([(1, 4), (4, 4), (0, 2)])
    assert r.pg == pytest.approx(1.25 / 3) and r.tsr == pytest.approx(1 / 3)
    assert r.score == pytest.approx((1.25 / 3 + 1 / 3) / 2)
    with pytest.raises(ValueError):
        ac_real_metrics([(3, 2)])

    def two_right(obs, info, env):  # right on the first two steps of each task, then garbage
        return env.oracle_action() if env.step_index < 2 else "garbage"

    pool = [toy(3, "a"), toy(2, "b"), toy(1, "c")]
    result = evaluate(two_right, pool)
    assert result.progress == [(2, 3), (2, 2), (1, 1)] and result.tsr == pytest.approx(2 / 3)
