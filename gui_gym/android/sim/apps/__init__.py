"""The installed apps, in launcher order."""

from __future__ import annotations

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.apps.calendar import CalendarApp
from gui_gym.android.sim.apps.clock import ClockApp
from gui_gym.android.sim.apps.contacts import ContactsApp
from gui_gym.android.sim.apps.expense import ExpenseApp
from gui_gym.android.sim.apps.markor import MarkorApp
from gui_gym.android.sim.apps.messages import MessagesApp
from gui_gym.android.sim.apps.settings import SettingsApp
from gui_gym.android.sim.apps.tasks import TasksApp

APPS: dict[str, App] = {
    app.name: app
    for app in (
        ContactsApp(),
        MessagesApp(),
        CalendarApp(),
        ClockApp(),
        MarkorApp(),
        ExpenseApp(),
        TasksApp(),
        SettingsApp(),
    )
}

__all__ = ["APPS", "App"]
