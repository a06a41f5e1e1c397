"""Audio Recorder: its screens and records (``app``)."""

from gui_gym.android.sim.apps.recorder.app import RecorderApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = RecorderApp()

__all__ = ["APP", "RecorderApp"]
