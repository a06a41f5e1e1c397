"""MobileRL's AdaGRPO components (paper 003 §2.2.2-2.2.3, App. B) on worked examples."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from agents.algos import FailureCurriculum, ReplayBuffer, mix_batches, prune_negatives
from wrappers.state import StateFileError

# -- AdaPR replay buffer ----------------------------------------------------------------------


def test_buffer_defaults_follow_table_4():
    buf = ReplayBuffer()
    assert (buf.capacity, buf.kappa, buf.max_age) == (256, 0.25, 4)  # N = 1/κ rounds
    assert ReplayBuffer(kappa=0.1).max_age == 10


def test_entry_is_top_kappa_and_positive_only():
    buf: ReplayBuffer[str] = ReplayBuffer()
    # N = 8, κ = 0.25: the top ⌈2⌉ by advantage are i1 (2.0) and i6 (1.5).
    adv = [0.5, 2.0, -1.0, 1.0, 0.1, -0.3, 1.5, 0.0]
    assert buf.add([f"i{k}" for k in range(8)], adv, iteration=0) == 2
    assert buf.sample(8) == ["i1", "i6"]
    # N = 5: ⌈1.25⌉ = 2 eligible, but only one has A > 0.
    assert buf.add(list("abcde"), [0.0, -1.0, 3.0, -0.5, -0.2], iteration=1) == 1
    assert buf.sample(8) == ["c"]
    # ⌈0.1·30⌉ is 3, not 4 (0.1·30 = 3.0000000000000004 in floats).
    assert ReplayBuffer(kappa=0.1).add(list(range(30)), [1.0] * 30, iteration=0) == 3


def test_age_eviction_worked_example():
    buf: ReplayBuffer[str] = ReplayBuffer(kappa=0.25)  # max_age = 4
    buf.add(["x", "no", "no", "no"], [1.0, 0.0, 0.0, 0.0], iteration=3)
    for t in range(3, 8):  # 0 … 4 rounds old: not older than N = 4
        assert buf.evict(t) == 0 and len(buf) == 1
    assert buf.evict(8) == 1 and len(buf) == 0  # 5 rounds old


def test_age_eviction_runs_on_add():
    buf: ReplayBuffer[str] = ReplayBuffer(kappa=1.0, max_age=1)
    buf.add(["old"], [1.0], iteration=0)
    assert buf.add(["new"], [0.5], iteration=2) == 1
    assert buf.sample(4) == ["new"]


def test_capacity_eviction_lowest_advantage_first_older_on_ties():
    buf: ReplayBuffer[str] = ReplayBuffer(capacity=4, kappa=1.0)
    buf.add(["a", "b", "c"], [1.0, 3.0, 2.0], iteration=0)
    # 5 items for 4 places: the lowest advantage goes; a (round 0) and d (round 1) tie, the older goes.
    assert buf.add(["d", "e"], [1.0, 5.0], iteration=1) == 2
    assert buf.sample(8) == ["e", "b", "c", "d"]


def test_add_counts_only_items_that_survive_eviction():
    buf: ReplayBuffer[str] = ReplayBuffer(capacity=1, kappa=1.0)
    assert buf.add(["best"], [5.0], iteration=0) == 1
    assert buf.add(["worse"], [1.0], iteration=1) == 0
    assert buf.sample(1) == ["best"]


def test_sample_takes_highest_at_most_gamma_m_and_removes():
    buf: ReplayBuffer[int] = ReplayBuffer(kappa=1.0)
    buf.add([1, 2, 3, 4, 5], [0.1, 0.5, 0.3, 0.5, 0.2], iteration=0)
    assert buf.sample(4, gamma=0.5) == [4, 2]  # ⌊0.5·4⌋ = 2; tie at 0.5: the newer first
    assert len(buf) == 3
    assert buf.sample(3, gamma=1 / 3) == [3]  # ⌊(1/3)·3⌋ = 1 despite rounding
    assert buf.sample(0) == []
    assert buf.sample(10) == [5, 1]
    assert len(buf) == 0 and buf.sample(10) == []


def test_buffer_validation():
    buf: ReplayBuffer[str] = ReplayBuffer()
    with pytest.raises(ValueError, match="2 items but 1 advantages"):
        buf.add(["a", "b"], [1.0], iteration=0)
    with pytest.raises(ValueError, match="non-finite"):
        buf.add(["a"], [math.nan], iteration=0)
    buf.add(["a"] * 4, [1.0] * 4, iteration=5)
    with pytest.raises(ValueError, match="before round 5"):
        buf.add(["b"], [1.0], iteration=4)
    with pytest.raises(ValueError, match="gamma"):
        buf.sample(4, gamma=1.5)
    with pytest.raises(ValueError, match="kappa"):
        ReplayBuffer(kappa=0.0)
    with pytest.raises(ValueError, match="capacity"):
        ReplayBuffer(capacity=0)


def test_buffer_state_dict_pickles_exactly():
    buf: ReplayBuffer[dict] = ReplayBuffer(capacity=5, kappa=0.5, max_age=2)
    buf.add([{"id": k, "tokens": [k, k]} for k in range(6)], [3.0, -1.0, 2.0, 2.0, 0.5, 4.0], iteration=1)
    restored: ReplayBuffer[dict] = ReplayBuffer()
    restored.load_state_dict(pickle.loads(pickle.dumps(buf.state_dict())))
    assert (restored.capacity, restored.kappa, restored.max_age, len(restored)) == (5, 0.5, 2, 3)
    assert restored.state_dict() == buf.state_dict()
    assert restored.sample(2) == buf.sample(2) == [{"id": 5, "tokens": [5, 5]}, {"id": 0, "tokens": [0, 0]}]
    with pytest.raises(ValueError, match="not a ReplayBuffer state_dict"):
        restored.load_state_dict({"capacity": 3})


def test_mix_batches_caps_replay_per_minibatch():
    buf: ReplayBuffer[str] = ReplayBuffer(kappa=1.0)
    buf.add(["r1", "r2", "r3", "r4", "r5"], [5.0, 4.0, 3.0, 2.0, 1.0], iteration=0)
    # γ = 0.5, M = 4: at most ⌊0.5·4⌋ = 2 replayed per full mini-batch, ⌊0.5·1⌋ = 0 with 1 on-policy.
    batches = mix_batches(list("abcdefghi"), buf, gamma=0.5, minibatch=4)
    assert batches == [["a", "b", "c", "d", "r1", "r2"], ["e", "f", "g", "h", "r3", "r4"], ["i"]]
    assert len(buf) == 1
    assert mix_batches([], buf, gamma=1.0, minibatch=4) == [] and len(buf) == 1
    assert mix_batches(["a"], buf, gamma=0.0, minibatch=4) == [["a"]]
    with pytest.raises(ValueError, match="minibatch"):
        mix_batches(["a"], buf, gamma=1.0, minibatch=0)


# -- FCF --------------------------------------------------------------------------------------


def test_fcf_worked_example_cooldown_then_removal():
    fcf = FailureCurriculum(fail_epochs=2, cooldown=3)
    steps = []
    for _ in range(5):
        removed_now = fcf.update({"t": [0.0, 0.0, 0.0]})
        steps.append((fcf.weights(["t"])[0], "t" in fcf.in_cooldown, removed_now))
    assert steps[0] == (1.0, False, [])  # f = 1
    for (w, cooling, removed_now), f in zip(steps[1:4], (2, 3, 4), strict=True):  # the 3 cooldown epochs
        assert (w, cooling, removed_now) == (pytest.approx(math.exp(-f)), True, [])
    assert steps[4] == (0.0, False, ["t"])  # f = 5: removed for good
    assert fcf.removed == {"t"}
    fcf.update({"t": [1.0]})  # a later success does not bring it back
    assert fcf.weights(["t"]).tolist() == [0.0] and fcf.failures["t"] == 5


def test_fcf_task_recovers_in_cooldown():
    fcf = FailureCurriculum()
    for _ in range(3):
        fcf.update({"t": [0.0]})
    assert fcf.weights(["t"])[0] == pytest.approx(math.exp(-3)) and fcf.in_cooldown == {"t"}
    fcf.update({"t": [0.0, 1.0]})  # one success resets f
    assert fcf.weights(["t"]).tolist() == [1.0] and fcf.in_cooldown == frozenset()
    fcf.update({"t": [0.0]})
    fcf.update({"t": [0.0]})
    assert fcf.weights(["t"])[0] == pytest.approx(math.exp(-2))  # a new cooldown starts from f = 2


def test_fcf_unsampled_tasks_keep_state_and_tol():
    fcf = FailureCurriculum(tol=1e-6)
    fcf.update({"a": [0.0], "b": [1e-9]})  # |1e-9| < tol counts as zero
    fcf.update({"a": [0.0]})  # b not sampled
    assert fcf.failures == {"a": 2, "b": 1}
    fcf.update({"b": [-0.5]})  # a non-zero reward is not a failure
    assert fcf.failures == {"a": 2, "b": 0}
    with pytest.raises(ValueError, match="rewards of task 'a'"):
        fcf.update({"a": []})


def test_fcf_sample_follows_weights_and_reports_exhaustion():
    fcf = FailureCurriculum(fail_epochs=1, cooldown=0)
    fcf.update({"dead": [0.0]})
    assert fcf.removed == {"dead"}
    rng = np.random.default_rng(0)
    drawn = fcf.sample(["ok", "dead", "also"], 200, rng)
    assert len(drawn) == 200 and "dead" not in drawn and {"ok", "also"} <= set(drawn)

    fcf = FailureCurriculum(fail_epochs=1, cooldown=5)
    fcf.update({"cool": [0.0]})  # weight e^-1 against 1
    share = fcf.sample(["cool", "fine"], 20000, np.random.default_rng(1)).count("cool") / 20000
    assert share == pytest.approx(math.exp(-1) / (1 + math.exp(-1)), abs=0.015)

    fcf = FailureCurriculum(fail_epochs=1, cooldown=0)
    fcf.update({"a": [0.0], "b": [0.0]})
    with pytest.raises(RuntimeError, match=r"removed every one of the 2 tasks.*fresh FailureCurriculum"):
        fcf.sample(["a", "b"], 1, rng)


def test_fcf_save_load_round_trip(tmp_path):
    fcf = FailureCurriculum(fail_epochs=3, cooldown=1)
    for _ in range(4):
        fcf.update({"gone": [0.0], "cold": [1.0]})
    fcf.update({"cold": [0.0]})
    path = fcf.save(tmp_path / "fcf.json")
    loaded = FailureCurriculum.load(path)
    assert loaded.state_dict() == fcf.state_dict()
    assert (loaded.fail_epochs, loaded.cooldown, loaded.removed, loaded.failures) == (
        3,
        1,
        {"gone"},
        {"gone": 4, "cold": 1},
    )
    fcf.save(path)
    assert (tmp_path / "fcf.json.bak").exists()

    restored = FailureCurriculum()
    restored.load_state_dict(json.loads(json.dumps(fcf.state_dict())))
    assert restored.weights(["gone", "cold", "new"]).tolist() == [0.0, 1.0, 1.0]


def test_fcf_load_errors(tmp_path):
    with pytest.raises(StateFileError, match="no such failure_curriculum file"):
        FailureCurriculum.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(StateFileError, match="cannot read"):
        FailureCurriculum.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text(json.dumps({"kind": "milestone_book", "data": {}}))
    with pytest.raises(StateFileError, match="not a failure_curriculum file"):
        FailureCurriculum.load(tmp_path / "other.json")


# -- negative pruning (App. B.3.1) ------------------------------------------------------------


def test_prune_negatives_keeps_positives_zeros_and_highest_negatives():
    adv = [1.0, -0.5, -2.0, -1.0, 0.0, -0.1, 0.5]
    # 2 positives → at most 4 negatives: all four kept.
    assert prune_negatives(adv, ratio=2.0) == [0, 1, 2, 3, 4, 5, 6]
    # 1 positive → 2 negatives: −0.1 and −0.5 stay, −1.0 and −2.0 (the lowest) go.
    assert prune_negatives([1.0, -0.5, -2.0, -1.0, 0.0, -0.1], ratio=2.0) == [0, 1, 4, 5]
    assert prune_negatives([1.0, 2.0, 3.0, -1.0, -2.0], ratio=0.5) == [0, 1, 2, 3]  # ⌊1.5⌋ = 1
    assert prune_negatives([-1.0, 0.0, -2.0], ratio=2.0) == [1]  # no positive: no negative kept
    assert prune_negatives([]) == []


def test_prune_negatives_breaks_ties_at_random():
    adv = [1.0, -1.0, -1.0, -1.0, -1.0]
    picks = {tuple(prune_negatives(adv, rng=np.random.default_rng(seed))) for seed in range(40)}
    assert all(len(p) == 3 and p[0] == 0 for p in picks)
    assert {i for p in picks for i in p[1:]} == {1, 2, 3, 4}  # every tied negative can survive
    assert prune_negatives(adv, rng=np.random.default_rng(7)) == prune_negatives(adv, rng=np.random.default_rng(7))


@given(st.lists(st.sampled_from([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0]), max_size=20), st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_prune_negatives_properties(adv, ratio):
    keep = prune_negatives(adv, ratio=ratio, rng=np.random.default_rng(0))
    a = np.asarray(adv)
    kept = np.zeros(len(adv), dtype=bool)
    kept[keep] = True
    assert keep == sorted(set(keep))
    assert kept[a >= 0].all()  # positives and zeros always stay
    n_pos, n_neg = int((a > 0).sum()), int((a < 0).sum())
    assert int((kept & (a < 0)).sum()) == min(n_neg, math.floor(ratio * n_pos))
    if (kept & (a < 0)).any() and (~kept).any():
        assert a[kept & (a < 0)].min() >= a[~kept].max()  # the lowest were the ones dropped
