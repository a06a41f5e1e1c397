"""What a family tells the milestone matcher about its world's words (:class:`MatchingVocabulary`).

ADMIRE's matcher (Eq. 8-9, :mod:`wrappers.matching`) compares an action description with a
milestone. Its rules that hold in any world (polarity, dates and numbers, what a gesture cannot
do) live with it; what names things in one world — a phone's apps, settings and fields, a
household's objects and receptacles, a shop's options — lives with the family, which hands it
over through :func:`gui_gym.core.family.family_matching` (the family's optional ``matching()``).
A matcher given none uses the world-free rules alone.

Every pattern is a regular expression, matched case-insensitively on whole words.

Example:
    >>> v = MatchingVocabulary("demo", synonyms=((r"\\bgrab\\b", "take"),),
    ...                        targets={"object": {"apple": r"apples?", "mug": r"mugs?|cups?"}})
    >>> v.name, v.targets["object"]["mug"]
    ('demo', 'mugs?|cups?')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Axis", "MatchingVocabulary"]

#: A polarity axis: (axis name, name of its + side, + pattern, name of its − side, − pattern).
Axis = tuple[str, str, str, str, str]


@dataclass(frozen=True, eq=False)  # hashed by identity: a matcher's caches key on it
class MatchingVocabulary:
    """A family's words for the matcher; every member is optional.

    - ``synonyms``: ``(pattern, replacement)`` rewrites applied in order to both texts before they
      are checked and encoded, so that the ways a world's people name one thing read alike
      (``r"\\bstart (?:a )?chat\\b"`` → ``"start a new conversation"``);
    - ``targets``: kind → {canonical name: pattern}: when both texts name a thing of one kind, they
      must name the same one ("Turn on Bluetooth" is not "wifi on"; "take the apple" is not "Take
      the mug");
    - ``closed_sets``: name → members: when the milestone names members of a set, the action must
      name them too ("Set the priority to high" vs "… to Medium");
    - ``axes``: polarity axes beyond the world-free ones (:data:`Axis`);
    - ``fields``: canonical field → pattern of the labels and slot names that name it: a
      milestone's ``<Slot>`` takes only a value typed into a field that agrees with it
      ("Input <Name> as the contact name" is not typing a number into "Phone");
    - ``numeric_fields``: the canonical fields whose values are numbers (a phone number, an
      amount): a slot naming one takes no word, a slot naming another takes no bare number;
    - ``operations``: ``(name, pattern)`` of operations that exclude each other, beyond the
      world-free ones ("heat" is not "put"): when both texts name some, they must share one;
    - ``verbs``: the family's operations that reaching a place or a screen does not do ("go to the
      microwave" does not heat);
    - ``feedback``: a pattern of what the world answers in an action description (a text world's
      "take mug 1 from fridge 1: You pick up …"): what is seen there is not what is handled.
    """

    name: str
    synonyms: tuple[tuple[str, str], ...] = ()
    targets: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    closed_sets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    axes: tuple[Axis, ...] = ()
    fields: Mapping[str, str] = field(default_factory=dict)
    numeric_fields: frozenset[str] = frozenset()
    operations: tuple[tuple[str, str], ...] = ()
    verbs: frozenset[str] = frozenset()
    feedback: str = ""

    def __repr__(self) -> str:
        return f"MatchingVocabulary({self.name!r})"
