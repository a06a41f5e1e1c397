"""The action parser and formatter: round trips per syntax, robustness, and examples."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gui_gym.android.actions import (
    DIRECTIONS,
    DISTANCES,
    MAX_APP,
    MAX_TEXT,
    Action,
    ActionParseError,
    format_action,
    parse_action,
)

# ----------------------------------------------------------------------------- strategies

COORD = st.integers(-(10**6), 10**6)
INDEX = st.integers(0, 10**6)
DIRECTION = st.sampled_from(DIRECTIONS)
DIST = st.sampled_from(DISTANCES)

# Text an agent may type: arbitrary Unicode (no surrogates), plus pieces that look like syntax.
_PIECES = st.sampled_from(
    [
        '"',
        "'",
        "\\",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        "=",
        " ",
        "\n",
        "\t",
        "é",
        "☕",
        "\x00",
        "do(",
        "finish()",
        "do(action='Back')",
        'do(action="Home")',
        "finish(message='x')",
        "a",
        "1",
    ]
)
TRICKY = st.lists(
    st.one_of(_PIECES, st.tuples(_PIECES, st.integers(2, 60)).map(lambda p: p[0] * p[1])),  # runs of a piece
    max_size=12,
).map("".join)
TEXT = st.one_of(st.text(max_size=60), TRICKY)
NONBLANK = TEXT.filter(lambda s: bool(s.strip()))
APP = TEXT.map(lambda s: s[:MAX_APP]).filter(lambda s: bool(s.strip()))  # app names have a length limit


@st.composite
def bboxes(draw) -> tuple[int, int, int, int]:
    x1, y1 = draw(COORD), draw(COORD)
    x2 = draw(st.integers(x1, 10**6))
    y2 = draw(st.integers(y1, 10**6))
    return x1, y1, x2, y2


POINT = st.tuples(COORD, COORD)


def _target_kw(draw) -> dict:
    which = draw(st.sampled_from(["index", "point", "none"]))
    if which == "index":
        return {"index": draw(INDEX)}
    if which == "point":
        return {"point": draw(POINT)}
    return {}


@st.composite
def androidlab_actions(draw) -> Action:
    kind = draw(
        st.sampled_from(["tap", "long_press", "type", "swipe", "launch", "back", "home", "wait", "enter", "finish"])
    )
    if kind in ("tap", "long_press"):
        if draw(st.booleans()):  # AndroidLab's executor: two numbers are a point
            return Action(kind, point=draw(POINT))
        return Action(kind, element=draw(bboxes()))
    if kind == "type":
        return Action("type", text=draw(TEXT))
    if kind == "swipe":
        if draw(st.booleans()):  # MobileRL: start=, end=
            return Action("swipe", point=draw(POINT), end=draw(POINT))
        target = draw(st.sampled_from(["element", "point", "none"]))
        where = {"element": {"element": draw(bboxes())}, "point": {"point": draw(POINT)}, "none": {}}[target]
        return Action("swipe", direction=draw(DIRECTION), dist=draw(DIST), **where)
    if kind == "launch":
        return Action("launch", app=draw(APP))
    if kind == "finish":
        return Action("finish", text=draw(st.none() | TEXT))
    return Action(kind)


@st.composite
def androidworld_actions(draw) -> Action:
    kind = draw(
        st.sampled_from(
            [
                "tap",
                "long_press",
                "double_tap",
                "input_text",
                "scroll",
                "swipe",
                "launch",
                "home",
                "back",
                "wait",
                "enter",
                "status",
                "answer",
            ]
        )
    )
    if kind in ("tap", "long_press", "double_tap"):
        if draw(st.booleans()):
            return Action(kind, index=draw(INDEX))
        return Action(kind, point=draw(POINT))
    if kind == "input_text":
        return Action("input_text", text=draw(TEXT), clear=draw(st.booleans()), **_target_kw(draw))
    if kind in ("scroll", "swipe"):
        return Action(kind, direction=draw(DIRECTION), **_target_kw(draw))
    if kind == "launch":
        return Action("launch", app=draw(APP))
    if kind == "status":
        return Action("status", goal_status=draw(st.sampled_from(["complete", "infeasible"])))
    if kind == "answer":
        return Action("answer", text=draw(TEXT))
    return Action(kind)


@st.composite
def mobilerl_types(draw) -> Action:
    return Action("type", text=draw(TEXT), clear=draw(st.booleans()), enter=False)


@st.composite
def android_env_actions(draw) -> Action:
    unit = st.floats(0.0, 1.0, allow_nan=False, allow_infinity=False)
    return Action(draw(st.sampled_from(["touch", "lift"])), touch_position=(draw(unit), draw(unit)))


# ----------------------------------------------------------------------------- round trips


@given(androidlab_actions())
def test_roundtrip_androidlab(a: Action) -> None:
    text = format_action(a, "androidlab")
    assert parse_action(text) == a, text


@given(mobilerl_types())
def test_roundtrip_mobilerl_type(a: Action) -> None:
    text = format_action(a, "mobilerl")
    assert parse_action(text, dialect="mobilerl") == a, text


@given(androidworld_actions())
def test_roundtrip_androidworld(a: Action) -> None:
    text = format_action(a, "androidworld")
    assert parse_action(text) == a, text
    assert parse_action(json.loads(text)) == a  # the dict form too


@given(android_env_actions())
def test_roundtrip_android_env(a: Action) -> None:
    text = format_action(a, "android_env")
    assert parse_action(text) == a, text
    d = json.loads(text)
    assert parse_action(d) == a
    assert parse_action({"action_type": d["action_type"], "touch_position": np.array(d["touch_position"])}) == a


TEXT_EXAMPLES = [
    "then finish()",
    "do(action='Back')",
    "I will finish(message=1) later",
    'do(action="Home")',
    "a) b",
    "x\"y'z\\",
    ")" * 30,
    "(x) " * 30,
    "1) milk 2) eggs 3) oat 4) tea 5) rice 6) figs 7) kale 8) soap 9) salt 10) leek " * 3,
    "do( " * 40,
    "finish() " * 40,
    "do(action='Back') " * 40,
    "(" * 40,
]


@pytest.mark.parametrize("text", TEXT_EXAMPLES, ids=[f"{t[:16]!r}x{len(t)}" for t in TEXT_EXAMPLES])
def test_type_text_that_looks_like_an_action_roundtrips(text: str) -> None:
    a = Action("type", text=text)
    assert parse_action(format_action(a)) == a
    f = Action("finish", text=text)
    assert parse_action(format_action(f)) == f


@pytest.mark.parametrize(
    "char", ["é", '"', "\n", "\\", "\x00", ")"], ids=["e-acute", "quote", "newline", "backslash", "nul", "paren"]
)
def test_roundtrip_longest_text(char: str) -> None:
    """Text up to the limit round-trips, however long its escaped form is."""
    for a in (Action("type", text=char * MAX_TEXT), Action("finish", text=char * (MAX_TEXT // 2))):
        assert parse_action(format_action(a)) == a
    w = Action("input_text", text=char * MAX_TEXT)
    assert parse_action(format_action(w, "androidworld")) == w
    with pytest.raises(ActionParseError, match="limit"):
        parse_action(format_action(Action("type", text="x" * (MAX_TEXT + 1))))


def test_action_dict_roundtrip() -> None:
    for a in (
        Action("tap", element=(1, 2, 3, 4)),
        Action("touch", touch_position=(0.5, 0.25)),
        Action("input_text", text="hi", index=3),
        Action("swipe", direction="up", dist="long"),
    ):
        assert Action.from_dict(a.to_dict()) == a
        assert parse_action(a) is a


# ----------------------------------------------------------------------------- never crashes


def _only_parse_errors(text) -> None:
    try:
        a = parse_action(text)
    except ActionParseError:
        return
    assert isinstance(a, Action)


@given(st.text())
def test_arbitrary_text_never_crashes(text: str) -> None:
    _only_parse_errors(text)


@given(st.text(alphabet=st.characters(), max_size=300))
@settings(max_examples=100)
def test_arbitrary_unicode_including_surrogates_never_crashes(text: str) -> None:
    _only_parse_errors(text)


DO_LIKE = (
    r'(Action: )?(do|finish|do )\((action ?= ?["\']?(Tap|Type|Swipe|Long Press|Launch|Back|Home|Wait|Enter|Nope)'
    r'["\']?)?(, ?(element|text|direction|dist|app|message|x|\*\*k) ?= ?'
    r'(\[[-0-9, .e]*\]?|"[^"]{0,12}"?|\'[^\']{0,8}|-?[0-9.e]{1,6}|None|True|\(|__import__\("os"\)|\{))*\)?.{0,5}'
)


@given(st.from_regex(DO_LIKE, fullmatch=True))
@settings(max_examples=300)
def test_do_like_strings_never_crash(text: str) -> None:
    _only_parse_errors(text)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)
ACTION_TYPES = (
    st.sampled_from(
        [
            "click",
            "tap",
            "long_press",
            "input_text",
            "type",
            "scroll",
            "swipe",
            "navigate_home",
            "navigate_back",
            "open_app",
            "wait",
            "status",
            "answer",
            "keyboard_enter",
            "TOUCH",
            "LIFT",
            "REPEAT",
            "bogus",
        ]
    )
    | st.integers(-3, 5)
    | JSON_VALUES
)
KEYS = st.sampled_from(
    ["index", "x", "y", "text", "direction", "app_name", "app", "goal_status", "status", "touch_position"]
)


@st.composite
def json_action_dicts(draw) -> dict:
    d = {"action_type": draw(ACTION_TYPES)}
    d.update(draw(st.dictionaries(KEYS, JSON_VALUES | st.lists(st.floats(-2, 2), max_size=3), max_size=4)))
    return d


@given(json_action_dicts(), st.integers(0, 200))
@settings(max_examples=300)
def test_json_dicts_and_truncations_never_crash(d: dict, cut: int) -> None:
    _only_parse_errors(d)
    text = json.dumps(d)
    _only_parse_errors(text)
    _only_parse_errors(text[: cut % (len(text) + 1)])  # truncated
    _only_parse_errors("Action: " + text[: cut % (len(text) + 1)])
    _only_parse_errors('{"action_type": ' + text)  # nested
    _only_parse_errors("[" * cut + text + "]" * (cut // 2))


@pytest.mark.parametrize(
    "text",
    [
        "{" * 50_000,
        "[" * 99_999,
        '{"action_type": ' * 5000 + '"click"',
        '{"action_type": "click", "index": ' + "[" * 20_000,
        "do(" + "(" * 50_000 + ")" * 50_000,
        'do(action="Type", text=' + "[" * 5000 + '"a"' + "]" * 5000 + ")",
        "do(action=" + "-" * 80_000 + "1)",
        'do(action="Tap", element=[1,2,3,' + "9" * 5000 + "])",
        '{"action_type": "click", "index": ' + "9" * 5000 + "}",
        '{"action_type": "click", "x": 1e400, "y": 1}',
        '{"action_type": "click", "x": NaN, "y": 1}',
        "x" * 100_001,
        "\x00" * 1000,
        '\ud800do(action="Back")',
    ],
    ids=lambda t: f"{t[:24]!r}x{len(t)}",
)
def test_pathological_text_only_raises_parse_errors(text: str) -> None:
    _only_parse_errors(text)


@pytest.mark.parametrize("text", ["do(" * 4000, "do(()" * 2500, "finish(" * 3000], ids=["do(", "do(()", "finish("])
def test_pathological_text_is_refused(text: str) -> None:
    """Agent output is untrusted: many unbalanced calls are refused with a parse error
    (the parser's work on such text is bounded; its speed is not asserted here)."""
    _only_parse_errors(text)


@pytest.mark.parametrize("value", [None, 5, 3.5, b'do(action="Back")', ["do(action='Back')"], object(), ("a",)])
def test_non_text_inputs_raise_parse_error(value) -> None:
    with pytest.raises(ActionParseError):
        parse_action(value)


@pytest.mark.parametrize(
    "d",
    [
        {},
        {"action_type": None},
        {"action_type": True},
        {"action_type": ["click"]},
        {"action_type": 1.5},
        {"action_type": "click"},
        {"action_type": "click", "index": "three"},  # "3" is AndroidWorld's int("3"): accepted
        {"action_type": "click", "index": "3.0"},
        {"action_type": "click", "index": -1},
        {"action_type": "click", "index": 1.5},
        {"action_type": "click", "index": True},
        {"action_type": "click", "x": "10px", "y": 20},
        {"action_type": "click", "x": 10},
        {"action_type": "click", "x": [1], "y": 2},
        {"action_type": "click", "x": float("nan"), "y": 2},
        {"action_type": "click", "x": float("inf"), "y": 2},
        {"action_type": "click", "x": 10**7, "y": 2},
        {"action_type": "click", "index": 10**400},
        {"action_type": "input_text", "index": 1},
        {"action_type": "input_text", "text": ["a"]},
        {"action_type": "input_text", "text": {"a": 1}},
        {"action_type": "scroll"},
        {"action_type": "scroll", "direction": "sideways"},
        {"action_type": "scroll", "direction": 3},
        {"action_type": "open_app"},
        {"action_type": "open_app", "app_name": ""},
        {"action_type": "open_app", "app_name": ["Contacts"]},
        {"action_type": "status"},
        {"action_type": "status", "goal_status": "done"},
        {"action_type": "status", "goal_status": 1},
        {"action_type": "answer"},
        {"action_type": "answer", "text": None},
        {"action_type": "answer", "text": [1]},
        {"action_type": "TOUCH"},
        {"action_type": "TOUCH", "touch_position": [0.5]},
        {"action_type": "TOUCH", "touch_position": [0.5, 1.5]},
        {"action_type": "TOUCH", "touch_position": [-0.1, 0.5]},
        {"action_type": "TOUCH", "touch_position": ["0.5", 0.5]},
        {"action_type": "TOUCH", "touch_position": [True, 0.5]},
        {"action_type": "TOUCH", "touch_position": [float("nan"), 0.5]},
        {"action_type": "TOUCH", "touch_position": "0.5,0.5"},
        {"action_type": "LIFT", "touch_position": {"x": 0.5, "y": 0.5}},
        {"action_type": 7, "touch_position": [0.5, 0.5]},
        {"action_type": "teleport"},
    ],
)
def test_wrong_types_raise_parse_error(d: dict) -> None:
    with pytest.raises(ActionParseError):
        parse_action(d)
    with pytest.raises(ActionParseError):
        parse_action(json.dumps(d))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "tap the button",
        'do(action="Fly")',
        "do()",
        'do("Tap", element=[1,2,3,4])',
        'do(action="Tap")',
        'do(action="Tap", element=[1,2,3])',
        'do(action="Tap", element=[3,4,1,2])',
        'do(action="Tap", element="[1,2,3,4]")',
        'do(action="Tap", element=[1,2,3,4], text="x")',
        'do(action="Type")',
        'do(action="Type", text=["a"])',
        'do(action="Swipe")',
        'do(action="Swipe", direction="diagonal")',
        'do(action="Swipe", direction="up", dist="far")',
        'do(action="Launch")',
        'do(action="Launch", app="")',
        'do(action="Back", element=[1,2,3,4])',
        'do(action="Tap", **{"element": [1,2,3,4]})',
        "finish(status='done')",
        "go(action='Back')",
        'do(action="Tap", element=[1,2,3,4]',
        '{"action_type": "click", "index": 3',
    ],
)
def test_invalid_text_raises_parse_error(text: str) -> None:
    with pytest.raises(ActionParseError) as e:
        parse_action(text)
    assert str(e.value)


@pytest.mark.parametrize(
    "text",
    [
        'do(action="Type", text=__import__("os"))',
        'do(action="Type", text=__import__("os").system("touch {sentinel}"))',
        'do(action="Type", text=open("{sentinel}", "w").write("x"))',
        'finish(message=__import__("pathlib").Path("{sentinel}").touch())',
        'do(action="Tap", element=[1, 2, 3, len("abcd")])',
        'do(action="Type", text="a" + "b")',
        'do(action="Type", text=f"{{1+1}}")',
        'do(action="Type", text=(lambda: "x")())',
        "finish(message=exit())",
    ],
)
def test_no_evaluation_of_arguments(text: str, tmp_path) -> None:
    sentinel = tmp_path / "evaluated"
    with pytest.raises(ActionParseError):
        parse_action(text.format(sentinel=sentinel))
    assert not sentinel.exists()


def test_garbage_numbers_are_refused_without_python_warnings() -> None:
    # Python's parser warns of "invalid decimal literal" on text like 1and: an LM writes it, and a
    # rollout would print one warning per step
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ActionParseError):
            parse_action('do(action="Tap", element=[1and 2])')


# ----------------------------------------------------------------------------- examples


def test_androidlab_examples() -> None:
    a = parse_action('do(action="Tap", element=[40,300,1040,420])')
    assert a == Action("tap", element=(40, 300, 1040, 420))
    assert a.center() == (540, 360)
    assert parse_action('do(action="Long Press", element=[0,0,10,10])') == Action("long_press", element=(0, 0, 10, 10))
    assert parse_action("do(action='Type', text='Sofia Lopez')") == Action("type", text="Sofia Lopez")
    assert parse_action('do(action="Swipe", direction="up", dist="medium")') == Action(
        "swipe", direction="up", dist="medium"
    )
    assert parse_action('do(action="Swipe", direction="Left")') == Action("swipe", direction="left", dist="medium")
    assert parse_action('do(action="Swipe", direction="down", dist="long", element=[0,300,1080,2000])') == Action(
        "swipe", direction="down", dist="long", element=(0, 300, 1080, 2000)
    )
    assert parse_action('do(action="Launch", app="Contacts")') == Action("launch", app="Contacts")
    for verb in ("Back", "Home", "Wait", "Enter"):
        assert parse_action(f'do(action="{verb}")') == Action(verb.lower())
    assert parse_action('do(action="Press Enter")') == Action("enter")
    assert parse_action('finish(message="done")') == Action("finish", text="done")
    assert parse_action("finish()") == Action("finish")
    assert parse_action('finish("42")') == Action("finish", text="42")
    assert parse_action("do ( action = 'Tap' , element = [ 1 , 2 , 3 , 4 ] )") == Action("tap", element=(1, 2, 3, 4))


def test_androidworld_examples() -> None:
    assert parse_action('{"action_type": "click", "index": 3}') == Action("tap", index=3)
    assert parse_action('{"action_type": "click", "x": 540, "y": 360}') == Action("tap", point=(540, 360))
    assert parse_action('{"action_type": "click", "x": 540.0, "y": 360}') == Action("tap", point=(540, 360))
    assert parse_action('{"action_type": "long_press", "index": 0}') == Action("long_press", index=0)
    assert parse_action({"action_type": "input_text", "text": "hi", "index": 5}) == Action(
        "input_text", text="hi", index=5
    )
    assert parse_action({"action_type": "scroll", "direction": "down"}) == Action("scroll", direction="down")
    assert parse_action({"action_type": "navigate_home"}) == Action("home")
    assert parse_action({"action_type": "navigate_back"}) == Action("back")
    assert parse_action({"action_type": "open_app", "app_name": "Clock"}) == Action("launch", app="Clock")
    assert parse_action({"action_type": "wait"}) == Action("wait")
    assert parse_action({"action_type": "keyboard_enter"}) == Action("enter")
    assert parse_action({"action_type": "status", "goal_status": "complete"}) == Action(
        "status", goal_status="complete"
    )
    assert parse_action({"action_type": "status", "goal_status": "Infeasible"}) == Action(
        "status", goal_status="infeasible"
    )
    assert parse_action({"action_type": "answer", "text": "42"}) == Action("answer", text="42")
    assert parse_action({"action_type": "answer", "text": 42}) == Action("answer", text="42")
    assert (
        format_action(Action("tap", element=(40, 300, 1040, 420)), "androidworld")
        == '{"action_type": "click", "x": 540, "y": 360}'
    )


def test_android_env_examples() -> None:
    assert parse_action('{"action_type": "TOUCH", "touch_position": [0.5, 0.25]}') == Action(
        "touch", touch_position=(0.5, 0.25)
    )
    assert parse_action({"action_type": "LIFT", "touch_position": (0, 1)}) == Action("lift", touch_position=(0.0, 1.0))
    assert parse_action({"action_type": np.int64(0), "touch_position": np.array([0.1, 0.2])}) == Action(
        "touch", touch_position=(0.1, 0.2)
    )
    assert parse_action({"action_type": 1, "touch_position": [0.1, 0.2]}).kind == "lift"
    assert parse_action({"action_type": "REPEAT", "touch_position": [0.1, 0.2]}).kind == "touch"
    with pytest.raises(ValueError):
        format_action(Action("back"), "android_env")


@pytest.mark.parametrize("content, finger", [("down", "up"), ("up", "down"), ("left", "right"), ("right", "left")])
def test_androidworld_scroll_is_opposite_finger_swipe(content: str, finger: str) -> None:
    scroll = parse_action({"action_type": "scroll", "direction": content})
    assert scroll.kind == "scroll" and scroll.direction == content
    assert format_action(scroll, "androidlab") == f'do(action="Swipe", direction="{finger}", dist="medium")'


def test_scroll_down_equals_swipe_up_on_the_device() -> None:
    """AndroidWorld scroll "down" moves the content like an AndroidLab finger swipe "up"."""
    from _util import make, screen_key, state_key

    results = []
    for action in (
        '{"action_type": "scroll", "direction": "down"}',
        'do(action="Swipe", direction="up", dist="medium")',
    ):
        env = make("ContactsEditPhone")
        env.reset(seed=0)
        env.step('do(action="Launch", app="Contacts")')
        before = screen_key(env.unwrapped.device)
        _, _, _, _, info = env.step(action)
        assert info["format_valid"], info
        after = screen_key(env.unwrapped.device)
        assert after != before
        results.append((state_key(env.unwrapped.device), after))
    assert results[0] == results[1]


def test_unknown_syntax_and_unformattable_actions() -> None:
    with pytest.raises(ValueError):
        format_action(Action("back"), "xml")
    with pytest.raises(ValueError):
        format_action(Action("tap", index=3), "androidlab")
    with pytest.raises(ValueError):
        format_action(Action("touch", touch_position=(0.1, 0.1)), "androidlab")
    with pytest.raises(ActionParseError):
        Action("teleport")


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            'Thought: the Save button is at the top.\nAction: do(action="Tap", element=[1,2,3,4])',
            Action("tap", element=(1, 2, 3, 4)),
        ),
        ('I think I\'m done. finish(message="The number is 555")', Action("finish", text="The number is 555")),
        ('```python\ndo(action="Back")\n```', Action("back")),
        ('```json\n{"action_type": "click", "index": 7}\n```', Action("tap", index=7)),
        ('First do(action="Back"), then do(action="Home")', Action("home")),
        ('do(action="Type", text="a) b")', Action("type", text="a) b")),
        ('Let me do (this) carefully: do(action="Wait")', Action("wait")),
        ('<answer>do(action="Launch", app="Contacts")</answer>', Action("launch", app="Contacts")),
    ],
)
def test_tolerant_extraction_from_prose(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


def test_parse_error_is_a_value_error_with_reason() -> None:
    with pytest.raises(ValueError, match="element"):
        parse_action('do(action="Tap")')


def _corpus() -> list:
    """Every action the recorded observation episodes step (oracle, mixed and fuzzed)."""
    from tests.android import observation_record

    return [a for ep in observation_record.load() for a in ep["actions"]]


@pytest.mark.parametrize("dialect, coordinates", [("androidlab", "pixels"), ("mobilerl", "relative_999")])
def test_cached_parses_equal_fresh_parses(dialect: str, coordinates: str) -> None:
    """Parsed texts are kept: a repeated text gives what parsing it afresh gives, per dialect and
    scale, errors included."""
    from gui_gym.android import actions as A

    def outcome(a):
        try:
            return parse_action(a, dialect=dialect, coordinates=coordinates)
        except ActionParseError as e:
            return f"error: {e}"

    corpus = _corpus()
    assert len(corpus) > 1000
    first = [outcome(a) for a in corpus]
    again = [outcome(a) for a in corpus]  # from the cache where kept
    A._PARSED.clear()
    A._TRUSTED.clear()
    fresh = [outcome(a) for a in corpus]
    assert first == again == fresh
    kept = sum(type(a) is str for a in corpus)
    assert kept and A._PARSED, "texts are kept"
