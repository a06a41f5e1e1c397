"""Readers of expert-trajectory data for ``GuiExperience-v0``: every format to one record type.

:func:`read_experiences` reads a path in one of :data:`FORMATS` into
:class:`~gui_gym.experience.record.Experience` records:

- ``"gui-gym"``: gui-gym's own JSON Lines (:func:`gui_gym.experience.record.loads`);
- ``"ui-s1"``: UI-S1's AndroidControl JSON Lines (:mod:`.uis1`);
- ``"androidcontrol"``: AndroidControl's TFRecord shards (:mod:`.androidcontrol`);
- ``"gui-odyssey"``: GUI-Odyssey's annotation folder (:mod:`.odyssey`).

Keyword arguments go to the format's reader. ``format="auto"`` (:func:`detect_format`) looks at
the path: a ``.jsonl`` file is ``gui-gym`` when its first record has an ``id`` and steps with an
``action`` object, else ``ui-s1``; a folder with ``annotations/`` (or a folder or file of
GUI-Odyssey annotation JSON) is ``gui-odyssey``; ``android_control-*-of-*`` shards, ``*.tfrecord``
files, folders of them or a glob of them are ``androidcontrol``. A missing path raises
``FileNotFoundError``; damaged data an :class:`~gui_gym.experience.record.ExperienceError`
naming the file and what is wrong.

Example:
    >>> import tempfile, pathlib
    >>> from gui_gym.experience.record import Experience, ExpertStep, UIAction, dumps
    >>> e = Experience("e1", "Go home", (ExpertStep(UIAction("system_button", button="Home")),))
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "mine.jsonl").write_text(dumps([e]))
    >>> detect_format(folder / "mine.jsonl"), read_experiences(folder / "mine.jsonl") == [e]
    ('gui-gym', True)
    >>> _ = write_uis1([e], folder / "uis1.jsonl")
    >>> detect_format(folder / "uis1.jsonl"), read_experiences(folder / "uis1.jsonl")[0].actions == e.actions
    ('ui-s1', True)
"""

from __future__ import annotations

import fnmatch
import glob
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from gui_gym.experience.readers.checks import data_screenshot
from gui_gym.experience.readers.odyssey import read_odyssey
from gui_gym.experience.readers.uis1 import read_uis1, write_uis1
from gui_gym.experience.record import Experience, ExperienceError, loads

__all__ = ["FORMATS", "detect_format", "read_experiences", "read_gui_gym", "write_uis1"]

FORMATS = ("ui-s1", "androidcontrol", "gui-odyssey", "gui-gym")
_SHARD_GLOBS = ("android_control-*-of-*", "*.tfrecord", "*.tfrecord.gz", "*.tfrecord-*")


def _screens_inside(e: Experience, root: Path) -> Experience:
    """``e`` with every screenshot (and its final one) a path under ``root``, the data folder;
    an :class:`ExperienceError` naming the step when one leads out (:func:`.checks.data_screenshot`)."""
    steps = []
    for k, step in enumerate(e.steps):
        if step.screenshot is None:
            steps.append(step)
            continue
        try:
            steps.append(replace(step, screenshot=data_screenshot(root, step.screenshot)))
        except ExperienceError as err:
            raise ExperienceError(f"step {k}: {err}") from None
    final = e.final_screenshot
    if final is not None:
        final = data_screenshot(root, final, "final_screenshot")
    return replace(e, steps=tuple(steps), final_screenshot=final)


def read_gui_gym(path: str | Path) -> list[Experience]:
    """gui-gym's own JSON Lines.

    Screenshot paths (a step's ``screenshot``, an experience's ``final_screenshot``) are taken
    under the file's own folder and must stay in it: an absolute path, a ``..`` that climbs out or
    a symbolic link that leads out is refused, and so is the shard of an AndroidControl reference
    ``"<shard>#<record>/<observation>"``. The records hold the paths as resolved under the folder
    (what the env then opens); an error names the file and line (``path:line: step k: ...``).
    """
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"{p}: no such experience file")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as err:
        raise ExperienceError(f"{p}: not UTF-8 text ({err})") from None
    try:
        return list(loads(text, where=str(p), check=lambda e: _screens_inside(e, p.parent)))
    except RecursionError:
        raise ExperienceError(f"{p}: a record nested too deeply to be an experience") from None


def _is_shard(p: Path) -> bool:
    return any(fnmatch.fnmatch(p.name, g) for g in _SHARD_GLOBS)


def _first_record(p: Path) -> Any:
    """The first non-blank line of a JSON Lines file, decoded (``None`` if there is none)."""
    try:
        with open(p, encoding="utf-8-sig") as f:
            for line in f:
                if line.strip():
                    return json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as err:
        raise ExperienceError(f"{p}: cannot tell its format: the first line is not JSON ({err})") from None
    return None


def _looks_gui_gym(record: Any) -> bool:
    steps = record.get("steps") if isinstance(record, dict) else None
    return (
        isinstance(record, dict)
        and "id" in record
        and isinstance(steps, list)
        and all(isinstance(s, dict) and isinstance(s.get("action"), dict) for s in steps)
    )


def _looks_odyssey(p: Path) -> bool:
    try:
        data = json.loads(p.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return False
    return isinstance(data, dict) and "device_info" in data and "steps" in data


def detect_format(path: str | Path) -> str:
    """The format of ``path`` (one of :data:`FORMATS`), told as the module docstring says."""
    text = str(path)
    p = Path(text)
    if not p.exists():
        if glob.has_magic(text):
            matches = [Path(m) for m in glob.glob(text)]
            if matches and all(_is_shard(m) for m in matches if m.is_file()):
                return "androidcontrol"
            raise FileNotFoundError(f"{text}: no AndroidControl shard matches this pattern")
        raise FileNotFoundError(f"{p}: no such file or directory")
    if p.is_dir():
        if (p / "annotations").is_dir():
            return "gui-odyssey"
        if any(f.is_file() for g in _SHARD_GLOBS for f in p.glob(g)):
            return "androidcontrol"
        first = next(iter(sorted(p.glob("*.json"))), None)
        if first is not None and _looks_odyssey(first):
            return "gui-odyssey"
        raise ExperienceError(
            f"{p}: cannot tell the format of this folder: no annotations/ (GUI-Odyssey) and no "
            "android_control-*-of-* or *.tfrecord files (AndroidControl); pass format="
        )
    if _is_shard(p):
        return "androidcontrol"
    if p.suffix == ".jsonl":
        return "gui-gym" if _looks_gui_gym(_first_record(p)) else "ui-s1"
    if p.suffix == ".json" and _looks_odyssey(p):
        return "gui-odyssey"
    with open(p, "rb") as f:
        head = f.read(2)
    if head == b"\x1f\x8b":  # a gzip stream: AndroidControl ships its shards so
        return "androidcontrol"
    raise ExperienceError(f"{p}: cannot tell the format of this file (pass format= one of {', '.join(FORMATS)})")


def read_experiences(path: str | Path, format: str = "auto", **kw: Any) -> list[Experience]:
    """The experiences at ``path`` in ``format`` (``"auto"``: :func:`detect_format`); ``kw`` go to
    that format's reader (:func:`~.uis1.read_uis1`, :func:`~.androidcontrol.read_androidcontrol`,
    :func:`~.odyssey.read_odyssey`)."""
    try:
        return _read(path, format, **kw)
    except ExperienceError:
        raise
    except (ValueError, OverflowError, RecursionError, MemoryError) as err:  # crafted numbers or nesting
        raise ExperienceError(f"{path}: unreadable ({type(err).__name__}: {str(err)[:200]})") from None


def _read(path: str | Path, format: str, **kw: Any) -> list[Experience]:
    fmt = detect_format(path) if format == "auto" else format
    if fmt == "gui-gym":
        if kw:
            raise TypeError(f"the gui-gym format takes no options, got {sorted(kw)}")
        return read_gui_gym(path)
    if fmt == "ui-s1":
        return read_uis1(path, **kw)
    if fmt == "gui-odyssey":
        return read_odyssey(path, **kw)
    if fmt == "androidcontrol":
        from gui_gym.experience.readers.androidcontrol import read_androidcontrol  # imports the Android family

        return read_androidcontrol(path, **kw)
    raise ValueError(f"unknown format {format!r}; one of auto, {', '.join(FORMATS)}")
