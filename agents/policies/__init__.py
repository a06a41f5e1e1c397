"""Policies map an observation (and the env's ``info``) to a text action."""

from typing import Any

from agents.policies.baselines import ActorPolicy, NoisyOraclePolicy, OraclePolicy, Policy, RandomPolicy

__all__ = ["ActorPolicy", "CandidatePolicy", "LMPolicy", "NoisyOraclePolicy", "OraclePolicy", "Policy", "RandomPolicy"]


def __getattr__(name: str) -> Any:
    # LMPolicy and CandidatePolicy import torch (and transformers): load them on first use,
    # not with ``import agents``.
    if name == "CandidatePolicy":
        from agents.policies.candidate import CandidatePolicy

        return CandidatePolicy
    if name == "LMPolicy":
        from agents.policies.lm import LMPolicy

        return LMPolicy
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
