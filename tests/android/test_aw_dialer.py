"""The Phone app (Google's dialer) on the simulated phone: its tabs, the dial pad, a call."""

from __future__ import annotations

import pytest

from gui_gym.android.actions import parse_action
from gui_gym.android.sim.apps.contacts.app import Contact, ContactDetail, ContactEditor
from gui_gym.android.sim.apps.dialer.app import PKG, DialerMain, InCallScreen, format_number
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.permissions import top_activity

KEY_IDS = dict(
    zip(
        "1234567890*#",
        ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "zero", "star", "pound"),
        strict=True,
    )
)


def _act(dev: Device, text: str) -> str:
    out = dev.act(parse_action(text))
    assert out.valid, out.description
    return out.description


def _tap(dev: Device, **match: str) -> str:
    node = next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in match.items()))
    l, t, r, b = node.bounds
    return _act(dev, f'do(action="Tap", element=[{l},{t},{r},{b}])')


def _node(dev: Device, rid: str):
    return next(n for n in dev.elements() if n.rid == f"{PKG}:id/{rid}")


def _dialer() -> Device:
    dev = Device()
    _act(dev, 'do(action="Launch", app="dialer")')
    return dev


def test_the_main_screen_has_the_tabs_and_the_key_pad_button() -> None:
    dev = _dialer()
    assert top_activity(dev) == f"{PKG}/com.google.android.dialer.extensions.GoogleDialtactsActivity"
    tabs = {n.rid.split("/")[-1]: (n.desc, n.selected) for n in dev.elements() if n.role == "tab" and n.desc}
    assert tabs == {
        "tab_speed_dial": ("Favorites", True),
        "tab_call_history": ("Recents", False),
        "tab_contacts": ("Contacts", False),
    }
    assert _node(dev, "dialpad_fab").desc == "key pad"
    assert "Search contacts & places" in [n.text for n in dev.elements()]


def test_the_dial_pad_types_formats_deletes_and_calls() -> None:
    dev = _dialer()
    _tap(dev, desc="key pad")
    keys = {n.rid.split("/")[-1]: n.desc for n in dev.elements() if n.rid.split("/")[-1] in KEY_IDS.values()}
    assert keys["two"] == "2,ABC" and keys["seven"] == "7,PQRS" and keys["zero"] == "0" and keys["pound"] == "#"
    for digit in "5551234567":
        _tap(dev, rid=f"{PKG}:id/{KEY_IDS[digit]}")
    assert _node(dev, "digits").text == "(555) 123-4567"
    _tap(dev, desc="backspace")
    assert _node(dev, "digits").text == "(555) 123-456"
    _tap(dev, rid=f"{PKG}:id/seven")
    _tap(dev, desc="dial")
    assert isinstance(dev.top_screen(), InCallScreen)
    assert _node(dev, "contactgrid_contact_name").text == "(555) 123-4567"
    assert top_activity(dev) == f"{PKG}/com.android.incallui.InCallActivity"
    _act(dev, 'do(action="Wait")')
    _tap(dev, desc="End call")
    (call,) = dev.data("dialer").calls
    assert (call.number, call.duration) == ("5551234567", 1)  # 1 s past the 3 s of ringing
    assert isinstance(dev.top_screen(), DialerMain)
    _tap(dev, desc="Recents")
    assert "(555) 123-4567" in [n.text for n in dev.elements()]
    _tap(dev, desc="key pad")
    _tap(dev, desc="dial")  # no number: the last one comes back
    assert _node(dev, "digits").text == "(555) 123-4567"
    _act(dev, 'do(action="Back")')  # closes the dial pad
    assert not dev.top_screen().dialpad and dev.state.foreground == "dialer"


def test_the_contacts_tab_lists_the_contacts_apps_contacts() -> None:
    dev = Device()
    db = dev.data("contacts")
    db.add(Contact("Zoe", "Ali", phone="+15550001111"))
    db.add(Contact("Adam", "Chen", phone="+15550002222", starred=True))
    _act(dev, 'do(action="Launch", app="Phone")')
    assert "Adam Chen" in [n.text for n in dev.elements()]  # a favourite
    _tap(dev, desc="Contacts")
    names = [n.text for n in dev.elements() if n.rid == f"{PKG}:id/contact_name" or n.role == "text"]
    assert names.index("Create new contact") < names.index("Adam Chen") < names.index("Zoe Ali")
    _tap(dev, text="Zoe Ali")
    assert dev.state.foreground == "contacts" and isinstance(dev.top_screen(), ContactDetail)
    _act(dev, 'do(action="Launch", app="Phone")')
    _tap(dev, text="Create new contact")
    assert dev.state.foreground == "contacts" and isinstance(dev.top_screen(), ContactEditor)
    _act(dev, 'do(action="Launch", app="Phone")')
    _tap(dev, desc="Favorites")
    _tap(dev, text="Adam Chen")
    assert isinstance(dev.top_screen(), InCallScreen)
    assert _node(dev, "contactgrid_contact_name").text == "Adam Chen"


@pytest.mark.parametrize(
    "digits, shown",
    [
        ("", ""),
        ("5", "5"),
        ("5551", "555-1"),
        ("5551234", "555-1234"),
        ("55512345", "(555) 123-45"),
        ("5551234567", "(555) 123-4567"),
        ("55512345678", "55512345678"),
        ("15551234567", "1 555-123-4567"),
        ("+15551234567", "+1 555-123-4567"),
        ("*#06#", "*#06#"),
    ],
)
def test_numbers_are_formatted_as_typed(digits: str, shown: str) -> None:
    assert format_number(digits) == shown
