"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class MarkorApp(App):
    name = "markor"
    label = "Markor"
    package = "com.example.markor"
