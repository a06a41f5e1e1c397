"""Placeholder replaced by the real app module."""
from gui_gym.android.apps.base import App


class MessagesApp(App):
    name = "messages"
    label = "Messages"
    package = "com.example.messages"
