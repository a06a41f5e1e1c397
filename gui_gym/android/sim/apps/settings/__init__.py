"""Settings: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.settings.app import SettingsApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = SettingsApp()

__all__ = ["APP", "SettingsApp"]
