"""Tasks (org.tasks): its data (``data``: the app's ``tasks`` rows), its database on the phone
(``storage``), its screens (``app``), gui-gym's tasks (``tasks``) and AndroidWorld's
information-retrieval tasks (``questions``)."""

from gui_gym.android.sim.apps.tasks.app import TasksApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = TasksApp()

__all__ = ["APP", "TasksApp"]
