"""The trainers' algorithms: advantages, the clipped policy loss, AdaGRPO's data components, and the
named algorithms as objects (:func:`algorithm`)."""

from agents.algos.adagrpo import FailureCurriculum, ReplayBuffer, mix_batches, prune_negatives
from agents.algos.advantages import (
    discounted_returns,
    dynamic_sampling_mask,
    group_advantages,
    reinforce_pp_advantages,
    rloo_advantages,
    step_group_advantages,
    whiten,
)
from agents.algos.base import Algorithm, Round
from agents.algos.losses import AGGREGATIONS, Aggregation, kl_k3, policy_loss
from agents.algos.registry import ALGORITHMS, algorithm

__all__ = [
    "AGGREGATIONS",
    "ALGORITHMS",
    "Aggregation",
    "Algorithm",
    "FailureCurriculum",
    "ReplayBuffer",
    "Round",
    "algorithm",
    "discounted_returns",
    "dynamic_sampling_mask",
    "group_advantages",
    "kl_k3",
    "mix_batches",
    "policy_loss",
    "prune_negatives",
    "reinforce_pp_advantages",
    "rloo_advantages",
    "step_group_advantages",
    "whiten",
]
