"""Miniwob: AndroidWorld's MiniWoB app, MiniWoB++'s pages in a WebView (``app``), AndroidWorld's
MiniWoB registry (``registry``, the pages in ``pages``) and scripted experts (``experts``)."""

from gui_gym.android.sim.apps.miniwob.app import MiniWobApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = MiniWobApp()

__all__ = ["APP", "MiniWobApp"]
