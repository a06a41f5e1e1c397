"""Task templates: parameters, set-up, success checks, milestones and the oracle.

A :class:`TaskTemplate` subclass is one AndroidWorld-style task family. An instance is the
template plus parameters sampled from a seed. Success checks and milestone predicates read
device *state* (the apps' databases, settings, the screen stack) — never pixels or text on
screen — so reaching the right screen without making the change does not count.

The oracle acts through the UI the way a careful person would: :class:`Oracle` looks at the
current view tree, finds elements by their visible text, description or resource id, and
answers with a text action on their real bounds.
"""

from __future__ import annotations

import datetime as dt
import re
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from gui_gym.android.actions import Action, format_action
from gui_gym.android.ui import Node
from gui_gym.core.task import TaskSpec

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device
    from gui_gym.android.sim.dialogs import Dialog
    from gui_gym.android.sim.widgets import Screen

Params = dict[str, Any]


@dataclass(frozen=True)
class Milestone:
    """An annotated sub-goal: text with ``<Placeholder>`` slots and a state predicate."""

    text: str
    reached: Callable[[Device, Params], bool]


class TaskTemplate:
    """Base class. Subclasses set the class attributes and implement the four methods.

    - ``sample(rng) -> params``: parameters drawn from the seed's generator;
    - ``setup(dev, params, rng)``: edit the apps' databases/settings into the start state;
    - ``check(dev, params, answer, status) -> bool``: the programmatic success check;
    - ``oracle(o) -> str``: the expert's next action given an :class:`Oracle`.

    ``placeholders`` maps ``<Slot>`` names in the milestone texts to parameter keys.
    """

    id: ClassVar[str] = ""
    suite: ClassVar[str] = "gui-gym"  # the task list it belongs to (``task="gui-gym"`` selects it)
    optimal_steps: ClassVar[int | None] = None  # a benchmark's own figure, where it has one
    tags: ClassVar[tuple[str, ...]] = ()
    app: ClassVar[str] = ""
    apps: ClassVar[tuple[str, ...]] = ()  # every app the task touches (defaults to (app,))
    difficulty: ClassVar[str] = "easy"
    template: ClassVar[str] = ""
    kind: ClassVar[str] = "action"  # "action", "question" or "infeasible"
    milestones: ClassVar[tuple[Milestone, ...]] = ()
    placeholders: ClassVar[dict[str, str]] = {}
    #: a benchmark's own step limit (``None``: twice the oracle's longest episode, plus 5)
    step_limit: ClassVar[int | None] = None
    #: what the task needs beyond the simulator (``"browser"``: a page in Chromium); a task that
    #: needs something is selected by its id or suite, never by ``"all"``
    requires: ClassVar[tuple[str, ...]] = ()
    #: named subsets of its suite it belongs to (``"miniwob-subset"``), selectable like a suite
    subsets: ClassVar[tuple[str, ...]] = ()

    # -- to implement --------------------------------------------------------------------
    def sample(self, rng: np.random.Generator) -> Params:
        return {}

    def setup(self, dev: Device, params: Params, rng: np.random.Generator) -> None:
        pass

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        raise NotImplementedError

    def oracle(self, o: Oracle) -> str:
        raise NotImplementedError

    def observe_start(self, dev: Device, params: Params) -> None:
        """Record in ``params`` what the check compares against that :meth:`setup` would have
        noted of the start state (a listing, with times), read from ``dev`` as someone else set
        it up: a benchmark's own set-up over adb. Default: nothing to note."""

    def ended(self, dev: Device, params: Params) -> bool:
        """Whether the episode has ended by itself after an action (a page that gave its reward);
        default: never (an episode ends by the agent's finish or answer, or the step limit)."""
        return False

    def info(self, dev: Device, params: Params) -> dict[str, Any]:
        """What the task reports in ``info`` at every step beyond the env's keys (a page's reward)."""
        return {}

    def score(self, dev: Device, params: Params, answer: str | None, status: str | None) -> float:
        """The task's score in [0, 1]: 1.0 when :meth:`check` holds, else 0.0. A composite task
        overrides it with the share of its sub-tasks done (AndroidWorld's composite tasks)."""
        return float(self.check(dev, params, answer, status))

    # -- provided ------------------------------------------------------------------------
    def clock(self, rng: np.random.Generator) -> dt.datetime:
        """The device clock at reset (override to pin a date); default: a fixed Sunday morning."""
        return dt.datetime(2023, 10, 15, 9, 30)

    def instruction(self, params: Params) -> str:
        return self.template.format(**params)

    def milestone_texts(self, params: Params | None = None) -> list[str]:
        """Milestone texts, with placeholders filled when ``params`` is given."""
        values = self.placeholder_values(params) if params is not None else {}
        out = []
        for m in self.milestones:
            text = m.text
            for slot, value in values.items():
                text = text.replace(f"<{slot}>", value)
            out.append(text)
        return out

    def placeholder_values(self, params: Params) -> dict[str, str]:
        """``<Slot>`` name -> the text this instance puts there (``{"Name": "Zara Costa"}``)."""
        return {slot: str(params[key]) for slot, key in self.placeholders.items() if key in params}

    def spec(self) -> TaskSpec:
        return TaskSpec(
            id=self.id,
            app=self.app,
            difficulty=self.difficulty,
            template=self.template,
            milestones=tuple(m.text for m in self.milestones),
            params=tuple(re.findall(r"{(\w+)", self.template)),
            kind=self.kind,
            apps=self.apps or (self.app,),
            suite=self.suite,
            optimal_steps=self.optimal_steps,
            tags=self.tags,
            requires=self.requires,
            subsets=self.subsets,
        )


# ----------------------------------------------------------------------------- answers


def in_app(dev: Device, app: str) -> bool:
    """``app`` is in front (not behind the recent-apps overview)."""
    return dev.state.foreground == app and not dev.state.recents_open


def back_stack(dev: Device, app: str) -> list:
    """``app``'s screens, its root first (empty when it is not running)."""
    return dev.state.stacks.get(app, [])


def normalize_answer(text: str | None) -> str:
    """Lower-case, collapse spaces, drop surrounding punctuation and quotes."""
    if text is None:
        return ""
    return " ".join(str(text).lower().replace(",", " ").split()).strip(" .\"'!")


def answer_matches(answer: str | None, expected: str | Sequence[str]) -> bool:
    """True if the normalised answer equals, or as a whole contains, an expected answer."""
    got = normalize_answer(answer)
    if not got:
        return False
    for exp in [expected] if isinstance(expected, str) else expected:
        e = normalize_answer(exp)
        if got == e or re.search(rf"(^|\W){re.escape(e)}($|\W)", got):
            return True
    return False


# ----------------------------------------------------------------------------- oracle

# The direction the oracle is sweeping a list in, per device (a person's short memory).
_SCROLL_PHASE: weakref.WeakKeyDictionary[Device, dict[str, str]] = weakref.WeakKeyDictionary()


class Oracle:
    """What the expert sees: the device's current view tree, screen and dialog, plus the
    task parameters. Its helpers return text actions in the androidlab syntax."""

    def __init__(self, dev: Device, params: Params) -> None:
        self.dev = dev
        self.p = params
        self.nodes = dev.elements()

    # -- where am I ----------------------------------------------------------------------
    @property
    def app(self) -> str | None:
        """The app in front, or ``None`` on the launcher / recents."""
        return None if self.dev.state.recents_open else self.dev.state.foreground

    @property
    def screen(self) -> Screen | None:
        return self.dev.top_screen()

    @property
    def dialog(self) -> Dialog | None:
        s = self.screen
        return None if s is None else s.dialog

    @property
    def keyboard(self) -> bool:
        return self.dev.state.keyboard

    def on(self, screen_type: type) -> bool:
        s = self.screen
        return s is not None and isinstance(s, screen_type) and s.dialog is None

    # -- finding ----------------------------------------------------------------------------
    def find(
        self,
        text: str | None = None,
        *,
        desc: str | None = None,
        rid: str | None = None,
        role: str | None = None,
        contains: str | None = None,
        label: str | None = None,
    ) -> Node | None:
        """The first visible element matching every given criterion (text is exact)."""
        for n in self.nodes:
            if text is not None and n.text != text:
                continue
            if desc is not None and n.desc != desc:
                continue
            if rid is not None and not n.rid.endswith(rid):
                continue
            if role is not None and n.role != role:
                continue
            if label is not None and n.label != label:
                continue
            if contains is not None and contains.lower() not in (n.text + " " + n.desc).lower():
                continue
            return n
        return None

    def field(self, label: str) -> Node | None:
        return next((n for n in self.nodes if n.field is not None and n.label == label), None)

    # -- acting ------------------------------------------------------------------------------
    def tap(self, node: Node | None) -> str:
        """Tap ``node``. ``None`` (the element a plan expects is not on screen, e.g. after a
        detour by a noisy policy) steps Back so the plan can start over from a known screen."""
        return self.back() if node is None else format_action(Action("tap", element=node.bounds))

    def long_press(self, node: Node | None) -> str:
        return self.back() if node is None else format_action(Action("long_press", element=node.bounds))

    def type(self, text: str) -> str:
        """AndroidLab's Type: delete up to 100 characters, type ``text``, press Enter."""
        return format_action(Action("type", text=text))

    def replace(self, text: str) -> str:
        """Make the focused field hold ``text``: AndroidWorld's ``input_text`` with
        ``clear_text`` (select all, delete, type, press Enter), whatever the field held and
        whichever dialect the env reads ``do(...)`` text in."""
        return format_action(Action("input_text", text=text, clear=True), "androidworld")

    def launch(self, app_label: str) -> str:
        return format_action(Action("launch", app=app_label))

    def back(self) -> str:
        return format_action(Action("back"))

    def home(self) -> str:
        return format_action(Action("home"))

    def enter(self) -> str:
        return format_action(Action("enter"))

    def swipe(self, finger: str, dist: str = "medium", within: Node | None = None) -> str:
        return format_action(
            Action("swipe", direction=finger, dist=dist, element=None if within is None else within.bounds)
        )

    def finish(self, message: str | None = None) -> str:
        return format_action(Action("finish", text=message))

    def answer(self, text: str) -> str:
        return format_action(Action("answer", text=text), "androidworld")

    def infeasible(self) -> str:
        return format_action(Action("status", goal_status="infeasible"), "androidworld")

    def tap_text(self, text: str, **kw: Any) -> str | None:
        n = self.find(text, **kw)
        return None if n is None else self.tap(n)

    def fill(self, label: str, value: str) -> str | None:
        """Next action to make the field labelled ``label`` hold ``value``; ``None`` when it
        already does (or the field is not on screen: check with :meth:`field`).

        AndroidLab's Type and AndroidWorld's input_text press Enter after the text, which in
        a multi-line field is a line break: there ``value`` followed by one counts as held, as
        AndroidWorld's checks strip file contents (``file_utils.check_file_content``) and
        fuzzy-match free text (``fuzzy_match_lib``). An empty field gets a ``Type`` (the same
        in every dialect: nothing to delete); one holding other text is replaced with
        :meth:`replace`.
        """
        n = self.field(label)
        if n is None:
            return None
        host, key = n.field
        current = host.form.get(key, "")
        if current == value or (key in host.multiline and current == value + "\n"):
            return None
        if not n.focused:
            return self.tap(n)
        return self.type(value) if not current else self.replace(value)

    def fill_form(self, fields: Sequence[tuple[str, str]]) -> str | None:
        """:meth:`fill` the first field (in order) that does not yet hold its value."""
        for label, value in fields:
            if self.field(label) is None:
                continue
            act = self.fill(label, value)
            if act is not None:
                return act
        return None

    def reveal(
        self, match: Callable[[Node], bool], before: Callable[[Node], bool] | None = None, list_rid: str = ""
    ) -> str | None:
        """Scroll the list toward an item that ``match``-es; ``None`` if one is visible.

        ``before(row)`` tells whether a visible row comes before the target in the list's
        order; with it the oracle scrolls the right way from any position. Without it, it
        scrolls down until the end, then up.
        """
        if any(match(n) for n in self.nodes):
            return None
        lst = self.find(rid=list_rid, role="list")
        if lst is None or lst.on_scroll is None:
            return None
        off, max_off = lst.style
        if before is not None:
            rows = [c for c in lst.children if c.role == "row"]
            down = bool(rows) and all(before(r) for r in rows)
        else:
            # Like a person: scroll down to the end, then back up, remembering which way we go.
            phase = _SCROLL_PHASE.setdefault(self.dev, {})
            if off >= max_off:
                phase[list_rid] = "up"
            elif off == 0:
                phase[list_rid] = "down"
            down = phase.get(list_rid, "down") == "down"
        return self.swipe("up" if down else "down", within=lst)  # finger up reveals what is below

    def go_to_app(self, app_label: str) -> str:
        """Leave whatever is on screen and launch ``app_label``."""
        return self.launch(app_label)
