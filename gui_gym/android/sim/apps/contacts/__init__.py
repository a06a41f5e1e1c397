"""Contacts: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.contacts.app import ContactsApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = ContactsApp()

__all__ = ["APP", "ContactsApp"]
