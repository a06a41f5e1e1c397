"""The Android family: ``GuiAndroid-v0``, the simulated phone, its task suite and action grammar."""

from gui_gym.android.actions import Action, ActionParseError, format_action, parse_action
from gui_gym.android.env import GuiAndroidEnv, UIElement
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.tasks import TASKS, list_tasks

__all__ = [
    "TASKS",
    "Action",
    "ActionParseError",
    "Device",
    "GuiAndroidEnv",
    "UIElement",
    "format_action",
    "list_tasks",
    "parse_action",
]
