"""Pro Expense: its data (``data``), its database (``storage``), its screens (``app``), gui-gym's
task (``tasks``) and AndroidWorld's (``androidworld``)."""

from gui_gym.android.sim.apps.expense.app import ExpenseApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = ExpenseApp()

__all__ = ["APP", "ExpenseApp"]
