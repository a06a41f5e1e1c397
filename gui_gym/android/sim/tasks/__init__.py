"""The phone's tasks: every :class:`~gui_gym.android.sim.tasks.base.TaskTemplate`, by id.

The suites: gui-gym's own tasks (``suite="gui-gym"``, each app's ``tasks`` module and the
multi-app tasks) and AndroidWorld's (``suite="androidworld"``, each app's ``androidworld``
module and its information-retrieval tasks in ``questions``, see
:mod:`gui_gym.android.sim.tasks.androidworld`). An app adds tasks to a suite by
having the module; nothing else registers them. The tasks whose screens are pages in a browser
(:data:`WEB_MODULES`: AndroidWorld's Chrome tasks, MobileMiniWoB++) are in :data:`WEB_TASKS`,
selected by id or suite only.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util

from gui_gym.android.sim.apps import PACKAGES
from gui_gym.android.sim.tasks import multi_app
from gui_gym.android.sim.tasks.base import Milestone, Oracle, TaskTemplate
from gui_gym.core.task import TaskSpec

#: The modules of an app's folder that hold tasks, one per suite (an app may lack any of them).
SUITE_MODULES = ("tasks", "androidworld", "questions")


def _task_modules() -> list:
    """Each app's task modules, in launcher order, then the tasks that span apps. (An app's tasks
    import this package's base; they are imported from here, which gui_gym.android imports first.)"""
    out = []
    for name in SUITE_MODULES:
        for package in PACKAGES:
            module = f"gui_gym.android.sim.apps.{package}.{name}"
            if importlib.util.find_spec(module) is not None:
                out.append(importlib.import_module(module))
        if name == "tasks":
            out.append(multi_app)
    return out


_MODULES = _task_modules()

TASKS: dict[str, TaskTemplate] = {}
for _module in _MODULES:
    for _cls in _module.TEMPLATES:
        _t = _cls()
        if _t.id in TASKS:
            raise RuntimeError(f"duplicate task id {_t.id}")
        TASKS[_t.id] = _t

#: the tasks whose screens are web pages in a real browser (MobileMiniWoB++): the env selects them
#: by id or suite; :data:`TASKS` is everything the simulator runs by itself
WEB_MODULES = ("gui_gym.android.sim.apps.chrome.browser", "gui_gym.android.sim.apps.miniwob.registry")
WEB_TASKS: dict[str, TaskTemplate] = {}
for _name in WEB_MODULES:
    for _cls in importlib.import_module(_name).TEMPLATES:
        _t = _cls()
        if _t.id in TASKS or _t.id in WEB_TASKS:
            raise RuntimeError(f"duplicate task id {_t.id}")
        WEB_TASKS[_t.id] = _t
#: every task the phone has
ALL_TASKS: dict[str, TaskTemplate] = {**TASKS, **WEB_TASKS}


def list_tasks(difficulty: str | None = None, app: str | None = None, suite: str | None = None) -> list[TaskSpec]:
    """Specs of every task, optionally of one tier, one app or one suite (or named subset); a
    task that needs a browser is listed only when its suite is asked for."""
    return [
        t.spec()
        for t in ALL_TASKS.values()
        if (difficulty is None or t.difficulty == difficulty)
        and (app is None or app in (t.apps or (t.app,)))
        and (t.suite == suite or suite in t.subsets if suite is not None else not t.requires)
    ]


@functools.cache
def oracle_steps(task: TaskTemplate, seeds: tuple[int, ...] = (0, 1, 2)) -> int:
    """The oracle's longest episode over a few seeds (cached): the base of the step limit."""
    import numpy as np

    from gui_gym.android.actions import parse_action
    from gui_gym.android.sim.device import Device

    longest = 0
    dev = Device()
    for seed in seeds:
        rng = np.random.default_rng(seed)
        params = task.sample(rng)
        dev.reset(now=task.clock(rng))
        task.setup(dev, params, rng)
        for steps in range(1, 200):  # noqa: B007  (the count is read after the loop)
            out = dev.act(parse_action(task.oracle(Oracle(dev, params))))
            if out.done:
                break
        else:
            raise RuntimeError(f"the oracle of {task.id} does not finish within 200 steps")
        longest = max(longest, steps)
    return longest


__all__ = ["ALL_TASKS", "TASKS", "WEB_TASKS", "Milestone", "Oracle", "TaskTemplate", "list_tasks", "oracle_steps"]
