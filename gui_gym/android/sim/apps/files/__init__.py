"""Files (DocumentsUI): its screens (``app``), the shared storage it shows (``data``), AndroidWorld's
tasks (``androidworld``)."""

from gui_gym.android.sim.apps.files.app import FilesApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = FilesApp()

__all__ = ["APP", "FilesApp"]
