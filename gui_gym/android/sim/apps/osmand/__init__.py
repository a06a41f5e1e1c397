"""OsmAnd: its map, search, favourites and markers (``app``), their files (``storage``)."""

from gui_gym.android.sim.apps.osmand.app import OsmAndApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = OsmAndApp()

__all__ = ["APP", "OsmAndApp"]
