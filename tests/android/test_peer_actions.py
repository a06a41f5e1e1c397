"""Every action form the peers send: parsed, written back, parsed again, and applied with the
peer's meaning. Each test names the peer code it follows (repository and path):

- AndroidLab: THUDM/Android-Lab ``page_executor/text_executor.py`` (``TextOnlyExecutor``) and
  ``utils_mobile/and_controller.py``;
- MobileRL: THUDM/MobileRL ``android_lab/page_executor/text_executor.py``
  (``TextOnlyExecutor_v4``, ``TextOnlyExecutor_android_world``: its released configs),
  ``android_lab/evaluation/evaluation.py`` and ``android_lab/utils_mobile/and_controller.py``;
- AndroidWorld: google-research/android_world ``android_world/env/json_action.py`` and
  ``android_world/env/actuation.py``.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from _util import make, state_key

from gui_gym.android.actions import (
    TYPE_CLEAR_CHARS,
    Action,
    ActionParseError,
    check_on_screen,
    format_action,
    parse_action,
)
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.tasks import TASKS, Oracle
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

# ----------------------------------------------------------------------------- helpers


def roundtrip(text: str | dict, syntax: str = "androidlab", **options: Any) -> Action:
    """``text`` parsed, written in ``syntax``, parsed again: both parses must agree."""
    a = parse_action(text, **options)
    dialect = {"dialect": syntax} if syntax in ("androidlab", "mobilerl") else {}
    coordinates = {k: v for k, v in options.items() if k == "coordinates"}
    again = parse_action(format_action(a, syntax, **coordinates), **dialect, **coordinates)
    assert again == a, (text, format_action(a, syntax, **coordinates))
    return a


def contacts() -> Device:
    """Contacts' list, long enough to scroll (ContactsEditPhone's start state, seed 0)."""
    env = make("ContactsEditPhone")
    env.reset(seed=0)
    dev = env.unwrapped.device
    assert dev.act(parse_action('do(action="Launch", app="Contacts")')).valid
    return dev


def node(dev: Device, **attrs: Any) -> Node:
    return next(n for n in dev.elements() if all(getattr(n, k) == v for k, v in attrs.items()))


def editor() -> Device:
    """Contacts' new-contact form, "First name" focused."""
    dev = contacts()
    assert dev.act(Action("tap", element=node(dev, desc="Create contact").bounds)).valid
    assert field(dev, "First name").focused
    return dev


def field(dev: Device, label: str) -> Node:
    n = Oracle(dev, {}).field(label)
    assert n is not None, label
    return n


def value(dev: Device, label: str) -> str:
    host, key = field(dev, label).field
    return host.form.get(key, "")


def center(n: Node) -> tuple[int, int]:
    x1, y1, x2, y2 = n.bounds
    return (x1 + x2) // 2, (y1 + y2) // 2


def same_effect(dev: Device, a: Any, b: Any) -> bool:
    """Whether ``a`` and ``b`` (each an action or a list of them, all valid) leave ``dev`` in the
    same state; ``dev`` is left as it was."""
    snap = dev.snapshot()
    after = []
    for steps in (a, b):
        dev.restore(snap)
        outs = [dev.act(parse_action(x)) for x in (steps if isinstance(steps, list) else [steps])]
        assert all(o.valid for o in outs), outs
        after.append(state_key(dev))
    dev.restore(snap)
    return bool(after[0] == after[1])


# ----------------------------------------------------------------------------- AndroidLab


def test_a_point_element_is_tapped_where_it_points() -> None:
    """AndroidLab ``tap``/``long_press``/``swipe``: a 2-number element is the point itself."""
    a = roundtrip('do(action="Tap", element=[540,1201])')
    assert a == Action("tap", point=(540, 1201)) and a.center() == (540, 1201)
    assert roundtrip('do(action="Long Press", element=[10,20])') == Action("long_press", point=(10, 20))
    swipe = roundtrip('do(action="Swipe", direction="up", dist="short", element=[540,1200])')
    assert swipe == Action("swipe", direction="up", dist="short", point=(540, 1200))
    dev = contacts()
    fab = node(dev, desc="Create contact")
    x, y = center(fab)
    box = format_action(Action("tap", element=fab.bounds))
    assert same_effect(dev, f'do(action="Tap", element=[{x},{y}])', box)
    row = next(n for n in dev.elements() if n.on_long_press is not None)
    out = dev.act(parse_action('do(action="Long Press", element=[{},{}])'.format(*center(row))))
    assert out.valid and dev.top_screen().dialog is not None


@pytest.mark.parametrize(
    "verb, kind",
    [("Press Back", "back"), ("Press Home", "home"), ("Press Enter", "enter"), ("press  back", "back")],
)
def test_press_verbs(verb: str, kind: str) -> None:
    """MobileRL's executors take "Press Back" (``do()``'s assert list); AndroidLab's prompts list
    "Press Home", "Press Back", "Press Enter" (``templates/android_screenshot_template.py``)."""
    a = roundtrip(f'do(action="{verb}")')
    assert a == Action(kind)
    dev = editor()
    assert same_effect(dev, f'do(action="{verb}")', f'do(action="{kind.capitalize()}")')


def test_leading_zeros_are_read_as_androidlab_strips_them() -> None:
    """AndroidLab's ``remove_leading_zeros_in_string`` runs before ``exec``: ``[040,0300]``
    (which Python refuses) is ``[40,300]``. Zeros inside strings stay (AndroidLab's regex
    would also strip those; a typed "007" is data)."""
    a = roundtrip('Action: do(action="Tap", element=[040,0300,01040,0420])')
    assert a == Action("tap", element=(40, 300, 1040, 420))
    assert parse_action('do(action="Swipe", start=[0540,01800], end=[0540,0600])').point == (540, 1800)
    assert parse_action('do(action="Type", text="007", clear=True)').text == "007"
    assert parse_action('do(action="Tap", element=[0,00,0.5e3,0])').element == (0, 0, 500, 0)
    with pytest.raises(ActionParseError):
        parse_action('do(action="Tap", element=[0x1g,0,1,1])')


def test_a_raw_line_break_in_text_is_a_line_break() -> None:
    """MobileRL's ``TextOnlyExecutor_v4.__call__`` writes raw line breaks as ``\\n`` before ``exec``."""
    a = roundtrip('do(action="Type", text="first line\nsecond line")')
    assert a.text == "first line\nsecond line"


def test_androidlab_type_deletes_types_and_presses_enter() -> None:
    """AndroidLab: ``and_controller.text`` sends 100 KEYCODE_DEL before the text, the executor's
    ``type`` presses Enter after it (a ``clear=`` argument is swallowed by ``**kwargs``)."""
    a = roundtrip('do(action="Type", text="Bob")')
    assert a == Action("type", text="Bob", clear=True, enter=True) == Action("type", text="Bob")
    assert parse_action('do(action="Type", text="Bob", clear=False)') == a
    dev = editor()
    dev.act(Action("type", text="Ann", clear=False, enter=False))
    out = dev.act(a)
    assert out.valid and value(dev, "First name") == "Bob"  # replaced, not "AnnBob"
    assert field(dev, "Last name").focused  # Enter moved on to the next field
    # Only 100 characters go: a longer text keeps its head.
    dev = editor()
    dev.act(Action("type", text="x" * 150, clear=False, enter=False))
    dev.act(a)
    assert value(dev, "First name") == "x" * (150 - TYPE_CLEAR_CHARS) + "Bob"


def test_androidlab_type_in_a_multiline_field_ends_with_a_line_break() -> None:
    """Enter after AndroidLab's Type in a multi-line field (Markor's note) is a line break."""
    env = make("MarkorCreateNote", max_steps=60)
    env.reset(seed=0)
    dev = env.unwrapped.device
    for _ in range(30):
        content = Oracle(dev, env.unwrapped.params).field("Note content")
        if content is not None and content.focused:
            break
        env.step(env.unwrapped.oracle_action())
    else:
        raise AssertionError("the oracle never focused the note")
    _, _, _, _, info = env.step('do(action="Type", text="one\\ntwo")')
    assert info["format_valid"], info.get("reason")
    assert value(dev, "Note content") == "one\ntwo\n"


def test_mobilerl_type_types_only_and_clears_when_asked() -> None:
    """MobileRL's released executor (``TextOnlyExecutor_android_world.type``):
    ``text_android_world(text, clear)``, no Enter; ``clear`` sends 100 KEYCODE_DEL first (its
    harness appends ``clear=True`` when a field on screen holds text)."""
    plain = roundtrip('do(action="Type", text="Ann")', "mobilerl", dialect="mobilerl")
    assert plain == Action("type", text="Ann", clear=False, enter=False)
    cleared = roundtrip('do(action="Type", text="Bob", clear=True)', "mobilerl", dialect="mobilerl")
    assert cleared == Action("type", text="Bob", clear=True, enter=False)
    dev = editor()
    dev.act(plain)
    dev.act(plain)
    assert value(dev, "First name") == "AnnAnn" and field(dev, "First name").focused  # appended, no Enter
    dev.act(cleared)
    assert value(dev, "First name") == "Bob" and field(dev, "First name").focused


def test_swipe_from_start_to_end() -> None:
    """MobileRL (``TextOnlyExecutor_android_world.do``): ``start`` and ``end`` together are
    ``swipe_precise``, ``adb shell input swipe x1 y1 x2 y2 400`` in pixels — not scaled by
    ``is_relative_bbox`` — and direction/dist/element are ignored."""
    a = roundtrip('do(action="Swipe", start=[540,1800], end=[540,600])')
    assert a == Action("swipe", point=(540, 1800), end=(540, 600))
    assert parse_action('do(action="Swipe", start=[540,1800], end=[540,600])', coordinates="relative_999") == a
    ignored = 'do(action="Swipe", start=[540,1800], end=[540,600], direction="down", dist="long")'
    assert parse_action(ignored) == a
    dev = contacts()
    lst = next(n for n in dev.elements() if n.on_scroll is not None)
    x = center(lst)[0]
    before = state_key(dev)
    up = dev.act(parse_action(f'do(action="Swipe", start=[{x},{lst.bounds[3] - 50}], end=[{x},{lst.bounds[1] + 50}])'))
    assert up.valid and "Scroll down" in up.description and state_key(dev) != before
    # A finger that barely moves taps.
    fx, fy = center(node(dev, desc="Create contact"))
    assert same_effect(
        dev, f'do(action="Swipe", start=[{fx},{fy}], end=[{fx + 5},{fy}])', f'do(action="Tap", element=[{fx},{fy}])'
    )


# ----------------------------------------------------------------------------- relative coordinates


@pytest.mark.parametrize("coordinates, scale", [("relative_999", 999), ("relative_1000", 1000)])
def test_relative_boxes_scale_to_pixels(coordinates: str, scale: int) -> None:
    """MobileRL ``TextOnlyExecutor_v4.modify_relative_bbox``: ``v * size / 999`` (its released
    configs set ``is_relative_bbox: true``); AndroidLab ``TextOnlyExecutor.modify_relative_bbox``:
    ``v * size / 1000``. The pixel kept is the one that holds the executors' float."""
    text = f'do(action="Tap", element=[100,200,300,{scale}])'
    a = roundtrip(text, coordinates=coordinates)
    assert a.element == (100 * SCREEN_W // scale, 200 * SCREEN_H // scale, 300 * SCREEN_W // scale, SCREEN_H)
    assert format_action(a, coordinates=coordinates) == text
    # MobileRL's harness rewrites element=[x,y] as [x,y,x,y] (evaluation.py): a point scales too.
    p = roundtrip('do(action="Long Press", element=[500,500])', coordinates=coordinates)
    assert p.point == (500 * SCREEN_W // scale, 500 * SCREEN_H // scale)
    # Never guessed: without the option the same numbers are pixels.
    assert parse_action(text).element == (100, 200, 300, scale)
    # Every relative value reads back as itself.
    for r in range(scale + 1):
        b = parse_action(f'do(action="Tap", element=[{r},{r},{r},{r}])', coordinates=coordinates)
        assert format_action(b, coordinates=coordinates) == f'do(action="Tap", element=[{r},{r},{r},{r}])'
    edge = parse_action(f'do(action="Tap", element=[{scale},{scale}])', coordinates=coordinates)
    assert edge.point == (SCREEN_W - 1, SCREEN_H - 1)  # a point on the far edge stays on the screen
    check_on_screen(edge, 0)


def test_a_relative_tap_lands_through_the_env_option() -> None:
    env = GuiAndroidEnv(task="ContactsAddContact", action_coordinates="relative_999")
    env.reset(seed=0)
    env.step('do(action="Launch", app="Contacts")')
    fab = node(env.device, desc="Create contact")
    relative = format_action(Action("tap", element=fab.bounds), coordinates="relative_999")
    _, _, _, _, info = env.step(relative)
    assert info["format_valid"], info.get("reason")
    assert field(env.device, "First name").focused
    # An Action is in pixels whatever the option: the oracle's text steps as an Action.
    _, _, _, _, info = env.step(parse_action(env.oracle_action()))
    assert info["format_valid"], info.get("reason")
    with pytest.raises(ValueError, match="action_coordinates"):
        GuiAndroidEnv(action_coordinates="relative")


def test_the_mobilerl_dialect_through_the_env_option() -> None:
    env = GuiAndroidEnv(task="ContactsAddContact", action_dialect="mobilerl")
    env.reset(seed=0)
    env.step('do(action="Launch", app="Contacts")')
    env.step(format_action(Action("tap", element=node(env.device, desc="Create contact").bounds)))
    for _ in range(2):
        _, _, _, _, info = env.step('do(action="Type", text="Al")')
        assert info["format_valid"], info.get("reason")
    assert value(env.device, "First name") == "AlAl" and field(env.device, "First name").focused
    env.step('do(action="Type", text="Zoe", clear=True)')
    assert value(env.device, "First name") == "Zoe"
    with pytest.raises(ValueError, match="action_dialect"):
        GuiAndroidEnv(action_dialect="appagent")


# ----------------------------------------------------------------------------- AndroidWorld


def test_double_tap_taps_twice() -> None:
    """AndroidWorld ``double_tap`` (``actuation.execute_adb_action`` -> ``adb_utils.double_tap``):
    two taps at the element's center or at x, y."""
    a = roundtrip({"action_type": "double_tap", "index": 4}, "androidworld")
    assert a == Action("double_tap", index=4)
    b = roundtrip('{"action_type": "double_tap", "x": 540, "y": 1200}', "androidworld")
    assert b == Action("double_tap", point=(540, 1200))
    dev = Device()
    dev.act(parse_action('do(action="Launch", app="Settings")'))
    dev.act(Action("tap", element=node(dev, text="Network & internet").bounds))
    wifi = node(dev, role="row", label="Wi-Fi")
    x, y = center(wifi)
    before = dev.state.settings["wifi"]
    out = dev.act(parse_action({"action_type": "double_tap", "x": x, "y": y}))
    assert out.valid and out.description.count("Turn") == 2
    assert dev.state.settings["wifi"] == before  # toggled twice
    assert same_effect(dev, {"action_type": "double_tap", "x": x, "y": y}, [f"do(action='Tap', element=[{x},{y}])"] * 2)
    # The second tap may land on nothing; the first must land on something.
    fab_dev = contacts()
    fx, fy = center(node(fab_dev, desc="Create contact"))
    assert fab_dev.act(Action("double_tap", point=(fx, fy))).valid
    nothing = Device().act(Action("double_tap", point=(540, 1700)))
    assert not nothing.valid and "nothing clickable" in nothing.reason


def test_a_string_index_is_an_index() -> None:
    """AndroidWorld ``JSONAction.__post_init__``: ``self.index = int(self.index)``; actuation
    ``int(x)``, ``int(y)``."""
    assert roundtrip({"action_type": "click", "index": "3"}, "androidworld") == Action("tap", index=3)
    assert parse_action('{"action_type": "long_press", "index": " 12 "}') == Action("long_press", index=12)
    assert parse_action({"action_type": "scroll", "direction": "down", "index": "0"}).index == 0
    assert parse_action({"action_type": "click", "x": "540", "y": "1200"}) == Action("tap", point=(540, 1200))
    dev = contacts()
    i = dev.elements().index(node(dev, desc="Create contact"))
    assert same_effect(dev, {"action_type": "click", "index": str(i)}, {"action_type": "click", "index": i})


def test_input_text_with_clear_text_replaces() -> None:
    """AndroidWorld ``input_text`` with ``clear_text``: tap the target, Ctrl+A then Delete
    (``input keycombination 113 29 && input keyevent 67``), type, press Enter."""
    a = roundtrip({"action_type": "input_text", "text": "Bob", "clear_text": True}, "androidworld")
    assert a == Action("input_text", text="Bob", clear=True)
    plain = roundtrip({"action_type": "input_text", "text": "Bob", "clear_text": False}, "androidworld")
    assert plain == Action("input_text", text="Bob") and plain.clear is False
    assert json.loads(format_action(a, "androidworld"))["clear_text"] is True
    dev = editor()
    dev.act(Action("type", text="x" * 150, clear=False, enter=False))
    out = dev.act(a)
    assert out.valid and value(dev, "First name") == "Bob"  # the whole field, not 100 characters
    assert field(dev, "Last name").focused  # and Enter
    dev = editor()
    dev.act(Action("type", text="Ann", clear=False, enter=False))
    dev.act(plain)
    assert value(dev, "First name") == "AnnBob"
    # With a target: the tap first.
    dev = editor()
    last = field(dev, "Last name")
    i = dev.elements().index(last)
    out = dev.act(parse_action({"action_type": "input_text", "text": "Ng", "index": str(i), "clear_text": True}))
    assert out.valid and value(dev, "Last name") == "Ng"


def test_enter_after_typing_that_has_nothing_to_do_keeps_the_text() -> None:
    """``press_enter_button`` / ``KEYCODE_ENTER`` is a key event: when Enter cannot confirm
    (Messages' recipient is not one contact), the text stays typed and the action is valid."""
    env = make("SimpleSmsSend")
    env.reset(seed=0)
    dev = env.unwrapped.device
    dev.act(parse_action('do(action="Launch", app="Simple SMS Messenger")'))
    dev.act(Action("tap", element=node(dev, desc="Start a conversation").bounds))
    to = Oracle(dev, {}).field("Add contact or number")
    if not to.focused:
        dev.act(Action("tap", element=to.bounds))
    out = dev.act(parse_action('do(action="Type", text="Nobody Byname")'))
    assert out.valid and "nothing happens" in out.description
    assert value(dev, "Add contact or number") == "Nobody Byname"


# ----------------------------------------------------------------------------- the oracle


def test_the_oracle_replaces_text_with_clear_text() -> None:
    """The oracle fills an empty field with a Type and replaces other text with AndroidWorld's
    ``input_text`` + ``clear_text`` (EditTexts have no "Clear text" button to tap)."""
    dev = editor()
    o = Oracle(dev, {})
    assert o.fill("First name", "Ann") == 'do(action="Type", text="Ann")'
    dev.act(Action("type", text="Anne-Marie", clear=False, enter=False))
    act = Oracle(dev, {}).fill("First name", "Ann")
    assert json.loads(act) == {"action_type": "input_text", "text": "Ann", "clear_text": True}
    assert dev.act(parse_action(act)).valid and value(dev, "First name") == "Ann"
    assert Oracle(dev, {}).fill("First name", "Ann") is None


def test_the_oracle_solves_a_form_task_in_the_mobilerl_dialect() -> None:
    """The oracle's typing means the same in both dialects (a Type only into an empty field)."""
    env = GuiAndroidEnv(task="ContactsAddContact", action_dialect="mobilerl")
    env.reset(seed=1)
    for _ in range(40):
        _, r, term, trunc, info = env.step(env.oracle_action())
        assert info["format_valid"], info.get("reason")
        if term or trunc:
            break
    assert info["success"] is True and r == 1.0


def test_every_task_oracle_types_through_peer_forms() -> None:
    """No oracle step taps a "Clear text" child: its typing is Type or input_text."""
    seen = set()
    for task_id in ("ContactsEditPhone", "MarkorEditNote", "SimpleCalendarAddOneEvent"):
        assert task_id in TASKS
        env = make(task_id)
        env.reset(seed=0)
        for _ in range(80):
            a = env.unwrapped.oracle_action()
            seen.add(parse_action(a).kind)
            *_, term, trunc, info = env.step(a)
            assert info["format_valid"], (task_id, a, info.get("reason"))
            if term or trunc:
                break
        assert info["success"] is True, task_id
    assert {"type", "input_text"} <= seen


# ----------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    "action, options, reason",
    [
        ('do(action="Tap", element=[100,200,300,1000])', {"coordinates": "relative_999"}, "outside 0..999"),
        ('do(action="Tap", element=[-1,200])', {"coordinates": "relative_1000"}, "outside 0..1000"),
        ('do(action="Tap", element=[1,2,3])', {}, "[x1, y1, x2, y2] (a box) or [x, y] (a point)"),
        ('do(action="Tap", element=[1,2,"3",4])', {}, "integer"),
        ('do(action="Tap", element=[5,5,1,1])', {}, "x1<=x2"),
        ('do(action="Tap")', {}, "element=[x1,y1,x2,y2] (a box) or element=[x,y]"),
        ('do(action="Swipe", start=[1,2])', {}, "both start=[x,y] and end=[x,y]"),
        ('do(action="Swipe", start=[1,2], end=[3])', {}, "end must be [x, y]"),
        ('do(action="Swipe", start=[1,2,3,4], end=[3,4])', {}, "start must be [x, y]"),
        ('do(action="Type", text="x", clear="yes")', {"dialect": "mobilerl"}, "clear must be True or False"),
        ('do(action="Type", text="x", element=[1,2])', {}, "unexpected arguments"),
        ('do(action="Press Forward")', {}, "unknown action"),
        ({"action_type": "input_text", "text": "x", "clear_text": "true"}, {}, "clear_text must be true or false"),
        ({"action_type": "click", "clear_text": True, "index": 1}, {}, "takes no key 'clear_text'"),
        ({"action_type": "double_tap"}, {}, 'needs "index" or "x" and "y"'),
        ({"action_type": "double_tap", "index": "3.5"}, {}, "index must be an integer"),
        ({"action_type": "click", "index": "three"}, {}, "index must be an integer"),
        ({"action_type": "click", "index": "-2"}, {}, "index out of range"),
        (Action("swipe", point=(1, 2), end=(3, 4), direction="up"), {}, "takes those two points only"),
        (Action("swipe", end=(3, 4)), {}, "takes those two points only"),
        (Action("swipe", dist="short"), {}, "needs direction, or point and end"),
        (Action("double_tap"), {}, "needs a target"),
        (Action("type", text="x", enter="yes"), {}, "enter must be True or False"),  # type: ignore[arg-type]
        (Action("tap", point=(1, 2), clear=True), {}, "takes no clear"),
    ],
)
def test_bad_variants_are_refused_with_a_reason(action: Any, options: dict, reason: str) -> None:
    with pytest.raises(ActionParseError) as e:
        parse_action(action, **options)
    assert reason in str(e.value), str(e.value)


def test_an_end_off_screen_is_refused_by_the_env() -> None:
    with pytest.raises(ActionParseError, match=r"end \(540, 2400\) is outside"):
        check_on_screen(parse_action('do(action="Swipe", start=[540,1800], end=[540,2400])'), 0)


def test_options_and_forms_without_a_text_form_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="dialect must be one of"):
        parse_action('do(action="Back")', dialect="appagent")
    with pytest.raises(ValueError, match="coordinates must be one of"):
        parse_action('do(action="Back")', coordinates=np.str_("relative"))
    with pytest.raises(ValueError, match="no mobilerl form"):
        format_action(Action("type", text="x"), "mobilerl")
    with pytest.raises(ValueError, match="no androidlab form"):
        format_action(Action("type", text="x", clear=False, enter=False))
    with pytest.raises(ValueError, match="double_tap has no androidlab form"):
        format_action(Action("double_tap", point=(1, 2)))
    with pytest.raises(ValueError, match="no androidworld form"):
        format_action(Action("swipe", point=(1, 2), end=(3, 4)), "androidworld")
    with pytest.raises(ValueError, match="no androidworld form"):
        format_action(Action("type", text="x", enter=False), "androidworld")
    with pytest.raises(ValueError, match="applies to the do"):
        format_action(Action("back"), "androidworld", coordinates="relative_999")
