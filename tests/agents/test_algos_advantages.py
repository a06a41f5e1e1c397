"""agents.algos.advantages against hand-computed values of the papers' formulas, plus properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from agents.algos import (
    discounted_returns,
    dynamic_sampling_mask,
    group_advantages,
    reinforce_pp_advantages,
    rloo_advantages,
    step_group_advantages,
    whiten,
)

rewards_st = st.lists(st.floats(-10, 10, allow_nan=False), min_size=2, max_size=12)


# -- GRPO (MobileRL §2.2) ---------------------------------------------------------------------


def test_group_advantages_hand_computed():
    # mean 0.5, unbiased std sqrt(4·0.25/3) = 0.57735 → ±0.5/0.57735 = ±0.86603
    a = group_advantages([1.0, 0.0, 0.0, 1.0], eps=0.0)
    np.testing.assert_allclose(a, [0.8660254, -0.8660254, -0.8660254, 0.8660254], rtol=1e-7)


def test_group_advantages_adds_eps_to_std():
    a = group_advantages([1.0, 0.0], eps=0.1)  # std = 1/√2
    np.testing.assert_allclose(a, [0.5 / (1 / math.sqrt(2) + 0.1), -0.5 / (1 / math.sqrt(2) + 0.1)])


def test_singleton_and_zero_variance_groups_are_exactly_zero():
    assert group_advantages([0.7]).tolist() == [0.0]
    assert group_advantages([0.1, 0.1, 0.1]).tolist() == [0.0, 0.0, 0.0]  # mean(0.1·3)/3 ≠ 0.1 in floats
    assert group_advantages([0.1, 0.1, 0.1], eps=0.0).tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize(
    "fn",
    [group_advantages, rloo_advantages, lambda r: step_group_advantages([r]), lambda g: dynamic_sampling_mask([g])],
)
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_non_finite_rewards_are_rejected(fn, bad):
    with pytest.raises(ValueError, match="non-finite"):
        fn([1.0, bad])


@pytest.mark.parametrize("fn", [group_advantages, rloo_advantages, lambda r: step_group_advantages([r])])
def test_empty_group_is_rejected(fn):
    with pytest.raises(ValueError, match="empty"):
        fn([])


@given(rewards_st)
def test_group_advantages_properties(rewards):
    a = group_advantages(rewards)
    assert abs(a.sum()) < 1e-6
    r = np.asarray(rewards)
    assume(r.std(ddof=1) > 1e-2)  # eps=1e-6 then changes the std by < 1e-4
    assert a.std(ddof=1) == pytest.approx(1.0, abs=1e-3)
    # Invariant to shifting and positive scaling of the rewards.
    np.testing.assert_allclose(group_advantages(3.0 * r + 5.0), a, atol=1e-4)


# -- ADMIRE step-level GRPO (Eq. 13) ----------------------------------------------------------


def test_step_group_advantages_eq13_hand_computed():
    # 𝐑 = {1, 0, 0, 0, 2}: mean 0.6, unbiased var (0.16 + 3·0.36 + 1.96)/4 = 0.8, std 0.894427
    a = step_group_advantages([[1.0, 0.0], [0.0, 0.0, 2.0]], eps=0.0)
    assert [x.shape for x in a] == [(2,), (3,)]
    np.testing.assert_allclose(a[0], [0.4472136, -0.6708204], rtol=1e-6)
    np.testing.assert_allclose(a[1], [-0.6708204, -0.6708204, 1.5652476], rtol=1e-6)


def test_step_group_advantages_normalise_over_steps_not_trajectories():
    # Per-trajectory sums (1 and 2) would give a different baseline than the five steps do.
    steps = step_group_advantages([[1.0, 0.0], [0.0, 0.0, 2.0]])
    assert np.concatenate(steps) == pytest.approx(group_advantages([1.0, 0.0, 0.0, 0.0, 2.0]))


def test_step_group_advantages_degenerate_cases():
    assert [a.tolist() for a in step_group_advantages([[0.4]])] == [[0.0]]
    assert [a.tolist() for a in step_group_advantages([[0.3, 0.3], [0.3]])] == [[0.0, 0.0], [0.0]]
    with pytest.raises(ValueError, match=r"step_rewards\[1\] is empty"):
        step_group_advantages([[1.0], []])
    with pytest.raises(ValueError, match="at least one trajectory"):
        step_group_advantages([])


@given(st.lists(st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=5), min_size=1, max_size=5))
def test_step_group_advantages_sum_to_zero(groups):
    assert abs(np.concatenate(step_group_advantages(groups)).sum()) < 1e-6


# -- RLOO -------------------------------------------------------------------------------------


def test_rloo_hand_computed():
    assert rloo_advantages([1.0, 0.0]).tolist() == [1.0, -1.0]
    assert rloo_advantages([2.0, 4.0, 6.0]).tolist() == [-3.0, 0.0, 3.0]  # 2 − 5, 4 − 4, 6 − 3
    assert rloo_advantages([5.0]).tolist() == [0.0]


@given(rewards_st)
def test_rloo_is_scaled_centering(rewards):
    r = np.asarray(rewards)
    a = rloo_advantages(r)
    assert abs(a.sum()) < 1e-9 * max(1.0, np.abs(r).sum())
    np.testing.assert_allclose(a, len(r) / (len(r) - 1) * (r - r.mean()), atol=1e-9)


# -- returns, whitening, REINFORCE++ ----------------------------------------------------------


def test_discounted_returns_hand_computed():
    np.testing.assert_allclose(discounted_returns([1.0, 2.0, 3.0], 0.9), [5.23, 4.7, 3.0])  # 1 + .9·4.7, 2 + .9·3
    assert discounted_returns([1.0, 2.0, 3.0], 1.0).tolist() == [6.0, 5.0, 3.0]
    assert discounted_returns([1.0, 2.0, 3.0], 0.0).tolist() == [1.0, 2.0, 3.0]
    assert discounted_returns([], 0.5).tolist() == []
    with pytest.raises(ValueError, match="gamma"):
        discounted_returns([1.0], 1.5)


def test_whiten_degenerate_cases():
    assert [a.tolist() for a in whiten([np.array([4.0])])] == [[0.0]]
    assert [a.tolist() for a in whiten([np.array([2.0, 2.0]), np.array([]), np.array([2.0])])] == [
        [0.0, 0.0],
        [],
        [0.0],
    ]
    with pytest.raises(ValueError, match="only empty"):
        whiten([np.array([])])
    with pytest.raises(ValueError, match="non-finite"):
        whiten([np.array([1.0, np.nan])])


def test_whiten_keeps_shapes():
    out = whiten([np.arange(6.0).reshape(2, 3), np.array([1.0])])
    assert [a.shape for a in out] == [(2, 3), (1,)]


@given(st.lists(st.lists(st.floats(-100, 100, allow_nan=False), max_size=6), min_size=1, max_size=6))
def test_whiten_is_global_zero_mean_unit_std(arrays):
    flat = np.concatenate([np.asarray(a, dtype=float) for a in arrays])
    assume(flat.size >= 2 and flat.std(ddof=1) > 1e-3)
    out = np.concatenate(whiten([np.asarray(a, dtype=float) for a in arrays]))
    assert abs(out.mean()) < 1e-9
    assert out.std(ddof=1) == pytest.approx(1.0, abs=1e-4)


def test_reinforce_pp_with_kl_and_gamma_hand_computed():
    # β = 0.5, γ = 0.9.
    # seq 1: r' = [0 − .05, 0 − .1, 1 − 0] → G = [−.05 + .9·.8, −.1 + .9·1, 1] = [.67, .8, 1]
    # seq 2: r' = [−.1, −.2]               → G = [−.1 + .9·(−.2), −.2]     = [−.28, −.2]
    # all five: mean .398, unbiased std 0.5948
    out = reinforce_pp_advantages(
        [np.array([0.0, 0.0, 1.0]), np.array([0.0, 0.0])],
        kl=[np.array([0.1, 0.2, 0.0]), np.array([0.2, 0.4])],
        kl_coef=0.5,
        gamma=0.9,
    )
    g = np.array([0.67, 0.8, 1.0, -0.28, -0.2])
    expected = (g - 0.398) / np.sqrt(((g - 0.398) ** 2).sum() / 4)
    np.testing.assert_allclose(np.concatenate(out), expected, rtol=1e-6)
    np.testing.assert_allclose(np.concatenate(out), [0.457275, 0.675826, 1.012058, -1.139826, -1.005333], atol=1e-6)


def test_reinforce_pp_validates():
    with pytest.raises(ValueError, match="3 tokens but kl"):
        reinforce_pp_advantages([np.zeros(3)], kl=[np.zeros(2)], kl_coef=0.1)
    with pytest.raises(ValueError, match="needs the per-token kl"):
        reinforce_pp_advantages([np.zeros(3)], kl_coef=0.1)
    with pytest.raises(ValueError, match="1 reward sequences but 2 kl"):
        reinforce_pp_advantages([np.zeros(3)], kl=[np.zeros(3), np.zeros(3)])
    with pytest.raises(ValueError, match="non-finite"):
        reinforce_pp_advantages([np.array([0.0, np.inf])])


# -- DAPO dynamic sampling --------------------------------------------------------------------


def test_dynamic_sampling_mask():
    assert dynamic_sampling_mask([[1.0, 1.0, 1.0], [0.0, 1.0], [0.5], [0.0, 1e-10], [0.0, 1e-3]]) == [
        False,
        True,
        False,
        False,
        True,
    ]
    assert dynamic_sampling_mask([]) == []
    with pytest.raises(ValueError, match=r"groups\[1\] is empty"):
        dynamic_sampling_mask([[1.0], []])
