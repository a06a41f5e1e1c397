"""The simulated phone: snapshot/restore, Back, app switching, scrolling lists, raw touch, apps."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from _util import (
    TASK_IDS,
    box,
    canon,
    check_ui_xml,
    find_el,
    index_of,
    long_press,
    make,
    random_action,
    screen_key,
    state_key,
    tap,
)

from gui_gym.android.actions import Action, format_action, parse_action
from gui_gym.android.forest import element_box
from gui_gym.android.sim.apps import APPS
from gui_gym.android.sim.apps.contacts.app import ContactDetail, ContactEditor, ContactList
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.dialogs import InputDialog, MenuDialog
from gui_gym.android.ui import SCREEN_H, SCREEN_W

LAUNCH = 'do(action="Launch", app="Contacts")'


def _visible_texts(obs: dict) -> set[str]:
    return {n.attrib["text"] for n in check_ui_xml(obs["ui"]).iter("node")}


# ----------------------------------------------------------------------------- snapshot / restore


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_env_snapshot_restore_roundtrip(task_id: str) -> None:
    env = make(task_id)
    _, info = env.reset(seed=4)
    for _ in range(2):
        _, _, term, trunc, info = env.step(env.unwrapped.oracle_action())
        if term or trunc:
            return
    snap = env.unwrapped.snapshot()
    obs_at_snap = env.unwrapped.observe()
    rng = np.random.default_rng(zlib.crc32(task_id.encode()))
    actions, record = [], []
    for i in range(12):
        a = random_action(rng, info, finish_p=0.0) if i % 3 == 0 else env.unwrapped.oracle_action()
        out = env.step(a)
        actions.append(a)
        record.append(out)
        info = out[4]
        if out[2] or out[3]:
            break
    env.unwrapped.restore(snap)
    assert env.unwrapped.observe() == obs_at_snap
    for a, (obs, r, term, trunc, info) in zip(actions, record, strict=True):
        obs2, r2, term2, trunc2, info2 = env.step(a)
        assert obs2 == obs and (r2, term2, trunc2) == (r, term, trunc)
        assert info2 == info


def test_env_snapshot_restore_pixels() -> None:
    env = make("ContactsAddContact", obs_mode="both", screen_size=(108, 240))
    env.reset(seed=0)
    env.step(LAUNCH)
    snap = env.unwrapped.snapshot()
    first = [env.step(a)[0] for a in (env.unwrapped.oracle_action(), 'do(action="Back")', 'do(action="Home")')]
    env.unwrapped.restore(snap)
    second = [env.step(a)[0] for a in (env.unwrapped.oracle_action(), 'do(action="Back")', 'do(action="Home")')]
    for o1, o2 in zip(first, second, strict=True):
        assert o1["ui"] == o2["ui"]
        np.testing.assert_array_equal(o1["screen"], o2["screen"])


def test_restore_after_episode_end_allows_stepping() -> None:
    env = make("ContactsAddContact")
    env.reset(seed=0)
    snap = env.unwrapped.snapshot()
    *_, term, _, _ = env.step("finish()")
    assert term
    env.unwrapped.restore(snap)
    _, _, term, trunc, info = env.step(LAUNCH)
    assert info["format_valid"] and not term and not trunc


def test_device_snapshot_restore() -> None:
    dev = Device()
    dev.act(parse_action(LAUNCH))
    snap = dev.snapshot()
    before_state, before_screen = state_key(dev), screen_key(dev)
    fab = next(n for n in dev.elements() if n.desc == "Create contact")
    out = dev.act(parse_action(f'do(action="Tap", element=[{",".join(map(str, fab.bounds))}])'))
    assert out.valid
    dev.act(parse_action('do(action="Type", text="Zed")'))
    assert state_key(dev) != before_state and screen_key(dev) != before_screen
    dev.restore(snap)
    assert state_key(dev) == before_state and screen_key(dev) == before_screen
    # the snapshot is a copy: changing the device does not change it
    dev.state.settings["wifi"] = not dev.state.settings["wifi"]
    dev.restore(snap)
    assert state_key(dev) == before_state


def test_snapshots_stay_in_memory() -> None:
    """Restoring reads only a snapshot this process took: no bytes from a file or a message."""
    import pickle

    env = make("ContactsAddContact")
    env.reset(seed=0)
    snap = env.unwrapped.snapshot()
    with pytest.raises(TypeError, match="in memory only"):
        pickle.dumps(snap)
    crafted = pickle.dumps(print)
    with pytest.raises(TypeError, match="what snapshot\\(\\) returned"):
        env.unwrapped.restore((snap[0], crafted))
    with pytest.raises(TypeError, match="what snapshot\\(\\) returned"):
        env.unwrapped.device.restore(crafted)
    env.unwrapped.restore(snap)  # the real one still works


def test_clock_advances_every_valid_step_only() -> None:
    """Time passes with what the phone does; an invalid action is a no-op, for the clock too."""
    env = make("ContactsAddContact")
    env.reset(seed=0)
    dev = env.unwrapped.device
    t0 = dev.state.now
    env.step('do(action="Back")')  # 1 s
    _, _, _, _, info = env.step('do(action="Tap", element=[500,1700,580,1900])')  # nothing there: invalid
    assert info["format_valid"] is False
    env.step('do(action="Wait")')  # 3 s
    assert (dev.state.now - t0).total_seconds() == 4


# ----------------------------------------------------------------------------- Back


def test_back_closes_keyboard_then_dialog_then_screen() -> None:
    env = make("ContactsAddContact")
    _, info = env.reset(seed=0)
    dev = env.unwrapped.device
    _, _, _, _, info = env.step(LAUNCH)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Create contact")))
    editor = dev.top_screen()
    assert isinstance(editor, ContactEditor) and dev.state.keyboard
    dev.open_dialog(InputDialog("on_label", "Custom label", [("label", "Label")]))
    dev.invalidate()
    obs = env.unwrapped.observe()
    # The dialog is the active window: the dump is its tree; the keyboard is a window of its own.
    assert "Custom label" in obs["ui"] and "com.google.android.inputmethod.latin" not in obs["ui"]
    assert [w.type for w in dev.windows()] == ["application", "application", "input_method", "system", "system"]

    _, _, _, _, info = env.step('do(action="Back")')
    assert info["format_valid"]
    assert not dev.state.keyboard and editor.dialog is not None and dev.top_screen() is editor
    _, _, _, _, info = env.step('do(action="Back")')
    assert editor.dialog is None and dev.top_screen() is editor
    obs, _, _, _, info = env.step('do(action="Back")')
    assert isinstance(dev.top_screen(), ContactList)
    assert "Custom label" not in obs["ui"]
    _, _, _, _, info = env.step('do(action="Back")')
    assert dev.state.foreground is None  # the launcher
    _, _, _, _, info = env.step('do(action="Back")')
    assert info["format_valid"] and dev.state.foreground is None


def test_back_with_real_dialog_and_search() -> None:
    env = make("ContactsDeleteContact")
    env.reset(seed=0)
    dev = env.unwrapped.device
    _, _, _, _, info = env.step(LAUNCH)
    row = next(n for n in env.unwrapped.device.elements() if n.rid.endswith(":id/contact_row"))
    _, _, _, _, info = env.step(long_press(row))
    assert isinstance(dev.top_screen().dialog, MenuDialog)
    _, _, _, _, info = env.step('do(action="Back")')
    assert dev.top_screen().dialog is None and isinstance(dev.top_screen(), ContactList)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Search contacts")))
    assert dev.state.keyboard
    # MobileRL's Type: no Enter, so the keyboard stays up (AndroidLab's Enter would search).
    env.step(parse_action('do(action="Type", text="zz")', dialect="mobilerl"))
    _, _, _, _, info = env.step('do(action="Back")')
    assert not dev.state.keyboard and isinstance(dev.top_screen(), ContactList)
    _, _, _, _, info = env.step('do(action="Back")')  # closes the search
    assert dev.state.foreground == "contacts" and dev.top_screen().form.get("q", "") == ""
    env.step('do(action="Back")')
    assert dev.state.foreground is None


def test_navigate_up_and_system_back_both_pop() -> None:
    env = make("ContactsFavorite")
    env.reset(seed=0)
    dev = env.unwrapped.device
    _, _, _, _, info = env.step(LAUNCH)
    row = next(n for n in env.unwrapped.device.elements() if n.rid.endswith(":id/contact_row"))
    _, _, _, _, info = env.step(tap(row))
    assert isinstance(dev.top_screen(), ContactDetail)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Navigate up")))
    assert isinstance(dev.top_screen(), ContactList)
    _, _, _, _, info = env.step(tap(row))
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Back", package_name="com.android.systemui")))
    assert isinstance(dev.top_screen(), ContactList)


# ----------------------------------------------------------------------------- app switching


def _open_contact_detail(env) -> dict:
    _, _, _, _, info = env.step(LAUNCH)
    row = next(n for n in env.unwrapped.device.elements() if n.rid.endswith(":id/contact_row"))
    _, _, _, _, info = env.step(tap(row))
    assert isinstance(env.unwrapped.device.top_screen(), ContactDetail)
    return info


def test_home_and_launch_keep_the_back_stack() -> None:
    env = make("ContactsFavorite")
    env.reset(seed=0)
    dev = env.unwrapped.device
    info = _open_contact_detail(env)
    detail = dev.top_screen()
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Home")))
    assert dev.state.foreground is None
    _, _, _, _, info = env.step(tap(find_el(info, text="Contacts")))  # launcher icon
    assert dev.top_screen() is detail and len(dev.state.stacks["contacts"]) == 2
    env.step('do(action="Home")')
    env.step(LAUNCH)
    assert dev.top_screen() is detail
    env.step('do(action="Back")')
    assert isinstance(dev.top_screen(), ContactList)


@pytest.mark.parametrize("other", [a for a in APPS if a != "contacts"])
def test_switching_apps_keeps_each_back_stack(other: str) -> None:
    env = make("ContactsFavorite")
    env.reset(seed=0)
    dev = env.unwrapped.device
    _open_contact_detail(env)
    detail = dev.top_screen()
    _, _, _, _, info = env.step({"action_type": "open_app", "app_name": APPS[other].label})
    assert info["format_valid"], info
    assert dev.state.foreground == other
    other_stack = list(dev.state.stacks[other])
    # via Overview (recent apps)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Overview")))
    assert dev.state.recents_open
    card = find_el(info, content_description="Contacts", package_name="com.google.android.apps.nexuslauncher")
    _, _, _, _, info = env.step(tap(card))
    assert info["format_valid"]
    assert dev.state.foreground == "contacts" and dev.top_screen() is detail
    # and back again by Launch
    env.step({"action_type": "open_app", "app_name": APPS[other].label})
    assert dev.state.stacks[other] == other_stack
    env.step(LAUNCH)
    assert dev.top_screen() is detail


def test_overview_back_and_clear_all() -> None:
    env = make("ContactsFavorite")
    env.reset(seed=0)
    dev = env.unwrapped.device
    info = _open_contact_detail(env)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Overview")))
    assert dev.state.recents_open and dev.top_screen() is None
    _, _, _, _, info = env.step('do(action="Back")')
    assert not dev.state.recents_open and isinstance(dev.top_screen(), ContactDetail)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Overview")))
    _, _, _, _, info = env.step(tap(find_el(info, text="Clear all")))
    assert not dev.state.stacks
    env.step(LAUNCH)
    assert isinstance(dev.top_screen(), ContactList)


# ----------------------------------------------------------------------------- scrolling lists


def _sorted_names(env) -> list[str]:
    return [c.name for c in env.unwrapped.device.data("contacts").sorted()]


def test_offscreen_items_absent_until_scrolled_into_view() -> None:
    env = make("ContactsEditPhone")  # 14 contacts: more than one screenful
    env.reset(seed=0)
    obs, _, _, _, info = env.step(LAUNCH)
    names = _sorted_names(env)
    assert len(names) >= 14
    texts = _visible_texts(obs)
    assert names[0] in texts and names[-1] not in texts
    lst = next(e for e in info["ui_elements"] if e.is_scrollable)
    rows = [n for n in env.unwrapped.device.elements() if n.rid.endswith(":id/contact_row")]
    for r in rows:  # partly visible rows report their visible bounds
        assert element_box(lst)[1] <= r.bounds[1] <= r.bounds[3] <= element_box(lst)[3]
    seen = set(texts)
    for _ in range(10):
        obs, _, _, _, info = env.step(
            f'do(action="Swipe", direction="up", dist="medium", element=[{",".join(map(str, element_box(lst)))}])'
        )
        assert info["format_valid"], info
        seen |= _visible_texts(obs)
        if names[-1] in _visible_texts(obs):
            break
    texts = _visible_texts(obs)
    assert names[-1] in texts and names[0] not in texts
    assert set(names) <= seen  # every item was shown on the way
    # at the end, swiping further is valid but changes nothing
    before = screen_key(env.unwrapped.device)
    _, _, _, _, info = env.step('do(action="Swipe", direction="up", dist="long")')
    assert info["format_valid"] and screen_key(env.unwrapped.device) == before
    # and back up
    for _ in range(10):
        obs, _, _, _, info = env.step({"action_type": "scroll", "direction": "up"})
    assert names[0] in _visible_texts(obs) and names[-1] not in _visible_texts(obs)


def test_scroll_has_no_effect_on_a_short_list() -> None:
    env = make("ContactsAddContact")  # four contacts fit on one screen
    env.reset(seed=0)
    env.step(LAUNCH)
    before = state_key(env.unwrapped.device)
    _, _, term, _, _ = env.step('do(action="Swipe", direction="up")')
    assert not term and state_key(env.unwrapped.device) == before


# ----------------------------------------------------------------------------- sliders


def _on_the_brightness_slider(level: int):
    """The Display page of Settings with the brightness at ``level``: the env, the device and the
    slider's ``ui_elements`` index and box."""
    env = make("SystemBrightnessMax")
    env.reset(seed=0)
    for _ in range(2):  # launch Settings, open Display
        _, _, _, _, info = env.step(env.unwrapped.oracle_action())
    dev = env.unwrapped.device
    dev.state.settings["brightness"] = level
    dev.invalidate()
    slider = find_el(info, content_description="Brightness level")
    return env, dev, index_of(info, slider), box(slider)


@pytest.mark.parametrize(
    "start, finger, dist, level, said",
    [
        (45, "right", "short", 70, "right (to 70%)"),
        (45, "right", "long", 100, "right (to 100%, the maximum)"),
        (45, "left", "short", 20, "left (to 20%)"),
        (45, "left", "long", 0, "left (to 0%, the minimum)"),
        (100, "right", "medium", 100, "right (already at 100%, the maximum)"),
        (0, "left", "medium", 0, "left (already at 0%, the minimum)"),
    ],
)
def test_a_slider_drag_says_which_way_the_thumb_went_and_where_it_stopped(
    start: int, finger: str, dist: str, level: int, said: str
) -> None:
    """A finger swipe to the right moves a slider's thumb right; the step names that direction and
    the value it set (a short and a long swipe differ), not a scroll of content."""
    env, dev, _, el = _on_the_brightness_slider(start)
    _, _, _, _, info = env.step(format_action(Action("swipe", direction=finger, dist=dist, element=el)))
    assert info["format_valid"], info
    assert dev.state.settings["brightness"] == level
    assert info["action_description"] == f'Drag the "Brightness level" slider {said}'
    # across it is refused, and says why
    _, _, _, _, info = env.step(format_action(Action("swipe", direction="up", element=el)))
    assert not info["format_valid"] and "moves sideways" in info["reason"]


def test_every_syntax_describes_a_slider_drag_the_same_way() -> None:
    """AndroidWorld's ``scroll left`` (it names the content's direction), MobileRL's start/end
    swipe and android_env's raw touches all move the thumb right here, and say so."""
    _, _, index, (left, top, _, bottom) = _on_the_brightness_slider(20)
    y = (top + bottom) // 2
    ways = [
        [{"action_type": "scroll", "direction": "left", "index": index}],
        [f'do(action="Swipe", start=[{left + 100},{y}], end=[{left + 460},{y}])'],
        [
            {"action_type": "TOUCH", "touch_position": [(left + 100) / SCREEN_W, y / SCREEN_H]},
            {"action_type": "LIFT", "touch_position": [(left + 460) / SCREEN_W, y / SCREEN_H]},
        ],
    ]
    for way in ways:
        env, dev, _, _ = _on_the_brightness_slider(20)
        for action in way:
            _, _, _, _, info = env.step(action)
        assert info["format_valid"], (way, info)
        assert dev.state.settings["brightness"] == 70, way
        assert info["action_description"] == 'Drag the "Brightness level" slider right (to 70%)', way


def test_lists_keep_the_scroll_wording() -> None:
    """A list names the content's direction: a finger swipe up scrolls it down."""
    env = make("ContactsEditPhone")
    env.reset(seed=0)
    env.step(LAUNCH)
    _, _, _, _, info = env.step('do(action="Swipe", direction="up", dist="medium")')
    assert info["format_valid"] and info["action_description"].startswith("Scroll down the "), info


# ----------------------------------------------------------------------------- android_env raw touch


def _norm(e) -> list[float]:
    l, t, r, b = box(e)
    return [((l + r) / 2 + 0.5) / SCREEN_W, ((t + b) / 2 + 0.5) / SCREEN_H]


def test_raw_touch_then_lift_taps() -> None:
    env = make("ContactsAddContact")
    env.reset(seed=0)
    dev = env.unwrapped.device
    _, _, _, _, info = env.step(LAUNCH)
    pos = _norm(find_el(info, content_description="Create contact"))
    before = state_key(dev)
    _, _, _, _, info = env.step({"action_type": "TOUCH", "touch_position": pos})
    assert info["format_valid"] and isinstance(dev.top_screen(), ContactList)
    _, _, _, _, info = env.step(f'{{"action_type": "LIFT", "touch_position": [{pos[0]}, {pos[1]}]}}')
    assert info["format_valid"], info
    assert isinstance(dev.top_screen(), ContactEditor)
    assert state_key(dev) != before


def test_raw_touch_swipe_scrolls() -> None:
    env = make("ContactsEditPhone")
    env.reset(seed=0)
    obs, _, _, _, info = env.step(LAUNCH)
    names = _sorted_names(env)
    assert names[0] in _visible_texts(obs)
    for y in (0.8, 0.65, 0.5):
        _, _, _, _, info = env.step({"action_type": "TOUCH", "touch_position": [0.5, y]})
        assert info["format_valid"]
    obs, _, _, _, info = env.step({"action_type": "LIFT", "touch_position": [0.5, 0.35]})
    assert info["format_valid"], info
    assert names[0] not in _visible_texts(obs)
    assert isinstance(env.unwrapped.device.top_screen(), ContactList)


def test_raw_touch_held_is_a_long_press() -> None:
    env = make("ContactsDeleteContact")
    env.reset(seed=0)
    dev = env.unwrapped.device
    _, _, _, _, info = env.step(LAUNCH)
    row = next(n for n in env.unwrapped.device.elements() if n.rid.endswith(":id/contact_row"))
    pos = _norm(row)
    for _ in range(3):
        env.step({"action_type": "TOUCH", "touch_position": pos})
    _, _, _, _, info = env.step({"action_type": "LIFT", "touch_position": pos})
    assert info["format_valid"], info
    assert isinstance(dev.top_screen().dialog, MenuDialog)


def test_raw_touch_on_nothing_is_invalid_and_starts_no_gesture() -> None:
    env = make("ContactsAddContact")
    env.reset(seed=0)
    dev = env.unwrapped.device
    before = canon(dev.state)  # all of it, the clock included
    # the status bar: nothing there takes a touch (the launcher below it takes the swipe up to all apps)
    _, _, _, _, info = env.step({"action_type": "TOUCH", "touch_position": [0.5, 0.01]})
    assert info["format_valid"] is False and "nothing clickable" in info["reason"]
    assert canon(dev.state) == before and dev.state.touches == []
    _, _, _, _, info = env.step({"action_type": "LIFT", "touch_position": [0.5, 0.01]})
    assert info["format_valid"] is False and "TOUCH" in info["reason"]
    assert canon(dev.state) == before


def test_raw_lift_always_ends_the_gesture() -> None:
    """A LIFT lifts the finger whatever the screen makes of the gesture, so no gesture is left stuck."""
    env = make("ContactsAddContact")
    env.reset(seed=0)
    dev = env.unwrapped.device
    _, _, _, _, info = env.step(LAUNCH)
    pos = _norm(find_el(info, content_description="Create contact"))  # takes a tap, not a long press
    for _ in range(3):  # held this long, the gesture is a long press
        _, _, _, _, info = env.step({"action_type": "TOUCH", "touch_position": pos})
        assert info["format_valid"], info
    _, _, _, _, info = env.step({"action_type": "LIFT", "touch_position": pos})
    assert info["format_valid"] and "nothing responds" in info["action_description"], info
    assert "long" in info["action_description"]
    assert dev.state.touches == [] and isinstance(dev.top_screen(), ContactList)
    # the next gesture starts afresh: a tap on the same button opens the editor
    env.step({"action_type": "TOUCH", "touch_position": pos})
    _, _, _, _, info = env.step({"action_type": "LIFT", "touch_position": pos})
    assert info["format_valid"] and isinstance(dev.top_screen(), ContactEditor)


# ----------------------------------------------------------------------------- every app


@pytest.mark.parametrize("app", list(APPS))
def test_every_app_launches_and_backs_out(app: str) -> None:
    env = make("ContactsAddContact")
    _, info = env.reset(seed=0)
    dev = env.unwrapped.device
    label = APPS[app].icon_label
    if not any(e.text == label for e in info["ui_elements"]):  # not on the home screen: in the drawer
        _, _, _, _, info = env.step('do(action="Swipe", direction="up")')
    _, _, _, _, info = env.step(tap(find_el(info, text=label)))  # the launcher icon
    assert info["format_valid"], info
    assert dev.state.foreground == app
    obs = env.unwrapped.observe()
    root = check_ui_xml(obs["ui"])
    # an app that asks for runtime permissions on its first start shows the grant dialog first
    packages = {n.attrib["package"] for n in root.iter("node")}
    assert APPS[app].package in packages or "com.google.android.permissioncontroller" in packages
    for _ in range(12):
        _, _, _, _, info = env.step('do(action="Back")')
        assert info["format_valid"]
        if dev.state.foreground is None:
            break
    if app == "miniwob":  # AndroidWorld's MainActivity takes Back and never leaves (no super call)
        assert dev.state.foreground == app
        _, _, _, _, info = env.step('do(action="Home")')
    assert dev.state.foreground is None, f"Back never left {label}"
    _, _, _, _, info = env.step({"action_type": "open_app", "app_name": APPS[app].label.lower()})
    assert info["format_valid"] and dev.state.foreground == app


def test_app_drawer_lists_every_app_and_opens_them() -> None:
    """The home screen shows the first apps; a swipe up opens the drawer with all of them by name."""
    from gui_gym.android.sim.system_ui import HOME_ICONS
    from gui_gym.android.ui import to_xml

    d = Device()
    home = [n.text for n in d.elements() if n.role == "appicon"]
    assert home == [app.icon_label for app in list(APPS.values())[:HOME_ICONS]]
    assert "app drawer" in d.act(parse_action('do(action="Swipe", direction="up")')).description
    listed = [n.text for n in d.elements() if n.role == "appicon"]
    assert listed == sorted((app.icon_label for app in APPS.values()), key=str.casefold)
    assert "launcher:id/apps_list_view" in to_xml(d.screen())
    assert d.act(parse_action('do(action="Back")')).description == "Press Back to close the app drawer"
    assert [n.text for n in d.elements() if n.role == "appicon"] == home
    d.act(parse_action('do(action="Swipe", direction="up")'))
    last = list(APPS.values())[-1]
    icon = next(n for n in d.elements() if n.role == "appicon" and n.text == last.icon_label)
    x, y = icon.center()
    out = d.act(parse_action(f'do(action="Tap", element=[{x},{y}])'))
    assert out.description.endswith("in the app drawer") and d.state.foreground == last.name
    d.act(parse_action('do(action="Home")'))
    assert not d.state.drawer_open  # Home goes to the home screen, not back to the drawer
