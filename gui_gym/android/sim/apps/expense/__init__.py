"""Pro Expense: its screens and data (``app``) and its tasks (``tasks``)."""

from gui_gym.android.sim.apps.expense.app import ExpenseApp

#: the installed app (what :data:`gui_gym.android.sim.apps.APPS` holds)
APP = ExpenseApp()

__all__ = ["APP", "ExpenseApp"]
