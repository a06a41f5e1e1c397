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
    ['launch Contacts', 'launch Messages']
    >>> family.observation_text(obs)[:13]
    'nexuslauncher'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gui_gym.android.actions import DIRECTIONS, DISTANCES, Action, ActionParseError, format_action, parse_action
from gui_gym.android.candidates import KINDS, candidate_actions
from gui_gym.android.screen import screen_text
from gui_gym.core.family import Candidate, EditActions, select_tasks
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
            "finish() ends the task; finish(message=...) ends it with the answer when the task asks a question.",
        ]
    )


class AndroidFamily:
    """The :class:`~gui_gym.core.family.EnvFamily` of ``GuiAndroid-v0`` (simulated or real phone)."""

    name = "android"
    candidate_kinds: tuple[str, ...] = KINDS

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        from gui_gym.android.tasks import list_tasks

        return select_tasks(list_tasks(), selection, "GuiAndroid-v0")

    def observation_text(self, obs: Any) -> str:
        return screen_text(obs)

    def action_prompt(self) -> str:
        return action_prompt()

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        return candidate_actions(obs, max_candidates=limit)

    def edit_actions(self) -> EditActions:
        swipe_up = format_action(Action("swipe", direction="up", dist="medium"))
        swipe_down = format_action(Action("swipe", direction="down", dist="medium"))

        def undoable(action: str, earlier: Sequence[str]) -> bool:
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

        # A finger moving up scrolls the content down: the pair returns a list to where it was.
        return EditActions(
            noop=format_action(Action("wait")),
            noop_kind="wait",
            noop_description="Wait for 3 seconds",
            effectless_pairs=(
                ((swipe_up, "navigate", "Scroll down the list"), (swipe_down, "navigate", "Scroll up the list")),
            ),
            undo=(format_action(Action("back")), "navigate", "Press Back"),
            undoable=undoable,
        )


#: The one instance ``GuiAndroidEnv.family`` names.
FAMILY = AndroidFamily()
