"""ProgRM's ORM baseline (paper 001, §3.1): ``outcome_examples`` and ``OutcomeModelReward``.

The wrapper runs on the real ``GuiAndroid-v0`` with a stand-in ORM whose score we choose and which
records what it was asked; one tiny real ORM (a random 1-layer BERT encoder, trained for an
epoch) covers loading a checkpoint by path.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from _util import make
from gymnasium.utils.env_checker import check_env

from agents.policies import OraclePolicy, RandomPolicy
from agents.rollout import rollout
from gui_gym.android.screen import screen_text
from gui_gym.core.trajectory import Step, Trajectory
from wrappers import OUTCOME, MilestoneReward, OutcomeModelReward, ProgressReward
from wrappers.progress import outcome_examples

WIFI = "SystemWifiTurnOn"  # oracle: Launch Settings, open Network & internet, switch Wi-Fi on, finish
WIFI_ON = 'Switch "ON" (checked)'
FINISH = "finish()"
WAIT = 'do(action="Wait")'


class Judge:
    """A stand-in ORM: ``on`` when the final screen shows Wi-Fi switched on, ``off`` otherwise."""

    def __init__(self, on: float = 0.9, off: float = 0.2) -> None:
        self.on, self.off = on, off
        self.calls: list[tuple[list[str], list[list[str]], list[str]]] = []

    def predict_texts(self, goals, histories, observations) -> np.ndarray:
        self.calls.append((list(goals), [list(h) for h in histories], list(observations)))
        return np.array([self.on if WIFI_ON in o else self.off for o in observations], dtype=np.float32)


class Exact:
    """A milestone matcher stand-in (as in wrappers/milestone.py's docstring): only "Launch Settings" hits."""

    delta = 0.75

    def score(self, action: str, milestone: str) -> float:
        return 1.0 if action == "Launch Settings" and "Settings" in milestone else 0.0


def play(env: gym.Env, actions=(), seed: int = 0) -> tuple[dict, list[tuple[dict, float, bool, bool, dict]]]:
    """Reset, then ``actions`` and the oracle's until the end: (reset info, [(obs, r, term, trunc, info)])."""
    _, info0 = env.reset(seed=seed)
    actions, out = list(actions), []
    while True:
        a = actions.pop(0) if actions else env.unwrapped.oracle_action()
        obs, r, term, trunc, info = env.step(a)
        out.append((obs, float(r), term, trunc, info))
        if term or trunc:
            return info0, out


# -- outcome_examples ----------------------------------------------------------------------


def _trajectory(success: bool, progress: tuple[float, ...] = (0.5, 1.0), **meta) -> Trajectory:
    return Trajectory(
        "ClockStopWatchRunning",
        "Start the stopwatch.",
        success=success,
        steps=[
            Step('do(action="Launch", app="Clock")', observation="home", action_description="Launch Clock", progress=p)
            if i == 0
            else Step("tap it", observation="clock", format_valid=False, action_description="", progress=p)
            for i, p in enumerate(progress)
        ],
        meta=meta,
    )


def test_outcome_examples_are_final_states_with_the_outcome_label():
    ok = _trajectory(True, (0.5, 1.0), final_observation="clock (running)")
    failed = _trajectory(False, (0.5, 0.5))  # no final_observation: the last step's screen
    empty = Trajectory("SystemWifiTurnOn", "Turn on Wi-Fi.")
    unrecorded = _trajectory(False, (0.0, 0.0))  # no milestones, progress and task_milestones: env_label None
    exs = outcome_examples([ok, empty, failed, unrecorded], index_offset=10)
    assert [e.trajectory for e in exs] == [10, 12, 13]  # the empty one is skipped but keeps its index
    assert [e.label for e in exs] == [1.0, 0.0, 0.0] and [e.success for e in exs] == [True, False, False]
    assert all(e.key and e.final for e in exs)
    first = exs[0]
    assert first.goal == "Start the stopwatch." and first.task_id == "ClockStopWatchRunning" and first.step == 2
    assert first.history == ("Launch Clock", "invalid action: tap it")  # action_text: description or raw action
    assert first.observation == "clock (running)" and exs[1].observation == "clock"
    assert [e.env_label for e in exs] == [1.0, 0.5, None]
    recorded = _trajectory(False, (0.0, 0.0), task_milestones=["Open Clock"])
    assert outcome_examples([recorded])[0].env_label == 0.0
    assert outcome_examples([]) == [] and outcome_examples([empty]) == []


def test_outcome_examples_match_the_last_progress_example_of_a_rollout():
    from wrappers.progress import env_labels, examples

    env = make(WIFI)
    trajectories = [r.trajectory for r in rollout(env, OraclePolicy(env), 2, seed=0, progress=False)]
    trajectories += [
        r.trajectory for r in rollout(env, RandomPolicy("GuiAndroid-v0", seed=0), 2, seed=5, progress=False)
    ]
    for i, (t, e) in enumerate(zip(trajectories, outcome_examples(trajectories), strict=True)):
        last = examples(t, env_labels(t).labels, env_labels(t).key_steps, env_labels(t).labels, index=i)[-1]
        assert (e.goal, e.history, e.observation, e.trajectory) == (last.goal, last.history, last.observation, i)
        assert e.env_label == pytest.approx(last.env_label) and e.label == float(t.success)
    assert [e.label for e in outcome_examples(trajectories)][:2] == [1.0, 1.0]


# -- OutcomeModelReward with a stand-in ORM -------------------------------------------------


def test_only_the_last_step_is_rewarded_with_the_orms_verdict():
    judge = Judge()
    env = OutcomeModelReward(make(WIFI), model=judge)
    info0, steps = play(env)
    rewards = [r for _, r, *_ in steps]
    assert rewards == [0.0, 0.0, 0.0, 1.0]
    assert [info["reward_components"] for *_, info in steps] == [{OUTCOME: r} for r in rewards]
    last = steps[-1][-1]
    assert last["orm_score"] == pytest.approx(0.9) and last["env_reward"] == 1.0 and last["success"] is True
    assert all("orm_score" not in info and "env_reward" not in info for *_, info in steps[:-1])
    # One ORM call per episode, on the final state: goal, every action, the final screen.
    assert len(judge.calls) == 1
    goals, histories, screens = judge.calls[0]
    assert goals == [info0["instruction"]]
    assert histories == [[info["action_description"] for *_, info in steps]]
    assert screens == [screen_text(steps[-1][0])]


def test_the_orm_overrides_the_env_check_but_not_info_success():
    # The env says success, the ORM disagrees: reward 0, success stays the env's ground truth.
    _, steps = play(OutcomeModelReward(make(WIFI), model=Judge(on=0.3)))
    assert steps[-1][1] == 0.0 and steps[-1][-1]["success"] is True and steps[-1][-1]["env_reward"] == 1.0
    # The env says failure (finished at once), the ORM is fooled: reward 1, success stays False.
    _, steps = play(OutcomeModelReward(make(WIFI), model=Judge(off=0.7)), actions=[FINISH])
    assert len(steps) == 1 and steps[0][1] == 1.0
    assert steps[0][-1]["success"] is False and steps[0][-1]["env_reward"] == 0.0


def test_threshold_is_inclusive_and_binary_false_rewards_the_score():
    for threshold, expected in ((0.75, 1.0), (0.76, 0.0)):  # 0.75 is exact in float32
        _, steps = play(OutcomeModelReward(make(WIFI), model=Judge(on=0.75), threshold=threshold))
        assert steps[-1][1] == expected
    _, steps = play(OutcomeModelReward(make(WIFI), model=Judge(off=0.25), binary=False), actions=[FINISH])
    assert steps[-1][1] == pytest.approx(0.25) == steps[-1][-1]["reward_components"][OUTCOME]


def test_truncation_is_a_last_step_too():
    env = OutcomeModelReward(make(WIFI, max_steps=3), model=Judge(off=0.6))
    _, steps = play(env, actions=[WAIT] * 3)
    assert [(r, term, trunc) for _, r, term, trunc, _ in steps] == [(0.0, False, False)] * 2 + [(1.0, False, True)]
    assert steps[-1][-1]["success"] is False and steps[-1][-1]["orm_score"] == pytest.approx(0.6)


def test_a_new_episode_starts_a_new_history():
    judge = Judge()
    env = OutcomeModelReward(make(WIFI), model=judge)
    play(env, actions=[FINISH])
    play(env, actions=[WAIT, FINISH], seed=1)
    assert [c[1] for c in judge.calls] == [[["Finish the task"]], [[_description(WAIT), "Finish the task"]]]


def _description(action: str) -> str:
    env = make(WIFI)
    env.reset(seed=0)
    return env.step(action)[-1]["action_description"]


def test_shaping_wrappers_above_read_the_orms_outcome():
    env = MilestoneReward(OutcomeModelReward(make(WIFI), model=Judge(on=0.3)), matcher=Exact())
    _, steps = play(env)
    first, last = steps[0][-1], steps[-1][-1]
    assert first["reward_components"][OUTCOME] == 0.0 and first["milestone_hit"] == "Open the Settings app"
    assert last["success"] is True  # the env's check passed
    assert last["reward_components"][OUTCOME] == 0.0  # but the ORM's verdict is the outcome term
    assert last["episode_reward_components"][OUTCOME] == [0.0] * len(steps)
    # A fooled ORM on a failed episode: its 1.0 is the outcome the wrapper above broadcasts.
    env = MilestoneReward(OutcomeModelReward(make(WIFI), model=Judge(off=0.8)), matcher=Exact())
    _, steps = play(env, actions=['do(action="Launch", app="Settings")', FINISH])
    last = steps[-1][-1]
    assert last["reward_components"][OUTCOME] == 1.0 and last["episode_reward_components"][OUTCOME] == [1.0, 1.0]
    assert len(last["episode_rewards"]) == 2 and last["success"] is False


def test_it_must_be_innermost_and_needs_a_model():
    with pytest.raises(ValueError, match="must wrap the env directly"):
        OutcomeModelReward(ProgressReward(make(WIFI), "env"), model=Judge())
    for bad in ("env", 3, object()):
        with pytest.raises(TypeError, match="outcome-model checkpoint path or a loaded model"):
            OutcomeModelReward(make(WIFI), model=bad)
    with pytest.raises(FileNotFoundError):
        OutcomeModelReward(make(WIFI), model="/nonexistent/orm/best.pt")


def test_check_env_passes():
    env = OutcomeModelReward(make(WIFI), model=Judge())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # check_env prefers unwrapped envs; we check the stack
        check_env(env, skip_render_check=True)


# -- a real (tiny) trained ORM -------------------------------------------------------------


def test_a_trained_orm_checkpoint_loads_by_path(tiny_encoder: str, tmp_path: Path):
    from wrappers.progress import ProgressModel, ProgressTrainConfig, train_progress_model

    env = make(WIFI)
    trajectories = [r.trajectory for r in rollout(env, OraclePolicy(env), 4, seed=0, progress=False)]
    trajectories += [
        r.trajectory for r in rollout(env, RandomPolicy("GuiAndroid-v0", seed=0), 4, seed=10, progress=False)
    ]
    exs = outcome_examples(trajectories)
    assert {e.label for e in exs} == {0.0, 1.0}
    config = ProgressTrainConfig(encoder=tiny_encoder, hidden=8, epochs=1, batch_size=4)
    train_progress_model(exs[::2], tmp_path, config, val_examples=exs[1::2], progress=False)
    checkpoint = tmp_path / "best.pt"

    wrapped = OutcomeModelReward(make(WIFI), model=str(checkpoint), threshold=0.5)
    assert isinstance(wrapped.model, ProgressModel) and not wrapped.model.training
    info0, steps = play(wrapped)
    score = steps[-1][-1]["orm_score"]
    reference = ProgressModel.load(checkpoint)
    history = [info["action_description"] for *_, info in steps]
    assert score == pytest.approx(reference.score(info0["instruction"], history, screen_text(steps[-1][0])), abs=1e-6)
    assert steps[-1][1] == (1.0 if score >= 0.5 else 0.0) and [r for _, r, *_ in steps[:-1]] == [0.0] * 3
    # Scores match those of the training example built from the same episode's log.
    logger = make(WIFI)
    logged = rollout(logger, OraclePolicy(logger), 1, seed=0, progress=False)[0].trajectory
    (example,) = outcome_examples([logged])
    assert float(reference.predict([example])[0]) == pytest.approx(score, abs=1e-6)
