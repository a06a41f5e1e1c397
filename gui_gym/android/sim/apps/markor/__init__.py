"""Markor: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.markor.app import MarkorApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = MarkorApp()

__all__ = ["APP", "MarkorApp"]
