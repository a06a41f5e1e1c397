"""``GuiExperience-v0``: expert trajectories as an environment (EMPO §3.2-3.4, Alg. 1).

An episode replays one expert trajectory τ* = {(S*_1, a*_1), …, (S*_T, a*_T)}. At step *t* the
agent sees the expert's screen S*_t and acts; its action is scored against a*_t by the rule
reward (Eq. 4, :mod:`gui_gym.experience.matching`). Then (Alg. 1):

- a match (Eq. 3: ``r_format·r_type·r_acc = 1``) moves on to the expert's next screen S*_{t+1};
- a mismatch, while fewer than ε patches were used (``patch_threshold``, default 1), is
  *patched*: the expert's action takes the agent's place in the history (``info["patched"]``,
  ``info["patch_label"]``, which the trainers' collectors put in the policy's history) and the
  episode moves on to S*_{t+1}; the agent's own step stays in the trajectory with its reward;
- a mismatch past ε ends the episode, as does the end of the expert trajectory.

A response that reads as no action at all is, by default, the env contract's reported no-op
(``format_valid`` False, reward 0, the same screen, a step spent, and a break in Eq. 5's sums);
``invalid="mismatch"`` treats it as Alg. 1 treats any wrong response.

Patches come thought-free (``patch="thought-free"``, the paper's choice), with the data's own
reasoning (``"off-policy"``: each step's ``thought``), or from a callable ``patch(obs, expert_action,
step) -> str`` that writes the reasoning (on-policy: the current policy with the expert action as a
hint, EMPO Fig. 23).

At the last step ``info["episode_rewards"]`` holds Eq. 5's discounted future returns (γ = 0.5) cut
at patched steps (:mod:`gui_gym.experience.returns`), so every trainer that reads
``episode_rewards`` trains on EMPO's returns. ``success`` is the whole trajectory played to its end with no
patch (AC-Real's ``s_i = t_i``); ``milestones`` are the expert steps matched and ``progress`` = s/t.

The data: ``data="embedded"`` (the simulator's oracle trajectories of every task, their screens
re-rendered on the simulator), a path read by :func:`gui_gym.experience.readers.read_experiences`
(UI-S1 JSON Lines, AndroidControl's TFRecord shards, GUI-Odyssey's episodes, gui-gym's own), or a
list of :class:`~gui_gym.experience.record.Experience`.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GuiExperience-v0", task="ClockStopWatchRunning/0")
    >>> obs, info = env.reset(seed=0)
    >>> obs, r, term, trunc, info = env.step('{"action": "open", "text": "Clock"}')
    >>> r, info["patched"], info["step_index"], info["action_description"]
    (1.0, False, 0, 'Open Clock')
    >>> obs, r, term, trunc, info = env.step('{"action": "wait"}')   # wrong: patched (ε = 1)
    >>> r, info["patched"], info["expert_action"]
    (0.1, True, '{"action": "click", "coordinate": [945, 2199]}')
    >>> for _ in range(2):  # the expert's own click, then terminate
    ...     obs, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
    >>> term, info["success"], info["episode_rewards"]  # Eq. 5 by hand: cut before the patch
    (True, False, [1.0, 0.1, 1.5, 1.0])
"""

from __future__ import annotations

import functools
import json
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gui_gym.core import contract as C
from gui_gym.core.spaces import AnyText
from gui_gym.experience.grounding import describe, screen_elements
from gui_gym.experience.matching import RULES, score_step
from gui_gym.experience.record import Experience, ExperienceError, UIAction
from gui_gym.experience.returns import GAMMA, discounted_returns
from gui_gym.experience.screens import DataScreens, Screen, ScreenSource, SimScreens
from gui_gym.experience.tasks import select_experiences

__all__ = ["INVALID", "PATCHES", "GuiExperienceEnv", "load_experiences", "ui_s1_json"]

PATCHES = ("thought-free", "off-policy")
#: What a response that reads as no action does: nothing (the env contract: a reported no-op that
#: costs a step) or what Alg. 1 does with any wrong response (a mismatch: patched, or the end).
INVALID = ("no-op", "mismatch")
log = logging.getLogger(__name__)
OBS_MODES = ("text", "pixels", "both")
MAX_UI_CHARS = 400_000
_KIND = {
    "click": C.INTERACT,
    "long_press": C.INTERACT,
    "type": C.INPUT,
    "key": C.INPUT,
    "swipe": C.NAVIGATE,
    "open": C.NAVIGATE,
    "system_button": C.NAVIGATE,
    "wait": C.WAIT,
    "answer": C.ANSWER,
    "terminate": C.FINISH,
}


def ui_s1_json(action: UIAction, screen: tuple[int, int]) -> str:
    """*action* as UI-S1's action JSON (``action`` and its arguments at one level; points in pixels)."""
    a = action.action
    out: dict[str, Any] = {"action": a}
    if a in ("click", "long_press"):
        assert action.point is not None
        out["coordinate"] = [round(action.point[0]), round(action.point[1])]
    elif a == "swipe":
        start, end = action.finger(screen)
        out["coordinate"], out["coordinate2"] = [round(v) for v in start], [round(v) for v in end]
    elif a in ("type", "open", "answer", "key"):
        out["text"] = action.text
    elif a == "system_button":
        out["button"] = action.button
    elif a == "terminate":
        out["status"] = action.status
    if action.time is not None and a in ("long_press", "wait"):
        out["time"] = action.time
    return json.dumps(out, ensure_ascii=False)


class GuiExperienceEnv(gym.Env):
    """Expert trajectories as an env (see the module docstring).

    Args:
        task: the experiences to draw from: an id (``ContactsAddContact/3``), a simulator task
            name (all its seeds), a tier, a split (``train``/``test``), a comma list or list of
            those, or ``None`` (all of them).
        data: ``"embedded"``, a path of a data set, or a list of experiences.
        data_format: the reader of a path (``auto``, ``ui-s1``, ``androidcontrol``,
            ``gui-odyssey``, ``gui-gym``).
        patch_threshold: ε, the most patches an episode takes (Table 13: 1); 0 ends the episode
            at the first mismatch (AC-Real); ``None`` patches without limit.
        patch: ``thought-free``, ``off-policy`` or a callable (see the module docstring).
        gamma: Eq. 5's discount (0.5).
        rule: ``paper`` (Eq. 3-4 as printed) or ``released`` (the authors' code).
        require_thought: r_format needs a non-empty ``<think>`` as well as a readable action.
        obs_mode: ``text`` (instruction and UI text), ``pixels`` (with the screenshot instead)
            or ``both``.
        ui_format: the simulator's UI text format for the embedded set (``xml``, ``mobilerl``...).
        screen_size: the screenshot's size (width, height).
        max_steps: cut episodes after this many steps (default: twice the trajectory's length,
            which only invalid actions can reach).
        action_dialect: how ``do(...)`` text is read (``GuiAndroid-v0``'s ``action_dialect``).
        invalid: what a response that reads as no action does: ``no-op`` (the env contract: the
            same screen again, reward 0, a step spent) or ``mismatch`` (Alg. 1: patched or the end).
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    family = "gui_gym.experience.family:FAMILY"

    def __init__(
        self,
        task: str | Sequence[str] | None = None,
        data: str | Sequence[Experience] = "embedded",
        data_format: str = "auto",
        patch_threshold: int | None = 1,
        patch: str | Callable[..., str] = "thought-free",
        gamma: float = GAMMA,
        rule: str = "paper",
        require_thought: bool = False,
        obs_mode: str = "text",
        ui_format: str = "xml",
        screen_size: tuple[int, int] = (540, 1200),
        max_steps: int | None = None,
        render_mode: str | None = None,
        action_dialect: str = "androidlab",
        cache_size: int = 64,
        invalid: str = "no-op",
    ) -> None:
        if invalid not in INVALID:
            raise ValueError(f"invalid must be one of {INVALID}, got {invalid!r}")
        if obs_mode not in OBS_MODES:
            raise ValueError(f"obs_mode must be one of {OBS_MODES}, got {obs_mode!r}")
        if rule not in RULES:
            raise ValueError(f"rule must be one of {RULES}, got {rule!r}")
        if not (callable(patch) or patch in PATCHES):
            raise ValueError(f"patch must be one of {PATCHES} or a callable(obs, expert_action, step) -> str")
        if patch_threshold is not None and (isinstance(patch_threshold, bool) or int(patch_threshold) < 0):
            raise ValueError(f"patch_threshold must be a count >= 0 or None (no limit), got {patch_threshold!r}")
        if int(cache_size) < 1:
            raise ValueError(f"cache_size must be at least 1, got {cache_size}")
        if not 0.0 <= float(gamma) <= 1.0:
            raise ValueError(f"gamma must lie in [0, 1], got {gamma}")
        if max_steps is not None and int(max_steps) < 1:
            raise ValueError("max_steps must be positive")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.experiences = load_experiences(data, data_format)
        self.by_id = {e.id: e for e in self.experiences}
        self.pool = select_experiences(self.experiences, task)
        if (
            obs_mode != "pixels"
            and not any(s.ui for e in self.experiences for s in e.steps)
            and not all(e.task is not None and e.seed is not None for e in self.experiences)
        ):
            log.warning("these experiences carry no UI text: obs['ui'] is empty; use obs_mode='pixels' or 'both'")
        self.patch_threshold = None if patch_threshold is None else int(patch_threshold)
        self.patch, self.gamma, self.rule = patch, float(gamma), rule
        self.require_thought, self.obs_mode, self.action_dialect = bool(require_thought), obs_mode, action_dialect
        self.max_steps, self.render_mode, self.invalid = max_steps, render_mode, invalid
        w, h = int(screen_size[0]), int(screen_size[1])
        pixels = obs_mode != "text" or render_mode == "rgb_array"
        self.source: ScreenSource
        own_screens = all(s.ui is not None for e in self.experiences for s in e.steps)
        if not own_screens and all(e.task is not None and e.seed is not None for e in self.experiences):
            self.source = SimScreens(ui_format, pixels, (w, h), cache_size)  # re-rendered on the simulator
        else:
            self.source = DataScreens(pixels, (w, h), _screenshot_loader(self.experiences))
        obs: dict[str, spaces.Space] = {"instruction": AnyText(2_000)}
        if obs_mode != "pixels":
            obs["ui"] = AnyText(MAX_UI_CHARS)
        if obs_mode != "text":
            obs["screen"] = spaces.Box(0, 255, (h, w, 3), np.uint8)
        self.observation_space = spaces.Dict(obs)
        self.action_space = AnyText(20_000)
        self.experience: Experience | None = None
        self._screens: list[Screen] = []
        self._elements: dict[int, list[Any]] = {}
        # parsed screens of recent experiences (parsing a dump costs more than a step)
        self._parsed: OrderedDict[str, dict[int, list[Any]]] = OrderedDict()
        self._cache_size = max(1, int(cache_size))
        self._t = 0
        self._patches = 0
        self._rewards: list[float] = []
        self._matched: list[bool] = []
        self._steps = 0
        self._limit = 0
        self._done = True

    # -- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        super().reset(seed=seed)
        options = options or {}
        pool = select_experiences(self.experiences, options[C.TASK]) if C.TASK in options else self.pool
        exp = pool[int(self.np_random.integers(len(pool)))] if len(pool) > 1 else pool[0]
        self.experience = exp
        self._screens = self.source.screens(exp)
        self._elements = self._parsed.pop(exp.id, {})
        self._parsed[exp.id] = self._elements
        while len(self._parsed) > self._cache_size:
            self._parsed.popitem(last=False)
        self._t, self._patches, self._steps, self._done = 0, 0, 0, False
        self._limit = self.max_steps if self.max_steps is not None else 2 * len(exp)
        self._rewards, self._matched = [], []
        info = self._info(True, "Reset", C.WAIT, [])
        info[C.DIFFICULTY] = exp.difficulty
        info[C.TASK_MILESTONES] = [self._expert_label(t) for t in range(len(exp))]
        info[C.PLACEHOLDERS] = {}
        info["screen_size"] = list(exp.screen)  # the pixels actions are read and scored in
        return self._obs(), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        if self.experience is None or self._done:
            raise gym.error.ResetNeeded("call reset() before step() (the episode has ended)")
        exp, t = self.experience, self._t
        self._steps += 1
        scored = score_step(action, exp.steps[t], exp.screen, self.rule, self.require_thought, self.action_dialect)
        pred = scored.response.action
        if pred is None:
            valid, kind = False, C.INVALID
            description = f"Invalid action: {scored.response.reason}"[:1_000]
        else:
            valid, kind = True, _KIND[pred.action]
            description = describe(pred, self._elements_at(t))
        self._rewards.append(float(scored.reward))
        self._matched.append(scored.matched)
        noop = pred is None and self.invalid == "no-op"
        patched = not (scored.matched or noop) and (
            self.patch_threshold is None or self._patches < self.patch_threshold
        )
        reached: list[str] = []
        if patched:  # written before the episode moves on: an on-policy patch reads this step's screen
            label = self._patch_label(t, self._obs())
        if scored.matched:
            reached = [self._expert_label(t)]
        if scored.matched or patched:
            self._patches += int(patched)
            self._t += 1
        terminated = (not (scored.matched or patched or noop)) or self._t >= len(exp)
        truncated = not terminated and self._steps >= self._limit
        info = self._info(valid, description, kind, reached)
        if not valid:
            info[C.REASON] = scored.response.reason[:1_000]
        info[C.PATCHED] = patched
        info[C.STEP_INDEX] = t
        info[C.EXPERT_ACTION] = ui_s1_json(exp.steps[t].action, exp.screen)
        info["step_score"] = {"format": scored.format, "type": scored.type, "accuracy": scored.accuracy}
        if patched:
            info[C.PATCH_LABEL] = label
        if terminated or truncated:
            self._done = True
            info[C.SUCCESS] = bool(terminated and self._t >= len(exp) and self._patches == 0)
            info[C.EPISODE_REWARDS] = discounted_returns(self._rewards, self._matched, self.gamma)
        return self._obs(), float(scored.reward), terminated, truncated, info

    def render(self) -> Any:
        if self.experience is None:
            return None
        screen = self._screens[min(self._t, len(self._screens) - 1)]
        if self.render_mode == "ansi":
            return f"[{self.experience.goal}]\n{screen.ui}"
        if self.render_mode == "rgb_array":
            return None if screen.pixels is None else screen.pixels.copy()
        return None

    # -- extras ------------------------------------------------------------------------------------
    def oracle_action(self) -> str:
        """The expert's action at this step (UI-S1's JSON)."""
        if self.experience is None or self._done:
            raise gym.error.ResetNeeded("call reset() before oracle_action()")
        return ui_s1_json(self.experience.steps[self._t].action, self.experience.screen)

    @property
    def instruction(self) -> str:
        return self.experience.goal if self.experience is not None else ""

    @property
    def step_index(self) -> int:
        """The index of the expert step the next action is scored against."""
        return self._t

    # -- internals -----------------------------------------------------------------------------------
    def _elements_at(self, t: int) -> list[Any]:
        if t not in self._elements:
            self._elements[t] = screen_elements(self._screens[t].ui)
        return self._elements[t]

    def _expert_label(self, t: int) -> str:
        assert self.experience is not None
        return describe(self.experience.steps[t].action, self._elements_at(t) if self._screens else ())

    def _patch_label(self, t: int, obs: dict[str, Any]) -> str:
        """What the policy's history shows for patched step *t*: the expert action, with a thought
        for off- and on-policy patches (EMPO §3.3)."""
        assert self.experience is not None
        step = self.experience.steps[t]
        thought = ""
        if self.patch == "off-policy":
            thought = step.thought or ""
        elif callable(self.patch):
            thought = str(self.patch(obs, step.action, t) or "")
        action = ui_s1_json(step.action, self.experience.screen)
        return f"<think>{thought}</think><action>{action}</action>" if thought else f"<action>{action}</action>"

    def _obs(self) -> dict[str, Any]:
        assert self.experience is not None
        screen = self._screens[min(self._t, len(self._screens) - 1)]
        obs: dict[str, Any] = {"instruction": self.experience.goal[:2_000]}
        if self.obs_mode != "pixels":
            obs["ui"] = screen.ui[:MAX_UI_CHARS]
        if self.obs_mode != "text":
            assert screen.pixels is not None
            obs["screen"] = screen.pixels.copy()  # cached: the caller gets its own
        return obs

    def _info(self, valid: bool, description: str, kind: str, reached: list[str]) -> dict[str, Any]:
        assert self.experience is not None
        return {
            C.TASK_ID: self.experience.id,
            C.INSTRUCTION: self.experience.goal,
            C.FORMAT_VALID: valid,
            C.ACTION_KIND: kind,
            C.ACTION_DESCRIPTION: description,
            C.MILESTONES: reached,
            C.PROGRESS: sum(self._matched) / len(self.experience),
        }


def load_experiences(data: Any, data_format: str = "auto") -> list[Experience]:
    """The experiences of ``data``: ``"embedded"``, a path (read once per path, format and file
    time, then shared), or a list of :class:`Experience`. Ids must be unique: a data set with two
    episodes of one id would play one of them twice and the other never."""
    if isinstance(data, str) and data == "embedded":
        from gui_gym.experience.embedded import embedded_experiences

        return embedded_experiences()
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        path = os.fsdecode(data)
        try:
            stamp = os.stat(path).st_mtime_ns
        except OSError:
            stamp = None  # the reader says what is missing
        found = list(_read_cached(path, data_format, stamp))
    else:
        found = list(data)
        if not all(isinstance(e, Experience) for e in found):
            raise TypeError("data must be 'embedded', a path, or a list of Experience records")
    if not found:
        raise ValueError(f"no experiences in {data!r}")
    seen: dict[str, int] = {}
    for n, e in enumerate(found):
        if e.id in seen:
            raise ExperienceError(f"{data!r}: experiences {seen[e.id]} and {n} share the id {e.id!r}")
        seen[e.id] = n
    return found


@functools.lru_cache(maxsize=4)
def _read_cached(path: str, data_format: str, stamp: int | None) -> tuple[Experience, ...]:
    from gui_gym.experience.readers import read_experiences

    return tuple(read_experiences(path, data_format))


def _screenshot_loader(pool: Sequence[Experience]) -> Callable[[str], bytes] | None:
    """The reader's screenshot loader where the data's screenshots are references into shards."""
    if any(e.source == "androidcontrol" for e in pool):
        from gui_gym.experience.readers.androidcontrol import load_screenshot

        return load_screenshot
    return None
