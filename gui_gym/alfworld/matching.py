"""The household's words for ADMIRE's milestone matcher (:class:`~gui_gym.core.matching.MatchingVocabulary`).

ALFWorld's milestones ("Take the mug", "Clean the mug", "Put the mug in/on the countertop") and
action descriptions ("take mug 1 from fridge 1: You pick up the mug 1 from the fridge 1.") name
ALFRED's object and receptacle classes (:mod:`gui_gym.alfworld.vocabulary`) in TextWorld's run-on
spelling ("butterknife", "sinkbasin"); people write them apart, and use their own verbs for the
task's operations. :mod:`wrappers.matching` reaches this through ``family_of(env).matching()``.

Example:
    >>> import re
    >>> re.search(VOCABULARY.targets["object"]["butter knife"], "grab the butterknife") is not None
    True
    >>> text = "look at the pillow under the desklamp"
    >>> for pattern, replacement in VOCABULARY.synonyms:
    ...     text = re.sub(pattern, replacement, text, flags=re.I)
    >>> text
    'turn on the desk lamp holding the pillow'
"""

from __future__ import annotations

import re

from gui_gym.alfworld.vocabulary import OBJECT_CLASSES, PICKUPABLE, RECEPTACLE_CLASSES
from gui_gym.core.matching import MatchingVocabulary

__all__ = ["ALIASES", "AXES", "OPERATIONS", "SYNONYMS", "TARGETS", "VOCABULARY"]

#: Compounds people write as one word; the other classes' words are written apart ("butter knife").
_ONE_WORD = frozenset({"CounterTop", "ArmChair", "BasketBall", "HousePlant", "ShowerGlass"})
_LAMPS = ("DeskLamp", "FloorLamp")


def _split(cls: str) -> list[str]:
    """'ButterKnife' → ['butter', 'knife'], 'TVStand' → ['tv', 'stand'], 'CD' → ['cd']."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z]*", cls)]


def _name(cls: str) -> str:
    """How the matcher names a class: its words apart, or run on for the one-word compounds."""
    return "".join(_split(cls)) if cls in _ONE_WORD else " ".join(_split(cls))


#: Other names people give a class.
ALIASES: dict[str, str] = {
    "SinkBasin": "sink", "BathtubBasin": "bath ?tub|tub", "GarbageCan": "trash ?can|bin|dustbin|waste ?basket",
    "CounterTop": "counter", "Fridge": "refrigerator", "StoveBurner": "stove|burner|hob", "Sofa": "couch",
    "Cabinet": "cupboard", "Shelf": "shelves", "TVStand": "tv stand|television stand",
    "CellPhone": "(?:mobile |smart)?phone", "RemoteControl": "remote", "KeyChain": "keys", "DishSponge": "sponge",
    "AlarmClock": "clock",
}  # fmt: skip


def _pattern(cls: str) -> str:
    """The ways a class is written: apart, run on or hyphenated, singular or plural, or an alias;
    not as a part of a longer class's name (a "desk" is not a "desk lamp", a "knife" not a
    "butter knife")."""
    words, others = _split(cls), [o for o in map(_split, OBJECT_CLASSES) if o != _split(cls)]
    after = {o[len(words)] for o in others if len(o) > len(words) and o[: len(words)] == words}
    before = {o[-len(words) - 1] for o in others if len(o) > len(words) and o[-len(words) :] == words}
    head = "".join(rf"(?<!{re.escape(w)} )(?<!{re.escape(w)}-)" for w in sorted(before))
    tail = rf"(?![\s-]?(?:{'|'.join(sorted(after))}))" if after else ""
    name = head + r"[\s-]?".join(re.escape(w) for w in words) + r"(?:e?s)?" + tail
    return f"{name}|{ALIASES[cls]}" if cls in ALIASES else name


#: Things by kind: a milestone's object, receptacle or lamp must be the one the action handles.
TARGETS: dict[str, dict[str, str]] = {
    "object": {_name(c): _pattern(c) for c in sorted(PICKUPABLE)},
    "receptacle": {_name(c): _pattern(c) for c in RECEPTACLE_CLASSES if c not in PICKUPABLE},
    "lamp": {_name(c): _pattern(c) for c in _LAMPS},
}

_HOLD = r"(?:is|are|sits?|lies|rests?|stands?)\s+(?:now\s+)?(?:in|on|inside|into|onto|on top of)\b"
#: Operations that exclude each other: heating an egg is not putting it in the microwave.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("take", r"\b(?:tak(?:e|es|en|ing)|took)\b"),
    ("put", rf"\b(?:put(?:s|ting)?|plac(?:e|es|ed|ing))\b|\b{_HOLD}"),
    (
        "heat",
        r"(?<!the )(?<!a )\b(?:heat(?:s|ed|ing)?|warm(?:s|ed|ing)?(?: up)?|microwav(?:es|ed|ing))\b|\bmicrowave it\b",
    ),
    ("cool", r"(?<!the )(?<!a )\b(?:cool(?:s|ed|ing)?|chill(?:s|ed|ing)?|refrigerat\w*)\b"),
    ("clean", r"(?<!the )(?<!a )\bclean(?:s|ed|ing)?\b"),
    ("slice", r"\bslic(?:e|es|ed|ing)\b"),
    ("examine", r"\bexamin\w*"),
    ("turn on", r"\bturn(?:s|ed|ing)? on\b"),
    ("open", r"\bopen(?:s|ed|ing)?\b"),
    ("close", r"\bclos(?:e|es|ed|ing)\b"),
)

#: Opposite operations on a thing.
AXES = (("heat/cool", "heat", r"\bheat\w*|\bwarm\w*|\bhot\b", "cool", r"\bcool\w*|\bchill\w*|\bcold\b"),)

_LAMP = r"(desk[\s-]?lamp|floor[\s-]?lamp|lamp)"
#: TextWorld's commands and run-on class names, and the household's other verbs, rewritten to the
#: words of the milestones.
SYNONYMS: tuple[tuple[str, str], ...] = (
    *((rf"\b{''.join(_split(c))}(?=s?\b)", _name(c)) for c in OBJECT_CLASSES if " " in _name(c)),
    (r"\bmov(?:e|es|ed|ing) (.+?) (?:to|into|onto) ", r"put \1 in/on "),
    (r"\bput (.+?) (?:in|on|into|onto|inside|in/on)(?: top of)? (?!/)", r"put \1 in/on "),
    (r"\b(?:wash|rins|scrub)(?:e|es|ed|ing)?\b", "clean"),
    (r"\b(?:pick(?:s|ed|ing)? up|grab(?:s|bed|bing)?|get|got|take in the hand)\b", "take"),
    (r"\b(?:use[sd]?|using|switch(?:es|ed|ing)? on|light(?:s|ed)? up) (?:the )?(?:light of (?:the )?)?" + _LAMP,
     r"turn on the \1"),
    (r"\b(?:look(?:s|ed|ing)?(?: at)?|examin\w*|inspect\w*|check\w*|stud(?:y|ies|ied)|view\w*|read\w*)\s+"
     r"(?:at\s+)?(?:the\s+|a\s+)?(.+?)\s+(?:under|in|by|with|using|beneath|in the light of)\s+(?:the\s+)?"
     r"(?:light\s+(?:of\s+)?(?:the\s+|a\s+)?)?" + _LAMP + r"\b",
     r"turn on the \2 holding the \1"),
)  # fmt: skip

VOCABULARY = MatchingVocabulary(
    "alfworld",
    synonyms=SYNONYMS,
    targets=TARGETS,
    axes=AXES,
    operations=OPERATIONS,
    verbs=frozenset({"take", "put", "place", "heat", "cool", "clean", "slice", "examine", "look", "turn", "use",
                     "warm", "chill", "wash"}),
    feedback=r":\s.*$",
)  # fmt: skip
