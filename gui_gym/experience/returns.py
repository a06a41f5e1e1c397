"""EMPO's discounted future return (Eq. 5), cut at patched steps.

``R_t = Σ_{k=t}^{t_end} γ^{k−t} r_k`` with γ = 0.5 (Table 13), where ``t_end`` is the last step of
the natural (unpatched) segment that holds *t* (§3.4). A step whose action did not match the
expert's (and was patched, or ended the episode) closes the segment before it and keeps its own
reward alone; the steps after a patch start a new segment. This is how the authors' code walks
a trajectory backwards (``uis1/core_uis1.py``, ``compute_step_discounted_returns``).

Worked example (by hand, γ = 0.5): rewards 1, 1, 0.5, 1, 1 with the third step patched:
R_5 = 1, R_4 = 1 + 0.5·1 = 1.5, R_3 = 0.5 (its own), R_2 = 1 (the segment ends before the
patch), R_1 = 1 + 0.5·1 = 1.5.

>>> discounted_returns([1, 1, 0.5, 1, 1], [True, True, False, True, True], gamma=0.5)
[1.5, 1.0, 0.5, 1.5, 1.0]
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["GAMMA", "discounted_returns"]

#: EMPO's future-reward discount (Table 13).
GAMMA = 0.5


def discounted_returns(rewards: Sequence[float], matched: Sequence[bool], gamma: float = GAMMA) -> list[float]:
    """Eq. 5 for one trajectory: *rewards* r_t and whether each step *matched* the expert's."""
    if len(rewards) != len(matched):
        raise ValueError(f"{len(rewards)} rewards but {len(matched)} match flags")
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
    out = [0.0] * len(rewards)
    following = 0.0  # the return of the next step of the same segment (0 past its end)
    for t in range(len(rewards) - 1, -1, -1):
        r = float(rewards[t])
        if matched[t]:
            following = r + gamma * following
            out[t] = following
        else:
            out[t] = r
            following = 0.0
    return out
