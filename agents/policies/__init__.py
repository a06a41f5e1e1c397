"""Policies map an observation (and the env's ``info``) to a text action."""

from agents.policies.baselines import NoisyOraclePolicy, OraclePolicy, Policy, RandomPolicy

__all__ = ["NoisyOraclePolicy", "OraclePolicy", "Policy", "RandomPolicy"]
