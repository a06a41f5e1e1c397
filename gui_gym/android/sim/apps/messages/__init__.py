"""Simple SMS Messenger: its data (``data``: conversations, one ``sms`` row per message), its
storage (``storage``: the telephony provider's ``mmssms.db``), its screens (``app``), gui-gym's
tasks (``tasks``) and AndroidWorld's (``androidworld``)."""

from gui_gym.android.sim.apps.messages.app import MessagesApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = MessagesApp()

__all__ = ["APP", "MessagesApp"]
