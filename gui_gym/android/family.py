"""The Android family: what code outside ``gui_gym.android`` learns about ``GuiAndroid-v0``.

Everything here is reached through :func:`gui_gym.core.family.family_of`; trainers, policies
and wrappers never import this module.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> from gui_gym.core.family import family_of
    >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")
    >>> obs, info = env.reset(seed=0)
    >>> family = family_of(env)
    >>> [c.label for c in family.admissible_actions(obs) if c.kind == "launch"][:2]
    ['launch Contacts', 'launch Simple SMS Messenger']
    >>> family.observation_text(obs)[:13]
    'nexuslauncher'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from gui_gym.android.actions import DIRECTIONS, DISTANCES, Action, ActionParseError, format_action, parse_action
from gui_gym.android.candidates import APPS, KINDS, candidate_actions
from gui_gym.android.forest import element_box
from gui_gym.android.matching import VOCABULARY
from gui_gym.android.screen import screen_text
from gui_gym.core.family import Candidate, EditActions, select_tasks
from gui_gym.core.matching import MatchingVocabulary
from gui_gym.core.task import TaskSpec

__all__ = ["FAMILY", "AndroidFamily", "action_examples", "action_prompt"]


def action_examples() -> list[str]:
    """One action of each kind, written by the env's own formatter (so the prompt cannot drift
    from what :func:`~gui_gym.android.actions.parse_action` accepts).

    >>> action_examples()[:2]
    ['do(action="Tap", element=[40,300,1040,420])', 'do(action="Long Press", element=[40,300,1040,420])']
    """
    box = (40, 300, 1040, 420)
    examples = (
        Action("tap", element=box),
        Action("long_press", element=box),
        Action("type", text="Sofia Lopez"),
        Action("swipe", direction="up", dist="medium"),
        Action("launch", app="Settings"),
        Action("back"),
        Action("home"),
        Action("wait"),
        Action("enter"),
        Action("finish"),
        Action("answer", text="the answer"),
    )
    return [format_action(a, "androidlab") for a in examples]


def action_prompt() -> str:
    """The fixed instructions of an LM policy: the action syntax, from :func:`action_examples`
    and the parser's directions and distances."""
    return "\n".join(
        [
            "You operate an Android phone to complete a task. Each turn you see the task, your previous",
            "actions and the current screen. Reply with exactly one action on one line, one of:",
            *action_examples(),
            "element is the [x1,y1,x2,y2] bounds of a screen element; "
            f"direction (of the finger) is one of {', '.join(DIRECTIONS)}; dist is one of {', '.join(DISTANCES)}.",
            "Type replaces the text of the focused field, then presses Enter.",
            "finish() ends the task; finish(message=...) ends it with the answer when the task asks a question.",
        ]
    )


class AndroidFamily:
    """The :class:`~gui_gym.core.family.EnvFamily` of ``GuiAndroid-v0`` (simulated or real phone)."""

    name = "android"
    candidate_kinds: tuple[str, ...] = KINDS

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        from gui_gym.android.sim.tasks import ALL_TASKS

        # every task, the browser's too: "all" and tiers leave out what needs a browser
        return select_tasks([t.spec() for t in ALL_TASKS.values()], selection, "GuiAndroid-v0")

    def oracle_steps(self, task_id: str) -> int | None:
        """The simulator oracle's longest episode over seeds 0-2 (what the step limit is based on);
        ``None`` for a task whose screens need a browser (its limit is the benchmark's own)."""
        from gui_gym.android.sim.tasks import ALL_TASKS, oracle_steps

        task = ALL_TASKS[task_id]
        return None if task.requires else oracle_steps(task)

    def instruction(self, obs: Any) -> str:
        return _clean(obs)["instruction"]

    def observation_text(self, obs: Any, full: bool = False) -> str:
        """The compact screen text (:func:`~gui_gym.android.screen.screen_text`), or with ``full``
        the UI dump as the env gives it (make the env with ``ui_format="compressed"`` for
        MobileRL's compressed tree: the XML dump is about 8x longer)."""
        if not full:
            return screen_text(_clean(obs))
        ui = obs.get("ui") if isinstance(obs, dict) else obs
        if not isinstance(ui, str):
            raise ValueError("this observation has no UI text; make the env with obs_mode='text' or 'both'")
        return ui.strip()

    def action_prompt(self) -> str:
        return action_prompt()

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        """The actions a person could take on the visible screen (read from ``obs`` alone:
        :func:`~gui_gym.android.candidates.candidate_actions`)."""
        return candidate_actions(_clean(obs), max_candidates=limit)

    def random_action(self, obs: Any, info: dict[str, Any], rng: np.random.Generator, finish_prob: float) -> str:
        """What a person might do at random on the visible screen: tap a clickable element (most
        often), long-press, type a word of the instruction, swipe, Back/Home/Enter, launch an app,
        or (with ``finish_prob``) declare the task done — from ``info["ui_elements"]`` and the
        instruction, never from hidden state."""
        if rng.random() < finish_prob:
            return format_action(Action("finish"))
        elements = info.get("ui_elements", [])
        clickable = [e for e in elements if e.is_clickable]
        long_clickable = [e for e in elements if e.is_long_clickable]
        u = rng.random()
        if u < 0.6 and clickable:
            e = clickable[int(rng.integers(len(clickable)))]
            return format_action(Action("tap", element=element_box(e)))
        if u < 0.65 and long_clickable:
            e = long_clickable[int(rng.integers(len(long_clickable)))]
            return format_action(Action("long_press", element=element_box(e)))
        if u < 0.75:
            words = self.instruction(obs).replace(".", " ").split() or ["hello"]
            return format_action(Action("type", text=words[int(rng.integers(len(words)))]))
        if u < 0.85:
            d = ("up", "down", "left", "right")[int(rng.integers(4))]
            return format_action(Action("swipe", direction=d, dist="medium"))
        if u < 0.93:
            return format_action(Action(("back", "home", "enter")[int(rng.integers(3))]))
        return format_action(Action("launch", app=APPS[int(rng.integers(len(APPS)))]))

    def matching(self) -> MatchingVocabulary:
        """The phone's words for ADMIRE's milestone matcher (:mod:`gui_gym.android.matching`)."""
        return VOCABULARY

    def edit_actions(self) -> EditActions:
        swipe_up = format_action(Action("swipe", direction="up", dist="medium"))
        swipe_down = format_action(Action("swipe", direction="down", dist="medium"))

        # A finger moving up scrolls the content down: the pair returns a list to where it was.
        return EditActions(
            noop=format_action(Action("wait")),
            noop_kind="wait",
            noop_description="Wait for 3 seconds",
            effectless_pairs=(
                ((swipe_up, "navigate", "Scroll down the list"), (swipe_down, "navigate", "Scroll up the list")),
            ),
            undo=(format_action(Action("back")), "navigate", "Press Back"),
            undoable=_undoable,
        )


def _undoable(action: str, earlier: Sequence[str]) -> bool:
    """Whether Back may follow ``action`` and ``action`` then be repeated (ProgRM synthesis)."""
    # Back closes what a tap or a launch opened; a launch of an app launched before
    # resumes wherever that app was left, which Back then would not simply close.
    try:
        a = parse_action(action)
    except ActionParseError:
        return False
    if a.kind == "tap":
        return True
    if a.kind != "launch":
        return False
    app = (a.app or "").casefold()
    for e in earlier:
        try:
            b = parse_action(e)
        except ActionParseError:
            continue
        if b.kind == "launch" and (b.app or "").casefold() == app:
            return False
    return True


def _clean(obs: Any) -> dict[str, str]:
    """The observation's instruction and UI text (a pixels-only observation has no UI)."""
    if not isinstance(obs, dict):
        raise TypeError(f"an observation must be the env's dict with 'instruction' and 'ui', got {type(obs).__name__}")
    ui = obs.get("ui", "")
    return {"instruction": str(obs.get("instruction", "")), "ui": ui if isinstance(ui, str) else ""}


#: The one instance ``GuiAndroidEnv.family`` names.
FAMILY = AndroidFamily()
