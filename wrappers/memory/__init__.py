"""UI-Mem: a hierarchical experience memory that guides some rollouts of a group (UI-Mem, 2026).

- :mod:`wrappers.memory.store`: :class:`ExperienceMemory`, workflows, subtask skills and failure
  diagnoses, stored abstract and shared like the milestone book;
- :mod:`wrappers.memory.ranking`: Eq. 1's UCB over plans, App. E's variant, the time decay R(t);
- :mod:`wrappers.memory.guidance`: guidance at three levels in Fig. 14's shape;
- :mod:`wrappers.memory.templates`: ``{{slot}}`` abstraction and filling;
- :mod:`wrappers.memory.wrapper`: :class:`GuidanceWrapper` (guidance in the observation, the level
  from the reset options) and :class:`GuidanceReward` (Eq. 4-5), the reward term ``uimem``.
"""

from wrappers.memory.guidance import LEVELS, Guidance, GuidanceStep
from wrappers.memory.ranking import rate_scores, recency, score_plans, ucb_scores
from wrappers.memory.store import ExperienceMemory, MemoryConfig
from wrappers.memory.templates import abstract, instantiate, slots
from wrappers.memory.wrapper import GuidanceReward, GuidanceWrapper

__all__ = [
    "LEVELS",
    "ExperienceMemory",
    "Guidance",
    "GuidanceReward",
    "GuidanceStep",
    "GuidanceWrapper",
    "MemoryConfig",
    "abstract",
    "instantiate",
    "rate_scores",
    "recency",
    "score_plans",
    "slots",
    "ucb_scores",
]
