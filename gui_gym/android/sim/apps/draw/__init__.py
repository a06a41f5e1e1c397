"""Simple Draw Pro: its canvas and "Save as" (``app``), AndroidWorld's task (``androidworld``)."""

from gui_gym.android.sim.apps.draw.app import DrawApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = DrawApp()

__all__ = ["APP", "DrawApp"]
