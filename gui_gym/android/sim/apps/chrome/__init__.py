"""Chrome: a tab showing local pages in a real headless Chromium (``app``), the pages of
AndroidWorld's browser tasks (``pages``) and the tasks (``androidworld``)."""

from gui_gym.android.sim.apps.chrome.app import ChromeApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = ChromeApp()

__all__ = ["APP", "ChromeApp"]
