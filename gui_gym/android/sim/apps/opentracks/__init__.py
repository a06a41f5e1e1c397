"""OpenTracks (de.dennisguse.opentracks): its data (``data``: the app's recorded tracks), its
database on the phone (``storage``), its screens (``app``) and AndroidWorld's
information-retrieval tasks (``questions``)."""

from gui_gym.android.sim.apps.opentracks.app import OpenTracksApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = OpenTracksApp()

__all__ = ["APP", "OpenTracksApp"]
