"""The clipped policy-gradient loss every trainer shares, with its KL and entropy terms (torch).

Inputs are laid out as a batch of *decisions*: row n is one step of some trajectory, its columns
the tokens of that step's action (one column when a step is a single choice); ``mask`` marks the
real tokens. Per valid token the loss is

    ℓ = −min(ρ·A, clip(ρ, 1 − ε_low, 1 + ε_high)·A) + β·k3(π_θ ‖ π_ref) − c_H·H,   ρ = exp(logp − old_logp)

(PPO's clipped surrogate; ε_low = ε_high = 0.2 is GRPO/MobileRL Table 4, ε_high = 0.28 is DAPO's
clip-higher; β = 0.001 is MobileRL's KL coefficient). Three ways to average it:

- ``"token-mean"``: Σ over all valid tokens / number of valid tokens. DAPO's token-level loss, and
  ADMIRE Eq. 12's 1/ΣT_i normalisation when every step is one token (paper 000 §3.3).
- ``"step-mean"``: the mean over rows of each row's token mean (every decision weighs the same).
- ``"trajectory-mean"``: MobileRL Eq. 1 (paper 003 §2.2), 1/G Σ_i 1/T_i Σ_t: the mean over
  trajectories of the mean over all their tokens; ``groups[n]`` names row n's trajectory. When
  one batch is cut into M shuffled mini-batches, a trajectory may be split between them; the
  mini-batch then passes ``token_weights``: w_n = M/(G·T_i) for row n of trajectory i (G
  trajectories, T_i valid tokens each, in the whole batch), and its loss is Σ_n w_n·Σ_tok ℓ.
  The mean of the M mini-batch losses is then Eq. 1 exactly and every trajectory weighs 1/G,
  however the shuffle split it (a mini-batch-local mean would count a split trajectory once
  per mini-batch it lands in: a 15-step trajectory twice, a 2-step one once).

Only ``logp`` (and ``entropy``) carry gradients; ``old_logp``, ``ref_logp`` and ``advantages``
are detached here. Padding may hold anything (``-inf`` log-probs included): it never reaches the
arithmetic. A non-finite value on a *valid* token, or a loss that overflows, raises
``FloatingPointError`` so that the trainer can skip the update instead of training on NaN.

>>> logp = torch.tensor([[-1.0, -2.0]], requires_grad=True)
>>> loss, stats = policy_loss(logp, logp.detach(), torch.tensor([1.0]), torch.tensor([[True, True]]))
>>> round(loss.item(), 4), stats["clip_frac"]  # ρ = 1 everywhere: −A
(-1.0, 0.0)
"""

from __future__ import annotations

import math
from typing import Literal

import torch
from torch import Tensor

Aggregation = Literal["token-mean", "step-mean", "trajectory-mean"]
AGGREGATIONS: tuple[str, ...] = ("token-mean", "step-mean", "trajectory-mean")


def kl_k3(logp: Tensor, ref_logp: Tensor) -> Tensor:
    """Schulman's k3 estimator of KL(π ‖ π_ref) per sample: exp(ref − logp) − (ref − logp) − 1.

    Unbiased for samples drawn from π, and never negative (e^x ≥ 1 + x), unlike log-ratio k1.
    No clamping above: a huge log-ratio gives a huge (or infinite) value, which :func:`policy_loss`
    reports rather than hides.

    >>> kl_k3(torch.tensor([0.0, -1.0]), torch.zeros(2)).double().round(decimals=4).tolist()  # e − 2
    [0.0, 0.7183]
    """
    d = ref_logp - logp
    # expm1 keeps the small-d values exact where exp(d) - 1 cancels; the clamp only removes rounding below 0.
    return (torch.expm1(d) - d).clamp_min(0.0)


def policy_loss(
    logp: Tensor,
    old_logp: Tensor,
    advantages: Tensor,
    mask: Tensor,
    clip_low: float = 0.2,
    clip_high: float = 0.2,
    aggregation: Aggregation = "token-mean",
    groups: Tensor | None = None,
    ref_logp: Tensor | None = None,
    kl_coef: float = 0.0,
    entropy: Tensor | None = None,
    entropy_coef: float = 0.0,
    token_weights: Tensor | None = None,
) -> tuple[Tensor, dict[str, float]]:
    """The clipped surrogate loss of a batch of decisions, aggregated as asked (see the module doc).

    Args:
        logp: [N, L] log π_θ of each action token under the policy being trained.
        old_logp: [N, L] log-probs under the policy that sampled the tokens (π_θ_old).
        advantages: [N] (one per decision, broadcast over its tokens) or [N, L].
        mask: [N, L] bool, True on real tokens. Rows with no real token are ignored.
        clip_low, clip_high: ε_low and ε_high of clip(ρ, 1 − ε_low, 1 + ε_high).
        aggregation: ``"token-mean"``, ``"step-mean"`` or ``"trajectory-mean"``.
        groups: [N] integer trajectory index per row; required by ``"trajectory-mean"``.
        ref_logp: [N, L] log-probs under the reference policy, for the k3 KL term and stat.
        kl_coef: β of the KL term (needs ``ref_logp`` when > 0).
        entropy: [N, L] per-token policy entropy, for the bonus and stat.
        entropy_coef: weight of the entropy bonus (needs ``entropy`` when > 0).
        token_weights: [N] for ``"trajectory-mean"`` over a mini-batch of a larger batch: the
            weight of each valid token of row n, M/(G·T_i) (see the module docstring).

    Returns:
        The scalar loss and float stats: ``loss`` (the total), ``policy_loss`` (the clipped
        surrogate, aggregated the same way), ``clip_frac`` (share of valid tokens where the clip
        decided the value, zeroing the gradient), ``approx_kl`` (k3 estimate of KL(π_old ‖ π_θ),
        i.e. the mean of (ρ − 1) − log ρ), plus ``kl`` and ``entropy`` when given. The
        diagnostics are plain means over valid tokens.
    """
    if aggregation not in AGGREGATIONS:
        raise ValueError(f"aggregation must be one of {AGGREGATIONS}, got {aggregation!r}")
    if not 0.0 <= clip_low < 1.0 or not clip_high >= 0.0:
        raise ValueError(f"need 0 <= clip_low < 1 and clip_high >= 0, got clip_low={clip_low}, clip_high={clip_high}")
    for name, coef in (("kl_coef", kl_coef), ("entropy_coef", entropy_coef)):
        if not (math.isfinite(coef) and coef >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {coef}")
    if kl_coef > 0 and ref_logp is None:
        raise ValueError(f"kl_coef={kl_coef} needs ref_logp (the reference policy's log-probs)")
    if entropy_coef > 0 and entropy is None:
        raise ValueError(f"entropy_coef={entropy_coef} needs the per-token entropy")

    if logp.dim() != 2:
        raise ValueError(f"logp must be [N, L] (decisions × tokens), got shape {tuple(logp.shape)}")
    shape = logp.shape
    mask = _as_mask(mask, shape)
    if not mask.any():
        raise ValueError("policy_loss got no valid token: every row of mask is empty")
    if advantages.dim() == 1 and advantages.shape[0] == shape[0]:
        advantages = advantages[:, None].expand(shape)
    elif advantages.shape != shape:
        raise ValueError(f"advantages must be [N]={shape[0]} or [N, L]={tuple(shape)}, got {tuple(advantages.shape)}")
    dtype = torch.promote_types(logp.dtype, torch.float32)  # no bf16 ratios
    inputs = {"logp": logp, "old_logp": old_logp.detach(), "advantages": advantages.detach()}
    if ref_logp is not None:
        inputs["ref_logp"] = ref_logp.detach()
    if entropy is not None:
        inputs["entropy"] = entropy
    clean: dict[str, Tensor] = {}
    for name, x in inputs.items():
        if x.shape != shape:
            raise ValueError(f"{name} has shape {tuple(x.shape)} but logp has {tuple(shape)}")
        _check_finite(name, x, mask)
        # Padding (often -inf) is replaced before any arithmetic: NaN there would poison gradients.
        clean[name] = torch.where(mask, x.to(dtype), torch.zeros((), dtype=dtype, device=x.device))
    if aggregation == "trajectory-mean" and groups is None:
        raise ValueError('aggregation="trajectory-mean" needs groups: the trajectory index of each row')
    bad_groups = groups is not None and (
        groups.shape != shape[:1] or groups.dtype.is_floating_point or groups.dtype == torch.bool
    )
    if bad_groups:
        raise ValueError(
            f"groups must be an integer tensor of shape [N]={shape[0]}, got {groups.dtype} {tuple(groups.shape)}"
        )
    weights = None
    if token_weights is not None and aggregation == "trajectory-mean":
        weights = token_weights.to(dtype)
        if weights.shape != shape[:1] or not bool(torch.isfinite(weights).all() and (weights >= 0).all()):
            raise ValueError(f"token_weights must be [N]={shape[0]} finite weights >= 0")

    lp, adv = clean["logp"], clean["advantages"]
    ratio = torch.exp(lp - clean["old_logp"])
    unclipped = -adv * ratio
    clipped = -adv * torch.clamp(ratio, 1.0 - clip_low, 1.0 + clip_high)
    pg = torch.maximum(unclipped, clipped)
    total = pg
    kl = kl_k3(lp, clean["ref_logp"]) if ref_logp is not None else None
    if kl is not None and kl_coef > 0:
        total = total + kl_coef * kl
    if entropy is not None and entropy_coef > 0:
        total = total - entropy_coef * clean["entropy"]

    loss = _aggregate(total, mask, aggregation, groups, weights)
    if not torch.isfinite(loss):
        raise FloatingPointError(
            f"policy_loss overflowed to {loss.item()}: the ratio exp(logp − old_logp) or the k3 term "
            "exp(ref_logp − logp) is too large; the policy moved too far from the one that sampled (or the reference)"
        )
    with torch.no_grad():
        n = mask.sum()
        stats = {
            "loss": loss.item(),
            "policy_loss": _aggregate(pg, mask, aggregation, groups, weights).item(),
            "clip_frac": ((clipped > unclipped) & mask).sum().item() / n.item(),
            "approx_kl": (kl_k3(clean["old_logp"], lp) * mask).sum().item() / n.item(),
        }
        if kl is not None:
            stats["kl"] = (kl * mask).sum().item() / n.item()
        if entropy is not None:
            stats["entropy"] = (clean["entropy"] * mask).sum().item() / n.item()
    return loss, stats


def _as_mask(mask: Tensor, shape: torch.Size) -> Tensor:
    if mask.shape != shape:
        raise ValueError(f"mask has shape {tuple(mask.shape)} but logp has {tuple(shape)}")
    if mask.dtype == torch.bool:
        return mask
    if ((mask != 0) & (mask != 1)).any():
        raise ValueError("mask must be bool (or hold only 0 and 1)")
    return mask != 0


def _check_finite(name: str, x: Tensor, mask: Tensor) -> None:
    bad = ~torch.isfinite(x.detach()) & mask
    if bad.any():
        r, c = bad.nonzero()[0].tolist()
        raise FloatingPointError(
            f"{name} has {int(bad.sum())} non-finite value(s) on valid tokens "
            f"(first {x[r, c].item()} at row {r}, token {c}); skip this update"
        )


def _aggregate(
    x: Tensor, mask: Tensor, aggregation: str, groups: Tensor | None, weights: Tensor | None = None
) -> Tensor:
    """Average ``x`` (zero on padding) over the valid tokens as ``aggregation`` says."""
    m = mask.to(x.dtype)
    if aggregation == "token-mean":
        return (x * m).sum() / m.sum()
    row_sum, row_n = (x * m).sum(dim=1), m.sum(dim=1)
    if weights is not None:  # trajectory-mean over a mini-batch: each token weighs M/(G·T_i)
        return (row_sum * weights).sum()
    if aggregation == "trajectory-mean":
        assert groups is not None
        _, index = torch.unique(groups, return_inverse=True)  # any labels → 0..K-1
        k = int(index.max()) + 1
        row_sum = x.new_zeros(k).index_add(0, index.to(x.device), row_sum)
        row_n = x.new_zeros(k).index_add(0, index.to(x.device), row_n)
    keep = row_n > 0  # rows (or trajectories) with no valid token do not count
    return (row_sum[keep] / row_n[keep]).mean()
