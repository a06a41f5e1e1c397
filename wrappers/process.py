"""ADMIRE's process-reward baseline: an LLM judges whether each step helps (paper 000, App. A.2.2).

"Process Reward is a model-based reward mechanism that provides a scalar score for every step
within a task trajectory": an LLM-as-judge (GPT-4o in the paper) reads the Fig. 16 prompt — the
goal, the step's action text and action description, and the screenshots before and after the
step — and answers "yes" or "no". The step's term is ``weight · 1[yes]``, with the weight
"fixed at 0.3" (App. A.1.2). The term does not depend on the outcome, so the provisional step
reward is final.

Example (a canned judge; any object with ``complete(prompt, images=None) -> str`` will do):
    >>> import gymnasium as gym, gui_gym
    >>> class SaysYes:
    ...     def complete(self, prompt, images=None):
    ...         return "yes"
    >>> env = ProcessReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), judge=SaysYes())
    >>> _ = env.reset(seed=0)
    >>> _, r, _, _, info = env.step('do(action="Launch", app="Settings")')
    >>> r, info["reward_components"], info["process_judge"]
    (0.3, {'outcome': 0.0, 'process': 0.3}, 'yes')
    >>> _, r, _, _, info = env.step("not an action")  # invalid: 'no' without asking the judge
    >>> r, info["process_judge"]
    (0.0, 'skipped')
"""

from __future__ import annotations

import io
import logging
import math
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np

from gui_gym.core import contract as C
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.llm import strip_think
from wrappers.protocol import RewardShaping

log = logging.getLogger(__name__)

PROCESS = "process"

#: Fig. 16: "Prompt Used for LLM-Based Process Reward Judging." (markdown emphasis as printed)
JUDGE_PROMPT = """You are a step helpfulness judge with precise evaluative capabilities: you can accurately determine whether a task has been completed, assess the relevance of actions to goals, and distinguish between meaningful progress and irrelevant actions. Your task is to evaluate a single-step trajectory of a GUI agent executing a task and determine whether this specific step is helpful for achieving the goal.

- What you are provided: You are given a mobile GUI task goal, the current step's action text (including the model's thought process and output action), and the corresponding screenshots before and after the action. Red dots on the screenshots indicate click positions, while red arrows represent scroll operations and their directions. You are required to determine whether this step (action) helps progress toward completing the goal.

- If the task is completed at this step, its status is 'success', or the action is 'terminate', return 'yes' directly.

- If a discrepancy is found between the model's thought process and its final action, the action shall serve as the primary basis for judgment.

- Helpful steps include, but are not limited to: entering relevant information, advancing to the next stage, selecting target options, or saving progress.

- Unhelpful steps include: irrelevant taps, dismissing relevant dialogs, opening unrelated or wrong apps, idle, incomplete or wrong operations and so on.

- If there is uncertainty about whether it is helpful or the situation is ambiguous, Answer "no".

- If the action description or action text is empty or None, you should give 'no' directly.

The following are some examples for your reference:

Example for **helpful steps**:

Task goal: Fill out an expense report. Action text: "Tap on the 'Add' button." Action description: "Click the 'Add' button at the top right corner of the page." Screenshot: A screenshot showing a button labeled 'Add' at the top right corner of the page while a 'delete' button is on the left side of the page. The red dot is on the 'Add' button. Answer: "yes"

Example for **unhelpful steps**:

Task goal: Fill out an expense report. Action text: "Tap on the 'Add' button." Action description: "Click the 'Add' button at the top right corner of the page." Screenshot: A screenshot showing a button labeled 'Add' at the top right corner of the page while a 'delete' button is on the left side of the page. But the red dot is on the 'delete' button. Answer: "no"

The helpfulness of a step is not only determined by the action text and description, but also the screenshot. You should only give 'yes' for those steps that demonstrate clear and meaningful progress toward the goal. Be very strict and conservative - only give 'yes' when you are absolutely certain the step directly contributes to completing the task. If there is any doubt or uncertainty about whether a step is truly helpful, you must give 'no'.

You should **Answer strictly with 'yes' or 'no'** (lowercase) directly, without any explanation.

Goal: {goal}

Step Action Text: {action}

Step Action Description: {action description}

Question: Does this step help progress toward the goal? Answer 'yes' or 'no' directly."""  # noqa: E501

_FIELD = re.compile(r"\{(goal|action|action description)\}")
_VERDICT = re.compile(r"[\W_]*(yes|no)[\W_]*", re.IGNORECASE)
_ECHO = 200


def judge_prompt(goal: str, action: str, description: str) -> str:
    """The Fig. 16 prompt for one step (empty fields are written ``None``, as the prompt expects)."""
    values = {"goal": goal or "None", "action": action or "None", "action description": description or "None"}
    return _FIELD.sub(lambda m: values[m.group(1)], JUDGE_PROMPT)


def parse_verdict(reply: str) -> bool | None:
    """``True`` for "yes", ``False`` for "no", ``None`` for anything else.

    Case, surrounding whitespace, quotes and punctuation are ignored, and a leading
    ``<think>…</think>`` block (reasoning models) is dropped; any other text makes the reply
    unparseable — which the caller counts as "no" (Fig. 16: doubt → 'no').

    >>> [parse_verdict(r) for r in ["yes", " No.", "**Yes**", "'yes'", "yes, it helps", "maybe"]]
    [True, False, True, True, None, None]
    """
    if not isinstance(reply, str):
        return None
    m = _VERDICT.fullmatch(strip_think(reply))  # linear time, whatever the reply holds
    return None if m is None else m.group(1).lower() == "yes"


def encode_png(screen: np.ndarray) -> bytes:
    """An ``(H, W, 3)`` uint8 screenshot as PNG bytes (Pillow, fast compression)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(screen, dtype=np.uint8)).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


class _Screen:
    """One screenshot, PNG-encoded at most once."""

    __slots__ = ("array", "png")

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.png: bytes | None = None

    def encoded(self) -> bytes:
        if self.png is None:
            self.png = encode_png(self.array)
        return self.png


def _screen_of(obs: Any) -> _Screen | None:
    screen = obs.get("screen") if isinstance(obs, Mapping) else None
    if isinstance(screen, np.ndarray) and screen.ndim == 3 and screen.shape[-1] in (3, 4):
        return _Screen(np.array(screen, dtype=np.uint8, copy=True))
    return None


class ProcessReward(RewardShaping):
    """Adds ``"process"`` = ``weight · 1[judge says yes]`` to every step (ADMIRE App. A.2.2, Fig. 16).

    Args:
        env: any env keeping the gui-gym contract.
        judge: an :class:`~wrappers.llm.LLM` — e.g. ``OpenAICompatibleLLM(base_url, model)``
            (the paper used GPT-4o) or ``TransformersLLM(path)``.
        weight: the term's weight; 0.3 in the paper (App. A.1.2).
        skip_invalid: count steps whose action did not parse or apply (``format_valid`` False)
            as "no" without asking the judge — such a step changed nothing. Steps with an empty
            action description or action text are always "no" without asking (Fig. 16's rule).
        screenshots: send the screenshots before and after the step (PNG) when the observation
            has a ``"screen"`` array and the judge's ``supports_images`` is true; otherwise the
            judge gets text only.
        max_failures: after this many consecutive judge failures in one episode, stop asking
            for the rest of the episode (a judge that is down then costs at most this many
            timeouts per episode); ``None`` never stops.

    Each step ``info["process_judge"]`` is ``"yes"``, ``"no"``, ``"unparsed"`` (a reply that
    is neither: counted as "no"), ``"skipped"`` or ``"error"``; ``info["process_reply"]``
    holds the judge's reply (truncated) when one came. A judge that fails — down, slow, any
    exception — never ends the episode: the term is 0, ``info["process_error"]`` says why, and
    it is logged once per episode.
    """

    outcome_dependent: ClassVar[bool] = False

    def __init__(
        self,
        env: gym.Env,
        judge: Any,
        weight: float = 0.3,
        skip_invalid: bool = True,
        screenshots: bool = True,
        max_failures: int | None = 2,
    ) -> None:
        if judge is None:
            raise ValueError(
                "ProcessReward needs a judge LLM: pass judge=OpenAICompatibleLLM(base_url, model) (an "
                "OpenAI-compatible server; ADMIRE used GPT-4o) or judge=TransformersLLM(path) (a local model "
                "directory), both from wrappers.llm"
            )
        if not callable(getattr(judge, "complete", None)):
            raise TypeError(f"judge must have complete(prompt, images=None) -> str, got {type(judge).__name__}")
        weight = float(weight)
        if not math.isfinite(weight):
            raise ValueError(f"weight must be finite, got {weight}")
        if max_failures is not None and max_failures < 1:
            raise ValueError("max_failures must be positive or None")
        gym.utils.RecordConstructorArgs.__init__(
            self,
            judge=judge,
            weight=weight,
            skip_invalid=skip_invalid,
            screenshots=screenshots,
            max_failures=max_failures,
            _disable_deepcopy=True,  # the judge is shared, not copied
        )
        space = env.observation_space
        self._send_screens = bool(
            screenshots
            and getattr(judge, "supports_images", False)
            and isinstance(space, gym.spaces.Dict)
            and "screen" in space.spaces
        )
        self._screens: tuple[Any, _Screen | None] = (None, None)  # (observation, its screen), reused
        super().__init__(env)
        self.judge = judge
        self.weight = weight
        self.skip_invalid = bool(skip_invalid)
        self.max_failures = max_failures
        self.calls = 0  # judge calls made, over all episodes
        self.failures = 0  # of which failed
        self._consecutive = 0
        self._logged = False

    def begin(self, info: dict[str, Any]) -> None:
        self._consecutive = 0
        self._logged = False

    def _screen(self, obs: Any) -> _Screen | None:
        """The screen of an observation, encoded once: a step's "after" is the next one's "before"."""
        if obs is None:
            return None
        if self._screens[0] is not obs:
            self._screens = (obs, _screen_of(obs))
        return self._screens[1]

    def _images(self) -> list[bytes] | None:
        if not self._send_screens:
            return None
        try:
            before = self._screen(self.previous_observation)
            after = self._screen(self.observation)
            return [s.encoded() for s in (before, after) if s is not None] or None
        except Exception as e:  # a screenshot that cannot be encoded: judge on text alone
            log.debug("process judge: screenshots not encoded (%s); sending text only", e)
            return None

    def _fail(self, info: dict[str, Any], reason: str) -> None:
        info["process_judge"] = "error"
        info["process_error"] = reason
        if not self._logged:
            self._logged = True
            task = self.episode.task_id if self.episode is not None else "?"
            log.warning("process judge failed on %s (%s); the process term is 0 for this step", task, reason)

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        value = 0.0
        description = step.action_description.strip()
        if not description or not step.action.strip() or (self.skip_invalid and not step.format_valid):
            info["process_judge"] = "skipped"
        elif self.max_failures is not None and self._consecutive >= self.max_failures:
            self._fail(info, f"judge not asked: it failed {self._consecutive} times in a row this episode")
        else:
            goal = self.episode.instruction if self.episode is not None else str(info.get(C.INSTRUCTION, ""))
            prompt = judge_prompt(goal, step.action, description)
            self.calls += 1
            try:
                reply = self.judge.complete(prompt, self._images())
            except Exception as e:  # LLMError, or whatever a user's backend raises
                self.failures += 1
                self._consecutive += 1
                self._fail(info, f"{type(e).__name__}: {e}")
            else:
                self._consecutive = 0
                verdict = parse_verdict(reply)
                info["process_reply"] = str(reply)[:_ECHO]
                info["process_judge"] = "unparsed" if verdict is None else ("yes" if verdict else "no")
                value = self.weight if verdict else 0.0
        step.info[PROCESS] = value
        return {PROCESS: value}

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        return {PROCESS: [float(s.info.get(PROCESS, 0.0)) for s in episode.steps]}
