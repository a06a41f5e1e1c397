"""ADMIRE's reward assignment as pure functions (Adaptive Milestone Reward, paper 000).

- :func:`match_milestones` — Eq. 8-9 with the pointer p_t of §3.2.1 (Alg. 1 lines 20-28);
- :func:`asymmetric_credit` — Eq. 10 (successful episodes) and Eq. 11 (failed ones), with k the
  number of milestones hit *so far* (Alg. 1 line 33) and the ablation switches of App. B.3;
- :func:`curriculum_weight` — λ(E) = λ0·γ^E (Alg. 1 line 4);
- :func:`total_reward` — R_total(t) = R_outcome + η·R_format(t) + λ(E)·R_mil(t) (Alg. 1 line 35).

Worked example (K = 3 milestones, δ = 0.75, a failed episode of four steps that hits m1 at
step 1 with s = 0.9 and m2 at step 3 with s = 0.8):

    >>> m = match_milestones(["a", "x", "b", "y"], ["A", "B", "C"],
    ...                      score=lambda d, ms: {"aA": 0.9, "bB": 0.8}.get(d + ms, 0.1), delta=0.75)
    >>> m.rewards, m.hits
    ([0.9, 0.0, 0.8, 0.0], [0, None, 1, None])
    >>> [round(x, 4) for x in asymmetric_credit(m, success=False, n_milestones=3)]  # Eq. 11
    [0.7833, 0.3333, 1.0667, 0.6667]
    >>> asymmetric_credit(m, success=True, n_milestones=3)  # Eq. 10
    [0.9, 0.0, 0.8, 0.0]
    >>> [round(x, 4) for x in total_reward(0.0, [True, False, True, True], [0.7833, 0.3333, 1.0667, 0.6667], epoch=0)]
    [0.235, -0.4, 0.32, 0.2]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

Score = Callable[[str, str], float]


@dataclass(frozen=True)
class AdmireConfig:
    """ADMIRE's hyperparameters, with the paper's defaults (App. A.3, Alg. 1).

    ``delta=None`` uses the matcher's own threshold. The three switches are the ablations of
    App. B.3: ``base_on_success`` adds k/K to successful episodes ("w/ Base Reward for
    Successful Traj."), ``base_on_failure=False`` drops it from failed ones ("w/o Base Reward
    for Fail Traj."), ``decay=False`` keeps λ at λ0 ("w/o Reward Decay", γ = 1).
    """

    delta: float | None = None
    zeta: float = 0.5
    eta: float = 0.5
    lambda0: float = 0.3
    gamma: float = 0.99
    base_on_success: bool = False
    base_on_failure: bool = True
    decay: bool = True


class Matches(NamedTuple):
    """Per step: r_t^mil (Eq. 9; 0 where nothing was hit) and the index of the milestone hit."""

    rewards: list[float]
    hits: list[int | None]

    @property
    def count(self) -> int:
        return sum(h is not None for h in self.hits)


def match_milestones(descriptions: Sequence[str], milestones: Sequence[str], score: Score, delta: float) -> Matches:
    """Match each step's action description against the current target milestone only.

    r_t^mil = 1[s(a_t, m_{p_t}) > δ]·s(a_t, m_{p_t}) (Eq. 9). The pointer advances only on a hit,
    so milestones are met in order and none is skipped. Alg. 1 line 26 clamps the pointer at K,
    which would let the last milestone be hit again and k exceed K; here matching stops once all
    K milestones are met, so k/K never exceeds 1.
    """
    rewards: list[float] = []
    hits: list[int | None] = []
    p = 0
    for d in descriptions:
        if p < len(milestones):
            s = float(score(d, milestones[p]))
            if s > delta:
                rewards.append(s)
                hits.append(p)
                p += 1
                continue
        rewards.append(0.0)
        hits.append(None)
    return Matches(rewards, hits)


def asymmetric_credit(
    matches: Matches,
    success: bool,
    n_milestones: int,
    zeta: float = 0.5,
    base_on_success: bool = False,
    base_on_failure: bool = True,
) -> list[float]:
    """R_mil(t) for every step of one episode.

    Successful episode (Eq. 10): r_t^mil at the steps that hit a milestone, 0 elsewhere.
    Failed episode (Eq. 11): k_t/K + ζ·r_t^mil at hit steps, k_t/K elsewhere, where k_t is the
    number of milestones hit up to and including step t (Alg. 1 lines 26 and 33).
    With no milestones (K = 0) there is nothing to credit: all zeros.
    """
    if n_milestones <= 0:
        return [0.0] * len(matches.rewards)
    out: list[float] = []
    k = 0
    for r, hit in zip(matches.rewards, matches.hits, strict=True):
        if hit is not None:
            k += 1
        base = k / n_milestones
        if success:
            out.append((base if base_on_success else 0.0) + (r if hit is not None else 0.0))
        else:
            out.append((base if base_on_failure else 0.0) + (zeta * r if hit is not None else 0.0))
    return out


def curriculum_weight(epoch: int, lambda0: float = 0.3, gamma: float = 0.99) -> float:
    """λ(E) = λ0·γ^E, the decaying weight of the milestone reward (Alg. 1 line 4)."""
    return lambda0 * gamma**epoch


def total_reward(
    outcome: float,
    format_valid: Sequence[bool],
    milestone_credit: Sequence[float],
    epoch: int,
    eta: float = 0.5,
    lambda0: float = 0.3,
    gamma: float = 0.99,
) -> list[float]:
    """R_total(t) = R_outcome + η·R_format(t) + λ0·γ^E·R_mil(t) (Alg. 1 line 35).

    R_outcome is the episode's outcome O(τ), given to every step (step-level GRPO, §3.3);
    R_format(t) is −1 for an invalid action and 0 otherwise.
    """
    lam = curriculum_weight(epoch, lambda0, gamma)
    return [
        outcome + eta * (0.0 if ok else -1.0) + lam * m for ok, m in zip(format_valid, milestone_credit, strict=True)
    ]
