"""The named algorithms: a few choices each on top of one rollout → advantage → loss core.

=============  ===========================  =================  ===================================================
name           advantage                    loss aggregation   extras
=============  ===========================  =================  ===================================================
``grpo``       group-normalised R(τ)        trajectory-mean    MobileRL Eq. 1; ``level="step"``: ADMIRE Eq. 12-13
``rloo``       leave-one-out baseline       trajectory-mean
``dapo``       group-normalised             token-mean         clip-higher ε_high = 0.28, dynamic sampling
``reinforce++``  returns − β·KL, whitened   token-mean         KL to the reference in the reward (ProgRM §2.4)
``adagrpo``    group-normalised SPA reward  trajectory-mean    SPA, AdaPR replay, FCF, negative pruning, KL β=0.001
=============  ===========================  =================  ===================================================

``level="step"`` (GRPO, DAPO) normalises every step reward by the mean and std of all step
rewards of its group (ADMIRE Eq. 13) and averages the loss over all steps (Eq. 12's 1/ΣT_i).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ALGORITHMS", "Algorithm", "algorithm"]


@dataclass(frozen=True)
class Algorithm:
    """What distinguishes one named algorithm from another."""

    name: str
    advantage: str  # "group" | "step-group" | "rloo" | "reinforce++"
    aggregation: str  # see agents.algos.losses.policy_loss
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0
    dynamic_sampling: bool = False  # DAPO: drop groups whose rewards are all equal, sample more
    spa: bool = False  # MobileRL: R(τ) is SPA over the group (wrappers.spa.adjust_group)
    replay: bool = False  # AdaPR
    fcf: bool = False  # failure curriculum filtering
    prune: bool = False  # negative pruning to 1:2 (MobileRL App. B.3.1)


ALGORITHMS: dict[str, Algorithm] = {
    "grpo": Algorithm("grpo", "group", "trajectory-mean"),
    "rloo": Algorithm("rloo", "rloo", "trajectory-mean"),
    "dapo": Algorithm("dapo", "group", "token-mean", clip_high=0.28, dynamic_sampling=True),
    "reinforce++": Algorithm("reinforce++", "reinforce++", "token-mean", kl_coef=0.001),
    "adagrpo": Algorithm(
        "adagrpo", "group", "trajectory-mean", kl_coef=0.001, spa=True, replay=True, fcf=True, prune=True
    ),
}


def algorithm(name: str, level: str = "trajectory") -> Algorithm:
    """The named algorithm, with ADMIRE's step-level advantage when ``level="step"``.

    >>> algorithm("grpo", level="step").advantage, algorithm("grpo", level="step").aggregation
    ('step-group', 'token-mean')
    """
    key = name.lower()
    if key not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(ALGORITHMS)} (or 'ppo' for SB3)")
    algo = ALGORITHMS[key]
    if level == "trajectory":
        return algo
    if level != "step":
        raise ValueError(f"level must be 'trajectory' or 'step', got {level!r}")
    if algo.advantage != "group" or algo.spa:
        raise ValueError(f"the step-level advantage (ADMIRE Eq. 13) applies to grpo and dapo, not {name}")
    from dataclasses import replace

    return replace(algo, advantage="step-group", aggregation="token-mean")
