"""gui-gym's own Settings tasks (airplane mode, dark theme), a multi-setting hard task and an
infeasible one; AndroidWorld's Settings tasks are in :mod:`.androidworld`.

Success reads ``dev.state.settings``; the oracle walks the Settings pages like a person:
main list → category page → switch, Back to the main list between categories, and drags the
brightness slider with long swipes. The navigation helpers here serve both suites.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

import numpy as np

from gui_gym.android.sim.apps.settings.app import (
    MAIN_TITLES,
    ConnectedDevicesPage,
    DisplayPage,
    NetworkPage,
    Page,
    SettingsHome,
    SimsPage,
)
from gui_gym.android.sim.tasks.base import Milestone, Oracle, Params, TaskTemplate

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

# setting key -> (page, switch label)
SWITCHES: dict[str, tuple[type[Page], str]] = {
    "wifi": (NetworkPage, "Wi-Fi"),
    "airplane": (NetworkPage, "Airplane mode"),
    "bluetooth": (ConnectedDevicesPage, "Bluetooth"),
    "dark_theme": (DisplayPage, "Dark theme"),
    "auto_rotate": (DisplayPage, "Auto-rotate screen"),
}


def in_settings(dev: Device) -> bool:
    return dev.state.foreground == "settings" and not dev.state.recents_open


def opened(dev: Device, page: type[Page]) -> bool:
    """``page`` is on the Settings back stack."""
    return any(isinstance(s, page) for s in dev.state.stacks.get("settings", []))


def all_on(dev: Device, *keys: str) -> bool:
    return all(dev.state.settings[k] for k in keys)


def randomize(dev: Device, rng: np.random.Generator) -> None:
    """A lived-in phone: radios, theme and brightness drawn from the seed (airplane mode off)."""
    s = dev.state.settings
    s["wifi"], s["bluetooth"], s["dark_theme"], s["auto_rotate"] = (bool(rng.integers(2)) for _ in range(4))
    s["brightness"] = int(rng.integers(2, 19)) * 5
    s["airplane"] = False


def goto(o: Oracle, page: type[Page]) -> str | None:
    """From anywhere: the next action toward ``page`` in Settings; ``None`` once it is open."""
    if o.app != "settings":
        return o.launch("Settings")
    s = o.screen
    if isinstance(s, page) and s.dialog is None:
        return None
    if isinstance(s, SettingsHome) and s.dialog is None:
        title = page.title
        idx = MAIN_TITLES.index(title)
        act = o.reveal(
            lambda n: n.role == "row" and n.label == title,
            before=lambda r: r.label in MAIN_TITLES and MAIN_TITLES.index(r.label) < idx,
        )
        if act is not None:
            return act
        row, lst = o.find(role="row", label=title), o.find(role="list")
        if row.bounds[3] - row.bounds[1] < 120 and lst is not None:  # mostly hidden at an edge: bring it in
            return o.swipe("up" if row.bounds[3] >= lst.bounds[3] else "down", "short", within=lst)
        return o.tap(row)
    return o.back()


def set_switch(o: Oracle, key: str, value: bool) -> str | None:
    """The next action toward ``settings[key] == value``; ``None`` once it holds."""
    if o.dev.state.settings[key] == value:
        return None
    page, label = SWITCHES[key]
    return goto(o, page) or o.tap(o.find(role="switch", label=label))


def set_brightness(o: Oracle, level: int) -> str | None:
    """Drag the brightness slider to 0 or 100 with long swipes; ``None`` once it is there."""
    if o.dev.state.settings["brightness"] == level:
        return None
    act = goto(o, DisplayPage)
    if act is not None:
        return act
    bar = o.find(desc="Brightness level", role="slider")
    return o.swipe("right" if level > o.dev.state.settings["brightness"] else "left", "long", within=bar)


class SwitchTask(TaskTemplate):
    """Turn one switch on or off (the setting starts the other way)."""

    app = "settings"
    key: ClassVar[str] = ""
    value: ClassVar[bool] = True

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        randomize(dev, rng)
        dev.state.settings[self.key] = not self.value
        p["before"] = dict(dev.state.settings)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        s = dev.state.settings
        untouched = self.key == "airplane" or s["airplane"] == p["before"]["airplane"]
        return s[self.key] == self.value and untouched

    def oracle(self, o: Oracle) -> str:
        return set_switch(o, self.key, self.value) or o.finish()


def _switch_milestones(key: str, value: bool, goal: str) -> tuple[Milestone, ...]:
    page, _ = SWITCHES[key]
    return (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone(f'Open "{page.title}"', lambda d, p: opened(d, page) or d.state.settings[key] == value),
        Milestone(goal, lambda d, p: d.state.settings[key] == value),
    )


class SystemAirplaneModeOn(SwitchTask):
    id = "SystemAirplaneModeOn"
    template = "Turn on airplane mode."
    key, value = "airplane", True
    milestones = _switch_milestones("airplane", True, "Turn on Airplane mode")


class SystemDarkThemeOn(SwitchTask):
    id = "SystemDarkThemeOn"
    template = "Switch the phone to dark theme."
    key, value = "dark_theme", True
    milestones = _switch_milestones("dark_theme", True, "Turn on Dark theme")


class SystemMultiSettingSetup(TaskTemplate):
    id = "SystemMultiSettingSetup"
    app = "settings"
    difficulty = "hard"
    template = "Turn on Wi-Fi and Bluetooth, enable the dark theme and set the screen brightness to the maximum."
    milestones = (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone("Turn on Wi-Fi", lambda d, p: all_on(d, "wifi")),
        Milestone("Turn on Bluetooth", lambda d, p: all_on(d, "wifi", "bluetooth")),
        Milestone("Turn on Dark theme", lambda d, p: all_on(d, "wifi", "bluetooth", "dark_theme")),
        Milestone("Drag the brightness level to the maximum", lambda d, p: SystemMultiSettingSetup.done(d)),
    )

    @staticmethod
    def done(dev: Device) -> bool:
        return all_on(dev, "wifi", "bluetooth", "dark_theme") and dev.state.settings["brightness"] == 100

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        randomize(dev, rng)
        dev.state.settings.update(wifi=False, bluetooth=False, dark_theme=False)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return self.done(dev) and not dev.state.settings["airplane"]

    def oracle(self, o: Oracle) -> str:
        return (
            set_switch(o, "wifi", True)
            or set_switch(o, "bluetooth", True)
            or set_switch(o, "dark_theme", True)
            or set_brightness(o, 100)
            or o.finish()
        )


class SystemRoaming5GInfeasible(TaskTemplate):
    id = "SystemRoaming5GInfeasible"
    app = "settings"
    kind = "infeasible"
    template = "Turn on 5G roaming for my mobile network in Settings."
    milestones = (
        Milestone("Open the Settings app", lambda d, p: in_settings(d)),
        Milestone('Open "Network & internet"', lambda d, p: opened(d, NetworkPage)),
        Milestone('Open "SIMs" and see that no SIM card is inserted', lambda d, p: opened(d, SimsPage)),
    )

    def setup(self, dev: Device, p: Params, rng: np.random.Generator) -> None:
        randomize(dev, rng)
        p["before"] = dict(dev.state.settings)

    def check(self, dev: Device, p: Params, answer: str | None, status: str | None) -> bool:
        return dev.state.settings == p["before"]

    def oracle(self, o: Oracle) -> str:
        if opened(o.dev, SimsPage) and o.app == "settings":
            return o.infeasible()
        if isinstance(o.screen, NetworkPage) and o.dialog is None:
            return o.tap(o.find(role="row", label="SIMs"))
        return goto(o, NetworkPage) or o.infeasible()


#: AndroidWorld's SystemWifiTurnOn/Off, SystemBluetoothTurnOn/Off, SystemBrightnessMax/Min and
#: TurnOffWifiAndTurnOnBluetooth, once gui-gym tasks of their own, are AndroidWorld's now (.androidworld).
TEMPLATES: tuple[type[TaskTemplate], ...] = (
    SystemAirplaneModeOn,
    SystemDarkThemeOn,
    SystemMultiSettingSetup,
    SystemRoaming5GInfeasible,
)
