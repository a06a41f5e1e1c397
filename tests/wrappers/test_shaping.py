"""The shaping protocol: components, final episode vectors, composition, check_env, vector envs.

These tests score milestones with a small word-overlap matcher so that they pin the wrappers'
arithmetic; tests/test_milestone_semantic.py runs them with the real sentence encoder.
"""

from __future__ import annotations

import re
import warnings

import gymnasium as gym
import numpy as np
import pytest
from _util import make
from gymnasium.utils.env_checker import check_env

from wrappers import (
    OUTCOME,
    EpisodeRecorder,
    MilestoneBook,
    MilestoneReward,
    ShortestLengths,
    ShortestPathReward,
    adjust_group,
)
from wrappers.admire import asymmetric_credit, match_milestones, total_reward

WORD = re.compile(r"[a-z0-9+-]+")
STOP = {"the", "a", "an", "to", "in", "of", "for", "as", "and", "with", "into", "on", "app"}


class WordMatcher:
    """Share of the milestone's content words found in the action description."""

    delta = 0.45

    def score(self, action: str, milestone: str) -> float:
        want = set(WORD.findall(milestone.lower())) - STOP
        have = set(WORD.findall(action.lower()))
        return len(want & have) / len(want) if want else 0.0


def run(env: gym.Env, actions=None, seed: int = 0) -> list[tuple[float, dict]]:
    """Play an episode (the oracle's actions after the given ones); (reward, info) per step."""
    env.reset(seed=seed)
    out = []
    actions = list(actions or [])
    while True:
        a = actions.pop(0) if actions else env.unwrapped.oracle_action()
        _, r, term, trunc, info = env.step(a)
        out.append((float(r), info))
        if term or trunc:
            return out


def expected_admire(steps: list[dict], milestones: list[str], success: bool, epoch: int = 0) -> list[float]:
    """Alg. 1 line 35 from the pure functions, on the descriptions the env reported."""
    m = WordMatcher()
    descs = [i["action_description"] for i in steps]
    matches = match_milestones(descs, milestones, m.score, m.delta)
    credit = asymmetric_credit(matches, success, len(milestones))
    return total_reward(float(success), [i["format_valid"] for i in steps], credit, epoch)


# -- the protocol ------------------------------------------------------------------------


def test_step_reward_is_the_sum_of_its_components():
    env = ShortestPathReward(MilestoneReward(make("ContactsAddContact"), matcher=WordMatcher()))
    for r, info in run(env, actions=['do(action="Back")', "garbage"]):
        assert r == pytest.approx(sum(info["reward_components"].values()))
        assert set(info["reward_components"]) == {OUTCOME, "format", "milestone", "spa"}


def test_milestone_reward_final_vector_matches_the_pure_functions():
    env = MilestoneReward(make("ContactsAddContact"), matcher=WordMatcher())
    _, info0 = env.reset(seed=3)
    milestones = info0["task_milestones"]
    steps = run(env, seed=3)
    infos = [i for _, i in steps]
    last = infos[-1]
    assert last["success"]
    assert last["episode_rewards"] == pytest.approx(expected_admire(infos, milestones, True))
    comps = last["episode_reward_components"]
    assert comps[OUTCOME] == [1.0] * len(infos)  # the outcome, broadcast (step-level GRPO)
    assert sum(x > 0 for x in comps["milestone"]) >= 1
    assert "episode_rewards" not in infos[0]


def test_failed_episode_gets_the_scaffolding_reward():
    env = MilestoneReward(make("SystemWifiTurnOn", max_steps=4), matcher=WordMatcher())
    _, info0 = env.reset(seed=0)
    # Open Settings and the network page, then dawdle until the step limit: a failure.
    acts = ['do(action="Launch", app="Settings")', "oracle", 'do(action="Wait")', 'do(action="Wait")']
    env.reset(seed=0)
    infos = []
    for a in acts:
        *_, trunc, info = env.step(env.unwrapped.oracle_action() if a == "oracle" else a)
        infos.append(info)
    assert trunc and not infos[-1]["success"]
    k = [1, 2, 2, 2]  # milestones hit so far, K = 3
    want = expected_admire(infos, info0["task_milestones"], False)
    assert want[2] == pytest.approx(0.3 * k[2] / 3)  # no hit at step 3: λ·k/K only
    assert infos[-1]["episode_rewards"] == pytest.approx(want)


def test_invalid_action_costs_eta():
    env = MilestoneReward(make("SystemWifiTurnOn"), matcher=WordMatcher())
    env.reset(seed=0)
    _, r, _, _, info = env.step("tap the thing please")
    assert info["format_valid"] is False
    assert info["reward_components"]["format"] == -0.5 and r == -0.5


def test_set_epoch_and_ablations_change_lambda():
    env = MilestoneReward(make("SystemWifiTurnOn"), matcher=WordMatcher())
    env.set_epoch(100)
    assert env.weight == pytest.approx(0.3 * 0.99**100)
    env.with_config(decay=False)
    assert env.weight == pytest.approx(0.3)
    env.with_config(base_on_success=True)
    info = run(env)[-1][1]
    comps = info["episode_reward_components"]["milestone"]
    assert all(x > 0 for x in comps[1:])  # k/K now reaches every step after the first hit


class NoAnnotations(gym.Wrapper):
    """A user's env that keeps the contract but publishes no annotated milestones."""

    def reset(self, **kw):
        obs, info = self.env.reset(**kw)
        return obs, {k: v for k, v in info.items() if k not in ("task_milestones", "placeholders")}


def test_env_without_milestones_gives_zero_milestone_reward(caplog):
    env = MilestoneReward(NoAnnotations(make("SystemWifiTurnOn")), matcher=WordMatcher())
    with caplog.at_level("WARNING"):
        steps = run(env)
    assert "no annotated milestones" in caplog.text
    info = steps[-1][1]
    assert info["success"] and info["episode_reward_components"]["milestone"] == [0.0] * len(steps)
    assert info["episode_rewards"] == [1.0] * len(steps)


# -- SPA ---------------------------------------------------------------------------------


def test_spa_worked_examples():
    assert adjust_group([4, 8, 5, 10], [1, 1, 0, 1], alpha=1.0) == pytest.approx([1.0, 0.5, 0.0, 0.4])
    assert adjust_group([4, 8], [1, 1], alpha=0.5) == pytest.approx([1.0, 0.75])
    assert adjust_group([3, 9], [0, 0]) == [0.0, 0.0]  # no success: nothing to shape
    assert adjust_group([2, 6], [0.0, 1.0]) == [0.0, 1.0]  # the short failure sets no T_min
    with pytest.raises(ValueError, match="alpha"):
        adjust_group([1], [1], alpha=0.0)
    with pytest.raises(ValueError, match="lengths"):
        adjust_group([1, 2], [1])


def test_spa_wrapper_uses_the_running_shortest_length():
    lengths = ShortestLengths()
    env = ShortestPathReward(make("SystemWifiTurnOn"), lengths=lengths, key="task")
    long = run(env, actions=['do(action="Home")', 'do(action="Wait")'])  # 6 steps, first success
    assert long[-1][1]["episode_rewards"] == [1.0] * 6
    short = run(env)  # the oracle: 4 steps, new T_min
    assert short[-1][1]["episode_rewards"] == [1.0] * 4 and lengths.get("SystemWifiTurnOn") == 4
    again = run(env, actions=['do(action="Wait")'])  # 5 steps: 1 - (5-4)/5 = 0.8
    r, info = again[-1]
    assert info["episode_rewards"] == pytest.approx([0.8] * 5)
    assert r == pytest.approx(0.8) and info["reward_components"]["spa"] == pytest.approx(-0.2)
    short_limit = ShortestPathReward(make("SystemWifiTurnOn", max_steps=2), lengths, key="task")
    failed = run(short_limit)
    assert failed[-1][1]["episode_rewards"] == [0.0, 0.0]  # failures stay 0
    assert lengths.get("SystemWifiTurnOn") == 4


def test_spa_keys_by_instance_by_default():
    env = ShortestPathReward(make("ContactsAddContact"))
    run(env, seed=1)
    run(env, seed=2)
    assert len(env.lengths) == 2  # two instructions, two instances


# -- composition -------------------------------------------------------------------------


@pytest.mark.parametrize("order", ["spa_outside", "milestone_outside"])
def test_wrappers_compose_in_either_order(order):
    lengths = ShortestLengths()
    base = make("SystemWifiTurnOn")
    if order == "spa_outside":
        env = ShortestPathReward(MilestoneReward(base, matcher=WordMatcher()), lengths=lengths)
    else:
        env = MilestoneReward(ShortestPathReward(base, lengths=lengths), matcher=WordMatcher())
    _, info0 = env.reset(seed=0)
    run(env, actions=['do(action="Wait")'], seed=0)  # T_min = 5 (first success)
    steps = run(env, actions=['do(action="Wait")', 'do(action="Wait")'], seed=0)  # 6 steps
    infos = [i for _, i in steps]
    spa = 1 - (6 - 5) / 6
    admire = expected_admire(infos, info0["task_milestones"], True)
    # ADMIRE's R_outcome (=1) is replaced by the SPA-adjusted outcome on every step.
    want = [x - 1.0 + spa for x in admire]
    assert infos[-1]["episode_rewards"] == pytest.approx(want)
    assert set(infos[-1]["episode_reward_components"]) == {OUTCOME, "format", "milestone", "spa"}
    assert sum(i["milestone_hit"] is not None for i in infos) == 3  # all three milestones met


def test_check_env_passes_on_stacked_wrappers():
    for env in (
        ShortestPathReward(MilestoneReward(make("ContactsAddContact"), matcher=WordMatcher())),
        MilestoneReward(ShortestPathReward(make("ContactsAddContact")), matcher=WordMatcher()),
        EpisodeRecorder(make("ContactsAddContact")),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # check_env prefers unwrapped envs; we check the stack
            check_env(env, skip_render_check=True)


def test_step_after_episode_end_needs_reset():
    env = ShortestPathReward(make("SystemWifiTurnOn"))
    run(env)
    with pytest.raises(gym.error.ResetNeeded):
        env.step('do(action="Back")')


# -- vector envs -------------------------------------------------------------------------


def _vector_episodes(envs: gym.vector.VectorEnv, n_done: int, actions=None) -> list[dict]:
    """Step a vector env with each env's oracle until ``n_done`` episodes ended; final infos."""
    envs.reset(seed=0)
    finished: list[dict] = []
    while len(finished) < n_done:
        _, _, term, trunc, info = envs.step(list(envs.call("oracle_action")))
        for i in np.flatnonzero(term | trunc):  # the next step resets these envs (NEXT_STEP mode)
            finished.append(_env_info(info, i))
    return finished


def _env_info(info: dict, i: int) -> dict:
    """Env ``i``'s own info out of a vector env's batched (and nested) info."""
    out = {}
    for k, v in info.items():
        if k.startswith("_") or not info[f"_{k}"][i]:
            continue
        out[k] = _env_info(v, i) if isinstance(v, dict) else v[i]
    return out


def test_spa_in_a_vector_env_where_one_task_has_a_shortest_length_and_another_not():
    # Sub-env 0 succeeds (T_min known), sub-env 1 fails a task never solved at the same step:
    # the vector env merges both infos into one typed array per key.
    lengths = ShortestLengths()
    fns = [
        lambda: ShortestPathReward(make("SystemWifiTurnOn", max_steps=4), lengths),
        lambda: ShortestPathReward(make("SystemBluetoothTurnOn", max_steps=4), lengths),
    ]
    envs = gym.vector.SyncVectorEnv(fns)
    envs.reset(seed=0)
    oracle = envs.envs[0].unwrapped.oracle_action
    for _ in range(4):
        _, _, term, trunc, info = envs.step([oracle(), 'do(action="Wait")'])
    assert (term | trunc).all() and info["_spa_shortest"].tolist() == [True, False]
    assert info["spa_shortest"][0] == 4 and info["success"].tolist() == [True, False]
    envs.close()


def test_sync_vector_env_shares_one_book_and_set_epoch_reaches_every_env():
    book = MilestoneBook(generator=lambda req: [s.action_description for s in req.trajectory.steps[:2]])
    lengths = ShortestLengths()
    fns = [
        lambda: ShortestPathReward(MilestoneReward(make("SystemWifiTurnOn"), book=book, matcher=WordMatcher()), lengths)
        for _ in range(2)
    ]
    envs = gym.vector.SyncVectorEnv(fns)
    envs.call("set_epoch", 7)
    assert envs.get_attr("epoch") == (7, 7)
    finished = _vector_episodes(envs, 4)
    assert all(len(f["episode_rewards"]) == 4 for f in finished)
    assert book.templates("SystemWifiTurnOn") == ["Launch Settings", 'Open "Network & internet" in Settings']
    assert sum(book.hit_counts("SystemWifiTurnOn")[7].values()) >= 4
    envs.close()


def _async_factory(book_path: str, lengths_path: str):
    def make_env() -> gym.Env:
        import gui_gym  # noqa: F401

        book = MilestoneBook(book_path, generator=_first_steps)
        env = gym.make("GuiAndroid-v0", task=["SystemWifiTurnOn", "SystemBluetoothTurnOn"])
        return ShortestPathReward(MilestoneReward(env, book=book, matcher=WordMatcher()), lengths_path)

    return make_env


def _first_steps(req):
    return [s.action_description for s in req.trajectory.steps[:2]]


def test_async_vector_env_shares_file_backed_state(tmp_path):
    book_path, lengths_path = tmp_path / "book.json", tmp_path / "spa.json"
    envs = gym.vector.AsyncVectorEnv([_async_factory(str(book_path), str(lengths_path)) for _ in range(2)])
    try:
        finished = _vector_episodes(envs, 8)
    finally:
        envs.close()
    assert all(f["success"] for f in finished)
    book = MilestoneBook.load(book_path)
    assert set(book.tasks()) == {"SystemWifiTurnOn", "SystemBluetoothTurnOn"}
    assert book.coverage() == 1.0
    episodes = sum(book.to_dict()["tasks"][t]["episodes"] for t in book.tasks())
    assert episodes == 8  # every worker's counts reached the one file
    assert len(ShortestLengths.load(lengths_path)) >= 2
