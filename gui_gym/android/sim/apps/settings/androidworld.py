"""AndroidWorld's Settings tasks (``task_evals/single/system.py``, ``composite/system.py``).

Wi-Fi, Bluetooth and brightness tasks, each in two forms: the plain one starts with the setting
the other way (``SystemWifiTurnOn`` starts with Wi-Fi off), the ``…Verify`` one starts with it
already as asked (nothing needs doing: AndroidWorld judges the state, so finishing at once
succeeds). Their goals and parameters are fixed (``on_or_off``, ``max_or_min``): every subclass
overrides the random draw of its base. ``TurnOffWifiAndTurnOnBluetooth`` scores the mean of
its two parts. ``SystemCopyToClipboard`` asks for one of 36 texts on the clipboard, which starts
holding ``~~~RESET~~~``. ``OpenAppTaskEval`` asks to open one of five apps (camera, clock,
contacts, settings, dialer) and clear the pop-ups (the camera's permission dialogs on its first
start); ``TurnOnWifiAndOpenApp`` asks for Wi-Fi first and scores the mean of its two parts.

Checks read what AndroidWorld reads over adb, through the shared key table
(:mod:`gui_gym.android.settings_keys`): ``settings get global wifi_on`` in ``1``/``2`` for on,
``0`` for off; ``settings get global bluetooth_on`` equal to ``1``/``0``;
``int(settings get system screen_brightness)`` equal to 255 or 1; the clipboard fuzzy-matched
(``fuzzy_match_lib``) to the text; the package of the activity in front (``am stack list``'s
``topActivity``: the permission controller's while its dialog shows) equal to the app's.

The oracle acts in Settings: it switches the setting on its page or drags the brightness
slider to the end; for a ``…Verify`` task it opens the page, sees the setting as asked, and
finishes. To copy a text it types it into Settings' search field, long-presses the field, taps
"Select all", then "Copy" (:mod:`gui_gym.android.sim.tasks.clipboard`). To open an app it launches
it and taps "While using the app" on each permission dialog.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, ClassVar

from gui_gym.android.settings_keys import ANDROID_KEYS, from_android, to_android
from gui_gym.android.sim.apps.settings.app import (
    ConnectedDevicesPage,
    DisplayPage,
    NetworkPage,
    Page,
    SearchPage,
    SettingsHome,
)
from gui_gym.android.sim.apps.settings.tasks import goto, in_settings, opened, set_brightness, set_switch
from gui_gym.android.sim.permissions import BUTTONS, GrantPermissions, top_activity
from gui_gym.android.sim.tasks.androidworld import AndroidWorldTask, fuzzy_match
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, in_app
from gui_gym.android.sim.tasks.clipboard import copy_field

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

_BY_ANDROID_KEY = {key: name for (_, key), name in ANDROID_KEYS.items()}
#: AndroidWorld's ``settings put system screen_brightness`` values (``adb_utils.set_brightness``)
BRIGHTNESS = {"max": 255, "min": 1}
#: ``SystemCopyToClipboard.generate_random_params``: the texts, in AndroidWorld's order (data)
CLIPBOARD_TEXTS: tuple[str, ...] = (
    "1234 Elm St, Springfield, IL",
    "Acme Corp, Suite 200",
    "john.doe@example.com",
    "Jane's Flower Shop",
    "Call me at 555-1234",
    "Order No: A123456",
    "Reservation under: Jane",
    "Discount code: SAVE20",
    "Membership ID: XYZ789",
    "Invoice #98765",
    "Tracking #: 1Z204E2A",
    "Transaction ID: abc123",
    "9876 Pine Ave, Riverside, CA",
    "Global Tech, Floor 3",
    "jane.smith@example.com",
    "Mike's Grocery Store",
    "Text me at 555-6789",
    "Order No: B654321",
    "Reservation under: Mike",
    "Promo code: DEAL30",
    "Membership ID: ABC123",
    "Invoice #54321",
    "Tracking #: 3H488Y2B",
    "Transaction ID: def456",
    "2554 Oak Street, Boston, MA",
    "Innovate Inc, Room 10",
    "alex.jordan@example.net",
    "Sara's Bakery",
    "Reach out at 555-9101",
    "Order No: C987654",
    "Reservation under: Sara",
    "Coupon code: OFF50",
    "Membership ID: LMN456",
    "Invoice #32198",
    "Tracking #: 5K672F4C",
    "Transaction ID: ghi789",
)
CLIPBOARD_RESET = "~~~RESET~~~"  # what AndroidWorld puts on the clipboard first


def android_setting(dev: Device, key: str) -> str:
    """What ``adb shell settings get <namespace> <key>`` prints on this phone, stripped."""
    name = _BY_ANDROID_KEY[key]
    return to_android(name, dev.state.settings[name])


def wifi_score(dev: Device, on_or_off: str) -> float:
    """``_SystemWifiToggle.is_successful``: on is ``wifi_on`` 1 or 2 (2: on in airplane mode)."""
    status = android_setting(dev, "wifi_on")
    return float(status in ("1", "2") if on_or_off == "on" else status == "0")


def bluetooth_score(dev: Device, on_or_off: str) -> float:
    """``_SystemBluetoothToggle.is_successful``: ``bluetooth_on`` is exactly 1 (on) or 0 (off)."""
    return float(android_setting(dev, "bluetooth_on") == ("1" if on_or_off == "on" else "0"))


def brightness_score(dev: Device, max_or_min: str) -> float:
    """``_SystemBrightnessToggle.is_successful``: ``screen_brightness`` is exactly 255 or 1."""
    return float(int(android_setting(dev, "screen_brightness")) == BRIGHTNESS[max_or_min])


def set_brightness_end(dev: Device, max_or_min: str) -> None:
    """``adb_utils.set_brightness``: ``settings put system screen_brightness 255|1``."""
    dev.state.settings["brightness"] = from_android("brightness", str(BRIGHTNESS[max_or_min]))


def look_at(o: Oracle, page: type[Page]) -> str:
    """A ``…Verify`` task's expert: open ``page``, see the setting is as asked, finish."""
    return goto(o, page) or o.finish()


# ----------------------------------------------------------------------------- toggles


class _SystemToggle(AndroidWorldTask):
    """One of AndroidWorld's system toggles; ``start`` is the value its set-up writes."""

    app = "settings"
    apps = ("settings",)
    difficulty = "easy"
    optimal_steps = 2
    tags: ClassVar[tuple[str, ...]] = ("",)
    param: ClassVar[str] = "on_or_off"
    value: ClassVar[str] = "on"
    start: ClassVar[str] = "off"
    page: ClassVar[type[Page]] = NetworkPage

    def generate(self, r: random.Random) -> Params:
        return {self.param: self.value}  # each registered task overrides its base's random draw

    @property
    def verify(self) -> bool:
        return self.start == self.value


class _WifiToggle(_SystemToggle):
    template = "Turn wifi {on_or_off}."
    optimal_steps = 3
    page = NetworkPage

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.settings["wifi"] = self.start == "on"  # adb_utils.toggle_wifi: svc wifi enable|disable

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return wifi_score(dev, params["on_or_off"]) == 1.0

    def oracle(self, o: Oracle) -> str:
        if self.verify:
            return look_at(o, self.page)
        return set_switch(o, "wifi", self.value == "on") or o.finish()


class _BluetoothToggle(_SystemToggle):
    template = "Turn bluetooth {on_or_off}."
    page = ConnectedDevicesPage

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.settings["bluetooth"] = self.start == "on"  # svc bluetooth enable|disable

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return bluetooth_score(dev, params["on_or_off"]) == 1.0

    def oracle(self, o: Oracle) -> str:
        if self.verify:
            return look_at(o, self.page)
        return set_switch(o, "bluetooth", self.value == "on") or o.finish()


class _BrightnessToggle(_SystemToggle):
    template = "Turn brightness to the {max_or_min} value."
    optimal_steps = 3
    param = "max_or_min"
    page = DisplayPage

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        set_brightness_end(dev, self.start)

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return brightness_score(dev, params["max_or_min"]) == 1.0

    def oracle(self, o: Oracle) -> str:
        if self.verify:
            return look_at(o, self.page)
        return set_brightness(o, 100 if self.value == "max" else 0) or o.finish()


def _milestones(page: type[Page], goal: str, key: str, value: str) -> tuple[Milestone, ...]:
    """Open Settings, open ``page``, then ``goal`` (Android's setting ``key`` reads ``value``)."""

    def reached(d: Device, p: Params) -> bool:
        return android_setting(d, key) == value

    return (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone(f'Open "{page.title}"', lambda d, p: opened(d, page) or reached(d, p)),
        Milestone(goal, reached),
    )


def _verify_milestones(page: type[Page], goal: str) -> tuple[Milestone, ...]:
    """Open Settings, then open ``page`` and see the setting is already as asked."""
    return (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone(goal, lambda d, p: opened(d, page) and d.state.foreground == "settings"),
    )


class SystemWifiTurnOn(_WifiToggle):
    id = "SystemWifiTurnOn"
    tags = ("screen_reading",)
    value, start = "on", "off"
    milestones = _milestones(NetworkPage, "Turn on Wi-Fi", "wifi_on", "1")


class SystemWifiTurnOnVerify(_WifiToggle):
    id = "SystemWifiTurnOnVerify"
    tags = ("verification",)
    value, start = "on", "on"
    milestones = _verify_milestones(NetworkPage, 'Open "Network & internet" and see that Wi-Fi is on')


class SystemWifiTurnOff(_WifiToggle):
    id = "SystemWifiTurnOff"
    tags = ("screen_reading",)
    value, start = "off", "on"
    milestones = _milestones(NetworkPage, "Turn off Wi-Fi", "wifi_on", "0")


class SystemWifiTurnOffVerify(_WifiToggle):
    id = "SystemWifiTurnOffVerify"
    tags = ("verification",)
    value, start = "off", "off"
    milestones = _verify_milestones(NetworkPage, 'Open "Network & internet" and see that Wi-Fi is off')


class SystemBluetoothTurnOn(_BluetoothToggle):
    id = "SystemBluetoothTurnOn"
    tags = ("screen_reading",)
    value, start = "on", "off"
    milestones = _milestones(ConnectedDevicesPage, "Turn on Bluetooth", "bluetooth_on", "1")


class SystemBluetoothTurnOnVerify(_BluetoothToggle):
    id = "SystemBluetoothTurnOnVerify"
    tags = ("verification",)
    value, start = "on", "on"
    milestones = _verify_milestones(ConnectedDevicesPage, 'Open "Connected devices" and see that Bluetooth is on')


class SystemBluetoothTurnOff(_BluetoothToggle):
    id = "SystemBluetoothTurnOff"
    value, start = "off", "on"
    milestones = _milestones(ConnectedDevicesPage, "Turn off Bluetooth", "bluetooth_on", "0")


class SystemBluetoothTurnOffVerify(_BluetoothToggle):
    id = "SystemBluetoothTurnOffVerify"
    tags = ("verification",)
    value, start = "off", "off"
    milestones = _verify_milestones(ConnectedDevicesPage, 'Open "Connected devices" and see that Bluetooth is off')


class SystemBrightnessMax(_BrightnessToggle):
    id = "SystemBrightnessMax"
    value, start = "max", "min"
    milestones = _milestones(DisplayPage, "Drag the brightness level to the maximum", "screen_brightness", "255")


class SystemBrightnessMaxVerify(_BrightnessToggle):
    id = "SystemBrightnessMaxVerify"
    optimal_steps = 2
    tags = ("verification",)
    value, start = "max", "max"
    milestones = _verify_milestones(DisplayPage, 'Open "Display" and see that the brightness is at the maximum')


class SystemBrightnessMin(_BrightnessToggle):
    id = "SystemBrightnessMin"
    value, start = "min", "max"
    milestones = _milestones(DisplayPage, "Drag the brightness level to the minimum", "screen_brightness", "1")


class SystemBrightnessMinVerify(_BrightnessToggle):
    id = "SystemBrightnessMinVerify"
    tags = ("verification",)
    value, start = "min", "min"
    milestones = _verify_milestones(DisplayPage, 'Open "Display" and see that the brightness is at the minimum')


# ----------------------------------------------------------------------------- composite


def _wifi_off(dev: Device) -> bool:
    return wifi_score(dev, "off") == 1.0


def _bt_on(dev: Device) -> bool:
    return bluetooth_score(dev, "on") == 1.0


class TurnOffWifiAndTurnOnBluetooth(AndroidWorldTask):
    """Composite: ``SystemWifiTurnOff``'s set-up (Wi-Fi on), then ``SystemBluetoothTurnOn``'s
    (Bluetooth off); the score is the mean of the two checks."""

    id = "TurnOffWifiAndTurnOnBluetooth"
    app = "settings"
    apps = ("settings",)
    difficulty = "medium"
    optimal_steps = 5
    tags: ClassVar[tuple[str, ...]] = ("",)
    template = "Turn off WiFi, then enable bluetooth"
    milestones = (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone("Turn off Wi-Fi", lambda d, p: _wifi_off(d)),
        Milestone(
            'Open "Connected devices"', lambda d, p: _wifi_off(d) and (opened(d, ConnectedDevicesPage) or _bt_on(d))
        ),
        Milestone("Turn on Bluetooth", lambda d, p: _wifi_off(d) and _bt_on(d)),
    )

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.settings["wifi"] = True
        dev.state.settings["bluetooth"] = False

    def score(self, dev: Device, params: Params, answer: str | None, status: str | None) -> float:
        return (wifi_score(dev, "off") + bluetooth_score(dev, "on")) / 2.0

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.score(dev, params, answer, status) == 1.0

    def oracle(self, o: Oracle) -> str:
        return set_switch(o, "wifi", False) or set_switch(o, "bluetooth", True) or o.finish()


# ----------------------------------------------------------------------------- clipboard


def _typed(dev: Device, text: str) -> bool:
    """Some text field of a running app holds ``text``."""
    for stack in dev.state.stacks.values():
        for screen in stack:
            for host in (screen, screen.dialog):
                if host is not None and any(v.strip() == text for v in host.form.values()):
                    return True
    return False


def _copied(dev: Device, params: Params) -> bool:
    """``SystemCopyToClipboard.is_successful``: the clipboard fuzzy-matches the text."""
    return fuzzy_match(params["clipboard_content"], dev.state.clipboard)


class SystemCopyToClipboard(AndroidWorldTask):
    """Put a given text on the clipboard (AndroidWorld's ``app_names`` is its clipper helper;
    here any text field will do: the oracle types it into Settings' search)."""

    id = "SystemCopyToClipboard"
    app = "settings"
    apps = ("settings",)
    difficulty = "easy"
    optimal_steps = 2
    tags: ClassVar[tuple[str, ...]] = ("data_entry", "parameterized")
    template = "Copy the following text to the clipboard: {clipboard_content}"
    placeholders: ClassVar[dict[str, str]] = {"Text": "clipboard_content"}
    milestones = (
        Milestone('Type "<Text>" into a text field', lambda d, p: _typed(d, p["clipboard_content"]) or _copied(d, p)),
        Milestone('Copy "<Text>" to the clipboard', lambda d, p: _copied(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        return {"clipboard_content": r.choice(CLIPBOARD_TEXTS)}

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.clipboard = CLIPBOARD_RESET  # adb_utils.set_clipboard_contents through clipper

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return _copied(dev, params)

    def oracle(self, o: Oracle) -> str:
        text = o.p["clipboard_content"]
        if fuzzy_match(text, o.dev.state.clipboard):
            return o.finish()
        if o.app != "settings":
            return o.launch("Settings")
        if o.on(SettingsHome):
            return o.tap(o.find(rid="search_action_bar"))
        if not o.on(SearchPage):
            return o.back()
        return o.fill("Search settings", text) or copy_field(o, "Search settings") or o.back()


# ----------------------------------------------------------------------------- opening apps

#: ``system._APP_NAME_TO_PACKAGE_NAME``, in its order (``OpenAppTaskEval`` draws from it): the app
#: name in the goal -> the package its check wants in front
APP_PACKAGES: dict[str, str] = {
    "camera": "com.android.camera2",
    "clock": "com.google.android.deskclock",
    "contacts": "com.google.android.contacts",
    "settings": "com.android.settings",
    "dialer": "com.google.android.dialer",
}
#: the goal's app name -> the phone's app
APPS_BY_NAME: dict[str, str] = {name: name for name in APP_PACKAGES}  # the phone's apps have these names
_ALLOW = BUTTONS[0][0]  # the grant dialog's "While using the app"


def open_app_score(dev: Device, app_name: str) -> float:
    """``OpenAppTaskEval.is_successful``: the package of the current activity (``adb_utils.
    get_current_activity``: the visible task's ``topActivity`` in ``am stack list``) is the app's.
    A permission dialog in front is the permission controller's activity: not the app."""
    return float(top_activity(dev).split("/", 1)[0] == APP_PACKAGES[app_name])


def _opened(d: Device, p: Params) -> bool:
    return in_app(d, APPS_BY_NAME[p["app_name"]])


def _cleared(d: Device, p: Params) -> bool:
    return open_app_score(d, p["app_name"]) == 1.0


def open_app(o: Oracle, app_name: str) -> str:
    """Launch the app; grant what a permission dialog in front asks ("While using the app");
    finish once the app itself is in front."""
    if open_app_score(o.dev, app_name) == 1.0:
        return o.finish()
    app = APPS_BY_NAME[app_name]
    if o.app == app and isinstance(o.screen, GrantPermissions):
        return o.tap(o.find(rid=_ALLOW))
    return o.launch(o.dev.apps[app].label)


class OpenAppTaskEval(AndroidWorldTask):
    """Open one of five apps, clearing the permission pop-ups it shows (the camera asks for the
    camera and the microphone on its first start: AndroidWorld's set-up does not grant them)."""

    id = "OpenAppTaskEval"
    app = "settings"
    apps = ("camera", "clock", "contacts", "settings", "dialer")
    difficulty = "easy"
    optimal_steps = 2
    tags: ClassVar[tuple[str, ...]] = ("parameterized",)
    template = (
        "Open the {app_name} app. Clear any pop-ups that may appear by granting all permissions that are required."
    )
    placeholders: ClassVar[dict[str, str]] = {"App": "app_name"}
    milestones = (
        Milestone("Open the <App> app", _opened),
        Milestone("Clear any permission pop-ups over the <App> app", _cleared),
    )

    def generate(self, r: random.Random) -> Params:
        return {"app_name": r.choice(list(APP_PACKAGES))}

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return open_app_score(dev, params["app_name"]) == 1.0

    def oracle(self, o: Oracle) -> str:
        return open_app(o, o.p["app_name"])


def _wifi_on(d: Device) -> bool:
    return wifi_score(d, "on") == 1.0


class TurnOnWifiAndOpenApp(AndroidWorldTask):
    """Composite: ``SystemWifiTurnOn``'s set-up (Wi-Fi off), then ``OpenAppTaskEval``'s (nothing);
    the score is the mean of the two checks."""

    id = "TurnOnWifiAndOpenApp"
    app = "settings"
    apps = ("settings", "camera", "clock", "contacts", "dialer")
    difficulty = "easy"
    optimal_steps = 4
    tags: ClassVar[tuple[str, ...]] = ("parameterized",)
    template = "Turn on Wifi, then open the {app_name} app"
    placeholders: ClassVar[dict[str, str]] = {"App": "app_name"}
    milestones = (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone("Turn on Wi-Fi", lambda d, p: _wifi_on(d)),
        Milestone("Open the <App> app", lambda d, p: _wifi_on(d) and _opened(d, p)),
        Milestone("Clear any permission pop-ups over the <App> app", lambda d, p: _wifi_on(d) and _cleared(d, p)),
    )

    def generate(self, r: random.Random) -> Params:
        return OpenAppTaskEval().generate(r)

    def initialize(self, dev: Device, params: Params, r: random.Random) -> None:
        dev.state.settings["wifi"] = False  # SystemWifiTurnOn's set-up: svc wifi disable

    def score(self, dev: Device, params: Params, answer: str | None, status: str | None) -> float:
        return (wifi_score(dev, "on") + open_app_score(dev, params["app_name"])) / 2.0

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        return self.score(dev, params, answer, status) == 1.0

    def oracle(self, o: Oracle) -> str:
        return set_switch(o, "wifi", True) or open_app(o, o.p["app_name"])


TEMPLATES = (
    SystemBluetoothTurnOff,
    SystemBluetoothTurnOffVerify,
    SystemBluetoothTurnOn,
    SystemBluetoothTurnOnVerify,
    SystemBrightnessMax,
    SystemBrightnessMaxVerify,
    SystemBrightnessMin,
    SystemBrightnessMinVerify,
    SystemCopyToClipboard,
    SystemWifiTurnOff,
    SystemWifiTurnOffVerify,
    SystemWifiTurnOn,
    SystemWifiTurnOnVerify,
    TurnOffWifiAndTurnOnBluetooth,
    OpenAppTaskEval,
    TurnOnWifiAndOpenApp,
)
