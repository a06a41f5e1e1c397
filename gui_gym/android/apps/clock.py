"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class ClockApp(App):
    name = "clock"
    label = "Clock"
    package = "com.example.clock"
