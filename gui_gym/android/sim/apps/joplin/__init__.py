"""Joplin (net.cozic.joplin): its data (``data``: the app's notebooks and notes), its database on
the phone (``storage``), its screens (``app``) and AndroidWorld's information-retrieval tasks
(``questions``)."""

from gui_gym.android.sim.apps.joplin.app import JoplinApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = JoplinApp()

__all__ = ["APP", "JoplinApp"]
