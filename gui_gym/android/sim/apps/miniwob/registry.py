"""MobileMiniWoB++: AndroidWorld's MiniWoB tasks on the phone (``task="miniwob"``, 92 tasks;
``task="miniwob-subset"``, the 62 of papers' subset AndroidWorld registers).

Each task is one MiniWoB++ page (:mod:`.pages`) in the Miniwob app, with AndroidWorld's id
(``MiniWobClickButton`` for ``click-button``), its goal (``Follow the instructions shown on the
top of the screen: <the page's utterance>``), its success rule (the page's raw reward is exactly
1.0), its end (the episode ends as soon as the page has given a non-zero reward) and its step limit
(30). The page's own reward is in ``info["page_reward"]`` (raw) and ``info["page_reward_time"]``
(MiniWoB++'s time-discounted one) at every step.

A reset loads the page afresh (AndroidWorld's app reloads it for every task), seeds the page's
random numbers with the instance's seed (``Math.seedrandom``; AndroidWorld passes none, so its
problems are random: here a seed fixes the problem), and starts the episode as AndroidWorld's app
does. The tasks need Chromium (:data:`~gui_gym.android.sim.web.chromium.INSTALL_HINT`) and the
``miniwob`` package; the rest of the phone needs neither.

Experts (:mod:`.experts`) read the page's DOM and act through the phone for the tasks they cover;
the others have none (``oracle`` raises), and train from the outcome.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from gui_gym.android.sim.apps.miniwob import experts
from gui_gym.android.sim.apps.miniwob.app import load_task, web_view
from gui_gym.android.sim.apps.miniwob.pages import (
    GOAL,
    NAMES,
    STATE,
    STEP_LIMIT,
    SUBSET,
    class_name,
)
from gui_gym.android.sim.tasks.base import Oracle, Params, TaskTemplate
from gui_gym.android.sim.web.chromium import BrowserError

if TYPE_CHECKING:
    from gui_gym.android.sim.device import Device

SUITE = "miniwob"
SUBSET_NAME = "miniwob-subset"


def page_state(dev: Device) -> tuple[bool, float, float, str | None]:
    """The page's episode state: done, raw reward, time-discounted reward, reason (a page that
    failed, or is no task page, has given nothing)."""
    try:
        done, raw, reward, reason = web_view(dev).read(STATE)
    except (BrowserError, TypeError, ValueError) as e:
        return False, 0.0, 0.0, f"no page state ({e})"
    return bool(done), float(raw or 0.0), float(reward or 0.0), reason


class MiniWobTask(TaskTemplate):
    """One MiniWoB++ page as AndroidWorld runs it (see the module)."""

    suite: ClassVar[str] = SUITE
    app: ClassVar[str] = "miniwob"
    #: AndroidWorld gives MiniWoB no difficulty (every task has complexity 3: the 30 steps)
    difficulty: ClassVar[str] = "medium"
    template: ClassVar[str] = GOAL
    step_limit: ClassVar[int | None] = STEP_LIMIT
    requires: ClassVar[tuple[str, ...]] = ("browser",)
    page: ClassVar[str] = ""

    def sample(self, rng: np.random.Generator) -> Params:
        return self.sample_seed(int(rng.integers(2**31)))

    def sample_seed(self, seed: int) -> Params:
        return {"task_name": self.page, "seed": int(seed)}

    def setup(self, dev: Device, params: Params, rng: np.random.Generator) -> None:
        try:
            params["utterance"] = load_task(dev, self.page, int(params["seed"]))
        except BrowserError:
            web_view(dev).browser.restart()  # a page that hangs or crashed: a fresh browser next reset
            raise
        dev.launch("miniwob")

    def instruction(self, params: Params) -> str:
        return GOAL.format(utterance=params.get("utterance", ""))

    def check(self, dev: Device, params: Params, answer: str | None, status: str | None) -> bool:
        """AndroidWorld's ``is_successful``: the page's raw reward is exactly 1."""
        return page_state(dev)[1] == 1.0

    def ended(self, dev: Device, params: Params) -> bool:
        """AndroidWorld's ``is_episode_terminated``: the page has given a non-zero reward."""
        return page_state(dev)[1] != 0.0

    def info(self, dev: Device, params: Params) -> dict[str, Any]:
        done, raw, reward, _ = page_state(dev)
        return {"page_reward": raw, "page_reward_time": reward, "page_done": done}

    def oracle(self, o: Oracle) -> str:
        expert = experts.EXPERTS.get(self.page)
        if expert is None:
            raise NotImplementedError(f"{self.id} has no expert: it trains from the outcome")
        return expert(o, web_view(o.dev))


def _task(name: str) -> type[MiniWobTask]:
    subsets = (SUBSET_NAME,) if name in SUBSET else ()
    return type(
        class_name(name),
        (MiniWobTask,),
        {
            "id": class_name(name),
            "page": name,
            "subsets": subsets,
            "tags": ("miniwob", *(("expert",) if name in experts.EXPERTS else ())),
            "__doc__": f"MiniWoB++'s ``{name}`` page.",
        },
    )


TEMPLATES = [_task(name) for name in NAMES]
