"""DeepMind's android_env behind ``GuiAndroidEnv``: ``backend=AndroidEnvBackend(your_env)``.

A user's :class:`android_env.environment.AndroidEnv` (an emulator config, or the FakeSimulator)
drives the phone; this backend turns the env's actions into android_env's own: a tap is a
``TOUCH`` at the normalised point then a ``LIFT``, a long press three ``TOUCH`` steps then a
``LIFT`` (android_env has no durations: a finger held over steps), a swipe ``TOUCH`` steps along the
path then a ``LIFT``; raw ``touch``/``lift`` actions pass through. Text, keys and launches go as
android_env ADB requests (``input_text``, ``press_button``, a ``monkey`` launch), the text
single-quoted and ``%s``-escaped as the adb backend sends it: android_env hands its argv to
``adb shell``, whose device shell would otherwise read an agent's ``;`` or ``$( )``.

The observation's pixels are android_env's ``pixels``; the view tree is a ``uiautomator dump``
read through an ADB request. A simulator that answers no dump (the FakeSimulator answers every
command with ``fake output``) shows an empty screen, a root node with no children, and says so
in :attr:`AndroidEnvBackend.dump_error`. Tasks run instruction-only (no milestones; success is
the agent's own ``status`` / answer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from gui_gym.android.actions import Action
from gui_gym.android.backends.adb import DeviceError, package_of, parse_dump, shell_quote, text_commands
from gui_gym.android.backends.base import DumpedScreen, Episode, InstructionOnly, Outcome, sample_params
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

__all__ = ["AndroidEnvBackend"]

DUMP_PATH = "/sdcard/window_dump.xml"
_SWIPE_FRACTION = {"short": 0.2, "medium": 0.4, "long": 0.6}
_FINGER_OF_SCROLL = {"up": "down", "down": "up", "left": "right", "right": "left"}
_PATH_POINTS = 6  # TOUCH steps along a swipe


class AndroidEnvBackend(DumpedScreen, InstructionOnly):
    """android_env's ``AndroidEnv`` as a backend (see the module docstring).

    Args:
        env: an ``AndroidEnv`` (``android_env.loader.load(config)``).
        tasks: task templates for instructions (default: the simulator's suite).
        screen: the device's size in pixels (the env's actions are in these coordinates).
    """

    name = "android_env"
    supports_snapshot: ClassVar[bool] = False
    supports_oracle: ClassVar[bool] = False

    def __init__(
        self, env: Any, tasks: Mapping[str, Any] | None = None, screen: tuple[int, int] = (SCREEN_W, SCREEN_H)
    ) -> None:
        try:
            from android_env.components import action_type
            from android_env.proto import adb_pb2
        except ImportError as err:
            raise ImportError("the android_env backend needs android_env: pip install android_env") from err
        self._adb_pb2, self._types = adb_pb2, action_type.ActionType
        self.env, self.screen = env, (int(screen[0]), int(screen[1]))
        if tasks is None:
            from gui_gym.android.sim.tasks import TASKS

            tasks = TASKS
        self._tasks = tasks
        self._pixels: np.ndarray | None = None
        self._tree: Node | None = None
        self._task: Any = None
        self._opened: set[str] = set()
        self.dump_error: str | None = None
        self.adb_log: list[Any] = []  # the ADB requests sent, in order (for inspection)

    # -- android_env ------------------------------------------------------------------------------
    def _step(self, kind: Any, point: tuple[float, float]) -> None:
        x, y = point
        action = {
            "action_type": np.array(kind, dtype=np.int32),
            "touch_position": np.array([min(max(x / self.screen[0], 0.0), 1.0), min(max(y / self.screen[1], 0.0), 1.0)],
                                       dtype=np.float32),
        }  # fmt: skip
        timestep = self.env.step(action)
        if timestep.observation is not None and "pixels" in timestep.observation:
            self._pixels = np.asarray(timestep.observation["pixels"])

    def _gesture(self, points: list[tuple[float, float]]) -> None:
        for p in points:
            self._step(self._types.TOUCH, p)
        self._step(self._types.LIFT, points[-1])

    def adb(self, request: Any) -> Any:
        """Send one android_env ADB request; DeviceError when it does not come back OK."""
        self.adb_log.append(request)
        response = self.env.execute_adb_call(request)
        if response.status != self._adb_pb2.AdbResponse.Status.OK:
            raise DeviceError(f"android_env's adb call failed: {response.error_message or response.status}")
        return response

    def _shell(self, *args: str) -> str:
        request = self._adb_pb2.AdbRequest(generic=self._adb_pb2.AdbRequest.GenericRequest(args=["shell", *args]))
        out = self.adb(request).generic.output
        return out.decode("utf-8", errors="replace") if isinstance(out, bytes) else str(out)

    def _dump(self) -> Node:
        self._shell("uiautomator", "dump", DUMP_PATH)
        try:
            tree = parse_dump(self._shell("cat", DUMP_PATH))
        except DeviceError as err:  # a simulator without uiautomator (the FakeSimulator)
            self.dump_error = str(err)
            return Node("android.widget.FrameLayout", (0, 0, *self.screen))
        self.dump_error = None
        return tree

    # -- the protocol -----------------------------------------------------------------------------------
    @property
    def tasks(self) -> Mapping[str, Any]:
        return self._tasks

    def start(self, task_id: str, rng: np.random.Generator, params: Mapping[str, Any] | None = None) -> Episode:
        task = self._tasks[task_id]
        p = sample_params(task, rng, params)
        self._task, self._opened = task, set()
        timestep = self.env.reset()
        if timestep.observation is not None and "pixels" in timestep.observation:
            self._pixels = np.asarray(timestep.observation["pixels"])
        self._tree = self._dump()
        return Episode(task_id=task.id, instruction=task.instruction(p), params=p, milestones=(), step_limit=30)

    def act(self, action: Action) -> Outcome:
        k, req = action.kind, self._adb_pb2.AdbRequest
        if k in ("touch", "lift"):
            assert action.touch_position is not None
            x, y = action.touch_position
            kind = self._types.TOUCH if k == "touch" else self._types.LIFT
            self._step(kind, (x * self.screen[0], y * self.screen[1]))
            self._tree = self._dump()
            return Outcome(True, f"{k.capitalize()} at ({x:.3f}, {y:.3f})")
        if k in ("finish", "status", "answer"):
            status = action.goal_status if k == "status" else "complete"
            return Outcome(True, "Finish the task", done=True, answer=action.text, status=status)
        try:
            described = self._apply(action, req)
        except ValueError as err:
            return Outcome(False, f"Invalid action: {err}", reason=str(err))
        self._tree = self._dump()
        return Outcome(True, described)

    def _apply(self, a: Action, req: Any) -> str:
        k = a.kind
        if k in ("tap", "long_press", "double_tap"):
            point = a.center()
            if point is None:
                raise ValueError(f"{k} needs a point or an element box")
            if k == "long_press":
                self._gesture([point] * 3)
                return f"Long press at {point}"
            for _ in range(2 if k == "double_tap" else 1):
                self._gesture([point])
            return f"Tap at {point}"
        if k in ("swipe", "scroll"):
            if a.end is not None and a.point is not None:
                start, end = a.point, a.end
            else:
                finger = a.direction if k == "swipe" else _FINGER_OF_SCROLL[a.direction or "down"]
                start = a.center() or (self.screen[0] // 2, self.screen[1] // 2)
                d = _SWIPE_FRACTION.get(a.dist or "medium", 0.4)
                dx = {"left": -1, "right": 1}.get(finger or "", 0) * self.screen[0] * d
                dy = {"up": -1, "down": 1}.get(finger or "", 0) * self.screen[1] * d
                end = (start[0] + dx, start[1] + dy)
            steps = _PATH_POINTS - 1
            path = [
                (start[0] + (end[0] - start[0]) * i / steps, start[1] + (end[1] - start[1]) * i / steps)
                for i in range(_PATH_POINTS)
            ]
            self._gesture(path)
            return f"Swipe from {tuple(round(v) for v in start)} to {tuple(round(v) for v in end)}"
        if k in ("type", "input_text"):
            if k == "input_text" and a.center() is not None:
                self._gesture([a.center()])  # type: ignore[list-item]
            if a.clear:
                self._shell("input", "keyevent", "KEYCODE_MOVE_END", *["KEYCODE_DEL"] * 100)
            for command in text_commands(a.text or ""):  # each already one single-quoted sh word
                if command.startswith("input text "):
                    self.adb(req(input_text=req.InputText(text=command[len("input text ") :])))
                else:
                    self.adb(req(press_button=req.PressButton(button=req.PressButton.Button.ENTER)))
            if a.enter or k == "input_text":
                self.adb(req(press_button=req.PressButton(button=req.PressButton.Button.ENTER)))
            return f'Type "{a.text}"'
        if k in ("back", "home", "enter"):
            button = getattr(req.PressButton.Button, k.upper())
            self.adb(req(press_button=req.PressButton(button=button)))
            return f"Press {k.capitalize()}"
        if k == "launch":
            package = package_of(a.app or "")
            self._shell("monkey", "-p", shell_quote(package), "-c", "android.intent.category.LAUNCHER", "1")
            self._opened.add(a.app or "")
            return f"Launch {a.app}"
        if k == "wait":
            return "Wait"
        raise ValueError(f"{k} has no android_env form here")

    def screenshot(self, size: tuple[int, int]) -> np.ndarray:
        from PIL import Image

        if self._pixels is None:
            return np.zeros((size[1], size[0], 3), np.uint8)
        rgb = self._pixels[..., :3].astype(np.uint8)
        return np.asarray(Image.fromarray(rgb).resize(size), dtype=np.uint8)

    def close(self) -> None:
        self._tree = None
