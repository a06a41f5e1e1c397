"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class SettingsApp(App):
    name = "settings"
    label = "Settings"
    package = "com.example.settings"
