"""Clock: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.clock.app import ClockApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = ClockApp()

__all__ = ["APP", "ClockApp"]
