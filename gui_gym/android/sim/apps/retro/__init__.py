"""Retro Music: its screens (``app``), songs, playlists and queue (``data``, ``storage``)."""

from gui_gym.android.sim.apps.retro.app import RetroApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = RetroApp()

__all__ = ["APP", "RetroApp"]
