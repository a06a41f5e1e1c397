"""``GuiAndroid-v0``: the simulated phone as a Gymnasium env.

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

import difflib
from typing import Any, ClassVar, NamedTuple

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gui_gym.android.actions import Action, ActionParseError, contract_kind, parse_action
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.tasks import TASKS, TaskTemplate, oracle_steps
from gui_gym.android.sim.tasks.base import Oracle
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node, to_compressed, to_xml
from gui_gym.core import contract as C
from gui_gym.core.spaces import AnyText

OBS_MODES = ("text", "pixels", "both")
UI_FORMATS = ("xml", "compressed")
MAX_UI_CHARS = 400_000
MAX_INSTRUCTION_CHARS = 2_000


class UIElement(NamedTuple):
    """One entry of ``info["ui_elements"]``, the list AndroidWorld's ``index`` refers to."""

    index: int
    text: str
    content_description: str
    class_name: str
    resource_id: str
    bbox: tuple[int, int, int, int]
    is_clickable: bool
    is_long_clickable: bool
    is_scrollable: bool
    is_editable: bool
    is_checkable: bool
    is_checked: bool
    is_focused: bool
    is_selected: bool
    is_enabled: bool
    package_name: str


def resolve_tasks(task: str | list[str] | tuple[str, ...] | None) -> list[TaskTemplate]:
    """Task ids, a difficulty tier (``easy``/``medium``/``hard``), or ``None`` for all."""
    if task is None or task == "all":
        return list(TASKS.values())
    if isinstance(task, str):
        task = [task]
    out = []
    for tid in task:
        if tid in ("easy", "medium", "hard"):
            out.extend(t for t in TASKS.values() if t.difficulty == tid)
            continue
        if tid not in TASKS:
            close = difflib.get_close_matches(tid, list(TASKS), n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(close)}?" if close else " See gui_gym.android.list_tasks()."
            raise ValueError(f"unknown task id {tid!r}.{hint}")
        out.append(TASKS[tid])
    if not out:
        raise ValueError("no tasks selected")
    return out


class GuiAndroidEnv(gym.Env):
    """A simulated Android phone with AndroidWorld-style tasks.

    Args:
        task: a task id, a list of ids, a tier (``"easy"``/``"medium"``/``"hard"``), or
            ``None``: each reset samples a task from the selection.
        obs_mode: ``"text"`` (instruction + UI dump), ``"pixels"`` (instruction +
            screenshot) or ``"both"``.
        ui_format: ``"xml"`` (uiautomator dump) or ``"compressed"`` (MobileRL App. C).
        screen_size: ``(width, height)`` of the rendered screenshot; the device is 1080x2400.
        max_steps: override the per-task step limit (default: 2 x oracle length + 5).
        render_mode: ``"rgb_array"`` or ``"ansi"`` (the compressed UI as text).

    Actions are text in any syntax of :mod:`gui_gym.android.actions`, a JSON dict, or an
    :class:`~gui_gym.android.actions.Action`. An action that cannot be parsed or applied
    changes nothing, costs a step, and is reported with ``info["format_valid"] = False`` and
    ``info["reason"]``. Reward is the outcome: 1.0 on the final step of a successful episode.
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
    ) -> None:
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
        if ui_format not in UI_FORMATS:
            raise ValueError(f"ui_format must be one of {UI_FORMATS}, got {ui_format!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        w, h = (int(screen_size[0]), int(screen_size[1]))
        if not (16 <= w <= SCREEN_W * 2 and 16 <= h <= SCREEN_H * 2):
            raise ValueError(f"screen_size must lie between 16 and twice the device size, got {screen_size}")
        if max_steps is not None and max_steps < 1:
            raise ValueError("max_steps must be positive")
        self.pool = resolve_tasks(task)
        self.obs_mode = obs_mode
        self.ui_format = ui_format
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
        self.device = Device()
        self._renderer = None
        self._task: TaskTemplate | None = None
        self._params: dict[str, Any] = {}
        self._instruction = ""
        self._milestones: list[str] = []
        self._reached = 0
        self._steps = 0
        self._limit = 0
        self._done = True

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        if C.TASK in options:
            pool = resolve_tasks(options[C.TASK])
        else:
            pool = self.pool
        rng = self.np_random
        task = pool[int(rng.integers(len(pool)))] if len(pool) > 1 else pool[0]
        params = task.sample(rng)
        if options.get(C.PARAMS):
            params = {**params, **options[C.PARAMS]}
        self.device.reset(now=task.clock(rng))
        task.setup(self.device, params, rng)
        self.device.invalidate()
        self._task, self._params = task, params
        self._instruction = task.instruction(params)
        self._milestones = task.milestone_texts(params)
        self._reached = 0
        self._steps = 0
        self._limit = self.max_steps or 2 * oracle_steps(task) + 5
        self._done = False
        self._advance_milestones()
        reached = self._milestones[: self._reached]  # a start state may already satisfy some
        info = self._info(valid=True, description="Reset", new_milestones=reached)
        info[C.DIFFICULTY] = task.difficulty
        # What milestone-based shaping needs once per episode: the annotated milestones of this
        # instance, and the values behind their <Slot> placeholders (to abstract and refill them).
        info[C.TASK_MILESTONES] = list(self._milestones)
        info[C.PLACEHOLDERS] = task.placeholder_values(params)
        return self._obs(), info

    def step(self, action: str | dict | Action) -> tuple[dict, float, bool, bool, dict]:
        if self._task is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        self._steps += 1
        try:
            parsed = parse_action(action)
        except ActionParseError as e:
            out = None
            valid, description, reason, kind = False, f"Invalid action: {e}", str(e), C.INVALID
        else:
            out = self.device.act(parsed)
            valid, description, reason = out.valid, out.description, out.reason
            kind = contract_kind(parsed) if valid else C.INVALID
        before = self._reached
        self._advance_milestones()
        new = self._milestones[before : self._reached]
        terminated = bool(out is not None and out.done)
        truncated = not terminated and self._steps >= self._limit
        info = self._info(valid=valid, description=description, new_milestones=new)
        info[C.ACTION_KIND] = kind
        if reason:
            info[C.REASON] = reason
        reward = 0.0
        if terminated or truncated:
            self._done = True
            answer = out.answer if out is not None else None
            status = out.status if (out is not None and terminated) else None
            success = bool(self._task.check(self.device, self._params, answer, status))
            if self._task.kind == "infeasible":
                # Declaring "infeasible" counts only after looking: the task's app was opened.
                opened = self._task.app in self.device.state.launched
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
            return f"[{self._instruction}]\n" + to_compressed(self.device.tree())
        return None

    def close(self) -> None:
        self._renderer = None

    # -- extras --------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """The expert's next action (text), computed from the current screen."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before oracle_action()")
        return self._task.oracle(Oracle(self.device, self._params))

    def snapshot(self) -> bytes:
        """The full env state (device, task instance, counters) as bytes."""
        import pickle

        env_state = (
            self._task.id if self._task else None,
            self._params,
            self._instruction,
            self._milestones,
            self._reached,
            self._steps,
            self._limit,
            self._done,
        )
        return pickle.dumps((self.device.snapshot(), env_state), protocol=pickle.HIGHEST_PROTOCOL)

    def restore(self, snap: bytes) -> None:
        """Return to a :meth:`snapshot`; the next observation is :meth:`observe`."""
        import pickle

        dev, env_state = pickle.loads(snap)
        self.device.restore(dev)
        tid, self._params, self._instruction, self._milestones, self._reached, self._steps, self._limit, self._done = (
            env_state
        )
        self._task = TASKS[tid] if tid else None

    def observe(self) -> dict[str, Any]:
        """The current observation without stepping."""
        return self._obs()

    @property
    def task(self) -> TaskTemplate | None:
        return self._task

    @property
    def params(self) -> dict[str, Any]:
        return dict(self._params)

    @property
    def instruction(self) -> str:
        return self._instruction

    # -- internals -----------------------------------------------------------------------
    def _advance_milestones(self) -> None:
        task = self._task
        assert task is not None
        ms = task.milestones
        while self._reached < len(ms) and ms[self._reached].reached(self.device, self._params):
            self._reached += 1

    def _obs(self) -> dict[str, Any]:
        obs: dict[str, Any] = {"instruction": self._instruction}
        if self.obs_mode != "pixels":
            tree = self.device.tree()
            obs["ui"] = to_xml(tree) if self.ui_format == "xml" else to_compressed(tree)
        if self.obs_mode != "text":
            obs["screen"] = self._screenshot()
        return obs

    def _screenshot(self) -> np.ndarray:
        if self._renderer is None:
            from gui_gym.android.sim.render import Renderer

            self._renderer = Renderer(self.screen_size)
        return self._renderer.render(self.device.tree(), dark=bool(self.device.state.settings.get("dark_theme")))

    def _info(self, valid: bool, description: str, new_milestones: list[str]) -> dict[str, Any]:
        task = self._task
        assert task is not None
        n = len(self._milestones)
        return {
            C.TASK_ID: task.id,
            C.INSTRUCTION: self._instruction,
            C.FORMAT_VALID: valid,
            C.ACTION_DESCRIPTION: description,
            C.MILESTONES: new_milestones,
            C.PROGRESS: self._reached / n if n else 0.0,
            "ui_elements": [_element(i, node) for i, node in enumerate(self.device.elements())],
        }


def _element(i: int, n: Node) -> UIElement:
    return UIElement(
        i,
        n.text,
        n.desc,
        n.cls,
        n.rid,
        n.bounds,
        n.clickable,
        n.long_clickable,
        n.scrollable,
        n.field is not None,
        n.checkable,
        n.checked,
        n.focused,
        n.selected,
        n.enabled,
        n.package,
    )
