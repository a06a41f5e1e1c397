"""Settings: its screens and data (``app``), gui-gym's tasks (``tasks``) and AndroidWorld's (``androidworld``)."""

from gui_gym.android.sim.apps.settings.app import SettingsApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = SettingsApp()

__all__ = ["APP", "SettingsApp"]
