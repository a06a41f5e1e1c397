"""The simulated phone: the default backend of ``GuiAndroid-v0``.

``device`` (system UI, input routing, snapshot/restore), ``widgets`` (the screens and dialogs
apps are built from), ``render`` (view tree -> pixels), ``apps/`` (one package per installed app:
its screens and database in ``app``, its task templates in ``tasks``: set-up, checks, milestones,
oracle) and ``tasks/`` (the suite, the task base, shared vocabularies, the tasks spanning apps).
Everything here needs no emulator; :mod:`gui_gym.android.backends.sim` puts it behind the
backend protocol the env talks to.
"""

from gui_gym.android.sim.device import Device, Outcome
from gui_gym.android.sim.tasks import TASKS, TaskTemplate, list_tasks

__all__ = ["TASKS", "Device", "Outcome", "TaskTemplate", "list_tasks"]
