"""Reference agents: policies, rollouts and the ``gui-gym`` command line."""

from agents.policies import OraclePolicy, Policy, RandomPolicy
from agents.rollout import EpisodeResult, rollout, summarize

__all__ = ["EpisodeResult", "OraclePolicy", "Policy", "RandomPolicy", "rollout", "summarize"]
