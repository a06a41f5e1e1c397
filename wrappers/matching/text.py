"""Reading a text: the guarded mode's rule 1 (what is encoded), and the values the vetoes compare.

1. ``phrasing`` (what is encoded): an agent's report of what it did reads as a command ("I tapped
   the Save button" → "tap the Save button"); a button named by its picture takes its label
   ('the pencil icon ("Edit")'); the family's synonyms rewrite its words; a milestone's
   ``<Slot>`` placeholders take the action's values (:func:`fill_slots`; a tapped button's label is
   not one; a slot naming a kind of the family's things, ``<Object>``, takes the action's thing);
   a gesture with a stated purpose keeps only the purpose ('Tap the "Save" button to save the file
   "a.txt"' → 'save the file a.txt'); launching an app or tapping its icon reads "Open <app>"; a
   trailing context ("… in Files") and quotes are dropped.

:func:`values` reads a text's dates, weekdays, times, phone numbers, numbers and names: what
rule 3 (:mod:`wrappers.matching.rules`) compares. The patterns both read with (quoted texts,
slots, file names, capitalised names, numbers) are shared with the rules from here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from wrappers.matching.vocabulary import Vocabulary, words_of

# -- phrasing --------------------------------------------------------------------------------

QUOTED = re.compile(r'"([^"]*)"')
_GESTURE = re.compile(r"^(?:tap|click|press|long press|double tap|select)\b", re.I)
_PURPOSE = re.compile(r"\bto ([a-z][\w-]*)")
_APP_ICON = re.compile(r'^(?:tap|click)(?: on)? the "?([^"]+?)"? (?:app )?icon\b.*$', re.I)
_LAUNCH = re.compile(r"^launch (?:the )?(.+?)(?: app)?$", re.I)
_APP_SUFFIX = re.compile(r"\s+in (?:the )?[A-Z][\w&+.-]*(?:\s+[A-Z][\w&+.-]*)*$")
SLOT = re.compile(r"<[A-Za-z_][\w ]*>")
_LABEL_OF = re.compile(r"\s+button\b", re.I)  # after a quoted text: the text is the button's label


def _outside_quotes(text: str, pos: int) -> bool:
    return text.count('"', 0, pos) % 2 == 0


#: An agent's own report of what it did ("I tapped …", "Clicked …"): the verb it used, as a command.
PAST = {
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
    verb = PAST.get(first.lower())
    if verb is None or verb == first.lower():  # a command already ("Set the priority …")
        return t
    return f"{verb.capitalize() if first[:1].isupper() else verb} {rest}".strip()


def _synonyms(text: str, vocabulary: Vocabulary) -> str:
    for rx, replacement in words_of(vocabulary).synonyms:
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
    if not SLOT.search(milestone):
        return milestone
    values_left = iter(_slot_values(action, vocabulary))
    targets = words_of(vocabulary).targets

    def fill(m: re.Match[str]) -> str:
        kind = slot_words(m.group(0))
        if kind in targets:  # <Object>, <Receptacle>: the thing of that kind the action handles
            return next(iter(targets_in_order(action, kind, vocabulary)), "")
        return next(values_left, "")

    out = SLOT.sub(fill, milestone)
    return " ".join(out.replace('""', " ").split())


def slot_words(slot: str) -> str:
    """A slot's name as words: '<PhoneNumber>' → 'phone number', '<due_date>' → 'due date'."""
    name = slot.strip("<>").replace("_", " ")
    return " ".join(re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name).lower().split())


@functools.lru_cache(maxsize=1 << 16)
def _slot_values(action: str, vocabulary: Vocabulary = None) -> tuple[str, ...]:
    """The values an action gives, in order (quoted texts, file names, names, times)."""
    a = rephrase(action, vocabulary)
    # A button's label names what is tapped, not a value: 'Tap the "Navigate up" button' has no
    # message to put in 'Send the message "<Message>"'.
    found = [m.group(1) for m in QUOTED.finditer(a) if m.group(1).strip() and not _LABEL_OF.match(a, m.end())]
    found += [f for f in FILE.findall(a) if f not in " ".join(found)]
    rest = FILE.sub(" ", QUOTED.sub(" ", a))
    first = re.match(r"\s*\S+", rest)
    body = rest[first.end() :] if first else rest
    found += [c for c in CAPS.findall(body) if c not in STOP_CAPS]
    found += _TIME.findall(rest) and [f"{h}:{m}" for h, m in _TIME.findall(rest)]
    return tuple(found)


@functools.lru_cache(maxsize=1 << 16)
def normalize(text: str, vocabulary: Vocabulary = None) -> str:
    """The text the guarded mode encodes: :func:`rephrase`, then quotes removed."""
    return " ".join(rephrase(text, vocabulary).replace('"', " ").split())


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
NUMBER = re.compile(r"\d+(?:\.\d+)?")
FILE = re.compile(r"\b[\w-]+\.[A-Za-z][A-Za-z0-9]{0,4}\b")
CAPS = re.compile(r"(?<![\w'])[A-Z][\w&'-]*(?:\s+(?:[A-Z][\w&'-]*|&))*")
STOP_CAPS = {"I", "A", "An", "The"}


def values(text: str, vocabulary: Vocabulary = None) -> dict[str, set[Any]]:
    """Rule 3's values of a text: ``dates`` (month, day), ``weekdays``, ``times``, ``phones``,
    ``numbers`` and ``names`` (quoted strings, file names, capitalised names).

    >>> v = values('Set the event start to Sat, Oct 21, 2023 10:00 in Calendar')
    >>> sorted(v["dates"]), sorted(v["times"]), v["names"]
    ([(10, 21)], ['10:00'], set())
    >>> sorted(values('Tap the "Save" button to save the profile "Ada Lovelace" in People')["names"])
    ['Ada Lovelace']
    """
    return {k: set(v) for k, v in frozen_values(text, vocabulary).items()}


@functools.lru_cache(maxsize=1 << 16)
def frozen_values(text: str, vocabulary: Vocabulary = None) -> dict[str, frozenset[Any]]:
    """:func:`values` as frozen sets, cached (what rule 3 compares)."""
    t = rephrase(text, vocabulary)
    out: dict[str, set[Any]] = {k: set() for k in ("dates", "weekdays", "times", "phones", "numbers", "names")}

    def cut(rx: re.Pattern[str], kind: str, conv: Callable[[re.Match[str]], Any]) -> None:
        nonlocal t
        for m in rx.finditer(t):
            v = conv(m)
            if v is not None:
                out[kind].add(v)
        t = rx.sub(" ", t)

    quoted = [q for q in QUOTED.findall(t) if q.strip()]
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
    files = FILE.findall(t)
    out["names"].update(files)
    out["numbers"] = {float(n) for n in NUMBER.findall(FILE.sub(" , ", t))}
    t = FILE.sub(" , ", QUOTED.sub(" , ", t))
    first = re.match(r"\s*\S+", t)
    body = t[first.end() :] if first else t  # the first word is capitalised anyway
    for c in CAPS.findall(body):
        if c not in STOP_CAPS and not re.fullmatch(rf"(?:{_WEEKDAY}|{_MONTH})", c, re.I):
            out["names"].add(c)
    return {k: frozenset(v) for k, v in out.items()}


# -- the family's things ---------------------------------------------------------------------

#: A typing report's tail that moves the cursor on ("; press Enter to move to the next field …").
NEXT_FIELD = re.compile(r";\s*press enter to move to the next field\b.*$", re.I)


@functools.lru_cache(maxsize=1 << 16)
def targets_in_order(text: str, kind: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    """The family's things of ``kind`` a text names, in the order it names them
    (:attr:`MatchingVocabulary.targets`)."""
    t = NEXT_FIELD.sub("", rephrase(text, vocabulary))  # the field the cursor moves to is not the one typed into
    words = words_of(vocabulary)
    if words.feedback is not None:  # what a text world answers names what is seen, not what is handled
        t = words.feedback.sub("", t)
    found = [(m.start(), name) for name, rx in words.targets[kind].items() if (m := rx.search(t))]
    return tuple(name for _, name in sorted(found))


def clear_text_caches() -> None:
    """Forget what the text readers computed (part of :func:`~wrappers.matching.rules.clear_rule_caches`)."""
    for f in (rephrase, fill_slots, _slot_values, normalize, frozen_values, targets_in_order):
        f.cache_clear()
