"""Hard and soft longest common subsequences (ProgRM App. A) and the group LCS (Eq. 10).

Hard LCS (Eq. 7) counts exactly equal items; soft LCS (Eq. 8) replaces equality with a
match score ``f(a_i, b_j)`` in [0, 1]::

    SoftLCS(a_1:i, b_1:j) = max{ SoftLCS(a_1:i−1, b_1:j−1) + f(a_i, b_j),
                                 SoftLCS(a_1:i−1, b_1:j),  SoftLCS(a_1:i, b_1:j−1) }

Every function here takes the match scores as a matrix ``F[i, j] = f(a_i, b_j)``, so the
same dynamic programme serves any ``f``; :func:`match_matrix` builds ``F`` from a plain
``f(a, b)`` callable. A pair ``(i, j)`` is *matched* when the optimal alignment takes the
diagonal there with ``F[i, j] > 0``.

Example (CLRS's classic pair: the LCS of ABCBDAB and BDCABA has length 4):

    >>> a, b = list("ABCBDAB"), list("BDCABA")
    >>> r = lcs(equality_matrix(a, b))
    >>> r.score, "".join(a[i] for i, _ in r.pairs)
    (4.0, 'BCBA')
    >>> soft = lcs(np.array([[0.5, 0.0], [0.0, 0.9]]))   # f(a1,b1)=0.5, f(a2,b2)=0.9
    >>> round(soft.score, 2), soft.pairs
    (1.4, [(0, 0), (1, 1)])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

__all__ = [
    "LCSResult",
    "equality_matrix",
    "group_lcs",
    "lcs",
    "lcs_table",
    "match_matrix",
    "similarity",
]

T = TypeVar("T")
_TOL = 1e-9


@dataclass(frozen=True)
class LCSResult:
    """The (soft) LCS length and the matched index pairs ``(i, j)``, increasing in both."""

    score: float
    pairs: list[tuple[int, int]]

    @property
    def left(self) -> list[int]:
        """Matched positions in the first sequence."""
        return [i for i, _ in self.pairs]

    @property
    def right(self) -> list[int]:
        """Matched positions in the second sequence."""
        return [j for _, j in self.pairs]


def match_matrix(a: Sequence[T], b: Sequence[T], f: Callable[[T, T], float]) -> np.ndarray:
    """``F[i, j] = f(a[i], b[j])`` for any soft match ``f`` with values in [0, 1]."""
    out = np.zeros((len(a), len(b)), dtype=np.float64)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i, j] = f(x, y)
    return out


def equality_matrix(a: Sequence[Any], b: Sequence[Any]) -> np.ndarray:
    """The hard match ``1[a_i = b_j]`` of Eq. 7."""
    return match_matrix(a, b, lambda x, y: float(x == y))


def lcs_table(scores: np.ndarray) -> np.ndarray:
    """The ``(m+1) × (n+1)`` table of Eq. 8 (Eq. 7 when ``scores`` is an equality matrix).

    Row by row: with ``c_j = max(D[i−1, j−1] + F[i, j], D[i−1, j])`` the recurrence's third
    term makes ``D[i, ·]`` the running maximum of ``c`` (all terms are ≥ 0).
    """
    f = np.asarray(scores, dtype=np.float64)
    if f.ndim != 2:
        raise ValueError(f"match scores must be a 2-D matrix, got shape {f.shape}")
    if f.size and (np.isnan(f).any() or f.min() < 0 or f.max() > 1):
        raise ValueError("soft match scores must lie in [0, 1]")
    m, n = f.shape
    table = np.zeros((m + 1, n + 1), dtype=np.float64)
    for i in range(1, m + 1):
        prev = table[i - 1]
        np.maximum.accumulate(np.maximum(prev[:-1] + f[i - 1], prev[1:]), out=table[i, 1:])
    return table


def lcs(scores: np.ndarray) -> LCSResult:
    """The optimal alignment under match scores ``F`` (``m × n``), traced back from the table.

    Ties prefer a match, then skipping in the first sequence, so results are deterministic.
    """
    f = np.asarray(scores, dtype=np.float64)
    table = lcs_table(f)
    i, j = f.shape
    pairs: list[tuple[int, int]] = []
    while i > 0 and j > 0:
        here = table[i, j]
        if f[i - 1, j - 1] > 0 and abs(table[i - 1, j - 1] + f[i - 1, j - 1] - here) <= _TOL:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif abs(table[i - 1, j] - here) <= _TOL:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return LCSResult(float(table[-1, -1]), pairs)


def similarity(scores: np.ndarray) -> float:
    """Eq. 3: ``Sim(T_i, T_j) = SoftLCS(T_i, T_j) / min(|T_i|, |T_j|)`` (0 when either is empty)."""
    f = np.asarray(scores, dtype=np.float64)
    shortest = min(f.shape)
    return float(lcs_table(f)[-1, -1] / shortest) if shortest else 0.0


def group_lcs(sequences: Sequence[Sequence[T]], scores: Callable[[Sequence[T], Sequence[T]], np.ndarray]) -> list[T]:
    """Eq. 10: ``LCS̃(a_1, …, a_n) = a_1 ⊙ a_2 ⊙ … ⊙ a_n``, left-associative.

    ``x ⊙ y`` keeps the items of ``x`` matched in the two-sequence LCS, so the recipe is made
    of the first sequence's items. ``scores(x, y)`` gives the match matrix of two sequences.
    """
    if not sequences:
        return []
    recipe = list(sequences[0])
    for other in sequences[1:]:
        if not recipe:
            break
        recipe = [recipe[i] for i in lcs(scores(recipe, other)).left]
    return recipe
