"""GUI-Odyssey episodes (OpenGVLab's cross-app navigation data, v1 and v2 annotations).

**The data**: ``annotations/<episode_id>.json``, one episode a file, with ``episode_id``,
``device_info`` (``w`` and ``h``: the screen in pixels), ``task_info`` (``instruction``: the goal
the official converter uses, ``task``, ``meta_task``, ``category``, ``app``: a list) and
``steps``; ``screenshots/<episode>_<step>.png``; ``splits/<name>_split.json`` (``random``,
``task``, ``device``, ``app``), each ``{"train": [...], "test": [...]}`` of annotation file names
(``"<id>.json"``; bare ids are accepted too). A step has ``step``, ``screenshot`` (a file name),
``action``, ``info`` and, in v2, ``low_level_instruction``, ``intention``, ``description``,
``context`` and ``sam2_bbox``. Coordinates in ``info`` and ``sam2_bbox`` are integers in
[0, 1000] per axis; they become pixels with ``device_info.w`` / ``h`` (``x · w / 1000``).

**Actions** (``action`` with ``info`` → :class:`~gui_gym.experience.record.UIAction`):

- ``CLICK`` / ``LONG_PRESS`` with points (``[[x, y], [x, y]]``: touch down and lift; the first is
  used, as upstream does) → ``click`` / ``long_press`` at that point, ``sam2_bbox`` (when it is a
  box) → the action's box;
- ``CLICK`` / ``LONG_PRESS`` with a key name: ``KEY_HOME`` → ``system_button`` Home, ``KEY_BACK``
  → Back, and ``KEY_APPSELECT`` (v1: ``KEY_RECENT``), the recent-apps key, → ``key`` with the adb
  name ``KEYCODE_APP_SWITCH``. It is *not* mapped to the system button Menu: Menu is
  ``KEYCODE_MENU``, another key (an app's options menu), and pressing it would not open the
  recent apps. Other ``KEY_<NAME>`` → ``key`` ``KEYCODE_<NAME>`` (``KEY_ENTER`` / ``KEY_MENU`` →
  the system buttons of those names);
- ``SCROLL`` ``[[x1, y1], [x2, y2]]``: the finger's start and end → a ``swipe`` with those points
  (pixels). Its direction is the content's, the opposite of the finger's; the finger's is taken
  from the [0, 1000] points as GUI-Odyssey's decoder does (larger axis of the normalised delta,
  ties vertical), so a swipe's label is the official one even on screens where pixels would tip
  the balance the other way (the swipe then keeps its direction and not the points; ``native`` has
  them);
- ``TEXT`` (the data) or ``TYPE`` (the spec) → ``type`` with ``info``;
- ``COMPLETE`` → ``terminate`` success; ``INCOMPLETE`` (v2) or ``IMPOSSIBLE`` (v1) → failure;
- ``HOME`` / ``BACK`` (listed in v1's spec) → system buttons.

Each step keeps ``thought`` = ``intention``, ``instruction`` = ``low_level_instruction``,
``screenshot`` = its image path (under ``image_root``, else the data's ``screenshots/``) and
``native`` = the step's ``action`` and ``info`` as JSON.

**Checks** (:mod:`~gui_gym.experience.readers.checks`): a point of ``info`` must lie in
``[0, 1000]`` on both axes, the data's own space (a ``sam2_bbox`` outside it is dropped, as a
malformed one is); ``device_info``'s ``w`` and ``h`` are whole pixels up to ``MAX_SIDE``; a
step's ``screenshot`` is a file name under the images folder (an absolute path, a ``..`` that
climbs out or a symbolic link that leads out is refused). Every error names the annotation file
and the step (``file: step k: ...``).

Example:
    >>> import json, tempfile, pathlib
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> (root / "annotations").mkdir()
    >>> episode = {"episode_id": "0001", "device_info": {"w": 1080, "h": 2400},
    ...     "task_info": {"instruction": "Check the weather", "app": ["Chrome"]},
    ...     "steps": [{"step": 0, "screenshot": "0001_0.png", "action": "SCROLL", "info": [[563, 867], [522, 401]]},
    ...               {"step": 1, "screenshot": "0001_1.png", "action": "CLICK", "info": "KEY_APPSELECT"},
    ...               {"step": 2, "screenshot": "0001_2.png", "action": "COMPLETE", "info": ""}]}
    >>> _ = (root / "annotations" / "0001.json").write_text(json.dumps(episode))
    >>> [e] = read_odyssey(root)
    >>> [s.action.describe() for s in e.steps]
    ['swipe to scroll down', 'key "KEYCODE_APP_SWITCH"', 'terminate (success)']
    >>> e.steps[0].action.point, e.steps[0].action.point2
    ((608.04, 2080.8), (563.76, 962.4))
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gui_gym.experience.readers.checks import data_path, on_screen, screen_size
from gui_gym.experience.record import (
    Box,
    Experience,
    ExperienceError,
    ExpertStep,
    UIAction,
    content_direction,
    finger_direction,
)

__all__ = ["KEYS", "SPLIT_NAMES", "annotation_files", "parse_step", "read_odyssey"]

SPLIT_NAMES = ("random_split", "task_split", "device_split", "app_split")
#: Special key names of ``info`` → the action they become.
KEYS: dict[str, UIAction] = {
    "KEY_HOME": UIAction("system_button", button="Home"),
    "KEY_BACK": UIAction("system_button", button="Back"),
    "KEY_ENTER": UIAction("system_button", button="Enter"),
    "KEY_MENU": UIAction("system_button", button="Menu"),
    "KEY_APPSELECT": UIAction("key", text="KEYCODE_APP_SWITCH"),
    "KEY_RECENT": UIAction("key", text="KEYCODE_APP_SWITCH"),
}


_SPACE = (1000, 1000)  # GUI-Odyssey's coordinates: [0, 1000] per axis, whatever the screen


def _scale(p: Any, screen: tuple[int, int], what: str) -> tuple[float, float]:
    x, y = on_screen(p, _SPACE, what)
    w, h = screen
    return round(x * w / 1000, 2), round(y * h / 1000, 2)


def _first_point(info: Any) -> Any:
    """``info[0]`` of ``[[x, y], [x, y]]``, or a bare ``[x, y]``."""
    if isinstance(info, Sequence) and not isinstance(info, str) and info and isinstance(info[0], Sequence):
        return info[0]
    return info


def _sam_box(v: Any, screen: tuple[int, int]) -> Box | None:
    """``sam2_bbox`` in pixels; ``None`` when missing, empty, not four numbers (v2 may write null)
    or outside [0, 1000]: the box is an aid the action does without."""
    if (
        isinstance(v, str)
        or not isinstance(v, Sequence)
        or len(v) != 4
        or not all(isinstance(c, (int, float)) and not isinstance(c, bool) for c in v)
        or not all(0 <= c <= 1000 for c in v)  # NaN fails this too
    ):
        return None
    (x1, y1), (x2, y2) = _scale(v[:2], screen, "sam2_bbox"), _scale(v[2:], screen, "sam2_bbox")
    return min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)


def _key(name: str) -> UIAction:
    name = name.strip().upper()
    if name in KEYS:
        return KEYS[name]
    if name.startswith("KEY_") and len(name) > 4:
        return UIAction("key", text=f"KEYCODE_{name[4:]}")
    raise ExperienceError(f"info {name!r} is neither a point nor a KEY_ name")


def parse_step(step: Mapping[str, Any], screen: tuple[int, int]) -> UIAction:
    """A step's ``action`` and ``info`` as a :class:`UIAction` (see the module docstring)."""
    if not isinstance(step, Mapping):
        raise ExperienceError(f"a step is a JSON object, got {type(step).__name__}")
    kind = str(step.get("action", "")).strip().upper()
    info = step.get("info")
    if kind in ("CLICK", "LONG_PRESS"):
        if isinstance(info, str):
            return _key(info)
        name = "click" if kind == "CLICK" else "long_press"
        return UIAction(
            name, point=_scale(_first_point(info), screen, "info"), box=_sam_box(step.get("sam2_bbox"), screen)
        )
    if kind == "SCROLL":
        if not isinstance(info, Sequence) or isinstance(info, str) or len(info) < 2:
            raise ExperienceError(f"a SCROLL's info is [[x1, y1], [x2, y2]], got {info!r}")
        start, end = _scale(info[0], screen, "info[0]"), _scale(info[-1], screen, "info[-1]")  # both checked
        direction = content_direction(finger_direction(info[0], info[-1]))  # in [0, 1000], as upstream
        if content_direction(finger_direction(start, end)) != direction:
            return UIAction("swipe", direction=direction)  # pixels tip the other way: the label wins
        return UIAction("swipe", point=start, point2=end, direction=direction)
    if kind in ("TEXT", "TYPE"):
        if not isinstance(info, str):
            raise ExperienceError(f"a {kind}'s info is the text, got {info!r}")
        return UIAction("type", text=info)
    if kind == "COMPLETE":
        return UIAction("terminate", status="success")
    if kind in ("INCOMPLETE", "IMPOSSIBLE"):
        return UIAction("terminate", status="failure")
    if kind in ("HOME", "BACK"):
        return UIAction("system_button", button=kind.title())
    raise ExperienceError(f"unknown action {step.get('action')!r}")


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except FileNotFoundError:
        raise FileNotFoundError(f"{path}: no such {what}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ExperienceError(f"{path}: not a readable {what} ({err})") from None


def annotation_files(
    path: str | Path, *, split: str | None = None, split_name: str = "random_split", splits: str | Path | None = None
) -> tuple[list[Path], Path]:
    """The annotation files at ``path`` (the data folder holding ``annotations/``, that folder, or
    one file), those of ``split`` (``train`` / ``test``) of ``split_name`` when given, and the data
    folder (where ``screenshots/`` and ``splits/`` are)."""
    p = Path(path)
    if p.is_file():
        files, data = [p], p.parent.parent if p.parent.name == "annotations" else p.parent
    elif (p / "annotations").is_dir():
        files, data = sorted((p / "annotations").glob("*.json")), p
    elif p.is_dir():
        files, data = sorted(p.glob("*.json")), p.parent if p.name == "annotations" else p
    else:
        raise FileNotFoundError(f"{p}: no such GUI-Odyssey data folder or annotation file")
    if not files:
        raise FileNotFoundError(f"{p}: no annotation files (annotations/*.json)")
    if split is None:
        return files, data
    name = split_name if split_name.endswith("_split") else f"{split_name}_split"
    split_file = Path(splits) if splits is not None else data / "splits" / f"{name}.json"
    table = _read_json(split_file, "GUI-Odyssey split file")
    if not isinstance(table, Mapping) or split not in table or not isinstance(table[split], list):
        keys = ", ".join(table) if isinstance(table, Mapping) else "none"
        raise ExperienceError(f"{split_file}: no split {split!r} (splits: {keys})")
    wanted = {str(x).removesuffix(".json") for x in table[split]}
    return [f for f in files if f.stem in wanted], data


def read_odyssey(
    path: str | Path,
    *,
    split: str | None = None,
    split_name: str = "random_split",
    splits: str | Path | None = None,
    image_root: str | Path | None = None,
) -> list[Experience]:
    """GUI-Odyssey episodes from a data folder (with ``annotations/``), an annotations folder or
    one annotation file.

    ``split`` (``"train"`` or ``"test"``) keeps the episodes of that side of ``split_name``
    (``random_split``, ``task_split``, ``device_split``, ``app_split``; ``"random"`` works too),
    read from ``splits/<split_name>.json`` or the file ``splits``. Screenshot paths are under
    ``image_root`` when given, else the data folder's ``screenshots/``.
    """
    files, data = annotation_files(path, split=split, split_name=split_name, splits=splits)
    images = Path(image_root) if image_root is not None else data / "screenshots"
    return [_episode(f, images) for f in files]


def _whole(v: Any) -> Any:
    """A whole number written as ``1080.0`` or ``"1080"`` as an int (the screen check refuses the rest)."""
    if isinstance(v, str):
        try:
            v = float(v)
        except ValueError:
            return v
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _episode(f: Path, images: Path) -> Experience:
    ep = _read_json(f, "GUI-Odyssey annotation")
    if not isinstance(ep, Mapping):
        raise ExperienceError(f"{f}: an annotation is a JSON object")
    device = ep.get("device_info")
    if not isinstance(device, Mapping) or "w" not in device or "h" not in device:
        raise ExperienceError(f"{f}: device_info needs the screen's w and h in pixels")
    try:
        screen = screen_size(_whole(device["w"]), _whole(device["h"]), "device_info's w and h")
    except ExperienceError as err:
        raise ExperienceError(f"{f}: {err}") from None
    task = ep.get("task_info") or {}
    if not isinstance(task, Mapping):
        raise ExperienceError(f"{f}: task_info must be a JSON object")
    goal = task.get("instruction") or task.get("task")
    if not isinstance(goal, str):
        raise ExperienceError(f"{f}: task_info has no instruction")
    raw_steps = ep.get("steps")
    if not isinstance(raw_steps, list):
        raise ExperienceError(f"{f}: no 'steps' list")
    steps = []
    for k, s in enumerate(raw_steps):
        try:
            action = parse_step(s, screen)
            shot = s.get("screenshot")
            thought, instruction = s.get("intention"), s.get("low_level_instruction")
            steps.append(
                ExpertStep(
                    action,
                    screenshot=str(data_path(images, shot)) if isinstance(shot, str) and shot else None,
                    thought=thought if isinstance(thought, str) and thought else None,
                    instruction=instruction if isinstance(instruction, str) and instruction else None,
                    native=json.dumps({"action": s.get("action"), "info": s.get("info")}, ensure_ascii=False),
                )
            )
        except ExperienceError as err:
            raise ExperienceError(f"{f}: step {k}: {err}") from None
    apps = task.get("app")
    apps = [apps] if isinstance(apps, str) else list(apps) if isinstance(apps, list) else []
    meta = {k: task[k] for k in ("category", "meta_task", "task") if k in task}
    meta.update({"apps": apps, "device": device.get("device_name")})  # type: ignore[union-attr]
    try:
        return Experience(
            str(ep.get("episode_id") or f.stem),
            goal,
            tuple(steps),
            screen,
            source="gui-odyssey",
            app=str(apps[0]) if apps else None,
            meta=meta,
        )
    except ExperienceError as err:
        raise ExperienceError(f"{f}: {err}") from None
