"""``MilestoneReward``: ADMIRE's adaptive milestone reward as a Gymnasium wrapper (paper 000).

Per step the wrapper matches the action description against the next unmet milestone (Eq. 8-9)
and adds two terms to ``info["reward_components"]``:

- ``"format"``: η·R_format(t), −η for an invalid action (final as soon as it is given);
- ``"milestone"``: λ(E)·R_mil(t). During the episode it is provisional, λ(E)·r_t^mil at the
  steps that hit a milestone (the outcome is not known yet); at the last step
  ``info["episode_rewards"]`` holds the final R_total(t) = R_outcome + η·R_format(t) +
  λ(E)·R_mil(t) of Alg. 1 line 35, with the asymmetric R_mil of Eq. 10-11.

Milestones come from the task's annotations (``book=None``, "Static (Human)" in Table 3) or from a
:class:`~wrappers.book.MilestoneBook` that distils them from successful episodes and refines them
as the policy improves. Alg. 1 works batch by batch: Phase 1 refines each task's milestones from
the batch's superior success, Phase 2 then credits *every* trajectory of the batch against the
refined milestones. A group trainer gets exactly that with ``batch=True``: the wrapper leaves the
book alone and publishes what :func:`settle_milestones` needs (``info["episode_settle"]``), and
the trainer settles each rollout batch at once, so two identical failures get the same credit
whatever order they finished in. Without a trainer (``batch=False``, one env at a time) a
success updates the book as it ends and is credited against the updated milestones.

Example (the annotated milestones of a task, scored by a stand-in matcher):
    >>> import gymnasium as gym, gui_gym
    >>> class Exact:
    ...     delta = 0.75
    ...     def score(self, action, milestone):
    ...         return 1.0 if action == "Launch Settings" and "Settings" in milestone else 0.0
    >>> env = MilestoneReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn"), matcher=Exact())
    >>> _, info = env.reset(seed=0)
    >>> _, r, *_, info = env.step('do(action="Launch", app="Settings")')
    >>> r, info["reward_components"], info["milestone_hit"]
    (0.3, {'outcome': 0.0, 'format': 0.0, 'milestone': 0.3}, 'Open the Settings app')
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol

import gymnasium as gym

from gui_gym.core.family import family_matching
from gui_gym.core.trajectory import Step, Trajectory
from wrappers.admire import AdmireConfig, Matches, asymmetric_credit, curriculum_weight, match_milestones
from wrappers.book import MilestoneBook, record_trajectory, trajectory_record
from wrappers.generation import abstract, instantiate
from wrappers.protocol import RewardShaping

log = logging.getLogger(__name__)


class Matcher(Protocol):
    """What MilestoneReward needs of a matcher: a score s(a_t, m) and its threshold δ."""

    delta: float

    def score(self, action: str, milestone: str) -> float: ...


def with_family_words(matcher: Matcher, env: Any) -> Matcher:
    """The matcher with the words of ``env``'s family (an env, env id or family;
    :func:`~gui_gym.core.family.family_matching`), when it takes words (``with_vocabulary``) and
    was built without any; otherwise the matcher as it is. An env whose family has no words, or
    that names no family, leaves it as it is: the matcher's world-free rules apply."""
    bind = getattr(matcher, "with_vocabulary", None)
    if bind is None or env is None or getattr(matcher, "vocabulary", None) is not None:
        return matcher
    try:
        vocabulary = family_matching(env)
    except ValueError:  # an unknown id, or an env class without a family
        return matcher
    return bind(vocabulary) if vocabulary is not None else matcher


def _env_id(env: gym.Env) -> str | None:
    spec = getattr(env, "spec", None)
    return getattr(spec, "id", None)


class MilestoneReward(RewardShaping):
    """ADMIRE (Eq. 8-11, Alg. 1 line 35) on any env that keeps the env contract.

    Args:
        env: the env to wrap.
        book: a :class:`MilestoneBook` for adaptive milestones; ``None`` uses the annotated
            milestones the env gives at reset (``info["task_milestones"]``).
        matcher: scores an action description against a milestone (default:
            :class:`~wrappers.matching.SemanticMatcher`, whose encoder and embedding cache every
            matcher of a process shares). A matcher that takes a family's words and has none is
            given the env's (:func:`with_family_words`).
        config: ADMIRE's hyperparameters and ablation switches (:class:`AdmireConfig`).
        epoch: the training epoch E of λ(E) = λ0·γ^E; trainers call :meth:`set_epoch`.
        batch: with a book, leave Phase 1 and the final credit to :func:`settle_milestones`
            over the whole rollout batch (Alg. 1); the credit published at the last step is
            then provisional, against the milestones the batch started with.

    Extra ``info`` keys each step: ``milestone_hit`` (the milestone this step hit, or None) and
    ``milestone_target`` (the next unmet one, or None); at the last step ``milestones_hit`` and
    ``milestones_total`` (k and K of the milestones the episode started with: hit counts and
    coverage, ADMIRE App. B.2 and B.6).
    """

    outcome_dependent = True

    def __init__(
        self,
        env: gym.Env,
        book: MilestoneBook | None = None,
        matcher: Matcher | None = None,
        config: AdmireConfig | None = None,
        epoch: int = 0,
        batch: bool = False,
    ) -> None:
        gym.utils.RecordConstructorArgs.__init__(  # no deep copy: a rebuilt env shares book and matcher
            self, book=book, matcher=matcher, config=config, epoch=epoch, batch=batch, _disable_deepcopy=True
        )
        super().__init__(env)
        self.book = book
        self.batch = bool(batch) and book is not None
        self.config = config or AdmireConfig()
        self._matcher = matcher
        self._bound: Matcher | None = None  # the matcher with the env family's words
        self.epoch = int(epoch)
        self.record_observations = book is not None  # the built-in generator reads them
        # (task, epoch, milestone template); provisional with batch=True: the book has the settled counts
        self.hits: Counter[tuple[str, int, str]] = Counter()
        self._milestones: list[str] = []
        self._templates: list[str] = []
        self._pointer = 0
        self._rewards: list[float] = []
        self._hit_idx: list[int | None] = []
        self._warned: set[str] = set()

    # -- configuration -------------------------------------------------------------------
    @property
    def matcher(self) -> Matcher:
        """The matcher this wrapper scores with: the one given (or the default), with the words of
        the env's family (:func:`with_family_words`)."""
        if self._bound is None:
            if self._matcher is None:  # matchers share one encoder and embedding cache per process
                from wrappers.matching import SemanticMatcher

                self._matcher = SemanticMatcher()
            self._bound = with_family_words(self._matcher, self.env)
        return self._bound

    @property
    def delta(self) -> float:
        return float(self.config.delta if self.config.delta is not None else self.matcher.delta)

    @property
    def weight(self) -> float:
        """λ(E) for the current epoch (λ0 without decay)."""
        c = self.config
        return curriculum_weight(self.epoch, c.lambda0, c.gamma if c.decay else 1.0)

    def set_epoch(self, epoch: int) -> None:
        """Set the training epoch E (Alg. 1 line 3); λ(E) decays as λ0·γ^E."""
        self.epoch = int(epoch)

    def with_config(self, **changes: Any) -> None:
        """Change hyperparameters in place, e.g. ``env.with_config(decay=False)``."""
        self.config = replace(self.config, **changes)

    @property
    def milestones(self) -> list[str]:
        """This episode's milestones, placeholders filled."""
        return list(self._milestones)

    # -- RewardShaping -------------------------------------------------------------------
    def begin(self, info: dict[str, Any]) -> None:
        assert self.episode is not None
        task_id, values = self.episode.task_id, self.episode.meta["placeholders"]
        if self.book is None:
            self._milestones = [str(m) for m in self.episode.meta["task_milestones"]]
            self._templates = [abstract(m, values) for m in self._milestones]
        else:
            self._templates = self.book.templates(task_id)
            self._milestones = [instantiate(t, values) for t in self._templates]
        if not self._milestones and task_id not in self._warned and self.book is None:
            self._warned.add(task_id)
            log.warning("task %s has no annotated milestones: its milestone reward is 0", task_id)
        prepare = getattr(self.matcher, "prepare", None) if self._milestones else None
        if prepare is not None:  # encode the episode's milestones in one batch, not one per step
            prepare(self._milestones)
        self._pointer = 0
        self._rewards, self._hit_idx = [], []
        info["milestone_target"] = self._milestones[0] if self._milestones else None

    def step_terms(self, step: Step, info: dict[str, Any]) -> dict[str, float]:
        r, hit = 0.0, None
        if self._pointer < len(self._milestones):
            s = float(self.matcher.score(step.action_description, self._milestones[self._pointer]))
            if s > self.delta:  # Eq. 9: only against m_{p_t}; the pointer moves only on a hit
                r, hit = s, self._pointer
                self._pointer += 1
        self._rewards.append(r)
        self._hit_idx.append(hit)
        info["milestone_hit"] = self._milestones[hit] if hit is not None else None
        info["milestone_target"] = self._milestones[self._pointer] if self._pointer < len(self._milestones) else None
        if self.last_step:
            info["milestones_hit"], info["milestones_total"] = self._pointer, len(self._milestones)
        return {"format": self._format_term(step.format_valid), "milestone": self.weight * r}

    def episode_terms(self, episode: Trajectory) -> dict[str, list[float]]:
        matches = Matches(self._rewards, self._hit_idx)
        milestones, templates = self._milestones, self._templates
        all_hit = bool(milestones) and matches.count == len(milestones)
        update = self.book is not None and not self.batch and episode.success
        if update and self.book.update(episode, self.epoch, all_hit):  # type: ignore[union-attr]
            # Alg. 1: Phase 1 (milestones from this batch's successes) comes before Phase 2.
            templates = self.book.templates(episode.task_id)
            milestones = [instantiate(t, episode.meta["placeholders"]) for t in templates]
            descriptions = [s.action_description for s in episode.steps]
            matches = match_milestones(descriptions, milestones, self.matcher.score, self.delta)
        hit_templates = [templates[i] for i in matches.hits if i is not None]
        self.hits.update((episode.task_id, self.epoch, t) for t in hit_templates)
        if self.book is not None and not self.batch:
            self.book.record(episode.task_id, hit_templates, self.epoch)
        return {
            "format": [self._format_term(s.format_valid) for s in episode.steps],
            "milestone": milestone_credit(matches, episode.success, len(milestones), self.config, self.epoch),
        }

    def settle_payload(self, episode: Trajectory) -> tuple[str, Any] | None:
        if not self.batch:
            return None
        return SETTLE_TERM, {
            "env": _env_id(self.env),  # whose family's words the matcher uses when the batch is settled
            "placeholders": dict(episode.meta.get("placeholders") or {}),
            "trajectory": trajectory_record(episode) if episode.success else None,
        }

    def close(self) -> None:
        if self.book is not None:
            self.book.flush()
        super().close()

    def _format_term(self, valid: bool) -> float:
        return 0.0 if valid else -self.config.eta


SETTLE_TERM = "milestone"


def milestone_credit(
    matches: Matches, success: bool, n_milestones: int, config: AdmireConfig, epoch: int
) -> list[float]:
    """λ(E)·R_mil(t) per step: Eq. 10-11's asymmetric credit weighted by Alg. 1 line 4's λ(E)."""
    c = config
    weight = curriculum_weight(epoch, c.lambda0, c.gamma if c.decay else 1.0)
    credit = asymmetric_credit(matches, success, n_milestones, c.zeta, c.base_on_success, c.base_on_failure)
    return [weight * x for x in credit]


class SettleEpisode(Protocol):
    """What :func:`settle_milestones` reads and writes of a trainer's episode."""

    task_id: str
    success: bool
    descriptions: list[str]
    settle: dict[str, Any]
    milestones: tuple[int, int] | None

    @property
    def length(self) -> int: ...
    @property
    def group(self) -> int: ...
    @property
    def member(self) -> int: ...
    def set_component(self, name: str, values: Sequence[float]) -> None: ...


def settle_milestones(
    book: MilestoneBook,
    episodes: Sequence[SettleEpisode],
    matcher: Matcher,
    config: AdmireConfig | None = None,
    epoch: int = 0,
) -> int:
    """ADMIRE Alg. 1 over one rollout batch; returns how many tasks' milestones changed.

    Phase 1 (lines 7-16): for each task, the superior success of the batch — the shortest, ties
    broken by group and member, never by finishing order — refines the task's milestones (or
    initialises them). Phase 2 (lines 19-35): every episode of the batch is credited against the
    milestones as they are now (Eq. 8-11, weighted by λ(E)); its ``milestone`` term is replaced
    and its hits are counted in the book. Episodes without a milestone payload (built without
    ``batch=True``) are left as they are. Each episode is matched with the words of its env's
    family (the payload's ``env``, :func:`with_family_words`).
    """
    config = config or AdmireConfig()
    delta = float(config.delta if config.delta is not None else matcher.delta)
    mine = [ep for ep in episodes if isinstance(ep.settle.get(SETTLE_TERM), dict)]
    bound: dict[Any, Matcher] = {}

    def matcher_of(ep: SettleEpisode) -> Matcher:
        env = ep.settle[SETTLE_TERM].get("env")
        if env not in bound:
            bound[env] = with_family_words(matcher, env)
        return bound[env]

    superior: dict[str, tuple[tuple[int, int, int], Trajectory, Matcher]] = {}
    for ep in mine:
        record = ep.settle[SETTLE_TERM].get("trajectory")
        if not ep.success or not isinstance(record, dict):
            continue
        rank = (ep.length, ep.group, ep.member)
        if ep.task_id not in superior or rank < superior[ep.task_id][0]:
            superior[ep.task_id] = (rank, record_trajectory(record), matcher_of(ep))
    changed = 0
    for task_id in sorted(superior):
        _, trajectory, scorer = superior[task_id]
        current = book.milestones(task_id, trajectory.meta.get("placeholders") or {})
        descriptions = [s.action_description for s in trajectory.steps]
        hit_all = bool(current) and match_milestones(descriptions, current, scorer.score, delta).count == len(current)
        changed += book.update(trajectory, epoch, hit_all)
    for ep in mine:
        placeholders = ep.settle[SETTLE_TERM].get("placeholders") or {}
        templates = book.templates(ep.task_id)
        milestones = [instantiate(t, placeholders) for t in templates]
        matches = match_milestones(ep.descriptions, milestones, matcher_of(ep).score, delta)
        ep.set_component(SETTLE_TERM, milestone_credit(matches, ep.success, len(milestones), config, epoch))
        book.record(ep.task_id, [templates[i] for i in matches.hits if i is not None], epoch)
        ep.milestones = (matches.count, len(milestones))
    return changed
