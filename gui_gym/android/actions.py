"""The canonical GUI action and the one parser for every accepted text syntax.

Three syntaxes are understood, and :func:`parse_action` tells them apart by shape:

``androidlab`` (AndroidLab, MobileRL Table 5)::

    do(action="Tap", element=[40,300,1040,420])
    do(action="Type", text="Sofia Lopez")
    do(action="Swipe", direction="up", dist="medium")      # finger direction
    do(action="Long Press", element=[40,300,1040,420])
    do(action="Launch", app="Contacts")
    do(action="Back") / do(action="Home") / do(action="Wait") / do(action="Enter")
    finish(message="done")

``androidworld`` (AndroidWorld's JSON action)::

    {"action_type": "click", "index": 3}          # or "x"/"y"
    {"action_type": "input_text", "text": "hi", "index": 5}
    {"action_type": "scroll", "direction": "down"} # content direction, as AndroidWorld
    {"action_type": "status", "goal_status": "complete"}
    {"action_type": "answer", "text": "42"}

``android_env`` (DeepMind android_env's raw touch)::

    {"action_type": "TOUCH", "touch_position": [0.5, 0.25]}   # normalised x, y
    {"action_type": "LIFT", "touch_position": [0.5, 0.25]}

Example:
    >>> a = parse_action('do(action="Tap", element=[40,300,1040,420])')
    >>> a.kind, a.element, a.center()
    ('tap', (40, 300, 1040, 420), (540, 360))
    >>> format_action(a, "androidworld")
    '{"action_type": "click", "x": 540, "y": 360}'
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import asdict, dataclass
from typing import Any

__all__ = [
    "ACTION_KINDS",
    "CONTRACT_KINDS",
    "DIRECTIONS",
    "DISTANCES",
    "SYNTAXES",
    "Action",
    "ActionParseError",
    "contract_kind",
    "format_action",
    "parse_action",
]

#: Every action kind the envs understand.
ACTION_KINDS = (
    "tap",  # element bbox, point, or ui-element index
    "long_press",
    "type",  # text into the focused field
    "input_text",  # AndroidWorld: tap target, type, press Enter
    "swipe",  # finger direction
    "scroll",  # content direction (AndroidWorld)
    "launch",
    "back",
    "home",
    "wait",
    "enter",
    "finish",  # AndroidLab finish(message=...)
    "status",  # AndroidWorld status: complete / infeasible
    "answer",
    "touch",  # android_env raw touch down / move
    "lift",  # android_env raw touch up
)
DIRECTIONS = ("up", "down", "left", "right")
DISTANCES = ("short", "medium", "long")
SYNTAXES = ("androidlab", "androidworld", "android_env")
GOAL_STATUSES = ("complete", "infeasible")
MAX_TEXT = 10_000  # longer payloads are refused by the parser
_MAX_INPUT = 100_000  # longer raw inputs are refused before any parsing
_MAX_SCANS = 64  # fresh parenthesis scans per text (see _call_spans)
_MAX_PARSES = 64  # call spans parsed per text, from the last


class ActionParseError(ValueError):
    """Raised by :func:`parse_action` with a reason an agent can read."""


@dataclass(frozen=True)
class Action:
    """One GUI action. Only the fields that matter for ``kind`` are set.

    ``element`` is a bbox ``(x1, y1, x2, y2)`` in device pixels, ``point`` an ``(x, y)``
    pixel, ``index`` an index into ``info["ui_elements"]``, ``touch_position`` a normalised
    ``(x, y)`` in [0, 1] (android_env).
    """

    kind: str
    element: tuple[int, int, int, int] | None = None
    point: tuple[int, int] | None = None
    index: int | None = None
    text: str | None = None
    direction: str | None = None
    dist: str | None = None
    app: str | None = None
    goal_status: str | None = None
    touch_position: tuple[float, float] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ACTION_KINDS:
            raise ActionParseError(f"unknown action kind {self.kind!r}; expected one of {ACTION_KINDS}")

    def center(self) -> tuple[int, int] | None:
        """The pixel this action points at, if it names one by bbox or point."""
        if self.element is not None:
            x1, y1, x2, y2 = self.element
            return (x1 + x2) // 2, (y1 + y2) // 2
        return self.point

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Action:
        d = dict(d)
        for key in ("element", "point", "touch_position"):
            if d.get(key) is not None:
                d[key] = tuple(d[key])
        return cls(**d)


# ----------------------------------------------------------------------------- parsing


def parse_action(action: str | dict | Action) -> Action:
    """Parse any accepted syntax into an :class:`Action`.

    Accepts text in the androidlab, androidworld or android_env syntax (surrounding prose such
    as ``"Action: do(...)"`` or a fenced block is tolerated: the last action found wins), a
    dict in either JSON syntax, or an :class:`Action`. Raises :class:`ActionParseError` with
    the reason on anything else; never raises another exception type.
    """
    try:
        if isinstance(action, Action):
            return action
        if isinstance(action, dict):
            return _from_json_dict(action)
        if not isinstance(action, str):
            raise ActionParseError(f"an action must be text, a dict or an Action, not {type(action).__name__}")
        if len(action) > _MAX_INPUT:
            raise ActionParseError(f"action text is {len(action)} characters; the limit is {_MAX_INPUT}")
        text = action.strip()
        if not text:
            raise ActionParseError("empty action")
        return _parse_text(text)
    except ActionParseError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, RecursionError, MemoryError) as e:
        raise ActionParseError(f"malformed action: {e}") from None


_CALL_START = re.compile(r"\b(do|finish)\s*\(")


def _parse_text(text: str) -> Action:
    # JSON first when the text is (or contains) an object.
    if text[0] == "{":
        obj = _first_json_object(text, 0)
        if obj is not None:
            return _from_json_dict(obj)
    # Find each call's span by matching its parentheses (outside string literals), left to
    # right, so a call inside another call's string argument (do(action="Type",
    # text="finish()")) is never taken for an action. Then parse the spans from the last
    # back: the last action in the text wins.
    spans = _call_spans(text)
    error = None
    for start, end in reversed(spans[-_MAX_PARSES:]):
        try:
            tree = ast.parse(text[start : end + 1], mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if isinstance(tree.body, ast.Call) and isinstance(tree.body.func, ast.Name):
            try:
                return _from_call(tree.body)
            except ActionParseError as e:  # call-shaped prose such as "do (this)"
                error = error or e
    starts = bool(spans) or _CALL_START.search(text) is not None
    brace = text.find("{")
    if brace >= 0:
        obj = _first_json_object(text, brace)
        if obj is not None:
            return _from_json_dict(obj)
    if error is not None:
        raise error
    if starts:
        raise ActionParseError(f"could not parse the call in {text[:120]!r}: unbalanced or not literal arguments")
    raise ActionParseError(f"no action found in {text[:120]!r}: expected do(action=...), finish(...), or a JSON action")


def _first_json_object(text: str, start: int) -> dict | None:
    try:
        obj, _ = json.JSONDecoder().raw_decode(text, start)
    except (json.JSONDecodeError, RecursionError):
        return None
    return obj if isinstance(obj, dict) else None


def _call_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each top-level ``do(...)``/``finish(...)`` whose parentheses
    balance outside string literals; calls nested inside an earlier span are skipped.

    Linear in the text for ordinary input: one scan from an opening resolves every
    parenthesis it passes outside a string, so later openings are looked up, not rescanned.
    Openings first met inside a string literal need their own scan; at most
    ``_MAX_SCANS`` of those are made, which bounds adversarial input.
    """
    close_of: dict[int, int] = {}
    seen: set[int] = set()  # parens met outside strings by some scan
    spans: list[tuple[int, int]] = []
    covered = -1
    scans = _MAX_SCANS
    for m in _CALL_START.finditer(text):
        start, paren = m.start(), m.end() - 1
        if start <= covered:
            continue
        if paren not in seen:
            if scans == 0:
                break
            scans -= 1
            _scan_parens(text, paren, close_of, seen)
        end = close_of.get(paren)
        if end is not None:
            spans.append((start, end))
            covered = end
    return spans


def _scan_parens(text: str, paren: int, close_of: dict[int, int], seen: set[int]) -> None:
    """Match parentheses from ``paren`` until it closes (or the text ends)."""
    stack: list[int] = []
    quote = ""
    i, n = paren, len(text)
    while i < n:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c == '"' or c == "'":
            quote = c
        elif c == "(":
            stack.append(i)
            seen.add(i)
        elif c == ")" and stack:
            close_of[stack.pop()] = i
            if not stack:
                return
        i += 1


def _literal(node: ast.AST) -> Any:
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        raise ActionParseError("arguments must be literals (strings, numbers, lists)") from None


_LAB_KINDS = {
    "tap": "tap",
    "click": "tap",
    "type": "type",
    "swipe": "swipe",
    "scroll": "swipe",
    "long press": "long_press",
    "long_press": "long_press",
    "longpress": "long_press",
    "launch": "launch",
    "open": "launch",
    "back": "back",
    "home": "home",
    "wait": "wait",
    "enter": "enter",
    "press enter": "enter",
}


def _from_call(call: ast.Call) -> Action:
    name = call.func.id  # type: ignore[attr-defined]
    if call.args and name == "finish":
        kwargs = {"message": _literal(call.args[0])}
    elif call.args:
        raise ActionParseError(f'{name}() takes keyword arguments only, e.g. do(action="Tap", element=[...])')
    else:
        kwargs = {}
    for kw in call.keywords:
        if kw.arg is None:
            raise ActionParseError("**kwargs are not accepted in an action")
        kwargs[kw.arg] = _literal(kw.value)
    if name == "finish":
        unknown = set(kwargs) - {"message"}
        if unknown:
            raise ActionParseError(f"finish() got unexpected arguments {sorted(unknown)}")
        msg = kwargs.get("message")
        return Action("finish", text=None if msg is None else _text(msg, "message"))
    if name != "do":
        raise ActionParseError(f"unknown call {name}(); expected do(...) or finish(...)")
    verb = kwargs.pop("action", None)
    if not isinstance(verb, str):
        raise ActionParseError(
            'do() needs action="Tap"|"Type"|"Swipe"|"Long Press"|"Launch"|"Back"|"Home"|"Wait"|"Enter"'
        )
    kind = _LAB_KINDS.get(verb.strip().lower())
    if kind is None:
        raise ActionParseError(
            f"unknown action {verb!r}; expected one of Tap, Type, Swipe, Long Press, Launch, Back, Home, Wait, Enter"
        )
    allowed = {
        "tap": {"element"},
        "long_press": {"element"},
        "type": {"text"},
        "swipe": {"direction", "dist", "element"},
        "launch": {"app"},
    }.get(kind, set())
    unknown = set(kwargs) - allowed
    if unknown:
        raise ActionParseError(f"{verb} got unexpected arguments {sorted(unknown)}")
    if kind in ("tap", "long_press"):
        if "element" not in kwargs:
            raise ActionParseError(f"{verb} needs element=[x1,y1,x2,y2]")
        return Action(kind, element=_bbox(kwargs["element"]))
    if kind == "type":
        if "text" not in kwargs:
            raise ActionParseError('Type needs text="..."')
        return Action("type", text=_text(kwargs["text"], "text"))
    if kind == "swipe":
        direction = _direction(kwargs.get("direction"))
        dist = kwargs.get("dist", "medium")
        if not isinstance(dist, str) or dist.lower() not in DISTANCES:
            raise ActionParseError(f"dist must be one of {DISTANCES}, got {dist!r}")
        element = _bbox(kwargs["element"]) if kwargs.get("element") is not None else None
        return Action("swipe", direction=direction, dist=dist.lower(), element=element)
    if kind == "launch":
        return Action("launch", app=_text(kwargs.get("app"), "app", nonempty=True))
    return Action(kind)


_WORLD_KINDS = {
    "click": "tap",
    "tap": "tap",
    "long_press": "long_press",
    "input_text": "input_text",
    "type": "input_text",
    "scroll": "scroll",
    "swipe": "swipe",
    "navigate_home": "home",
    "navigate_back": "back",
    "open_app": "launch",
    "wait": "wait",
    "status": "status",
    "answer": "answer",
    "keyboard_enter": "enter",
}
_RAW_KINDS = {"TOUCH": "touch", "LIFT": "lift", "REPEAT": "touch", "0": "touch", "1": "lift", "2": "touch"}


def _from_json_dict(d: dict) -> Action:
    if "action_type" not in d:
        raise ActionParseError('a JSON action needs "action_type"')
    raw_type = d["action_type"]
    if hasattr(raw_type, "item"):  # numpy scalar from android_env
        raw_type = raw_type.item()
    if isinstance(raw_type, bool) or not isinstance(raw_type, (str, int)):
        raise ActionParseError(f"action_type must be a string, got {type(raw_type).__name__}")
    if isinstance(raw_type, int) or raw_type in ("TOUCH", "LIFT", "REPEAT"):
        return _from_raw(str(raw_type), d)
    kind = _WORLD_KINDS.get(raw_type.strip().lower())
    if kind is None:
        raise ActionParseError(f"unknown action_type {raw_type!r}; expected one of {sorted(_WORLD_KINDS)}")
    if kind in ("tap", "long_press", "input_text"):
        index, point = _target(d, required=kind != "input_text")
        text = _text(d.get("text"), "text") if kind == "input_text" else None
        if kind == "input_text" and text is None:
            raise ActionParseError('input_text needs "text"')
        return Action(kind, index=index, point=point, text=text)
    if kind in ("scroll", "swipe"):
        index, point = _target(d, required=False)
        return Action(kind, direction=_direction(d.get("direction")), index=index, point=point)
    if kind == "launch":
        return Action("launch", app=_text(d.get("app_name", d.get("app")), "app_name", nonempty=True))
    if kind == "status":
        status = d.get("goal_status", d.get("status"))
        if not isinstance(status, str) or status.lower() not in GOAL_STATUSES:
            raise ActionParseError(f'status needs "goal_status" in {GOAL_STATUSES}, got {status!r}')
        return Action("status", goal_status=status.lower())
    if kind == "answer":
        text = _text(d.get("text"), "text")
        if text is None:
            raise ActionParseError('answer needs "text"')
        return Action("answer", text=text)
    return Action(kind)


def _from_raw(raw_type: str, d: dict) -> Action:
    kind = _RAW_KINDS.get(raw_type)
    if kind is None:
        raise ActionParseError(f"android_env action_type must be TOUCH(0), LIFT(1) or REPEAT(2), got {raw_type}")
    pos = d.get("touch_position")
    if pos is None:
        raise ActionParseError("android_env actions need touch_position [x, y] in [0, 1]")
    if hasattr(pos, "tolist"):
        pos = pos.tolist()
    if not isinstance(pos, (list, tuple)) or len(pos) != 2:
        raise ActionParseError("touch_position must be two numbers [x, y] in [0, 1]")
    xy = []
    for v in pos:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or not 0.0 <= v <= 1.0:
            raise ActionParseError(f"touch_position values must be finite numbers in [0, 1], got {pos!r}")
        xy.append(float(v))
    return Action(kind, touch_position=(xy[0], xy[1]))


def _target(d: dict, required: bool) -> tuple[int | None, tuple[int, int] | None]:
    if d.get("index") is not None:
        return _int(d["index"], "index", low=0), None
    if d.get("x") is not None or d.get("y") is not None:
        return None, (_int(d.get("x"), "x"), _int(d.get("y"), "y"))
    if required:
        raise ActionParseError(f'{d.get("action_type")} needs "index" or "x" and "y"')
    return None, None


def _int(v: Any, name: str, low: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v != int(v):
        raise ActionParseError(f"{name} must be an integer, got {v!r}")
    v = int(v)
    if abs(v) > 10**6 or (low is not None and v < low):
        raise ActionParseError(f"{name} out of range: {v}")
    return v


def _bbox(v: Any) -> tuple[int, int, int, int]:
    if not isinstance(v, (list, tuple)) or len(v) != 4:
        raise ActionParseError(f"element must be [x1, y1, x2, y2], got {v!r}")
    x1, y1, x2, y2 = (_int(c, "element coordinate") for c in v)
    if x2 < x1 or y2 < y1:
        raise ActionParseError(f"element must have x1<=x2 and y1<=y2, got {list(v)}")
    return x1, y1, x2, y2


def _direction(v: Any) -> str:
    if not isinstance(v, str) or v.strip().lower() not in DIRECTIONS:
        raise ActionParseError(f"direction must be one of {DIRECTIONS}, got {v!r}")
    return v.strip().lower()


def _text(v: Any, name: str, nonempty: bool = False) -> str | None:
    if v is None:
        if nonempty:
            raise ActionParseError(f"{name} is required")
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        v = str(v)
    if not isinstance(v, str):
        raise ActionParseError(f"{name} must be a string, got {type(v).__name__}")
    if nonempty and not v.strip():
        raise ActionParseError(f"{name} must not be empty")
    if len(v) > MAX_TEXT:
        raise ActionParseError(f"{name} is {len(v)} characters; the limit is {MAX_TEXT}")
    return v


# ----------------------------------------------------------------------------- formatting


def format_action(action: Action, syntax: str = "androidlab") -> str:
    """Write ``action`` as text in ``syntax`` (one of :data:`SYNTAXES`).

    ``parse_action(format_action(a, s)) == a`` for every action native to ``s``; actions of
    another syntax are translated where the meaning carries over (an AndroidWorld ``scroll``
    becomes an opposite-direction ``Swipe``), otherwise ``ValueError`` says why.
    """
    if syntax == "androidlab":
        return _format_lab(action)
    if syntax == "androidworld":
        return json.dumps(_world_dict(action), ensure_ascii=False)
    if syntax == "android_env":
        if action.kind not in ("touch", "lift") or action.touch_position is None:
            raise ValueError(f"{action.kind} has no android_env form; only touch and lift do")
        return json.dumps({"action_type": action.kind.upper(), "touch_position": list(action.touch_position)})
    raise ValueError(f"unknown syntax {syntax!r}; expected one of {SYNTAXES}")


_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _box(b: tuple[int, int, int, int]) -> str:
    return "[" + ",".join(str(c) for c in b) + "]"


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _format_lab(a: Action) -> str:
    if a.kind in ("tap", "long_press"):
        if a.element is None:
            raise ValueError(f"{a.kind} by index or point has no androidlab form; give element=[x1,y1,x2,y2]")
        verb = "Tap" if a.kind == "tap" else "Long Press"
        return f'do(action="{verb}", element={_box(a.element)})'
    if a.kind == "type":
        return f'do(action="Type", text={_q(a.text or "")})'
    if a.kind in ("swipe", "scroll"):
        direction = a.direction if a.kind == "swipe" else _OPPOSITE[a.direction or "down"]
        parts = f'do(action="Swipe", direction="{direction}", dist="{a.dist or "medium"}"'
        if a.element is not None:
            parts += f", element={_box(a.element)}"
        return parts + ")"
    if a.kind == "launch":
        return f'do(action="Launch", app={_q(a.app or "")})'
    if a.kind in ("back", "home", "wait", "enter"):
        return f'do(action="{a.kind.capitalize()}")'
    if a.kind in ("finish", "status", "answer"):
        msg = a.text if a.kind != "status" else a.goal_status
        return "finish()" if msg is None else f"finish(message={_q(msg)})"
    raise ValueError(f"{a.kind} has no androidlab form")


def _world_dict(a: Action) -> dict[str, Any]:
    def target() -> dict[str, Any]:
        if a.index is not None:
            return {"index": a.index}
        c = a.center()
        return {} if c is None else {"x": c[0], "y": c[1]}

    if a.kind in ("tap", "long_press"):
        if a.index is None and a.center() is None:
            raise ValueError(f"{a.kind} needs a target")
        return {"action_type": "click" if a.kind == "tap" else "long_press", **target()}
    if a.kind == "input_text":
        return {"action_type": "input_text", "text": a.text or "", **target()}
    if a.kind == "type":
        return {"action_type": "input_text", "text": a.text or ""}
    if a.kind == "scroll":
        return {"action_type": "scroll", "direction": a.direction, **target()}
    if a.kind == "swipe":
        return {"action_type": "swipe", "direction": a.direction, **target()}
    if a.kind == "launch":
        return {"action_type": "open_app", "app_name": a.app}
    simple = {"home": "navigate_home", "back": "navigate_back", "wait": "wait", "enter": "keyboard_enter"}
    if a.kind in simple:
        return {"action_type": simple[a.kind]}
    if a.kind == "status":
        return {"action_type": "status", "goal_status": a.goal_status}
    if a.kind == "answer":
        return {"action_type": "answer", "text": a.text or ""}
    if a.kind == "finish":
        return {"action_type": "status", "goal_status": "complete"}
    raise ValueError(f"{a.kind} has no androidworld form")


# ----------------------------------------------------------------------------- contract kinds

#: The env contract's action kind of each kind of this grammar (``gui_gym.core.contract``).
CONTRACT_KINDS = {
    "tap": "interact",
    "long_press": "interact",
    "touch": "interact",
    "lift": "interact",
    "type": "input",
    "input_text": "input",
    "enter": "input",
    "swipe": "navigate",
    "scroll": "navigate",
    "launch": "navigate",
    "back": "navigate",
    "home": "navigate",
    "wait": "wait",
    "answer": "answer",
    "status": "finish",
    "finish": "finish",
}


def contract_kind(action: Action) -> str:
    """The env contract's kind of ``action``: a ``finish`` with a message answers the question.

    >>> contract_kind(parse_action('finish(message="42")')), contract_kind(parse_action('do(action="Back")'))
    ('answer', 'navigate')
    """
    if action.kind == "finish" and action.text is not None:
        return "answer"
    return CONTRACT_KINDS[action.kind]
