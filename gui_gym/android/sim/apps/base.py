"""The base class of a simulated app."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.storage import Database
    from gui_gym.android.sim.widgets import Screen


class App:
    """An installed app: its identity, its database, and its launch screen.

    ``initial_data()`` returns the app's fresh database (plain picklable data; tasks edit it
    at reset and success checks read it). ``root(dev)`` builds the launch activity.
    """

    name: str = ""  # key in APPS and in DeviceState.data
    label: str = ""  # the app's name, as AndroidWorld's tasks and Launch actions give it
    launcher_label: str = ""  # the text under its launcher icon, when not ``label``
    package: str = ""
    #: the launch activity's class (what ``am stack list`` and ``dumpsys window`` report;
    #: AndroidWorld's ``_PATTERN_TO_ACTIVITY`` names)
    activity: str = ""
    #: what else Launch accepts: AndroidWorld's app-name patterns for the app (``adb_utils``'s
    #: ``_PATTERN_TO_ACTIVITY``), matched like it does: ``re.match`` on the lower-cased name, so a
    #: pattern matches the start of a name ("clock app" opens Clock)
    aliases: tuple[str, ...] = ()
    color: tuple[int, int, int] = (90, 90, 90)  # launcher icon colour
    icon: str = ""  # the launcher icon's glyph (``icons.GLYPHS``); none: the label's initial
    #: the activity's root layouts around a screen's widgets, ``(class, resource id)`` from the
    #: outermost in (a CoordinatorLayout is reported as ``android.view.ViewGroup``)
    layout: tuple[tuple[str, str], ...] = (("android.view.ViewGroup", ""), ("android.widget.LinearLayout", ""))
    #: the database files the real app keeps its data in (:class:`~gui_gym.android.sim.storage.Database`):
    #: the phone served over adb shows them, and reads back what is pushed there
    databases: tuple[Database, ...] = ()
    #: what the app needs beyond the simulator (``"browser"``: its screens are pages in Chromium)
    requires: tuple[str, ...] = ()

    @property
    def icon_label(self) -> str:
        return self.launcher_label or self.label

    def initial_data(self) -> Any:
        return None

    def root(self, dev: Device) -> Screen:
        raise NotImplementedError
