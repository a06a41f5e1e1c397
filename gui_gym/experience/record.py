"""One record type for expert trajectories, in AndroidControl's and UI-S1's conventions.

Every reader (:mod:`gui_gym.experience.readers`) and the embedded set produce
:class:`Experience` records: a goal and its expert steps, each step the screen the expert saw and
the :class:`UIAction` it took there. Actions use UI-S1's action space (EMPO Fig. 22, the
``x/data/agent/space`` of its released code), which is AndroidControl's with names shortened:

==================  =========================================  ======================================
``action``          fields                                     AndroidControl
==================  =========================================  ======================================
``click``           ``point`` (pixels), ``box`` (its element)  ``click`` x, y
``long_press``      ``point``, ``box``, ``time``               ``long_press`` x, y
``swipe``           ``direction`` (the content's), ``point``   ``scroll`` direction
                    → ``point2`` (the finger's, if known)
``type``            ``text``                                   ``input_text`` text
``open``            ``text`` (the app)                         ``open_app`` app_name
``system_button``   ``button``: Back, Home, Menu, Enter        ``navigate_back`` / ``navigate_home``
``wait``            ``time``                                   ``wait``
``terminate``       ``status``: success, failure               (none: the episode ends)
``answer``          ``text``                                   (none)
``key``             ``text`` (an adb key name)                 (none)
==================  =========================================  ======================================

A swipe's ``direction`` is the way the *content* moves, as AndroidControl labels its scrolls
("scroll down" shows what is below: the finger moves up). :func:`finger_direction` and
:func:`content_direction` convert.

Points and boxes are pixels of the step's screenshot (``Experience.screen``), origin top-left.

Example:
    >>> a = UIAction("click", point=(540, 360), box=(40, 300, 1040, 420))
    >>> UIAction.from_dict(a.to_dict()) == a
    True
    >>> swipe_points("down", (1080, 2400))  # the finger moves up
    ((540, 1800), (540, 600))
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

__all__ = [
    "ACTIONS",
    "BUTTONS",
    "DIRECTIONS",
    "Box",
    "Experience",
    "ExperienceError",
    "ExpertStep",
    "Point",
    "UIAction",
    "content_direction",
    "dumps",
    "finger_direction",
    "is_number",
    "loads",
    "swipe_points",
]

ACTIONS = (
    "click",
    "long_press",
    "swipe",
    "type",
    "open",
    "system_button",
    "wait",
    "terminate",
    "answer",
    "key",
)
BUTTONS = ("Back", "Home", "Menu", "Enter")
DIRECTIONS = ("up", "down", "left", "right")
STATUSES = ("success", "failure")
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
MAX_TEXT = 10_000

Point = tuple[float, float]
Box = tuple[float, float, float, float]


class ExperienceError(ValueError):
    """A record that does not hold an expert trajectory (names the record and the field)."""


def finger_direction(start: Sequence[float], end: Sequence[float], screen: tuple[int, int] | None = None) -> str:
    """The way a finger moved from *start* to *end*: the larger axis wins, a tie goes vertical
    (UI-S1's rule); y grows downwards. With *screen*, the axes are compared in coordinates
    normalised by its width and height, as UI-S1 compares them."""
    dx, dy = float(end[0]) - float(start[0]), float(end[1]) - float(start[1])
    if screen is not None:
        dx, dy = dx / screen[0], dy / screen[1]
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def content_direction(finger: str) -> str:
    """The way the content moves under a finger moving *finger* (and back: it is its own inverse)."""
    return _OPPOSITE[finger]


def swipe_points(direction: str, screen: tuple[int, int]) -> tuple[tuple[int, int], tuple[int, int]]:
    """Finger start and end of a swipe that moves the content *direction*: from three quarters to
    one quarter of the screen through its middle, as UI-S1's AndroidControl data writes them."""
    w, h = screen
    cx, cy = w // 2, h // 2
    quarter = {"up": (cx, h // 4), "down": (cx, 3 * h // 4), "left": (w // 4, cy), "right": (3 * w // 4, cy)}
    start = quarter[direction]  # content down: the finger starts low and moves up
    return start, quarter[_OPPOSITE[direction]]


def is_number(c: Any) -> bool:
    """A finite real number, as a coordinate can be: no bool, no NaN or infinity, no int too large
    for a float."""
    if isinstance(c, bool) or not isinstance(c, (int, float)):
        return False
    try:
        return math.isfinite(float(c))
    except OverflowError:
        return False


def _shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 80 else text[:77] + "..."


def _point(v: Any, what: str) -> Point | None:
    if v is None:
        return None
    if isinstance(v, str) or not isinstance(v, Sequence) or len(v) != 2:
        raise ExperienceError(f"{what} must be [x, y], got {_shown(v)}")
    if not all(is_number(c) for c in v):
        raise ExperienceError(f"{what} must hold two finite numbers, got {_shown(v)}")
    return v[0], v[1]


def _box(v: Any, what: str) -> Box | None:
    if v is None:
        return None
    if isinstance(v, str) or not isinstance(v, Sequence) or len(v) != 4:
        raise ExperienceError(f"{what} must be [x1, y1, x2, y2], got {_shown(v)}")
    if not all(is_number(c) for c in v):
        raise ExperienceError(f"{what} must hold four finite numbers, got {_shown(v)}")
    x1, y1, x2, y2 = v
    if x2 < x1 or y2 < y1:
        raise ExperienceError(f"{what} {list(v)} is not [left, top, right, bottom]")
    return x1, y1, x2, y2


def _text(v: Any, what: str) -> str | None:
    if v is None:
        return None
    if not isinstance(v, str):
        raise ExperienceError(f"{what} must be text, got {type(v).__name__}")
    if len(v) > MAX_TEXT:
        raise ExperienceError(f"{what} is {len(v)} characters; at most {MAX_TEXT}")
    return v


@dataclass(frozen=True)
class UIAction:
    """One action in UI-S1's space (see the module docstring); only its kind's fields are set."""

    action: str
    point: Point | None = None
    point2: Point | None = None
    direction: str | None = None
    text: str | None = None
    button: str | None = None
    status: str | None = None
    time: float | None = None
    box: Box | None = None

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ExperienceError(f"unknown action {self.action!r}; one of {', '.join(ACTIONS)}")
        set_ = object.__setattr__
        set_(self, "point", _point(self.point, "point"))
        set_(self, "point2", _point(self.point2, "point2"))
        set_(self, "box", _box(self.box, "box"))
        set_(self, "text", _text(self.text, "text"))
        if self.action in ("click", "long_press") and self.point is None:
            if self.box is None:
                raise ExperienceError(f"a {self.action} needs a point or a box")
            x1, y1, x2, y2 = self.box
            set_(self, "point", ((x1 + x2) / 2, (y1 + y2) / 2))
        if self.action == "swipe":
            if self.direction is None:
                if self.point is None or self.point2 is None:
                    raise ExperienceError("a swipe needs a direction or its finger's two points")
                set_(self, "direction", content_direction(finger_direction(self.point, self.point2)))
            elif self.direction not in DIRECTIONS:
                raise ExperienceError(f"a swipe's direction is one of {', '.join(DIRECTIONS)}, got {self.direction!r}")
            elif self.point is not None and self.point2 is not None:
                # a diagonal path may read as either axis (pixels or normalised); the way back cannot
                moved = content_direction(finger_direction(self.point, self.point2))
                if moved == _OPPOSITE[self.direction]:
                    raise ExperienceError(
                        f"a finger from {self.point} to {self.point2} scrolls the content {moved}, not {self.direction}"
                    )
        if self.action in ("type", "open", "answer", "key") and self.text is None:
            raise ExperienceError(f"a {self.action} needs its text")
        if self.action == "system_button":
            names = {b.lower(): b for b in BUTTONS}
            if not isinstance(self.button, str) or self.button.strip().lower() not in names:
                raise ExperienceError(f"a system_button is one of {', '.join(BUTTONS)}, got {self.button!r}")
            set_(self, "button", names[self.button.strip().lower()])
        if self.action == "terminate":
            status = self.status if self.status is not None else "success"
            if status not in STATUSES:
                raise ExperienceError(f"a terminate's status is success or failure, got {self.status!r}")
            set_(self, "status", status)
        if self.time is not None and not is_number(self.time):
            raise ExperienceError(f"time must be a number of seconds, got {_shown(self.time)}")

    def to_dict(self) -> dict[str, Any]:
        """The fields that are set, points and boxes as lists (JSON)."""
        out: dict[str, Any] = {}
        for k, v in asdict(self).items():
            if v is not None:
                out[k] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> UIAction:
        if not isinstance(d, Mapping):
            raise ExperienceError(f"an action is a JSON object, got {type(d).__name__}")
        unknown = set(d) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise ExperienceError(f"unknown action fields {sorted(unknown)}")
        return cls(**dict(d))

    def finger(self, screen: tuple[int, int]) -> tuple[Point, Point]:
        """A swipe's finger start and end: its own, or the standard ones for its direction."""
        if self.action != "swipe":
            raise ValueError(f"a {self.action} has no finger path")
        if self.point is not None and self.point2 is not None:
            return self.point, self.point2
        assert self.direction is not None
        return swipe_points(self.direction, screen)

    def describe(self) -> str:
        """A short text of the action ("click (540, 360)", "type "hello"")."""
        a = self.action
        if a in ("click", "long_press"):
            assert self.point is not None
            return f"{a} ({round(self.point[0])}, {round(self.point[1])})"
        if a == "swipe":
            return f"swipe to scroll {self.direction}"
        if a in ("type", "open", "answer", "key"):
            return f'{a} "{self.text}"'
        if a == "system_button":
            return f"press {self.button}"
        if a == "terminate":
            return f"terminate ({self.status})"
        return a


@dataclass(frozen=True)
class ExpertStep:
    """One expert step: the action taken on this step's screen, with what the data says of it.

    ``boxes`` are the candidate element boxes a click may land in (the target element's first);
    ``screenshot`` a path or key of the screen image, ``ui`` its accessibility text (an XML dump
    in ``uiautomator``'s format) where the data has one; ``thought`` the expert's reasoning
    (off-policy patches use it), ``instruction`` AndroidControl's step instruction and
    ``native`` the action as its source wrote it (AndroidControl's JSON, GUI-Odyssey's action,
    the simulator's ``do(...)`` text, which replays it exactly); ``annotation`` UI-S1's judgement of
    the step (``GOOD``, ``NEUTRAL``, ``HARMFUL``), which only the released code's reward reads.
    """

    action: UIAction
    boxes: tuple[Box, ...] = ()
    screenshot: str | None = None
    ui: str | None = None
    thought: str | None = None
    instruction: str | None = None
    native: str | None = None
    annotation: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.action, UIAction):
            raise ExperienceError(f"a step's action is a UIAction, got {type(self.action).__name__}")
        boxes = tuple(_box(b, "a candidate box") for b in self.boxes)
        if self.action.box is not None:  # the target element's box first
            boxes = (self.action.box, *(b for b in boxes if b != self.action.box))
        object.__setattr__(self, "boxes", boxes)
        for name in ("screenshot", "ui", "thought", "instruction", "native", "annotation"):
            v = getattr(self, name)
            if v is not None and not isinstance(v, str):
                raise ExperienceError(f"a step's {name} must be text, got {type(v).__name__}")


@dataclass(frozen=True)
class Experience:
    """An expert trajectory: ``goal``, ``steps``, the ``screen`` size in pixels, where it came
    from (``source``: ``gui-gym``, ``ui-s1``, ``androidcontrol``, ``gui-odyssey``) and, for the
    embedded set, how to re-render its screens (``task`` and ``seed`` of the simulator)."""

    id: str
    goal: str
    steps: tuple[ExpertStep, ...]
    screen: tuple[int, int] = (1080, 2400)
    source: str = "gui-gym"
    task: str | None = None
    seed: int | None = None
    difficulty: str = "medium"
    app: str | None = None
    final_screenshot: str | None = None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not self.id:
            raise ExperienceError(f"an experience needs an id, got {self.id!r}")
        if not isinstance(self.goal, str):
            raise ExperienceError(f"experience {self.id}: the goal must be text")
        steps = tuple(self.steps)
        if not steps:
            raise ExperienceError(f"experience {self.id}: no steps")
        object.__setattr__(self, "steps", steps)
        w, h = self.screen
        if not (isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0):
            raise ExperienceError(f"experience {self.id}: screen must be (width, height) in pixels, got {self.screen}")
        object.__setattr__(self, "screen", (w, h))

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def actions(self) -> list[UIAction]:
        return [s.action for s in self.steps]

    def with_steps(self, steps: Sequence[ExpertStep]) -> Experience:
        return replace(self, steps=tuple(steps))

    # -- JSON ------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The record as JSON-able data (:meth:`from_dict` reads it back)."""
        out: dict[str, Any] = {"id": self.id, "goal": self.goal, "screen": list(self.screen), "source": self.source}
        for k in ("task", "seed", "app", "final_screenshot"):
            if getattr(self, k) is not None:
                out[k] = getattr(self, k)
        out["difficulty"] = self.difficulty
        steps = []
        for s in self.steps:
            row: dict[str, Any] = {"action": s.action.to_dict()}
            extra = [list(b) for b in s.boxes if b != s.action.box]
            if extra:
                row["boxes"] = extra
            for k in ("screenshot", "ui", "thought", "instruction", "native", "annotation"):
                if getattr(s, k) is not None:
                    row[k] = getattr(s, k)
            steps.append(row)
        out["steps"] = steps
        if self.meta:
            out["meta"] = self.meta
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Experience:
        if not isinstance(d, Mapping):
            raise ExperienceError(f"an experience is a JSON object, got {type(d).__name__}")
        try:
            steps = [
                ExpertStep(
                    UIAction.from_dict(s["action"]),
                    tuple(s.get("boxes", ())),
                    s.get("screenshot"),
                    s.get("ui"),
                    s.get("thought"),
                    s.get("instruction"),
                    s.get("native"),
                    s.get("annotation"),
                )
                for s in d["steps"]
            ]
            screen = d.get("screen", (1080, 2400))
            return cls(
                str(d["id"]),
                d["goal"],
                tuple(steps),
                (screen[0], screen[1]),
                d.get("source", "gui-gym"),
                d.get("task"),
                d.get("seed"),
                d.get("difficulty", "medium"),
                d.get("app"),
                d.get("final_screenshot"),
                dict(d.get("meta", {})),
            )
        except (KeyError, TypeError, IndexError) as err:
            raise ExperienceError(f"experience {d.get('id', '?')!r}: malformed ({type(err).__name__}: {err})") from None


def dumps(experiences: Sequence[Experience]) -> str:
    """Experiences as gui-gym's JSON Lines (one record a line)."""
    return "".join(json.dumps(e.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n" for e in experiences)


def loads(
    text: str, where: str = "experiences", check: Callable[[Experience], Experience] | None = None
) -> Iterator[Experience]:
    """Records of gui-gym's JSON Lines; a damaged line raises :class:`ExperienceError` naming it.
    ``check`` (a reader's) takes each record and returns it as kept, or raises an
    :class:`ExperienceError` that is named by the line the same way."""
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except RecursionError:
            raise ExperienceError(f"{where}:{n}: nested too deeply to be an experience") from None
        except json.JSONDecodeError as err:
            raise ExperienceError(f"{where}:{n}: not JSON ({err})") from None
        try:
            record = Experience.from_dict(data)
            if check is not None:
                record = check(record)
        except ExperienceError as err:
            raise ExperienceError(f"{where}:{n}: {err}") from None
        yield record
