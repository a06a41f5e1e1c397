"""Environment families: what policies, trainers and wrappers need to know about an env.

A *family* is one kind of world behind the env contract (the simulated phone, ALFWorld,
WebShop …). Code outside the family never imports it: it asks :func:`family_of` for the
family's :class:`EnvFamily` and uses that —

- :meth:`~EnvFamily.tasks`: the task specs of a selection (an id, ids, a tier, ``None``);
- :meth:`~EnvFamily.instruction`: the task instruction an observation carries;
- :meth:`~EnvFamily.observation_text`: an observation as compact text for encoders, or in full
  for language models;
- :meth:`~EnvFamily.action_prompt`: the instructions an LM policy needs to write actions;
- :meth:`~EnvFamily.admissible_actions`: the actions that apply now, each a :class:`Candidate`
  with its action kind and a label, for candidate policies and SB3;
- :attr:`~EnvFamily.candidate_kinds`: the family's own candidate kinds (a policy's features);
- :meth:`~EnvFamily.edit_actions`: optional no-op and effectless actions for ProgRM's synthesis;
- ``matching()`` (optional): the family's words for ADMIRE's milestone matcher, a
  :class:`~gui_gym.core.matching.MatchingVocabulary` (:func:`family_matching`).

An env class names its family with a class attribute ``family`` holding an
:class:`EnvFamily` or a ``"module:attribute"`` string (loaded on first use), so a new family
needs no registration beyond its ``gymnasium.register`` line.

Example:
    >>> import gui_gym
    >>> family = family_of("GuiAndroid-v0")
    >>> family.name, [t.id for t in family.tasks("ClockStopWatchRunning")]
    ('android', ['ClockStopWatchRunning'])
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol, runtime_checkable

import gymnasium as gym

from gui_gym.core.matching import MatchingVocabulary
from gui_gym.core.task import DIFFICULTIES, TaskSpec

__all__ = [
    "Candidate",
    "EditAction",
    "EditActions",
    "EnvFamily",
    "family_matching",
    "family_of",
    "family_tasks",
    "select_tasks",
    "text_items",
]

#: Items kept by :func:`text_items` (a phone screen has ~10-40).
MAX_ITEMS = 64


#: Ends the first item of an observation text whose screen is a window floating over another (a
#: dialog's window): a step from it to a screen without the mark closed it, it did not open a screen.
OVERLAY = "(overlay)"


def is_overlay(observation: str) -> bool:
    """Whether an observation text is marked as a floating window (:data:`OVERLAY`).

    >>> is_overlay("pro (overlay) | Button OK"), is_overlay("pro | EditText")
    (True, False)
    """
    first = observation.split(" | ", 1)[0].strip()
    return first.endswith(OVERLAY)


def text_items(observation: str, limit: int = MAX_ITEMS) -> list[str]:
    """The items of an observation text (``" | "``-separated, as families write them), at most ``limit``.

    >>> text_items('contacts | EditText "Zara" (focused) | ImageButton desc="Save"')
    ['contacts', 'EditText "Zara" (focused)', 'ImageButton desc="Save"']
    """
    return [item for item in (part.strip() for part in observation.split(" | ")) if item][:limit]


class Candidate(NamedTuple):
    """One admissible action.

    ``action`` is the text the env accepts, ``kind`` the family's own kind of it (one of the
    family's :attr:`~EnvFamily.candidate_kinds`: ``tap``, ``launch``, ``take`` …), ``label``
    a short natural-language phrase an encoder reads, and ``action_kind`` the contract's kind
    (:data:`gui_gym.core.contract.ACTION_KINDS`).
    """

    action: str
    kind: str
    label: str
    action_kind: str = ""


#: An action as synthesis inserts it: (action text, contract action kind, action_description).
EditAction = tuple[str, str, str]


@dataclass(frozen=True)
class EditActions:
    """Actions ProgRM's data synthesis (App. B) inserts into trajectories.

    ``noop`` changes nothing (Android's Wait, a text world's ``look``); each pair of
    ``effectless_pairs`` undoes itself (scroll down then up), each action as (action, kind,
    description). ``*_kind`` is the action kind the family reports for an action, ``*_description``
    the ``action_description`` the env gives in the common case.

    ``undo`` (Android's Back) undoes the step before it when that step opened something;
    ``undoable(action, earlier_actions)`` says whether a recorded action is one that ``undo``
    may follow and that may then be repeated to the same effect (on Android a tap, or a launch
    of an app not launched before). Without them, synthesis makes no undo-then-repeat edits.
    """

    noop: str
    noop_kind: str
    noop_description: str
    effectless_pairs: tuple[tuple[EditAction, EditAction], ...] = ()
    undo: EditAction | None = None
    undoable: Callable[[str, Sequence[str]], bool] | None = None


@runtime_checkable
class EnvFamily(Protocol):
    """What a family tells code that must not import it (see the module docstring)."""

    #: a short name: "android", "textrooms" …
    name: str
    #: the family's candidate kinds, in a fixed order (features of candidate policies).
    candidate_kinds: tuple[str, ...]

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        """The task specs of an id, a list of ids, a tier, ``"all"`` or ``None`` (all).

        Unknown ids raise ``ValueError`` naming close matches. A family whose tasks depend on how
        its env is made (the data set an experience env reads) may also define
        ``tasks_for(selection, env_kwargs)``, which :func:`family_tasks` prefers."""
        ...

    def instruction(self, obs: Any) -> str:
        """The task instruction as the observation shows it to the agent."""
        ...

    def observation_text(self, obs: Any, full: bool = False) -> str:
        """The observation as text, without the instruction: compact (items joined by ``" | "``,
        what sentence encoders read, see :func:`text_items`), or with ``full`` as the env gives
        it (what a language model reads)."""
        ...

    def action_prompt(self) -> str:
        """The fixed instructions for an LM policy: the world, the action syntax, examples."""
        ...

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        """The actions that apply to ``obs`` (deterministic, at most ``limit``)."""
        ...

    def edit_actions(self) -> EditActions | None:
        """No-op and effectless actions for ProgRM's synthesis, or ``None`` if the family has none."""
        ...


def family_tasks(
    family: EnvFamily, selection: str | Sequence[str] | None, env_kwargs: dict[str, Any] | None = None
) -> list[TaskSpec]:
    """The family's tasks for *selection*, for an env made with *env_kwargs* where the family's
    tasks depend on them (``tasks_for``), else :meth:`EnvFamily.tasks`."""
    tasks_for = getattr(family, "tasks_for", None)
    if callable(tasks_for):
        return tasks_for(selection, dict(env_kwargs or {}))
    return family.tasks(selection)


def family_matching(
    env: gym.Env | gym.envs.registration.EnvSpec | str | EnvFamily | None,
) -> MatchingVocabulary | None:
    """The milestone matcher's vocabulary of a family (or of an env, spec or id, see
    :func:`family_of`): what its optional ``matching()`` returns; ``None`` when it has none, or for
    ``None``. Not a member of :class:`EnvFamily`: a family without words of its own leaves it out.

    >>> import gui_gym
    >>> family_matching("GuiAndroid-v0").name, family_matching(None)
    ('android', None)
    """
    if env is None:
        return None
    matching = getattr(family_of(env), "matching", None)
    vocabulary = matching() if callable(matching) else None
    if vocabulary is not None and not isinstance(vocabulary, MatchingVocabulary):
        raise ValueError(
            f"{type(family_of(env)).__name__}.matching() gave {type(vocabulary).__name__}, not a MatchingVocabulary"
        )
    return vocabulary


def select_tasks(specs: Iterable[TaskSpec], selection: str | Sequence[str] | None, family: str) -> list[TaskSpec]:
    """A family's helper for :meth:`EnvFamily.tasks`: ids, tiers, suites, comma lists, ``"all"``/``None``.

    A suite name (a ``TaskSpec.suite``, e.g. ``"androidworld"``) selects its tasks, and
    ``"suite:tier"`` a tier within it.

    >>> specs = [TaskSpec("A", "x", "easy", "a", suite="s1"), TaskSpec("B", "x", "hard", "b", suite="s2")]
    >>> [t.id for t in select_tasks(specs, "hard", "demo")], [t.id for t in select_tasks(specs, "B,A", "demo")]
    (['B'], ['B', 'A'])
    >>> [t.id for t in select_tasks(specs, "s1", "demo")], [t.id for t in select_tasks(specs, "s2:hard", "demo")]
    (['A'], ['B'])
    """
    specs = list(specs)
    by_id = {t.id: t for t in specs}
    suites = sorted({t.suite for t in specs if t.suite} | {s for t in specs for s in getattr(t, "subsets", ())})
    # "all" is every task the family's engine runs by itself (a task needing a browser is named)
    plain = [t for t in specs if not getattr(t, "requires", ())]
    if selection is None or selection == "all":
        return plain
    if isinstance(selection, str):
        selection = [p.strip() for p in selection.split(",") if p.strip()]
    out: list[TaskSpec] = []
    for tid in selection:
        suite, _, tier = str(tid).partition(":")
        if tid == "all":
            out.extend(plain)
        elif tid in DIFFICULTIES:
            out.extend(t for t in plain if t.difficulty == tid)
        elif tid in by_id:
            out.append(by_id[tid])
        elif suite in suites and (not tier or tier in DIFFICULTIES):
            out.extend(
                t
                for t in specs
                if (t.suite == suite or suite in getattr(t, "subsets", ())) and (not tier or t.difficulty == tier)
            )
        else:
            close = difflib.get_close_matches(str(tid), list(by_id), n=3, cutoff=0.5)
            hint = f" Did you mean {', '.join(close)}?" if close else f" `gui-gym tasks` lists the {family} tasks."
            named = f" Suites: {', '.join(suites)} (suite:tier selects a tier in one)." if suites else ""
            raise ValueError(f"unknown task id {tid!r}.{hint}{named}")
    if not out:
        raise ValueError(f"no {family} tasks selected by {selection!r}")
    return list(dict.fromkeys(out))


def family_of(env: gym.Env | gym.envs.registration.EnvSpec | str | EnvFamily) -> EnvFamily:
    """The :class:`EnvFamily` of an env (wrapped or not), an env spec, or a registered env id; a
    family is returned as it is (so callers may take either).

    The env class declares it as its ``family`` attribute; an id's class is found through its
    registered entry point without making an env. An id of the form ``"module:EnvId"`` imports
    ``module`` first (which registers ``EnvId``), as ``gym.make`` does. Raises ``ValueError``
    for an unknown id or an env that names no family.
    """
    if isinstance(env, EnvFamily) and not isinstance(env, (gym.Env, str)):
        return env
    if isinstance(env, gym.Env):
        cls: Any = type(env.unwrapped)
        where = cls.__name__
    elif isinstance(env, (str, gym.envs.registration.EnvSpec)):
        spec = _spec(env) if isinstance(env, str) else env
        entry = spec.entry_point
        cls = _load(entry) if isinstance(entry, str) else entry
        where = spec.id
    else:
        raise TypeError(f"family_of takes an env, an env spec, an env id or an EnvFamily, not {type(env).__name__}")
    family = getattr(cls, "family", None)
    if family is None:
        raise ValueError(
            f"{where} names no env family: give its env class a `family` attribute "
            "(an EnvFamily, or 'module:attribute'), see gui_gym.core.family"
        )
    if isinstance(family, str):
        family = _load(family)
    if not isinstance(family, EnvFamily):
        raise ValueError(f"{where}.family is {type(family).__name__}, not an EnvFamily")
    return family


_LOADED: dict[str, Any] = {}


def _spec(env_id: str) -> gym.envs.registration.EnvSpec:
    name = env_id
    try:
        if ":" in env_id:
            module, _, name = env_id.partition(":")
            importlib.import_module(module)
        return gym.spec(name)
    except (gym.error.Error, ImportError) as e:
        raise ValueError(f"unknown env {env_id!r}: {e}") from e


def _load(entry: str) -> Any:
    if entry not in _LOADED:
        module, _, attr = entry.partition(":")
        obj: Any = importlib.import_module(module)
        for part in attr.split(".") if attr else ():
            obj = getattr(obj, part)
        _LOADED[entry] = obj
    return _LOADED[entry]
