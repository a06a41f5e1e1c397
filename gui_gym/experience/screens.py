"""The screens of expert trajectories: re-rendered on the simulator, or read from the data.

An experience env shows, at expert step *t*, the screen the expert saw there (EMPO Eq. 3). Two
sources give it:

- :class:`SimScreens` — the embedded set ships only the expert's actions; its screens are
  re-rendered by replaying them on the simulated phone from the recorded task and seed (the
  simulator is deterministic), a whole trajectory at a time, and kept in an LRU cache.
- :class:`DataScreens` — a data set's own accessibility text (``ExpertStep.ui``) and screenshot
  files, read when a step is shown.

Both give :class:`Screen` records: the ``ui`` text (an XML dump unless the simulator is asked for
another format), the ``pixels`` (``None`` unless wanted) and the parsed elements that ground an
action's description.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from gui_gym.experience.record import Experience, ExperienceError

__all__ = ["PIXEL_CACHE", "DataScreens", "Screen", "ScreenSource", "SimScreens"]

#: At most this many trajectories' screenshots are cached (540×1200 RGB is 1.9 MB a screen).
PIXEL_CACHE = 8


@dataclass(frozen=True)
class Screen:
    """One screen: its ``ui`` text and, when asked for, its ``pixels`` (H×W×3 uint8)."""

    ui: str
    pixels: np.ndarray | None = None


class ScreenSource:
    """What the env asks of a screen source."""

    def screens(self, experience: Experience) -> list[Screen]:  # pragma: no cover - protocol
        raise NotImplementedError


class SimScreens(ScreenSource):
    """Screens of simulator trajectories (``Experience.task`` and ``seed``), replayed and cached.

    Args:
        ui_format: ``GuiAndroid-v0``'s ``ui_format`` (``xml``, ``mobilerl``, ``indexed``...).
        pixels: render screenshots too (at ``screen_size``).
        cache_size: how many trajectories' screens to keep (with pixels, at most :data:`PIXEL_CACHE`).
    """

    def __init__(
        self,
        ui_format: str = "xml",
        pixels: bool = False,
        screen_size: tuple[int, int] = (540, 1200),
        cache_size: int = 64,
    ) -> None:
        self.ui_format, self.pixels, self.screen_size = ui_format, bool(pixels), tuple(screen_size)
        if int(cache_size) < 1:
            raise ValueError(f"cache_size must be at least 1, got {cache_size}")
        # a trajectory's screenshots are megabytes: keep fewer of them
        self.cache_size = int(cache_size) if not pixels else min(int(cache_size), PIXEL_CACHE)
        self._cache: OrderedDict[str, list[Screen]] = OrderedDict()
        self._lock = threading.Lock()
        self._replaying = threading.Lock()  # one simulator replays one trajectory at a time
        self._env: Any = None

    def screens(self, experience: Experience) -> list[Screen]:
        with self._lock:
            hit = self._cache.get(experience.id)
            if hit is not None:
                self._cache.move_to_end(experience.id)
                return hit
        with self._replaying:
            shown = self._replay(experience)
        with self._lock:
            self._cache[experience.id] = shown
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        return shown

    def _replay(self, experience: Experience) -> list[Screen]:
        from gui_gym.android.env import GuiAndroidEnv

        if experience.task is None or experience.seed is None:
            raise ExperienceError(f"experience {experience.id} names no simulator task and seed to re-render")
        if self._env is None:
            self._env = GuiAndroidEnv(
                obs_mode="both" if self.pixels else "text",
                ui_format=self.ui_format,
                screen_size=self.screen_size,  # type: ignore[arg-type]
                max_steps=10_000,
            )
        env = self._env
        obs, _ = env.reset(seed=experience.seed, options={"task": experience.task})
        out: list[Screen] = []
        for t, step in enumerate(experience.steps):
            out.append(Screen(obs.get("ui", ""), obs.get("screen")))
            if t == len(experience.steps) - 1:
                break
            if step.native is None:
                raise ExperienceError(f"experience {experience.id}, step {t}: no simulator action to replay")
            obs, _, terminated, truncated, info = env.step(step.native)
            if not info.get("format_valid", True) or terminated or truncated:
                raise ExperienceError(
                    f"experience {experience.id} does not replay on this simulator: step {t} "
                    f"({step.native}) {info.get('reason') or 'ended the episode'}"
                )
        return out


class DataScreens(ScreenSource):
    """Screens from the data itself: each step's ``ui`` and, with *pixels*, its screenshot
    (a file path, or a reference a reader's *load* callable turns into image bytes)."""

    def __init__(
        self,
        pixels: bool = False,
        screen_size: tuple[int, int] = (540, 1200),
        load: Callable[[str], bytes] | None = None,
    ) -> None:
        self.pixels, self.screen_size, self.load = bool(pixels), tuple(screen_size), load

    def screens(self, experience: Experience) -> list[Screen]:
        return [
            Screen(step.ui or "", self._image(step.screenshot) if self.pixels else None) for step in experience.steps
        ]

    def _image(self, ref: str | None) -> np.ndarray:
        import io

        from PIL import Image

        w, h = self.screen_size
        if ref is None:
            return np.zeros((h, w, 3), np.uint8)
        try:
            source = io.BytesIO(self.load(ref)) if self.load is not None else ref
            with Image.open(source) as im:
                return np.asarray(im.convert("RGB").resize((w, h)), dtype=np.uint8)
        except (OSError, ValueError) as err:
            raise ExperienceError(f"screenshot {ref!r} cannot be read: {err}") from None
