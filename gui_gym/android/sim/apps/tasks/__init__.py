"""Tasks: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.tasks.app import TasksApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = TasksApp()

__all__ = ["APP", "TasksApp"]
