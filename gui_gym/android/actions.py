"""The canonical GUI action and the one parser for every accepted text syntax.

:func:`parse_action` tells the syntaxes apart by shape. The ``do(...)`` text is read the way a
*dialect* (a peer's executor) reads it; ``dialect="androidlab"`` is the default, and
``dialect="mobilerl"`` gives ``Type`` the meaning of MobileRL's released executor instead.

``androidlab`` (AndroidLab's ``TextOnlyExecutor``; MobileRL's prompts use the same text)::

    do(action="Tap", element=[40,300,1040,420])           # a box: its center is tapped
    do(action="Tap", element=[540,360])                   # a point
    do(action="Type", text="Sofia Lopez")     # delete 100 characters, type, press Enter
    do(action="Swipe", direction="up", dist="medium")     # finger direction; element= optional
    do(action="Swipe", start=[540,1800], end=[540,600])   # MobileRL: finger from start to end
    do(action="Long Press", element=[40,300,1040,420])    # or element=[x,y]
    do(action="Launch", app="Contacts")
    do(action="Back") / "Press Back" / "Home" / "Press Home" / "Wait" / "Enter" / "Press Enter"
    finish(message="done")

Numbers may carry leading zeros (``element=[040,0300,1040,0420]``), which AndroidLab strips
before running the text; a string may hold a raw line break, which MobileRL escapes.

``mobilerl`` (MobileRL's released executor, ``TextOnlyExecutor_android_world``): the same
text, but ``Type`` does not press Enter and deletes first only when asked::

    do(action="Type", text="Sofia Lopez")              # type, no Enter
    do(action="Type", text="Sofia Lopez", clear=True)  # delete 100 characters, then type

``coordinates`` says how ``element=`` numbers are read (never guessed from the numbers):
``"pixels"`` (default), ``"relative_999"`` (MobileRL's released configs, ``is_relative_bbox``:
``v * size // 999``) or ``"relative_1000"`` (AndroidLab's ``is_relative_bbox``:
``v * size // 1000``). MobileRL scales ``element`` only: ``start``/``end`` stay pixels.

``androidworld`` (AndroidWorld's ``JSONAction``)::

    {"action_type": "click", "index": 3}          # or "x"/"y"; "index": "3" works too
    {"action_type": "double_tap", "x": 540, "y": 360}
    {"action_type": "input_text", "text": "hi", "index": 5, "clear_text": true}  # tap, clear, type, Enter
    {"action_type": "scroll", "direction": "down"} # content direction, as AndroidWorld
    {"action_type": "status", "goal_status": "complete"}
    {"action_type": "answer", "text": "42"}

``android_env`` (DeepMind android_env's raw touch)::

    {"action_type": "TOUCH", "touch_position": [0.5, 0.25]}   # normalised x, y
    {"action_type": "LIFT", "touch_position": [0.5, 0.25]}

Untrusted input is checked at this boundary, whatever its form (text, dict or :class:`Action`):
types (a ``bool`` is no integer; numpy numbers are; NaN and infinity are refused), values
(directions, distances, goal statuses, the fields each kind takes), and lengths (text and
messages up to :data:`MAX_TEXT` characters, app names up to :data:`MAX_APP`). What needs the
screen (coordinates on it, an index below the number of elements) is checked by
:func:`check_on_screen`. A JSON action is accepted only as the whole text (or a whole fenced
block), never from inside other text, where it may sit in a quoted argument of a call.
Reasons quote agent text through :func:`quoted`: at most :data:`MAX_QUOTE` characters of it.

Example:
    >>> a = parse_action('do(action="Tap", element=[40,300,1040,420])')
    >>> a.kind, a.element, a.center()
    ('tap', (40, 300, 1040, 420), (540, 360))
    >>> format_action(a, "androidworld")
    '{"action_type": "click", "x": 540, "y": 360}'
    >>> parse_action('do(action="Tap", element=[500,500])', coordinates="relative_999").point
    (540, 1201)
"""

from __future__ import annotations

import ast
import json
import math
import re
import threading
import warnings
from dataclasses import asdict, dataclass, fields
from itertools import islice
from typing import Any

import numpy as np

from gui_gym.android.ui import SCREEN_H, SCREEN_W

__all__ = [
    "ACTION_KINDS",
    "CONTRACT_KINDS",
    "COORDINATES",
    "DIALECTS",
    "DIRECTIONS",
    "DISTANCES",
    "KIND_FIELDS",
    "MAX_APP",
    "MAX_QUOTE",
    "MAX_REASON",
    "MAX_TEXT",
    "SYNTAXES",
    "TYPE_CLEAR_CHARS",
    "Action",
    "ActionParseError",
    "check_on_screen",
    "clip_text",
    "contract_kind",
    "format_action",
    "parse_action",
    "quoted",
]

#: Every action kind the envs understand.
ACTION_KINDS = (
    "tap",  # element bbox, point, or ui-element index
    "long_press",
    "double_tap",  # AndroidWorld: two taps at one point
    "type",  # text into the focused field (AndroidLab: delete, type, Enter)
    "input_text",  # AndroidWorld: tap target, (clear,) type, press Enter
    "swipe",  # finger direction, or a finger moved from point to end
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
SYNTAXES = ("androidlab", "mobilerl", "androidworld", "android_env")
#: How ``do(...)`` text is read: AndroidLab's executor or MobileRL's released one (``Type`` differs).
DIALECTS = ("androidlab", "mobilerl")
#: How ``element=`` numbers of ``do(...)`` text are read: device pixels or a 0-999 / 0-1000 scale.
COORDINATES = ("pixels", "relative_999", "relative_1000")
#: Characters a ``type`` with ``clear`` deletes before the cursor: AndroidLab's and MobileRL's
#: controllers send this many ``KEYCODE_DEL`` before typing.
TYPE_CLEAR_CHARS = 100
GOAL_STATUSES = ("complete", "infeasible")
MAX_TEXT = 10_000  # longer text, answers and messages are refused by the parser
MAX_APP = 200  # longer app names are refused by the parser
MAX_QUOTE = 200  # agent text quoted in a reason is cut to this many characters
MAX_REASON = 1_000  # a reason the env reports is cut to this many characters, marker included
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
    ``(x, y)`` in [0, 1] (android_env). A ``swipe`` with ``end`` moves the finger from
    ``point`` to ``end`` (pixels) instead of in a ``direction``.

    ``clear`` and ``enter`` say what a ``type`` does around the text, so that one action means
    the same on every device: ``clear`` deletes :data:`TYPE_CLEAR_CHARS` characters before the
    cursor first (the controllers of AndroidLab and MobileRL), ``enter`` presses Enter after.
    Left unset they are AndroidLab's (both ``True``): ``Action("type", text="x")`` is
    ``do(action="Type", text="x")``. On an ``input_text`` (which always presses Enter,
    as AndroidWorld's does) ``clear`` is AndroidWorld's ``clear_text``: select all, delete;
    unset it is ``False``.
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
    end: tuple[int, int] | None = None
    clear: bool | None = None
    enter: bool | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kind, str) or self.kind not in ACTION_KINDS:
            raise ActionParseError(f"unknown action kind {quoted(self.kind)}; expected one of {ACTION_KINDS}")
        for name, default in _FLAG_DEFAULTS.get(self.kind, {}).items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)

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
        for key in ("element", "point", "touch_position", "end"):
            if d.get(key) is not None:
                d[key] = tuple(d[key])
        return cls(**d)


#: The flags a kind has and the value each takes when left unset (AndroidLab's Type: delete,
#: type, Enter; AndroidWorld's input_text: no clear unless ``clear_text``).
_FLAG_DEFAULTS: dict[str, dict[str, bool]] = {
    "type": {"clear": True, "enter": True},
    "input_text": {"clear": False},
}


# ----------------------------------------------------------------------------- parsing


def parse_action(action: str | dict | Action, *, dialect: str = "androidlab", coordinates: str = "pixels") -> Action:
    """Parse and check any accepted form into an :class:`Action` of plain values.

    Accepts text in the androidlab, androidworld or android_env syntax, a dict in either JSON
    syntax, or an :class:`Action`. ``dialect`` (one of :data:`DIALECTS`) is the executor whose
    meaning ``do(...)`` text gets: AndroidLab's ``Type`` deletes, types and presses Enter,
    MobileRL's types only (deleting first with ``clear=True``). ``coordinates`` (one of
    :data:`COORDINATES`) is the scale of ``element=`` numbers in ``do(...)`` text; the result
    is always in device pixels. Neither option touches JSON actions (AndroidWorld's ``x``/``y``
    are pixels) or an :class:`Action`. A bad option raises ``ValueError`` (a caller's mistake,
    not the agent's). Prose around a call is tolerated (``"Action: do(...)"``, a
    fenced block: the last call found wins); a JSON action must be the whole text, a whole
    fenced block, or — in a reply without call syntax — everything after a line-initial
    ``Action:`` label (AndroidWorld's ``Reason: ... Action: {...}``). An :class:`Action` is
    checked like the other forms and comes back with plain values (numpy numbers as
    ``int``/``float``, sequences as tuples); one that already has them comes back as itself.
    Raises :class:`ActionParseError` with a reason an agent can act on, and no other exception,
    whatever ``action`` is.
    """
    _check_options(dialect, coordinates)
    if type(action) is str and len(action) <= _MAX_CACHED_TEXT:
        hit = _PARSED.get((action, dialect, coordinates))
        if hit is not None:
            return hit
    try:
        if isinstance(action, Action):
            return action if _TRUSTED.get(id(action)) is action else _checked(action)
        if isinstance(action, dict):
            return _trust(_checked(_from_json_dict(action)))
        if not isinstance(action, str):
            raise ActionParseError(f"an action must be text, a dict or an Action, not {_type_name(action)}")
        text = _plain_str(action)
        if len(text) > _MAX_INPUT:
            raise ActionParseError(f"action text is {len(text)} characters; the limit is {_MAX_INPUT}")
        text = text.strip()
        if not text:
            raise ActionParseError("empty action")
        parsed = _trust(_checked(_parse_text(text, _Reading(dialect, coordinates))))
    except ActionParseError:
        raise
    except Exception as e:  # untrusted input: whatever fails while reading it is a refusal
        raise ActionParseError(f"malformed action: {_error_text(e)}") from None
    if type(action) is str and len(action) <= _MAX_CACHED_TEXT:
        _remember(_PARSED, (action, dialect, coordinates), parsed)
    return parsed


# Parsing text compiles it (ast), the largest cost of a step; agents repeat their actions, so
# the last texts parsed are kept with their result (an Action is frozen: sharing one is safe).
# The device checks every Action it is handed again; one this module just made and checked
# (same object, alive in _TRUSTED) is not checked twice.
_MAX_CACHED_TEXT = 1_000
_CACHE_SIZE = 4_096
_PARSED: dict[tuple[str, str, str], Action] = {}
_TRUSTED: dict[int, Action] = {}
_CACHE_LOCK = threading.Lock()


_TRUSTED_SIZE = 64  # the env hands the device what it just parsed: the last few suffice


def _remember(cache: dict, key: Any, value: Action, size: int = _CACHE_SIZE) -> None:
    """Keep ``key -> value`` in ``cache``, dropping the oldest entry past ``size``."""
    with _CACHE_LOCK:
        cache[key] = value
        if len(cache) > size:
            del cache[next(iter(cache))]


def _trust(a: Action) -> Action:
    """``a`` (a checked Action) marked as checked: holding it keeps its ``id`` unique. (Writing
    into a frozen Action with ``object.__setattr__`` afterwards is a caller's own doing.)"""
    _remember(_TRUSTED, id(a), a, _TRUSTED_SIZE)
    return a


def _check_options(dialect: str, coordinates: str) -> None:
    if dialect not in DIALECTS:
        raise ValueError(f"dialect must be one of {DIALECTS}, got {dialect!r}")
    if coordinates not in COORDINATES:
        raise ValueError(f"coordinates must be one of {COORDINATES}, got {coordinates!r}")


@dataclass(frozen=True)
class _Reading:
    """How ``do(...)`` text is read: the dialect and the scale of ``element=`` numbers."""

    dialect: str = "androidlab"
    coordinates: str = "pixels"


_CALL_START = re.compile(r"\b(do|finish)\s*\(")
# A fence around the whole text: ```lang\n ... ``` (the language line is optional).
_FENCE = re.compile(r"\A```(?:[\w+.-]*[ \t]*\n)?(.*?)```\Z", re.DOTALL)


def _parse_text(text: str, reading: _Reading) -> Action:
    # A JSON action counts only as the whole text, the whole of one fenced block, or — in a
    # reply with no call syntax — all that follows a line-initial "Action:" label (AndroidWorld's
    # "Reason: ... Action: {...}" replies): found anywhere else it may sit in a string argument
    # of a broken call, and must not run.
    body = _unfenced(text)
    if body.startswith("{"):
        return _from_json_dict(_whole_json_object(body))
    labelled = _labelled_json(text)
    if labelled is not None:
        return _from_json_dict(_whole_json_object(labelled))
    # Find each call's span by matching its parentheses (outside string literals), left to
    # right, so a call inside another call's string argument (do(action="Type",
    # text="finish()")) is never taken for an action. Then parse the spans from the last
    # back: the last action in the text wins.
    spans = _call_spans(text)
    error = None
    for start, end in reversed(spans[-_MAX_PARSES:]):
        tree = _parsed_call(text[start : end + 1])
        if tree is None:
            continue
        if isinstance(tree.body, ast.Call) and isinstance(tree.body.func, ast.Name):
            try:
                return _from_call(tree.body, reading)
            except ActionParseError as e:  # call-shaped prose such as "do (this)"
                error = error or e
    if error is not None:
        raise error
    if spans or _CALL_START.search(text) is not None:
        raise ActionParseError(f"could not parse the call in {quoted(text)}: unbalanced or not literal arguments")
    if "action_type" in text:
        raise ActionParseError(
            "a JSON action must be the whole reply, the whole of a ```json fenced block, or all that "
            "follows a line-initial 'Action:' label, not inside other text: send the object alone"
        )
    raise ActionParseError(f"no action found in {quoted(text)}: expected do(action=...), finish(...), or a JSON action")


def _parsed_call(src: str) -> ast.Expression | None:
    """``src`` parsed as an expression, else as the peers' executors read it, else None.

    AndroidLab strips leading zeros from numbers before running a call (``[040,0300]``, which
    Python refuses), and MobileRL escapes raw line breaks inside a string; :func:`_lenient`
    does both (outside and inside string literals respectively), tried only when ``src`` as
    written is not Python.
    """
    parsed = _parse_quietly(src)
    if parsed is not None:
        return parsed
    fixed = _lenient(src)
    return None if fixed == src else _parse_quietly(fixed)


def _parse_quietly(src: str) -> ast.Expression | None:
    """``ast.parse`` (it only parses: nothing runs), without the ``SyntaxWarning`` a model's
    garbage such as ``[1if]`` makes Python print (``invalid decimal literal``) on every step."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        try:
            return ast.parse(src, mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None


def _lenient(src: str) -> str:
    """``src`` with the leading zeros of integer literals dropped (``0300`` -> ``300``) and
    raw line breaks inside string literals written as ``\\n``, in one linear scan that sees
    strings as :func:`_scan_parens` does (a backslash escapes the next character)."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if quote:
            if c == "\\" and i + 1 < n:
                out.append(src[i : i + 2])
                i += 2
                continue
            if c == quote:
                quote = ""
            elif c in "\r\n":
                out.append("\\n")
                i += 2 if src.startswith("\r\n", i) else 1
                continue
        elif c in "\"'":
            quote = c
        elif c == "0" and not (i and (src[i - 1].isalnum() or src[i - 1] in "_.")):
            digits = _zero_run_end(src, i)
            if digits is not None:
                i = digits  # drop the zeros; the digits after them follow as usual
                continue
        out.append(c)
        i += 1
    return "".join(out)


def _zero_run_end(src: str, i: int) -> int | None:
    """Where the digits after the zeros at ``src[i]`` start, when those zeros lead a decimal
    integer literal (``0300``, not ``0``, ``00``, ``0.5``, ``0x1f`` or ``0300.5``), else None."""
    j = i
    while j < len(src) and src[j] == "0":
        j += 1
    k = j
    while k < len(src) and "0" <= src[k] <= "9":
        k += 1
    if k == j or (k < len(src) and (src[k].isalnum() or src[k] in "_.")):
        return None
    return j


_ACTION_LABEL = re.compile(r"^[ \t*#]*action[ \t*]*:[ \t*]*", re.IGNORECASE | re.MULTILINE)


def _labelled_json(text: str) -> str | None:
    """What follows the last line-initial ``Action:`` label when it is a JSON object (fenced or
    not) and the reply holds no ``do(``/``finish(`` call, else None."""
    if _CALL_START.search(text) is not None:
        return None
    labels = list(_ACTION_LABEL.finditer(text))
    if not labels:
        return None
    rest = _unfenced(text[labels[-1].end() :].strip())
    return rest if rest.startswith("{") else None


def _unfenced(text: str) -> str:
    """The inside of a fenced block that is the whole text, else ``text``."""
    m = _FENCE.match(text)
    if m is None or "```" in m.group(1):
        return text
    return m.group(1).strip()


def _whole_json_object(text: str) -> dict:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ActionParseError(
            f"the text starts like a JSON action but is not one JSON object ({e.msg} at character {e.pos}); "
            "a JSON action must be the whole reply"
        ) from None
    if not isinstance(obj, dict):
        raise ActionParseError(f"a JSON action must be an object, got {_type_name(obj)}")
    return obj


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
    "press back": "back",  # MobileRL's executors; AndroidLab's prompts list it
    "home": "home",
    "press home": "home",  # AndroidLab's prompts
    "wait": "wait",
    "enter": "enter",
    "press enter": "enter",  # AndroidLab's prompts
}
_LAB_VERBS = 'Tap, Type, Swipe, Long Press, Launch, Back (or "Press Back"), Home, Wait, Enter'
# The arguments each kind of do() takes besides action=.
_LAB_ARGS = {
    "tap": {"element"},
    "long_press": {"element"},
    "type": {"text", "clear"},
    "swipe": {"direction", "dist", "element", "start", "end"},
    "launch": {"app"},
}


def _from_call(call: ast.Call, reading: _Reading) -> Action:
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
            raise ActionParseError(f"finish() got unexpected arguments {quoted(sorted(unknown))}")
        return Action("finish", text=_text(kwargs.get("message"), "message"))
    if name != "do":
        raise ActionParseError(f"unknown call {quoted(name)}(); expected do(...) or finish(...)")
    verb = kwargs.pop("action", None)
    if not isinstance(verb, str):
        raise ActionParseError(f"do() needs action= one of {_LAB_VERBS}")
    kind = _LAB_KINDS.get(" ".join(verb.lower().split()))
    if kind is None:
        raise ActionParseError(f"unknown action {quoted(verb)}; expected one of {_LAB_VERBS}")
    verb = quoted(verb.strip())
    unknown = set(kwargs) - _LAB_ARGS.get(kind, set())
    if unknown:
        raise ActionParseError(f"{verb} got unexpected arguments {quoted(sorted(unknown))}")
    if kind in ("tap", "long_press"):
        if kwargs.get("element") is None:
            raise ActionParseError(f"{verb} needs element=[x1,y1,x2,y2] (a box) or element=[x,y] (a point)")
        return Action(kind, **_lab_target(kwargs["element"], reading.coordinates))
    if kind == "type":
        return _lab_type(kwargs, reading.dialect)
    if kind == "swipe":
        return _lab_swipe(kwargs, reading.coordinates)
    if kind == "launch":
        return Action("launch", app=_app(kwargs.get("app"), "app"))
    return Action(kind)


def _lab_type(kwargs: dict[str, Any], dialect: str) -> Action:
    """``Type`` as ``dialect``'s executor runs it.

    AndroidLab's controller deletes 100 characters before every text and its executor presses
    Enter after it (a ``clear=`` argument is swallowed); MobileRL's released executor deletes
    only with ``clear=True`` (its harness adds it when a field on screen holds text) and
    presses no Enter.
    """
    if "text" not in kwargs:
        raise ActionParseError('Type needs text="..."')
    text = _text(kwargs["text"], "text")
    clear = kwargs.get("clear")
    if clear is not None and not isinstance(_scalar(clear), bool):
        raise ActionParseError(f"clear must be True or False, got {quoted(clear)}")
    if dialect == "mobilerl":
        return Action("type", text=text, clear=bool(clear), enter=False)
    return Action("type", text=text, clear=True, enter=True)


def _lab_swipe(kwargs: dict[str, Any], coordinates: str) -> Action:
    """``Swipe`` in a direction (from ``element``, else the screen's center), or — MobileRL's
    ``start=``/``end=`` — a finger moved between two points, in pixels whatever
    ``coordinates`` says (MobileRL scales ``element`` only); direction, dist and element are
    then ignored, as MobileRL ignores them."""
    start, end = kwargs.get("start"), kwargs.get("end")
    if start is not None and end is not None:
        return Action("swipe", point=_point_arg(start, "start"), end=_point_arg(end, "end"))
    if start is not None or end is not None:
        raise ActionParseError("Swipe needs both start=[x,y] and end=[x,y], or a direction=")
    target = _lab_target(kwargs["element"], coordinates) if kwargs.get("element") is not None else {}
    dist = _dist(kwargs.get("dist", "medium"))
    return Action("swipe", direction=_direction(kwargs.get("direction")), dist=dist, **target)


def _lab_target(v: Any, coordinates: str) -> dict[str, Any]:
    """``element=``: four numbers are a box (its center is the target), two a point, as
    AndroidLab's executor reads them; in ``coordinates`` scaled to device pixels."""
    if isinstance(v, np.ndarray) and v.ndim == 1:
        v = v.tolist()
    if not (isinstance(v, (list, tuple)) and len(v) in (2, 4)):
        raise ActionParseError(f"element must be [x1, y1, x2, y2] (a box) or [x, y] (a point), got {quoted(v)}")
    if len(v) == 2:
        x, y = _point_arg(v, "element")
        if coordinates == "pixels":
            return {"point": (x, y)}
        scale = _SCALES[coordinates]
        return {"point": (_scaled(x, scale, SCREEN_W, edge=False), _scaled(y, scale, SCREEN_H, edge=False))}
    x1, y1, x2, y2 = _bbox(v)
    if coordinates == "pixels":
        return {"element": (x1, y1, x2, y2)}
    scale = _SCALES[coordinates]
    return {
        "element": (
            _scaled(x1, scale, SCREEN_W),
            _scaled(y1, scale, SCREEN_H),
            _scaled(x2, scale, SCREEN_W),
            _scaled(y2, scale, SCREEN_H),
        )
    }


_SCALES = {"relative_999": 999, "relative_1000": 1000}


def _scaled(v: int, scale: int, size: int, *, edge: bool = True) -> int:
    """A relative coordinate ``v`` in ``[0, scale]`` as a device pixel: ``v * size // scale``,
    the pixel that holds the executors' ``v * size / scale``. A point (``edge=False``) at the
    far edge is moved onto the last pixel; a box's far edge may lie on the screen's edge."""
    if not 0 <= v <= scale:
        raise ActionParseError(
            f"relative coordinate {v} is outside 0..{scale}: the env reads element= on a 0-{scale} scale "
            f"(coordinates='relative_{scale}')"
        )
    px = v * size // scale
    return px if edge else min(px, size - 1)


def _point_arg(v: Any, name: str) -> tuple[int, int]:
    x, y = (_int(c, f"{name} coordinate") for c in _numbers(v, 2, f"{name} must be [x, y]"))
    return x, y


_WORLD_KINDS = {
    "click": "tap",
    "tap": "tap",
    "double_tap": "double_tap",
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
# The keys each kind's JSON dict may have besides "action_type" (a key whose value is null
# counts as absent: some serialisers write every field of AndroidWorld's JSONAction).
_WORLD_KEYS = {
    "tap": ("index", "x", "y"),
    "long_press": ("index", "x", "y"),
    "double_tap": ("index", "x", "y"),
    "input_text": ("text", "index", "x", "y", "clear_text"),
    "scroll": ("direction", "index", "x", "y"),
    "swipe": ("direction", "index", "x", "y"),
    "launch": ("app_name", "app"),
    "status": ("goal_status", "status"),
    "answer": ("text",),
}
_RAW_KINDS = {"TOUCH": "touch", "LIFT": "lift", "REPEAT": "touch", 0: "touch", 1: "lift", 2: "touch"}


def _from_json_dict(d: dict) -> Action:
    d = {k: v for k, v in d.items() if v is not None}
    if "action_type" not in d:
        raise ActionParseError('a JSON action needs "action_type"')
    raw_type = _scalar(d["action_type"])  # android_env gives a numpy scalar
    if isinstance(raw_type, bool) or not isinstance(raw_type, (str, int)):
        raise ActionParseError(f"action_type must be a string, got {quoted(raw_type)}")
    if isinstance(raw_type, str):
        raw_type = _plain_str(raw_type)
    if isinstance(raw_type, int) or raw_type in ("TOUCH", "LIFT", "REPEAT"):
        return _from_raw(raw_type, d)
    kind = _WORLD_KINDS.get(raw_type.strip().lower())
    if kind is None:
        raise ActionParseError(f"unknown action_type {quoted(raw_type)}; expected one of {sorted(_WORLD_KINDS)}")
    _only_keys(d, _WORLD_KEYS.get(kind, ()), raw_type)
    if kind in ("tap", "long_press", "double_tap"):
        index, point = _target(d, required=True)
        return Action(kind, index=index, point=point)
    if kind == "input_text":
        index, point = _target(d, required=False)
        text = _text(d.get("text"), "text")
        if text is None:
            raise ActionParseError('input_text needs "text"')
        clear = _scalar(d.get("clear_text", False))
        if not isinstance(clear, bool):
            raise ActionParseError(f"clear_text must be true or false, got {quoted(clear)}")
        return Action(kind, index=index, point=point, text=text, clear=clear)
    if kind in ("scroll", "swipe"):
        index, point = _target(d, required=False)
        return Action(kind, direction=_direction(d.get("direction")), index=index, point=point)
    if kind == "launch":
        return Action("launch", app=_app(d.get("app_name", d.get("app")), "app_name"))
    if kind == "status":
        return Action("status", goal_status=_goal_status(d.get("goal_status", d.get("status"))))
    if kind == "answer":
        text = _text(d.get("text"), "text")
        if text is None:
            raise ActionParseError('answer needs "text"')
        return Action("answer", text=text)
    return Action(kind)


def _from_raw(raw_type: str | int, d: dict) -> Action:
    kind = _RAW_KINDS.get(raw_type)
    if kind is None:
        raise ActionParseError(
            f"android_env action_type must be TOUCH (0), LIFT (1) or REPEAT (2), got {quoted(raw_type)}"
        )
    _only_keys(d, ("touch_position",), raw_type)
    if "touch_position" not in d:
        raise ActionParseError("android_env actions need touch_position [x, y] in [0, 1]")
    return Action(kind, touch_position=_unit_pair(d["touch_position"]))


def _only_keys(d: dict, allowed: tuple[str, ...], raw_type: str | int) -> None:
    for key in d:
        if key != "action_type" and key not in allowed:
            takes = f"its keys are {', '.join(allowed)}" if allowed else "it takes no other key"
            raise ActionParseError(f"action_type {quoted(raw_type)} takes no key {quoted(key)}: {takes}")


def _target(d: dict, required: bool) -> tuple[int | None, tuple[int, int] | None]:
    has_xy = "x" in d or "y" in d
    if "index" in d:
        if has_xy:
            raise ActionParseError('give "index" or "x" and "y", not both')
        return _int(_digits(d["index"]), "index", low=0), None
    if has_xy:
        return None, (_int(_digits(d.get("x")), "x"), _int(_digits(d.get("y")), "y"))
    if required:
        raise ActionParseError(f'{quoted(d.get("action_type"))} needs "index" or "x" and "y"')
    return None, None


_DECIMAL = re.compile(r"[ \t]*[+-]?[0-9]{1,12}[ \t]*")


def _digits(v: Any) -> Any:
    """A JSON number written as a string (``"index": "3"``) as its integer, as AndroidWorld's
    ``JSONAction`` reads an index (``int(index)``) and its actuation ``x``/``y``; anything
    else unchanged, for the field's own check."""
    v = _scalar(v)
    if isinstance(v, str) and _DECIMAL.fullmatch(v):
        return int(v)
    return v


# ----------------------------------------------------------------------------- field checks

_MAX_COORD = 10**6  # coordinates beyond this are refused before any screen is consulted
_MAX_DIGITS = 100  # a number given as text (a JSON answer of 42) has fewer digits than this

#: The fields each kind of :class:`Action` may set; the others stay ``None``.
KIND_FIELDS: dict[str, frozenset[str]] = {
    "tap": frozenset({"element", "point", "index"}),
    "long_press": frozenset({"element", "point", "index"}),
    "double_tap": frozenset({"element", "point", "index"}),
    "type": frozenset({"text", "clear", "enter"}),
    "input_text": frozenset({"text", "clear", "element", "point", "index"}),
    "swipe": frozenset({"direction", "dist", "element", "point", "index", "end"}),
    "scroll": frozenset({"direction", "dist", "element", "point", "index"}),
    "launch": frozenset({"app"}),
    "back": frozenset(),
    "home": frozenset(),
    "wait": frozenset(),
    "enter": frozenset(),
    "finish": frozenset({"text"}),
    "status": frozenset({"goal_status"}),
    "answer": frozenset({"text"}),
    "touch": frozenset({"touch_position"}),
    "lift": frozenset({"touch_position"}),
}
_REQUIRED = {
    "type": "text",
    "input_text": "text",
    "scroll": "direction",
    "launch": "app",
    "status": "goal_status",
    "answer": "text",
    "touch": "touch_position",
    "lift": "touch_position",
}
_TARGETS = ("element", "point", "index")


def _checked(a: Action) -> Action:
    """``a`` with every field checked and made plain, or :class:`ActionParseError`.

    Runs on every action the parser returns, and on :class:`Action` objects given directly,
    which may hold anything (a dataclass checks no types, and ``object.__setattr__`` writes
    past ``frozen``).
    """
    kind = _scalar(a.kind)
    if not isinstance(kind, str) or _plain_str(kind) not in ACTION_KINDS:
        raise ActionParseError(f"unknown action kind {quoted(kind)}; expected one of {ACTION_KINDS}")
    kind = _plain_str(kind)
    allowed = KIND_FIELDS[kind]
    values: dict[str, Any] = {}
    for f in _FIELD_NAMES:
        v = getattr(a, f, None)  # an Action written past the dataclass may lack a field
        if v is None:
            continue
        if f not in allowed:
            takes = f"; it takes {', '.join(sorted(allowed))}" if allowed else ""
            raise ActionParseError(f"a {kind} action takes no {f}{takes}")
        values[f] = _FIELD_CHECKS[f](v)
    targets = [t for t in _TARGETS if t in values]
    if len(targets) > 1:
        raise ActionParseError(f"a {kind} action takes one target (element, point or index), got {targets}")
    if kind in ("tap", "long_press", "double_tap") and not targets:
        raise ActionParseError(f"a {kind} action needs a target: element, point or index")
    if kind == "swipe":
        _check_swipe(values)
    need = _REQUIRED.get(kind)
    if need is not None and need not in values:
        raise ActionParseError(f"a {kind} action needs {need}")
    out = Action(kind, **values)
    return a if _identical(a, out) else out


def _check_swipe(values: dict[str, Any]) -> None:
    """A swipe goes in a ``direction`` (optionally from a target), or from ``point`` to ``end``."""
    if "end" not in values:
        if "direction" not in values:
            raise ActionParseError("a swipe action needs direction, or point and end")
        return
    extra = sorted(set(values) & {"direction", "dist", "element", "index"})
    if "point" not in values or extra:
        raise ActionParseError(
            f"a swipe from point to end takes those two points only, got {sorted(values)}: "
            "give point and end, or a direction (with dist and a target)"
        )


def check_on_screen(action: Action, n_elements: int) -> None:
    """Raise :class:`ActionParseError` unless what a checked ``action`` points at is on screen.

    An ``index`` must be below ``n_elements`` (the entries of ``info["ui_elements"]``); an
    ``element`` bbox must lie inside the ``SCREEN_W`` x ``SCREEN_H`` device and a ``point`` on
    it (device pixels, whatever size the screenshot is rendered at).
    """
    if action.index is not None and not 0 <= action.index < n_elements:
        raise ActionParseError(
            f"index {action.index} out of range: the screen has {n_elements} elements, numbered from 0"
        )
    if action.element is not None:
        x1, y1, x2, y2 = action.element
        if not (0 <= x1 <= x2 <= SCREEN_W and 0 <= y1 <= y2 <= SCREEN_H):
            raise ActionParseError(
                f"element {list(action.element)} is outside the {SCREEN_W}x{SCREEN_H} screen: "
                f"give [x1,y1,x2,y2] with 0<=x1<=x2<={SCREEN_W} and 0<=y1<=y2<={SCREEN_H}"
            )
    for name in ("point", "end"):
        xy = getattr(action, name)
        if xy is None:
            continue
        x, y = xy
        if not (0 <= x < SCREEN_W and 0 <= y < SCREEN_H):
            raise ActionParseError(
                f"{name} ({x}, {y}) is outside the {SCREEN_W}x{SCREEN_H} screen: "
                f"give 0<=x<{SCREEN_W} and 0<=y<{SCREEN_H}"
            )


def _identical(a: Action, b: Action) -> bool:
    """Whether ``a`` already is ``b``: an :class:`Action` with the same values of the same types."""
    return type(a) is Action and all(_same_value(getattr(a, f, None), getattr(b, f)) for f in _FIELD_NAMES)


def _same_value(x: Any, y: Any) -> bool:
    if type(x) is not type(y):
        return False
    if type(x) is tuple:
        return len(x) == len(y) and all(_same_value(p, q) for p, q in zip(x, y, strict=True))
    return bool(x == y)


def _scalar(v: Any) -> Any:
    """A numpy scalar (or 0-d array) as its Python value, an ``int``/``float``/``str`` subclass
    as the plain type; anything else unchanged."""
    if isinstance(v, (np.generic, np.ndarray)) and np.ndim(v) == 0:
        v = v.item()
    t = type(v)
    if t is bool or t is int or t is float or t is str:
        return v
    if isinstance(v, bool):
        return bool(v)
    if isinstance(v, int):
        return int.__int__(v)  # the plain value, not what a subclass's __int__ says
    if isinstance(v, float):
        return float.__float__(v)
    if isinstance(v, str):
        return _plain_str(v)
    return v


def _plain_str(s: str) -> str:
    """``s`` as a plain ``str`` (a subclass's own methods are never called)."""
    return s if type(s) is str else str.__getitem__(s, slice(None))


def _int(v: Any, name: str, low: int | None = None) -> int:
    v = _scalar(v)
    if isinstance(v, float) and math.isfinite(v) and v.is_integer():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int):
        raise ActionParseError(f"{name} must be an integer, got {quoted(v)}")
    if abs(v) > _MAX_COORD or (low is not None and v < low):
        raise ActionParseError(f"{name} out of range: {quoted(v)}")
    return v


def _numbers(v: Any, n: int, what: str) -> list[Any]:
    """The ``n`` items of a list, tuple or 1-d array ``v``."""
    if isinstance(v, np.ndarray) and v.ndim == 1:
        v = v.tolist()
    if not isinstance(v, (list, tuple)):
        raise ActionParseError(f"{what}, got {quoted(v)}")
    items = list(v)
    if len(items) != n:
        raise ActionParseError(f"{what}, got {quoted(v)}")
    return items


def _bbox(v: Any) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = (_int(c, "element coordinate") for c in _numbers(v, 4, "element must be [x1, y1, x2, y2]"))
    if x2 < x1 or y2 < y1:
        raise ActionParseError(f"element must have x1<=x2 and y1<=y2, got {[x1, y1, x2, y2]}")
    return x1, y1, x2, y2


def _point(v: Any) -> tuple[int, int]:
    x, y = (_int(c, "point coordinate") for c in _numbers(v, 2, "point must be (x, y)"))
    return x, y


def _unit_pair(v: Any) -> tuple[float, float]:
    what = "touch_position must be two numbers [x, y] in [0, 1]"
    xy = []
    for c in _numbers(v, 2, what):
        c = _scalar(c)
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not 0 <= c <= 1:  # NaN fails the range
            raise ActionParseError(f"{what}, got {quoted(v)}")
        xy.append(float(c))
    return xy[0], xy[1]


def _flag(v: Any, name: str) -> bool:
    v = _scalar(v)
    if not isinstance(v, bool):
        raise ActionParseError(f"{name} must be True or False, got {quoted(v)}")
    return v


def _choice(v: Any, name: str, choices: tuple[str, ...]) -> str:
    v = _scalar(v)
    if isinstance(v, str) and v.strip().lower() in choices:
        return v.strip().lower()
    raise ActionParseError(f"{name} must be one of {choices}, got {quoted(v)}")


def _direction(v: Any) -> str:
    return _choice(v, "direction", DIRECTIONS)


def _dist(v: Any) -> str:
    return _choice(v, "dist", DISTANCES)


def _goal_status(v: Any) -> str:
    return _choice(v, "goal_status", GOAL_STATUSES)


def _text(v: Any, name: str, *, numbers: bool = True, limit: int = MAX_TEXT) -> str | None:
    """A text field: ``None`` stays ``None``; a finite number becomes its digits when ``numbers``
    (a JSON answer of ``42``); anything else must be a string of at most ``limit`` characters."""
    if v is None:
        return None
    v = _scalar(v)
    if numbers and not isinstance(v, bool) and isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            raise ActionParseError(f"{name} must be a string, got {v!r}")
        if isinstance(v, int) and abs(v) >= 10**_MAX_DIGITS:
            raise ActionParseError(f"{name} must be a string, got an integer of {v.bit_length()} bits")
        v = str(v)
    if not isinstance(v, str):
        raise ActionParseError(f"{name} must be a string, got {quoted(v)}")
    if len(v) > limit:
        raise ActionParseError(f"{name} is {len(v)} characters; the limit is {limit}")
    return v


def _app(v: Any, name: str) -> str:
    app = _text(v, name, limit=MAX_APP)
    if app is None:
        raise ActionParseError(f"{name} is required")
    if not app.strip():
        raise ActionParseError(f"{name} must not be empty")
    return app


_FIELD_NAMES = tuple(f.name for f in fields(Action) if f.name != "kind")
_FIELD_CHECKS = {
    "element": _bbox,
    "point": _point,
    "index": lambda v: _int(v, "index", low=0),
    "text": lambda v: _text(v, "text", numbers=False),
    "direction": _direction,
    "dist": _dist,
    "app": lambda v: _app(v, "app"),
    "goal_status": _goal_status,
    "touch_position": _unit_pair,
    "end": _point,
    "clear": lambda v: _flag(v, "clear"),
    "enter": lambda v: _flag(v, "enter"),
}


# ----------------------------------------------------------------------------- reasons


def quoted(value: Any, limit: int = MAX_QUOTE) -> str:
    """``value`` as a reason quotes it: its ``repr``, at most ``limit`` characters in all; a
    longer one is cut and marked with ``…`` and the original length.

    Only plain values (strings, bytes, numbers, lists, tuples, dicts, numpy scalars and arrays)
    are written out; another object is named by its type, so that quoting agent input runs
    none of its code and never raises.

    >>> quoted("Contacts"), quoted("x" * 1000, limit=30)
    ("'Contacts'", "'xxxxxxxxxx… (1000 characters)")
    """
    try:
        return _brief(value, limit, 0)
    except Exception:  # a value that cannot even be summarised
        return "<unprintable value>"


def clip_text(text: str, limit: int = MAX_REASON) -> str:
    """``text`` cut to at most ``limit`` characters, marked with ``…`` and its length when cut."""
    if len(text) <= limit:
        return text
    marker = f"… ({len(text)} characters)"
    return text[: max(0, limit - len(marker))] + marker


def _brief(v: Any, limit: int, depth: int) -> str:
    if isinstance(v, np.generic) and type(v).__module__ == "numpy":
        v = v.item()
    t = type(v)
    if t is str or t is bytes:
        r = repr(v[:limit])
        if len(v) <= limit and len(r) <= limit:
            return r
        marker = f"… ({len(v)} {'characters' if t is str else 'bytes'})"
        return r[: max(0, limit - len(marker))] + marker
    if t is int:
        r = repr(v) if v.bit_length() <= 4 * limit else f"<an integer of {v.bit_length()} bits>"
    elif v is None or t in (bool, float, complex):
        r = repr(v)
    elif t is np.ndarray:
        r = repr(v.tolist()) if v.size <= 8 and v.dtype.kind in "biuf" else f"<array of shape {v.shape}>"
    elif t in (list, tuple, dict, set, frozenset):
        r = _brief_container(v, limit, depth)
    else:
        r = f"<{_type_name(v)} object>"
    return clip_text(r, limit)


def _brief_container(v: Any, limit: int, depth: int) -> str:
    t = type(v)
    opening, closing = {list: "[]", tuple: "()", dict: "{}", set: "{}", frozenset: "{}"}[t]
    if depth >= 3:
        return f"{opening}…{closing}"
    n = len(v)
    if t is dict:
        items = [f"{_brief(k, limit, depth + 1)}: {_brief(x, limit, depth + 1)}" for k, x in islice(v.items(), 8)]
    else:
        items = [_brief(x, limit, depth + 1) for x in islice(v, 8)]
    if n > 8:
        items.append(f"… {n} items")
    return opening + ", ".join(items) + ("," if t is tuple and n == 1 else "") + closing


def _type_name(v: Any) -> str:
    try:
        name = type(v).__qualname__
    except Exception:  # a metaclass may make even this run code
        return "object"
    return clip_text(name, 80) if type(name) is str else "object"


def _error_text(e: Exception) -> str:
    try:
        text = str(e)
    except Exception:  # an exception raised by agent-supplied code may not even print
        text = ""
    if type(text) is not str:
        text = ""
    return f"{_type_name(e)}: {clip_text(text, MAX_QUOTE)}" if text else _type_name(e)


# ----------------------------------------------------------------------------- formatting


def format_action(action: Action, syntax: str = "androidlab", *, coordinates: str = "pixels") -> str:
    """Write ``action`` as text in ``syntax`` (one of :data:`SYNTAXES`).

    ``parse_action(format_action(a, s)) == a`` for every action native to ``s`` (for
    ``"mobilerl"``: ``parse_action(..., dialect="mobilerl")``); actions of another syntax are
    translated where the meaning carries over (an AndroidWorld ``scroll`` becomes an
    opposite-direction ``Swipe``), otherwise ``ValueError`` says why. ``coordinates`` writes
    the ``element=`` of the ``do(...)`` syntaxes on a relative scale (:data:`COORDINATES`),
    each pixel as the smallest relative value that :func:`parse_action` reads back as it.
    """
    if coordinates not in COORDINATES:
        raise ValueError(f"coordinates must be one of {COORDINATES}, got {coordinates!r}")
    if syntax in DIALECTS:
        return _format_lab(action, syntax, coordinates)
    if coordinates != "pixels":
        raise ValueError(f"coordinates={coordinates!r} applies to the do(...) syntaxes {DIALECTS} only")
    if syntax == "androidworld":
        return json.dumps(_world_dict(action), ensure_ascii=False)
    if syntax == "android_env":
        if action.kind not in ("touch", "lift") or action.touch_position is None:
            raise ValueError(f"{action.kind} has no android_env form; only touch and lift do")
        return json.dumps({"action_type": action.kind.upper(), "touch_position": list(action.touch_position)})
    raise ValueError(f"unknown syntax {syntax!r}; expected one of {SYNTAXES}")


_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}


def _box(b: tuple[int, ...]) -> str:
    return "[" + ",".join(str(c) for c in b) + "]"


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _relative(px: int, size: int, coordinates: str) -> int:
    """The smallest relative value that :func:`_scaled` maps to pixel ``px`` (or past it)."""
    if coordinates == "pixels":
        return px
    scale = _SCALES[coordinates]
    return -(-px * scale // size)


def _lab_element(a: Action, coordinates: str) -> str | None:
    """``element=[...]`` for ``a``'s box or point, or None when it has neither."""
    if a.element is not None:
        sizes = (SCREEN_W, SCREEN_H, SCREEN_W, SCREEN_H)
        return "element=" + _box(tuple(_relative(v, n, coordinates) for v, n in zip(a.element, sizes, strict=True)))
    if a.point is not None:
        x, y = a.point
        return f"element={_box((_relative(x, SCREEN_W, coordinates), _relative(y, SCREEN_H, coordinates)))}"
    return None


def _format_lab(a: Action, dialect: str, coordinates: str) -> str:
    if a.kind in ("tap", "long_press"):
        element = _lab_element(a, coordinates)
        if element is None:
            raise ValueError(f"{a.kind} by index has no {dialect} form; give an element box or a point")
        verb = "Tap" if a.kind == "tap" else "Long Press"
        return f'do(action="{verb}", {element})'
    if a.kind == "type":
        return _format_lab_type(a, dialect)
    if a.kind == "swipe" and a.end is not None:
        assert a.point is not None
        return f'do(action="Swipe", start={_box(a.point)}, end={_box(a.end)})'
    if a.kind in ("swipe", "scroll"):
        direction = a.direction if a.kind == "swipe" else _OPPOSITE[a.direction or "down"]
        parts = f'do(action="Swipe", direction="{direction}", dist="{a.dist or "medium"}"'
        element = _lab_element(a, coordinates)
        if element is not None:
            parts += f", {element}"
        return parts + ")"
    if a.kind == "launch":
        return f'do(action="Launch", app={_q(a.app or "")})'
    if a.kind in ("back", "home", "wait", "enter"):
        return f'do(action="{a.kind.capitalize()}")'
    if a.kind in ("finish", "status", "answer"):
        msg = a.text if a.kind != "status" else a.goal_status
        return "finish()" if msg is None else f"finish(message={_q(msg)})"
    raise ValueError(f"{a.kind} has no {dialect} form")


def _format_lab_type(a: Action, dialect: str) -> str:
    text = f'do(action="Type", text={_q(a.text or "")}'
    if dialect == "androidlab":
        if not (a.clear and a.enter):
            raise ValueError(
                "AndroidLab's Type always deletes before typing and presses Enter after; a type without "
                "them has no androidlab form: write it in 'mobilerl' (no Enter; clear=True deletes)"
            )
        return text + ")"
    if a.enter:
        raise ValueError(
            "MobileRL's Type presses no Enter; a type with Enter has no mobilerl form: write it in 'androidlab'"
        )
    return text + (", clear=True)" if a.clear else ")")


def _world_dict(a: Action) -> dict[str, Any]:
    def target() -> dict[str, Any]:
        if a.index is not None:
            return {"index": a.index}
        c = a.center()
        return {} if c is None else {"x": c[0], "y": c[1]}

    clear = {"clear_text": True} if a.clear else {}
    if a.kind in ("tap", "long_press", "double_tap"):
        if a.index is None and a.center() is None:
            raise ValueError(f"{a.kind} needs a target")
        return {"action_type": "click" if a.kind == "tap" else a.kind, **target()}
    if a.kind == "input_text":
        return {"action_type": "input_text", "text": a.text or "", **target(), **clear}
    if a.kind == "type":
        if not a.enter:
            raise ValueError("a type without Enter has no androidworld form: AndroidWorld's input_text presses Enter")
        return {"action_type": "input_text", "text": a.text or "", **clear}
    if a.kind == "swipe" and a.end is not None:
        raise ValueError("a swipe from point to end has no androidworld form; AndroidWorld swipes in a direction")
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
    "double_tap": "interact",
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
