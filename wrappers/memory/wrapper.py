"""UI-Mem on any env: guidance in the observation, and the guidance-aware reward (§3.3, Eq. 4-5).

:class:`GuidanceWrapper` gives an episode the guidance of the level named in its reset options
(``reset(options={"guidance": "strong"})``; a default otherwise): it retrieves the task's
workflow and experience from an :class:`~wrappers.memory.store.ExperienceMemory`, filled with
the episode's slot values (``info["placeholders"]``), and adds the rendered text to the
observation under ``"guidance"`` (empty without guidance), where the policies read it. The
level the episode really got is ``info["guidance_level"]``: ``"none"`` when the memory had
nothing for the task, whatever was asked.

:class:`GuidanceReward` is Eq. 5::

    R(τ) = λ_o · r_outcome + λ_p · r_progress + α · 1[guidance(τ) = none] · r_outcome

with Eq. 4's ``r_progress = |S_completed| / |S_total|``, here the share of the task's milestones
(essential states) reached, ``info["progress"]`` (1 on success: a success completes the task even
where a milestone was skipped). Its terms are ``uimem_progress`` (λ_p·r_progress), ``uimem_bonus``
(the unguided success bonus) and, when λ_o ≠ 1, ``uimem_outcome`` ((λ_o − 1)·r_outcome, so that the
components still add up to R(τ)); each is one value per trajectory, paid at the last step.

The paper gives no values for λ_o, λ_p and α; the defaults here are ours: λ_o = 1 (the outcome
keeps the scale it has under every other term), λ_p = 0.5 and α = 0.2.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> from wrappers.memory import ExperienceMemory
    >>> memory = ExperienceMemory()
    >>> memory.add_workflow("SystemWifiTurnOn", ["Open Settings", "Turn Wi-Fi on"])
    >>> env = GuidanceReward(GuidanceWrapper(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), memory))
    >>> obs, info = env.reset(seed=0, options={"guidance": "weak"})
    >>> obs["guidance"], info["guidance_level"]
    ('1.Open Settings\\n2.Turn Wi-Fi on', 'weak')
    >>> while True:
    ...     obs, r, term, trunc, info = env.step(env.unwrapped.oracle_action())
    ...     if term or trunc:
    ...         break
    >>> info["reward_components"]  # a guided success: no bonus
    {'outcome': 1.0, 'uimem_progress': 0.5, 'uimem_bonus': 0.0}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import gymnasium as gym

from gui_gym.core import contract as C
from gui_gym.core.spaces import AnyText
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.memory.evolve import EpisodeRecord
from wrappers.memory.guidance import check_level
from wrappers.memory.store import ExperienceMemory
from wrappers.memory.templates import abstract
from wrappers.protocol import RewardShaping

__all__ = ["GuidanceReward", "GuidanceWrapper"]

#: the longest guidance text an observation carries (characters)
MAX_GUIDANCE_CHARS = 4000
#: a path-backed memory gets the uses counted by one wrapper written after this many episodes (and at
#: close): the counts reach other processes within a few episodes without a file write per reset
FLUSH_EVERY = 16
#: the reset info key of the task's scene (what the memory keys its subtasks by)
SCENE = "guidance_scene"
#: the name of the term's batch payload (``info["episode_settle"]``)
SETTLE_TERM = "uimem"


class GuidanceWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds the guidance of the episode's level to the observation (see the module docstring).

    Args:
        env: an env with a dict observation space.
        memory: the experience memory (shared by all envs of a run).
        level: the level of an episode whose reset options name none (``"none"``: unguided).
        scene: the scene (app) of a task, for the subtask lookup: a mapping or function of the
            task id (default: the task's app, as the env's family lists it).
    """

    def __init__(
        self,
        env: gym.Env,
        memory: ExperienceMemory | None = None,
        level: str = "none",
        scene: Mapping[str, str] | Callable[[str], str] | None = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, memory=memory, level=level, scene=scene, _disable_deepcopy=True)
        super().__init__(env)
        if not isinstance(env.observation_space, gym.spaces.Dict):
            raise TypeError(f"GuidanceWrapper needs a dict observation space, not {env.observation_space}")
        self.memory = memory if memory is not None else ExperienceMemory()
        self.level = check_level(level)
        self._scene = scene
        self._apps: dict[str, str] | None = None
        self.observation_space = gym.spaces.Dict(
            {**env.observation_space.spaces, C.GUIDANCE: AnyText(max_length=MAX_GUIDANCE_CHARS)}
        )
        self._text, self._level = "", "none"
        self._unwritten = 0  # retrievals whose uses this copy has not written to the memory's file

    def scene_of(self, task_id: str) -> str:
        """The scene a task's subtasks are keyed by."""
        if callable(self._scene):
            return str(self._scene(task_id))
        if self._scene is not None:
            return str(self._scene.get(task_id, ""))
        if self._apps is None:
            from gui_gym.core.family import family_of

            try:
                self._apps = {t.id: t.app for t in family_of(self.env).tasks(None)}
            except (ValueError, TypeError):  # an env without a family: one scene
                self._apps = {}
        return self._apps.get(task_id, "")

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        options = dict(options or {})
        asked = check_level(options.pop(C.GUIDANCE, self.level))
        obs, info = self.env.reset(seed=seed, options=options)
        values = dict(info.get(C.PLACEHOLDERS) or {})
        task_id = info[C.TASK_ID]
        scene = self.scene_of(task_id)
        guidance = self.memory.retrieve(
            task_id, asked, values=values, scene=scene, instruction=abstract(info.get(C.INSTRUCTION, ""), values)
        )
        self._unwritten += 1
        if self.memory.path is not None and self._unwritten >= FLUSH_EVERY:
            self._flush()
        self._text = guidance.render(asked)[:MAX_GUIDANCE_CHARS]
        self._level = asked if self._text else "none"
        info[C.GUIDANCE_LEVEL] = self._level
        info[C.GUIDANCE] = self._text
        info[SCENE] = scene
        return self._observe(obs), info

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        info[C.GUIDANCE_LEVEL] = self._level
        return self._observe(obs), reward, terminated, truncated, info

    def _observe(self, obs: dict[str, Any]) -> dict[str, Any]:
        return {**obs, C.GUIDANCE: self._text}

    def _flush(self) -> None:
        """Write the uses counted here into the memory's file: a worker's copy (AsyncVectorEnv,
        Ray) is never written back otherwise."""
        self.memory.flush()
        self._unwritten = 0

    def close(self) -> None:
        if self.memory.path is not None and self._unwritten:
            self._flush()
        super().close()


class GuidanceReward(RewardShaping):
    """Eq. 5, the guidance-aware reward (see the module docstring); reads ``info["guidance_level"]``."""

    outcome_dependent = True
    trajectory_terms = ("uimem_progress", "uimem_bonus", "uimem_outcome")

    def __init__(self, env: gym.Env, outcome: float = 1.0, progress: float = 0.5, bonus: float = 0.2) -> None:
        gym.utils.RecordConstructorArgs.__init__(self, outcome=outcome, progress=progress, bonus=bonus)
        super().__init__(env)
        for name, v in (("outcome", outcome), ("progress", progress), ("bonus", bonus)):
            if not v >= 0:
                raise ValueError(f"Eq. 5's weights are >= 0; {name}={v!r}")
        self.weights = (float(outcome), float(progress), float(bonus))
        self._guided = False
        self._final: dict[str, float] = {}

    def begin(self, info: dict[str, Any]) -> None:
        self._level = str(info.get(C.GUIDANCE_LEVEL, "none"))
        self._guided = self._level != "none"
        self._scene = str(info.get(SCENE, ""))
        self._reasons: list[str] = []
        self._final = {}

    def terms(self, success: bool, progress: float, guided: bool) -> dict[str, float]:
        """Eq. 5's terms beyond the outcome already paid (pure: tested by hand)."""
        lam_o, lam_p, alpha = self.weights
        r_outcome = 1.0 if success else 0.0
        r_progress = 1.0 if success else min(1.0, max(0.0, float(progress)))
        out = {"uimem_progress": lam_p * r_progress, "uimem_bonus": alpha * (not guided) * r_outcome}
        if lam_o != 1.0:
            out["uimem_outcome"] = (lam_o - 1.0) * r_outcome
        return out

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        self._reasons.append("" if step.format_valid else str(info.get(C.REASON, "")))
        zero = {k: 0.0 for k in self.terms(False, 0.0, True)}
        if not self.last_step:
            return zero
        assert self.episode is not None
        self._final = self.terms(self.episode.success, float(info.get(C.PROGRESS, 0.0) or 0.0), self._guided)
        return dict(self._final)

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        n = len(episode.steps)
        return {k: [v] * n for k, v in self._final.items()}

    def settle_payload(self, episode: Trajectory) -> tuple[str, Any] | None:
        """The episode as the self-evolving update reads it (:class:`~wrappers.memory.evolve.EpisodeRecord`)."""
        record = EpisodeRecord(
            task_id=episode.task_id, instruction=episode.instruction,
            milestones=[str(m) for m in episode.meta.get(C.TASK_MILESTONES) or []], success=episode.success,
            steps=[(s.action_description, list(s.milestones), s.format_valid, r)
                   for s, r in zip(episode.steps, self._reasons, strict=False)],
            placeholders=dict(episode.meta.get(C.PLACEHOLDERS) or {}), scene=self._scene, level=self._level,
        )  # fmt: skip
        return SETTLE_TERM, record.to_dict()
