"""Policies map an observation (and the env's ``info``) to a text action."""

from agents.policies.baselines import OraclePolicy, Policy, RandomPolicy

__all__ = ["OraclePolicy", "Policy", "RandomPolicy"]
