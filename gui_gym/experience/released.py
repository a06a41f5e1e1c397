"""EMPO's reward as the authors' released code computes it (``rule="released"``).

UI-S1's ``verl/utils/reward_score/gui_traj.py`` and ``gui_utils/utils.py`` (commit ``11cea575``)
depart from the paper's Eq. 4 and App. C; this module reproduces them on gui-gym's records, and
``tests/experience/test_uis1_fidelity.py`` checks it against recordings of that code:

- the response must hold ``<action>{JSON}</action>``; anything else scores 0, whatever the
  ``<think>`` (no other syntax is read);
- ``score = 0.1·format + 0.9·action``: format is a non-empty ``<think>``; action is 1 (type and
  accuracy), 0.5 (type), 0.1 (a JSON action of another type, even one outside the space), and 0
  when the match itself fails on missing or malformed arguments (the format point stays);
- an expert ``answer`` or ``key`` step wants a predicted ``type``; a click is checked against the
  expert element's one box (enlarged ×1.2) or the 0.04 distance, in coordinates normalised by
  the screen; a swipe by the finger's dominant axis in those coordinates against the expert's
  direction with up and down swapped (UI-S1 reads AndroidControl's vertical labels as the
  content's way and its horizontal ones as the finger's); text by substring either way, an empty
  prediction included; wait and terminate by type alone;
- a step annotated ``HARMFUL`` scores 1 − action, ``NEUTRAL`` 0.5;
- the step matches (the expert's next screen follows) on type and accuracy, format aside.

Predicted and expert points are both read as pixels of the expert's screen (the released code
divides the model's by the resized image's size, which a caller that feeds pixels makes equal).

Example (a right click with an empty think loses only the format point):
    >>> from gui_gym.experience.record import ExpertStep, UIAction
    >>> step = ExpertStep(UIAction("click", point=(540, 1200), box=(440, 1100, 640, 1300)))
    >>> released_score('<think></think><action>{"action": "click", "coordinate": [560, 1210]}</action>',
    ...                step, (1080, 2400))
    (0.9, 0, True, True)
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from gui_gym.experience.record import ExpertStep, UIAction

__all__ = ["released_score", "released_verdict"]

_THINK = re.compile(r"<think>(.*?)</think>", re.S)
_ACTION = re.compile(r"<action>(.*?)</action>", re.S)
_FLIP = {"up": "down", "down": "up"}


def _expert(step: ExpertStep, screen: tuple[int, int]) -> dict[str, Any]:
    """The expert step as the released code's ``check_options``, normalised by the screen."""
    gt: UIAction = step.action
    w, h = screen
    out: dict[str, Any] = {"action": gt.action}
    if gt.point is not None:
        out["coordinate"] = [gt.point[0] / w, gt.point[1] / h]
    if gt.action == "swipe":
        # the finger's way the prediction must take: from the expert's finger path where the data
        # gives one (the dominant axis in normalised coordinates), else its label with up and down
        # swapped, as the released code flips AndroidControl's labels
        if gt.point is not None and gt.point2 is not None:
            out["finger"] = _direction((gt.point[0] / w, gt.point[1] / h), (gt.point2[0] / w, gt.point2[1] / h))
        else:
            out["finger"] = _FLIP.get(str(gt.direction), gt.direction)
    box = gt.box if gt.box is not None else (step.boxes[0] if step.boxes else None)
    if box is not None:
        out["candidate_bbox"] = [[box[0] / w, box[1] / h, box[2] / w, box[3] / h]]
    for key in ("text", "button"):
        if getattr(gt, key) is not None:
            out[key] = getattr(gt, key)
    return out


def _direction(start: Any, end: Any) -> str:
    dx, dy = end[0] - start[0], end[1] - start[1]
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def _text(pred: Any, gt: Any) -> bool:
    p, g = pred.lower().strip(), gt.lower().strip()
    return p in g or g in p


def _click(point: Any, boxes: list, gt_point: Any) -> bool:
    for x1, y1, x2, y2 in boxes:
        cx, cy, hw, hh = (x1 + x2) / 2, (y1 + y2) / 2, (x2 - x1) * 1.2 / 2, (y2 - y1) * 1.2 / 2
        if cx - hw <= point[0] <= cx + hw and cy - hh <= point[1] <= cy + hh:
            return True
    return math.hypot(gt_point[0] - point[0], gt_point[1] - point[1]) <= 0.04


def _match(pred: dict[str, Any], gt: dict[str, Any], screen: tuple[int, int]) -> tuple[bool, bool]:
    """``(type_match, extract_match)``; raises where the released code raises (missing arguments)."""
    w, h = screen
    p = dict(pred)
    for key in ("coordinate", "coordinate2"):
        if key in p:
            p[key] = [p[key][0] / w, p[key][1] / h]
    kind, want = p["action"], gt["action"]
    if want in ("wait", "terminate"):
        return (True, True) if kind == want else (False, False)
    if want == "system_button":
        return (True, gt["button"].lower().strip() == p["button"].lower().strip()) if kind == want else (False, False)
    if want in ("type", "answer", "key"):
        return (True, _text(p["text"], gt["text"])) if kind == "type" else (False, False)
    if want == "open":
        return (True, _text(p["text"], gt["text"])) if kind == "open" else (False, False)
    if want == "swipe":
        if kind != "swipe":
            return False, False
        return True, _direction(p["coordinate"], p["coordinate2"]) == gt["finger"]
    if want in ("click", "long_press"):
        if kind != want:
            return False, False
        return True, _click(p["coordinate"], gt.get("candidate_bbox", []), gt["coordinate"])
    return False, False


def released_score(response: Any, step: ExpertStep, screen: tuple[int, int]) -> tuple[float, int, bool, bool]:
    """``(score, format, type_match, extract_match)`` of *response* for *step* (see the module docstring)."""
    fmt, action, type_match, extract_match = 0, 0.0, False, False
    try:
        text = str(response)
        think, tagged = _THINK.search(text), _ACTION.search(text)
        pred = json.loads(tagged.group(1).strip()) if tagged else None
        if pred is None and tagged is None:
            raise ValueError("no <action>")
        fmt = int(bool(think and think.group(1).strip()))
        type_match, extract_match = _match(pred, _expert(step, screen), screen)
        action = (1.0 if extract_match else 0.5) if type_match else 0.1
        if step.annotation == "HARMFUL":
            action = 1 - action
        elif step.annotation == "NEUTRAL":
            action = 0.5
    except Exception:  # the released code scores whatever fails as it stands
        pass
    return round(fmt * 0.1 + action * 0.9, 12), fmt, bool(type_match), bool(extract_match)


def _verdict(pred: dict[str, Any], step: ExpertStep, screen: tuple[int, int]) -> tuple[bool, bool]:
    """``evaluate_android_control_action``: AC-Real's step check in the released evaluator."""
    w, h = screen
    gt = step.action
    p = dict(pred)
    for key in ("coordinate", "coordinate2"):
        if key in p:
            p[key] = [p[key][0] / w, p[key][1] / h]
    boxes = [[b[0] / w, b[1] / h, b[2] / w, b[3] / h] for b in step.boxes]
    kind, want = p["action"], gt.action
    if want == "wait":
        return (True, True) if kind == "wait" else (False, False)
    if want == "system_button":
        return (True, str(gt.button).lower().strip() == p["button"].lower().strip()) if kind == want else (False, False)
    if want == "type":
        return (True, _text(p["text"], gt.text)) if kind == "type" else (False, False)
    if want == "open":
        if kind == "open":
            return True, _text(p["text"], gt.text)
        if kind == "click" and boxes:  # an app icon on the screen: a click on it opens the app
            first = boxes[0]
            return True, _click(p["coordinate"], boxes, [(first[0] + first[2]) / 2, (first[1] + first[3]) / 2])
        return False, False
    if want == "swipe":
        return (True, True) if kind == "swipe" else (False, False)  # the direction is not checked
    if want in ("click", "long_press"):
        if kind != want:
            return False, False
        assert gt.point is not None
        return True, _click(p["coordinate"], boxes, [gt.point[0] / w, gt.point[1] / h])
    raise NotImplementedError(f"the released evaluator has no rule for {want}")


def released_verdict(response: Any, step: ExpertStep, screen: tuple[int, int]) -> tuple[bool, bool]:
    """``(type_match, exact_match)`` of the released AC-Real evaluator (``evaluation/qwenvl_utils.py``):
    unlike the training reward, every candidate box counts, a click on an ``open`` step's app icon
    opens it, a swipe is right whatever its direction, and ``answer``, ``key`` and ``terminate``
    steps have no rule (``NotImplementedError``, which its driver turns into a failed task).
    Raises where the released evaluator raises; a response without ``<action>{JSON}</action>``
    raises too (its driver fails the task)."""
    tagged = _ACTION.search(str(response))
    if tagged is None:
        raise ValueError("no <action> in the response")
    return _verdict(json.loads(tagged.group(1).strip()), step, screen)
