"""AndroidControl-Real (EMPO §4.1, App. F): offline evaluation that tracks online success.

The agent plays each expert trajectory greedily on the expert's screens, its history its own
outputs, and the episode stops at the first action that does not match the expert's (a
``GuiExperience-v0`` with ``patch_threshold=0``). With N tasks, s_i steps matched before the stop
and t_i the expert trajectory's length:

``PG = (1/N)·Σ s_i/t_i``, ``TSR = (1/N)·Σ I[s_i = t_i]``, ``Score = (PG + TSR)/2``.

EMPO reports R² = 0.934 between this score and AndroidWorld success over its models.

A step matches by App. C's rules as ``GuiExperience-v0`` applies them (``rule="paper"``, the
default): a click on the expert's element (its box ×1.2) or within 0.04 of its point, swipes by
direction, text by relaxed match; a response that reads as no action is a mismatch.
``rule="released"`` is the authors' evaluator (``evaluation/qwenvl_utils.py``), which departs from
App. C without saying so: it checks no swipe direction, accepts a click on any candidate box and
on an ``open`` step's app icon, and fails the whole task where it raises. (Its driver,
``eval_qwenvl.py``, also drops the data's candidate boxes before the check, so the published
numbers judged clicks by distance alone.)

Example (a scripted agent: right on the first step of every task, then a wait):
    >>> from gui_gym.experience.embedded import embedded_experiences
    >>> from gui_gym.experience.tasks import select_experiences
    >>> pool = select_experiences(embedded_experiences(), "test:ClockStopWatchRunning")
    >>> def act(obs, info, env):  # the expert's first action, then a wait
    ...     return env.oracle_action() if env.step_index == 0 else '{"action": "wait"}'
    >>> result = evaluate(act, pool)
    >>> result.progress, round(result.pg, 4), result.tsr, round(result.score, 4)   # 1 of 4 steps each
    ([(1, 4), (1, 4)], 0.25, 0.0, 0.125)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gui_gym.experience.record import Experience

__all__ = ["ACRealResult", "ac_real_metrics", "evaluate"]


@dataclass(frozen=True)
class ACRealResult:
    """PG, TSR and Score over the tasks, with each task's ``(s_i, t_i)`` in ``progress``."""

    pg: float
    tsr: float
    score: float
    progress: list[tuple[int, int]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"tasks": len(self.progress), "PG": self.pg, "TSR": self.tsr, "Score": self.score}


def ac_real_metrics(progress: Sequence[tuple[int, int]], ids: Sequence[str] = ()) -> ACRealResult:
    """App. F's metrics from each task's ``(s_i, t_i)``."""
    if not progress:
        raise ValueError("AC-Real needs at least one task")
    for s, t in progress:
        if not (0 <= s <= t and t > 0):
            raise ValueError(f"(s, t) = ({s}, {t}): s counts matched steps of a trajectory of t > 0 steps")
    n = len(progress)
    pg = sum(s / t for s, t in progress) / n
    tsr = sum(s == t for s, t in progress) / n
    return ACRealResult(pg, tsr, (pg + tsr) / 2, list(progress), list(ids))


def evaluate(
    act: Callable[..., str],
    experiences: Sequence[Experience] | str = "embedded",
    task: str | Sequence[str] | None = None,
    reset: Callable[[int], None] | None = None,
    rule: str = "paper",
    **env_kwargs: Any,
) -> ACRealResult:
    """Run ``act(obs, info, env)`` (or ``act(obs, info)``) over every selected experience once,
    stopping each at its first mismatch; *reset(seed)* is called before each episode (a
    policy's ``reset``). *env_kwargs* go to ``GuiExperienceEnv`` (``obs_mode``...).

    ``rule="paper"`` matches steps as the env does; ``rule="released"`` is the authors' evaluator
    (:func:`gui_gym.experience.released.released_verdict`: any candidate box, open by a click on
    the app's icon, swipes by type alone; where it raises, the task counts 0 matched steps, as
    its driver counts it)."""
    import inspect

    from gui_gym.core.contract import MILESTONES, PATCH_LABEL, PATCHED
    from gui_gym.experience.env import GuiExperienceEnv
    from gui_gym.experience.released import released_verdict

    if rule not in ("paper", "released"):
        raise ValueError(f"rule must be 'paper' or 'released', got {rule!r}")
    fixed = {"patch_threshold", "invalid", "task", "data", "rule"} & set(env_kwargs)
    if fixed:
        raise ValueError(f"AC-Real fixes {', '.join(sorted(fixed))}: the episode stops at the first mismatch")
    # under the released evaluator the env only shows the screens: every step moves on, and the
    # verdict here decides where the task stops
    threshold = 0 if rule == "paper" else None
    env = GuiExperienceEnv(task=task, data=experiences, patch_threshold=threshold, invalid="mismatch", **env_kwargs)
    takes_env = len(inspect.signature(act).parameters) >= 3
    progress, ids = [], []
    for i, exp in enumerate(env.pool):
        if reset is not None:
            reset(i)
        obs, info = env.reset(seed=i, options={"task": exp.id})
        matched = 0
        while True:
            t = env.step_index
            action = act(obs, info, env) if takes_env else act(obs, info)
            obs, _, terminated, truncated, info = env.step(action)
            if rule == "paper":
                matched += not info[PATCHED] and bool(info[MILESTONES])
            else:
                try:
                    _, exact = released_verdict(action, exp.steps[t], exp.screen)
                except Exception:  # the released driver fails the whole task
                    matched, exact = 0, False
                matched += exact
                terminated = terminated or not exact
                info = {k: v for k, v in info.items() if k not in (PATCHED, PATCH_LABEL)}  # its own history
            if terminated or truncated:
                break
        progress.append((matched, len(exp)))
        ids.append(exp.id)
    env.close()
    return ac_real_metrics(progress, ids)
