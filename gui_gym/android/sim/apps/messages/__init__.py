"""Simple SMS Messenger: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.messages.app import MessagesApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = MessagesApp()

__all__ = ["APP", "MessagesApp"]
