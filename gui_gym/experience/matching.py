"""EMPO's rule reward: reading the agent's response, matching it to the expert step, Eq. 4.

**Reading** (:func:`read_response`). The agent answers as EMPO's prompt asks (Fig. 22:
``<think>…</think><action>{"action": "click", "coordinate": [x, y]}</action>``), with the bare
JSON, or in any syntax ``GuiAndroid-v0`` reads (AndroidLab's ``do(...)``, AndroidWorld's JSON):
all become a :class:`~gui_gym.experience.record.UIAction` (a ``Tap`` is a click at its centre,
a finger ``Swipe`` up scrolls the content down, ``Launch`` opens, ``Back``/``Home``/``Enter``
are system buttons, ``finish()`` terminates, ``finish(message=...)`` answers).

**Matching** (App. C, with the thresholds of EMPO's released code, which the paper leaves out):

- the type: ``r_type = I[a_pred = a_gt]`` (an ``answer`` also takes ``finish(message=…)``);
- click and long press: the point inside the expert's element's box enlarged ×1.2 about its
  centre (:func:`target_boxes`), or within 0.04 of the expert's point, both normalised by the
  screen's width and height (``||p_pred − p_gt||₂ ≤ 0.04``);
- type, answer, key and open: relaxed text match — lower case, stripped, one inside the other;
- swipe: the same content direction; system button: the same name (any case);
- wait and terminate: the type alone.

**Reward** (Eq. 4): ``r = 0.1·r_format + 0.4·I[r_format = 1]·r_type + 0.5·I[r_format·r_type =
1]·r_acc`` ∈ {0, 0.1, 0.5, 1}; the step matches (Eq. 3) when ``r_format·r_type·r_acc = 1``.
``r_format`` is 1 when the response reads as one action (and, with ``require_thought``, holds a
non-empty ``<think>``). ``rule="released"`` is the authors' code instead
(:mod:`gui_gym.experience.released`): ``0.1·[non-empty think] + 0.9·s`` with s = 1 (type and
accuracy), 0.5 (type), 0.1 (another action), 0 (none), ungated, with that code's own reading of
responses and matching; a step matches on type and accuracy alone.

Example (Eq. 4 by hand: format and type right, the point 0.05 away → 0.1 + 0.4 = 0.5):
    >>> from gui_gym.experience.record import ExpertStep, UIAction
    >>> step = ExpertStep(UIAction("click", point=(540, 1200)))
    >>> score_step('{"action": "click", "coordinate": [594, 1200]}', step, (1080, 2400)).reward
    0.5
    >>> score_step('do(action="Tap", element=[560,1210])', step, (1080, 2400)).reward
    1.0
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gui_gym.experience.record import (
    ACTIONS,
    Box,
    ExperienceError,
    ExpertStep,
    UIAction,
    content_direction,
    finger_direction,
)

__all__ = [
    "BOX_SCALE",
    "POINT_DISTANCE",
    "RULES",
    "Response",
    "StepScore",
    "click_matches",
    "read_response",
    "score_step",
    "step_reward",
    "target_boxes",
    "text_matches",
    "to_ui_action",
]

#: A candidate box is enlarged by this factor about its centre (released code, ``BBOX_ENLARGE_FACTOR``).
BOX_SCALE = 1.2
#: The largest normalised distance of a matching click (released code, ``POINT_DISTANCE_THRESHOLD``).
POINT_DISTANCE = 0.04
#: ``paper`` (Eq. 3-4 as printed) or ``released`` (the authors' code).
RULES = ("paper", "released")

_THINK = re.compile(r"<think>(.*?)</think>", re.S)
_ACTION = re.compile(r"<action>(.*?)</action>", re.S)
_ANDROID_KINDS = {
    "tap": "click",
    "long_press": "long_press",
    "double_tap": None,
    "type": "type",
    "input_text": "type",
    "launch": "open",
    "wait": "wait",
    "answer": "answer",
}
_BUTTON_KINDS = {"back": "Back", "home": "Home", "enter": "Enter"}


@dataclass(frozen=True)
class Response:
    """An agent's response read: its ``action`` (``None`` if none could be read, with the
    ``reason``) and its ``thought`` (the ``<think>`` text, or ``None`` without one)."""

    action: UIAction | None
    thought: str | None = None
    reason: str = ""
    also_terminate: bool = False  # finish(message=...): an answer that also ends the task


@dataclass(frozen=True)
class StepScore:
    """Eq. 4's parts for one step: ``format``, ``type``, ``accuracy`` (0/1 each), the ``reward``
    and whether the step ``matched`` (Eq. 3: the expert's next screen follows)."""

    format: int
    type: int
    accuracy: int
    reward: float
    matched: bool
    response: Response


def to_ui_action(action: Any) -> tuple[UIAction | None, bool]:
    """A :class:`gui_gym.android.actions.Action` as a UIAction (``None`` where the space has
    none, such as a double tap) and whether it also terminates (``finish(message=...)``)."""
    kind = action.kind
    if kind in _BUTTON_KINDS:
        return UIAction("system_button", button=_BUTTON_KINDS[kind]), False
    if kind in ("swipe", "scroll"):
        if kind == "scroll":
            return UIAction("swipe", direction=action.direction or "down"), False
        if action.end is not None and action.point is not None:
            return UIAction("swipe", point=action.point, point2=action.end), False
        return UIAction("swipe", direction=content_direction(action.direction or "up")), False
    if kind in ("finish", "status"):
        if kind == "status":
            return UIAction("terminate", status="success" if action.goal_status == "complete" else "failure"), False
        if action.text:
            return UIAction("answer", text=action.text), True
        return UIAction("terminate", status="success"), False
    mapped = _ANDROID_KINDS.get(kind)
    if mapped is None:
        return None, False
    if mapped in ("click", "long_press"):
        point = action.center()
        if point is None:
            return None, False  # by index: the env resolves it to a point before this
        return UIAction(mapped, point=point), False
    if mapped == "open":
        return UIAction("open", text=action.app or ""), False
    if mapped in ("type", "answer"):
        return UIAction(mapped, text=action.text or ""), False
    return UIAction(mapped, time=None), False


def _from_json(d: dict[str, Any]) -> UIAction:
    """UI-S1's action JSON (``action`` and its arguments at one level)."""
    name = d.get("action")
    if not isinstance(name, str) or name not in ACTIONS:
        raise ExperienceError(f"'action' must be one of {', '.join(ACTIONS)}, got {str(name)[:40]!r}")
    return UIAction(
        name,
        point=d.get("coordinate"),
        point2=d.get("coordinate2"),
        direction=d.get("direction"),
        text=d.get("text"),
        button=d.get("button"),
        status=d.get("status"),
        time=d.get("time"),
    )


def read_response(text: Any, dialect: str = "androidlab") -> Response:
    """The action (and thought) of an agent's response; never raises: whatever the text, an
    action, or ``None`` with the reason."""
    try:
        return _read(text, dialect)
    except (ValueError, OverflowError, RecursionError, TypeError, MemoryError) as err:  # crafted numbers, nesting
        return Response(None, None, f"unreadable response ({type(err).__name__})")


def _read(text: Any, dialect: str) -> Response:
    if not isinstance(text, str):
        return Response(None, None, f"a response is text, not {type(text).__name__}")
    if len(text) > 100_000:
        return Response(None, None, f"a response of {len(text)} characters; at most 100000")
    think = _THINK.search(text)
    thought = think.group(1).strip() if think else None
    tagged = _ACTION.search(text)
    body = (tagged.group(1) if tagged else _THINK.sub("", text, count=1) if think else text).strip()
    if body.startswith("{"):
        try:
            data = json.loads(body)
        except json.JSONDecodeError as err:
            return Response(None, thought, f"the action is not JSON: {err}")
        if isinstance(data, dict) and "action" in data:
            try:
                return Response(_from_json(data), thought)
            except ExperienceError as err:
                return Response(None, thought, str(err))
    from gui_gym.android.actions import ActionParseError, parse_action

    try:
        parsed = parse_action(body, dialect=dialect)
    except ActionParseError as err:
        return Response(None, thought, str(err)[:300])
    try:
        action, also_terminate = to_ui_action(parsed)
    except ExperienceError as err:
        return Response(None, thought, str(err))
    if action is None:
        return Response(None, thought, f"a {parsed.kind} is no action of this space ({', '.join(ACTIONS)})")
    return Response(action, thought, also_terminate=also_terminate)


def _enlarged(box: Box, scale: float) -> Box:
    x1, y1, x2, y2 = box
    cx, cy, hw, hh = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) * scale / 2, (y2 - y1) * scale / 2
    return cx - hw, cy - hh, cx + hw, cy + hh


def click_matches(
    point: Sequence[float], expert: Sequence[float], boxes: Sequence[Box], screen: tuple[int, int]
) -> bool:
    """App. C: inside a box enlarged ×1.2 (edges included), or within 0.04 of the expert's point
    in coordinates normalised by the screen's width and height."""
    x, y = float(point[0]), float(point[1])
    for box in boxes:
        x1, y1, x2, y2 = _enlarged(box, BOX_SCALE)
        if x1 <= x <= x2 and y1 <= y <= y2:
            return True
    w, h = screen
    return math.hypot(x / w - float(expert[0]) / w, y / h - float(expert[1]) / h) <= POINT_DISTANCE + 1e-12


def target_boxes(step: ExpertStep) -> list[Box]:
    """The box a click is matched against: the expert's element (``action.box``), else the smallest
    candidate box under its point. The containers around it are no target: a box of the whole
    screen would match any click (UI-S1's training reward, too, checks the one ``bbox``)."""
    if step.action.box is not None:
        return [step.action.box]
    return list(step.boxes[:1])


def text_matches(predicted: str | None, expert: str | None) -> bool:
    """App. C's relaxed string match: lower case and stripped, one inside the other (an empty
    prediction matches only an empty expert text)."""
    p, e = (predicted or "").strip().lower(), (expert or "").strip().lower()
    if not p or not e:
        return p == e
    return p in e or e in p


def _accurate(pred: UIAction, step: ExpertStep, screen: tuple[int, int]) -> bool:
    gt = step.action
    if gt.action in ("click", "long_press"):
        assert pred.point is not None and gt.point is not None
        return click_matches(pred.point, gt.point, target_boxes(step), screen)
    if gt.action in ("type", "answer", "key", "open"):
        return text_matches(pred.text, gt.text)
    if gt.action == "swipe":
        return _content_way(pred, screen) == _content_way(gt, screen)
    if gt.action == "system_button":
        return (pred.button or "").lower() == (gt.button or "").lower()
    return True  # wait, terminate: the type alone (App. C)


def _content_way(swipe: UIAction, screen: tuple[int, int]) -> str | None:
    """The way a swipe moves the content: from its finger path, its axis read in coordinates
    normalised by the screen (as UI-S1 reads it), else its direction."""
    if swipe.point is not None and swipe.point2 is not None:
        return content_direction(finger_direction(swipe.point, swipe.point2, screen))
    return swipe.direction


def step_reward(fmt: int, type_: int, acc: int, rule: str = "paper", parsed: bool = True) -> float:
    """Eq. 4 (``paper``) or the released code's split (``released``; *fmt* is then its
    non-empty-think check and *parsed* whether an action was read)."""
    if rule == "paper":
        return 0.1 * fmt + 0.4 * (fmt == 1) * type_ + 0.5 * (fmt * type_ == 1) * acc
    if rule == "released":
        score = 1.0 if type_ and acc else 0.5 if type_ else 0.1 if parsed else 0.0
        return round(0.1 * fmt + 0.9 * score, 10)
    raise ValueError(f"rule must be one of {RULES}, got {rule!r}")


def score_step(
    response: Any,
    step: ExpertStep,
    screen: tuple[int, int],
    rule: str = "paper",
    require_thought: bool = False,
    dialect: str = "androidlab",
) -> StepScore:
    """Read *response*, match it to *step* and score it (see the module docstring)."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
    read = response if isinstance(response, Response) else read_response(response, dialect)
    if rule == "released":
        from gui_gym.experience.released import released_score

        score, fmt, type_ok, accurate = released_score(response, step, screen)
        return StepScore(fmt, int(type_ok), int(type_ok and accurate), score, type_ok and accurate, read)
    pred, gt = read.action, step.action
    if pred is None:
        return StepScore(0, 0, 0, 0.0, False, read)
    type_ok = pred.action == gt.action or (read.also_terminate and gt.action == "terminate")
    acc = int(type_ok and _accurate(pred, step, screen))
    fmt = int(not require_thought or bool(read.thought))
    reward = step_reward(fmt, int(type_ok), acc, rule)
    return StepScore(fmt, int(type_ok), acc, reward, bool(fmt and type_ok and acc), read)
