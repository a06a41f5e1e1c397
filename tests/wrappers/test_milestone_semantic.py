"""MilestoneReward with the real sentence encoder on the simulated phone: static and adaptive."""

from __future__ import annotations

import logging

import pytest
from _util import TASK_IDS, make

from wrappers import MilestoneBook, MilestoneReward
from wrappers.matching import SemanticMatcher

TRAIN_SEEDS = (0, 1, 2)
HELD_OUT = 7


@pytest.fixture(scope="module")
def matcher() -> SemanticMatcher:
    return SemanticMatcher()


def oracle_episode(env, seed: int) -> list[dict]:
    _, info = env.reset(seed=seed)
    infos = [info]
    while True:
        *_, term, trunc, info = env.step(env.unwrapped.oracle_action())
        infos.append(info)
        if term or trunc:
            return infos


def hit_fraction(infos: list[dict], env: MilestoneReward) -> float:
    k = len(env.milestones)
    return sum(i.get("milestone_hit") is not None for i in infos[1:]) / k if k else 1.0


def test_oracle_hits_the_annotated_milestones(matcher):
    fractions = {}
    for task in TASK_IDS:
        env = MilestoneReward(make(task), matcher=matcher)
        infos = oracle_episode(env, HELD_OUT)
        fractions[task] = hit_fraction(infos, env)
        assert infos[-1]["success"]
    full = [t for t, f in fractions.items() if f == 1.0]
    assert len(full) >= 60, {t: f for t, f in fractions.items() if f < 1.0}


#: tasks whose book a fourth oracle success still refines (see the test)
STILL_REFINING = {"SimpleDrawProCreateDrawing"}


def test_adaptive_book_converges_on_the_oracles_milestones(matcher, caplog):
    """Oracle successes build the book; it stops changing, covers every task, and a held-out
    instance's oracle meets every adaptive milestone — at least as well as the annotations."""
    book = MilestoneBook()
    adaptive, static, unsettled = {}, {}, {}
    with caplog.at_level(logging.WARNING):
        for task in TASK_IDS:
            env = MilestoneReward(make(task), book=book, matcher=matcher)
            for seed in TRAIN_SEEDS:
                last = oracle_episode(env, seed)[-1]
                assert last["success"] and "episode_rewards" in last
            settled = book.version(task)
            oracle_episode(env, TRAIN_SEEDS[-1] + 1)  # one more success changes nothing
            if book.version(task) != settled:
                unsettled[task] = book.versions(task)
            adaptive[task] = hit_fraction(oracle_episode(env, HELD_OUT), env)
            ref = MilestoneReward(make(task), matcher=matcher)
            static[task] = hit_fraction(oracle_episode(ref, HELD_OUT), ref)
    # the oracle's paths differ in shape between seeds (a file picker that needs a scroll or not),
    # so a further success still refines the book
    assert set(unsettled) <= STILL_REFINING, unsettled
    assert book.coverage(TASK_IDS) == 1.0
    assert sum(f == 1.0 for f in adaptive.values()) >= sum(f == 1.0 for f in static.values())
    assert sum(adaptive.values()) >= sum(static.values())
    assert sum(f == 1.0 for f in adaptive.values()) >= 64, {t: f for t, f in adaptive.items() if f < 1}
    counts = book.hit_counts("ContactsAddContact")
    assert set(counts) == {0} and all(n >= 1 for n in counts[0].values())


def test_hard_negatives_do_not_hit(matcher):
    env = MilestoneReward(make("SystemWifiTurnOn"), matcher=matcher)
    env.reset(seed=0)
    env.step('do(action="Launch", app="Settings")')
    env.step(env.unwrapped.oracle_action())  # "Network & internet"
    assert env.milestones[2] == "Turn on Wi-Fi"
    assert matcher.score('Turn off "Wi-Fi" in Settings', "Turn on Wi-Fi") == 0.0
    assert matcher.is_hit('Turn on "Wi-Fi" in Settings', "Turn on Wi-Fi")
    plain = SemanticMatcher(mode="cosine")
    assert plain.is_hit("Turn off Wi-Fi", "Turn on Wi-Fi")  # the paper's pure cosine cannot tell
