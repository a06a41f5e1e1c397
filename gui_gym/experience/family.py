"""The experience family: what code outside ``gui_gym.experience`` learns about ``GuiExperience-v0``.

Its screens are Android screens, so observations read and candidate actions come as on
``GuiAndroid-v0`` (:mod:`gui_gym.android.family`); an LM policy is prompted in EMPO's action
space (Fig. 22: ``<think>`` then a JSON action), and the env reads either.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> from gui_gym.core.family import family_of
    >>> env = gym.make("GuiExperience-v0", task="ClockStopWatchRunning/0")
    >>> obs, info = env.reset(seed=0)
    >>> [c.action for c in family_of(env).admissible_actions(obs) if c.label == "launch Clock"]
    ['do(action="Launch", app="Clock")']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gui_gym.android.family import FAMILY as ANDROID
from gui_gym.core.family import Candidate
from gui_gym.core.matching import MatchingVocabulary
from gui_gym.core.task import TaskSpec
from gui_gym.experience.record import ACTIONS, BUTTONS

__all__ = ["FAMILY", "ExperienceFamily", "action_prompt"]


def action_prompt() -> str:
    """EMPO's response format (Fig. 22) in gui-gym's words."""
    return "\n".join(
        [
            "You operate an Android phone to complete a task. Each turn you see the task, your previous",
            "actions and the current screen. First reason inside <think>...</think>, then give exactly one",
            "action inside <action>...</action> as a JSON object, its arguments beside the action name:",
            '{"action": "click", "coordinate": [x, y]}   {"action": "long_press", "coordinate": [x, y], "time": 2}',
            '{"action": "swipe", "coordinate": [x1, y1], "coordinate2": [x2, y2]}   (the finger moves from 1 to 2)',
            '{"action": "type", "text": "..."}   {"action": "open", "text": "<app name>"}',
            f'{{"action": "system_button", "button": "Back"}}   (buttons: {", ".join(BUTTONS)})',
            '{"action": "wait", "time": 2}   {"action": "answer", "text": "..."}   {"action": "key", "text": "<key>"}',
            '{"action": "terminate", "status": "success"}   (or "failure")',
            f"Actions: {', '.join(ACTIONS)}. Coordinates are pixels from the top-left corner of the screen.",
        ]
    )


class ExperienceFamily:
    """The :class:`~gui_gym.core.family.EnvFamily` of ``GuiExperience-v0``."""

    name = "experience"
    candidate_kinds: tuple[str, ...] = ANDROID.candidate_kinds

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        """The embedded set's experiences that *selection* names (ids, tasks, tiers, splits)."""
        from gui_gym.experience.embedded import embedded_experiences
        from gui_gym.experience.tasks import select_experiences, spec_of

        return [spec_of(e) for e in select_experiences(embedded_experiences(), selection)]

    def tasks_for(self, selection: str | Sequence[str] | None, env_kwargs: dict[str, Any]) -> list[TaskSpec]:
        """The experiences of the data set the env reads (``data`` and ``data_format`` of its kwargs)."""
        from gui_gym.experience.env import load_experiences
        from gui_gym.experience.tasks import select_experiences, spec_of

        data = env_kwargs.get("data", "embedded")
        found = load_experiences(data, env_kwargs.get("data_format", "auto"))
        return [spec_of(e) for e in select_experiences(found, selection)]

    def instruction(self, obs: Any) -> str:
        return ANDROID.instruction(obs)

    def observation_text(self, obs: Any, full: bool = False) -> str:
        return ANDROID.observation_text(obs, full)

    def action_prompt(self) -> str:
        return action_prompt()

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        """The actions a person could take on the expert's screen, as on ``GuiAndroid-v0``."""
        return ANDROID.admissible_actions(obs, info, limit)

    def matching(self) -> MatchingVocabulary:
        """The phone's words: an expert's steps are described as ``GuiAndroid-v0`` describes them."""
        return ANDROID.matching()

    def edit_actions(self) -> None:
        """An expert's screen changes only along its trajectory: ProgRM's synthesis has nothing to edit."""
        return None


#: The one instance ``GuiExperienceEnv.family`` names.
FAMILY = ExperienceFamily()
