"""ProgRM's outcome reward model (ORM) baseline: its training examples and its wrapper (paper 001).

ProgRM compares progress rewards with an ORM trained on the trajectories' outcomes alone (§3.1,
"Reward model training data": "For ORM training, we use the overall success or failure label of
each trajectory"; "w/ ORM" in Table 1, the ORM rows of Tables 2-3). Here the ORM is the same
network as the progress model (:class:`~wrappers.progress.model.ProgressModel`, Eq. 5-6) read at
a trajectory's *final* state ``[g, a_1, …, a_T, o_{T+1}]`` and trained with the same BCE (Eq. 5)
on the label 1 (success) or 0 (failure):

- :func:`outcome_examples`: one :class:`~wrappers.progress.data.ProgressExample` per trajectory,
  for :func:`wrappers.progress.training.train_progress_model`;
- :class:`OutcomeModelReward`: the ORM's verdict on the final state in place of the env's success
  check, so an agent can be trained on a learned outcome (the "w/ ORM" actor of Table 1);
- :class:`WithoutOutcome`: no outcome at all, for training on a progress model's gains alone (the
  "ProgRM" actors of Table 1).

Training balance: :func:`~wrappers.progress.training.train_progress_model` (``balance_failed=True``, App. C)
keeps every success example and samples as many failure examples when failures are more, drawn
anew each epoch. With one example per trajectory this is a 1:1 balance of *trajectories*: an
epoch has ``2 × #successes`` examples (all of them when successes are the majority), so the ORM's
prior is ≈ 0.5 and ``threshold=0.5`` is the balanced decision point. Its epochs are short
(hundreds of examples rather than thousands of states), so it takes few gradient steps per
epoch. The validation loss is not balanced.

Example (the examples of one successful trajectory):
    >>> from gui_gym.core.trajectory import Step, Trajectory
    >>> t = Trajectory("ClockStopWatchRunning", "Start the stopwatch.", success=True, steps=[
    ...     Step('do(action="Launch", app="Clock")', observation="home", action_description="Launch Clock",
    ...          progress=0.5),
    ...     Step('finish()', observation="clock", action_description="Finish the task", progress=1.0)],
    ...     meta={"final_observation": "clock (running)"})
    >>> [(e.history, e.observation, e.label, e.env_label, e.final) for e in outcome_examples([t])]
    [(('Launch Clock', 'Finish the task'), 'clock (running)', 1.0, 1.0, True)]
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, SupportsFloat

import gymnasium as gym

from gui_gym.core import contract as C
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.progress.data import ProgressExample, action_text, examples
from wrappers.progress.observation import observation_reader
from wrappers.progress.reward import ModelArg, load_model
from wrappers.protocol import OUTCOME, RewardShaping

__all__ = ["OutcomeModelReward", "WithoutOutcome", "outcome_examples"]


def _env_progress_recorded(trajectory: Trajectory) -> bool:
    """Whether the log carries the env's progress (a ``Step.progress`` of 0.0 is also the default)."""
    return "task_milestones" in trajectory.meta or any(s.milestones or s.progress for s in trajectory.steps)


def outcome_examples(trajectories: Sequence[Trajectory], index_offset: int = 0) -> list[ProgressExample]:
    """The ORM's training examples: the final state of each non-empty trajectory, labelled 1 or 0.

    Each example reads the goal, every action (:func:`~wrappers.progress.data.action_text`) and
    the screen after the last one, as the final example of
    :func:`~wrappers.progress.data.examples` does; ``label`` is the outcome (§3.1), ``key`` and
    ``final`` are set, and ``env_label`` is the env's progress after the last step when the log
    recorded it. ``trajectory`` is ``index_offset`` plus the position in ``trajectories`` (empty
    trajectories are skipped but keep their position), so the examples line up with the progress
    examples of the same list.
    """
    out = []
    for i, t in enumerate(trajectories):
        if not t.steps:
            continue
        recorded = [float(s.progress) for s in t.steps] if _env_progress_recorded(t) else None
        # The last state exactly as the progress model reads it; only its label differs.
        last = examples(t, [0.0] * len(t.steps), env_labels=recorded, index=index_offset + i)[-1]
        out.append(replace(last, label=1.0 if t.success else 0.0, key=True))
    return out


class OutcomeModelReward(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """A learned ORM's verdict on the final state in place of the env's outcome reward (ProgRM §3.1).

    ``GuiAndroid-v0``'s reward is the outcome only: 0.0 at every step but the last, and at the last
    (terminated or truncated) step 1.0 if its programmatic check passed. This wrapper keeps that
    shape with the ORM as the judge: reward 0.0 at every non-final step and, at the last step, the
    ORM's score ``p`` of ``[g, a_1, …, a_T, o_{T+1}]`` (goal ``info["instruction"]``, the action
    history as :func:`~wrappers.progress.data.action_text`, the final screen as the family's
    ``observation_text``): ``1.0 if p ≥ threshold else 0.0`` with ``binary``, ``p`` itself
    otherwise. Any reward the env gives is replaced.

    It must wrap the env directly (shaping wrappers go above it, :func:`wrappers.spec.make_env` puts
    it innermost): every step it sets ``info["reward_components"] = {"outcome": reward}``, so the
    :class:`~wrappers.protocol.RewardShaping` wrappers stacked on it take the ORM's verdict as
    their outcome term. At the last step it also reports ``info["orm_score"]`` (``p``) and
    ``info["env_reward"]`` (what the env would have paid). ``info["success"]`` is left as the env's
    ground truth, for metrics; note that outcome-dependent wrappers above (ADMIRE's asymmetric
    credit, SPA's shortest successes) read it, not the ORM.

    Args:
        env: an env keeping the gui-gym contract (``info["instruction"]``,
            ``info["action_description"]``, ``info["format_valid"]``); the ORM reads its
            observations as its family's ``observation_text``.
        model: an ORM checkpoint path (``orm/best.pt`` of :mod:`agents.study.reward_models`) or a
            loaded model (anything with ``predict_texts(goals, histories, observations)``).
        threshold: the score at or above which the ORM says "success".
        binary: reward the verdict (1/0); ``False``: reward the score itself.
        device: where a checkpoint is loaded.

    Example (a stand-in ORM that believes an episode that ends with Wi-Fi switched on):
        >>> import gymnasium as gym, gui_gym, numpy as np
        >>> class Judge:
        ...     def predict_texts(self, goals, histories, screens):
        ...         return np.array([0.9 if 'Switch "ON" (checked)' in s else 0.2 for s in screens])
        >>> env = OutcomeModelReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), model=Judge())
        >>> _ = env.reset(seed=0)
        >>> rewards, done = [], False
        >>> while not done:
        ...     _, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
        ...     rewards.append(r)
        ...     done = term or trunc
        >>> rewards, info["orm_score"], info["env_reward"], info["success"], info["reward_components"]
        ([0.0, 0.0, 0.0, 1.0], 0.9, 1.0, True, {'outcome': 1.0})
    """

    def __init__(
        self, env: gym.Env, model: ModelArg, threshold: float = 0.5, binary: bool = True, device: str = "cpu"
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(  # no deep copy: a rebuilt env shares a loaded model
            self, model=model, threshold=threshold, binary=binary, device=device, _disable_deepcopy=True
        )
        gym.Wrapper.__init__(self, env)
        inner = env
        while isinstance(inner, gym.Wrapper):  # a shaping wrapper inside would see the env's outcome
            if isinstance(inner, RewardShaping | OutcomeModelReward):
                raise ValueError(
                    f"OutcomeModelReward must wrap the env directly, not {type(inner).__name__}: "
                    "put the shaping wrappers above it"
                )
            inner = inner.env
        if (isinstance(model, str) and model == "env") or not (
            isinstance(model, str | os.PathLike) or hasattr(model, "predict_texts")
        ):
            raise TypeError(f"model must be an outcome-model checkpoint path or a loaded model, got {model!r}")
        self.model = load_model(model, device)
        self.observation_text = observation_reader(env)  # what the ORM reads of a screen
        self.threshold, self.binary = float(threshold), bool(binary)
        self.goal = ""
        self.history: list[str] = []  # a_1 … a_t as the ORM reads them
        self.observation: Any = None  # the latest observation

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.goal = str(info.get(C.INSTRUCTION, ""))
        self.history, self.observation = [], obs
        return obs, info

    def score(self) -> float:
        """The ORM's score of the current state (goal, actions so far, latest screen)."""
        screen = self.observation_text(self.observation)
        return float(self.model.predict_texts([self.goal], [list(self.history)], [screen])[0])

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        self.goal = str(info.get(C.INSTRUCTION, self.goal))
        # The same Step fields the rollout logs record, so the ORM reads what it was trained on.
        self.history.append(action_text(Step.from_info(action, info)))
        self.observation = obs
        reward = 0.0
        if terminated or truncated:
            score = self.score()
            reward = (1.0 if score >= self.threshold else 0.0) if self.binary else score
            info["orm_score"] = score
            info["env_reward"] = float(env_reward)
        info[C.REWARD_COMPONENTS] = {OUTCOME: reward}
        return obs, reward, terminated, truncated, info


class WithoutOutcome(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """The env's success check pays nothing: the reward is the shaping terms above alone.

    ProgRM trains its actor on the reward model's output alone (§2.4, Table 1: the RL signal is
    the progress gains of Eq. 2, never the environment's evaluation function, which a real GUI
    task does not have). Wrapped innermost, under :class:`~wrappers.progress.reward.ProgressReward`,
    every step reports ``{"outcome": 0.0}`` so the progress gains are the whole reward; the
    episode's true ``info["success"]`` is untouched (evaluation and metrics still read it) and
    the env's own reward is kept as ``info["env_reward"]`` at the last step.

    Example:
        >>> import gymnasium as gym, gui_gym
        >>> env = WithoutOutcome(gym.make("GuiAndroid-v0", task="ClockStopWatchRunning"))
        >>> _ = env.reset(seed=0)
        >>> done, rewards = False, []
        >>> while not done:
        ...     _, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
        ...     rewards.append(r); done = term or trunc
        >>> rewards, info["success"], info["env_reward"], info["reward_components"]
        ([0.0, 0.0, 0.0, 0.0], True, 1.0, {'outcome': 0.0})
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        inner = env
        while isinstance(inner, gym.Wrapper):  # a shaping wrapper inside would have seen the outcome
            if isinstance(inner, RewardShaping | OutcomeModelReward | WithoutOutcome):
                raise ValueError(
                    f"WithoutOutcome must wrap the env directly, not {type(inner).__name__}: "
                    "put the shaping wrappers above it"
                )
            inner = inner.env

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        obs, env_reward, terminated, truncated, info = self.env.step(action)
        info = dict(info)
        if terminated or truncated:
            info["env_reward"] = float(env_reward)
        info[C.REWARD_COMPONENTS] = {OUTCOME: 0.0}
        return obs, 0.0, terminated, truncated, info
