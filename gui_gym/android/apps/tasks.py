"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class TasksApp(App):
    name = "tasks"
    label = "Tasks"
    package = "com.example.tasks"
