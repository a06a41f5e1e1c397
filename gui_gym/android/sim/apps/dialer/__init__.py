"""Phone (Google's dialer): its screens and data (``app``)."""

from gui_gym.android.sim.apps.dialer.app import DialerApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = DialerApp()

__all__ = ["APP", "DialerApp"]
