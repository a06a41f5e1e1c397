"""What every gui-gym package shares and no family owns: the env contract, the family seam,
task specs, trajectories, text spaces and atomic file writes."""

from gui_gym.core import contract
from gui_gym.core.contract import ACTION_KINDS, ContractError, StepInfo, check_contract
from gui_gym.core.family import Candidate, EditActions, EnvFamily, family_of, select_tasks, text_items
from gui_gym.core.spaces import AnyText
from gui_gym.core.task import TaskSpec
from gui_gym.core.trajectory import Step, Trajectory, read_jsonl, write_jsonl

__all__ = [
    "ACTION_KINDS",
    "AnyText",
    "Candidate",
    "ContractError",
    "EditActions",
    "EnvFamily",
    "Step",
    "StepInfo",
    "TaskSpec",
    "Trajectory",
    "check_contract",
    "contract",
    "family_of",
    "read_jsonl",
    "select_tasks",
    "text_items",
    "write_jsonl",
]

#: Names this package exported before the action grammar moved to the Android family.
_MOVED = ("Action", "ActionParseError", "format_action", "parse_action")


def __getattr__(name: str) -> object:
    if name in _MOVED:
        from gui_gym.core.actions import moved

        value = globals()[name] = moved(name, __name__)  # warn once
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
