"""Types every gui-gym package shares: actions, task specs, trajectories, text spaces."""

from gui_gym.core.actions import Action, ActionParseError, format_action, parse_action
from gui_gym.core.spaces import AnyText
from gui_gym.core.task import TaskSpec
from gui_gym.core.trajectory import Step, Trajectory, read_jsonl, write_jsonl

__all__ = [
    "Action",
    "ActionParseError",
    "AnyText",
    "Step",
    "TaskSpec",
    "Trajectory",
    "format_action",
    "parse_action",
    "read_jsonl",
    "write_jsonl",
]
