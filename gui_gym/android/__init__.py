"""The simulated Android phone (``GuiAndroid-v0``) and its task suite."""

from gui_gym.android.device import Device
from gui_gym.android.env import GuiAndroidEnv, UIElement
from gui_gym.android.tasks import TASKS, list_tasks

__all__ = ["TASKS", "Device", "GuiAndroidEnv", "UIElement", "list_tasks"]
