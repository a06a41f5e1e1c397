"""agents.algos.losses against hand-computed PPO/GRPO/DAPO values."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from agents.algos import kl_k3, policy_loss


def one_token(ratio: float, adv: float, **kw):
    """Loss, stats and d loss / d logp of a single token with importance ratio ``ratio``."""
    logp = torch.tensor([[math.log(ratio)]], dtype=torch.float64, requires_grad=True)
    loss, stats = policy_loss(
        logp, torch.zeros(1, 1, dtype=torch.float64), torch.tensor([adv]), torch.ones(1, 1, dtype=torch.bool), **kw
    )
    loss.backward()
    return loss.item(), stats, logp.grad.item()


# -- the clipped surrogate --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ratio", "adv", "loss", "clipped"),
    [
        (1.1, 2.0, -2.2, False),  # inside the clip: −ρA
        (1.5, 2.0, -2.4, True),  # A > 0, ρ > 1 + ε: −(1.2)A, no gradient
        (0.5, 2.0, -1.0, False),  # A > 0, ρ < 1 − ε: the unclipped term is the smaller, keeps its gradient
        (0.5, -1.0, 0.8, True),  # A < 0, ρ < 1 − ε: −(0.8)A, no gradient
        (1.5, -1.0, 1.5, False),  # A < 0, ρ > 1 + ε: pessimistic, unclipped −ρA
        (1.3, 0.0, 0.0, False),  # A = 0: nothing, and not counted as clipped
    ],
)
def test_clip_inside_and_outside(ratio, adv, loss, clipped):
    value, stats, grad = one_token(ratio, adv)
    assert value == pytest.approx(loss)
    assert stats["clip_frac"] == (1.0 if clipped else 0.0)
    assert stats["policy_loss"] == pytest.approx(loss)
    # d(−ρA)/d logp = −ρA when the unclipped term is active, 0 when the clip is.
    assert grad == pytest.approx(0.0 if clipped else -ratio * adv)


def test_clip_higher_asymmetry():
    # ρ = 1.25, A = 1: clipped at 1.2 under ε_high = 0.2 but not under DAPO's 0.28.
    loss, stats, grad = one_token(1.25, 1.0, clip_low=0.2, clip_high=0.2)
    assert (loss, stats["clip_frac"], grad) == (pytest.approx(-1.2), 1.0, 0.0)
    loss, stats, grad = one_token(1.25, 1.0, clip_low=0.2, clip_high=0.28)
    assert (loss, stats["clip_frac"], grad) == (pytest.approx(-1.25), 0.0, pytest.approx(-1.25))
    # The lower side still clips at 1 − ε_low = 0.8.
    assert one_token(0.7, -1.0, clip_low=0.2, clip_high=0.28)[0] == pytest.approx(0.8)


# -- aggregations on a ragged 2-trajectory batch ----------------------------------------------


def ragged_batch():
    """Trajectory 7: a 1-token step (A=1) and a 3-token step (A=2); trajectory 3: a 2-token step
    (A=−3) and an empty row. With ρ = 1 the per-token losses are −A: [−1], [−2,−2,−2], [3,3]."""
    mask = torch.tensor(
        [[1, 0, 0], [1, 1, 1], [1, 1, 0], [0, 0, 0]],
        dtype=torch.bool,
    )
    logp = torch.tensor([[-0.5, -math.inf, math.nan], [-1.0, -0.2, -0.3], [-0.1, -0.4, -math.inf], [math.nan] * 3])
    logp.requires_grad_(True)
    adv = torch.tensor([1.0, 2.0, -3.0, math.nan])  # the empty row's advantage is never read
    groups = torch.tensor([7, 7, 3, 3])
    return logp, logp.detach().clone(), adv, mask, groups


@pytest.mark.parametrize(
    ("aggregation", "expected"),
    [
        ("token-mean", (-1 - 6 + 6) / 6),  # Σ over 6 tokens / 6 (DAPO; ADMIRE Eq. 12's 1/ΣT_i)
        ("step-mean", (-1 - 2 + 3) / 3),  # each step's token mean, averaged over the 3 non-empty steps
        ("trajectory-mean", ((-1 - 6) / 4 + 6 / 2) / 2),  # MobileRL Eq. 1: 1/G Σ_i 1/T_i Σ_t
    ],
)
def test_aggregations(aggregation, expected):
    logp, old, adv, mask, groups = ragged_batch()
    loss, stats = policy_loss(logp, old, adv, mask, aggregation=aggregation, groups=groups)
    assert loss.item() == pytest.approx(expected)
    assert stats["policy_loss"] == pytest.approx(expected)
    loss.backward()
    assert torch.isfinite(logp.grad).all()  # NaN/−inf padding does not leak into the gradient
    assert logp.grad[~mask].abs().sum() == 0


def test_per_token_advantages():
    logp, old, _, mask, _ = ragged_batch()
    adv = torch.tensor([[1.0, 0, 0], [0.0, 0.0, 6.0], [-3.0, -3.0, 0], [0, 0, 0]])
    loss, _ = policy_loss(logp, old, adv, mask)
    assert loss.item() == pytest.approx((-1 - 6 + 6) / 6)


def test_trajectory_mean_equals_step_mean_with_one_row_per_trajectory():
    logp = torch.tensor([[-1.0, -2.0], [-0.5, 0.0]])
    old = torch.tensor([[-1.1, -1.9], [-0.4, 0.0]])
    mask = torch.tensor([[True, True], [True, False]])
    adv = torch.tensor([1.0, -0.5])
    a, _ = policy_loss(logp, old, adv, mask, aggregation="step-mean")
    b, _ = policy_loss(logp, old, adv, mask, aggregation="trajectory-mean", groups=torch.tensor([0, 1]))
    assert a.item() == pytest.approx(b.item())


# -- KL, entropy and the stats ----------------------------------------------------------------


def test_kl_k3_known_points():
    logp = torch.tensor([0.0, -1.0, 0.0, math.log(0.5)], dtype=torch.float64)
    ref = torch.tensor([0.0, 0.0, -1.0, 0.0], dtype=torch.float64)
    expected = [0.0, math.e - 2.0, math.exp(-1.0), 2.0 - math.log(2.0) - 1.0]
    assert kl_k3(logp, ref).tolist() == pytest.approx(expected)


@given(st.floats(-20, 20), st.floats(-20, 20))
def test_kl_k3_is_non_negative(a, b):
    assert kl_k3(torch.tensor(a, dtype=torch.float64), torch.tensor(b, dtype=torch.float64)).item() >= 0.0


def test_kl_and_entropy_terms():
    # One token, ρ = 1, A = 1: surrogate −1; ref one nat above: k3 = e − 2; entropy 2.
    logp = torch.tensor([[-1.0]], dtype=torch.float64, requires_grad=True)
    entropy = torch.tensor([[2.0]], dtype=torch.float64, requires_grad=True)
    ref = torch.tensor([[0.0]], dtype=torch.float64)
    loss, stats = policy_loss(
        logp, logp.detach(), torch.tensor([1.0]), torch.ones(1, 1, dtype=torch.bool),
        ref_logp=ref, kl_coef=0.5, entropy=entropy, entropy_coef=0.1,
    )  # fmt: skip
    assert loss.item() == pytest.approx(-1.0 + 0.5 * (math.e - 2.0) - 0.1 * 2.0)
    assert stats["policy_loss"] == pytest.approx(-1.0)
    assert stats["kl"] == pytest.approx(math.e - 2.0)
    assert stats["entropy"] == pytest.approx(2.0)
    loss.backward()
    assert entropy.grad.item() == pytest.approx(-0.1)  # the entropy bonus is differentiated
    # d/dlogp: −A·ρ + β·(1 − e^(ref − logp)) = −1 + 0.5·(1 − e)
    assert logp.grad.item() == pytest.approx(-1.0 + 0.5 * (1.0 - math.e))


def test_kl_stat_without_penalty():
    _, stats = policy_loss(
        torch.zeros(1, 2),
        torch.zeros(1, 2),
        torch.ones(1),
        torch.ones(1, 2, dtype=torch.bool),
        ref_logp=torch.full((1, 2), -1.0),
    )
    assert stats["kl"] == pytest.approx(math.exp(-1.0), rel=1e-6)
    assert stats["loss"] == pytest.approx(-1.0)


def test_approx_kl_is_k3_from_old_to_new():
    _, stats, _ = one_token(2.0, 1.0)  # (ρ − 1) − log ρ
    assert stats["approx_kl"] == pytest.approx(1.0 - math.log(2.0))


def test_gradients_flow_only_through_logp():
    logp, old, _, mask, _ = ragged_batch()
    old.requires_grad_(True)
    adv = torch.tensor([1.0, 2.0, -3.0, 0.0], requires_grad=True)
    ref = (old.detach() - 0.1).requires_grad_(True)
    loss, _ = policy_loss(logp, old, adv, mask, ref_logp=ref, kl_coef=0.1)
    loss.backward()
    assert logp.grad is not None and logp.grad[mask].abs().sum() > 0
    assert old.grad is None and adv.grad is None and ref.grad is None


# -- errors -----------------------------------------------------------------------------------


def test_non_finite_valid_token_raises_floating_point_error():
    logp, old, adv, mask, _ = ragged_batch()
    old[1, 2] = math.nan
    with pytest.raises(
        FloatingPointError, match=r"old_logp has 1 non-finite value\(s\) on valid tokens .* row 1, token 2"
    ):
        policy_loss(logp, old, adv, mask)
    _, old, _, _, _ = ragged_batch()
    with pytest.raises(FloatingPointError, match="advantages"):
        policy_loss(logp, old, torch.tensor([1.0, math.inf, 0.0, 0.0]), mask)


def test_overflowing_ratio_raises_floating_point_error():
    logp = torch.tensor([[0.0]])
    with pytest.raises(FloatingPointError, match="overflowed"):
        policy_loss(logp, torch.tensor([[-200.0]]), torch.tensor([-1.0]), torch.ones(1, 1, dtype=torch.bool))


def test_bad_arguments_raise_value_error():
    logp, old, adv, mask, groups = ragged_batch()
    with pytest.raises(ValueError, match="no valid token"):
        policy_loss(logp, old, adv, torch.zeros_like(mask))
    with pytest.raises(ValueError, match="needs groups"):
        policy_loss(logp, old, adv, mask, aggregation="trajectory-mean")
    with pytest.raises(ValueError, match="groups must be an integer"):
        policy_loss(logp, old, adv, mask, aggregation="trajectory-mean", groups=groups.float())
    with pytest.raises(ValueError, match="aggregation must be one of"):
        policy_loss(logp, old, adv, mask, aggregation="seq-sum")
    with pytest.raises(ValueError, match="needs ref_logp"):
        policy_loss(logp, old, adv, mask, kl_coef=0.1)
    with pytest.raises(ValueError, match="advantages must be"):
        policy_loss(logp, old, adv[:2], mask)
    with pytest.raises(ValueError, match="old_logp has shape"):
        policy_loss(logp, old[:, :2], adv, mask)
    with pytest.raises(ValueError, match="mask must be bool"):
        policy_loss(logp, old, adv, mask.float() * 0.5)
    with pytest.raises(ValueError, match="clip_low"):
        policy_loss(logp, old, adv, mask, clip_low=1.0)
