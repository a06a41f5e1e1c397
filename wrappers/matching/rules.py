"""The guarded mode's vetoes: rules 2-5, each a list of conflicts between an action and a milestone.

Rule 1, ``phrasing`` (what is encoded), is :mod:`wrappers.matching.text`'s. A conflict makes a
positive score 0 (:class:`~wrappers.matching.matcher.SemanticMatcher`).

2. ``polarity``: the texts must not take opposite sides of an axis
   (:data:`~wrappers.matching.vocabulary.AXES`, and the family's): on/off (enable/disable),
   start/pause, save·create·add·new·send/delete·remove·clear·discard, completed·selected/not
   completed·unselected, maximum/minimum, favourite/unfavourite, show/hide, open/close,
   next/previous; nor X/unX, nor "not" in one only; nor name operations that exclude each other
   (:data:`~wrappers.matching.vocabulary.OPERATIONS` and the family's: delete, turn off, rename,
   move, copy; heat, put …).
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

Every rule is explained by :meth:`~wrappers.matching.matcher.SemanticMatcher.explain`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from typing import Any

from wrappers.matching.text import (
    CAPS,
    FILE,
    NEXT_FIELD,
    NUMBER,
    PAST,
    QUOTED,
    SLOT,
    STOP_CAPS,
    clear_text_caches,
    frozen_values,
    rephrase,
    slot_words,
    targets_in_order,
)
from wrappers.matching.vocabulary import DOING, Vocabulary, words_of

# -- polarity --------------------------------------------------------------------------------

#: Axes whose negative side contains a positive word ("not completed", "remove from favourites").
_NEGATIVE_WINS = ("completed/not completed", "favourite/unfavourite", "save/delete")
_NOT = re.compile(r"\bnot\b|n't\b", re.I)


def _polar_text(text: str) -> str:
    """The text with quoted values (over two words, or not plain words) blanked out."""

    def keep(m: re.Match[str]) -> str:
        inner = m.group(1)
        return f" {inner} " if len(inner.split()) <= 2 and re.fullmatch(r"[A-Za-z ]+", inner) else " "

    return QUOTED.sub(keep, text)


def _command(text: str, vocabulary: Vocabulary) -> str:
    """A rephrased text without what the world answered (:attr:`MatchingVocabulary.feedback`)."""
    feedback = words_of(vocabulary).feedback
    return feedback.sub("", text) if feedback is not None else text


@functools.lru_cache(maxsize=1 << 16)
def _polar(text: str, vocabulary: Vocabulary = None) -> str:
    return _polar_text(rephrase(text, vocabulary))


def _polarity_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    a, m = _polar(action, vocabulary), _polar(milestone, vocabulary)
    out = []
    for axis, pn, pos, nn, neg in words_of(vocabulary).axes:
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
    operations = words_of(vocabulary).operations
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


def _words(s: str) -> frozenset[str]:
    return frozenset(w for w in re.findall(r"[a-z0-9]+", re.sub(r"['’]s\b", "", s.lower())))


def _targets(text: str, kind: str, vocabulary: Vocabulary) -> set[str]:
    """The family's things of ``kind`` a text names (:attr:`MatchingVocabulary.targets`)."""
    return set(targets_in_order(text, kind, vocabulary))


def _agree(a: str, b: str) -> bool:
    wa, wb = _words(a), _words(b)
    return bool(wa) and bool(wb) and (wa <= wb or wb <= wa)


def _show(xs: Iterable[Any]) -> list[Any]:
    return sorted(xs, key=str)


_FIELD_LABEL = re.compile(r"(?:into|in|of|field|to)\s*$", re.I)


def _texts(text: str, vocabulary: Vocabulary = None) -> list[str]:
    """The quoted texts of two words or more that are not a field's label (``into "Last name"``)."""
    t = NEXT_FIELD.sub("", rephrase(text, vocabulary))
    return [
        m.group(1)
        for m in QUOTED.finditer(t)
        if len(m.group(1).split()) >= 2 and not _FIELD_LABEL.search(t[: m.start()])
    ]


def _value_conflicts(action: str, milestone: str, vocabulary: Vocabulary = None) -> list[str]:
    # a <Slot> stands for any value: what the milestone names besides its slots must still agree
    unslotted = SLOT.sub(" ", milestone)
    va, vm = frozen_values(action, vocabulary), frozen_values(unslotted, vocabulary)
    out = []
    fa = {f.lower() for f in FILE.findall(QUOTED.sub(r" \1 ", rephrase(action, vocabulary)))}
    fm = {f.lower() for f in FILE.findall(QUOTED.sub(r" \1 ", rephrase(unslotted, vocabulary)))}
    if fa and fm and not fm <= fa:  # file names are whole: "budget.md" is not "budget_notes.md"
        out.append(f"files: milestone {_show(fm)} vs action {_show(fa)}")
    words = words_of(vocabulary)
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

#: After a quoted text: the text is the label of what is tapped, not a value.
_LABEL_AFTER = re.compile(r"\s+(?:button|item|field|tab|icon|option|menu|link|box|checkbox|chip|entry)\b", re.I)


def _fields(text: str, vocabulary: Vocabulary) -> set[str]:
    """The family's fields a text names (:attr:`MatchingVocabulary.fields`)."""
    return {name for name, rx in words_of(vocabulary).fields.items() if rx.search(text)}


def _slot_kind(slot: str, vocabulary: Vocabulary) -> str | None:
    """What a slot's value is by its name, "number" or "text"; None when the name does not say."""
    name = slot_words(slot)
    fields = _fields(name, vocabulary)
    numeric = words_of(vocabulary).numeric
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
    a = NEXT_FIELD.sub("", rephrase(action, vocabulary))
    slots = SLOT.findall(milestone)
    if typed := _TYPED.match(a):
        value, label = typed.group(1) or typed.group(2), typed.group(3) or typed.group(4)
        spelled = SLOT.sub(lambda m: f" {slot_words(m.group(0))} ", milestone)
        fm, fa = _fields(spelled, vocabulary), _fields(label, vocabulary)
        if fm and fa and not fm & fa:  # 'Enter the phone number …' typed into "Email"
            out.append(f"field: milestone {_show(fm)} vs typed into {label!r}")
        elif not words_of(vocabulary).fields and slots:  # no family fields: the slot's words must be the label's
            sw = set().union(*(_words(slot_words(x)) for x in slots))
            if not sw & _words(label) and not _words(label) <= _words(spelled):
                out.append(f"field: milestone {slots} vs typed into {label!r}")
        # The slot the value fills: the one naming the label's field; none when the milestone's own
        # words name that field ("Save <Name>'s phone number": the number is not the name).
        own = [x for x in slots if _label_agrees(label, slot_words(x), vocabulary)]
        plain = SLOT.sub(" ", milestone)
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
    if words_of(vocabulary).fields:
        return bool(_fields(label, vocabulary) & _fields(text, vocabulary))
    return bool(_words(label) & _words(text) - {"the", "a", "an"})


def _gives_value(action: str, slot: str, vocabulary: Vocabulary) -> bool:
    """Whether the action gives a value for a slot: not a label of what it taps, nor the slot's
    own name ('Tap "Due date"' gives no due date)."""
    if slot_words(slot) in words_of(vocabulary).targets:
        return bool(targets_in_order(action, slot_words(slot), vocabulary))
    a = rephrase(action, vocabulary)
    own = _words(slot_words(slot)) | {"the", "a", "an"}
    found = [m.group(1) for m in QUOTED.finditer(a) if not _LABEL_AFTER.match(a, m.end())]
    rest = QUOTED.sub(" , ", a)
    found += [*FILE.findall(rest), *NUMBER.findall(rest)]
    found += [c for c in CAPS.findall(rest.split(" ", 1)[1] if " " in rest else "") if c not in STOP_CAPS]
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
        if lemma in DOING or lemma in _NOT_TYPING or lemma in PAST.values():
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
    a, m = rephrase(action, vocabulary), QUOTED.sub(" value ", rephrase(milestone, vocabulary))
    words = words_of(vocabulary)
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
    return list(cached_conflicts(str(action), str(milestone), tuple(rules), vocabulary))


@functools.lru_cache(maxsize=1 << 16)
def cached_conflicts(
    action: str, milestone: str, rules: tuple[str, ...], vocabulary: Vocabulary = None
) -> tuple[str, ...]:
    """:func:`conflicts` of the rules named, as a tuple, cached (what the matcher's veto asks)."""
    return tuple(why for rule in rules if rule in _CHECKS for why in _CHECKS[rule](action, milestone, vocabulary))


def clear_rule_caches() -> None:
    """Forget what the text rules computed (a benchmark's cold round)."""
    clear_text_caches()
    for f in (_polar, cached_conflicts):
        f.cache_clear()
