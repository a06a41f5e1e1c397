"""VLC: its screens (``app``) and media library (``data``)."""

from gui_gym.android.sim.apps.vlc.app import VlcApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = VlcApp()

__all__ = ["APP", "VlcApp"]
