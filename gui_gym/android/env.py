"""``GuiAndroid-v0``: an Android phone as a Gymnasium env (parse -> backend -> obs/info).

The phone is a backend (:mod:`gui_gym.android.backends`): the simulator by default, or any
object that implements :class:`~gui_gym.android.backends.base.AndroidBackend`.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GuiAndroid-v0", task="ClockStopWatchRunning")
    >>> obs, info = env.reset(seed=0)
    >>> sorted(obs), info["task_id"]
    (['instruction', 'ui'], 'ClockStopWatchRunning')
    >>> while True:
    ...     obs, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
    ...     if term or trunc:
    ...         break
    >>> info["success"], r, info["progress"]
    (True, 1.0, 1.0)
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gui_gym.android.actions import (
    COORDINATES,
    DIALECTS,
    Action,
    ActionParseError,
    check_on_screen,
    clip_text,
    contract_kind,
    parse_action,
)
from gui_gym.android.backends import AndroidBackend, Episode, make_backend
from gui_gym.android.backends.base import BackendCapabilityError, TaskInfo, require
from gui_gym.android.compressed import COMPRESSED_FORMATS, compress_tree, resolve_format
from gui_gym.android.forest import (
    ForestElement,
    dump_elements,
    element_center,
    to_forest,
    window_elements,
)
from gui_gym.android.forest import UIElement as UIElement  # the records of info["ui_elements"]
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Window, to_xml
from gui_gym.core import contract as C
from gui_gym.core.family import select_tasks
from gui_gym.core.io import Snapshot
from gui_gym.core.lazy import LazyList
from gui_gym.core.spaces import AnyText

OBS_MODES = ("text", "pixels", "both")
#: ``obs["ui"]`` formats: the dump, a compressed text (``"compressed"`` is ``"mobilerl"``), or the forest.
UI_FORMATS = ("xml", "compressed", *COMPRESSED_FORMATS, "forest")
#: what the UI dump shows: the active window (``uiautomator dump``) or every window merged
UI_WINDOWS = ("active", "all", "merged")
#: the list ``info["ui_elements"]`` holds and an action's ``index`` counts in
UI_ELEMENTS = ("forest", "dump")
MAX_UI_CHARS = 400_000
MAX_INSTRUCTION_CHARS = 2_000


def resolve_tasks(task: str | list[str] | tuple[str, ...] | None, tasks: Mapping[str, TaskInfo]) -> list[Any]:
    """The tasks of ``tasks`` (a backend's suite) that ``task`` selects: ids, a comma list, a tier,
    or ``None``/``"all"`` for all, as the family's ``tasks()`` reads a selection."""
    return select_tasks(tasks.values(), task, "GuiAndroid-v0")


class GuiAndroidEnv(gym.Env):
    """An Android phone with AndroidWorld-style tasks (the simulator unless told otherwise).

    Args:
        task: a task id, a list of ids, a tier (``"easy"``/``"medium"``/``"hard"``), or
            ``None``: each reset samples a task from the selection.
        obs_mode: ``"text"`` (instruction + UI dump), ``"pixels"`` (instruction +
            screenshot) or ``"both"``.
        ui_format: ``"xml"`` (the uiautomator dump) or a compressed text
            (:mod:`gui_gym.android.compressed`): ``"mobilerl"``, what MobileRL's released agents
            read (its compressor at the ``v4`` its configs select: bounds relative, 0-999);
            ``"mobilerl_appc"``, its paper's App. C (pixel bounds); ``"indexed"``, gui-gym's
            one line per node numbered like the dump's nodes. ``"compressed"`` means ``"mobilerl"``;
            ``"forest"`` is android_env's accessibility forest as JSON (every window with its nodes,
            what AndroidWorld's environment reads).
        ui_windows: what the dump shows: ``"active"`` (the active window alone, rooted at its
            package, as ``uiautomator dump`` writes it), ``"all"`` (every window's tree as a
            top-level node, bottom of the z-order first, as uiautomator2's and androidx's dumps
            write them) or ``"merged"`` (every window under one root, with the toast: the
            simulator's composed screen).
        ui_elements: the list in ``info["ui_elements"]``, which an action's ``index`` counts in:
            ``"forest"`` (AndroidWorld's ``state.ui_elements``: the forest's leaves, described and
            scrollable nodes, every window, as its agents number them) or ``"dump"`` (every node of
            the dump in document order, AndroidWorld's ``xml_dump_to_ui_elements``). Entries are
            AndroidWorld's ``UIElement`` records; an ``index`` action touches the centre of its
            element's ``bbox_pixels``, as AndroidWorld's actuation does. The list is built when
            first read (a :class:`~gui_gym.core.lazy.LazyList` of that step's screen, which
            pickles as a plain list).
        info_elements: whether ``info`` carries ``ui_elements`` at all (``index`` actions work
            either way). ``False`` suits an ``AsyncVectorEnv`` whose policy reads only the
            observation: a worker then ships no element list through its pipe.
        screen_size: ``(width, height)`` of the rendered screenshot; the device is 1080x2400.
        max_steps: override the per-task step limit (default: the backend's; the simulator gives
            2 x oracle length + 5).
        render_mode: ``"rgb_array"`` or ``"ansi"`` (the compressed UI as text: in ``ui_format``
            when that is compressed, else ``"indexed"``).
        backend: ``"sim"`` (the simulated phone), another name of
            :data:`~gui_gym.android.backends.BACKENDS`, or an object implementing
            :class:`~gui_gym.android.backends.base.AndroidBackend`. Tasks come from the backend.
        backend_options: what a backend named by ``backend`` is made with (``adb``: ``serial``,
            ``host``, ``port``, ``settle_timeout``, ``command_timeout``).

    ``info["backend"]`` names the backend; the reset's ``info["judged_by"]`` says how success is
    judged: ``"state"`` (the phone's state, as on the simulator), ``"screen"`` (the final screen)
    or ``"agent"`` (instruction-only: the agent's own ``status`` / answer).

    Actions are text in any syntax of :mod:`gui_gym.android.actions`, a JSON dict, or an
    :class:`~gui_gym.android.actions.Action`, each checked the same way (types, values, lengths,
    then against the screen: coordinates on it, an index below the number of elements). An
    action that cannot be parsed or applied, whatever its value, changes nothing (the phone, a
    touch gesture in progress, the clock), costs a step, and is reported with
    ``info["format_valid"] = False`` and ``info["reason"]`` (at most
    :data:`~gui_gym.android.actions.MAX_REASON` characters); ``step()`` raises only
    ``ResetNeeded`` after the episode ended. Reward is the outcome: 1.0 on the final step of a
    successful episode.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array", "ansi"], "render_fps": 4}
    #: the env family (``gui_gym.core.family.family_of``)
    family = "gui_gym.android.family:FAMILY"

    def __init__(
        self,
        task: str | list[str] | None = None,
        obs_mode: str = "text",
        ui_format: str = "xml",
        screen_size: tuple[int, int] = (540, 1200),
        max_steps: int | None = None,
        render_mode: str | None = None,
        backend: str | AndroidBackend = "sim",
        ui_windows: str = "active",
        ui_elements: str = "forest",
        action_dialect: str = "androidlab",
        action_coordinates: str = "pixels",
        backend_options: dict[str, Any] | None = None,
        info_elements: bool = True,
    ) -> None:
        """See the class docstring; ``action_dialect`` and ``action_coordinates`` are
        :func:`~gui_gym.android.actions.parse_action`'s ``dialect`` and ``coordinates`` for
        every text or dict action (MobileRL's released agents: ``"mobilerl"`` and
        ``"relative_999"``). They do not touch an :class:`~gui_gym.android.actions.Action`:
        under either, step the oracle's text as ``parse_action(env.oracle_action())``."""
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
        if ui_format not in UI_FORMATS:
            raise ValueError(f"ui_format must be one of {UI_FORMATS}, got {ui_format!r}")
        if ui_windows not in UI_WINDOWS:
            raise ValueError(f"ui_windows must be one of {UI_WINDOWS}, got {ui_windows!r}")
        if ui_windows == "all" and ui_format != "xml":
            raise ValueError("ui_windows='all' writes every window's tree as XML: use it with ui_format='xml'")
        if ui_elements not in UI_ELEMENTS:
            raise ValueError(f"ui_elements must be one of {UI_ELEMENTS}, got {ui_elements!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        w, h = (int(screen_size[0]), int(screen_size[1]))
        if not (16 <= w <= SCREEN_W * 2 and 16 <= h <= SCREEN_H * 2):
            raise ValueError(f"screen_size must lie between 16 and twice the device size, got {screen_size}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be positive")
        if action_dialect not in DIALECTS:
            raise ValueError(f"action_dialect must be one of {DIALECTS}, got {action_dialect!r}")
        if action_coordinates not in COORDINATES:
            raise ValueError(f"action_coordinates must be one of {COORDINATES}, got {action_coordinates!r}")
        self.action_dialect = action_dialect
        self.action_coordinates = action_coordinates
        self.backend = make_backend(backend, **(backend_options or {}))
        if ui_windows == "merged" and not callable(getattr(self.backend, "screen", None)):
            raise BackendCapabilityError(
                f"ui_windows='merged' needs a backend with screen(); {self.backend.name!r} has none"
            )
        self.pool = resolve_tasks(task, self.backend.tasks)
        self.obs_mode = obs_mode
        self.ui_format = ui_format
        self.ui_windows = ui_windows
        self.ui_elements = ui_elements
        self.info_elements = bool(info_elements)
        self._compressed = None if ui_format in ("xml", "forest") else resolve_format(ui_format)
        self.screen_size = (w, h)
        self.max_steps = max_steps
        self.render_mode = render_mode
        obs: dict[str, spaces.Space] = {"instruction": AnyText(MAX_INSTRUCTION_CHARS)}
        if obs_mode in ("text", "both"):
            obs["ui"] = AnyText(MAX_UI_CHARS)
        if obs_mode in ("pixels", "both"):
            obs["screen"] = spaces.Box(0, 255, (h, w, 3), np.uint8)
        self.observation_space = spaces.Dict(obs)
        self.action_space = AnyText(20_000)
        self._episode: Episode | None = None
        self._task: Any = None  # the backend's task (a TaskTemplate for the simulator)
        self._instruction = ""
        self._milestones: list[str] = []
        self._reached = 0
        self._steps = 0
        self._limit = 0
        self._done = True
        self._elements: tuple[Any, list[ForestElement]] = (None, [])  # (windows or tree, its list)
        self._ui = ""
        self._ui_of: Any = None  # the windows (or tree) _ui was written from

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        if C.TASK in options:
            pool = resolve_tasks(options[C.TASK], self.backend.tasks)
        else:
            pool = self.pool
        rng = self.np_random
        task = pool[int(rng.integers(len(pool)))] if len(pool) > 1 else pool[0]
        episode = self.backend.start(task.id, rng, options.get(C.PARAMS) or None)
        self._task, self._episode = task, episode
        self._instruction = episode.instruction
        self._milestones = list(episode.milestones)
        self._reached = 0
        self._steps = 0
        self._limit = self.max_steps or episode.step_limit
        self._done = False
        self._advance_milestones()
        reached = self._milestones[: self._reached]  # a start state may already satisfy some
        info = self._info(valid=True, description="Reset", new_milestones=reached)
        info[C.DIFFICULTY] = task.difficulty
        # What milestone-based shaping needs once per episode: the annotated milestones of this
        # instance, and the values behind their <Slot> placeholders (to abstract and refill them).
        info[C.TASK_MILESTONES] = list(self._milestones)
        info[C.PLACEHOLDERS] = dict(episode.placeholders)
        # how success is judged: "state" (the phone's state), "screen" (the final screen) or
        # "agent" (instruction-only: the agent's own verdict, on a device that cannot report it)
        judged_by = getattr(self.backend, "judged_by", None)
        info["judged_by"] = judged_by(task.id) if callable(judged_by) else "state"
        return self._obs(), info

    def step(self, action: str | dict | Action) -> tuple[dict, float, bool, bool, dict]:
        if self._task is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        self._steps += 1
        try:
            parsed = self._parse(action)
        except ActionParseError as e:
            out = None
            reason = clip_text(str(e))
            valid, description, kind = False, f"Invalid action: {reason}", C.INVALID
        else:
            out = self.backend.act(parsed)
            valid, description, reason = out.valid, out.description, clip_text(out.reason)
            kind = contract_kind(parsed) if valid else C.INVALID
            if not valid:
                reason = reason or "the backend refused the action"
                description = clip_text(description)
        before = self._reached
        self._advance_milestones()
        new = self._milestones[before : self._reached]
        terminated = bool(out is not None and out.done)
        truncated = not terminated and self._steps >= self._limit
        info = self._info(valid=valid, description=description, new_milestones=new)
        info[C.ACTION_KIND] = kind
        task_info = getattr(self.backend, "task_info", None)
        if task_info is not None:
            info.update(task_info())  # what the task reports beyond the env's keys (a page's reward)
        if reason:
            info[C.REASON] = reason
        reward = 0.0
        if terminated or truncated:
            self._done = True
            answer = out.answer if out is not None else None
            status = out.status if (out is not None and terminated) else None
            success = bool(self.backend.check(answer, status))
            if self._task.kind == "infeasible":
                # Declaring "infeasible" counts only after looking: the task's app was opened.
                opened = self.backend.app_opened(self._task.app)
                success = success and status == "infeasible" and opened
            elif status == "infeasible":
                success = False
            info[C.SUCCESS] = success
            reward = 1.0 if success else 0.0
        return self._obs(), reward, terminated, truncated, info

    def render(self) -> np.ndarray | str | None:
        if self.render_mode == "rgb_array":
            return self._screenshot()
        if self.render_mode == "ansi":
            return f"[{self._instruction}]\n" + compress_tree(self.backend.tree(), self._compressed or "indexed")
        return None

    def close(self) -> None:
        self.backend.close()

    # -- extras --------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """The expert's next action (text), computed from the current screen.

        A capability of the backend (the simulator has it; a real phone does not).
        """
        require(self.backend, "oracle", "oracle_action()")
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before oracle_action()")
        return self.backend.oracle_action()  # type: ignore[attr-defined]

    def snapshot(self) -> tuple[Any, Snapshot]:
        """A copy of the full env state (backend, task instance, counters), kept in memory.

        Needs a backend that supports snapshots (the simulator does). A snapshot cannot be saved
        or sent (``gui_gym.core.io.Snapshot``): it forks this env, it is not a file format.
        """
        require(self.backend, "snapshot", "snapshot()")
        env_state = (
            self._task.id if self._task is not None else None,
            self._episode,
            self._instruction,
            self._milestones,
            self._reached,
            self._steps,
            self._limit,
            self._done,
        )
        return self.backend.snapshot(), Snapshot.take(env_state)  # type: ignore[attr-defined]

    def restore(self, snap: tuple[Any, Snapshot]) -> None:
        """Return to a :meth:`snapshot`; the next observation is :meth:`observe`."""
        require(self.backend, "snapshot", "restore()")
        backend_state, env_state = snap
        if not isinstance(env_state, Snapshot):
            raise TypeError(f"restore() takes what snapshot() returned, not {type(snap).__name__}")
        self.backend.restore(backend_state)  # type: ignore[attr-defined]
        tid, self._episode, self._instruction, self._milestones, self._reached, self._steps, self._limit, self._done = (
            env_state.load()
        )
        self._task = self.backend.tasks[tid] if tid is not None else None

    def observe(self) -> dict[str, Any]:
        """The current observation without stepping."""
        return self._obs()

    def current_elements(self) -> list[UIElement]:
        """The current screen's element list: what ``info["ui_elements"]`` holds (also under
        ``info_elements=False``), and what an action's ``index`` counts in."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before current_elements()")
        return [e.element for e in self._element_list()]

    @property
    def device(self) -> Any:
        """The simulated device of the backend (for code that inspects the simulator)."""
        try:
            return self.backend.device  # type: ignore[attr-defined]
        except AttributeError:
            name = getattr(self.backend, "name", type(self.backend).__name__)
            raise AttributeError(f"the {name!r} backend has no simulated device") from None

    @property
    def task(self) -> Any:
        """The backend's current task (a ``TaskTemplate`` for the simulator), ``None`` before reset."""
        return self._task

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._episode.params) if self._episode is not None else {}

    @property
    def instruction(self) -> str:
        return self._instruction

    # -- internals -----------------------------------------------------------------------
    def _parse(self, action: Any) -> Action:
        """``action`` parsed, checked, and checked against the current screen; raises only
        :class:`~gui_gym.android.actions.ActionParseError`.

        An ``index`` counts in ``info["ui_elements"]`` and becomes the centre of its element's
        ``bbox_pixels``, as AndroidWorld's actuation taps it; the backend gets a point."""
        parsed = parse_action(action, dialect=self.action_dialect, coordinates=self.action_coordinates)
        if parsed.index is None:
            check_on_screen(parsed, 0)
            return parsed
        elements = self._element_list()
        check_on_screen(parsed, len(elements))
        if parsed.kind == "scroll" and parsed.index == 0:
            # AndroidWorld tests ``if action.index:``: index 0 scrolls the whole screen.
            return dataclasses.replace(parsed, index=None)
        return dataclasses.replace(parsed, index=None, point=element_center(elements[parsed.index].element))

    def _windows(self) -> list[Window]:
        """The backend's windows; a backend without them shows its tree as one active window."""
        windows = getattr(self.backend, "windows", None)
        if callable(windows):
            return windows()
        root = self.backend.tree()
        return [Window(0, "application", 0, "", root.package, root.bounds, root, active=True, focused=True)]

    def _element_source(self) -> Any:
        """What the element list is read from: the windows (forest) or the active tree (dump),
        the same objects for as long as the screen is unchanged."""
        return self._windows() if self.ui_elements == "forest" else self.backend.tree()

    def _element_list(self, source: Any = None) -> list[ForestElement]:
        """The list ``info["ui_elements"]`` shows of ``source`` (default: the current screen),
        computed once per screen. The cache is one ``(source, list)`` pair, read and written
        whole: a step's LazyList read from another thread cannot pair a list with another screen."""
        if source is None:
            source = self._element_source()
        of, found = self._elements
        if of is not source:
            found = window_elements(source) if self.ui_elements == "forest" else dump_elements(source)
            self._elements = (source, found)
        return found

    def _advance_milestones(self) -> None:
        assert self._task is not None
        n, reached = len(self._milestones), self.backend.milestone_reached
        while self._reached < n and reached(self._reached):
            self._reached += 1

    def _obs(self) -> dict[str, Any]:
        obs: dict[str, Any] = {"instruction": self._instruction}
        if self.obs_mode != "pixels":
            obs["ui"] = self._ui_text()
        if self.obs_mode != "text":
            obs["screen"] = self._screenshot()
        return obs

    def _ui_text(self) -> str:
        """``obs["ui"]``, written once per screen: a step that changed nothing (a refused action)
        shows the text it had."""
        if self.ui_format == "forest" or self.ui_windows == "all":
            source: Any = self._windows()
        else:
            source = self.backend.screen() if self.ui_windows == "merged" else self.backend.tree()  # type: ignore[attr-defined]
        if source is not self._ui_of:
            self._ui, self._ui_of = self._write_ui(source), source
        return self._ui

    def _write_ui(self, source: Any) -> str:
        if self.ui_format == "forest":
            return json.dumps(to_forest(source), ensure_ascii=False, separators=(",", ":"))
        if self.ui_windows == "all":
            return to_xml([w.root for w in sorted(source, key=lambda w: w.layer)])
        return to_xml(source) if self._compressed is None else compress_tree(source, self._compressed)

    def _screenshot(self) -> np.ndarray:
        return self.backend.screenshot(self.screen_size)

    def _info(self, valid: bool, description: str, new_milestones: list[str]) -> dict[str, Any]:
        task = self._task
        assert task is not None
        n = len(self._milestones)
        info = {
            C.TASK_ID: task.id,
            C.INSTRUCTION: self._instruction,
            C.FORMAT_VALID: valid,
            C.ACTION_DESCRIPTION: description,
            C.MILESTONES: new_milestones,
            C.PROGRESS: self._reached / n if n else 0.0,
        }
        if self.info_elements:
            # Built on first read, from this step's screen (its nodes stay as they were after
            # the next step rebuilds the screen): most agents never read it.
            source = self._element_source()
            info["ui_elements"] = LazyList(lambda: [e.element for e in self._element_list(source)])
        info["backend"] = self.backend.name
        return info
