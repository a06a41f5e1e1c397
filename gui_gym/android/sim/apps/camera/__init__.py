"""Camera: Camera2's screens and data (``app``), runtime permissions and the grant dialog
(``permissions``), what it sees (``pictures``)."""

from gui_gym.android.sim.apps.camera.app import CameraApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = CameraApp()

__all__ = ["APP", "CameraApp"]
