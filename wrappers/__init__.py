"""Reward shaping for GUI-agent RL as composable Gymnasium wrappers.

Every wrapper keeps the protocol in :mod:`wrappers.protocol`: it adds named terms to
``info["reward_components"]`` and, at the last step, publishes the final per-step vectors in
``info["episode_reward_components"]`` and (when a reward depends on the outcome)
``info["episode_rewards"]``. The math of each method is a pure function next to its wrapper
(:mod:`wrappers.admire`, :mod:`wrappers.spa`, :mod:`wrappers.progress`).
"""

from wrappers.admire import AdmireConfig
from wrappers.book import MilestoneBook
from wrappers.generation import GenerationError, GenerationRequest
from wrappers.llm import LLMError, OpenAICompatibleLLM, TransformersLLM
from wrappers.llm_generator import LLMMilestoneGenerator
from wrappers.memory import ExperienceMemory, GuidanceReward, GuidanceWrapper
from wrappers.milestone import MilestoneReward
from wrappers.process import ProcessReward
from wrappers.progress import OutcomeModelReward, ProgressLabeller, ProgressReward, ProgressRewardVector
from wrappers.protocol import OUTCOME, EpisodeRecorder, RewardShaping, observation_digest
from wrappers.spa import ShortestLengths, ShortestPathReward, adjust_group
from wrappers.state import SharedState, StateFileError

__all__ = [
    "OUTCOME",
    "AdmireConfig",
    "EpisodeRecorder",
    "ExperienceMemory",
    "GenerationError",
    "GenerationRequest",
    "GuidanceReward",
    "GuidanceWrapper",
    "LLMError",
    "LLMMilestoneGenerator",
    "MilestoneBook",
    "MilestoneReward",
    "OpenAICompatibleLLM",
    "OutcomeModelReward",
    "ProcessReward",
    "ProgressLabeller",
    "ProgressReward",
    "ProgressRewardVector",
    "RewardShaping",
    "SharedState",
    "ShortestLengths",
    "ShortestPathReward",
    "StateFileError",
    "TransformersLLM",
    "adjust_group",
    "observation_digest",
]
