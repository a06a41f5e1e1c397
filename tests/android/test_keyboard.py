"""The on-screen keyboard: Gboard's keys in the input-method window, typing by taps."""

from __future__ import annotations

import gymnasium as gym
import pytest
from _util import find_el, tap

import gui_gym  # noqa: F401
from gui_gym.android.actions import Action, parse_action
from gui_gym.android.sim.keyboard import CHARS, key_path
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.ui import flatten

# Gboard's keys as a 1080x2400 emulator's accessibility tree gives them (resource id after
# "com.google.android.inputmethod.latin:id/", content description, bounds)
GBOARD = [
    ("key_pos_0_0", "q", (5, 1654, 112, 1808)),
    ("key_pos_0_5", "y", (540, 1654, 647, 1808)),
    ("key_pos_0_9", "p", (968, 1654, 1075, 1808)),
    ("key_pos_1_0", "a", (5, 1808, 165, 1963)),
    ("key_pos_1_8", "l", (914, 1808, 1075, 1963)),
    ("key_pos_shift", "Shift", (5, 1963, 165, 2118)),
    ("key_pos_2_1", "z", (165, 1963, 272, 2118)),
    ("key_pos_2_7", "m", (807, 1963, 914, 2118)),
    ("key_pos_del", "Delete", (914, 1963, 1075, 2118)),
    ("key_pos_switch_to_symbol", "Symbol keyboard", (5, 2118, 165, 2274)),
    ("key_pos_bottom_symbol_1", ",", (165, 2118, 272, 2274)),
    ("key_pos_bottom_symbol_2", ".", (807, 2118, 914, 2274)),
    ("key_pos_ime_action", "Enter", (914, 2118, 1075, 2274)),
]


def _editor():
    """A new contact's form, "First name" focused and the keyboard up."""
    env = gym.make("GuiAndroid-v0", task="ContactsAddContact", max_steps=400)
    _obs, info = env.reset(seed=0)
    _obs, _r, _te, _tr, info = env.step('do(action="Launch", app="Contacts")')
    env.step(tap(find_el(info, content_description="Create contact")))
    dev = env.unwrapped.device
    assert dev.focused_host() is not None and dev.state.keyboard
    return env, dev


def _keys(dev) -> dict[str, object]:
    ime = next(w for w in dev.windows() if w.type == "input_method")
    return {n.desc: n for n in flatten(ime.root) if n.on_tap is not None}


def _tap(env, dev, desc: str) -> dict:
    x, y = _keys(dev)[desc].center()
    return env.step({"action_type": "click", "x": x, "y": y})[4]


def _field(dev) -> str:
    host, key = dev.focused_host()
    return host.form.get(key, "")


def test_keys_dump_as_gboards() -> None:
    env, dev = _editor()
    keys = {n.rid.split(":id/")[1]: n for n in _keys(dev).values()}
    for rid, desc, bounds in GBOARD:
        n = keys[rid]
        assert (n.desc, n.bounds, n.cls, n.text) == (desc, bounds, "android.widget.FrameLayout", ""), rid
        assert n.package == "com.google.android.inputmethod.latin" and n.clickable
    # the space bar takes the emoji key's slot (272-379), which is not modelled
    assert keys["key_pos_space"].bounds == (272, 2118, 807, 2274)
    assert len(keys) == 26 + 7  # letters; Shift, Delete, ?123, comma, space, full stop, Enter
    # the active window's dump is the app's: keys are in the forest and AndroidWorld's element list
    assert not any(n.package == "com.google.android.inputmethod.latin" for n in dev.elements())
    env.close()


@pytest.mark.parametrize(
    "text",
    [
        "Hello, World.",
        "".join(CHARS["symbols"]),
        "".join(CHARS["more_symbols"]),
        "Mix 9am @ café?".replace("é", "e"),
        "A" + "".join(CHARS["letters"]).upper(),
    ],
)
def test_tapping_keys_types_what_a_type_action_types(text: str) -> None:
    env, dev = _editor()
    for desc in key_path(text):
        info = _tap(env, dev, desc)
        assert info["format_valid"], info
    assert _field(dev) == text
    env.close()


def test_shift_holds_for_one_letter_and_pages_switch_back() -> None:
    env, dev = _editor()
    for desc in ("Shift", "A", "b"):  # after one capital the keys are lower case again
        _tap(env, dev, desc)
    assert _field(dev) == "Ab" and "B" not in _keys(dev)
    _tap(env, dev, "Shift")
    _tap(env, dev, "Shift")  # a second tap releases it
    assert "c" in _keys(dev)
    _tap(env, dev, "Symbol keyboard")
    _tap(env, dev, "More symbols")
    assert "π" in _keys(dev) and "Letter keyboard" in _keys(dev)
    _tap(env, dev, "Symbol keyboard")  # the second page's ?123 key
    assert "@" in _keys(dev)
    env.step({"action_type": "navigate_back"})  # Back hides the keyboard
    assert not dev.state.keyboard
    x, y = next(n for n in dev.elements() if n.label == "First name").center()
    env.step({"action_type": "click", "x": x, "y": y})
    assert "q" in _keys(dev)  # it opens on its letters
    env.close()


def test_delete_and_enter_are_keys_a_phone_takes() -> None:
    env, dev = _editor()
    info = _tap(env, dev, "Delete")
    assert info["format_valid"] and _field(dev) == ""  # an empty field: nothing happens, a valid tap
    for desc in ("x", "y", "Delete"):
        _tap(env, dev, desc)
    assert _field(dev) == "x"
    info = _tap(env, dev, "Enter")
    assert info["format_valid"]
    env.close()


def test_android_env_touch_and_lift_on_a_key_types_it() -> None:
    env, dev = _editor()
    x, y = _keys(dev)["k"].center()
    pos = [x / 1080, y / 2400]
    env.step(Action("touch", touch_position=pos))
    env.step(Action("lift", touch_position=pos))
    assert _field(dev) == "k"
    env.close()


def test_every_text_the_tasks_type_has_keys() -> None:
    """What the phone's tasks have their oracles type (seeds 0-2), the keys type too."""
    texts = set()
    for tid in TASKS:
        for seed in range(3):
            env = gym.make("GuiAndroid-v0", task=tid)
            env.reset(seed=seed)
            u = env.unwrapped
            for _ in range(80):
                a = u.oracle_action()
                if a is None:
                    break
                a = parse_action(a)
                if a.kind in ("type", "input_text") and a.text:
                    texts.add(a.text)
                if any(env.step(a)[2:4]):
                    break
            env.close()
    assert len(texts) > 100
    untypable = {}
    for t in texts:
        try:
            key_path(t)
        except ValueError as e:
            untypable[t] = str(e)
    assert not untypable, sorted(untypable.items())[:5]


def test_key_path_names_what_no_key_types() -> None:
    with pytest.raises(ValueError, match="'é'"):
        key_path("café")
