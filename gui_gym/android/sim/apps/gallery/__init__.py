"""Simple Gallery Pro: its screens (``app``), the oracle's steps through them (``oracle``)."""

from gui_gym.android.sim.apps.gallery.app import GalleryApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = GalleryApp()

__all__ = ["APP", "GalleryApp"]
