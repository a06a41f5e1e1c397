"""Reward shaping for GUI-agent RL as composable Gymnasium wrappers.

Every wrapper keeps the protocol in :mod:`wrappers.protocol`: it adds named terms to
``info["reward_components"]`` and, at the last step, publishes the final per-step vectors in
``info["episode_reward_components"]`` and (when a reward depends on the outcome)
``info["episode_rewards"]``.
"""

from wrappers.protocol import OUTCOME, EpisodeRecorder, RewardShaping, observation_digest
from wrappers.state import SharedState, StateFileError

__all__ = ["OUTCOME", "EpisodeRecorder", "RewardShaping", "SharedState", "StateFileError", "observation_digest"]
