"""The env contract in code: the key names, the action kinds, and a checker.

Every gui-gym env keeps one contract, whatever its family, so that reward wrappers, trainers
and policies work on all of them (``ARCHITECTURE.md``, "The env contract"):

- the Gymnasium API exactly, with spaces declared and ``render_mode`` in ``metadata``;
- the constructor takes ``task=`` (an id, a list of ids, a tier, or ``None`` for all) and
  ``max_steps=``; ``reset(options={"task": ...})`` picks the task of that episode;
- an action that cannot be parsed or applied changes nothing, costs a step, and is reported
  (``format_valid=False``, a ``reason``, ``action_kind="invalid"``), never raised;
- ``info`` uses the names below, the same everywhere (:class:`StepInfo`).

Packages read and write the keys through these constants, never as string literals, so a
renamed key is a one-line change and a typo is an ``AttributeError``.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn")
    >>> _, info = env.reset(seed=0, options={TASK: "ClockStopWatchRunning"})
    >>> info[TASK_ID], info[DIFFICULTY]
    ('ClockStopWatchRunning', 'easy')
    >>> _, _, _, _, info = env.step("not an action")
    >>> info[FORMAT_VALID], info[ACTION_KIND]
    (False, 'invalid')
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict

import gymnasium as gym
import numpy as np

from gui_gym.core.task import DIFFICULTIES

__all__ = [
    "ACTION_DESCRIPTION",
    "ACTION_KIND",
    "ACTION_KINDS",
    "ADMISSIBLE_ACTIONS",
    "ANSWER",
    "DIFFICULTIES",
    "DIFFICULTY",
    "EPISODE_REWARDS",
    "EPISODE_REWARD_COMPONENTS",
    "EPISODE_SETTLE",
    "EPISODE_TRAJECTORY_TERMS",
    "EXPERT_ACTION",
    "FEEDBACK_KEYS",
    "FINISH",
    "FORMAT_VALID",
    "GUIDANCE",
    "GUIDANCE_LEVEL",
    "INPUT",
    "INSTRUCTION",
    "INTERACT",
    "INVALID",
    "MILESTONES",
    "NAVIGATE",
    "PARAMS",
    "PATCHED",
    "PATCH_LABEL",
    "PLACEHOLDERS",
    "PROGRESS",
    "REASON",
    "REWARD_COMPONENTS",
    "STEP_INDEX",
    "SUCCESS",
    "TASK",
    "TASK_ID",
    "TASK_MILESTONES",
    "WAIT",
    "ContractError",
    "StepInfo",
    "check_contract",
]

# -- info keys -----------------------------------------------------------------------------
#: At reset and every step: the task template's id, the instruction, the tier.
TASK_ID = "task_id"
INSTRUCTION = "instruction"
DIFFICULTY = "difficulty"
#: Optional, where the family can list them: the actions that apply now (text, in the env's syntax).
ADMISSIBLE_ACTIONS = "admissible_actions"
#: Every step: the action parsed and was applicable (ADMIRE's R_format); else ``reason`` says why.
FORMAT_VALID = "format_valid"
REASON = "reason"
#: Every step: one of :data:`ACTION_KINDS`.
ACTION_KIND = "action_kind"
#: Every step: what the action did, grounded in its target.
ACTION_DESCRIPTION = "action_description"
#: Every step: the annotated milestones reached at this step, and the share reached so far.
MILESTONES = "milestones"
PROGRESS = "progress"
#: At the terminal (or truncating) step: a programmatic check on env state.
SUCCESS = "success"
#: Added by reward wrappers: each named term of the step reward.
REWARD_COMPONENTS = "reward_components"
#: At the last step, when a reward depends on the outcome: the final per-step rewards (and per term).
EPISODE_REWARDS = "episode_rewards"
EPISODE_REWARD_COMPONENTS = "episode_reward_components"
#: With them: the components that are one trajectory-level value repeated at every step (the
#: outcome, SPA's adjustment), as opposed to rewards earned step by step.
EPISODE_TRAJECTORY_TERMS = "episode_trajectory_terms"
#: With them, from terms a group trainer settles over the whole batch (ADMIRE's adaptive
#: milestones): a JSON text of what each such term needs (``wrappers.spec.settle_batch``).
EPISODE_SETTLE = "episode_settle"
#: At reset, where the env has them: this instance's annotated milestones and their slot values.
TASK_MILESTONES = "task_milestones"
PLACEHOLDERS = "placeholders"
#: Experience envs (EMPO §3.3): the action was patched (the expert's replaced it in the history),
#: the expert's action of this step, the label a policy's history shows for a patched step, and
#: the index of the expert step this action was scored against.
PATCHED = "patched"
EXPERT_ACTION = "expert_action"
PATCH_LABEL = "patch_label"
STEP_INDEX = "step_index"
#: Experience guidance (UI-Mem): the observation's guidance text for the policy (empty without
#: guidance), and in ``info`` the level the episode got ("strong", "weak" or "none").
GUIDANCE = "guidance"
GUIDANCE_LEVEL = "guidance_level"

# -- env metadata --------------------------------------------------------------------------
#: ``metadata[FEEDBACK_KEYS]``: observation keys that report the last action's outcome (a text
#: game's "Nothing happens."); an invalid action may change them, the same way every time, and
#: nothing else.
FEEDBACK_KEYS = "feedback_keys"

# -- reset options -------------------------------------------------------------------------
#: ``reset(options={TASK: ...})``: the task of this episode (an id, a list, a tier).
TASK = "task"
#: ``reset(options={PARAMS: {...}})``: override sampled task parameters, where the family has them.
PARAMS = "params"
#: ``reset(options={GUIDANCE: "strong"})``: the guidance level of this episode, where a
#: guidance wrapper is on the env (``wrappers.memory.GuidanceWrapper``).

# -- action kinds --------------------------------------------------------------------------
#: Acts on an element or object of the world (tap, long press, take, open, heat …).
INTERACT = "interact"
#: Writes text or keys into the world (type into a field, press Enter, search for a query).
INPUT = "input"
#: Moves the view or the agent without changing the world (scroll, Back, Home, launch an app, go to).
NAVIGATE = "navigate"
#: Leaves the world as it was: wait, look around, check the inventory.
WAIT = "wait"
#: Ends the episode with an answer to a question.
ANSWER = "answer"
#: Ends the episode (done, or infeasible).
FINISH = "finish"
#: Could not be parsed or applied; changed nothing.
INVALID = "invalid"
ACTION_KINDS = (INTERACT, INPUT, NAVIGATE, WAIT, ANSWER, FINISH, INVALID)


class StepInfo(TypedDict, total=False):
    """The ``info`` of a step (and of reset, which has the first group of keys)."""

    task_id: str
    instruction: str
    difficulty: str
    admissible_actions: list[str]
    task_milestones: list[str]
    placeholders: dict[str, str]
    format_valid: bool
    reason: str
    action_kind: str
    action_description: str
    milestones: list[str]
    progress: float
    success: bool
    reward_components: dict[str, float]
    episode_rewards: list[float]
    episode_reward_components: dict[str, list[float]]
    episode_trajectory_terms: list[str]
    episode_settle: str


class ContractError(AssertionError):
    """An env breaks the contract; the message names the rule and what was seen."""


# -- the checker ---------------------------------------------------------------------------

_INVALID_ACTIONS = ("this is not an action", "", "do(action=", '{"action_type": 42}')


def check_contract(
    env: gym.Env | str,
    *,
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    actions: Callable[[Any, dict[str, Any]], Sequence[Any]] | None = None,
    max_episode_steps: int = 60,
    invalid_action: Any = None,
) -> None:
    """Check that ``env`` (an env or a registered id) keeps the gui-gym env contract.

    Runs Gymnasium's ``check_env`` on the unwrapped env, then checks: the reset keys and their
    types; that an invalid action is a reported no-op (same observation, ``format_valid``
    False, a ``reason``, ``action_kind == "invalid"``) and costs a step; the step keys and their
    types over a whole episode (observation keys the env lists in ``metadata["feedback_keys"]`` may
    report the no-op, identically for a second one); ``success`` at the last step; seeded determinism (two resets with
    one seed and the same actions give equal observations and infos); and that
    ``reset(options={"task": id})`` runs that task, for the family's tasks.

    ``actions(obs, info)`` gives the applicable actions at a step (default: the family's
    admissible actions, :func:`gui_gym.core.family.family_of`); the checker takes the first.
    Raises :class:`ContractError` naming the broken rule.
    """
    from gymnasium.utils.env_checker import check_env

    from gui_gym.core.family import family_of

    kwargs = dict(env_kwargs or {})
    if isinstance(env, str):
        make = lambda: gym.make(env, disable_env_checker=True, **kwargs)  # noqa: E731
    else:
        spec = env.spec
        if spec is None:
            raise ContractError("check_contract needs a registered env (env.spec is None) or an env id")
        make = lambda: gym.make(spec, disable_env_checker=True, **kwargs)  # noqa: E731
    family = family_of(env)
    if actions is None:
        actions = lambda obs, info: [c.action for c in family.admissible_actions(obs, info)]  # noqa: E731

    first = make()
    try:
        check_env(first.unwrapped, skip_render_check=True)
        _require("render_modes" in first.unwrapped.metadata, "metadata has no 'render_modes'")
    finally:
        first.close()

    env_a, env_b = make(), make()
    try:
        transcript = _episode(env_a, seed, actions, max_episode_steps, invalid_action)
        again = _episode(env_b, seed, actions, max_episode_steps, invalid_action)
        _require(_same(transcript, again), f"two episodes with seed={seed} and the same actions differ")
        _check_task_option(env_a, family, seed)
    finally:
        env_a.close()
        env_b.close()


def _episode(
    env: gym.Env, seed: int, actions: Callable[[Any, dict[str, Any]], Sequence[Any]], limit: int, invalid: Any
) -> list[Any]:
    obs, info = env.reset(seed=seed)
    _require(env.observation_space.contains(obs), "the reset observation is not in observation_space")
    _check_reset_info(info)
    out: list[Any] = [copy.deepcopy(obs), _plain(info)]

    # An invalid action: reported, a step, no change.
    bad = invalid if invalid is not None else _INVALID_ACTIONS[0]
    obs2, reward, terminated, truncated, info = env.step(bad)
    _check_step_info(info, terminated or truncated)
    _require(info[FORMAT_VALID] is False, f"an invalid action {bad!r} gave format_valid={info[FORMAT_VALID]!r}")
    _require(isinstance(info.get(REASON), str) and info[REASON], "an invalid action gave no 'reason'")
    _require(info[ACTION_KIND] == INVALID, f"an invalid action gave action_kind={info[ACTION_KIND]!r}")
    _require(not terminated, "an invalid action ended the episode")
    if not truncated:
        feedback = tuple(env.unwrapped.metadata.get(FEEDBACK_KEYS, ()))
        _require(_same(_without(obs, feedback), _without(obs2, feedback)), "an invalid action changed the observation")
        if feedback:  # the feedback of a no-op is the same every time
            obs3, _, _, truncated, _ = env.step(bad)
            if not truncated:
                _require(_same(obs2, obs3), "two invalid actions in a row gave different observations")
    out += [copy.deepcopy(obs2), float(reward), _plain(info)]

    done = terminated or truncated
    steps = 1
    while not done:
        options = list(actions(obs2, info))
        _require(bool(options), "the family lists no admissible action on a live screen")
        obs2, reward, terminated, truncated, info = env.step(options[0])
        steps += 1
        _require(env.observation_space.contains(obs2), f"step {steps}: the observation is not in observation_space")
        _require(isinstance(reward, (int, float, np.floating)), f"step {steps}: the reward is {type(reward).__name__}")
        _check_step_info(info, terminated or truncated)
        out += [copy.deepcopy(obs2), float(reward), bool(terminated), bool(truncated), _plain(info)]
        done = terminated or truncated
        if steps >= limit and not done:
            raise ContractError(f"no episode end after {limit} steps; the env needs a step limit (max_steps)")
    return out


def _check_reset_info(info: dict[str, Any]) -> None:
    for key in (TASK_ID, DIFFICULTY):
        _require(isinstance(info.get(key), str) and bool(info[key]), f"reset info[{key!r}] must be a non-empty string")
    _require(isinstance(info.get(INSTRUCTION), str), "reset info['instruction'] must be a string")
    _require(info[DIFFICULTY] in DIFFICULTIES, f"info['difficulty'] must be one of {DIFFICULTIES}")
    if ADMISSIBLE_ACTIONS in info:
        _require(isinstance(info[ADMISSIBLE_ACTIONS], list), "info['admissible_actions'] must be a list")


def _check_step_info(info: dict[str, Any], last: bool) -> None:
    types: dict[str, type | tuple[type, ...]] = {
        TASK_ID: str, INSTRUCTION: str, FORMAT_VALID: bool, ACTION_KIND: str, ACTION_DESCRIPTION: str,
        MILESTONES: list, PROGRESS: (int, float),
    }  # fmt: skip
    for key, kind in types.items():
        _require(isinstance(info.get(key), kind), f"step info[{key!r}] must be {kind}, got {info.get(key)!r}")
    _require(info[ACTION_KIND] in ACTION_KINDS, f"info['action_kind']={info[ACTION_KIND]!r} not in {ACTION_KINDS}")
    _require(all(isinstance(m, str) for m in info[MILESTONES]), "info['milestones'] must be a list of strings")
    _require(0.0 <= float(info[PROGRESS]) <= 1.0, f"info['progress']={info[PROGRESS]!r} is outside [0, 1]")
    if not info[FORMAT_VALID]:
        _require(info[ACTION_KIND] == INVALID, "an action with format_valid=False must have action_kind 'invalid'")
    if last:
        _require(isinstance(info.get(SUCCESS), bool), f"the last step's info['success'] must be a bool, got "
                 f"{info.get(SUCCESS)!r}")  # fmt: skip
    if REWARD_COMPONENTS in info:
        comps = info[REWARD_COMPONENTS]
        _require(isinstance(comps, dict) and all(isinstance(v, (int, float)) for v in comps.values()),
                 "info['reward_components'] must map names to numbers")  # fmt: skip


def _check_task_option(env: gym.Env, family: Any, seed: int) -> None:
    tasks = [t.id for t in family.tasks(None)]
    _require(bool(tasks), "the family lists no tasks")
    for tid in (tasks[0], tasks[-1], tasks[len(tasks) // 2]):
        _, info = env.reset(seed=seed, options={TASK: tid})
        _require(info[TASK_ID] == tid, f"reset(options={{'task': {tid!r}}}) ran {info[TASK_ID]!r}")


def _without(obs: Any, keys: tuple[str, ...]) -> Any:
    return {k: v for k, v in obs.items() if k not in keys} if isinstance(obs, dict) and keys else obs


def _plain(info: dict[str, Any]) -> dict[str, Any]:
    """``info`` without values that hold no data to compare (numpy arrays are compared as lists)."""
    return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in info.items()}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (a != a and b != b)
    return bool(a == b)


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise ContractError(message)
