"""The simulator's expert for the served phone: a side channel of ``serve-adb --expert``.

Code that judges the served phone with a benchmark's own task code (AndroidWorld's
``initialize_task`` and ``is_successful`` over adb) needs someone to play the task between the
two: the simulator's oracle. The oracle reads the simulator's state, so it runs in the server;
this module picks the task instance it plays and says its next action, as data the client sends
back over adb as input events (``input tap``, ``input text``, ``am start`` …), so the phone sees
only what any adb client could send.

Two host requests, answered only when the server was started with ``expert=True`` (``gui-gym
serve-adb --expert``; off by default: an agent on a served phone has no oracle to ask):

- ``host:gui-gym-expert:task:{JSON}`` with ``{"task": ID, "seed": N}`` (a task of AndroidWorld's
  suite draws AndroidWorld's instance ``N``; another task draws from ``numpy``'s generator seeded
  ``N``; the parameters as the simulator's own reset leaves them, its set-up run on a scratch
  phone), ``"params": {...}`` updating (or, without a seed, being) what was drawn: the instance
  the oracle plays from now on. The phone is not reset: the oracle plays from the state the
  client set up. Answered with ``{"task", "suite", "instruction", "params"}`` (``instruction``
  null where the parameters do not make one).
- ``host:gui-gym-expert:next``: the oracle's next action on the current screen, as a gesture an
  adb client can send: ``{"action": TEXT, "kind": KIND, ...}`` where KIND is ``tap``,
  ``long_press``, ``double_tap`` (``point``), ``swipe`` (``start``, ``end``: pixels, a scroll the
  phone reads as the oracle's), ``type`` (``text``, ``clear``: select all and delete first,
  ``enter``: press Enter after, ``point``: tap first), ``launch`` (``app``, ``package``,
  ``activity``), ``back``, ``home``, ``enter``, ``wait``, ``answer`` (``text``) or ``finish``
  (``status``: ``complete`` or ``infeasible``; ``text``: the answer a finish gives, or null).

- ``host:gui-gym-expert:check:{"answer": TEXT, "status": TEXT}`` (both optional): the
  simulator's own verdict on the phone as it is now, ``{"score": 0.0-1.0}``, to set beside the
  benchmark's.

Each answer is JSON text; a request the expert cannot serve is refused with the reason (an
unknown task, a malformed request, no instance chosen yet, an oracle that raised).

Example:
    >>> from gui_gym.android.sim.device import Device
    >>> expert = Expert(Device())
    >>> expert.select({"task": "SystemWifiTurnOn", "seed": 0})["task"]
    'SystemWifiTurnOn'
    >>> expert.next()["kind"]
    'launch'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gui_gym.android.actions import ActionParseError, parse_action
from gui_gym.android.ui import SCREEN_H, SCREEN_W

__all__ = ["PREFIX", "Expert", "ExpertError"]

#: The host requests of the side channel start with this.
PREFIX = "host:gui-gym-expert:"
#: What a scroll of each length moves, as the phone reads a swipe (``Device._gesture``: a move
#: of ``d`` pixels over a screen ``span`` scrolls ``1.5 d / span``, at most 0.9).
_FRACTION = {"short": 0.25, "medium": 0.5, "long": 0.75}
_FINGER = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}
_CONTENT_TO_FINGER = {"down": "up", "up": "down", "right": "left", "left": "right"}


class ExpertError(ValueError):
    """A request the expert cannot serve; the message says why."""


class Expert:
    """The oracle of one task instance on *device* (a :class:`~gui_gym.android.sim.device.Device`).

    Args:
        device: the served phone.
        tasks: task templates by id (default: every task, :data:`~gui_gym.android.sim.tasks.TASKS`).
    """

    def __init__(self, device: Any, tasks: Mapping[str, Any] | None = None) -> None:
        self.device = device
        self._tasks = tasks
        self.task: Any = None
        self.params: dict[str, Any] = {}

    @property
    def tasks(self) -> Mapping[str, Any]:
        if self._tasks is None:
            from gui_gym.android.sim.tasks import TASKS

            self._tasks = TASKS
        return self._tasks

    # -- the requests ------------------------------------------------------------------------
    def handle(self, request: str) -> str:
        """Answer one side-channel request (``request`` without :data:`PREFIX`) as JSON text;
        :class:`ExpertError` when it cannot be served."""
        if request == "next":
            return json.dumps(self.next(), default=str)
        if request.startswith("check:") or request == "check":
            try:
                body = json.loads(request[len("check:") :] or "{}")
            except json.JSONDecodeError as e:
                raise ExpertError(f"check: the request is not JSON ({e})") from None
            return json.dumps(self.check(body))
        if request.startswith("task:"):
            try:
                body = json.loads(request[len("task:") :])
            except json.JSONDecodeError as e:
                raise ExpertError(f"task: the request is not JSON ({e})") from None
            return json.dumps(self.select(body), default=str)  # a parameter with no JSON form as text
        raise ExpertError(f"unknown expert request {request[:60]!r}; expected 'task:{{JSON}}', 'next' or 'check'")

    def select(self, body: Any) -> dict[str, Any]:
        """Choose the task instance the oracle plays (see the module docstring)."""
        if not isinstance(body, dict) or not isinstance(body.get("task"), str):
            raise ExpertError('task: expected {"task": ID, "seed": N} or {"task": ID, "params": {...}}')
        task = self.tasks.get(body["task"])
        if task is None:
            raise ExpertError(f"task: unknown task {body['task'][:80]!r}")
        seed, params = body.get("seed"), body.get("params")
        if params is not None and not isinstance(params, dict):
            raise ExpertError("task: params must be a JSON object")
        if seed is None and params is not None:
            drawn: dict[str, Any] = {}
        elif isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ExpertError("task: seed must be a non-negative integer")
        else:
            try:
                drawn = self._draw(task, seed)
            except Exception as e:  # a task's bug is the client's to read, not the server's to raise
                raise ExpertError(f"task: {task.id} could not draw instance {seed}: {type(e).__name__}: {e}") from None
        self.task, self.params = task, {**drawn, **(params or {})}
        try:  # what the check compares against, from the phone as the client set it up
            task.observe_start(self.device, self.params)
        except Exception as e:
            raise ExpertError(f"task: {task.id} could not read its start state: {type(e).__name__}: {e}") from None
        try:
            instruction = task.instruction(self.params)
        except Exception:  # e.g. parameters its own set-up would add, when the client set the phone up
            instruction = None
        return {
            "task": task.id,
            "suite": getattr(task, "suite", None),
            "instruction": instruction,
            "params": self.params,
        }

    def check(self, body: Any) -> dict[str, Any]:
        """The simulator's own verdict on the phone as it is now: ``{"score"}`` (0.0-1.0; the
        task's ``score``), given the episode's ``answer`` and ``status`` (both optional)."""
        if self.task is None:
            raise ExpertError("check: no task instance chosen (send task:{...} first)")
        if not isinstance(body, dict):
            raise ExpertError('check: expected {"answer": TEXT or null, "status": TEXT or null}')
        answer, status = body.get("answer"), body.get("status", "complete")
        if not all(v is None or isinstance(v, str) for v in (answer, status)):
            raise ExpertError("check: answer and status are text or null")
        try:
            score = float(self.task.score(self.device, self.params, answer, status))
        except Exception as e:
            raise ExpertError(f"check: the check of {self.task.id} failed: {type(e).__name__}: {e}") from None
        return {"score": score}

    @staticmethod
    def _draw(task: Any, seed: int) -> dict[str, Any]:
        """Instance ``seed``'s parameters as the simulator's own reset leaves them: drawn, then its
        set-up run on a scratch phone (which adds what the set-up draws: noise rows, the ids of the
        target rows …); the served phone itself is left as the client set it up."""
        import numpy as np

        from gui_gym.android.sim.device import Device

        rng = np.random.default_rng(seed)
        sample_seed = getattr(task, "sample_seed", None)
        params = sample_seed(seed) if callable(sample_seed) else task.sample(rng)
        scratch = Device()
        scratch.reset(now=task.clock(rng))
        task.setup(scratch, params, rng)
        return params

    def next(self) -> dict[str, Any]:
        """The oracle's next action on the phone's current screen, as a gesture."""
        if self.task is None:
            raise ExpertError("next: no task instance chosen (send task:{...} first)")
        from gui_gym.android.sim.tasks.base import Oracle

        try:
            text = self.task.oracle(Oracle(self.device, self.params))
        except Exception as e:  # an oracle bug is reported to the client, not raised in the server
            raise ExpertError(f"next: the oracle of {self.task.id} failed: {type(e).__name__}: {e}") from None
        try:
            action = parse_action(text)
        except ActionParseError as e:
            raise ExpertError(f"next: the oracle's action {text[:80]!r} does not parse: {e}") from None
        try:
            gesture = self.gesture(action)
        except ExpertError:
            raise
        except Exception as e:  # e.g. an app this phone lacks
            raise ExpertError(f"next: the oracle's action {text[:80]!r} has no gesture here: {e}") from None
        return {"action": text, **gesture}

    # -- actions as gestures -------------------------------------------------------------------
    def gesture(self, a: Any) -> dict[str, Any]:
        """An :class:`~gui_gym.android.actions.Action` as what an adb client sends for it."""
        k = a.kind
        point = self._point(a)
        if k in ("tap", "long_press", "double_tap"):
            return {"kind": k, "point": point}
        if k in ("type", "input_text"):
            enter = True if k == "input_text" else bool(a.enter)
            clear = bool(a.clear)
            return {"kind": "type", "text": a.text or "", "clear": clear, "enter": enter, "point": point}
        if k == "swipe" and a.end is not None:
            return {"kind": "swipe", "start": list(a.point), "end": list(a.end)}
        if k in ("swipe", "scroll"):
            finger = a.direction if k == "swipe" else _CONTENT_TO_FINGER[a.direction]
            return self._swipe(finger, _FRACTION.get(a.dist or "medium", 0.5), point)
        if k == "launch":
            app = self.device.apps[self.device.resolve_app(a.app or "")]
            return {"kind": "launch", "app": app.label, "package": app.package, "activity": app.activity}
        if k in ("back", "home", "enter", "wait"):
            return {"kind": k}
        if k == "answer":
            return {"kind": "answer", "text": a.text or ""}
        if k in ("finish", "status"):  # a finish with a message answers with it (contract_kind)
            return {"kind": "finish", "status": a.goal_status or "complete", "text": a.text}
        raise ExpertError(f"next: a {k} action has no adb form")

    def _point(self, a: Any) -> list[int] | None:
        if a.index is not None:
            return list(self.device.elements()[a.index].center())
        c = a.center()
        return None if c is None else [int(c[0]), int(c[1])]

    def _swipe(self, finger: str, frac: float, point: list[int] | None) -> dict[str, Any]:
        """A finger move from the scrolled list's center that the phone reads as a scroll of
        ``frac`` (the list the phone would scroll when no point is given: the largest)."""
        if point is None:
            lists = [n for n in self.device.elements() if n.on_scroll is not None]
            if lists:
                big = max(lists, key=lambda n: (n.bounds[2] - n.bounds[0]) * (n.bounds[3] - n.bounds[1]))
                point = list(big.center())
            else:
                point = [SCREEN_W // 2, SCREEN_H // 2]
        dx, dy = _FINGER[finger]
        span = SCREEN_W if dx else SCREEN_H
        move = round(frac * span / 1.5)
        end = [min(SCREEN_W - 1, max(0, point[0] + dx * move)), min(SCREEN_H - 1, max(0, point[1] + dy * move))]
        return {"kind": "swipe", "start": point, "end": end}
