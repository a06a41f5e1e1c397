"""Simple Calendar Pro: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.calendar.app import CalendarApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = CalendarApp()

__all__ = ["APP", "CalendarApp"]
