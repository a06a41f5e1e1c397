"""ADMIRE's reward functions (paper 000, Eq. 9-11, Alg. 1 line 35) against hand-worked examples."""

from __future__ import annotations

import pytest

from wrappers.admire import Matches, asymmetric_credit, curriculum_weight, match_milestones, total_reward

# A table of similarities s(a_t, m_k) for the worked examples; anything else scores 0.1.
SIM = {
    ("open app", "Open the app"): 0.92,
    ("tap save", "Save it"): 0.81,
    ("tap save", "Open the app"): 0.95,  # would hit m1 again: the pointer has moved on
    ("type name", "Enter the name"): 0.78,
    ("type name", "Save it"): 0.74,  # below δ
    ("near miss", "Save it"): 0.75,  # equal to δ: Eq. 9 needs s > δ
}


def score(a: str, m: str) -> float:
    return SIM.get((a, m), 0.1)


MILESTONES = ["Open the app", "Enter the name", "Save it"]
EPISODE = ["open app", "tap save", "type name", "near miss", "tap save"]


def test_pointer_matches_only_the_next_milestone_in_order():
    m = match_milestones(EPISODE, MILESTONES, score, delta=0.75)
    # step 1 hits m1 (0.92); step 2 scores "tap save" against m2 only (0.1): no skip to m3;
    # step 3 hits m2 (0.78); step 4 is exactly δ against m3: no hit; step 5 hits m3 (0.81).
    assert m.rewards == [0.92, 0.0, 0.78, 0.0, 0.81]
    assert m.hits == [0, None, 1, None, 2]
    assert m.count == 3


def test_matching_stops_after_the_last_milestone():
    m = match_milestones(["open app", "open app"], ["Open the app"], score, delta=0.75)
    assert m.hits == [0, None]  # k never exceeds K (Alg. 1 line 26 would re-hit m_K)


def test_no_milestones_no_reward():
    m = match_milestones(["open app"], [], score, 0.75)
    assert m == Matches([0.0], [None])
    assert asymmetric_credit(m, success=False, n_milestones=0) == [0.0]


def test_eq10_successful_episode_rewards_only_hit_steps():
    m = match_milestones(EPISODE, MILESTONES, score, delta=0.75)
    assert asymmetric_credit(m, success=True, n_milestones=3) == [0.92, 0.0, 0.78, 0.0, 0.81]


def test_eq11_failed_episode_scaffolds_with_running_k():
    # A failed episode that stops after m2: k_t = 1, 1, 2, 2 over the four steps, K = 3.
    m = match_milestones(EPISODE[:4], MILESTONES, score, delta=0.75)
    got = asymmetric_credit(m, success=False, n_milestones=3, zeta=0.5)
    want = [1 / 3 + 0.5 * 0.92, 1 / 3, 2 / 3 + 0.5 * 0.78, 2 / 3]
    assert got == pytest.approx(want)


def test_ablation_switches_of_appendix_b3():
    m = match_milestones(EPISODE[:4], MILESTONES, score, delta=0.75)
    # w/ base reward for successful trajectories: k/K added to Eq. 10
    assert asymmetric_credit(m, True, 3, base_on_success=True) == pytest.approx(
        [1 / 3 + 0.92, 1 / 3, 2 / 3 + 0.78, 2 / 3]
    )
    # w/o base reward for failed trajectories: only ζ·r at hit steps
    assert asymmetric_credit(m, False, 3, base_on_failure=False) == pytest.approx([0.46, 0.0, 0.39, 0.0])


def test_curriculum_weight_decays():
    assert curriculum_weight(0) == pytest.approx(0.3)
    assert curriculum_weight(100) == pytest.approx(0.3 * 0.99**100)  # ≈ 0.1098
    assert curriculum_weight(100, gamma=1.0) == pytest.approx(0.3)  # "w/o Reward Decay"


def test_total_reward_alg1_line35_by_hand():
    # Failed episode, epoch 10: λ = 0.3·0.99^10 = 0.2713147...; step 2 is an invalid action.
    credit = [0.7933, 0.3333, 1.0567, 0.6667]
    lam = 0.3 * 0.99**10
    got = total_reward(0.0, [True, False, True, True], credit, epoch=10, eta=0.5)
    assert got == pytest.approx([lam * 0.7933, -0.5 + lam * 0.3333, lam * 1.0567, lam * 0.6667])
    assert got[0] == pytest.approx(0.215234, abs=1e-6)
    # A successful episode adds R_outcome = 1 to every step.
    assert total_reward(1.0, [True], [0.92], epoch=0) == pytest.approx([1.0 + 0.3 * 0.92])
