"""What the guarded rules know of words: the world-free tables, and a family's words on top.

The world-free tables are the polarity axes (:data:`AXES`), the operations that exclude each
other (:data:`OPERATIONS`) and the verbs that do something (:data:`DOING`, what opening a screen
does not do). What names things in one world — a phone's apps, settings and fields, a
household's objects and receptacles, a shop's steps and options — is the family's
(:class:`~gui_gym.core.matching.MatchingVocabulary`, from ``family_of(env).matching()``);
:func:`words_of` compiles a vocabulary's patterns once, the world-free tables first.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from gui_gym.core.family import family_matching
from gui_gym.core.matching import MatchingVocabulary

Vocabulary = MatchingVocabulary | None

# -- polarity --------------------------------------------------------------------------------

_ON = (
    r"\b(?:turn|switch|toggle)(?:s|ed|ing)?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?on\b|\benabl\w*|\bactivat\w*"
    r"|^(?:[\w&-]+\s+){1,3}on$"  # "dark mode on": a setting and its state, as people write it
)
_OFF = (
    r"\b(?:turn|switch|toggle)(?:s|ed|ing)?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?off\b|\bdisabl\w*|\bdeactivat\w*"
    r"|^(?:[\w&-]+\s+){1,3}off$"
)
_NOT_DONE = (
    r"\bnot\s+(?:yet\s+)?complete\w*|\bun-?complet\w*|\bincomplete\b|\bun-?check\w*|\bunmark\w*|\bun-?tick\w*"
    r"|\bun-?select\w*|\bdeselect\w*"
)
AXES: tuple[tuple[str, str, str, str, str], ...] = (
    # (axis, name of +, + pattern, name of -, - pattern)
    ("on/off", "on", _ON, "off", _OFF),
    (
        "start/pause",
        "start",
        r"\b(?:start|resum|restart)\w*|\bplay(?:s|ing)?\b",
        "pause",
        r"\bpaus\w*|\bstop(?:s|ped|ping)?\b|\bhalt\w*",
    ),
    (
        "save/delete",
        "save",
        r"\b(?:save[sd]?|saving|create[sd]?|creating|make|makes|made|making|add(?:s|ed|ing)?|new|write|writes"
        r"|writing|insert\w*|keep"
        r"|send(?:s|ing)?|sent|repl(?:y|ies|ied|ying)|post(?:s|ed|ing)?|shar(?:e|es|ed|ing))\b",
        "delete",
        r"\b(?:delet\w*|remov\w*|discard\w*|clear(?:s|ed|ing)?|eras\w*|trash\w*)\b",
    ),
    (
        "completed/not completed",
        "completed",
        r"\bcomplet\w*|\bdone\b|\bcheck(?:s|ed)?\b|\btick(?:s|ed)?\b|\bselect(?:s|ed)?\b",
        "not completed",
        _NOT_DONE,
    ),
    (
        "maximum/minimum",
        "maximum",
        r"\bmax\w*|\bhighest\b|\bincreas\w*|\bbrighter\b|\blouder\b",
        "minimum",
        r"\bmin\b|\bminim\w*|\blowest\b|\bdecreas\w*|\bdimmer\b|\bquieter\b",
    ),
    (
        "favourite/unfavourite",
        "favourite",
        r"\bstar(?:s|red|ring)?\b|\bfavou?rit\w*",
        "unfavourite",
        r"\bun-?star\w*|\bun-?favou?rit\w*|\bremov\w*\s+(?:[\w'-]+\s+){0,3}?from\s+(?:the\s+|my\s+)?favou?rites",
    ),
    ("show/hide", "show", r"\bshow\w*|\bdisplay\w*|\bunhid\w*|\breveal\w*", "hide", r"\bhid(?:e|es|ing|den)\b"),
    (
        "open/close",
        "open",
        r"\bopen\w*",
        "close",
        r"\bclos(?:e|es|ed|ing)\b|\bexit\w*|\bdismiss\w*|\bleav(?:e|es|ing)\b|\bquit\w*",
    ),
    ("next/previous", "next", r"\bnext\b|\btomorrow\b|\bforward\b", "previous", r"\bprevious\b|\byesterday\b"),
)
_AXES = [(axis, pn, re.compile(p, re.I), nn, re.compile(n, re.I)) for axis, pn, p, nn, n in AXES]
#: Operations that exclude each other: naming one is not doing another.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("delete", r"\b(?:delet|remov|eras|trash|discard)\w*"),
    ("turn off", _OFF),
    ("rename", r"\brenam\w*"),
    ("move", r"\b(?:move[sd]?|moving|reschedul\w*)\b"),
    ("copy", r"\b(?:cop(?:y|ies|ied|ying)|duplicat\w*)\b"),
)
_OPERATIONS = [(name, re.compile(p, re.I)) for name, p in OPERATIONS]

# -- verbs -----------------------------------------------------------------------------------

#: The verbs that do something (opening a screen does none of them; a family adds its own).
DOING = {
    "save", "create", "delete", "remove", "set", "start", "stop", "pause", "turn", "enable", "disable", "add",
    "send", "reply", "rename", "label", "enter", "type", "write", "mark", "complete", "move", "copy", "share",
    "change", "update", "confirm", "make", "schedule", "record", "star", "favourite", "favorite", "maximize",
    "minimize", "increase", "decrease", "reset", "resume", "clear", "discard", "submit", "choose", "select",
    "pick", "reschedule", "filter", "pin", "unpin", "archive", "block", "switch", "toggle", "activate",
    "deactivate", "tick", "untick", "check", "uncheck", "apply", "buy", "purchase", "order",
}  # fmt: skip


# -- a family's words -----------------------------------------------------------------------


class _Words:
    """A vocabulary's patterns, compiled once (:func:`words_of`)."""

    def __init__(self, v: Vocabulary) -> None:
        def rx(p: str) -> re.Pattern[str]:
            return re.compile(p, re.I)

        self.synonyms = [(rx(p), r) for p, r in (v.synonyms if v else ())]
        self.targets = {k: {n: rx(rf"\b(?:{p})\b") for n, p in d.items()} for k, d in (v.targets if v else {}).items()}
        self.closed = {k: rx(r"\b(" + "|".join(m) + r")\b") for k, m in (v.closed_sets if v else {}).items()}
        self.axes = [*_AXES, *((a, pn, rx(p), nn, rx(n)) for a, pn, p, nn, n in (v.axes if v else ()))]
        self.fields = {n: rx(rf"\b(?:{p})\b") for n, p in (v.fields if v else {}).items()}
        self.numeric = frozenset(v.numeric_fields) if v else frozenset()
        self.operations = [*_OPERATIONS, *((n, rx(p)) for n, p in (v.operations if v else ()))]
        self.verbs = DOING | (frozenset(v.verbs) if v else frozenset())
        self.feedback = rx(v.feedback) if v and v.feedback else None


@functools.lru_cache(maxsize=64)
def words_of(vocabulary: Vocabulary) -> _Words:
    """A vocabulary's patterns (``None``: the world-free ones alone), compiled once."""
    return _Words(vocabulary)


def as_vocabulary(vocabulary: Any) -> Vocabulary:
    """A :class:`MatchingVocabulary` as it is, or the one of an env, env id or family (``None``: none)."""
    return (
        vocabulary if vocabulary is None or isinstance(vocabulary, MatchingVocabulary) else family_matching(vocabulary)
    )
