"""How UI-Mem ranks what its memory holds (UI-Mem §3.2 Eq. 1, App. E).

Plans (workflows and subtask skills) are ranked by an upper confidence bound; failure diagnoses by
recency. Pure functions of the counts, so they are tested against hand-computed values.

Eq. 1, for a plan ``p`` among the candidates ``P`` of one template or subtask::

    S(p) = N_succ(p) / Σ_p' N_succ(p')  +  λ_ucb · sqrt( ln(Σ_p' N_used(p')) / (N_used(p) + 1) )

App. E writes the first term as ``N_success / N_total`` and calls it a success rate;
``ranking="rate"`` reads it so: the plan's own successes over its uses, ``min(1, N_succ / max(N_used,
1))``, with ``N_global = Σ N_used``. Eq. 1 leaves ``ln 0`` (no plan used yet) undefined; the
exploration bonus is then 0 (as for ``ln 1``).

App. E ranks failure diagnoses by ``R(t) = 1 / (1 + λ·Δt)``, ``Δt`` the time since the diagnosis
was last updated; here time is the memory's clock, one tick per training iteration.

>>> [round(s, 4) for s in ucb_scores([(3, 5), (1, 0)], weight=1.0)]
[1.2679, 1.5186]
>>> [round(s, 4) for s in ucb_scores([(3, 5), (1, 0)], weight=0.1)]
[0.8018, 0.3769]
>>> recency(5, decay=0.1), recency(0, decay=0.1)
(0.6666666666666666, 1.0)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["RANKINGS", "rate_scores", "recency", "score_plans", "ucb_scores"]

#: the plan rankings: Eq. 1 and App. E's reading of its first term as a success rate
RANKINGS = ("eq1", "rate")


def _bonus(used: int, total_used: int, weight: float) -> float:
    if total_used <= 1:  # ln 1 = 0; ln 0 is undefined in Eq. 1: no bonus either way
        return 0.0
    return weight * math.sqrt(math.log(total_used) / (used + 1))


def ucb_scores(counts: Sequence[tuple[int, int]], weight: float = 1.0) -> list[float]:
    """Eq. 1 for each candidate ``(N_succ, N_used)``; ``weight`` is λ_ucb."""
    total_succ = sum(s for s, _ in counts)
    total_used = sum(u for _, u in counts)
    return [(s / total_succ if total_succ else 0.0) + _bonus(u, total_used, weight) for s, u in counts]


def rate_scores(counts: Sequence[tuple[int, int]], weight: float = 1.0) -> list[float]:
    """App. E's score: the plan's own success rate plus ``c · sqrt(ln N_global / (N_used + 1))``."""
    total_used = sum(u for _, u in counts)
    return [min(1.0, s / max(u, 1)) + _bonus(u, total_used, weight) for s, u in counts]


def score_plans(counts: Sequence[tuple[int, int]], weight: float = 1.0, ranking: str = "eq1") -> list[float]:
    """The scores of ``ranking`` (one of :data:`RANKINGS`)."""
    if ranking == "eq1":
        return ucb_scores(counts, weight)
    if ranking == "rate":
        return rate_scores(counts, weight)
    raise ValueError(f"unknown ranking {ranking!r}; choose from {', '.join(RANKINGS)}")


def recency(elapsed: float, decay: float) -> float:
    """App. E's ``R(t) = 1 / (1 + λ·Δt)`` for a diagnosis last updated ``elapsed`` ticks ago."""
    if elapsed < 0 or decay < 0:
        raise ValueError(f"R(t) needs Δt >= 0 and λ >= 0, got Δt={elapsed}, λ={decay}")
    return 1.0 / (1.0 + decay * elapsed)
