"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class CalendarApp(App):
    name = "calendar"
    label = "Calendar"
    package = "com.example.calendar"
