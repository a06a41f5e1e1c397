"""Settings (com.android.settings): the system settings of the phone.

Database: ``dev.state.settings`` *is* the settings database (``wifi``, ``bluetooth``,
``airplane``, ``brightness``, ``dark_theme``, ``auto_rotate``, ``battery_saver``, ``dnd``,
``location``, ``font_size``; :mod:`gui_gym.android.settings_keys` names Android's key of each);
:class:`SettingsData` only remembers which radios to bring back when airplane mode goes off.
Screens: the main list (scrolls) under a "Search settings" bar, the search page (a search field,
the settings whose title holds the query), Network & internet (Wi-Fi and Airplane mode
switches, SIMs page), Connected devices (Bluetooth switch, pairing), Display (brightness
slider, Dark theme, Font size, Auto-rotate), Battery (Battery Saver), Sound & vibration (Do Not
Disturb), Location, and read-only pages (Apps, Storage, About …).

Like Android, turning airplane mode on turns Wi-Fi and Bluetooth off, and turning it off
turns back on those that were on before; either radio may still be switched on in flight.

The brightness (``settings["brightness"]``) is the slider's position, 0-100%; Android's
``screen_brightness`` (``settings get system screen_brightness``) is its level, 1 at 0% (the
minimum) to 255 at 100% (the maximum), ``1 + round(2.54 x percent)`` between
(:func:`~gui_gym.android.settings_keys.to_android`). The slider is an ``android.widget.SeekBar``
(id ``android:id/seekbar``, desc "Brightness level", text "NN%";
:meth:`~gui_gym.android.sim.widgets.UI.slider`) that is dragged sideways: a finger swipe to the
right on it moves the thumb by the swipe's share of the full range (short 25, medium 50, long
75 points), to the left back, clamped to 0-100%. (Scroll
actions name the content direction, so AndroidWorld's ``scroll left`` raises the level.)
Vertical swipes on it are refused. The step says what the thumb did and where it stopped:
``Drag the "Brightness level" slider right (to 70%)``, ``... right (to 100%, the maximum)``.
(Android's own slider follows a gamma curve between the ends; the ends are the same.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gui_gym.android.sim.apps.base import App
from gui_gym.android.sim.dialogs import MenuDialog
from gui_gym.android.sim.widgets import PAD, UI, Screen
from gui_gym.android.ui import SCREEN_W, Node

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

PKG = "com.android.settings"
FONT_SIZES = ("Small", "Default", "Large", "Largest")
MAIN_ROW_H = 200
SLIDER_STEP = 100  # level points per full-width drag
SEARCH_BAR_H = 180


@dataclass
class SettingsData:
    """What Settings keeps besides ``dev.state.settings``."""

    radios_before_airplane: dict[str, bool] | None = None


def _db(dev: Device) -> SettingsData:
    return dev.data("settings")


def set_airplane(dev: Device, on: bool) -> None:
    """Airplane mode as Android does it: on turns the radios off, off restores those that were on."""
    s, d = dev.state.settings, _db(dev)
    if on == s["airplane"]:
        return
    if on:
        d.radios_before_airplane = {"wifi": s["wifi"], "bluetooth": s["bluetooth"]}
        s["wifi"] = s["bluetooth"] = False
    else:
        for key, was_on in (d.radios_before_airplane or {}).items():
            s[key] = s[key] or was_on
        d.radios_before_airplane = None
    s["airplane"] = on


def _in_settings(node: Node) -> Node:
    """Suffix the descriptions of ``node``'s tap handlers with " in Settings"."""
    for n in node.walk():
        if n.on_tap is not None:
            n.on_tap = _suffixed(n.on_tap)
    return node


def _suffixed(cb: Callable[[], Any]) -> Callable[[], Any]:
    def tap() -> Any:
        desc = cb()
        return f"{desc} in Settings" if isinstance(desc, str) else desc

    return tap


def setting_switch(
    ui: UI, label: str, key: str, summary: str = "", on_change: Callable[[bool], Any] | None = None
) -> Node:
    """A switch row bound to ``dev.state.settings[key]``."""
    s = ui.dev.state.settings

    def toggle(value: bool) -> None:
        if on_change is not None:
            on_change(value)
        else:
            s[key] = value

    return ui.switch(label, bool(s[key]), toggle, summary=summary)  # a preference row has no id


def info_row(ui: UI, title: str, summary: str = "") -> Node:
    """A read-only preference row (title and summary, not clickable)."""
    return ui.row(title, summary, h=190 if summary else 168)


class Page(Screen):
    """A settings sub-page: toolbar with Navigate up, then :meth:`content`."""

    title = ""

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar(self.title)
        self.content(ui, dev)

    def content(self, ui: UI, dev: Device) -> None:
        raise NotImplementedError

    def screen_name(self) -> str:
        return self.title


class NetworkPage(Page):
    title = "Network & internet"

    def content(self, ui: UI, dev: Device) -> None:
        s = dev.state.settings
        setting_switch(ui, "Wi-Fi", "wifi", "Connected to AndroidWifi" if s["wifi"] else "Off")
        ui.row("SIMs", "No SIM card", on_tap=lambda: self._sims(dev), rid=f"{PKG}:id/sims", h=190)
        setting_switch(ui, "Airplane mode", "airplane", on_change=lambda v: set_airplane(dev, v))
        info_row(ui, "Hotspot & tethering", "Off")
        info_row(ui, "Data Saver", "Off")
        info_row(ui, "VPN", "None")
        info_row(ui, "Private DNS", "Automatic")

    def _sims(self, dev: Device) -> str:
        dev.push(SimsPage())
        return 'Open "SIMs" in Settings'


class SimsPage(Page):
    title = "SIMs"

    def content(self, ui: UI, dev: Device) -> None:
        ui.spacer(40)
        ui.text("No SIM card", h=110, size=52, rid=f"{PKG}:id/no_sim")
        ui.text("Insert a SIM card to use mobile data", h=80, size=38)
        ui.text("and roaming.", h=80, size=38)


class ConnectedDevicesPage(Page):
    title = "Connected devices"

    def content(self, ui: UI, dev: Device) -> None:
        s = dev.state.settings
        _in_settings(ui.row("Pair new device", on_tap=lambda: self._pair(dev), rid=f"{PKG}:id/pair_new_device"))
        setting_switch(ui, "Bluetooth", "bluetooth", "On" if s["bluetooth"] else "Off")
        info_row(ui, "Previously connected devices", "None")
        info_row(ui, "Connection preferences", "NFC, Android Auto")

    def _pair(self, dev: Device) -> str:
        on = dev.state.settings["bluetooth"]
        dev.toast("No nearby devices found" if on else "Turn on Bluetooth to pair a device")
        return 'Tap "Pair new device"'


class DisplayPage(Page):
    title = "Display"

    def content(self, ui: UI, dev: Device) -> None:
        s = dev.state.settings
        ui.text("Brightness level", h=100, size=44, rid=f"{PKG}:id/brightness_title")
        ui.slider(
            "Brightness level",
            s["brightness"],
            lambda level: s.__setitem__("brightness", level),
            rid="android:id/seekbar",
            step=SLIDER_STEP,
        )
        ui.spacer(30)
        setting_switch(
            ui,
            "Dark theme",
            "dark_theme",
            "Will never turn off automatically" if s["dark_theme"] else "Will never turn on automatically",
        )
        ui.row("Font size", s["font_size"], on_tap=lambda: self._font(dev), rid=f"{PKG}:id/font_size", h=190)
        setting_switch(ui, "Auto-rotate screen", "auto_rotate")
        info_row(ui, "Screen timeout", "After 30 seconds of inactivity")

    def _font(self, dev: Device) -> str:
        cur = dev.state.settings["font_size"]
        dev.open_dialog(MenuDialog("on_font", [(f, f) for f in FONT_SIZES], title="Font size", selected=cur))
        return 'Tap "Font size" in Settings'

    def on_font(self, dev: Device, value: str) -> str:
        dev.state.settings["font_size"] = value
        return f'Set the font size to "{value}" in Settings'


class BatteryPage(Page):
    title = "Battery"

    def content(self, ui: UI, dev: Device) -> None:
        ui.text("84%", h=140, size=72, rid=f"{PKG}:id/battery_percent")
        ui.text("About 1 day left", h=90, size=38)
        setting_switch(ui, "Battery Saver", "battery_saver")
        info_row(ui, "Battery usage", "View usage for past 24 hours")


class SoundPage(Page):
    title = "Sound & vibration"

    def content(self, ui: UI, dev: Device) -> None:
        info_row(ui, "Media volume", "60%")
        info_row(ui, "Ring volume", "80%")
        setting_switch(ui, "Do Not Disturb", "dnd", "On" if dev.state.settings["dnd"] else "Off")
        info_row(ui, "Phone ringtone", "Your new adventure")


class LocationPage(Page):
    title = "Location"

    def content(self, ui: UI, dev: Device) -> None:
        setting_switch(ui, "Use location", "location")
        info_row(ui, "Recent access", "Clock, Calendar")


class InfoPage(Page):
    """A read-only page: ``rows`` of (title, summary)."""

    def __init__(self, title: str) -> None:
        super().__init__()
        self.title = title

    def content(self, ui: UI, dev: Device) -> None:
        for title, summary in INFO.get(self.title, ()):
            info_row(ui, title, summary)
        if self.title == "Apps":
            for app in dev.apps.values():
                info_row(ui, app.label)


INFO: dict[str, tuple[tuple[str, str], ...]] = {
    "Apps": (("Default apps", "Assistant, browser, phone"),),
    "Notifications": (("App notifications", "All apps can send notifications"), ("Notification history", "Off")),
    "Storage": (("Used", "58.1 GB of 128 GB"), ("Apps", "21.4 GB"), ("Images", "12.0 GB"), ("System", "14.2 GB")),
    "Accessibility": (("Display size and text", "Font size, bold text"), ("TalkBack", "Off")),
    "Security & privacy": (("Screen lock", "PIN"), ("Google Play Protect", "Apps scanned today")),
    "System": (
        ("Languages", "English (United States)"),
        ("Date & time", "GMT-07:00 Pacific Daylight Time"),
        ("Backup", "On"),
    ),
    "About phone": (
        ("Device name", "Pixel 6"),
        ("Model", "Pixel 6"),
        ("Android version", "13"),
        ("Build number", "TQ3A.230805.001"),
    ),
}


def _network_summary(s: dict[str, Any]) -> str:
    if s["airplane"]:
        return "Airplane mode is on"
    return "AndroidWifi" if s["wifi"] else "Mobile, Wi-Fi, hotspot"


# (title, summary, page class or None for an InfoPage)
MAIN: tuple[tuple[str, Callable[[dict[str, Any]], str], type[Page] | None], ...] = (
    ("Network & internet", _network_summary, NetworkPage),
    ("Connected devices", lambda s: "Bluetooth on" if s["bluetooth"] else "Bluetooth, pairing", ConnectedDevicesPage),
    ("Apps", lambda s: "Assistant, recent apps, default apps", None),
    ("Notifications", lambda s: "Notification history, conversations", None),
    ("Battery", lambda s: "84% - Battery Saver on" if s["battery_saver"] else "84%", BatteryPage),
    ("Storage", lambda s: "45% used - 69.9 GB free", None),
    (
        "Sound & vibration",
        lambda s: "Do Not Disturb is on" if s["dnd"] else "Volume, haptics, Do Not Disturb",
        SoundPage,
    ),
    ("Display", lambda s: "Dark theme, font size, brightness", DisplayPage),
    ("Accessibility", lambda s: "Display, interaction, audio", None),
    ("Security & privacy", lambda s: "App security, device lock, permissions", None),
    ("Location", lambda s: "On - 2 apps have access to location" if s["location"] else "Off", LocationPage),
    ("System", lambda s: "Languages, gestures, time, backup", None),
    ("About phone", lambda s: "Pixel 6", None),
)
MAIN_TITLES = tuple(title for title, _, _ in MAIN)

#: What the search finds: (title, where it is, the page that holds it: a page class, or a title
#: of :data:`MAIN` whose page is an :class:`InfoPage`).
SEARCH_INDEX: tuple[tuple[str, str, type[Page] | str], ...] = (
    *((title, "Settings", page or title) for title, _, page in MAIN),
    ("Wi-Fi", "Network & internet", NetworkPage),
    ("SIMs", "Network & internet", NetworkPage),
    ("Airplane mode", "Network & internet", NetworkPage),
    ("Hotspot & tethering", "Network & internet", NetworkPage),
    ("Data Saver", "Network & internet", NetworkPage),
    ("VPN", "Network & internet", NetworkPage),
    ("Private DNS", "Network & internet", NetworkPage),
    ("Bluetooth", "Connected devices", ConnectedDevicesPage),
    ("Pair new device", "Connected devices", ConnectedDevicesPage),
    ("Brightness level", "Display", DisplayPage),
    ("Dark theme", "Display", DisplayPage),
    ("Font size", "Display", DisplayPage),
    ("Auto-rotate screen", "Display", DisplayPage),
    ("Screen timeout", "Display", DisplayPage),
    ("Battery Saver", "Battery", BatteryPage),
    ("Do Not Disturb", "Sound & vibration", SoundPage),
    ("Use location", "Location", LocationPage),
)


class SearchPage(Screen):
    """Search settings: a search field (``android:id/search_src_text``, focused when the page
    opens) beside Navigate up, and the settings whose title holds the query (case aside), each
    a row with where it is; tapping one opens its page."""

    title = "Search settings"

    def __init__(self) -> None:
        super().__init__()
        self.focus = "query"

    def screen_name(self) -> str:
        return self.title

    def build(self, ui: UI, dev: Device) -> None:
        y = ui.y
        ui.add(
            Node(
                "android.widget.ImageButton",
                (24, y + 17, 144, y + 137),
                desc="Navigate up",
                rid=f"{PKG}:id/search_back",
                on_tap=lambda: self._up(dev),
                role="icon",
                style="arrow_left",
            )
        )
        ui.x0 = 170
        ui.y = y + 2
        ui.field(self, "query", "Search settings", rid="android:id/search_src_text", label="Search settings")
        ui.x0 = PAD
        query = self.form.get("query", "").strip().lower()
        if not query:
            return
        hits = [entry for entry in SEARCH_INDEX if query in entry[0].lower()]

        def render(ui: UI, entry: tuple[str, str, type[Page] | str]) -> None:
            title, where, page = entry
            ui.row(title, where, on_tap=lambda: self._open(dev, title, page), h=MAIN_ROW_H, label=title)

        ui.scroll_list(self, "results", hits, render, item_h=MAIN_ROW_H, empty="No results", list_id="list_results")

    def _up(self, dev: Device) -> str:
        dev.state.keyboard = False
        return dev.press_back(described='Tap the "Navigate up" button')

    def _open(self, dev: Device, title: str, page: type[Page] | str) -> str:
        dev.push(InfoPage(page) if isinstance(page, str) else page())
        return f'Open "{title}" from the search results in Settings'


class SettingsHome(Screen):
    """The main list of setting categories."""

    def build(self, ui: UI, dev: Device) -> None:
        ui.toolbar("Settings", up=False)
        self._search_bar(ui, dev)
        s = dev.state.settings

        def render(ui: UI, entry: tuple[str, Callable[[dict[str, Any]], str], type[Page] | None]) -> None:
            title, summary, page = entry
            ui.row(
                title,
                summary(s),
                on_tap=lambda: self._open(dev, title, page),
                h=MAIN_ROW_H,
                label=title,
            )

        ui.scroll_list(self, "list", MAIN, render, item_h=MAIN_ROW_H, list_id="recycler_view")

    def _open(self, dev: Device, title: str, page: type[Page] | None) -> str:
        dev.push(page() if page is not None else InfoPage(title))
        return f'Open "{title}" in Settings'

    def _search_bar(self, ui: UI, dev: Device) -> None:
        """The "Search settings" bar above the list (Pixel's ``search_action_bar``)."""
        _, t, _, b = ui.rect(SEARCH_BAR_H)
        box = (PAD, t + 20, SCREEN_W - PAD, b - 20)
        x, top, bottom = box[0], box[1] + 20, box[3] - 20
        icon = Node(
            "android.widget.ImageView", (x + 30, top, x + 130, bottom), package=PKG, role="icon", style="search"
        )
        title = Node(
            "android.widget.TextView",
            (x + 160, top, box[2] - 30, bottom),
            "Search settings",
            rid=f"{PKG}:id/search_action_bar_title",
            package=PKG,
            role="subtext",
        )

        def search() -> str:
            dev.push(SearchPage())
            return 'Tap "Search settings" in Settings'

        bar = Node(
            "android.widget.Toolbar",
            box,
            rid=f"{PKG}:id/search_action_bar",
            package=PKG,
            on_tap=search,
            role="toolbar",
            label="Search settings",
            children=[icon, title],
        )
        ui.add(Node("android.widget.FrameLayout", box, rid=f"{PKG}:id/search_bar", children=[bar]))


class SettingsApp(App):
    name = "settings"
    label = "Settings"
    package = PKG
    activity = "com.android.settings.Settings"
    aliases = ("settings", "system settings")
    color = (95, 99, 104)
    icon = "settings"

    def initial_data(self) -> SettingsData:
        return SettingsData()

    def root(self, dev: Device) -> Screen:
        return SettingsHome()
