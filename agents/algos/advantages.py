"""Advantage estimators shared by the trainers: pure numpy, one function per paper formula.

- :func:`group_advantages`: GRPO's trajectory-level advantage (R(τ_i) − μ_R)/σ_R over a group of
  rollouts of one task (MobileRL, paper 003 §2.2, the text before Eq. 1).
- :func:`step_group_advantages`: ADMIRE's step-level GRPO (paper 000 §3.3, Eq. 13): mean and std
  over *every* step reward of *every* trajectory of the group.
- :func:`rloo_advantages`: REINFORCE leave-one-out, A_i = R_i − mean_{j≠i} R_j.
- :func:`reinforce_pp_advantages`: REINFORCE++ (ProgRM, paper 001 §2.4): KL-penalised per-token
  rewards, discounted returns within each sequence, then one whitening across the whole batch.
- :func:`dynamic_sampling_mask`: DAPO's dynamic sampling: keep only groups whose rewards differ.
- :func:`finite`: the input check they share (a 1-D float array, every value finite).

Standard deviations are the unbiased ones (``ddof=1``), as ``torch.std`` and verl compute them.
A group with a single reward, or whose rewards are all equal, carries no relative signal: its
advantages are exactly zero (set explicitly, not left to ``eps``).

>>> group_advantages([1.0, 0.0, 0.0, 1.0]).round(4).tolist()
[0.866, -0.866, -0.866, 0.866]
>>> rloo_advantages([1.0, 0.0]).tolist()
[1.0, -1.0]
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def finite(values: Sequence[float] | np.ndarray, what: str, allow_empty: bool = False) -> np.ndarray:
    """``values`` as a 1-D float64 array; ``ValueError`` naming ``what`` if it is empty or not finite."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{what} is empty: a group needs at least one reward")
    bad = ~np.isfinite(arr)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{what} has {int(bad.sum())} non-finite value(s) (first: {arr[i]} at index {i})")
    return arr


def _check_eps(eps: float) -> None:
    if not (np.isfinite(eps) and eps >= 0):
        raise ValueError(f"eps must be a finite number >= 0, got {eps}")


def _standardise(r: np.ndarray, eps: float) -> np.ndarray:
    """(r − mean)/(std + eps) with ddof=1; zeros for a single value or zero variance."""
    if r.size < 2 or np.ptp(r) == 0.0:  # exact check: equal rewards carry no signal at all
        return np.zeros_like(r)
    return (r - r.mean()) / (r.std(ddof=1) + eps)


def group_advantages(rewards: Sequence[float], eps: float = 1e-6) -> np.ndarray:
    """GRPO trajectory-level advantages of one group: (R_i − mean(R)) / (std(R) + eps).

    MobileRL §2.2 (Eq. 1's Â_{i,t}, broadcast to every step of τ_i). ``std`` is unbiased
    (ddof=1). A singleton or zero-variance group gives zeros.

    >>> group_advantages([1.0, 0.0]).round(4).tolist()  # std([1, 0], ddof=1) = 0.7071
    [0.7071, -0.7071]
    >>> group_advantages([0.0, 0.0, 0.0]).tolist()
    [0.0, 0.0, 0.0]
    """
    _check_eps(eps)
    return _standardise(finite(rewards, "rewards"), eps)


def step_group_advantages(step_rewards: Sequence[Sequence[float]], eps: float = 1e-6) -> list[np.ndarray]:
    """ADMIRE's step-level GRPO advantages (paper 000 §3.3, Eq. 13).

    Â_t^i = (R_total^i(t) − mean(𝐑)) / std(𝐑), where 𝐑 holds every step reward of every
    trajectory of the group (ΣT_i values, not one per trajectory). ``std`` is unbiased (ddof=1)
    over those ΣT_i values, as in :func:`group_advantages`; ``eps`` is added to it. Returns one
    array per trajectory; a group with a single step in total, or all-equal step rewards, gives
    zeros.

    >>> [a.round(3).tolist() for a in step_group_advantages([[1.0, 0.0], [0.0]])]  # mean 1/3, std 0.577
    [[1.155, -0.577], [-0.577]]
    """
    _check_eps(eps)
    if len(step_rewards) == 0:
        raise ValueError("step_rewards is empty: a group needs at least one trajectory")
    trajs = [finite(r, f"step_rewards[{i}]") for i, r in enumerate(step_rewards)]
    flat = _standardise(np.concatenate(trajs), eps)
    return np.split(flat, np.cumsum([len(t) for t in trajs])[:-1])


def rloo_advantages(rewards: Sequence[float]) -> np.ndarray:
    """REINFORCE leave-one-out advantages A_i = R_i − mean_{j≠i} R_j of one group.

    Equal to G/(G−1)·(R_i − mean(R)); a singleton group (no other sample) gives zero.

    >>> rloo_advantages([1.0, 0.0, 0.0, 1.0]).round(4).tolist()  # 1 − 1/3, 0 − 2/3
    [0.6667, -0.6667, -0.6667, 0.6667]
    """
    r = finite(rewards, "rewards")
    g = r.size
    if g == 1:
        return np.zeros_like(r)
    return r - (r.sum() - r) / (g - 1)


def discounted_returns(rewards: Sequence[float], gamma: float) -> np.ndarray:
    """Reverse cumulative discounted sums G_t = Σ_{k≥t} γ^(k−t) r_k of one sequence.

    >>> discounted_returns([0.0, 0.0, 1.0], gamma=0.5).tolist()
    [0.25, 0.5, 1.0]
    """
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must be in [0, 1], got {gamma}")
    r = finite(rewards, "rewards", allow_empty=True)
    out = np.empty_like(r)
    acc = 0.0
    for t in range(r.size - 1, -1, -1):
        acc = r[t] + gamma * acc
        out[t] = acc
    return out


def whiten(arrays: Sequence[np.ndarray], eps: float = 1e-8) -> list[np.ndarray]:
    """Whiten all elements of all ``arrays`` together: (x − mean) / (std + eps), std with ddof=1.

    REINFORCE++'s global advantage normalisation (one mean and std for the whole batch, not per
    sequence). A single element in total, or zero variance, is only centred (all zeros). Empty
    arrays are allowed as long as one element exists overall.

    >>> [a.round(6).tolist() for a in whiten([np.array([1.0, 2.0]), np.array([3.0])])]
    [[-1.0, 0.0], [1.0]]
    """
    _check_eps(eps)
    if len(arrays) == 0:
        raise ValueError("whiten needs at least one array")
    parts = [finite(np.ravel(a), f"arrays[{i}]", allow_empty=True) for i, a in enumerate(arrays)]
    flat = np.concatenate(parts)
    if flat.size == 0:
        raise ValueError("whiten got only empty arrays: there is nothing to normalise")
    flat = _standardise(flat, eps)
    pieces = np.split(flat, np.cumsum([p.size for p in parts])[:-1])
    return [p.reshape(np.shape(a)) for p, a in zip(pieces, arrays, strict=True)]


def reinforce_pp_advantages(
    rewards: Sequence[np.ndarray],
    kl: Sequence[np.ndarray] | None = None,
    kl_coef: float = 0.0,
    gamma: float = 1.0,
) -> list[np.ndarray]:
    """REINFORCE++ advantages of a batch of sequences (ProgRM §2.4 trains with REINFORCE++).

    Per token: r'_t = r_t − β·kl_t; per sequence: G_t = Σ_{k≥t} γ^(k−t) r'_k; then one global
    :func:`whiten` over every token of the batch. ``rewards[i]`` and ``kl[i]`` are the per-token
    (or per-step) rewards and KL estimates of sequence i (same length); a sparse outcome reward
    sits on the last token. A multi-turn trainer that wants different intra-/inter-turn discounts
    (Wen et al., as ProgRM does) folds them into the rewards it passes.

    >>> [a.round(4).tolist() for a in reinforce_pp_advantages([np.array([0.0, 1.0]), np.array([0.0])])]
    [[0.5774, 0.5774], [-1.1547]]
    """
    if len(rewards) == 0:
        raise ValueError("reinforce_pp_advantages needs at least one sequence")
    if not (np.isfinite(kl_coef) and kl_coef >= 0):
        raise ValueError(f"kl_coef must be a finite number >= 0, got {kl_coef}")
    if kl_coef > 0 and kl is None:
        raise ValueError(f"kl_coef={kl_coef} needs the per-token kl arrays")
    if kl is not None and len(kl) != len(rewards):
        raise ValueError(f"{len(rewards)} reward sequences but {len(kl)} kl sequences")
    returns = []
    for i, r in enumerate(rewards):
        r = finite(r, f"rewards[{i}]", allow_empty=True)
        if kl is not None:
            k = finite(kl[i], f"kl[{i}]", allow_empty=True)
            if k.shape != r.shape:
                raise ValueError(f"rewards[{i}] has {r.size} tokens but kl[{i}] has {k.size}")
            r = r - kl_coef * k
        returns.append(discounted_returns(r, gamma))
    return whiten(returns)


def dynamic_sampling_mask(groups: Sequence[Sequence[float]], tol: float = 1e-8) -> list[bool]:
    """DAPO's dynamic sampling: True for the groups whose rewards are not all equal (within ``tol``).

    A group where every rollout got the same reward has zero advantage everywhere and only dilutes
    the batch; DAPO drops it and samples more. A singleton group is all-equal (False).

    >>> dynamic_sampling_mask([[1.0, 1.0], [1.0, 0.0], [0.0]])
    [False, True, False]
    """
    if not (np.isfinite(tol) and tol >= 0):
        raise ValueError(f"tol must be a finite number >= 0, got {tol}")
    return [bool(np.ptp(finite(g, f"groups[{i}]")) > tol) for i, g in enumerate(groups)]
