"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class ExpenseApp(App):
    name = "expense"
    label = "Expense"
    package = "com.example.expense"
