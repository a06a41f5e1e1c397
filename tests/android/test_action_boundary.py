"""The action boundary of GuiAndroid-v0: whatever ``step()`` is given, it never raises (but
``ResetNeeded`` after the end), and an invalid action is a reported no-op, the same for text,
dicts and :class:`Action` objects.

Targeted cases (structured and dict actions, hostile objects, JSON smuggled inside other text,
capped reasons, pending touch gestures, the clock), and a seeded fuzz: structured actions and
JSON dicts built from random types and values (edge cases included). For every fuzzed action:
``step()`` does not raise; an invalid one is a reported no-op (the observation unchanged,
``format_valid`` False, a reason within :data:`MAX_REASON`, ``action_kind`` "invalid", no
termination); and the env still works: it and a twin env that never saw the invalid actions
(but took every valid one) give the same results for a valid action afterwards, down to the
whole device state (clock, pending touch gesture).
"""

from __future__ import annotations

import datetime as dt
import io
import math
import pickle
import random
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from _util import canon, find_el, index_of, make, screen_key, state_key, tap

from gui_gym.android.actions import (
    DIRECTIONS,
    DISTANCES,
    MAX_APP,
    MAX_QUOTE,
    MAX_REASON,
    MAX_TEXT,
    Action,
    ActionParseError,
    clip_text,
    parse_action,
    quoted,
)
from gui_gym.android.backends.base import Outcome
from gui_gym.android.backends.sim import SimBackend
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.forest import element_box

SEED = 1234
N_ACTIONS = 1500  # of each form: structured and dict
N_ODD = 200  # whole-action values of no accepted form at all
FIELDS = (
    "element",
    "point",
    "index",
    "text",
    "direction",
    "dist",
    "app",
    "goal_status",
    "touch_position",
    "end",
    "clear",
    "enter",
)
LAUNCH = 'do(action="Launch", app="Contacts")'


# ----------------------------------------------------------------------------- hostile values


class Hostile:
    """Every hook an action reader might call raises."""

    def _boom(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("hostile hook called")

    __repr__ = __str__ = __format__ = __eq__ = __ne__ = __lt__ = __hash__ = _boom  # type: ignore[assignment]
    __len__ = __iter__ = __getitem__ = __contains__ = __bool__ = _boom  # type: ignore[assignment]
    __int__ = __index__ = __float__ = __abs__ = __neg__ = __round__ = _boom  # type: ignore[assignment]

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"hostile attribute {name}")


class HostileStr(str):
    def strip(self, *args: Any) -> str:
        raise RuntimeError("strip")

    def lower(self) -> str:
        raise RuntimeError("lower")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __len__(self) -> int:
        raise RuntimeError("len")

    __hash__ = str.__hash__


class HostileInt(int):
    def __int__(self) -> int:
        raise RuntimeError("int")

    def __index__(self) -> int:
        raise RuntimeError("index")

    def __abs__(self) -> int:
        raise RuntimeError("abs")


class HostileFloat(float):
    def __float__(self) -> float:
        raise RuntimeError("float")


class HostileList(list):
    def __iter__(self) -> Any:
        raise RuntimeError("iter")

    def __len__(self) -> int:
        raise RuntimeError("len")


class HostileDict(dict):
    def items(self) -> Any:
        raise RuntimeError("items")

    def get(self, *args: Any) -> Any:
        raise RuntimeError("get")


class RaisingClass:
    """``isinstance`` itself fails on this: reading ``__class__`` raises."""

    @property  # type: ignore[misc]
    def __class__(self) -> type:
        raise RuntimeError("__class__")


class FakeAction:
    """Claims to be an Action (``isinstance`` says so) but has only some of its fields."""

    __class__ = Action  # type: ignore[assignment]
    kind = "tap"
    index = 0


def _nested(depth: int) -> list:
    out: list = []
    for _ in range(depth):
        out = [out]
    return out


ODD_VALUES: list[Callable[[], Any]] = [
    lambda: None,
    lambda: True,
    lambda: 0,
    lambda: -1,
    lambda: 10**6 + 1,
    lambda: 10**30,
    lambda: 2**63,
    lambda: 10**5000,
    lambda: np.int64(-1),
    lambda: np.uint8(255),
    lambda: np.bool_(True),
    lambda: np.int64(10**12),
    lambda: -0.0,
    lambda: 0.5,
    lambda: 1.5,
    lambda: 540.5,
    lambda: math.nan,
    lambda: math.inf,
    lambda: -math.inf,
    lambda: np.float64("nan"),
    lambda: np.float32("inf"),
    lambda: 1e308,
    lambda: 5e-324,
    lambda: complex(1, 2),
    lambda: Fraction(1, 2),
    lambda: Decimal("0.5"),
    lambda: "",
    lambda: "   ",
    lambda: "sideways",
    lambda: "far",
    lambda: "done",
    lambda: "contcts",
    lambda: "x" * (MAX_TEXT + 1),
    lambda: "y" * (MAX_APP + 1),
    lambda: "z" * 1_000_000,
    lambda: "\x00",
    lambda: "\ud800",
    lambda: "a\nb",
    lambda: b"bytes",
    lambda: bytearray(b"x"),
    lambda: [],
    lambda: [1],
    lambda: [1, 2, 3],
    lambda: [3, 4, 1, 2],
    lambda: [-1, 0, 10, 10],
    lambda: [0, 0, 1081, 10],
    lambda: [math.nan, 0.5],
    lambda: [True, 0.5],
    lambda: [0.5, 1.5],
    lambda: ["1", "2", "3", "4"],
    lambda: [[1, 2], [3, 4]],
    lambda: [10**400, 0],
    lambda: np.array([[1, 2], [3, 4]]),
    lambda: np.array(3),
    lambda: np.array([]),
    lambda: np.array(["a", "b"]),
    lambda: np.array([0.5, None], dtype=object),
    lambda: {"x": 1},
    lambda: {1, 2},
    lambda: frozenset(),
    lambda: range(4),
    lambda: _nested(10_000),
    lambda: [Hostile()] * 4,
    lambda: (1, Hostile()),
    lambda: Hostile(),
    lambda: HostileStr("up"),
    lambda: HostileStr("Contacts"),
    lambda: HostileInt(3),
    lambda: HostileFloat(0.5),
    lambda: HostileList([1, 2, 3, 4]),
    lambda: HostileDict(action_type="click", index=1),
    lambda: RaisingClass(),
    lambda: FakeAction(),
    lambda: object(),
    lambda: object,
    lambda: print,
    lambda: ...,
    lambda: dt.datetime(2024, 1, 1),
    lambda: Action("back"),
]


# ----------------------------------------------------------------------------- generators


def _good_value(field: str, rng: random.Random, info: dict) -> Any:
    """A value that is valid for ``field`` (numpy and list forms included)."""
    els = info["ui_elements"]
    if field == "element":
        box = element_box(rng.choice(els)) if els and rng.random() < 0.8 else (0, 0, 1080, 2400)
        return rng.choice([tuple(box), list(box), np.array(box)])
    if field in ("point", "end"):
        p = (rng.randrange(1080), rng.randrange(2400))
        return rng.choice([p, list(p), (np.int64(p[0]), np.int32(p[1])), (float(p[0]), p[1])])
    if field == "index":
        i = rng.randrange(max(1, len(els)))
        return rng.choice([i, np.int64(i), float(i)])
    if field == "text":
        return rng.choice(["hello", "Ann", "", "555 0101", "a) b", 'do(action="Back")', np.str_("hi")])
    if field == "direction":
        return rng.choice([*DIRECTIONS, "Up", " down "])
    if field == "dist":
        return rng.choice(DISTANCES)
    if field == "app":
        return rng.choice(["Contacts", "clock", "Settings", "Messages", "Calendar"])
    if field == "goal_status":
        return rng.choice(["complete", "infeasible", "Complete"])
    if field == "touch_position":
        return rng.choice([(rng.random(), rng.random()), [0.0, 1.0], np.array([rng.random(), rng.random()])])
    if field in ("clear", "enter"):
        return rng.choice([True, False, np.bool_(True)])
    raise AssertionError(field)


def _odd_value(rng: random.Random) -> Any:
    return rng.choice(ODD_VALUES)()


_KIND_FIELDS = {
    "tap": ["index", "point", "element"],
    "long_press": ["index", "point", "element"],
    "double_tap": ["index", "point", "element"],
    "type": ["text", "clear", "enter"],
    "input_text": ["text", "index", "clear"],
    "swipe": ["direction", "dist"],
    "scroll": ["direction", "index"],
    "launch": ["app"],
    "back": [],
    "home": [],
    "wait": [],
    "enter": [],
    "finish": ["text"],
    "status": ["goal_status"],
    "answer": ["text"],
    "touch": ["touch_position"],
    "lift": ["touch_position"],
}
# Actions that end the episode are rare, so that episodes run long enough to reach deep states.
_KIND_WEIGHTS = {k: (1 if k in ("finish", "status", "answer") else 6) for k in _KIND_FIELDS}
_BAD_KINDS: list[Any] = ["teleport", "", "TAP", None, 3, b"tap", HostileStr("tap"), Hostile()]


def structured_action(rng: random.Random, info: dict) -> Any:
    """An :class:`Action` written field by field, past the dataclass (as ``object.__setattr__``
    can): a valid kind with good fields, then perhaps one field made odd or an extra one set."""
    if rng.random() < 0.05:
        kind = rng.choice(_BAD_KINDS)
        fields = {}
    else:
        kind = rng.choices(list(_KIND_WEIGHTS), weights=list(_KIND_WEIGHTS.values()))[0]
        wanted = _KIND_FIELDS[kind]
        if kind in ("tap", "long_press", "double_tap"):
            wanted = [rng.choice(wanted)]  # one target
        elif kind == "swipe" and rng.random() < 0.3:
            wanted = ["point", "end"]  # MobileRL's start=/end=
        fields = {f: _good_value(f, rng, info) for f in wanted}
        u = rng.random()
        if u < 0.35 and fields:
            fields[rng.choice(list(fields))] = _odd_value(rng)
        elif u < 0.45:
            fields[rng.choice(FIELDS)] = _odd_value(rng) if rng.random() < 0.5 else _good_value("text", rng, info)
        elif u < 0.5 and fields:
            del fields[rng.choice(list(fields))]
    action = object.__new__(Action)
    object.__setattr__(action, "kind", kind)
    for f in FIELDS:
        object.__setattr__(action, f, fields.get(f))
    return action


_WORLD = {
    "click": ["index"],
    "long_press": ["index"],
    "double_tap": ["index"],
    "input_text": ["text", "clear_text"],
    "type": ["text"],
    "scroll": ["direction"],
    "swipe": ["direction"],
    "navigate_home": [],
    "navigate_back": [],
    "open_app": ["app_name"],
    "wait": [],
    "keyboard_enter": [],
    "status": ["goal_status"],
    "answer": ["text"],
    "TOUCH": ["touch_position"],
    "LIFT": ["touch_position"],
}
_WORLD_WEIGHTS = {k: (1 if k in ("status", "answer") else 6) for k in _WORLD}
_DICT_KEYS = [
    "index",
    "x",
    "y",
    "text",
    "direction",
    "app_name",
    "app",
    "goal_status",
    "status",
    "touch_position",
    "clear_text",
]
_ODD_TYPES: list[Callable[[], Any]] = [
    lambda: None,
    lambda: True,
    lambda: 1.0,
    lambda: np.int64(0),
    lambda: np.int32(1),
    lambda: np.array(2),
    lambda: 5,
    lambda: -1,
    lambda: 10**100,
    lambda: "lift",
    lambda: "teleport",
    lambda: "x" * 1_000_000,
    lambda: np.str_("click"),
    lambda: HostileStr("click"),
    lambda: ["click"],
    lambda: {"action_type": "click"},
    lambda: Hostile(),
]


def _good_dict_value(key: str, rng: random.Random, info: dict) -> Any:
    if key == "index" and rng.random() < 0.2:
        return str(int(_good_value(key, rng, info)))  # AndroidWorld's JSONAction int()s a string index
    if key in ("index", "text", "direction", "touch_position", "goal_status"):
        return _good_value(key, rng, info)
    if key in ("app_name", "app"):
        return _good_value("app", rng, info)
    if key in ("x", "y"):
        return rng.randrange(1080 if key == "x" else 2400)
    if key == "clear_text":
        return rng.choice([True, False])
    return _good_value("goal_status", rng, info)


def dict_action(rng: random.Random, info: dict) -> dict:
    """An android_env or AndroidWorld dict: good keys, then perhaps an odd value, key or type."""
    if rng.random() < 0.08:
        d: dict = {"action_type": rng.choice(_ODD_TYPES)()}
        for key in rng.sample(_DICT_KEYS, rng.randrange(3)):
            d[key] = _good_dict_value(key, rng, info)
        return d
    kind = rng.choices(list(_WORLD_WEIGHTS), weights=list(_WORLD_WEIGHTS.values()))[0]
    d = {"action_type": kind}
    keys = list(_WORLD[kind])
    if kind in ("click", "long_press", "double_tap") and rng.random() < 0.5:
        keys = ["x", "y"]
    for key in keys:
        d[key] = _good_dict_value(key, rng, info)
    u = rng.random()
    if u < 0.35 and len(d) > 1:
        d[rng.choice([k for k in d if k != "action_type"])] = _odd_value(rng)
    elif u < 0.45:
        d[rng.choice([*_DICT_KEYS, "foo", 7, ("a",), None])] = _odd_value(rng) if rng.random() < 0.5 else 1
    elif u < 0.5 and len(d) > 1:
        del d[rng.choice([k for k in d if k != "action_type"])]
    elif u < 0.55:
        d = {k: (None if k != "action_type" and rng.random() < 0.5 else v) for k, v in d.items()}
    return d


def probe_action(rng: random.Random, info: dict, env: Any) -> Any:
    """A valid-looking action to run on both envs after each fuzzed one (so that they go on to
    deeper states and any pending gesture gets completed)."""
    els = [e for e in info["ui_elements"] if e.is_clickable]
    u = rng.random()
    if u < 0.3:
        return env.unwrapped.oracle_action()
    if u < 0.5 and els:
        l, t, r, b = element_box(rng.choice(els))
        kind = "TOUCH" if rng.random() < 0.6 else "LIFT"
        return {"action_type": kind, "touch_position": [((l + r) / 2 + 0.5) / 1080, ((t + b) / 2 + 0.5) / 2400]}
    if u < 0.75 and els:
        return {"action_type": "click", "index": rng.randrange(len(els))}
    return rng.choice(
        [LAUNCH, 'do(action="Back")', 'do(action="Swipe", direction="up")', 'do(action="Type", text="a")']
    )


# ----------------------------------------------------------------------------- the fuzz


def _pickled(state: Any) -> bytes:
    """``state`` pickled without the memo, so that equal values give equal bytes however their
    objects are shared (a state restored from a snapshot shares fewer strings)."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump(state)
    return buf.getvalue()


def _same_step(a: tuple, b: tuple) -> bool:
    obs_a, r_a, term_a, trunc_a, info_a = a
    obs_b, r_b, term_b, trunc_b, info_b = b
    return obs_a == obs_b and r_a == r_b and term_a == term_b and trunc_a == trunc_b and info_a == info_b


class Pair:
    """The env under test and its twin, which never receives an invalid action."""

    def __init__(self) -> None:
        self.env = make("ContactsAddContact", max_steps=10**6)
        self.twin = make("ContactsAddContact", max_steps=10**6)
        self.episode = 0
        self.reset()

    def reset(self) -> None:
        self.episode += 1
        self.obs, self.info = self.env.reset(seed=self.episode)
        obs, info = self.twin.reset(seed=self.episode)
        assert obs == self.obs and info == self.info

    def same_state(self) -> bool:
        """Whether the whole device state (clock and touch gesture included) is the twin's:
        equal pickles prove it quickly; else the plain renderings decide."""
        a, b = self.env.unwrapped.device.state, self.twin.unwrapped.device.state
        return _pickled(a) == _pickled(b) or canon(a) == canon(b)

    def step_both(self, action: Any, where: str) -> tuple:
        out = self.env.step(action)
        twin = self.twin.step(action)
        assert _same_step(out, twin), f"{where}: the env and its twin differ after {quoted(action)}"
        self.obs, self.info = out[0], out[4]
        if out[2] or out[3]:
            self.reset()
        return out


def test_fuzzed_actions_are_checked_at_the_boundary() -> None:
    rng = random.Random(SEED)
    pair = Pair()
    forms = ["structured"] * N_ACTIONS + ["dict"] * N_ACTIONS + ["odd"] * N_ODD
    rng.shuffle(forms)
    counts = {"valid": 0, "invalid": 0}
    for i, form in enumerate(forms):
        if form == "structured":
            action = structured_action(rng, pair.info)
        elif form == "dict":
            action = dict_action(rng, pair.info)
        else:
            action = _odd_value(rng)
        where = f"case {i} ({form})"
        obs_before = pair.obs
        try:
            obs, reward, term, trunc, info = pair.env.step(action)
        except Exception as e:  # the assertion this test is about
            raise AssertionError(f"{where}: step() raised {type(e).__name__}: {e}") from e
        if info["format_valid"]:
            counts["valid"] += 1
            twin = pair.twin.step(action)
            assert _same_step((obs, reward, term, trunc, info), twin), f"{where}: a valid action differs on the twin"
            pair.obs, pair.info = obs, info
            if term or trunc:
                pair.reset()
        else:
            counts["invalid"] += 1
            reason = info.get("reason")
            assert isinstance(reason, str) and 0 < len(reason) <= MAX_REASON, f"{where}: reason {quoted(reason)}"
            assert info["action_kind"] == "invalid", where
            assert info["action_description"].startswith("Invalid action"), where
            assert not term and not trunc and reward == 0.0, where
            assert obs == obs_before, f"{where}: an invalid action changed the observation"
            assert pair.same_state(), f"{where}: an invalid action changed the device state ({reason})"
        # the env still works, exactly as the twin that never saw the invalid ones
        pair.step_both(probe_action(rng, pair.info, pair.twin), where)
        assert pair.same_state(), f"{where}: the env and its twin drifted apart"
    # the fuzz reaches both sides of the boundary, so neither check above is vacuous
    assert counts["valid"] >= 300 and counts["invalid"] >= 1500, counts


# ----------------------------------------------------------------------------- structured actions


def raw_action(kind: Any, **values: Any) -> Action:
    """An :class:`Action` holding anything, written past the dataclass's own check."""
    action = object.__new__(Action)
    object.__setattr__(action, "kind", kind)
    for f in FIELDS:
        object.__setattr__(action, f, values.get(f))
    return action


def _contacts() -> tuple[Any, dict, dict]:
    env = make("ContactsAddContact", max_steps=50)
    env.reset(seed=0)
    obs, _, _, _, info = env.step(LAUNCH)
    return env, obs, info


def _invalid_text_info() -> dict:
    env, _, _ = _contacts()
    return env.step("this is not an action")[4]


BAD_STRUCTURED: list[tuple[str, Action, str]] = [
    ("index-negative", raw_action("tap", index=-1), "out of range"),
    ("index-bool", raw_action("tap", index=True), "integer"),
    ("index-numpy-bool", raw_action("tap", index=np.bool_(False)), "integer"),
    ("index-fraction", raw_action("long_press", index=1.5), "integer"),
    ("index-nan", raw_action("tap", index=math.nan), "integer"),
    ("index-string", raw_action("tap", index="3"), "integer"),
    ("index-past-the-elements", raw_action("tap", index=9999), "out of range"),
    ("point-right-edge", raw_action("tap", point=(1080, 10)), "outside"),
    ("point-negative", raw_action("long_press", point=(-1, 10)), "outside"),
    ("point-nan", raw_action("tap", point=(math.nan, 10)), "integer"),
    ("point-inf", raw_action("tap", point=(10, math.inf)), "integer"),
    ("point-short", raw_action("tap", point=(5,)), "point"),
    ("element-off-screen", raw_action("tap", element=(0, 0, 2000, 10)), "outside"),
    ("element-upside-down", raw_action("tap", element=(3, 4, 1, 2)), "x1<=x2"),
    ("element-bool", raw_action("tap", element=(0, 0, True, 10)), "integer"),
    ("element-not-a-box", raw_action("tap", element="Save"), "element"),
    ("swipe-element-off-screen", raw_action("swipe", direction="up", element=(-5, 0, 10, 10)), "outside"),
    ("touch-inf", raw_action("touch", touch_position=(math.inf, 0.5)), "touch_position"),
    ("touch-above-one", raw_action("touch", touch_position=(0.5, 1.5)), "touch_position"),
    ("touch-bool", raw_action("lift", touch_position=(True, 0.5)), "touch_position"),
    ("direction-unknown", raw_action("swipe", direction="sideways"), "direction"),
    ("direction-number", raw_action("scroll", direction=3), "direction"),
    ("dist-unknown", raw_action("swipe", direction="up", dist="far"), "dist"),
    ("app-too-long", raw_action("launch", app="x" * (MAX_APP + 1)), "limit"),
    ("app-blank", raw_action("launch", app="  "), "empty"),
    ("app-list", raw_action("launch", app=["Contacts"]), "app"),
    ("text-too-long", raw_action("type", text="x" * (MAX_TEXT + 1)), "limit"),
    ("text-number", raw_action("type", text=42), "string"),
    ("text-bytes", raw_action("answer", text=b"42"), "string"),
    ("goal-status-unknown", raw_action("status", goal_status="done"), "goal_status"),
    ("kind-unknown", raw_action("teleport"), "unknown action kind"),
    ("kind-none", raw_action(None), "unknown action kind"),
    ("kind-upper-case", raw_action("TAP", index=0), "unknown action kind"),
    ("field-of-another-kind", raw_action("back", text="x"), "takes no text"),
    ("two-targets", raw_action("tap", index=0, point=(5, 5)), "one target"),
    ("no-target", raw_action("tap"), "needs a target"),
    ("type-without-text", raw_action("type"), "needs text"),
    ("swipe-without-direction", raw_action("swipe", dist="long"), "needs direction"),
    ("lift-without-position", raw_action("lift"), "needs touch_position"),
]


@pytest.mark.parametrize("action, reason", [c[1:] for c in BAD_STRUCTURED], ids=[c[0] for c in BAD_STRUCTURED])
def test_bad_structured_action_is_the_same_no_op_as_bad_text(action: Action, reason: str) -> None:
    env, obs, _ = _contacts()
    state = _pickled(env.unwrapped.device.state)
    obs2, reward, term, trunc, info = env.step(action)
    assert reason in info["reason"], info["reason"]
    assert info["action_description"] == f"Invalid action: {info['reason']}"
    assert obs2 == obs and _pickled(env.unwrapped.device.state) == state
    assert (reward, term, trunc) == (0.0, False, False)
    text_info = _invalid_text_info()  # the same step with an invalid text action
    drop = ("reason", "action_description")
    assert {k: v for k, v in info.items() if k not in drop} == {k: v for k, v in text_info.items() if k not in drop}


def test_invalid_structured_and_dict_actions_cost_a_step() -> None:
    env = make("ContactsAddContact", max_steps=3)
    env.reset(seed=0)
    _, _, _, trunc, info = env.step(raw_action("tap", index=-1))
    assert not trunc and info["format_valid"] is False
    _, _, _, trunc, info = env.step({"action_type": "click", "index": True})
    assert not trunc and info["format_valid"] is False
    _, _, term, trunc, info = env.step(Hostile())
    assert trunc and not term and info["format_valid"] is False and info["success"] is False


BOX, MID = (40, 300, 1040, 420), (0.5, 0.5)
GOOD_FORMS: list[tuple[str, Any, Any]] = [
    ("numpy-index", Action("tap", index=np.int64(4)), Action("tap", index=4)),
    ("float-index", {"action_type": "click", "index": 4.0}, Action("tap", index=4)),
    ("list-element", Action("tap", element=[40, 300, 1040, 420]), Action("tap", element=BOX)),
    (
        "array-element",
        Action("tap", element=np.array([40, 300, 1040, 420])),
        Action("tap", element=(40, 300, 1040, 420)),
    ),
    ("numpy-point", Action("tap", point=(np.int32(540), np.int64(360))), Action("tap", point=(540, 360))),
    ("numpy-touch", Action("touch", touch_position=np.array([0.5, 0.25])), Action("touch", touch_position=(0.5, 0.25))),
    ("upper-direction", Action("swipe", direction=" Up ", dist="LONG"), Action("swipe", direction="up", dist="long")),
    ("numpy-text", Action("type", text=np.str_("hi")), Action("type", text="hi")),
    ("null-fields", {"action_type": "click", "index": 4, "x": None, "text": None}, Action("tap", index=4)),
    (
        "numpy-action-type",
        {"action_type": np.array(1), "touch_position": [0.5, 0.5]},
        Action("lift", touch_position=(0.5, 0.5)),
    ),
]


@pytest.mark.parametrize("given, plain", [c[1:] for c in GOOD_FORMS], ids=[c[0] for c in GOOD_FORMS])
def test_numpy_and_list_forms_are_accepted_as_plain_values(given: Any, plain: Action) -> None:
    parsed = parse_action(given)
    assert parsed == plain
    for f in FIELDS:  # plain Python values all the way down
        v, w = getattr(parsed, f), getattr(plain, f)
        assert type(v) is type(w) and (not isinstance(v, tuple) or [type(x) for x in v] == [type(x) for x in w])
    assert parse_action(plain) is plain  # a plain action is passed through as itself


@pytest.mark.parametrize("given, plain", [c[1:] for c in GOOD_FORMS[:3]], ids=[c[0] for c in GOOD_FORMS[:3]])
def test_numpy_forms_step_like_plain_ones(given: Any, plain: Action) -> None:
    env, _, _ = _contacts()
    twin, _, _ = _contacts()
    assert _same_step(env.step(given), twin.step(plain))


@pytest.mark.parametrize(
    "d, reason",
    [
        ({"action_type": "click", "index": 3, "reason": "it is the Save button"}, "takes no key 'reason'"),
        ({"action_type": "navigate_back", "index": 3}, "takes no key 'index'"),
        ({"action_type": "click", "index": 3, "x": 5, "y": 5}, "not both"),
        ({"action_type": "TOUCH", "touch_position": [0.5, 0.5], "keycode": 66}, "takes no key 'keycode'"),
        ({"action_type": 7, "touch_position": [0.5, 0.5]}, "TOUCH (0), LIFT (1) or REPEAT (2)"),
        ({"action_type": np.bool_(True), "touch_position": [0.5, 0.5]}, "action_type must be a string"),
        ({"action_type": "open_app", "app_name": "x" * (MAX_APP + 1)}, "limit"),
        ({"action_type": "answer", "text": math.inf}, "string"),
        ({1: "click"}, "action_type"),
    ],
)
def test_dict_actions_are_checked(d: dict, reason: str) -> None:
    with pytest.raises(ActionParseError, match=re.escape(reason)):
        parse_action(d)
    env, obs, _ = _contacts()
    obs2, _, term, _, info = env.step(d)
    assert info["format_valid"] is False and reason in info["reason"] and obs2 == obs and not term


# ----------------------------------------------------------------------------- never raises

WHOLE_VALUES: list[tuple[str, Callable[[], Any]]] = [
    ("none", lambda: None),
    ("int", lambda: 42),
    ("huge-int", lambda: 10**5000),
    ("float-nan", lambda: math.nan),
    ("bytes", lambda: b'do(action="Back")'),
    ("bytearray", lambda: bytearray(b"{}")),
    ("list", lambda: ['do(action="Back")']),
    ("deeply-nested-list", lambda: _nested(100_000)),
    ("huge-text", lambda: "x" * 10_000_000),
    ("huge-json-text", lambda: '{"action_type": "answer", "text": "' + "x" * 99_000 + '"}'),
    ("deep-json-text", lambda: '{"action_type": ' + "[" * 50_000 + "]" * 50_000 + "}"),
    ("numpy-array", lambda: np.zeros((3, 3))),
    ("hostile-object", lambda: Hostile()),
    ("hostile-str", lambda: HostileStr('do(action="Back")')),
    ("hostile-dict", lambda: HostileDict(action_type="navigate_back")),
    ("dict-with-hostile-values", lambda: {"action_type": Hostile(), "index": Hostile()}),
    ("dict-with-hostile-key", lambda: {"action_type": "click", HostileStr("x"): 1}),
    ("class-attribute-raises", lambda: RaisingClass()),
    ("fake-action", lambda: FakeAction()),
    ("action-subclass-with-hostile-field", lambda: raw_action("tap", index=HostileInt(3))),
    ("action-with-hostile-kind", lambda: raw_action(Hostile())),
    ("type-object", lambda: Action),
    ("function", lambda: print),
    ("exception", lambda: ValueError("x" * 1_000_000)),
]


@pytest.mark.parametrize("make_value", [c[1] for c in WHOLE_VALUES], ids=[c[0] for c in WHOLE_VALUES])
def test_step_never_raises_whatever_the_action(make_value: Callable[[], Any]) -> None:
    env, obs, _ = _contacts()
    twin, _, _ = _contacts()
    obs2, _, term, _, info = env.step(make_value())
    if not info["format_valid"]:
        assert obs2 == obs and not term and 0 < len(info["reason"]) <= MAX_REASON
        assert info["action_kind"] == "invalid"
    else:
        twin.step(make_value())
    # the env goes on exactly like its twin
    assert _same_step(env.step('do(action="Back")'), twin.step('do(action="Back")'))


def test_step_after_the_episode_ended_still_asks_for_reset() -> None:
    env, _, _ = _contacts()
    _, _, term, _, _ = env.step('finish(message="done")')
    assert term
    for action in ('do(action="Back")', Hostile(), None):
        with pytest.raises(gym.error.ResetNeeded):
            env.step(action)
    env.reset(seed=0)
    assert env.step(Hostile())[4]["format_valid"] is False


# ----------------------------------------------------------------------------- no JSON smuggling

SMUGGLED = [
    # a JSON action inside the string argument of a call that does not close
    'do(action="Tap", element="{"action_type": "navigate_home"}"',
    'do(action="Tap", element="{\\"action_type\\": \\"navigate_home\\"}"',
    'do(action="Tap", element=\'{"action_type": "navigate_home"}\'',
    'do(action="Type", text="{\\"action_type\\": \\"navigate_home\\"}"',
    'finish(message=\'{"action_type": "status", "goal_status": "complete"}\'',
    'do(action="Tap", element=[1, 2, 3, {"action_type": "navigate_home"}',
    'do(action="Type", text="```json\n{\\"action_type\\": \\"navigate_home\\"}\n```"',
    'do(action="Tap", element="{\\"action_type\\": \\"navigate_home\\"}"))',
    # a JSON action inside prose (an "Action:" label at a line start, with nothing after, is AndroidWorld's form)
    'I pick Action: {"action_type": "navigate_home"}',
    'Action: {"action_type": "navigate_home"} because the list is long',
    'I\'d rather not.\n```json\n{"action_type": "navigate_home"}\n```',
    # text that starts as JSON but is not one whole object: no call is looked for inside it
    '{"action_type": "navigate_home"} and then some',
    '{"action_type": "answer", "text": "do(action=\'Home\')"',
    '{"action_type": "answer", "text": "x"} do(action="Home")',
    '[{"action_type": "navigate_home"}]',
]


@pytest.mark.parametrize("text", SMUGGLED)
def test_json_inside_other_text_is_never_executed(text: str) -> None:
    with pytest.raises(ActionParseError):
        parse_action(text)
    env, obs, _ = _contacts()
    state = _pickled(env.unwrapped.device.state)
    obs2, _, term, _, info = env.step(text)
    assert info["format_valid"] is False and not term
    assert obs2 == obs and _pickled(env.unwrapped.device.state) == state
    assert env.unwrapped.device.state.foreground == "contacts"  # not sent home


HOME_JSON = '{"action_type": "navigate_home"}'


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"action_type": "navigate_home"}', Action("home")),
        ('  \n{"action_type": "navigate_home"}\n ', Action("home")),
        ('```json\n{"action_type": "navigate_home"}\n```', Action("home")),
        ('```\n{"action_type": "navigate_home"}\n```', Action("home")),
        ('```{"action_type": "navigate_home"}```', Action("home")),
        # JSON as the text a call types is text, not an action
        (
            'do(action="Type", text=\'{"action_type": "navigate_home"}\')',
            Action("type", text='{"action_type": "navigate_home"}'),
        ),
        ('do(action="Back") {"action_type": "navigate_home"}', Action("back")),
    ],
)
def test_json_as_the_whole_text_is_accepted(text: str, expected: Action) -> None:
    assert parse_action(text) == expected


def test_refused_json_in_prose_says_how_to_send_it() -> None:
    with pytest.raises(ActionParseError, match="must be the whole reply"):
        parse_action('I pick {"action_type": "navigate_home"}')


# ----------------------------------------------------------------------------- reasons are capped

HUGE = "x" * 1_000_000


@pytest.mark.parametrize(
    "action",
    [
        {"action_type": HUGE},
        {"action_type": "scroll", "direction": HUGE},
        {"action_type": "status", "goal_status": HUGE},
        {"action_type": "click", "index": [HUGE]},
        {"action_type": "click", HUGE: 1},
        raw_action(HUGE),
        raw_action("swipe", direction=HUGE),
        raw_action("tap", element=HUGE),
        'do(action="' + "x" * 99_000 + '")',
        'do(action="Tap", element="' + "x" * 99_000 + '")',
        "tap " + "x" * 99_000,
        "do(action=" + "x" * 99_000,
        '{"action_type": "' + "x" * 99_000 + '"}',
    ],
    ids=lambda a: quoted(a, 40),
)
def test_reasons_quote_at_most_a_capped_piece_of_agent_text(action: Any) -> None:
    env, _, _ = _contacts()
    _, _, _, _, info = env.step(action)
    reason = info["reason"]
    assert info["format_valid"] is False
    assert len(reason) <= MAX_QUOTE + 400, len(reason)  # the message around one quote is short
    assert "x" * (MAX_QUOTE + 1) not in reason


def test_long_quotes_are_marked_with_the_original_length() -> None:
    _, _, _, _, info = _contacts()[0].step({"action_type": "x" * 5000})
    assert "… (5000 characters)" in info["reason"]
    assert quoted("abc") == "'abc'"
    q = quoted("é" * 10_000)
    assert len(q) <= MAX_QUOTE and q.endswith("… (10000 characters)")
    assert len(quoted("\x00" * 150)) <= MAX_QUOTE  # escapes lengthen the repr: it is cut too
    assert quoted(b"x" * 1000).endswith("… (1000 bytes)")
    assert quoted(10**5000) == "<an integer of 16610 bits>"
    assert quoted([1, [2, [3, [4, [5]]]]]) == "[1, [2, [3, […]]]]"
    assert quoted(list(range(100))).endswith("… 100 items]")
    assert quoted(Hostile()) == "<Hostile object>"  # its hooks are never called
    assert quoted(np.float64(0.5)) == "0.5" and quoted(np.arange(100)) == "<array of shape (100,)>"
    assert clip_text("x" * 50, 30) == "x" * 13 + "… (50 characters)"  # 30 characters, the marker included


def test_backend_reasons_are_capped_by_the_env() -> None:
    class Verbose(SimBackend):
        def act(self, action: Action) -> Outcome:
            out = super().act(action)
            if not out.valid:
                out.reason += " because" * 200_000
            return out

    env = GuiAndroidEnv(task="ContactsAddContact", backend=Verbose())
    env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Type", text="hello")')  # no field has focus
    assert info["format_valid"] is False and len(info["reason"]) <= MAX_REASON
    assert info["reason"].startswith("no text field has focus") and info["reason"].endswith("characters)")
    assert len(info["action_description"]) <= MAX_REASON


def test_device_reasons_quote_typed_text_capped() -> None:
    env, _, _ = _contacts()
    _, _, _, _, info = env.step({"action_type": "open_app", "app_name": "q" * MAX_APP})
    reason = info["reason"]  # the name is quoted cut (its repr has two quote marks more)
    assert info["format_valid"] is False and "… (200 characters)" in reason and "q" * MAX_QUOTE not in reason
    assert len(reason) < MAX_QUOTE + 300


# ----------------------------------------------------------------------------- invalid is a no-op


def test_invalid_actions_leave_a_pending_gesture_alone() -> None:
    env, _, info = _contacts()
    twin, _, _ = _contacts()
    fab = next(e for e in info["ui_elements"] if e.content_description == "Create contact")
    l, t, r, b = element_box(fab)
    pos = [((l + r) / 2 + 0.5) / 1080, ((t + b) / 2 + 0.5) / 2400]
    touch = {"action_type": "TOUCH", "touch_position": pos}
    assert _same_step(env.step(touch), twin.step(touch))
    for bad in (
        {"action_type": "LIFT", "touch_position": [math.nan, 0.5]},
        {"action_type": "LIFT", "touch_position": [0.5, 1.5]},
        {"action_type": 1, "touch_position": pos, "extra": 1},
        raw_action("lift", touch_position=(0.5, math.inf)),
        raw_action("lift"),
        'do(action="Tap", element=[500,40,520,60])',  # the status bar: nothing clickable
        {"action_type": "click", "index": 10_000},
        'do(action="Type", text="hello")',  # no field has focus
    ):
        _, _, _, _, info = env.step(bad)
        assert info["format_valid"] is False, bad
        assert env.unwrapped.device.state.touches == twin.unwrapped.device.state.touches
    lift = {"action_type": "LIFT", "touch_position": pos}
    out, twin_out = env.step(lift), twin.step(lift)
    assert out[4]["format_valid"] and "Create contact" in out[4]["action_description"]
    assert _same_step(out, twin_out) and _pickled(env.unwrapped.device.state) == _pickled(twin.unwrapped.device.state)


def test_an_invalid_action_lets_no_time_pass() -> None:
    """A toast shows for one more step and the clock moves with valid steps only, so an invalid
    step in between changes neither (as a twin that never got it shows)."""
    env, _, _ = _contacts()
    twin, _, _ = _contacts()
    for _ in range(3):
        env.step('do(action="Tap", element=[500,40,520,60])')  # nothing clickable
        env.step({"action_type": "LIFT", "touch_position": [0.5, 0.5]})  # no TOUCH before it
    assert env.unwrapped.device.state.now == twin.unwrapped.device.state.now
    assert env.unwrapped.device.state.step == twin.unwrapped.device.state.step
    for action in ('do(action="Wait")', 'do(action="Back")'):
        assert _same_step(env.step(action), twin.step(action))


def test_a_time_typed_with_too_many_digits_is_refused_with_a_capped_reason() -> None:
    """An hour of 400 nines once overflowed out of step(); now OK is refused, quoting a capped piece."""
    env = make("ClockAlarmAdd", max_steps=50)
    env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Launch", app="Clock")')
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Add alarm")))
    hour = find_el(info, resource_name="android:id/input_hour")
    env.step({"action_type": "click", "index": index_of(info, hour)})
    # AndroidLab's Type deletes the hour's two digits first, types 400 nines, presses Enter.
    _, _, _, _, info = env.step(f'do(action="Type", text="{"9" * 400}")')
    assert info["format_valid"], info.get("reason")
    ok = find_el(info, resource_name="android:id/button1")  # indices follow the screen as it is now
    obs, _, _, _, info = env.step({"action_type": "click", "index": index_of(info, ok)})
    reason = info["reason"]
    assert info["format_valid"] is False and reason.startswith("invalid time")
    assert "9" * (MAX_QUOTE + 1) not in reason and "… (400 characters)" in reason
    assert "android:id/input_hour" in obs["ui"]  # the picker is still open


@pytest.mark.parametrize(
    "reply",
    [
        'Reason: the home screen has the app.\nAction: {"action_type": "navigate_home"}',
        'Reason: go home.\nAction: ```json\n{"action_type": "navigate_home"}\n```',
        '**Action:** {"action_type": "navigate_home"}',
    ],
)
def test_androidworld_reason_then_labelled_json_action_is_accepted(reply: str) -> None:
    assert parse_action(reply).kind == "home"


@pytest.mark.parametrize(
    "reply",
    [
        'do(action="Type", text="Action: {\\"action_type\\": \\"navigate_home\\"}',  # inside a broken call
        'I would say Action: {"action_type": "navigate_home"}',  # the label is not at a line start
        'Action: {"action_type": "navigate_home"} then more',  # not all that follows the label
    ],
)
def test_labelled_json_elsewhere_is_refused(reply: str) -> None:
    with pytest.raises(ActionParseError):
        parse_action(reply)


# ----------------------------------------------------------------------------- key presses

#: Every syntax of a standalone Enter: AndroidLab's and MobileRL's text, AndroidWorld's JSON, the object.
ENTERS: list[tuple[Any, str]] = [
    ('do(action="Enter")', "androidlab"),
    ('do(action="Press Enter")', "androidlab"),
    ('do(action="Enter")', "mobilerl"),
    ('do(action="Press Enter")', "mobilerl"),
    ('{"action_type": "keyboard_enter"}', "androidlab"),
    ({"action_type": "keyboard_enter"}, "androidlab"),
    (Action("enter"), "androidlab"),
]


def _at(setup: list[str], dialect: str = "androidlab", max_steps: int = 50) -> tuple[Any, dict]:
    env = make("ContactsAddContact", max_steps=max_steps, action_dialect=dialect)
    _, info = env.reset(seed=0)
    for action in setup:
        _, _, _, _, info = env.step(action)
        assert info["format_valid"], info
    return env, info


@pytest.mark.parametrize("setup", [[], [LAUNCH]], ids=["home", "contacts"])
@pytest.mark.parametrize("enter, dialect", ENTERS, ids=[f"{d}:{a!r}" for a, d in ENTERS])
def test_a_standalone_enter_with_nothing_to_act_on_is_valid_and_changes_nothing(
    setup: list[str], enter: Any, dialect: str
) -> None:
    """A key press a phone takes is a valid action with or without an effect (as Back on the home
    screen is): with no focused field, Enter says it did nothing, changes nothing but the clock,
    and still costs a step."""
    env, _ = _at(setup, dialect, max_steps=len(setup) + 1)
    dev = env.unwrapped.device
    state, screen, step = state_key(dev), screen_key(dev), dev.state.step
    _, reward, term, trunc, info = env.step(enter)
    assert info["format_valid"] is True and info["action_kind"] == "input" and "reason" not in info
    assert info["action_description"] == "Press Enter (nothing happens: no text field has focus)"
    assert (state_key(dev), screen_key(dev)) == (state, screen)
    assert dev.state.step == step + 1  # the phone took the key event
    assert trunc and not term and reward == 0.0  # the step was spent


@pytest.mark.parametrize("key, said", [("Back", "on the home screen (nothing happens)"), ("Home", "home screen")])
def test_back_and_home_with_nothing_to_act_on_are_valid_too(key: str, said: str) -> None:
    env, _ = _at([], max_steps=3)
    dev = env.unwrapped.device
    state, screen = state_key(dev), screen_key(dev)
    for action in (f'do(action="{key}")', f'do(action="Press {key}")'):
        _, _, _, _, info = env.step(action)
        assert info["format_valid"] is True and info["action_kind"] == "navigate", info
        assert said in info["action_description"]
        assert (state_key(dev), screen_key(dev)) == (state, screen)


def test_enter_in_a_full_multiline_field_is_valid_and_changes_nothing() -> None:
    """Enter's other way of doing nothing (no room for the line break) is a key press too."""
    from gui_gym.android.sim.widgets import MAX_FIELD_CHARS

    env = make("MarkorCreateNote", max_steps=80)
    env.reset(seed=0)
    dev = env.unwrapped.device
    for _ in range(30):
        fh = dev.focused_host()
        if fh is not None and fh[1] in fh[0].multiline:
            break
        env.step(env.unwrapped.oracle_action())
    else:
        raise AssertionError("the oracle never focused a multi-line field")
    host, key = fh
    host.form[key] = "x" * MAX_FIELD_CHARS
    dev.invalidate()
    state = state_key(dev)
    _, _, _, _, info = env.step('do(action="Enter")')
    assert info["format_valid"] and info["action_description"].startswith("Press Enter (nothing happens: ")
    assert state_key(dev) == state and host.form[key] == "x" * MAX_FIELD_CHARS


def _search_typed(dialect: str) -> tuple[Any, dict]:
    """Contacts with its search field open and focused (the toolbar's "Search contacts" button)."""
    env, info = _at([LAUNCH], dialect)
    _, _, _, _, info = env.step(tap(find_el(info, content_description="Search contacts")))
    assert info["format_valid"] and env.unwrapped.device.focused_host() is not None, info
    return env, info


def test_enter_after_a_mobilerl_type_submits_as_androidlab_type_does() -> None:
    """MobileRL's executor types (no Enter) and then sends a standalone Enter; AndroidLab's Type
    presses the Enter itself. On the Contacts search field, both submit the search: the same
    phone, down to the whole device state."""
    lab, _ = _search_typed("androidlab")
    _, _, _, _, lab_info = lab.step('do(action="Type", text="Ann")')
    assert lab_info["format_valid"], lab_info
    assert lab_info["action_description"].startswith('Search contacts for "Ann"')

    mrl, _ = _search_typed("mobilerl")
    _, _, _, _, typed = mrl.step('do(action="Type", text="Ann")')
    assert typed["format_valid"] and mrl.unwrapped.device.focused_host() is not None  # typed, not submitted
    _, _, _, _, info = mrl.step('do(action="Enter")')
    assert info["format_valid"] is True and info["action_kind"] == "input"
    assert info["action_description"] == 'Search contacts for "Ann"'
    assert mrl.unwrapped.device.focused_host() is None  # submitted: the field lost its focus
    assert state_key(mrl.unwrapped.device) == state_key(lab.unwrapped.device)
    assert screen_key(mrl.unwrapped.device) == screen_key(lab.unwrapped.device)
    # and a second Enter, with the field gone, is the valid no-op
    _, _, _, _, again = mrl.step({"action_type": "keyboard_enter"})
    assert again["format_valid"] and "nothing happens" in again["action_description"]


def test_enter_over_adb_with_no_focused_field_is_taken_silently() -> None:
    """``input keyevent KEYCODE_ENTER`` (AndroidWorld's ``press_enter_button``) on the simulator's
    adb: like a phone, it takes the key and reports nothing, whether or not a field has focus."""
    from gui_gym.android.sim.adb.shell import Shell

    env, _ = _at([LAUNCH])
    dev = env.unwrapped.device
    state, step = state_key(dev), dev.state.step
    sh = Shell(dev)
    for command in ("input keyevent KEYCODE_ENTER", "input keyevent 66"):
        result = sh.run(command)
        assert result.status == 0 and result.stderr == b"", result
    assert state_key(dev) == state and dev.state.step == step + 2
