"""Bad input is a reported no-op: format_valid False, a reason, a step spent, and no state change."""

from __future__ import annotations

from typing import Any

import pytest
from _util import find_el, index_of, make, screen_key, state_key, tap

from gui_gym.android.actions import MAX_TEXT, Action
from gui_gym.android.forest import element_box
from gui_gym.android.sim.widgets import MAX_FIELD_CHARS

LAUNCH = 'do(action="Launch", app="Contacts")'


def _fab(info: dict) -> str:
    return tap(find_el(info, content_description="Create contact"))


# Named start states, as the actions that reach them from reset (callables get the last info).
SETUPS: dict[str, list[Any]] = {
    "home": [],
    "contacts": [LAUNCH],
    "editor": [LAUNCH, _fab],  # new-contact form, "First name" focused, keyboard up
    # "First name" holds "Ann" and keeps the focus: MobileRL's Type (no Enter, no clear).
    "typed": [LAUNCH, _fab, Action("type", text="Ann", clear=False, enter=False)],
}


def _row_index(info: dict) -> dict:
    # The first contact's name: a leaf of its row (AndroidWorld's list keeps leaves, not rows).
    name = next(
        e for e in info["ui_elements"] if e.class_name == "android.widget.TextView" and e.bbox_pixels.y_min > 400
    )
    return {"action_type": "input_text", "index": index_of(info, name), "text": "hello"}


def _title_tap(info: dict) -> str:
    return tap(find_el(info, class_name="android.widget.TextView", text="Contacts"))


def _long_press_fab(info: dict) -> str:
    e = find_el(info, content_description="Create contact")
    return f'do(action="Long Press", element=[{",".join(map(str, element_box(e)))}])'


CASES: list[tuple[str, str, Any, str]] = [
    # (id, setup, action, substring of the reason (lower case))
    ("tap-outside-screen", "home", 'do(action="Tap", element=[1100,2500,1200,2600])', "outside"),
    ("tap-outside-negative-point", "contacts", {"action_type": "click", "x": -5, "y": 100}, "outside"),
    ("tap-outside-below", "contacts", {"action_type": "click", "x": 500, "y": 2400}, "outside"),
    ("tap-empty-launcher", "home", 'do(action="Tap", element=[500,1700,580,1900])', "nothing clickable"),
    ("tap-status-bar", "contacts", {"action_type": "click", "x": 540, "y": 40}, "nothing clickable"),
    ("tap-toolbar-title", "contacts", _title_tap, "nothing clickable"),
    ("tap-keyboard-header", "editor", {"action_type": "click", "x": 300, "y": 1560}, "nothing clickable"),
    ("long-press-button", "contacts", _long_press_fab, "long"),
    ("long-press-launcher", "home", {"action_type": "long_press", "x": 540, "y": 1800}, "long"),
    ("type-no-focus", "contacts", 'do(action="Type", text="hello")', "focus"),
    ("type-on-home", "home", 'do(action="Type", text="hello")', "focus"),
    ("type-empty", "editor", 'do(action="Type", text="")', "nothing"),
    ("launch-unknown-close", "home", 'do(action="Launch", app="Contcts")', "contacts"),
    ("launch-unknown-far", "contacts", {"action_type": "open_app", "app_name": "Quantum Toaster"}, "installed"),
    ("type-too-long-unicode", "editor", Action("type", text="é☕" * (MAX_FIELD_CHARS // 2 + 1)), "at most"),
    ("type-overflows-field", "typed", Action("type", text="x" * (MAX_FIELD_CHARS - 2), clear=False), "at most"),
    ("type-over-parser-limit", "editor", 'do(action="Type", text="' + "x" * (MAX_TEXT + 1) + '")', "limit"),
    ("type-nul", "editor", 'do(action="Type", text="abc\\x00def")', "characters"),
    ("type-escape-seq", "editor", 'do(action="Type", text="\\x1b[31mred")', "characters"),
    ("type-bell", "typed", {"action_type": "input_text", "text": "a\x07"}, "characters"),
    ("type-surrogate", "editor", Action("type", text="a\ud800b"), "characters"),
    ("type-newline-single-line", "editor", 'do(action="Type", text="two\\nlines")', "single-line"),
    ("input-text-not-a-field", "contacts", _row_index, "text field"),
    ("index-out-of-range", "contacts", {"action_type": "click", "index": 9999}, "out of range"),
    ("long-press-index-out-of-range", "home", '{"action_type": "long_press", "index": 500}', "out of range"),
    (
        "scroll-index-out-of-range",
        "contacts",
        {"action_type": "scroll", "direction": "down", "index": 10**6},
        "out of range",
    ),
    ("swipe-down-on-home", "home", 'do(action="Swipe", direction="down")', "swipe up"),
    ("lift-without-touch", "contacts", {"action_type": "LIFT", "touch_position": [0.5, 0.5]}, "touch"),
    ("nested-json", "contacts", '{"action_type": {"action_type": "click", "index": 3}}', "action_type"),
    ("truncated-json", "editor", '{"action_type": "input_text", "text": "hel', ""),
    ("deep-json", "contacts", "[" * 5000 + '{"action_type": "navigate_back"', ""),
    ("wrong-type-index", "contacts", {"action_type": "click", "index": "third"}, "index"),
    ("wrong-type-text", "editor", {"action_type": "input_text", "text": ["a"]}, "text"),
    ("wrong-type-touch", "contacts", {"action_type": "TOUCH", "touch_position": "middle"}, "touch_position"),
    ("wrong-type-element", "contacts", 'do(action="Tap", element="Save")', "element"),
    ("bool-index", "contacts", {"action_type": "click", "index": True}, "index"),
    ("not-an-action", "editor", "I would like to save the contact now.", ""),
    ("empty", "contacts", "", ""),
    ("none", "contacts", None, ""),
    ("integer", "contacts", 42, ""),
    ("code", "editor", 'do(action="Type", text=__import__("os").getcwd())', "literal"),
]


def _setup(setup: str, max_steps: int) -> tuple[Any, dict]:
    env = make("ContactsDeleteContact", max_steps=max_steps)  # a list of contacts at the start
    _, info = env.reset(seed=0)
    for a in SETUPS[setup]:
        a = a(info) if callable(a) else a
        _, _, term, trunc, info = env.step(a)
        assert info["format_valid"] and not term and not trunc, info
    return env, info


@pytest.mark.parametrize("setup, action, reason", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_a_reported_noop(setup: str, action: Any, reason: str) -> None:
    n = len(SETUPS[setup])
    env, info = _setup(setup, max_steps=n + 1)
    if callable(action):
        action = action(info)
    dev = env.unwrapped.device
    state_before, screen_before = state_key(dev), screen_key(dev)
    progress_before = info["progress"]

    obs, reward, term, trunc, info = env.step(action)

    assert info["format_valid"] is False
    assert isinstance(info.get("reason"), str) and info["reason"], info
    assert reason in info["reason"].lower(), info["reason"]
    assert info["action_description"].startswith("Invalid action"), info["action_description"]
    assert not term
    assert trunc, "the invalid action did not count as a step"  # max_steps = setup steps + 1
    assert reward == 0.0 and info["success"] is False
    assert info["milestones"] == [] and info["progress"] == progress_before
    assert state_key(dev) == state_before, "the device state changed"
    assert screen_key(dev) == screen_before, "the screen changed"
    assert "reason" in info and obs["ui"].startswith("<?xml")


@pytest.mark.parametrize("setup, action, reason", [c[1:] for c in CASES[:12]], ids=[c[0] for c in CASES[:12]])
def test_bad_input_does_not_end_or_derail_the_episode(setup: str, action: Any, reason: str) -> None:
    env, info = _setup(setup, max_steps=50)
    if callable(action):
        action = action(info)
    _, _, term, trunc, info = env.step(action)
    assert not term and not trunc and info["format_valid"] is False
    # the oracle still solves the task from here
    for _ in range(40):
        _, reward, term, trunc, info = env.step(env.unwrapped.oracle_action())
        if term or trunc:
            break
    assert term and info["success"] and reward == 1.0


def test_launch_reason_names_close_matches() -> None:
    env, _ = _setup("home", max_steps=10)
    _, _, _, _, info = env.step('do(action="Launch", app="Contcts")')
    assert "Contacts" in info["reason"]
    _, _, _, _, info = env.step({"action_type": "open_app", "app_name": "Setings"})
    assert "Settings" in info["reason"]


def test_accepted_app_names() -> None:
    env, _ = _setup("home", max_steps=20)
    # AndroidWorld's names: the app's name, its package, or a name its pattern starts.
    for name in ("Contacts", "contacts", "  CONTACTS ", "com.google.android.contacts", "contacts app"):
        env.step('do(action="Home")')
        _, _, _, _, info = env.step({"action_type": "open_app", "app_name": name})
        assert info["format_valid"], (name, info.get("reason"))
        assert env.unwrapped.device.state.foreground == "contacts"
    for name, app in (("Simple SMS Messenger", "messages"), ("simple sms", "messages"), ("tasks.org", "tasks")):
        env.step('do(action="Home")')
        _, _, _, _, info = env.step({"action_type": "open_app", "app_name": name})
        assert info["format_valid"] and env.unwrapped.device.state.foreground == app, (name, info.get("reason"))


def test_messages_is_google_messages_which_the_phone_lacks() -> None:
    """AndroidWorld and MobileRL send "Messages" to Google Messages; it is refused with the app to use."""
    env, _ = _setup("home", max_steps=20)
    for name in ("Messages", "messages app"):
        _, _, _, _, info = env.step({"action_type": "open_app", "app_name": name})
        assert not info["format_valid"] and env.unwrapped.device.state.foreground is None
    _, _, _, _, info = env.step({"action_type": "open_app", "app_name": "Messages"})
    assert "Google Messages" in info["reason"] and "Simple SMS Messenger" in info["reason"]
    # AndroidWorld's patterns match the start of a name: "phonebook" opens Phone ('dialer|phone')
    _, _, _, _, info = env.step({"action_type": "open_app", "app_name": "phonebook"})
    assert info["format_valid"] and env.unwrapped.device.state.foreground == "dialer"
