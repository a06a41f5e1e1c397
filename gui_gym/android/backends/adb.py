"""A phone or emulator over adb: ``GuiAndroidEnv(backend="adb")`` (adbutils).

The observation comes from the device — ``uiautomator dump`` parsed back into the env's view tree
(so ``ui_elements``, grounding and ``action_description`` work as on the simulator) and
``screencap -p`` — and every action becomes the adb shell commands a controller sends:

=====================  ==================================================================
action                 shell command(s)
=====================  ==================================================================
tap / long press       ``input tap X Y`` / ``input swipe X Y X Y 1000``
swipe, scroll          ``input swipe X1 Y1 X2 Y2 300`` (a direction: from the screen's
                       middle, the finger the opposite way of a scroll)
type                   ``input keyevent KEYCODE_MOVE_END`` and 100 × ``KEYCODE_DEL`` when it
                       clears, ``input text 'TEXT'``, ``input keyevent KEYCODE_ENTER``
launch                 ``monkey -p PACKAGE -c android.intent.category.LAUNCHER 1``
back / home / enter    ``input keyevent KEYCODE_BACK`` / ``KEYCODE_HOME`` / ``KEYCODE_ENTER``
=====================  ==================================================================

**Text is data.** An agent's text reaches the device shell as one single-quoted argument (``'``
written ``'\\''``), so ``;``, ``&&``, ``|``, ``$( )``, backquotes, quotes, globs and ``~`` are
typed, never run; spaces go as ``%s`` (``input text``'s own escape), line breaks as Enter key
presses. ``input text`` types ASCII only, so other text is refused with the reason (no shell
trick is tried).

After an action the backend waits for the screen to settle (two equal dumps in a row, at most
``settle_timeout`` seconds). A device that vanishes, hangs or answers garbage raises
:class:`DeviceError` naming what failed; a command never blocks past ``command_timeout``.

Tasks: the simulator's task templates give the instruction, sampled as the simulator samples
them, and :meth:`AdbBackend.judged_by` says how each is judged (``info["judged_by"]``):

- ``"state"``: the Settings, Contacts, Messages and Markor tasks. The start state is built on a
  scratch simulator and written to the device; at the end the device's state is read back into
  it and the simulator's own success check judges it, as AndroidWorld judges an emulator
  (:mod:`gui_gym.android.backends.device_state` lists the commands: ``settings``, ``content``
  on the contacts and SMS providers, files under /sdcard/Documents/Markor; the app in front,
  the clock and the clipboard).
- ``"screen"``: AndroidWorld's Clock tasks (stopwatch running or paused, a timer entered, after
  ``pm clear`` of the Clock app) and ``ContactsNewContactDraft`` (the new-contact form filled
  in), judged from the final screen's accessibility elements with AndroidWorld's predicates
  (:meth:`AdbBackend.screen_elements`).
- ``"agent"``: the other tasks run *instruction-only* (the device's state as it is; success is
  the agent's own ``status`` / answer).

Every reset closes the simulator's apps (``am force-stop``), sets the task's date (``date
MMDDhhmmYY.ss``, as AndroidWorld does) and goes Home (then to the app a task's set-up leaves in
front), so the same seed starts the same episode.
There are no milestones on a device (progress 0); ``info["backend"]`` says ``adb``.
"""

from __future__ import annotations

import io
import json
import re
import socket
import time
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from gui_gym.android.actions import TYPE_CLEAR_CHARS, Action
from gui_gym.android.backends.base import DumpedScreen, Episode, InstructionOnly, Outcome, sample_params
from gui_gym.android.backends.device_state import (
    APP_STATES,
    SCREEN_CHECKS,
    AppState,
    DeviceError,
    PhoneState,
    judging,
    shell_quote,
)
from gui_gym.android.ui import SCREEN_H, SCREEN_W, Node

__all__ = ["AdbBackend", "DeviceError", "package_of", "parse_dump", "shell_quote", "text_commands"]

DUMP_PATH = "/sdcard/window_dump.xml"
#: The host request ``serve-adb`` answers with the screen's accessibility forest (JSON after
#: ``OKAY``; :data:`gui_gym.android.sim.adb.server.A11Y_FOREST`); an adb server without it fails it.
A11Y_FOREST = b"host:gui-gym-a11y:forest"
_SWIPE_FRACTION = {"short": 0.2, "medium": 0.4, "long": 0.6}
_FINGER_OF_SCROLL = {"up": "down", "down": "up", "left": "right", "right": "left"}
_KEYS = {"back": "KEYCODE_BACK", "home": "KEYCODE_HOME", "enter": "KEYCODE_ENTER"}


def text_commands(text: str) -> list[str]:
    """The shell commands that type *text* with ``input text`` (ValueError for what it cannot type).

    >>> text_commands("a b;c")
    ["input text 'a%sb;c'"]
    >>> text_commands("two\\nlines")
    ["input text 'two'", 'input keyevent KEYCODE_ENTER', "input text 'lines'"]
    """
    if not text.isascii():
        raise ValueError("input text types ASCII only; this text has other characters")
    if any(ord(c) < 32 and c != "\n" for c in text):
        raise ValueError("input text cannot type control characters")
    out: list[str] = []
    for i, line in enumerate(text.split("\n")):
        if i:
            out.append("input keyevent KEYCODE_ENTER")
        if line:
            out.append(f"input text {shell_quote(line.replace(' ', '%s'))}")
    return out


def _bool(v: str | None) -> bool:
    return v == "true"


def parse_dump(xml: str) -> Node:
    """A ``uiautomator dump`` as the env's view tree (one root; several windows under a frame)."""
    try:
        root = ET.fromstring(xml.encode("utf-8") if isinstance(xml, str) else xml)
    except ET.ParseError as err:
        raise DeviceError(f"the UI dump is not XML: {err}") from None
    if root.tag != "hierarchy":
        raise DeviceError(f"the UI dump's root is <{root.tag}>, not <hierarchy>")

    def node(e: ET.Element) -> Node:
        a = e.attrib
        try:
            nums = [int(v) for v in a.get("bounds", "[0,0][0,0]").replace("][", ",").strip("[]").split(",")]
            bounds = (nums[0], nums[1], nums[2], nums[3])
        except (ValueError, IndexError):
            raise DeviceError(f"a node's bounds {a.get('bounds')!r} are not [x1,y1][x2,y2]") from None
        cls = a.get("class", "")
        n = Node(
            cls,
            bounds,
            a.get("text", ""),
            rid=a.get("resource-id", ""),
            desc=a.get("content-desc", ""),
            package=a.get("package", ""),
            clickable=_bool(a.get("clickable")),
            long_clickable=_bool(a.get("long-clickable")),
            checkable=_bool(a.get("checkable")),
            checked=_bool(a.get("checked")),
            focusable=_bool(a.get("focusable")),
            focused=_bool(a.get("focused")),
            scrollable=_bool(a.get("scrollable")),
            enabled=a.get("enabled", "true") == "true",
            password=_bool(a.get("password")),
            selected=_bool(a.get("selected")),
            children=[node(c) for c in e if c.tag == "node"],
            field="edit" if cls.endswith("EditText") else None,
        )
        return n

    tops = [node(c) for c in root if c.tag == "node"]
    if not tops:
        raise DeviceError("the UI dump holds no node")
    if len(tops) == 1:
        return tops[0]
    return Node("android.widget.FrameLayout", (0, 0, SCREEN_W, SCREEN_H), children=tops)


def package_of(app: str) -> str:
    """The package of an app named as a Launch names it (the simulator's app table: its label, name
    or package, else AndroidWorld's name patterns), or a package name given as it is; ValueError
    otherwise."""
    from gui_gym.android.sim.apps import APPS

    key = app.strip().lower()
    for a in APPS.values():
        if key in (a.label.lower(), a.name, a.package):
            return a.package
    for a in APPS.values():
        if any(re.match(pattern, key) for pattern in a.aliases):
            return a.package
    if "." in app and " " not in app:
        return app
    raise ValueError(f"no package known for the app {app!r}; name it by its package (com.example.app)")


class AdbBackend(DumpedScreen, InstructionOnly):
    """A device an adb server can see (see the module docstring).

    Args:
        serial: the device (default: the only one the server lists).
        host, port: the adb server (5037: the one ``adb`` starts; ``gui-gym serve-adb``'s port
            for the simulated phone).
        tasks: task templates for instructions (default: the simulator's suite).
        settle_timeout: at most this many seconds of waiting for the screen to settle.
        command_timeout: at most this many seconds for one adb command.
    """

    name = "adb"
    supports_snapshot: ClassVar[bool] = False
    supports_oracle: ClassVar[bool] = False

    def __init__(
        self,
        serial: str | None = None,
        host: str = "127.0.0.1",
        port: int = 5037,
        tasks: Mapping[str, Any] | None = None,
        settle_timeout: float = 3.0,
        command_timeout: float = 20.0,
    ) -> None:
        try:
            import adbutils
        except ImportError as err:
            raise ImportError("backend='adb' needs adbutils: pip install 'gui-gym[adb]'") from err
        self._adbutils = adbutils
        self.host, self.port = host, int(port)
        self.client = adbutils.AdbClient(host=host, port=port, socket_timeout=command_timeout)
        try:
            self._probe()
            devices = self.client.device_list()
        except (adbutils.AdbError, OSError, DeviceError) as err:
            raise DeviceError(
                f"no adb server answers at {host}:{port} ({err}); start one (adb start-server, or "
                "gui-gym serve-adb for the simulated phone)"
            ) from err
        serials = [d.serial for d in devices]
        if serial is None:
            if len(serials) != 1:
                raise DeviceError(f"name the device with serial=...: the server lists {serials or 'none'}")
            serial = serials[0]
        elif serial not in serials:
            raise DeviceError(f"no device {serial!r}; the server lists {serials or 'none'}")
        self.serial = serial
        self.device = self.client.device(serial)
        if tasks is None:
            from gui_gym.android.sim.tasks import TASKS

            tasks = TASKS
        self._tasks = tasks
        self.settle_timeout, self.command_timeout = float(settle_timeout), float(command_timeout)
        self._tree: Node | None = None
        self._task: Any = None
        self._params: dict[str, Any] = {}
        self._scratch: Any = None  # the simulator state a checked task's device state is read into
        self._states: list[AppState] = []  # the apps written to the device at the start
        self._phone_state = PhoneState()  # the app in front, the clock, the clipboard
        self._opened: set[str] = set()  # the packages brought to the front since the start

    # -- adb ------------------------------------------------------------------------------------
    def _probe(self) -> None:
        """Whether the adb server still listens; adbutils would start a default server of its own
        on port 5037 when it does not (a stray daemon), so the backend asks first."""
        try:
            socket.create_connection((self.host, self.port), timeout=2).close()
        except OSError as err:
            raise DeviceError(f"no adb server answers at {self.host}:{self.port} ({err})") from None

    def shell(self, command: str, rstrip: bool = True) -> str:
        """Run one command line on the device; its output (DeviceError when the device fails)."""
        self._probe()
        try:
            out = self.device.shell(command, timeout=self.command_timeout, rstrip=rstrip)
        except (self._adbutils.AdbError, self._adbutils.AdbTimeout, OSError) as err:
            raise DeviceError(f"adb shell {command[:60]!r} on {self.serial} failed: {err}") from err
        return out if isinstance(out, str) else str(out)

    def _dump_text(self) -> str:
        self.shell(f"uiautomator dump {DUMP_PATH}")
        return self.shell(f"cat {DUMP_PATH}")

    def _dump(self) -> Node:
        return parse_dump(self._dump_text())

    def _settle(self) -> Node:
        """The screen once two dumps in a row agree (or the last one at the time limit)."""
        deadline = time.monotonic() + self.settle_timeout
        text = self._dump_text()
        while time.monotonic() < deadline:
            again = self._dump_text()
            if again == text:
                break
            text = again
        return parse_dump(text)

    def tap_text(self, text: str) -> None:
        """Tap the element whose text or description is *text* (case aside), as AndroidWorld taps
        Save in the contact editor; DeviceError when the screen shows none."""
        node = next((n for n in self._dump().walk() if (n.text or n.desc).strip().lower() == text.lower()), None)
        if node is None:
            raise DeviceError(f"the screen shows no {text!r} to tap")
        x, y = node.center()
        self.shell(f"input tap {x} {y}")

    def tap_id(self, rid: str) -> None:
        """Tap the element whose resource id is *rid*; DeviceError when the screen shows none."""
        node = next((n for n in self._dump().walk() if n.rid == rid), None)
        if node is None:
            raise DeviceError(f"the screen shows no {rid!r} to tap")
        x, y = node.center()
        self.shell(f"input tap {x} {y}")

    def current_activity(self) -> str:
        """The focused ``package/activity`` (android_env's ``am stack list`` route)."""
        out = self.shell("am stack list")
        for line in out.splitlines():
            if "visible=true" in line:
                found = re.findall(r"\{([^{}]*)\}", line)
                if found:
                    return found[-1]
        return ""

    def forest(self) -> dict[str, Any] | None:
        """The screen's accessibility forest where the adb server serves it (``serve-adb``), as
        android_env's accessibility forwarder sends it; ``None`` where the server has no such
        service (a phone's own adb server)."""
        self._probe()
        try:
            with socket.create_connection((self.host, self.port), timeout=self.command_timeout) as s:
                s.sendall(f"{len(A11Y_FOREST):04x}".encode() + A11Y_FOREST)
                chunks = []
                while chunk := s.recv(65536):
                    chunks.append(chunk)
        except OSError as err:
            raise DeviceError(f"the accessibility forest from {self.host}:{self.port} failed: {err}") from err
        data = b"".join(chunks)
        if not data.startswith(b"OKAY"):
            return None
        try:
            forest = json.loads(data[4:])
        except ValueError as err:
            raise DeviceError(f"the accessibility forest is not JSON: {err}") from None
        if not isinstance(forest, dict):
            raise DeviceError("the accessibility forest is not a JSON object")
        return forest

    def screen_elements(self) -> list[Any]:
        """The screen's accessibility elements as AndroidWorld reads them (``UIElement``), invisible
        ones too (``is_visible`` says which show): from the forest where the server serves it, else
        from a ``uiautomator dump`` (every node visible, no field hints)."""
        from gui_gym.android.forest import dump_elements, forest_elements

        forest = self.forest()
        if forest is not None:
            return [e.element for e in forest_elements(forest, exclude_invisible=False)]
        return [e.element for e in dump_elements(self._dump())]

    # -- the protocol ---------------------------------------------------------------------------
    @property
    def tasks(self) -> Mapping[str, Any]:
        return self._tasks

    def judged_by(self, task_id: str) -> str:
        """How *task_id* is judged on the device: ``"state"`` (its apps' data read back),
        ``"screen"`` (AndroidWorld's checks of the final screen) or ``"agent"`` (instruction-only)."""
        return judging(self._tasks[task_id])

    def checked_on_device(self, task_id: str) -> bool:
        """Whether *task_id* is set up and judged on the device (else instruction-only)."""
        return self.judged_by(task_id) != "agent"

    def _reset_phone(self, now: Any) -> None:
        """Close the simulator's apps, set the clock, go Home: the same start for the same seed."""
        from gui_gym.android.sim.apps import APPS

        self.shell("; ".join(f"am force-stop {a.package}" for a in APPS.values()))
        self.shell(f"date {now.strftime('%m%d%H%M%y.%S')}")

    def start(self, task_id: str, rng: np.random.Generator, params: Mapping[str, Any] | None = None) -> Episode:
        from gui_gym.android.sim.device import Device

        task = self._tasks[task_id]
        p = sample_params(task, rng, params)  # the simulator's order of draws: the same instance for the same seed
        self._task, self._params, self._scratch, self._states = task, p, None, []
        self._phone_state = PhoneState()
        scratch = Device()
        scratch.reset(now=task.clock(rng))
        task.setup(scratch, p, rng)
        scratch.tree()  # the start screen shown, as the simulator shows it (a thread in front is read)
        self._reset_phone(scratch.state.now)
        judged = self.judged_by(task_id)
        if judged == "state":
            fresh = Device()
            apps = set(getattr(task, "apps", None) or (task.app,)) | {"settings"}
            # an app the set-up filled goes too (the contacts behind a Messages task's conversations)
            apps |= {a for a in APP_STATES if scratch.state.data.get(a) != fresh.state.data.get(a)}
            for app in sorted(apps, key=list(APP_STATES).index):
                state: AppState = APP_STATES[app]()
                state.put(self, scratch)
                self._states.append(state)
            self._phone_state.put(self, scratch)
            self._scratch = scratch
        elif judged == "screen" and SCREEN_CHECKS[task_id][0] is not None:
            self.shell(f"pm clear {SCREEN_CHECKS[task_id][0]}")
        self.shell("input keyevent KEYCODE_HOME")
        if judged == "state":
            self._phone_state.front(self, scratch)
        self.shell(f"date {scratch.state.now.strftime('%m%d%H%M%y.%S')}")  # the set-up's own taps took none of it
        self._tree = self._settle()
        self._opened = set()
        return Episode(task_id=task.id, instruction=task.instruction(p), params=p, milestones=(), step_limit=30)

    def act(self, action: Action) -> Outcome:
        try:
            commands, described = self._commands(action)
        except ValueError as err:
            return Outcome(False, f"Invalid action: {err}", reason=str(err))
        if action.kind in ("finish", "status", "answer"):
            status = action.goal_status if action.kind == "status" else "complete"
            return Outcome(True, described, done=True, answer=action.text, status=status)
        for c in commands:
            self.shell(c)
        self._tree = self._settle()
        self._opened |= {n.package for n in self._tree.walk() if n.package}
        return Outcome(True, described)

    def app_opened(self, app: str) -> bool:
        """Whether *app* (a name, label or package) was on screen since the start."""
        try:
            return package_of(app) in self._opened
        except ValueError:
            return False

    def _commands(self, a: Action) -> tuple[list[str], str]:
        k = a.kind
        if k in ("tap", "long_press", "double_tap"):
            point = a.center()
            if point is None:
                raise ValueError(f"{k} needs a point or an element box")
            x, y = point
            if k == "long_press":
                return [f"input swipe {x} {y} {x} {y} 1000"], f"Long press at ({x}, {y})"
            taps = 2 if k == "double_tap" else 1
            return [f"input tap {x} {y}"] * taps, f"Tap at ({x}, {y})"
        if k in ("swipe", "scroll"):
            if a.end is not None and a.point is not None:
                (x1, y1), (x2, y2) = a.point, a.end
            else:
                finger = a.direction if k == "swipe" else _FINGER_OF_SCROLL[a.direction or "down"]
                x1, y1 = a.center() or (SCREEN_W // 2, SCREEN_H // 2)
                d = _SWIPE_FRACTION.get(a.dist or "medium", 0.4)
                dx = {"left": -1, "right": 1}.get(finger or "", 0) * int(SCREEN_W * d)
                dy = {"up": -1, "down": 1}.get(finger or "", 0) * int(SCREEN_H * d)
                x2, y2 = min(max(x1 + dx, 0), SCREEN_W - 1), min(max(y1 + dy, 0), SCREEN_H - 1)
            return [f"input swipe {x1} {y1} {x2} {y2} 300"], f"Swipe from ({x1}, {y1}) to ({x2}, {y2})"
        if k in ("type", "input_text"):
            out: list[str] = []
            if k == "input_text" and a.center() is not None:
                x, y = a.center()  # type: ignore[misc]
                out.append(f"input tap {x} {y}")
            if a.clear:
                out.append("input keyevent KEYCODE_MOVE_END " + " ".join(["KEYCODE_DEL"] * TYPE_CLEAR_CHARS))
            out += text_commands(a.text or "")
            if a.enter or k == "input_text":
                out.append("input keyevent KEYCODE_ENTER")
            return out, f'Type "{a.text}"'
        if k == "launch":
            package = package_of(a.app or "")
            return [f"monkey -p {shell_quote(package)} -c android.intent.category.LAUNCHER 1"], f"Launch {a.app}"
        if k in _KEYS:
            return [f"input keyevent {_KEYS[k]}"], f"Press {k.capitalize()}"
        if k == "wait":
            return ["sleep 2"], "Wait"
        if k in ("finish", "status", "answer"):
            return [], "Finish the task" if k == "finish" else f"Declare the task {a.goal_status or 'complete'}"
        raise ValueError(f"{k} has no adb form here (raw touch needs android_env)")

    def screenshot(self, size: tuple[int, int]) -> np.ndarray:
        from PIL import Image

        self._probe()
        try:
            png = self.device.shell("screencap -p", encoding=None, timeout=self.command_timeout)
        except (self._adbutils.AdbError, self._adbutils.AdbTimeout, OSError) as err:
            raise DeviceError(f"screencap on {self.serial} failed: {err}") from err
        try:
            with Image.open(io.BytesIO(png)) as im:
                return np.asarray(im.convert("RGB").resize(size), dtype=np.uint8)
        except OSError as err:
            raise DeviceError(f"screencap on {self.serial} gave no PNG ({err})") from None

    def check(self, answer: str | None, status: str | None) -> bool:
        judged = self.judged_by(self._task.id) if self._task is not None else "agent"
        if judged == "state" and self._scratch is not None:  # the device's state, judged by the task's check
            self._phone_state.read(self, self._scratch)
            for state in self._states:
                state.read(self, self._scratch)
            return bool(self._task.check(self._scratch, self._params, answer, status))
        if judged == "screen":
            _, judge = SCREEN_CHECKS[self._task.id]
            return judge(self.screen_elements(), self.current_activity(), self._params)
        return InstructionOnly.check(self, answer, status)

    def close(self) -> None:
        self._tree = None
