"""Stable-Baselines3 baselines on gui-gym: candidate slots as a ``Discrete`` action with a mask.

SB3 needs numeric spaces; a gui-gym env observes text and acts in text. :class:`CandidateSlots`
bridges the two over any env that keeps the env contract, through its family (``gui_gym.core.family``):

- **actions** — the family's admissible actions (on the phone, those of the visible screen)
  fill ``slots`` slots; the action is ``Discrete(slots)``, the index of a slot, and
  :meth:`CandidateSlots.action_masks` marks the filled slots (sb3-contrib's MaskablePPO
  protocol). An empty or out-of-range slot sends an unparsable action: the env reports
  ``format_valid=False`` and the step is spent, as for any invalid action — it never raises.
- **observations** — one ``Box(-1, 1, float32)`` vector from the sentence encoder
  (all-MiniLM-L6-v2 by default, ``d`` = 384): the goal embedding (``d``), the screen embedding
  (``d``, the normalised mean of the embeddings of the family's observation items), then per slot
  ``[cos(goal, candidate), kind one-hot (the family's candidate_kinds), random projection
  (proj_dim), valid]``.
  The projection is a fixed, seeded Gaussian matrix followed by L2 normalisation, so it keeps
  the candidates' angles roughly (Johnson-Lindenstrauss) in a few dims and every feature lies in
  [-1, 1]. :meth:`CandidateSlots.unflatten` splits a vector back into these parts.

Why ``Discrete`` + mask and not ``MultiDiscrete`` (kind x target): the admissible actions of a
screen are not a product of independent choices (a swipe needs a scrollable element, typing
needs a text field, an answer is a screen text), and MaskablePPO masks each ``MultiDiscrete``
dimension on its own, so it cannot forbid a bad pair. One slot per admissible action is exact.

Rewards are the step rewards of the wrappers inside (SB3 learns from them as they come). The
final per-step vector ``info["episode_rewards"]`` that outcome-dependent shaping publishes at the
last step (ADMIRE's asymmetric credit) cannot be written back into SB3's rollout buffer; SB3
therefore sees ADMIRE's provisional milestone rewards and SPA's adjustment on the last step.

Install the extra for the trainers: ``pip install -e ".[sb3]"``.

Example:
    >>> import gymnasium as gym, gui_gym
    >>> env = CandidateSlots(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), slots=64)
    >>> obs, info = env.reset(seed=0)
    >>> obs.shape, obs.dtype, env.action_space
    ((2624,), dtype('float32'), Discrete(64))
    >>> mask = env.action_masks()
    >>> int(mask.sum()) == len(env.candidates), env.candidates[0].label
    (True, 'tap "Contacts"')
    >>> obs, reward, terminated, truncated, info = env.step(63)  # an empty slot: a spent no-op
    >>> info["format_valid"], terminated
    (False, False)
    >>> sb3_env = make_sb3_env(task="SystemWifiTurnOn", reward="progress")  # doctest: +SKIP
    >>> model = train_sb3("maskable_ppo", sb3_env, total_timesteps=20_000)  # doctest: +SKIP
    >>> evaluate_sb3(model, sb3_env, episodes=20)["success_rate"]  # doctest: +SKIP
    1.0
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from gui_gym.core import contract as C
from gui_gym.core.family import Candidate, family_of, text_items
from wrappers.spec import RewardState, make_env, parse_reward

__all__ = ["ALGOS", "CandidateSlots", "evaluate_sb3", "make_sb3_env", "train_sb3"]

#: What :func:`train_sb3` trains.
ALGOS = ("maskable_ppo", "ppo")
#: The action an empty or out-of-range slot sends: it does not parse, so the env spends a step on it.
NOOP_ACTION = "noop(empty candidate slot)"
INSTALL_HINT = (
    'the SB3 baselines need stable-baselines3 and sb3-contrib: pip install -e ".[sb3]" '
    "(or pip install 'stable-baselines3>=2.9.2' 'sb3-contrib>=2.9.2')"
)

Encoder = Any  # an object with .encode(texts) -> unit vectors [n, d], e.g. wrappers.matching.SemanticMatcher


class CandidateSlots(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """SB3-compatible spaces over a text GUI env: encoded candidate slots, ``Discrete`` + mask.

    Args:
        env: an env keeping the gui-gym contract, of any family (its
            :func:`~gui_gym.core.family.family_of` lists the candidates, its text and
            instruction), possibly inside reward wrappers.
        slots: the number of candidate slots K, the size of ``Discrete(K)``. The first K
            candidates fill them (on the phone the lister keeps Back, Home, the app launches,
            finish and infeasible when it has to cut, so keep K >= 16).
        encoder: a local sentence-transformers directory, an object with
            ``encode(texts) -> [n, d]`` unit vectors (a :class:`~wrappers.matching.SemanticMatcher`),
            or ``None`` for the embedded all-MiniLM-L6-v2. Loaded here: ``d`` sizes the space.
        proj_dim: the size of each candidate's random projection.
        proj_seed: the seed of the projection matrix (the same in every copy of the env, so a
            vector env's sub-envs share one feature map).
        candidates: ``obs -> list[Candidate]``; default the family's admissible actions, at
            most ``slots`` of them.

    After each reset and step, :attr:`candidates` holds the candidates of the current slots.
    At the end of an episode ``info["is_success"]`` copies ``info["success"]`` (SB3 logs it as
    ``rollout/success_rate``); every other ``info`` key passes through untouched.
    """

    def __init__(
        self,
        env: gym.Env,
        slots: int = 64,
        encoder: str | os.PathLike[str] | Encoder | None = None,
        proj_dim: int = 16,
        proj_seed: int = 0,
        candidates: Callable[[dict[str, Any]], list[Candidate]] | None = None,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(
            self,
            slots=slots,
            encoder=encoder,
            proj_dim=proj_dim,
            proj_seed=proj_seed,
            candidates=candidates,
            _disable_deepcopy=True,  # a copy shares the (large) encoder
        )
        super().__init__(env)
        self.family = family_of(env)
        try:  # an observation without text (pixels only) cannot be read
            self.family.observation_text(env.observation_space.sample(), full=True)
        except ValueError as e:
            raise ValueError(f"CandidateSlots reads observations as text: {e}") from e
        if int(slots) < 1 or int(proj_dim) < 1:
            raise ValueError(f"slots and proj_dim must be positive, got slots={slots}, proj_dim={proj_dim}")
        self.slots, self.proj_dim = int(slots), int(proj_dim)
        self.encoder = _encoder(encoder)
        probe = np.asarray(self.encoder.encode(["go back"]), dtype=np.float32)
        if probe.ndim != 2 or probe.shape[0] != 1:
            raise ValueError(f"encoder.encode must return one row per text, got shape {probe.shape}")
        self.dim = int(probe.shape[1])
        # Columns of a Gaussian matrix: the projection keeps angles, then norms are reset to 1.
        self.projection = np.random.default_rng(proj_seed).standard_normal((self.dim, self.proj_dim)).astype(np.float32)
        self._candidates_fn = candidates or functools.partial(self._admissible, limit=self.slots)
        kinds = tuple(self.family.candidate_kinds)
        self._kind_index = {k: i for i, k in enumerate(kinds)}
        self.slot_size = 1 + len(kinds) + self.proj_dim + 1
        #: Where each feature sits in one slot's row of :meth:`unflatten`'s ``"slots"``.
        self.slot_layout: dict[str, slice] = {
            "cosine": slice(0, 1),
            "kind": slice(1, 1 + len(kinds)),
            "projection": slice(1 + len(kinds), 1 + len(kinds) + self.proj_dim),
            "valid": slice(self.slot_size - 1, self.slot_size),
        }
        size = 2 * self.dim + self.slots * self.slot_size
        self.observation_space = spaces.Box(-1.0, 1.0, (size,), np.float32)
        self.action_space = spaces.Discrete(self.slots)
        self.candidates: list[Candidate] = []

    # -- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._features(obs), info

    def step(self, action: Any) -> tuple[np.ndarray, SupportsFloat, bool, bool, dict[str, Any]]:
        slot = self._slot(action)
        text = self.candidates[slot].action if slot is not None else NOOP_ACTION
        obs, reward, terminated, truncated, info = self.env.step(text)
        if terminated or truncated:
            info["is_success"] = bool(info.get(C.SUCCESS, False))
        return self._features(obs), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """``True`` for the slots that hold a candidate (sb3-contrib's MaskablePPO reads this)."""
        mask = np.zeros(self.slots, dtype=bool)
        mask[: len(self.candidates)] = True
        return mask

    def unflatten(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """Split an observation into ``goal`` [d], ``screen`` [d] and ``slots`` [K, slot_size].

        Works on a batch too (leading dims are kept): a custom SB3 features extractor can score
        the slots with one shared network.
        """
        x = np.asarray(observation)
        d = self.dim
        return {
            "goal": x[..., :d],
            "screen": x[..., d : 2 * d],
            "slots": x[..., 2 * d :].reshape(*x.shape[:-1], self.slots, self.slot_size),
        }

    # -- internals -----------------------------------------------------------------------
    def _admissible(self, obs: Any, limit: int) -> list[Candidate]:
        return self.family.admissible_actions(obs, None, limit)

    def _slot(self, action: Any) -> int | None:
        try:
            arr = np.asarray(action)
            if arr.size != 1 or not np.issubdtype(arr.dtype, np.integer):
                return None
            slot = int(arr.reshape(()))
        except (TypeError, ValueError):
            return None
        return slot if 0 <= slot < len(self.candidates) else None

    def _features(self, obs: Any) -> np.ndarray:
        self.candidates = list(self._candidates_fn(obs))[: self.slots]
        items = text_items(self.family.observation_text(obs))
        labels = [c.label for c in self.candidates]
        # One call: texts seen before (most of them, after warm-up) come from the encoder's cache.
        emb = np.asarray(self.encoder.encode([self.family.instruction(obs), *items, *labels]), np.float32)
        goal, screen, cand = emb[0], emb[1 : 1 + len(items)], emb[1 + len(items) :]
        screen_vec = _unit(screen.mean(axis=0)) if len(items) else np.zeros(self.dim, np.float32)
        rows = np.zeros((self.slots, self.slot_size), np.float32)
        n = len(cand)
        if n:
            lay = self.slot_layout
            rows[:n, lay["cosine"]] = (cand @ goal)[:, None]
            kinds = [self._kind_index.get(c.kind) for c in self.candidates]  # unknown kinds: all zeros
            for i, k in enumerate(kinds):
                if k is not None:
                    rows[i, lay["kind"].start + k] = 1.0
            rows[:n, lay["projection"]] = _unit(cand @ self.projection)
            rows[:n, lay["valid"]] = 1.0
        out = np.concatenate([goal, screen_vec, rows.ravel()]).astype(np.float32)
        return np.clip(out, -1.0, 1.0, out=out)  # cosines of unit vectors may overshoot by rounding


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)).astype(np.float32)


def _encoder(encoder: Any) -> Any:
    if encoder is None or isinstance(encoder, str | os.PathLike):  # (a str has .encode too)
        from wrappers.matching import SemanticMatcher

        return SemanticMatcher(model=encoder)
    if not callable(getattr(encoder, "encode", None)):
        raise TypeError(f"encoder must be a model directory, an object with encode(texts), or None; got {encoder!r}")
    return encoder


# ----------------------------------------------------------------------------- builders


def make_sb3_env(
    task: str | Sequence[str] | None = "easy",
    reward: str = "outcome",
    slots: int = 64,
    encoder: str | os.PathLike[str] | Encoder | None = None,
    seed: int = 0,
    monitor: bool = True,
    env_id: str = "GuiAndroid-v0",
    state: RewardState | None = None,
    spa_alpha: float = 1.0,
    **env_kwargs: Any,
) -> gym.Env:
    """``env_id`` → the reward wrappers of a spec → :class:`CandidateSlots` → SB3's ``Monitor``.

    The reward wrappers come from :func:`wrappers.spec.make_env`, the builder ``gui-gym train``
    uses, so one spec gives the same wrapper chain under both trainers.

    Args:
        task: what ``gym.make(env_id, task=...)`` takes: an id, a list, a tier, ``None``.
        reward: a reward spec (:mod:`wrappers.spec`): ``"outcome"`` (the env's 0/1),
            ``"milestone"`` (ADMIRE, :class:`~wrappers.MilestoneReward`), ``"spa"`` (MobileRL,
            :class:`~wrappers.ShortestPathReward`), ``"progress"`` (ProgRM,
            :class:`~wrappers.ProgressReward`, the env's own progress; ``"progress=CKPT"`` a
            trained progress model), or several joined with ``+``.
        slots: the candidate slots (``Discrete(slots)``).
        encoder: the sentence encoder (see :class:`CandidateSlots`); the milestone matcher uses
            the same one.
        seed: seeds the first reset and the action space.
        monitor: wrap in ``stable_baselines3.common.monitor.Monitor`` (episode returns and
            lengths for SB3's logs). Pass ``False`` under ``make_vec_env``, which adds its own.
        env_id: the registered env id (any env keeping the env contract with text observations).
        state: the reward state to share between envs (milestone book, SPA's T_min, loaded
            models); ``None``: this env's own.
        spa_alpha: SPA's α (MobileRL Eq. 2).
        **env_kwargs: passed to ``gym.make`` (``max_steps``, ``ui_format`` …).

    With several envs: ``make_vec_env(lambda: make_sb3_env(..., monitor=False), n_envs=4)``.
    """
    parse_reward(reward)  # a bad spec fails before the encoder loads
    enc = _encoder(encoder)  # one encoder (and embedding cache) for the matcher and the features
    matcher = enc if hasattr(enc, "score") else None
    env = make_env(env_id, task, reward, state=state, spa_alpha=spa_alpha, matcher=matcher, **env_kwargs)
    env = CandidateSlots(env, slots=slots, encoder=enc)
    if monitor:
        try:
            from stable_baselines3.common.monitor import Monitor
        except ImportError as e:
            raise ImportError(f"monitor=True: {INSTALL_HINT}; or pass monitor=False") from e
        env = Monitor(env)
    env.reset(seed=seed)
    env.action_space.seed(seed)
    return env


#: Small-policy PPO settings sized for a CPU (short rollouts, a 2 x 128 MLP).
DEFAULTS: dict[str, Any] = {
    "n_steps": 256,
    "batch_size": 64,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "gae_lambda": 0.95,
    "ent_coef": 0.01,
    "policy_kwargs": {"net_arch": [128, 128]},
    "device": "cpu",
    "verbose": 0,
}


def _algorithm(algo: str) -> type:
    if algo not in ALGOS:
        raise ValueError(f"algo must be one of {ALGOS}, got {algo!r}")
    try:
        if algo == "maskable_ppo":
            from sb3_contrib import MaskablePPO

            return MaskablePPO
        from stable_baselines3 import PPO

        return PPO
    except ImportError as e:
        raise ImportError(f"train_sb3(algo={algo!r}): {INSTALL_HINT}") from e


def train_sb3(
    algo: str = "maskable_ppo",
    env: Any = None,
    total_timesteps: int = 20_000,
    seed: int = 0,
    policy: str | type = "MlpPolicy",
    learn_kwargs: dict[str, Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Train ``MaskablePPO`` (sb3-contrib) or ``PPO`` on ``env`` and return the model.

    Args:
        algo: ``"maskable_ppo"`` (reads :meth:`CandidateSlots.action_masks`) or ``"ppo"``
            (samples any slot; empty ones are spent no-ops).
        env: a gym env or SB3 ``VecEnv`` with SB3-compatible spaces (:func:`make_sb3_env`).
        total_timesteps: env steps to train for.
        seed: seeds the model, torch and the env.
        policy: the SB3 policy (``"MlpPolicy"``).
        learn_kwargs: extra arguments of ``model.learn`` (``callback``, ``progress_bar`` …).
        **kwargs: the algorithm's arguments; they override :data:`DEFAULTS`.
    """
    cls = _algorithm(algo)
    if env is None:
        raise ValueError("train_sb3 needs an env: env=make_sb3_env(task=..., reward=...)")
    if int(total_timesteps) < 1:
        raise ValueError(f"total_timesteps must be positive, got {total_timesteps}")
    model = cls(policy, env, seed=seed, **{**DEFAULTS, **kwargs})
    model.learn(total_timesteps=int(total_timesteps), **(learn_kwargs or {}))
    return model


def evaluate_sb3(
    model: Any, env: gym.Env, episodes: int = 20, deterministic: bool = True, seed: int | None = None
) -> dict:
    """Run ``episodes`` episodes of ``model`` on a (non-vector) env built like :func:`make_sb3_env`.

    A masking model (MaskablePPO) gets :meth:`CandidateSlots.action_masks` each step. Returns
    ``success_rate``, ``mean_return``, ``mean_length`` and ``empty_slot_rate`` (the share of
    actions that chose a slot with no candidate: 0 for a masking model).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be positive, got {episodes}")
    masking = "action_masks" in inspect.signature(model.predict).parameters
    masks = env.get_wrapper_attr("action_masks")
    successes, returns, lengths, empty, steps = 0, [], [], 0, 0
    for ep in range(episodes):
        obs, _ = env.reset(seed=seed if ep == 0 else None)
        total, done, n = 0.0, False, 0
        while not done:
            mask = masks()
            kw = {"action_masks": mask} if masking else {}
            action, _ = model.predict(obs, deterministic=deterministic, **kw)
            empty += int(not mask[int(action)]) if 0 <= int(action) < len(mask) else 1
            obs, r, terminated, truncated, info = env.step(action)
            total, n, done = total + float(r), n + 1, terminated or truncated
        successes += int(bool(info.get(C.SUCCESS, False)))
        returns.append(total)
        lengths.append(n)
        steps += n
    return {
        "success_rate": successes / episodes,
        "mean_return": float(np.mean(returns)),
        "mean_length": float(np.mean(lengths)),
        "empty_slot_rate": empty / steps,
    }
