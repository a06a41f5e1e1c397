"""Training examples for the progress model, one per state of a labelled trajectory.

ProgRM's model reads ``s_t = [a_1, …, a_{t−1}, o_t]`` with the goal ``g`` (Eq. 5-6). A
trajectory of ``n`` steps has ``n + 1`` states: state 0 is the screen after reset (no action
yet, progress 0) and state ``t`` is the screen after action ``t``, whose label is the
progress label of step ``t``. Observations come from ``Step.observation`` (the screen each
action was taken on) and ``meta["final_observation"]`` (the screen after the last action),
both the family's compact observation text (:meth:`gui_gym.core.family.EnvFamily.observation_text`).

Example:
    >>> from gui_gym.core.trajectory import Step, Trajectory
    >>> t = Trajectory("ClockStopWatchRunning", "Start the stopwatch.", steps=[
    ...     Step('do(action="Launch", app="Clock")', observation="home", action_description="Launch Clock"),
    ...     Step('finish()', observation="clock", action_description="Finish the task")],
    ...     meta={"final_observation": "clock"})
    >>> [(e.step, e.history, e.observation, e.label) for e in examples(t, labels=[0.5, 1.0])]
    [(0, (), 'home', 0.0), (1, ('Launch Clock',), 'clock', 0.5), (2, ('Launch Clock', 'Finish the task'), 'clock', 1.0)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gui_gym.core.trajectory import Step, Trajectory

__all__ = ["ProgressExample", "action_text", "examples", "observations_after"]


@dataclass(frozen=True)
class ProgressExample:
    """One state of one trajectory with its progress label."""

    goal: str
    history: tuple[str, ...]  # a_1 … a_t as text (action descriptions where recorded)
    observation: str  # compact screen text after a_t
    label: float  # target progress in [0, 1]
    task_id: str = ""
    trajectory: int = 0  # index of the trajectory in its source list
    step: int = 0  # 0: the state after reset; t: after action t
    key: bool = False  # a key step of its label source
    env_label: float | None = None  # progress from the env's milestones, when recorded
    final: bool = False  # the last state of its trajectory
    success: bool = False  # the trajectory's outcome


def action_text(step: Step) -> str:
    """What the model reads of an action: the env's grounded description, else the raw action."""
    text = (step.action_description or "").strip() or str(step.action).strip()
    return text if step.format_valid else f"invalid action: {text}"


def observations_after(trajectory: Trajectory) -> list[str]:
    """The screen after each step: the next step's ``observation``, then ``meta["final_observation"]``."""
    steps = trajectory.steps
    after = [steps[i + 1].observation for i in range(len(steps) - 1)]
    if steps:
        after.append(str(trajectory.meta.get("final_observation", steps[-1].observation)))
    return after


def examples(
    trajectory: Trajectory,
    labels: Sequence[float],
    key_steps: Sequence[bool] | None = None,
    env_labels: Sequence[float] | None = None,
    index: int = 0,
) -> list[ProgressExample]:
    """The ``n + 1`` examples of an ``n``-step trajectory whose per-step labels are ``labels``."""
    n = len(trajectory.steps)
    if len(labels) != n:
        raise ValueError(f"{len(labels)} labels for a trajectory of {n} steps")
    key_steps = [False] * n if key_steps is None else list(key_steps)
    env = [None] * n if env_labels is None else list(env_labels)
    first = trajectory.steps[0].observation if n else str(trajectory.meta.get("final_observation", ""))
    common = dict(goal=trajectory.instruction, task_id=trajectory.task_id, trajectory=index, success=trajectory.success)
    out = [ProgressExample(history=(), observation=first, label=0.0, step=0, env_label=0.0, final=n == 0, **common)]
    history: list[str] = []
    for t, (step, after) in enumerate(zip(trajectory.steps, observations_after(trajectory), strict=True), 1):
        history.append(action_text(step))
        out.append(
            ProgressExample(
                history=tuple(history),
                observation=after,
                label=float(labels[t - 1]),
                step=t,
                key=bool(key_steps[t - 1]),
                env_label=None if env[t - 1] is None else float(env[t - 1]),
                final=t == n,
                **common,
            )
        )
    return out
