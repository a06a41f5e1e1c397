"""What ``GuiAndroidEnv`` needs from a phone: the backend protocol.

The env parses an action, hands it to a backend, and builds the observation and ``info`` from
what the backend reports. Everything about *which* phone — the simulator, a real device over
ADB (``uiautomator dump``, ``input tap``, ``screencap``), an emulator behind android_env —
lives behind :class:`AndroidBackend`, so a new backend is one class and one line in
:data:`gui_gym.android.backends.BACKENDS`; the env does not change.

A backend owns its task suite: it publishes the tasks it can set up (:attr:`~AndroidBackend.tasks`),
sets one up (:meth:`~AndroidBackend.start`), and evaluates that instance's milestone predicates
and success check on device state. The env keeps what is the same for every backend: task
selection, the step budget, the ordered milestone prefix, scoring rules and the ``info`` keys.

Optional capabilities are declared by boolean class attributes, read with :func:`supports`:

- ``supports_snapshot``: :meth:`snapshot` / :meth:`restore` fork the phone and the task
  instance in memory (the simulator copies its state; a real phone cannot);
- ``supports_oracle``: :meth:`oracle_action` gives the expert's next action.

A backend that does not declare one does not have it; the env then raises
:class:`BackendCapabilityError` naming the backend and the capability.

An optional ``judged_by(task_id)`` says how a task's success is judged (``"state"``: the
phone's state, the default; ``"screen"``: the final screen; ``"agent"``: instruction-only, the
agent's own verdict); the env reports it as the reset's ``info["judged_by"]``.

Two optional methods enrich the observation: ``windows()`` (every window on screen as
:class:`~gui_gym.android.ui.Window` records: the accessibility forest, AndroidWorld's element
list, ``ui_windows="all"``) and ``screen()`` (all windows under one root, ``ui_windows="merged"``).
Without ``windows()`` the env treats :meth:`~AndroidBackend.tree` as the one active window.

Example:
    >>> import numpy as np
    >>> from gui_gym.android.actions import parse_action
    >>> from gui_gym.android.backends import make_backend
    >>> b = make_backend("sim")
    >>> ep = b.start("ClockStopWatchRunning", np.random.default_rng(0))
    >>> ep.instruction, supports(b, "snapshot")
    ('Run the stopwatch.', True)
    >>> b.act(parse_action('do(action="Launch", app="Clock")')).description
    'Launch Clock'
    >>> b.milestone_reached(0), b.check(answer=None, status="complete")
    (True, False)
"""

from __future__ import annotations

import datetime as dt
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gui_gym.android.actions import Action
from gui_gym.android.ui import Node

#: the optional capabilities a backend may declare (``supports_<name> = True``)
CAPABILITIES = ("snapshot", "oracle")


class BackendCapabilityError(NotImplementedError):
    """The backend lacks an optional capability (see :func:`supports`)."""


@dataclass
class Outcome:
    """What one action did."""

    valid: bool
    description: str
    reason: str = ""
    done: bool = False
    answer: str | None = None
    status: str | None = None  # "complete" / "infeasible" when the agent declares it


@dataclass(frozen=True)
class Episode:
    """A task instance a backend has set up: what the env reports and scores against.

    ``milestones`` are the instance's annotated sub-goals with their ``<Slot>`` placeholders
    filled, in order; ``placeholders`` maps each slot to its value; ``step_limit`` is the
    backend's default step budget for the instance (the env's ``max_steps`` overrides it).
    """

    task_id: str
    instruction: str
    params: dict[str, Any] = field(default_factory=dict)
    milestones: tuple[str, ...] = ()
    placeholders: dict[str, str] = field(default_factory=dict)
    step_limit: int = 30


@runtime_checkable
class TaskInfo(Protocol):
    """What the env reads of a backend's task (``TaskTemplate`` and ``TaskSpec`` have it)."""

    id: str
    app: str
    difficulty: str  # "easy" / "medium" / "hard"
    kind: str  # "action", "question" or "infeasible"


@runtime_checkable
class AndroidBackend(Protocol):
    """A phone the env can drive. One backend instance serves one env.

    Coordinates are those of the 1080x2400 device (:mod:`gui_gym.android.ui`); a backend for a
    screen of another size maps them. Optional: ``supports_snapshot`` with ``snapshot()`` /
    ``restore(snap)``, ``supports_oracle`` with ``oracle_action()`` (see the module docstring).
    """

    #: a short name for messages ("sim", "adb", ...)
    name: str

    @property
    def tasks(self) -> Mapping[str, TaskInfo]:
        """Every task this backend can set up, by id."""
        ...

    def start(self, task_id: str, rng: np.random.Generator, params: Mapping[str, Any] | None = None) -> Episode:
        """Set up an instance of ``task_id``: sample its parameters from ``rng``, update them
        with ``params``, bring the phone into the start state."""
        ...

    def act(self, action: Action) -> Outcome:
        """Apply one parsed action. One that cannot be applied changes nothing and comes back
        with ``valid=False`` and a ``reason``; it never raises."""
        ...

    def tree(self) -> Node:
        """The current screen's view hierarchy."""
        ...

    def elements(self) -> list[Node]:
        """Every node of :meth:`tree` in pre-order (AndroidWorld's ``ui_elements``)."""
        ...

    def screenshot(self, size: tuple[int, int]) -> np.ndarray:
        """The current screen as an ``(h, w, 3)`` uint8 array of ``size = (w, h)``."""
        ...

    def milestone_reached(self, index: int) -> bool:
        """Whether the instance's milestone ``index`` holds in the current device state."""
        ...

    def check(self, answer: str | None, status: str | None) -> bool:
        """The instance's programmatic success check on device state (plus the answer given)."""
        ...

    def app_opened(self, app: str) -> bool:
        """Whether ``app`` was brought to the front since :meth:`start`."""
        ...

    @property
    def clock(self) -> dt.datetime:
        """The phone's current time."""
        ...

    def close(self) -> None:
        """Release what the backend holds (renderer, connection)."""
        ...


#: the members every backend has (what ``isinstance(obj, AndroidBackend)`` checks)
REQUIRED = (
    "name",
    "tasks",
    "start",
    "act",
    "tree",
    "elements",
    "screenshot",
    "milestone_reached",
    "check",
    "app_opened",
    "clock",
    "close",
)


def missing_members(obj: object) -> list[str]:
    """The :data:`REQUIRED` members ``obj`` lacks (empty for a backend).

    Looked up statically, so a property is not run (a phone that is not reachable yet still
    has a ``clock``).
    """
    missing = []
    for m in REQUIRED:
        try:
            inspect.getattr_static(obj, m)
        except AttributeError:
            missing.append(m)
    return missing


def supports(backend: object, capability: str) -> bool:
    """Whether ``backend`` declares the optional ``capability`` (one of :data:`CAPABILITIES`)."""
    if capability not in CAPABILITIES:
        raise ValueError(f"unknown capability {capability!r}; known: {', '.join(CAPABILITIES)}")
    return bool(getattr(backend, f"supports_{capability}", False))


def require(backend: object, capability: str, what: str) -> None:
    """Raise :class:`BackendCapabilityError` unless ``backend`` declares ``capability``."""
    if not supports(backend, capability):
        name = getattr(backend, "name", type(backend).__name__)
        raise BackendCapabilityError(
            f"{what} needs a backend with {capability} support; the {name!r} backend "
            f"({type(backend).__name__}) does not declare supports_{capability}"
        )


def sample_params(task: Any, rng: np.random.Generator, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """A task instance's parameters: drawn from ``rng`` as the simulator draws them, updated with
    ``params`` (every backend draws them the same way, so a seed means one instance everywhere).

    For a task that draws as a benchmark does from its own instance seeds (AndroidWorld's),
    ``params={"seed": s}`` asks for that benchmark's instance ``s``."""
    seed = params.get("seed") if params else None
    sample_seed = getattr(task, "sample_seed", None)
    if seed is not None and callable(sample_seed):
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"params['seed'] must be a non-negative integer, got {seed!r}")
        p = sample_seed(int(seed))
    else:
        p = task.sample(rng)
    return {**p, **params} if params else p


class DumpedScreen:
    """The screen of a device backend (a mixin): the view tree of its last UI dump, dumped again
    only when an action has dropped it. Needs ``_dump()`` and ``_tree`` (``None`` or a tree)."""

    _tree: Node | None = None

    def _dump(self) -> Node:
        raise NotImplementedError

    def tree(self) -> Node:
        if self._tree is None:
            self._tree = self._dump()
        return self._tree

    def elements(self) -> list[Node]:
        return list(self.tree().walk())


class InstructionOnly:
    """What a device backend that cannot read a task's state answers (a mixin): no milestones,
    success on the agent's own verdict (a question also needs an answer), the apps it launched,
    the host's clock. Needs ``_task`` (the task template or ``None``) and ``_opened`` (a set)."""

    _task: Any = None
    _opened: set[str]

    def judged_by(self, task_id: str) -> str:
        return "agent"

    def milestone_reached(self, index: int) -> bool:
        return False

    def check(self, answer: str | None, status: str | None) -> bool:
        if self._task is not None and getattr(self._task, "kind", "action") == "question":
            return status == "complete" and bool(answer)
        return status == "complete"

    def app_opened(self, app: str) -> bool:
        return app in self._opened

    @property
    def clock(self) -> dt.datetime:
        return dt.datetime.now()
