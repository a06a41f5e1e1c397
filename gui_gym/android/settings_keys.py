"""Android's ``settings`` keys of the simulated phone's settings, and their values both ways.

``adb shell settings get global wifi_on`` answers ``1`` on a phone whose Wi-Fi is on; the
simulator keeps ``settings["wifi"] = True``. This table is what both sides of the adb bridge
share: the simulated phone's shell answers ``settings get|put`` with it, and the adb backend reads
a device's settings into a simulator state with it, so the simulator's own success checks judge
a real device.

>>> to_android("brightness", 100), to_android("brightness", 0), from_android("brightness", "1")
('255', '1', 0)
>>> [key for key, setting in ANDROID_KEYS.items() if setting == "wifi"]
[('global', 'wifi_on')]
"""

from __future__ import annotations

from typing import Any

__all__ = ["ANDROID_KEYS", "from_android", "to_android"]

#: (namespace, key) -> the simulator's setting.
ANDROID_KEYS: dict[tuple[str, str], str] = {
    ("global", "wifi_on"): "wifi",
    ("global", "bluetooth_on"): "bluetooth",
    ("global", "airplane_mode_on"): "airplane",
    ("system", "screen_brightness"): "brightness",
    ("secure", "ui_night_mode"): "dark_theme",
    ("system", "accelerometer_rotation"): "auto_rotate",
    ("global", "low_power"): "battery_saver",
    ("global", "zen_mode"): "dnd",
    ("secure", "location_mode"): "location",
}
_BOOLS = {"wifi", "bluetooth", "airplane", "auto_rotate", "battery_saver", "dnd"}


def to_android(setting: str, value: Any) -> str:
    """The simulator's *value* of *setting* as Android's ``settings get`` prints it."""
    if setting in _BOOLS:
        return "1" if value else "0"
    if setting == "brightness":  # 0-100% on the slider; screen_brightness 1 (minimum) to 255 (maximum)
        return str(1 + round(max(0, min(100, int(value))) * 254 / 100))
    if setting == "dark_theme":  # UiModeManager: 1 no, 2 yes
        return "2" if value else "1"
    if setting == "location":  # Settings.Secure.LOCATION_MODE: 0 off, 3 high accuracy
        return "3" if value else "0"
    return str(value)


def from_android(setting: str, text: str) -> Any:
    """Android's *text* of *setting* as the simulator's value (ValueError when it is none)."""
    text = text.strip()
    if setting in _BOOLS:
        return text not in ("0", "false", "null", "")
    if setting == "brightness":  # the slider's position of that level (each percent a level of its own)
        return max(0, min(100, round((int(text) - 1) * 100 / 254)))
    if setting == "dark_theme":
        return text == "2"
    if setting == "location":
        return text not in ("0", "null", "")
    return text
