"""What every reader checks in what a data file says: coordinates in range, image paths inside
the data set's folder.

**Coordinates.** A point an action touches must be finite and on the screen it was taken on:
``0 ≤ x ≤ width`` and ``0 ≤ y ≤ height`` (edges included), in the data's own space (pixels for
UI-S1 and AndroidControl, ``[0, 1000]`` per axis for GUI-Odyssey). Where the data does not say
its screen size, the point must lie in ``[0, MAX_SIDE]`` on both axes instead. An element box
may reach past the screen (a list scrolled half out of view), so a box's edges must only be
finite and within ``±MAX_SIDE``. A screen's own width and height are whole numbers in
``[1, MAX_SIDE]``. So a crafted ``1e308`` or ``10**400`` never reaches the record or the
arithmetic after it.

**Image paths.** A path a data file gives for an image is resolved under the data set's folder
and must stay there: an absolute path, a ``..`` that climbs out, or a symbolic link that points
out is refused (:func:`data_path`), so a data file can only make a reader open images of its own
data set. gui-gym's own JSON Lines may also hold AndroidControl's screenshot references,
``"<shard>#<record>/<observation>"`` (:func:`split_reference`): their shard is held to the same
rule (:func:`data_screenshot`).

Every check raises :class:`~gui_gym.experience.record.ExperienceError` naming the field; the
readers add the file and the line or record.

Example:
    >>> on_screen([540, 2400], (1080, 2400), "coordinate")
    (540, 2400)
    >>> try:
    ...     on_screen([1e308, 0], (1080, 2400), "coordinate")
    ... except ValueError as err:
    ...     print(err)
    coordinate [1e+308, 0] is off the screen: x must be in [0, 1080] and y in [0, 2400]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path, PurePath
from typing import Any

from gui_gym.experience.record import ExperienceError, is_number

__all__ = [
    "MAX_SIDE",
    "data_path",
    "data_screenshot",
    "is_number",
    "on_screen",
    "sane_box",
    "screen_size",
    "split_reference",
]

#: Pixels on a side that no phone or tablet screen reaches (4K phones have 3840): the bound on
#: coordinates where the data does not say its screen, on boxes and on screen sizes.
MAX_SIDE = 10_000


def _shown(v: Any) -> str:
    text = repr(list(v) if isinstance(v, tuple) else v)
    return text if len(text) <= 80 else text[:77] + "..."


def on_screen(v: Any, screen: tuple[int, int] | None, what: str) -> tuple[float, float]:
    """``v`` as an ``(x, y)`` point on ``screen`` (``None``: a screen of unknown size, so within
    ``[0, MAX_SIDE]``); an :class:`ExperienceError` naming ``what`` otherwise."""
    if isinstance(v, str) or not isinstance(v, Sequence) or len(v) != 2:
        raise ExperienceError(f"{what} must be [x, y], got {_shown(v)}")
    if not all(is_number(c) for c in v):
        raise ExperienceError(f"{what} must hold two finite numbers, got {_shown(v)}")
    x, y = v
    if screen is None:
        if not (0 <= x <= MAX_SIDE and 0 <= y <= MAX_SIDE):
            raise ExperienceError(f"{what} {_shown(v)} is out of range (0 to {MAX_SIDE} pixels on each axis)")
    else:
        w, h = screen
        if not (0 <= x <= w and 0 <= y <= h):
            raise ExperienceError(f"{what} {_shown(v)} is off the screen: x must be in [0, {w}] and y in [0, {h}]")
    return x, y


def sane_box(v: Any, what: str) -> Any:
    """``v`` unchanged when it is not four numbers (the record says what a box must be), else
    checked: each edge finite and within ``±MAX_SIDE``."""
    if isinstance(v, str) or not isinstance(v, Sequence) or len(v) != 4:
        return v
    if not all(is_number(c) for c in v):
        raise ExperienceError(f"{what} must hold four finite numbers, got {_shown(v)}")
    if not all(-MAX_SIDE <= c <= MAX_SIDE for c in v):
        raise ExperienceError(f"{what} {_shown(v)} is out of range (-{MAX_SIDE} to {MAX_SIDE} pixels)")
    return v


def screen_size(w: Any, h: Any, what: str) -> tuple[int, int]:
    """A screen's ``(width, height)``: whole numbers in ``[1, MAX_SIDE]``."""
    ok = all(isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_SIDE for v in (w, h))
    if not ok:
        shown = _shown([w, h])
        raise ExperienceError(f"{what} must be a width and height in whole pixels, 1 to {MAX_SIDE}, got {shown}")
    return int(w), int(h)


def data_path(root: str | os.PathLike[str], name: str, what: str = "screenshot") -> Path:
    """``root / name``, refused unless it stays inside ``root``: ``name`` is relative, no ``..``
    climbs out, and no symbolic link on the way leads out (links are followed as far as the
    files exist; a missing image is still named)."""
    if "\0" in name:
        raise ExperienceError(f"{what} {_shown(name)} holds a NUL character")
    rel = PurePath(name)
    if rel.is_absolute() or rel.drive:
        raise ExperienceError(f"{what} {_shown(name)} is an absolute path; it must be a path inside the data folder")
    base = Path(root)
    full = base / rel
    if os.path.normpath(rel).split(os.sep)[0] == os.pardir:
        raise ExperienceError(f"{what} {_shown(name)} climbs out of the data folder {base} with '..'")
    real_base, real = base.resolve(), full.resolve()
    if real != real_base and real_base not in real.parents:
        shown = _shown(name)
        raise ExperienceError(f"{what} {shown} leads out of the data folder {base} (to {real}, by a symbolic link)")
    return full


def split_reference(ref: str) -> tuple[str, str, str] | None:
    """An AndroidControl screenshot reference ``"<shard>#<record>/<observation>"`` as its shard,
    record and observation (the numbers as written, ASCII digits), ``None`` when ``ref`` is none."""
    shard, sep, rest = ref.rpartition("#")
    index, slash, obs = rest.partition("/")
    if sep and slash and all(v.isascii() and v.isdigit() for v in (index, obs)):
        return shard, index, obs
    return None


def data_screenshot(root: str | os.PathLike[str], name: str, what: str = "screenshot") -> str:
    """A screenshot a data file names, as the path under ``root`` to open (:func:`data_path`).

    When ``name`` also reads as an AndroidControl reference (:func:`split_reference`), whoever
    opens it may take the part before ``#`` as a shard file: that shard must lie inside ``root``
    too, and the reference comes back as ``"<root/shard>#<record>/<observation>"``, which names
    the same checked file read either way.
    """
    if not name or os.path.normpath(name) == os.curdir:
        raise ExperienceError(f"{what} {_shown(name)} names no file")
    ref = split_reference(name)
    if ref is None:
        return str(data_path(root, name, what))
    shard, index, obs = ref
    if not shard or os.path.normpath(shard) == os.curdir:
        raise ExperienceError(f"{what} {_shown(name)} names no shard before its '#'")
    shard_path = data_path(root, shard, f"{what}'s shard")
    data_path(root, f"{PurePath(shard)}#{index}/{obs}", what)  # and as one path, as an image opener reads it
    return f"{shard_path}#{index}/{obs}"
