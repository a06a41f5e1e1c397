"""Reward specs: one registry of shaping terms, the parser, and the builder every trainer uses.

A reward spec joins shaping terms with ``+`` (any order; each wraps the one before). The terms
are the entries of :data:`TERMS`:

========================  ==========================================================================
``outcome``               the env's own reward (no wrapper)
``orm=PATH``              a learned outcome reward model's verdict instead of the env's check
``no-outcome``            no outcome: the other terms alone (ProgRM trains on ``no-outcome+progress=PATH``)
``milestone``             ADMIRE with the task's annotated milestones ("static", ADMIRE Table 3)
``milestone-adaptive``    ADMIRE with a :class:`~wrappers.MilestoneBook` distilled from successes
``progress``              oracle progress: Eq. 2's gains of the env's own milestone progress (an
                          upper bound; ProgRM's "ProgRM Env" is a *model* trained on those labels,
                          ``progress=PATH``)
``progress=PATH``         ProgRM progress reward from a trained progress model checkpoint
``spa``                   MobileRL's shortest-path adjustment: T_min is the group's shortest success
                          under a group trainer, a running minimum per instance otherwise
========================  ==========================================================================

e.g. ``milestone+spa``. The milestone terms take ADMIRE's ablation switches (App. B.3) after
``=``, comma-separated: ``base-success`` (k/K also on successes), ``no-base-failure`` (no k/K on
failures), ``no-decay`` (λ stays λ0), ``cosine`` (the paper's own matcher, Eq. 8-9: pure cosine at δ = 0.75, in
place of the guarded one), and the decay itself, ``gamma:G`` (λ = λ0·G^E; 0.99 in ADMIRE, for
runs of fewer epochs than the paper's), e.g. ``milestone-adaptive=no-decay``. ``orm`` and
``no-outcome`` replace the outcome, so they are always the innermost wrapper whatever their place
in the spec. A term named
twice, an unknown term or option, a missing or unexpected argument, and two terms of one group
(``milestone`` and ``milestone-adaptive``) are ``ValueError``s that say what to write instead.

The terms read only the env contract (:mod:`gui_gym.core.contract`), so a spec works on every
env that keeps it. What outlives an episode (the milestone book, SPA's shortest lengths, loaded
reward models) is one :class:`RewardState` per run, shared by every env built with it (the
sub-envs of a vector env).

Some terms are final only over a whole batch of rollouts (ADMIRE's adaptive milestones, Alg. 1;
SPA's group T_min, MobileRL Eq. 2). Envs built with ``batch=True`` (the trainer's) publish
what such a term needs, and the trainer calls :func:`settle_batch` on each rollout batch, which
runs every term's ``settle`` hook over the batch's episodes.

A new shaping term is one entry: a builder ``(env, arg, ctx) -> env`` registered under its name.
``arg`` is the text after ``=`` (or ``None``) and ``ctx`` a :class:`TermContext` (the run's
:class:`RewardState` and settings)::

    from wrappers import ProcessReward

    @register_term("process", summary="a PRM's per-step score (ProcessReward)")
    def _process(env, arg, ctx):
        return ProcessReward(env)

after which ``"process+spa"`` is a valid spec for ``gui-gym train --reward``.

Example:
    >>> env = make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn", reward="milestone+spa")
    >>> [type(w).__name__ for w in wrapper_chain(env)]
    ['ShortestPathReward', 'MilestoneReward']
    >>> parse_reward("spa+milestone-adaptive=no-decay")
    [('spa', None), ('milestone-adaptive', 'no-decay')]
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import gymnasium as gym

from wrappers.admire import AdmireConfig
from wrappers.book import MilestoneBook
from wrappers.memory.evolve import EpisodeRecord, evolve
from wrappers.memory.store import ExperienceMemory
from wrappers.memory.wrapper import SETTLE_TERM as UIMEM
from wrappers.memory.wrapper import GuidanceReward, GuidanceWrapper
from wrappers.milestone import MilestoneReward, settle_milestones
from wrappers.progress.outcome import OutcomeModelReward, WithoutOutcome
from wrappers.progress.reward import ProgressReward
from wrappers.protocol import RewardShaping
from wrappers.spa import ShortestLengths, ShortestPathReward, adjust_group

__all__ = [
    "MILESTONE_OPTIONS",
    "TERMS",
    "RewardState",
    "Term",
    "TermContext",
    "admire_config",
    "make_env",
    "parse_reward",
    "register_term",
    "settle_batch",
    "wrap",
    "wrapper_chain",
]


@dataclass
class RewardState:
    """Reward state that outlives episodes and is shared by all envs of a run."""

    book: MilestoneBook | None = None
    lengths: ShortestLengths | None = None
    models: dict[str, Any] = field(default_factory=dict)  # progress models, loaded once
    memory: ExperienceMemory | None = None  # UI-Mem's experience memory

    def __getstate__(self) -> dict[str, Any]:
        # Checkpoints keep the book, T_min and the memory (with everything pending in them); models reload.
        return {"book": self.book, "lengths": self.lengths, "models": {}, "memory": self.memory}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update({"memory": None, **state})  # checkpoints from before the memory have none

    def experience_memory(self) -> ExperienceMemory:
        """The run's UI-Mem experience memory (created on first use)."""
        if self.memory is None:
            self.memory = ExperienceMemory()
        return self.memory

    def milestone_book(self) -> MilestoneBook:
        """The run's milestone book (created on first use)."""
        if self.book is None:
            self.book = MilestoneBook()
        return self.book

    def shortest_lengths(self) -> ShortestLengths:
        """The run's shortest successful lengths per instance, SPA's T_min (created on first use)."""
        if self.lengths is None:
            self.lengths = ShortestLengths()
        return self.lengths

    def model(self, path: str) -> Any:
        """The progress / outcome model at ``path``, loaded once for all envs (one embedding cache)."""
        if path not in self.models:
            from wrappers.progress.model import ProgressModel  # torch: only when a spec names a model

            self.models[path] = ProgressModel.load(path)
        return self.models[path]


@dataclass(frozen=True)
class TermContext:
    """What a term's builder gets besides the env and its argument.

    Attributes:
        state: the run's shared :class:`RewardState`.
        spa_alpha: SPA's α (MobileRL Eq. 2).
        matcher: the milestone matcher (an object with ``score``/``delta``) or ``None`` for the
            default :class:`~wrappers.matching.SemanticMatcher`.
        batch: the env belongs to a group trainer that calls :func:`settle_batch`.
    """

    state: RewardState
    spa_alpha: float = 1.0
    matcher: Any = None
    batch: bool = False


Builder = Callable[[gym.Env, "str | None", TermContext], gym.Env]
#: ``(episodes, arg, ctx, epoch)``: finalise the term over one rollout batch (episodes of a trainer).
Settler = Callable[[Sequence[Any], "str | None", TermContext, int], None]
ArgKind = Literal["none", "optional", "required", "options"]


@dataclass(frozen=True)
class Term:
    """One entry of :data:`TERMS`: a reward-spec name and how to build its wrapper.

    Attributes:
        name: the name in a spec (lower case).
        build: ``(env, arg, ctx) -> env``; ``arg`` is the text after ``=`` or ``None``.
        summary: one line for help texts.
        arg: ``"none"`` (no ``=``), ``"optional"`` / ``"required"`` (a free argument such as a
            path), or ``"options"`` (comma-separated words from ``options``).
        arg_name: how messages name the argument (``"PATH"``).
        arg_help: what a missing required argument is, for the message (``"a checkpoint"``).
        options: for ``arg="options"``: the allowed words.
        innermost: built before every other term, whatever its place in the spec.
        group: terms of one group exclude each other in a spec.
        settle: ``(episodes, arg, ctx, epoch) -> None``, for terms final only over a batch
            (:func:`settle_batch`); ``None`` for terms final at each episode's end.
    """

    name: str
    build: Builder
    summary: str = ""
    arg: ArgKind = "none"
    arg_name: str = "ARG"
    arg_help: str = "an argument"
    options: tuple[str, ...] = ()
    innermost: bool = False
    group: str | None = None
    settle: Settler | None = None


#: Every reward term a spec may name: name → :class:`Term`. Add one with :func:`register_term`.
TERMS: dict[str, Term] = {}


def register_term(
    name: str,
    *,
    summary: str = "",
    arg: ArgKind = "none",
    arg_name: str = "ARG",
    arg_help: str = "an argument",
    options: tuple[str, ...] = (),
    innermost: bool = False,
    group: str | None = None,
    replace: bool = False,
    settle: Settler | None = None,
) -> Callable[[Builder], Builder]:
    """Register the decorated builder as the reward term ``name`` (see :class:`Term`).

    Registering a taken name raises ``ValueError`` unless ``replace``.
    """
    key = name.strip().lower()
    if not key or any(c in key for c in "+=, "):
        raise ValueError(f"a reward term name must be a non-empty word without '+', '=', ',' or spaces, got {name!r}")
    if arg == "options" and not options:
        raise ValueError(f"reward term {key!r}: arg='options' needs the allowed options")

    def decorate(build: Builder) -> Builder:
        if key in TERMS and not replace:
            raise ValueError(f"reward term {key!r} is already registered")
        TERMS[key] = Term(key, build, summary, arg, arg_name, arg_help, tuple(options), innermost, group, settle)
        return build

    return decorate


# -- parsing -----------------------------------------------------------------------------------


def parse_reward(spec: str) -> list[tuple[str, str | None]]:
    """``"milestone+progress=ckpt.pt"`` → ``[("milestone", None), ("progress", "ckpt.pt")]``.

    The terms come back in the order they wrap the env (innermost first): as written, except that
    the ``innermost`` ones (``orm``) go first. Raises ``ValueError`` for what is not a valid spec.
    """
    terms: list[tuple[str, str | None]] = []
    for part in (p.strip() for p in str(spec).split("+")):
        if not part:
            continue
        name, _, raw = part.partition("=")
        name, arg = name.strip().lower(), raw.strip()
        term = TERMS.get(name)
        if term is None:
            raise ValueError(f"unknown reward term {name!r} in {spec!r}; choose from {', '.join(TERMS)}")
        if term.arg == "none" and arg:
            raise ValueError(f"reward term {name!r} takes no argument (got {part!r})")
        if term.arg == "required" and not arg:
            raise ValueError(f"reward term {name!r} needs {term.arg_help}: {name}={term.arg_name}")
        if term.arg == "options" and arg:
            unknown = [o for o in _options(arg) if o not in term.options and not _valued(name, o)]
            if unknown:
                raise ValueError(
                    f"unknown {name} option {unknown[0]!r} in {part!r}; choose from {', '.join(term.options)}"
                )
        if any(n == name for n, _ in terms):
            raise ValueError(f"reward term {name!r} appears twice in {spec!r}")
        if term.group is not None:
            rival = next((n for n, _ in terms if TERMS[n].group == term.group), None)
            if rival is not None:
                raise ValueError(f"use either {rival!r} or {name!r}, not both (both are {term.group} terms)")
        terms.append((name, arg or None))
    if not terms:
        raise ValueError("empty reward spec; use 'outcome' for the env's own reward")
    # sorted is stable: the innermost terms move first, the others keep the spec's order.
    return sorted(terms, key=lambda t: not TERMS[t[0]].innermost)


def _valued(term: str, option: str) -> bool:
    """A valued option its term accepts (a milestone term's ``gamma:G``; checked here, not at build)."""
    if term.startswith("milestone") and option.startswith(GAMMA_OPTION):
        _gamma(option)
        return True
    return False


def _options(arg: str | None) -> list[str]:
    return [o.strip().lower() for o in (arg or "").split(",") if o.strip()]


# -- building ----------------------------------------------------------------------------------


def wrap(
    env: gym.Env,
    spec: str,
    state: RewardState | None = None,
    spa_alpha: float = 1.0,
    matcher: Any = None,
    batch: bool = False,
) -> gym.Env:
    """``env`` wrapped by the terms of ``spec``, innermost first (see :func:`parse_reward`).

    ``state`` is shared by every env of a run (a fresh one if ``None``); ``spa_alpha``,
    ``matcher`` and ``batch`` are handed to the terms through their :class:`TermContext`.
    """
    terms = parse_reward(spec)
    ctx = TermContext(state if state is not None else RewardState(), float(spa_alpha), matcher, bool(batch))
    for name, arg in terms:
        env = TERMS[name].build(env, arg, ctx)
    return env


def make_env(
    env_id: str,
    tasks: str | list[str] | None = "easy",
    reward: str = "outcome",
    state: RewardState | None = None,
    spa_alpha: float = 1.0,
    matcher: Any = None,
    batch: bool = False,
    **env_kwargs: Any,
) -> gym.Env:
    """``gym.make(env_id, task=tasks, **env_kwargs)`` wrapped by the terms of ``reward`` in order.

    ``env_id`` is any registered id (importing :mod:`gui_gym` registers ours) or gymnasium's
    ``"module:EnvId"`` form. The spec is checked before the env is made. ``state``,
    ``spa_alpha``, ``matcher`` and ``batch`` are :func:`wrap`'s.
    """
    import gui_gym  # noqa: F401  (registers the env ids; no family code is imported)

    parse_reward(reward)
    return wrap(gym.make(env_id, task=tasks, **env_kwargs), reward, state, spa_alpha, matcher, batch)


def settle_batch(
    spec: str,
    episodes: Sequence[Any],
    state: RewardState,
    epoch: int = 0,
    spa_alpha: float = 1.0,
    matcher: Any = None,
) -> None:
    """Finalise the batch-settled terms of ``spec`` over one rollout batch, in place.

    ``episodes`` are a trainer's (:class:`agents.collect.Episode`: ``task_id``, ``success``,
    ``length``, ``group``, ``member``, ``components``, ``settle``, ``set_component``); ``state``
    is the run's :class:`RewardState`, the one the envs were built with. Each term with a
    ``settle`` hook runs once, innermost first, so the episodes' rewards are final afterwards.
    """
    ctx = TermContext(state, float(spa_alpha), matcher, True)
    for name, arg in parse_reward(spec):
        settle = TERMS[name].settle
        if settle is not None and episodes:
            settle(episodes, arg, ctx, int(epoch))


def wrapper_chain(env: gym.Env) -> list[gym.Wrapper]:
    """The reward wrappers of ``env`` (what a spec's terms built), outermost first."""
    out = []
    while isinstance(env, gym.Wrapper):
        if isinstance(env, RewardShaping | OutcomeModelReward | WithoutOutcome):
            out.append(env)
        env = env.env
    return out


# -- the terms ---------------------------------------------------------------------------------

#: ADMIRE's ablation switches (App. B.3) as reward-spec options → AdmireConfig fields.
MILESTONE_OPTIONS: Mapping[str, Mapping[str, bool]] = {
    "base-success": {"base_on_success": True},
    "no-base-failure": {"base_on_failure": False},
    "no-decay": {"decay": False},
}

#: The matcher option: ``cosine`` scores with ADMIRE's own Eq. 8-9 (the pure cosine at δ = 0.75) in
#: place of the guarded matcher (:class:`~wrappers.matching.SemanticMatcher`'s modes).
COSINE_OPTION = "cosine"


#: The valued milestone option: ``gamma:G``, the curriculum decay per epoch (λ = λ0·G^E; ADMIRE's 0.99),
#: for runs with fewer epochs than the paper's.
GAMMA_OPTION = "gamma:"


def _gamma(option: str) -> float:
    try:
        gamma = float(option.removeprefix(GAMMA_OPTION))
    except ValueError:
        gamma = math.nan
    if not 0.0 < gamma <= 1.0:
        raise ValueError(f"milestone option {option!r}: the decay must be a number in (0, 1], e.g. gamma:0.95")
    return gamma


def admire_config(arg: str | None) -> AdmireConfig:
    """The :class:`~wrappers.AdmireConfig` of a milestone term's options (``"no-decay,base-success"``,
    ``"gamma:0.95"``).

    >>> admire_config("gamma:0.95").gamma, admire_config("no-decay").decay
    (0.95, False)
    """
    changes: dict[str, Any] = {}
    for option in _options(arg):
        if option == COSINE_OPTION:  # the matcher's, not ADMIRE's credit: see _milestone_matcher
            continue
        if option.startswith(GAMMA_OPTION):
            changes["gamma"] = _gamma(option)
            continue
        if option not in MILESTONE_OPTIONS:
            raise ValueError(
                f"unknown milestone option {option!r}; choose from {', '.join(MILESTONE_OPTIONS)}, "
                f"{COSINE_OPTION} or gamma:G"
            )
        changes.update(MILESTONE_OPTIONS[option])
    return AdmireConfig(**changes)


@register_term("outcome", summary="the env's own reward (no wrapper)")
def _outcome(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    return env


@register_term(
    "orm",
    summary="a learned outcome reward model's verdict instead of the env's check",
    arg="required",
    arg_name="PATH",
    arg_help="a checkpoint (an outcome model from gui-gym study)",
    group="outcome",
    innermost=True,  # the ORM stands in for the env's check: it must see the env's reward before any shaping
)
def _orm(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    assert arg is not None  # the parser requires it
    return OutcomeModelReward(env, model=ctx.state.model(arg))


@register_term(
    "no-outcome",
    summary="no outcome reward: the other terms alone (ProgRM's actor trains on its reward model's output alone)",
    group="outcome",
    innermost=True,
)
def _no_outcome(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    return WithoutOutcome(env)


@register_term(
    "milestone",
    summary="ADMIRE with the task's annotated milestones",
    arg="options",
    options=(*MILESTONE_OPTIONS, COSINE_OPTION),
    group="milestone",
)
def _milestone(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    return MilestoneReward(env, matcher=_milestone_matcher(arg, ctx), config=admire_config(arg))


def _milestone_matcher(arg: str | None, ctx: TermContext) -> Any:
    """The matcher a milestone term scores with: the paper's cosine for ``=cosine``, else the run's
    (``None``: the guarded matcher every MilestoneReward of the process shares)."""
    if COSINE_OPTION in _options(arg):
        from wrappers.matching import SemanticMatcher

        return SemanticMatcher(mode="cosine")
    return ctx.matcher


def _settle_milestones(episodes: Sequence[Any], arg: str | None, ctx: TermContext, epoch: int) -> None:
    """ADMIRE Alg. 1 over the batch: Phase 1 refines the book, Phase 2 credits every episode."""
    matcher = _milestone_matcher(arg, ctx)
    if matcher is None:
        from wrappers.matching import SemanticMatcher

        matcher = SemanticMatcher()
    settle_milestones(ctx.state.milestone_book(), episodes, matcher, admire_config(arg), epoch)


@register_term(
    "milestone-adaptive",
    summary="ADMIRE with a milestone book distilled from successes",
    arg="options",
    options=(*MILESTONE_OPTIONS, COSINE_OPTION),
    group="milestone",
    settle=_settle_milestones,
)
def _milestone_adaptive(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    book = ctx.state.milestone_book()
    matcher = _milestone_matcher(arg, ctx)
    return MilestoneReward(env, book=book, matcher=matcher, config=admire_config(arg), batch=ctx.batch)


@register_term(
    "progress",
    summary="ProgRM progress gains (Eq. 2): =PATH a trained progress model; alone, the env's oracle progress",
    arg="optional",
    arg_name="PATH",
)
def _progress(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    return ProgressReward(env, model="env" if arg is None else ctx.state.model(arg))


def _settle_spa(episodes: Sequence[Any], arg: str | None, ctx: TermContext, epoch: int) -> None:
    """MobileRL Eq. 2 with T_min the shortest success of each episode's group (its instance)."""
    groups: dict[int, list[Any]] = defaultdict(list)
    for ep in episodes:
        if "spa" in ep.components:
            groups[ep.group].append(ep)
    for group in groups.values():
        outcomes = [ep.outcome for ep in group]
        adjusted = adjust_group([ep.length for ep in group], outcomes, ctx.spa_alpha, [ep.success for ep in group])
        for ep, r, o in zip(group, adjusted, outcomes, strict=True):
            ep.set_component("spa", [r - o] * ep.length)


@register_term(
    "spa",
    summary="MobileRL's shortest-path adjustment (T_min: the group's shortest success)",
    settle=_settle_spa,
)
def _spa(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    return ShortestPathReward(env, lengths=ctx.state.shortest_lengths(), alpha=ctx.spa_alpha)


def _settle_uimem(episodes: Sequence[Any], arg: str | None, ctx: TermContext, epoch: int) -> None:
    """UI-Mem's self-evolving update (Alg. 2) over the batch: its episodes' experience goes into the
    run's memory, then the memory's clock ticks."""
    memory = ctx.state.experience_memory()
    records = [EpisodeRecord.from_dict(ep.settle[UIMEM]) for ep in episodes if isinstance(ep.settle.get(UIMEM), dict)]
    if records:
        evolve(memory, records, memory.extractor)


@register_term(
    "uimem",
    summary="UI-Mem's guidance-aware reward (Eq. 4-5) with guidance from the run's experience memory",
    settle=_settle_uimem,
)
def _uimem(env: gym.Env, arg: str | None, ctx: TermContext) -> gym.Env:
    return GuidanceReward(GuidanceWrapper(env, memory=ctx.state.experience_memory()))
