"""Actions grounded in a screen's elements: the boxes under a point and what an action did.

The elements come from the screen's accessibility text (a ``uiautomator`` dump or a compressed
tree, read by :func:`gui_gym.android.candidates.parse_screen`), so grounding works the same on the
simulator's screens and on a data set's accessibility trees.

Example:
    >>> ui = ('<hierarchy><node text="" class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">'
    ...       '<node text="Save" class="android.widget.Button" clickable="true" bounds="[900,100][1060,220]"/>'
    ...       '</node></hierarchy>')
    >>> from gui_gym.experience.record import UIAction
    >>> describe(UIAction("click", point=(950, 150)), screen_elements(ui))
    'Click "Save"'
    >>> boxes_at(screen_elements(ui), (950, 150))
    [(900, 100, 1060, 220), (0, 0, 1080, 2400)]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gui_gym.experience.record import Box, UIAction

__all__ = ["boxes_at", "describe", "element_at", "screen_elements"]


def screen_elements(ui: str) -> list[Any]:
    """The elements of a screen's accessibility text (``[]`` for none or unreadable text)."""
    from gui_gym.android.candidates import parse_screen

    return parse_screen(ui or "")


def _contains(box: Sequence[float], point: Sequence[float]) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _area(box: Sequence[float]) -> float:
    return max(0.0, float(box[2]) - float(box[0])) * max(0.0, float(box[3]) - float(box[1]))


def boxes_at(elements: Sequence[Any], point: Sequence[float], limit: int = 5) -> list[Box]:
    """The boxes of the elements under *point*, smallest first (distinct, at most *limit*)."""
    found = sorted({tuple(e.bounds) for e in elements if _contains(e.bounds, point)}, key=_area)
    return [tuple(b) for b in found[:limit]]  # type: ignore[misc]


def element_at(elements: Sequence[Any], point: Sequence[float]) -> Any | None:
    """The element a touch at *point* reaches: the smallest clickable one under it, else the
    smallest with a label."""
    under = sorted((e for e in elements if _contains(e.bounds, point)), key=lambda e: _area(e.bounds))
    for e in under:
        if (e.clickable or e.long_clickable or e.editable) and e.label:
            return e
    return next((e for e in under if e.label), None)


def _name(e: Any) -> str:
    label = " ".join(str(e.label).split())
    return label if len(label) <= 60 else label[:57] + "..."


def describe(action: UIAction, elements: Sequence[Any] = ()) -> str:
    """What *action* does, named by its target where the screen shows one."""
    a = action.action
    if a in ("click", "long_press"):
        verb = "Click" if a == "click" else "Long press"
        assert action.point is not None
        target = element_at(elements, action.point)
        if target is not None:
            return f'{verb} "{_name(target)}"'
        return f"{verb} at ({round(action.point[0])}, {round(action.point[1])})"
    if a == "swipe":
        return f"Swipe to scroll {action.direction}"
    if a == "type":
        return f'Type "{action.text}"'
    if a == "open":
        return f"Open {action.text}"
    if a == "answer":
        return f'Answer "{action.text}"'
    if a == "key":
        return f"Press key {action.text}"
    if a == "system_button":
        return f"Press {action.button}"
    if a == "wait":
        return "Wait"
    return f"Terminate the task ({action.status})"
