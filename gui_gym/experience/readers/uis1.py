"""UI-S1's AndroidControl JSON Lines (its train and eval files), read and written.

**The data** (X-PLUG/MobileAgent ``UI-S1/datasets``): one episode a line, ``goal``,
``is_successful``, ``episode_id`` (eval only) and ``steps``; a step has ``action_content`` (the
action in UI-S1's space, coordinates in pixels of the original screenshot), ``screenshot`` (an
image path), and optionally ``step_instruction``, ``check_options`` (eval: the action plus
``candidate_bbox``, a list of element boxes, and for a swipe ``direction``), ``thought``,
``motivation`` and ``annotation``. Train files end each episode with ``terminate`` and put a
click's element box in ``action_content.bbox``; the 1,000-episode release writes every key of
``action_content`` with ``null`` for the unused ones (read the same).

**Actions**: ``click`` / ``long_press`` ``coordinate`` → a point (and ``time``), ``bbox`` → the
action's box, ``check_options.candidate_bbox`` (a list of boxes, or one flat box) → the step's
boxes; ``type`` / ``open`` / ``answer`` / ``key`` ``text``; ``system_button`` ``button``;
``wait`` ``time``; ``terminate`` ``status``.

**Swipes.** ``action_content`` gives the finger's ``coordinate`` → ``coordinate2``; the record
wants the way the content moves. When ``check_options.direction`` is there (eval), it is
AndroidControl's label, already a content direction, and is taken as it is; the finger points
are kept if they agree with it (the finger moves the other way) and dropped if not (UI-S1's eval
file writes horizontal labels as finger moves; ``native`` keeps them). Otherwise the direction
comes from the points, by ``swipe_convention``:

- ``"content"`` (default): the points are the finger's real path; the content moves the
  opposite way (finger up → ``down``) and the points are kept.
- ``"uis1-train"``: UI-S1's train file writes vertical swipes with the finger's path reversed
  (AndroidControl's ``down``, finger up, is written (540,600) → (540,1800)), and its reward
  compensates by flipping the up/down label of the points (``verl/utils/reward_score``,
  ``gui_traj.py``). So the finger direction of the points is flipped up↔down (left/right kept),
  the content direction is the opposite of that — for a vertical swipe, the direction the points
  move — and the finger points are stored reversed (start and end swapped) so that they are the
  finger's real path.

Finger points that are exactly the standard ones of their direction
(:func:`~gui_gym.experience.record.swipe_points` for the screen, as UI-S1's eval file writes
them) are dropped: the direction alone says the same.

**Screen size**: the first step's image when it exists (header only), else the line's ``screen``
(written by :func:`write_uis1`; UI-S1's own files have none), else ``screen=``.

**Checks** (:mod:`~gui_gym.experience.readers.checks`): a click's, long press's or swipe's points
must lie on the screen (``0 ≤ x ≤ width``, ``0 ≤ y ≤ height``) when an image or the line says its
size; on the ``screen=`` fallback, which is a guess, within ``[0, MAX_SIDE]`` pixels. Boxes must be
finite and within ``±MAX_SIDE``. Screenshot paths stay inside the data folder — ``image_root``, else
the file's own folder: a relative path is taken under it, an absolute one (UI-S1's files hold the
authors' machine's) by its file name in it, and one that climbs out with ``..`` or through a
symbolic link is refused. Every error names the file and the line (``path:line: step k: ...``).

Example (an eval line and a train line):
    >>> import json, tempfile, pathlib
    >>> eval_line = {"goal": "Note it", "episode_id": 90001, "steps": [
    ...     {"action_content": {"action": "click", "coordinate": [962, 2180]}, "screenshot": "90001_0.png",
    ...      "check_options": {"action": "click", "candidate_bbox": [[900, 2120, 1030, 2250]]}},
    ...     {"action_content": {"action": "swipe", "coordinate": [540, 1800], "coordinate2": [540, 600]},
    ...      "screenshot": "90001_1.png", "check_options": {"action": "swipe", "direction": "down"}}]}
    >>> train_line = {"goal": "Scroll", "steps": [
    ...     {"action_content": {"action": "swipe", "coordinate": [540, 600], "coordinate2": [540, 1800]}}]}
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ac.jsonl"
    >>> _ = path.write_text(json.dumps(eval_line) + "\\n" + json.dumps(train_line) + "\\n")
    >>> ev, tr = read_uis1(path)
    >>> ev.id, ev.steps[0].boxes, ev.steps[1].action.direction, ev.steps[1].action.point
    ('90001', ((900, 2120, 1030, 2250),), 'down', None)
    >>> tr.id, tr.steps[0].action.direction, read_uis1(path, swipe_convention="uis1-train")[1].steps[0].action.direction
    ('ac:2', 'up', 'down')
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gui_gym.core.io import atomic_write
from gui_gym.experience.readers.checks import data_path, on_screen, sane_box, screen_size
from gui_gym.experience.record import (
    DIRECTIONS,
    Box,
    Experience,
    ExperienceError,
    ExpertStep,
    UIAction,
    content_direction,
    finger_direction,
    swipe_points,
)

__all__ = ["SWIPE_CONVENTIONS", "image_size", "parse_step", "read_uis1", "write_uis1"]

SWIPE_CONVENTIONS = ("content", "uis1-train")
_FLIP_VERTICAL = {"up": "down", "down": "up", "left": "left", "right": "right"}


def image_size(path: str | Path) -> tuple[int, int] | None:
    """An image's (width, height) from its header, or ``None`` if the file does not exist."""
    p = Path(path)
    if not p.is_file():
        return None
    try:
        from PIL import Image, UnidentifiedImageError
    except ImportError:  # pragma: no cover - pillow is a dependency
        return None
    try:
        with Image.open(p) as im:  # reads the header only
            return int(im.size[0]), int(im.size[1])
    except (OSError, UnidentifiedImageError, ValueError) as err:
        raise ExperienceError(f"{p}: not a readable image ({err})") from None


def _resolve(shot: Any, root: str | Path) -> str | None:
    """A step's screenshot as a path inside the data folder ``root`` (module docstring)."""
    if shot is None or shot == "":
        return None
    if not isinstance(shot, str):
        raise ExperienceError(f"screenshot must be a path, got {type(shot).__name__}")
    # UI-S1 writes absolute paths of the authors' machine: they are found by name, never followed.
    name = Path(shot).name if Path(shot).is_absolute() else shot
    if not name:
        raise ExperienceError(f"screenshot {shot[:80]!r} names no file")
    return str(data_path(root, name))


def _boxes(v: Any, what: str) -> list[Box]:
    if v is None or v == []:
        return []
    if isinstance(v, Sequence) and len(v) == 4 and all(isinstance(c, (int, float)) for c in v):
        v = [v]  # one flat box (the train file's bbox as UI-S1's reward reads it)
    if not isinstance(v, Sequence) or isinstance(v, str):
        raise ExperienceError(f"{what} must be a list of [x1, y1, x2, y2], got {v!r}")
    out = []
    for b in v:
        if not isinstance(b, Sequence) or isinstance(b, str) or len(b) != 4:
            raise ExperienceError(f"{what} must be a list of [x1, y1, x2, y2], got {v!r}")
        out.append(tuple(sane_box(b, what)))
    return out  # type: ignore[return-value]


def _point(v: Any, what: str, area: tuple[int, int] | None) -> tuple[float, float] | None:
    """``v`` as a point on ``area`` (``None``: a screen of unknown size), ``None`` when absent."""
    return None if v is None else on_screen(v, area, what)


def _swipe(
    ac: Mapping[str, Any],
    check: Mapping[str, Any],
    screen: tuple[int, int],
    convention: str,
    area: tuple[int, int] | None,
) -> UIAction:
    p1, p2 = _point(ac.get("coordinate"), "coordinate", area), _point(ac.get("coordinate2"), "coordinate2", area)
    label = check.get("direction")
    have_points = p1 is not None and p2 is not None
    if label is not None:
        direction = str(label).strip().lower()
        if have_points and content_direction(finger_direction(p1, p2, screen)) != direction:
            p1 = p2 = None  # the points contradict the label: the label wins
    elif not have_points:
        direction = ac.get("direction")  # a swipe given by direction alone (not UI-S1's own files)
        if direction is None:
            raise ExperienceError("a swipe needs coordinate and coordinate2, or check_options.direction")
    elif convention == "content":
        direction = content_direction(finger_direction(p1, p2, screen))
    else:
        # the axis as UI-S1 reads it (normalised coordinates); the train file wrote the vertical
        # path reversed
        drawn = finger_direction(p1, p2, screen)
        finger = _FLIP_VERTICAL[drawn]
        if finger != drawn:
            p1, p2 = p2, p1
        direction = content_direction(finger)
    if label is not None and p1 is not None and p2 is not None and direction in DIRECTIONS:
        # a labelled swipe's standard points say nothing the label does not (the writer adds them)
        standard = swipe_points(direction, screen)
        if (p1, p2) == standard:
            p1 = p2 = None
    return UIAction("swipe", point=p1, point2=p2, direction=direction)


def parse_step(
    step: Mapping[str, Any],
    screen: tuple[int, int] = (1080, 2400),
    *,
    swipe_convention: str = "content",
    image_root: str | Path = ".",
    screen_known: bool = True,
) -> ExpertStep:
    """One UI-S1 step as an :class:`ExpertStep` (see the module docstring).

    ``image_root`` is the data folder its screenshot must lie in; ``screen_known=False`` says
    ``screen`` is a guess, so points are only held to ``[0, MAX_SIDE]``, not to the screen.
    """
    if not isinstance(step, Mapping):
        raise ExperienceError(f"a step is a JSON object, got {type(step).__name__}")
    ac = step.get("action_content")
    if not isinstance(ac, Mapping):
        raise ExperienceError("a step needs an action_content object")
    check = step.get("check_options") or {}
    if not isinstance(check, Mapping):
        raise ExperienceError("check_options must be a JSON object")
    area = screen if screen_known else None
    kind = ac.get("action")
    boxes: list[Box] = []
    if kind in ("click", "long_press"):
        point = _point(ac.get("coordinate"), "coordinate", area)
        action = UIAction(kind, point=point, box=sane_box(ac.get("bbox"), "bbox"), time=ac.get("time"))
        boxes = _boxes(check.get("candidate_bbox"), "check_options.candidate_bbox")
    elif kind == "swipe":
        action = _swipe(ac, check, screen, swipe_convention, area)
    elif kind in ("type", "open", "answer", "key"):
        action = UIAction(kind, text=ac.get("text"))
        if kind == "open":
            boxes = _boxes(check.get("candidate_bbox"), "check_options.candidate_bbox")
    elif kind == "system_button":
        action = UIAction(kind, button=ac.get("button"))
    elif kind == "wait":
        action = UIAction(kind, time=ac.get("time"))
    elif kind == "terminate":
        action = UIAction(kind, status=ac.get("status"))
    else:
        raise ExperienceError(f"unknown action {kind!r} in action_content")
    thought = step.get("thought") or step.get("motivation")
    annotation = step.get("annotation")
    return ExpertStep(
        action,
        tuple(boxes),
        _resolve(step.get("screenshot"), image_root),
        None,
        thought if isinstance(thought, str) else None,
        step.get("step_instruction"),
        json.dumps(ac, ensure_ascii=False),
        annotation if isinstance(annotation, str) else None,
    )


def _screen(line: Mapping[str, Any], root: str | Path, default: tuple[int, int]) -> tuple[tuple[int, int], bool]:
    """The line's screen size and whether the data says it (an image or the line's ``screen``)."""
    steps = line.get("steps") or []
    first = steps[0] if steps and isinstance(steps[0], Mapping) else {}
    try:
        shot = _resolve(first.get("screenshot"), root)
        size = image_size(shot) if shot else None
    except ExperienceError as err:
        raise ExperienceError(f"step 0: {err}") from None
    if size is not None:
        return screen_size(*size, f"the size of the image {shot}"), True
    own = line.get("screen")
    if own is not None:
        if isinstance(own, str) or not isinstance(own, Sequence) or len(own) != 2:
            raise ExperienceError(f"screen must be [width, height], got {own!r}"[:200])
        return screen_size(own[0], own[1], "screen"), True
    return default, False


def read_uis1(
    path: str | Path,
    *,
    image_root: str | Path | None = None,
    screen: tuple[int, int] = (1080, 2400),
    swipe_convention: str = "content",
) -> list[Experience]:
    """The episodes of a UI-S1 JSON Lines file.

    ``image_root`` is the data folder, where the screenshots are (default: the file's own
    folder): a step's relative path is taken under it, an absolute one by its file name in it,
    and a path that leads out of it is an error. ``screen`` is the size when no image and no
    ``screen`` field say it (a guess: points are then held to ``[0, MAX_SIDE]`` only);
    ``swipe_convention`` how swipes without a label read (module docstring). An experience's id
    is ``episode_id``, else ``"<file stem>:<line number>"``. Damaged data raises an
    :class:`ExperienceError` naming the file, the line and the step.
    """
    if swipe_convention not in SWIPE_CONVENTIONS:
        raise ValueError(f"swipe_convention is one of {', '.join(SWIPE_CONVENTIONS)}, got {swipe_convention!r}")
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such UI-S1 file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise ExperienceError(f"{p}: not UTF-8 text ({err})") from None
    root = Path(image_root) if image_root is not None else p.parent
    out = []
    lines = text.splitlines()
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except (json.JSONDecodeError, RecursionError) as err:
            last = n == len(lines) and not text.endswith("\n")
            hint = " (the file seems cut short)" if last else ""
            raise ExperienceError(f"{p}:{n}: not JSON{hint} ({err})") from None
        if not isinstance(line, Mapping) or not isinstance(line.get("steps"), list):
            raise ExperienceError(f"{p}:{n}: an episode is a JSON object with a 'steps' list")
        try:
            size, known = _screen(line, root, screen)
        except ExperienceError as err:
            raise ExperienceError(f"{p}:{n}: {err}") from None
        steps = []
        for k, step in enumerate(line["steps"]):
            try:
                steps.append(
                    parse_step(step, size, swipe_convention=swipe_convention, image_root=root, screen_known=known)
                )
            except ExperienceError as err:
                raise ExperienceError(f"{p}:{n}: step {k}: {err}") from None
            except (ValueError, OverflowError) as err:  # numbers no check foresaw: still named
                raise ExperienceError(f"{p}:{n}: step {k}: {type(err).__name__}: {str(err)[:200]}") from None
        eid = line.get("episode_id")
        meta: dict[str, Any] = {"line": n}
        for key in ("is_successful", "episode_id"):
            if key in line:
                meta[key] = line[key]
        try:
            out.append(
                Experience(
                    str(eid) if eid is not None else f"{p.stem}:{n}",
                    line.get("goal"),  # type: ignore[arg-type]
                    tuple(steps),
                    size,
                    source="ui-s1",
                    meta=meta,
                )
            )
        except ExperienceError as err:
            raise ExperienceError(f"{p}:{n}: {err}") from None
    return out


def _pair(p: Sequence[float]) -> list[float]:
    return [p[0], p[1]]


def _action_content(step: ExpertStep, screen: tuple[int, int]) -> dict[str, Any]:
    a = step.action
    out: dict[str, Any] = {"action": a.action}
    if a.action in ("click", "long_press"):
        assert a.point is not None
        out["coordinate"] = _pair(a.point)
        if a.box is not None:
            out["bbox"] = list(a.box)
    elif a.action == "swipe":
        start, end = a.finger(screen)
        out["coordinate"], out["coordinate2"] = _pair(start), _pair(end)
    elif a.action in ("type", "open", "answer", "key"):
        out["text"] = a.text
    elif a.action == "system_button":
        out["button"] = a.button
    elif a.action == "terminate":
        out["status"] = a.status
    if a.time is not None:
        out["time"] = a.time
    return out


def _written_path(shot: str, folder: Path) -> str:
    """``shot`` relative to ``folder`` when it is an absolute path inside it, else as it is."""
    if os.path.isabs(shot):
        try:
            return Path(os.path.normpath(shot)).relative_to(folder).as_posix()
        except ValueError:  # not inside: kept, and read back by its name in the data folder
            pass
    return shot


def write_uis1(experiences: Iterable[Experience], path: str | Path) -> int:
    """Write ``experiences`` as UI-S1's eval-style JSON Lines; the number written.

    A line's ``episode_id`` is the experience's id (a number when the id is a number's own digits). Each step
    has ``action_content`` (pixels; a swipe's finger points, the standard ones for its
    direction when it has none), ``check_options`` (the action, ``candidate_bbox`` for a click,
    long press or open with boxes, ``direction`` for a swipe), ``screenshot``,
    ``step_instruction`` and ``thought`` when set (a screenshot in the file's folder as a path
    relative to it, so that the file and its images move together). Lines carry ``screen`` ([w, h]) as well, which
    UI-S1's code ignores and :func:`read_uis1` reads when there is no image. A step's ``ui`` and
    ``native`` are not part of the format (reading back gives ``native`` = the written
    ``action_content``).
    """
    folder = Path(os.path.abspath(path)).parent
    lines = []
    for e in experiences:
        canonical = e.id.isascii() and e.id.isdigit() and str(int(e.id)) == e.id  # "0141..." stays text
        eid: Any = int(e.id) if canonical else e.id
        line: dict[str, Any] = {
            "goal": e.goal,
            "is_successful": e.meta.get("is_successful", True),
            "episode_id": eid,
            "screen": list(e.screen),
            "steps": [],
        }
        for s in e.steps:
            ac = _action_content(s, e.screen)
            check = {k: v for k, v in ac.items() if k not in ("coordinate2", "bbox", "time")}
            if s.action.action == "swipe":
                check = {"action": "swipe", "direction": s.action.direction}
            elif s.boxes and s.action.action in ("click", "long_press", "open"):
                check["candidate_bbox"] = [list(b) for b in s.boxes]
            row: dict[str, Any] = {"action_content": ac}
            if s.screenshot is not None:
                row["screenshot"] = _written_path(s.screenshot, folder)
            if s.instruction is not None:
                row["step_instruction"] = s.instruction
            row["check_options"] = check
            if s.thought is not None:
                row["thought"] = s.thought
            line["steps"].append(row)
        lines.append(json.dumps(line, ensure_ascii=False))
    atomic_write(path, lambda f: f.write("".join(f"{x}\n" for x in lines)))
    return len(lines)
