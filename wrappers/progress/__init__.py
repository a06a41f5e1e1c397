"""ProgRM (paper 001): progress labelling, the progress model, its training, and ``ProgressReward``.

- :mod:`~wrappers.progress.lcs`: hard and soft LCS (App. A, Eq. 7-8), Sim (Eq. 3), group LCS (Eq. 10)
- :mod:`~wrappers.progress.match`: steps as action tokens and the soft match f (Eq. 9)
- :mod:`~wrappers.progress.labels`: recipe library, key steps (Eq. 4), LCS and env labels
- :mod:`~wrappers.progress.synthesis`: RM training-data synthesis (App. B)
- :mod:`~wrappers.progress.data`: per-state training examples (Eq. 6)
- :mod:`~wrappers.progress.model`, :mod:`~wrappers.progress.training`: Prog (Eq. 5), BCE training, evaluation
- :mod:`~wrappers.progress.reward`: ``ProgressReward`` (Eq. 2)
- :mod:`~wrappers.progress.observation`: observations as text, through the env's family
- :mod:`~wrappers.progress.outcome`: the ORM baseline (§3.1): ``outcome_examples``, ``OutcomeModelReward``

The torch-backed names are imported on first use, so labelling does not import torch.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from wrappers.progress.data import ProgressExample, examples
from wrappers.progress.labels import (
    THETA_L,
    LabelReport,
    Labels,
    ProgressLabeller,
    attach_labels,
    env_labels,
    label_trajectories,
    read_labels,
)
from wrappers.progress.lcs import group_lcs, lcs, lcs_table, similarity
from wrappers.progress.match import EPSILON, ActionMatch, ActionToken, action_token, trajectory_tokens
from wrappers.progress.observation import observation_reader
from wrappers.progress.outcome import OutcomeModelReward, WithoutOutcome, outcome_examples
from wrappers.progress.reward import ProgressReward, ProgressRewardVector, progress_gains
from wrappers.progress.synthesis import augment_success, edit_actions, mismatched, synthesize

if TYPE_CHECKING:
    from wrappers.progress.model import ProgressModel
    from wrappers.progress.training import (
        ProgressTrainConfig,
        TrainResult,
        evaluate,
        split_by_task,
        train_progress_model,
    )

_LAZY = {
    "ProgressModel": "wrappers.progress.model",
    "ProgressTrainConfig": "wrappers.progress.training",
    "TrainResult": "wrappers.progress.training",
    "evaluate": "wrappers.progress.training",
    "split_by_task": "wrappers.progress.training",
    "train_progress_model": "wrappers.progress.training",
}

__all__ = [
    "EPSILON",
    "THETA_L",
    "ActionMatch",
    "ActionToken",
    "LabelReport",
    "Labels",
    "OutcomeModelReward",
    "ProgressExample",
    "ProgressLabeller",
    "ProgressModel",
    "ProgressReward",
    "ProgressRewardVector",
    "ProgressTrainConfig",
    "TrainResult",
    "WithoutOutcome",
    "action_token",
    "attach_labels",
    "augment_success",
    "edit_actions",
    "env_labels",
    "evaluate",
    "examples",
    "group_lcs",
    "label_trajectories",
    "lcs",
    "lcs_table",
    "mismatched",
    "observation_reader",
    "outcome_examples",
    "progress_gains",
    "read_labels",
    "similarity",
    "split_by_task",
    "synthesize",
    "train_progress_model",
    "trajectory_tokens",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
