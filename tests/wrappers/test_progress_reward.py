"""ProgRM's dense reward (paper 001, Eq. 2): ``progress_gains``, ``ProgressReward`` and ``ProgressRewardVector``.

Exact values come from the env's oracle progress (``model="env"``) and from a stub model whose
output is 0.1 per action in the history (capped at 1) and which records what it was asked; one
small real ``ProgressModel`` (a random 1-layer BERT) covers the checkpoint path.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from _util import ENV_ID, make, save_tiny_encoder
from gymnasium.utils.env_checker import check_env

import wrappers
from gui_gym.android.screen import screen_text
from wrappers import OUTCOME, MilestoneReward, ProgressReward, ProgressRewardVector, ShortestLengths, ShortestPathReward
from wrappers.progress.reward import progress_gains

WIFI = "SystemWifiTurnOn"  # 4 oracle steps, 3 milestones: progress 0, 1/3, 2/3, 1, 1
CONTACT = "ContactsAddContact"  # 9 oracle steps, 6 milestones, with MobileRL's Type (no Enter)
# MobileRL's Type keeps the focus, so the oracle taps each field before typing (AndroidLab's
# Enter would move it on): the steps that only focus a field are what these tests need.
MOBILERL = {"action_dialect": "mobilerl"}
LAUNCH = 'do(action="Launch", app="Settings")'
WAIT = 'do(action="Wait")'
INVALID = "tap the thing please"
# The oracle's progress on ContactsAddContact (seed 0), in sixths: two steps only focus a field.
CONTACT_PROGRESS = [0, 1, 2, 3, 3, 4, 4, 5, 6, 6]


class StubModel:
    """A progress model whose output we control: 0.1 per action in the history, capped at 1."""

    def __init__(self) -> None:
        self.calls: list[tuple[list[str], list[list[str]], list[str]]] = []

    @staticmethod
    def value(history) -> float:
        return min(1.0, 0.1 * len(history))

    def predict_texts(self, goals, histories, observations) -> np.ndarray:
        self.calls.append((list(goals), [list(h) for h in histories], list(observations)))
        return np.array([self.value(h) for h in histories], dtype=np.float32)


class WordMatcher:
    """Static milestones without the sentence encoder: content-word overlap (as in tests/test_shaping.py)."""

    delta = 0.45

    def score(self, action: str, milestone: str) -> float:
        stop = {"the", "a", "an", "to", "in", "of", "on", "app", "open"}
        want = {w.strip('"').lower() for w in milestone.split()} - stop
        have = {w.strip('"').lower() for w in action.split()}
        return len(want & have) / len(want) if want else 0.0


def play(env: gym.Env, actions=(), seed: int = 0) -> tuple[dict, dict, list[tuple[dict, float, dict]]]:
    """Reset, then the given actions and the oracle's until the end: (reset obs, reset info, [(obs, r, info)])."""
    obs0, info0 = env.reset(seed=seed)
    actions, out = list(actions), []
    while True:
        a = actions.pop(0) if actions else env.unwrapped.oracle_action()
        obs, r, term, trunc, info = env.step(a)
        out.append((obs, float(r), info))
        if term or trunc:
            return obs0, info0, out


def terms(steps) -> list[float]:
    return [info["reward_components"]["progress"] for _, _, info in steps]


# -- Eq. 2 as a pure function --------------------------------------------------------------


def test_progress_gains_by_hand():
    values = [0.0, 0.25, 0.25, 0.75, 0.5]
    assert progress_gains(values, 1) == pytest.approx([0.25, 0.0, 0.5, -0.25])
    assert progress_gains(values, 2) == pytest.approx([0.25, 0.25, 0.5, 0.25])  # v3 − v1, v4 − v2
    assert progress_gains(values, 3) == pytest.approx([0.25, 0.25, 0.75, 0.25])  # v3 − v0, v4 − v1
    assert progress_gains(values, 10) == pytest.approx([0.25, 0.25, 0.75, 0.5])  # k > T: all against s_0
    assert progress_gains(values) == progress_gains(values, 1)
    assert progress_gains([0.4]) == [] and progress_gains([]) == []
    assert sum(progress_gains(values, 1)) == pytest.approx(values[-1] - values[0])  # telescoping
    for k in (0, -1):
        with pytest.raises(ValueError, match="at least 1"):
            progress_gains(values, k)


def test_wrappers_reject_a_bad_history_length():
    with pytest.raises(ValueError, match="at least 1"):
        ProgressReward(make(WIFI), "env", k=0)
    with pytest.raises(ValueError, match="at least 1"):
        ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=1, vectorization_mode="sync", task=WIFI), "env", k=0)


# -- oracle progress (model="env") ---------------------------------------------------------


def test_env_progress_term_is_the_change_of_info_progress():
    env = ProgressReward(make(CONTACT, **MOBILERL), model="env")
    _, info0, steps = play(env)
    progress = [info0["progress"]] + [info["progress"] for _, _, info in steps]
    assert progress == pytest.approx([p / 6 for p in CONTACT_PROGRESS])
    assert terms(steps) == pytest.approx(np.diff(progress).tolist())
    assert sum(terms(steps)) == pytest.approx(progress[-1] - progress[0])
    assert progress[-1] - progress[0] == pytest.approx(1.0)
    assert env.values == pytest.approx(progress)
    for _, r, info in steps:
        assert set(info["reward_components"]) == {OUTCOME, "progress"}
        assert r == pytest.approx(info["reward_components"][OUTCOME] + info["reward_components"]["progress"])
        assert "predicted_progress" not in info  # only a model reports an estimate
    last = steps[-1][2]
    assert last["success"] and steps[-1][1] == pytest.approx(1.0)  # outcome 1, progress already 1
    assert last["episode_reward_components"]["progress"] == pytest.approx(terms(steps))
    assert last["episode_reward_components"][OUTCOME] == [1.0] * len(steps)
    assert "episode_rewards" not in last  # nothing here depends on the outcome


def test_history_length_two_by_hand():
    env = ProgressReward(make(CONTACT, **MOBILERL), model="env", k=2)
    _, _, steps = play(env)
    want = [1, 2, 2, 1, 1, 1, 1, 2, 1]  # p_t − p_{t−2} in sixths, p_{−1} = p_0
    assert terms(steps) == pytest.approx([w / 6 for w in want])
    assert steps[-1][2]["episode_reward_components"]["progress"] == pytest.approx(terms(steps))


def test_weight_scales_the_term_and_invalid_steps_gain_nothing():
    plain = terms(play(ProgressReward(make(WIFI), "env"), actions=[INVALID])[2])
    env = ProgressReward(make(WIFI), "env", weight=0.5)
    _, _, steps = play(env, actions=[INVALID])
    assert plain == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3, 0.0])
    assert terms(steps) == pytest.approx([0.5 * t for t in plain])
    assert [r for _, r, _ in steps] == pytest.approx([0.0, 1 / 6, 1 / 6, 1 / 6, 1.0])
    assert steps[-1][2]["episode_reward_components"]["progress"] == pytest.approx([0.5 * t for t in plain])


def test_each_episode_starts_from_its_own_reset_state():
    env = ProgressReward(make(WIFI), "env")
    first = play(env)[2]
    _, info0, second = play(env, actions=[WAIT], seed=1)
    assert env.values[0] == info0["progress"] and len(env.values) == len(second) + 1
    assert terms(first) == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])
    assert terms(second) == pytest.approx([0.0, 1 / 3, 1 / 3, 1 / 3, 0.0])


def test_check_env_passes():
    for env in (
        ProgressReward(make(WIFI), "env"),
        ProgressReward(make(CONTACT), "env", k=2, weight=0.5),
        ProgressReward(make(WIFI), StubModel()),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # check_env prefers unwrapped envs; we check the stack
            check_env(env, skip_render_check=True)


# -- a model source ------------------------------------------------------------------------


def test_stub_model_terms_inputs_and_estimates():
    stub = StubModel()
    env = ProgressReward(make(WIFI, max_steps=12), model=stub)
    obs0, info0, steps = play(env, actions=[LAUNCH, INVALID] + [WAIT] * 10)
    assert len(steps) == 12 and not steps[-1][2]["success"]  # truncated
    values = [min(1.0, 0.1 * t) for t in range(13)]  # capped at 1 after ten actions
    assert terms(steps) == pytest.approx(np.diff(values).tolist())
    assert terms(steps)[-2:] == pytest.approx([0.0, 0.0])
    assert [info["predicted_progress"] for _, _, info in steps] == pytest.approx(values[1:])
    assert [r for _, r, _ in steps] == pytest.approx(terms(steps))  # outcome 0 throughout
    assert steps[-1][2]["episode_reward_components"]["progress"] == pytest.approx(terms(steps))

    # One call per state, reset included: the goal, the action texts so far, the screen's text.
    assert len(stub.calls) == 13 and all(len(goals) == 1 for goals, _, _ in stub.calls)
    assert {goals[0] for goals, _, _ in stub.calls} == {info0["instruction"]}
    descriptions = [info["action_description"] for _, _, info in steps]
    assert descriptions[0] == "Launch Settings" and not steps[1][2]["format_valid"]
    history = [descriptions[0], "invalid action: " + descriptions[1], *descriptions[2:]]
    assert [h[0] for _, h, _ in stub.calls] == [history[:t] for t in range(13)]
    screens = [screen_text(obs0)] + [screen_text(obs) for obs, _, _ in steps]
    assert [o[0] for _, _, o in stub.calls] == screens
    assert screens[0] != screens[1]  # the launch changed the screen the model read


def test_model_object_is_shared_not_copied():
    stub = StubModel()
    env = ProgressReward(make(WIFI), model=stub, k=2)
    assert env.model is stub
    assert env.spec.additional_wrappers[-1].kwargs["model"] is stub  # the spec refers to the one model


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A saved ProgressModel on a 1-layer, 32-wide random BERT with MiniLM's tokenizer."""

    from wrappers.progress.model import ProgressModel

    root = tmp_path_factory.mktemp("progrm")
    encoder = save_tiny_encoder(root / "tiny_bert")
    path = root / "model.pt"
    ProgressModel(str(encoder), hidden=8).save(path)
    return path


def test_checkpoint_path_loads_and_scores_each_state(checkpoint: Path):
    from wrappers.progress.model import ProgressModel

    reference = ProgressModel.load(checkpoint)
    for source in (str(checkpoint), checkpoint):
        env = ProgressReward(make(WIFI), model=source)
        assert isinstance(env.model, ProgressModel) and not env.model.training
        obs0, info0, steps = play(env, actions=[INVALID])
        goal, history = info0["instruction"], []
        want = [reference.score(goal, [], screen_text(obs0))]
        for obs, _, info in steps:
            text = info["action_description"]
            history.append(text if info["format_valid"] else f"invalid action: {text}")
            want.append(reference.score(goal, history, screen_text(obs)))
        estimates = [info["predicted_progress"] for _, _, info in steps]
        assert estimates == pytest.approx(want[1:], abs=1e-6)
        assert all(0.0 <= p <= 1.0 for p in estimates)
        assert terms(steps) == pytest.approx(np.diff(want).tolist(), abs=1e-6)


def test_bad_model_sources(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match=r"no progress-model checkpoint at .*progrm train"):
        ProgressReward(make(WIFI), model=str(tmp_path / "missing.pt"))
    with pytest.raises(FileNotFoundError, match="no progress-model checkpoint"):
        ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=1, vectorization_mode="sync"), model=tmp_path / "x.pt")
    for bad in (42, object(), ["env"]):
        with pytest.raises(TypeError, match="checkpoint path, a ProgressModel or 'env'"):
            ProgressReward(make(WIFI), model=bad)
    with pytest.raises(TypeError, match="checkpoint path"):
        ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=1, vectorization_mode="sync"), model=3.5)


# -- composition ---------------------------------------------------------------------------


ORDERS = {
    "progress_inside": lambda env, lengths: ShortestPathReward(
        MilestoneReward(ProgressReward(env, "env"), matcher=WordMatcher()), lengths
    ),
    "progress_outside": lambda env, lengths: ProgressReward(
        ShortestPathReward(MilestoneReward(env, matcher=WordMatcher()), lengths), "env"
    ),
    "progress_between": lambda env, lengths: MilestoneReward(
        ProgressReward(ShortestPathReward(env, lengths), "env"), matcher=WordMatcher()
    ),
}


def test_progress_composes_with_milestone_and_spa_in_any_order():
    results = {}
    for name, build in ORDERS.items():
        lengths = ShortestLengths()
        env = build(make(WIFI), lengths)
        play(env)  # T_min = 4, so the next (6-step) success is shaped by SPA
        _, info0, steps = play(env, actions=[INVALID, WAIT])
        progress = [info0["progress"]] + [info["progress"] for _, _, info in steps]
        for _, r, info in steps:
            assert set(info["reward_components"]) == {OUTCOME, "progress", "format", "milestone", "spa"}, name
            assert r == pytest.approx(sum(info["reward_components"].values())), name
        last = steps[-1][2]
        comps = last["episode_reward_components"]
        assert set(comps) == {OUTCOME, "progress", "format", "milestone", "spa"}, name
        assert last["episode_rewards"] == pytest.approx([sum(col) for col in zip(*comps.values(), strict=True)]), name
        assert comps["progress"] == pytest.approx(terms(steps)), name
        assert terms(steps) == pytest.approx(np.diff(progress).tolist()), name
        assert comps["format"][0] == pytest.approx(-0.5) and comps["spa"][0] == pytest.approx(-2 / 6), name
        results[name] = last["episode_rewards"]
    first = next(iter(results.values()))
    assert all(v == pytest.approx(first) for v in results.values())  # the order does not change the rewards


# -- vector envs ---------------------------------------------------------------------------

TASKS = [WIFI, CONTACT, "ClockStopWatchRunning"]


def test_vector_matches_the_single_env_wrapper_with_one_batched_call_per_step():
    stub = StubModel()
    envs = ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync", task=TASKS), model=stub)
    envs.reset(seed=0)
    assert [len(g) for g, _, _ in stub.calls] == [3]
    log = []  # per step: actions, rewards, term|trunc, mask
    for t in range(14):
        actions = list(envs.unwrapped.call("oracle_action"))
        if t == 1:
            actions[2] = INVALID
        n_calls, stepping = len(stub.calls), ~np.array(envs._resetting)
        _, rewards, term, trunc, infos = envs.step(actions)
        mask = infos["reward_components"]["_progress"]
        assert mask.tolist() == stepping.tolist()
        assert infos["_predicted_progress"].tolist() == stepping.tolist()
        # The stepping envs in one batch; envs reset at this step get their first score in a second one.
        sizes = [len(g) for g, _, _ in stub.calls[n_calls:]]
        assert sizes == [int(stepping.sum())] + ([int((~stepping).sum())] if (~stepping).any() else [])
        assert rewards[~mask].tolist() == [0.0] * int((~mask).sum())
        if t == 1:  # env 2's invalid action reaches the model marked as such
            last = stub.calls[n_calls][1][2][-1]
            assert last == "invalid action: " + infos["action_description"][2] and not infos["format_valid"][2]
        log.append((actions, rewards.copy(), term | trunc, mask.copy()))
    assert any(not m.all() for *_, m in log)  # some env went through an autoreset

    for i in range(3):  # the same seeds and actions in a single env give the same rewards
        env = ProgressReward(make(TASKS), model=StubModel())
        env.reset(seed=i)
        for actions, rewards, done, mask in log:
            if not mask[i]:
                env.reset()  # the vector env's autoreset (no seed: the env's own generator goes on)
                continue
            _, r, term, trunc, _ = env.step(actions[i])
            assert rewards[i] == pytest.approx(r), (i, actions[i])
            assert done[i] == (term or trunc)


def test_next_step_autoreset_restarts_the_episode():
    stub = StubModel()
    envs = ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync", task=WIFI), model=stub)
    envs.reset(seed=0)
    _, rewards, term, _, infos = envs.step([LAUNCH] * 3)
    assert rewards == pytest.approx([0.1] * 3)
    _, rewards, term, _, infos = envs.step(["finish()", WAIT, WAIT])
    assert term.tolist() == [True, False, False] and rewards == pytest.approx([0.1] * 3)
    assert infos["predicted_progress"] == pytest.approx([0.2] * 3)

    _, rewards, term, _, infos = envs.step([LAUNCH] * 3)  # env 0: its reset step, the action is ignored
    assert infos["reward_components"]["_progress"].tolist() == [False, True, True]
    assert infos["reward_components"]["progress"] == pytest.approx([0.0, 0.1, 0.1])
    assert infos["_predicted_progress"].tolist() == [False, True, True]
    assert rewards == pytest.approx([0.0, 0.1, 0.1])
    assert envs.values[0] == [0.0] and envs.histories[0] == []
    assert stub.calls[-1][1] == [[]]  # the new episode's reset state, scored on its own

    obs, rewards, _, _, infos = envs.step([LAUNCH] * 3)
    assert rewards == pytest.approx([0.1] * 3)  # env 0 starts again from one action
    goals, histories, screens = stub.calls[-1]
    assert histories[0] == ["Launch Settings"] and len(histories[1]) == 4
    assert goals[0] == obs["instruction"][0] and screens[0] == screen_text({"ui": obs["ui"][0]})

    oracle = ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", task=WIFI), "env")
    oracle.reset(seed=0)
    seen = [oracle.step(list(oracle.unwrapped.call("oracle_action")))[1][0] for _ in range(6)]
    assert seen == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0, 0.0, 1 / 3])  # ..., finish (outcome 1), reset step, Launch


def test_same_step_autoreset_scores_the_final_observation():
    def fns(n):
        return [lambda: make(WIFI)] * n

    same = gym.vector.AutoresetMode.SAME_STEP
    stub = StubModel()
    envs = ProgressRewardVector(gym.vector.SyncVectorEnv(fns(2), autoreset_mode=same), model=stub)
    envs.reset(seed=0)
    envs.step([LAUNCH, LAUNCH])
    obs, rewards, term, _, infos = envs.step(["finish()", WAIT])
    assert term.tolist() == [True, False]
    assert rewards == pytest.approx([0.1, 0.1]) and infos["reward_components"]["_progress"].all()
    assert infos["predicted_progress"] == pytest.approx([0.2, 0.2])
    scored = {}  # what the model read for each env at this step
    for _, histories, screens in stub.calls[-3:]:
        for h, s in zip(histories, screens, strict=True):
            scored.setdefault(len(h), []).append(s)
    final_screen = screen_text(infos["final_obs"][0])
    assert final_screen != screen_text({"ui": obs["ui"][0]})  # obs[0] is already the next episode's
    assert final_screen in scored[2] and screen_text({"ui": obs["ui"][0]}) in scored[0]
    assert envs.values[0] == [0.0] and envs.histories[0] == []
    _, rewards, *_ = envs.step([LAUNCH, LAUNCH])
    assert rewards == pytest.approx([0.1, 0.1])
    assert [len(h) for h in stub.calls[-1][1]] == [1, 3]

    oracle = ProgressRewardVector(gym.vector.SyncVectorEnv(fns(2), autoreset_mode=same), "env")
    oracle.reset(seed=0)
    seen = []
    for _ in range(5):
        _, rewards, term, _, infos = oracle.step(list(oracle.unwrapped.call("oracle_action")))
        seen.append(rewards[0])
    # finish() ends at progress 1: its term is 0, not 0 − 1 from the next episode's reset info.
    assert seen == pytest.approx([1 / 3, 1 / 3, 1 / 3, 1.0, 1 / 3])  # the last step: the outcome 1 and a term 0


def test_disabled_autoreset_is_refused():
    disabled = gym.vector.SyncVectorEnv([lambda: make(WIFI)], autoreset_mode=gym.vector.AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match="NEXT_STEP and SAME_STEP"):
        ProgressRewardVector(disabled, "env")


def test_partial_reset_keeps_the_other_episodes():
    envs = ProgressRewardVector(gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", task=WIFI), "env")
    envs.reset(seed=0)
    envs.step([LAUNCH, LAUNCH])
    envs.reset(seed=5, options={"reset_mask": np.array([True, False])})
    assert envs.values[0] == [0.0] and envs.values[1] == pytest.approx([0.0, 1 / 3])
    _, rewards, *_ = envs.step([WAIT, envs.unwrapped.call("oracle_action")[1]])
    assert rewards == pytest.approx([0.0, 1 / 3])  # env 1 gains 1/3 → 2/3, not 0 → 2/3


def _oracle_run(envs: gym.vector.VectorEnv, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Rewards and ends of ``steps`` oracle steps of every sub-env."""
    envs.reset(seed=0)
    rewards, dones = [], []
    for _ in range(steps):
        _, r, term, trunc, _ = envs.step(list(envs.unwrapped.call("oracle_action")))
        rewards.append(r)
        dones.append(term | trunc)
    envs.close()
    return np.array(rewards), np.array(dones)


def test_async_vector_env_with_env_progress():
    def factory():
        import gui_gym  # noqa: F401

        return gym.make(ENV_ID, task=TASKS)

    rewards, dones = _oracle_run(ProgressRewardVector(gym.vector.AsyncVectorEnv([factory] * 2), "env"), 12)
    sync_rewards, sync_dones = _oracle_run(ProgressRewardVector(gym.vector.SyncVectorEnv([factory] * 2), "env"), 12)
    np.testing.assert_allclose(rewards, sync_rewards)
    assert (dones == sync_dones).all()
    for i in range(2):  # each first episode: progress terms telescope to 1, plus the outcome 1
        end = int(np.flatnonzero(dones[:, i])[0])
        assert rewards[: end + 1, i].sum() == pytest.approx(2.0)
        assert rewards[end + 1, i] == 0.0  # the reset step


def test_top_level_import():
    assert wrappers.ProgressReward is ProgressReward
    assert {"ProgressReward", "ProgressRewardVector"} <= set(wrappers.__all__)
    from wrappers.progress import ProgressReward as again

    assert again is ProgressReward
