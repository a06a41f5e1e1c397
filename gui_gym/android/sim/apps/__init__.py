"""The installed apps, one package each (its screens, data and tasks), in launcher order.

An app is a folder here (``app.py``: its :class:`~gui_gym.android.sim.apps.base.App` and screens;
``data.py``: its data model; ``storage.py``: the database files the served phone keeps at the real
app's paths; ``tasks.py``: gui-gym's task templates, ``androidworld.py`` and ``questions.py``:
AndroidWorld's, each with ``TEMPLATES``) and one entry of :data:`PACKAGES`.
"""

from __future__ import annotations

import importlib

from gui_gym.android.sim.apps.base import App

#: the apps' packages, in launcher order (the order of the task suite too)
PACKAGES = (
    "contacts",
    "messages",
    "calendar",
    "clock",
    "markor",
    "expense",
    "tasks",
    "settings",
    "gallery",
    "vlc",
    "camera",
    "dialer",
    "files",
    "broccoli",
    "joplin",
    "retro",
    "recorder",
    "draw",
    "opentracks",
    "osmand",
    "miniwob",
    "chrome",
)

APPS: dict[str, App] = {
    app.name: app for app in (importlib.import_module(f"{__name__}.{package}").APP for package in PACKAGES)
}

__all__ = ["APPS", "PACKAGES", "App"]
