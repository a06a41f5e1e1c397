"""Broccoli (the recipe app): its data (``data``), its database (``storage``), its screens (``app``)
and AndroidWorld's recipe tasks (``androidworld``)."""

from gui_gym.android.sim.apps.broccoli.app import BroccoliApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = BroccoliApp()

__all__ = ["APP", "BroccoliApp"]
