"""The simulated phone as a backend: the default of ``GuiAndroid-v0``.

:class:`SimBackend` wraps a :class:`~gui_gym.android.sim.device.Device` and the task templates
of :mod:`gui_gym.android.sim.tasks`. Besides the protocol it forks (``snapshot``/``restore``,
cheap: the device state is plain picklable data) and knows the expert's next action
(``oracle_action``), and it exposes the device itself for code that inspects the simulator.

Example:
    >>> import numpy as np
    >>> from gui_gym.android.actions import parse_action
    >>> b = SimBackend()
    >>> ep = b.start("ClockStopWatchRunning", np.random.default_rng(0))
    >>> while not (out := b.act(parse_action(b.oracle_action()))).done:
    ...     pass
    >>> b.check(out.answer, out.status), [b.milestone_reached(i) for i in range(len(ep.milestones))]
    (True, [True, True, True])
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np

from gui_gym.android.actions import Action
from gui_gym.android.backends.base import Episode, Outcome, sample_params
from gui_gym.android.sim.device import Device
from gui_gym.android.sim.tasks import ALL_TASKS, TaskTemplate, oracle_steps
from gui_gym.android.sim.tasks.base import Oracle
from gui_gym.android.sim.web.chromium import BrowserError
from gui_gym.android.ui import Node, Window
from gui_gym.core.io import Snapshot


class SimBackend:
    """The simulator behind the :class:`~gui_gym.android.backends.base.AndroidBackend` protocol.

    Args:
        tasks: the task templates by id (default: the whole suite, :data:`~gui_gym.android.sim.tasks.ALL_TASKS`).
    """

    name = "sim"
    supports_snapshot: ClassVar[bool] = True
    supports_oracle: ClassVar[bool] = True

    def __init__(self, tasks: Mapping[str, TaskTemplate] | None = None) -> None:
        self._tasks = ALL_TASKS if tasks is None else tasks
        self.device = Device()
        self._renderers: dict[tuple[int, int], Any] = {}
        self._task: TaskTemplate | None = None
        self._params: dict[str, Any] = {}

    # -- the protocol --------------------------------------------------------------------
    @property
    def tasks(self) -> Mapping[str, TaskTemplate]:
        return self._tasks

    def start(self, task_id: str, rng: np.random.Generator, params: Mapping[str, Any] | None = None) -> Episode:
        task = self._tasks[task_id]
        # The order of draws from rng (parameters, clock, set-up) fixes every seeded episode.
        p = sample_params(task, rng, params)
        self.device.reset(now=task.clock(rng))
        task.setup(self.device, p, rng)
        self.device.invalidate()
        self._task, self._params = task, p
        return Episode(
            task_id=task.id,
            instruction=task.instruction(p),
            params=p,
            milestones=tuple(task.milestone_texts(p)),
            placeholders=task.placeholder_values(p),
            step_limit=task.step_limit or 2 * oracle_steps(task) + 5,
        )

    def act(self, action: Action) -> Outcome:
        try:
            out = self.device.act(action)
        except BrowserError as e:
            # A page that hung or crashed ends the episode as a failure; the next reset starts a
            # fresh browser (the device's resources are closed, never reused half-dead).
            self.device.close()
            self.device.invalidate()
            reason = f"the page failed: {e}"
            return Outcome(False, f"Invalid action: {reason}", reason=reason, done=True)
        task = self._task
        if out.valid and not out.done and task is not None and task.ended(self.device, self._params):
            out = dataclasses.replace(out, done=True)  # the task ended by itself (a page's reward)
        return out

    def task_info(self) -> dict[str, Any]:
        """What the task instance reports in ``info`` beyond the env's keys (a page's reward)."""
        return self._task.info(self.device, self._params) if self._task is not None else {}

    def tree(self) -> Node:
        return self.device.tree()

    def elements(self) -> list[Node]:
        return self.device.elements()

    def windows(self) -> list[Window]:
        """Every window on screen (status bar, app, dialog, keyboard, navigation bar)."""
        return self.device.windows()

    def screen(self) -> Node:
        """All windows composed under one root, as the screen shows them."""
        return self.device.screen()

    def screenshot(self, size: tuple[int, int]) -> np.ndarray:
        renderer = self._renderers.get(size)
        if renderer is None:
            from gui_gym.android.sim.render import Renderer  # Pillow and fonts only when pixels are asked for

            renderer = self._renderers[size] = Renderer(size)
        return renderer.render(self.device.screen(), dark=bool(self.device.state.settings.get("dark_theme")))

    def milestone_reached(self, index: int) -> bool:
        return self._require_task().milestones[index].reached(self.device, self._params)

    def check(self, answer: str | None, status: str | None) -> bool:
        return bool(self._require_task().check(self.device, self._params, answer, status))

    def app_opened(self, app: str) -> bool:
        return app in self.device.state.launched

    @property
    def clock(self) -> dt.datetime:
        return self.device.state.now

    def close(self) -> None:
        self._renderers.clear()
        self.device.close()

    # -- capabilities --------------------------------------------------------------------
    def snapshot(self) -> tuple[Snapshot, Snapshot]:
        """Copies of the device state and the task instance, in memory; :meth:`restore` brings them back."""
        tid = self._task.id if self._task is not None else None
        return self.device.snapshot(), Snapshot.take((tid, self._params))

    def restore(self, snap: tuple[Snapshot, Snapshot]) -> None:
        device, task = snap
        self.device.restore(device)
        tid, self._params = task.load()
        self._task = self._tasks[tid] if tid is not None else None

    def oracle_action(self) -> str:
        """The expert's next action (text), computed from the current screen."""
        return self._require_task().oracle(Oracle(self.device, self._params))

    # -- internals -----------------------------------------------------------------------
    def _require_task(self) -> TaskTemplate:
        if self._task is None:
            raise RuntimeError("no task instance: call start() first")
        return self._task
