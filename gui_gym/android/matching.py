"""The phone's words for ADMIRE's milestone matcher (:class:`~gui_gym.core.matching.MatchingVocabulary`).

What names things on the simulated phone — its apps, settings, tabs, fields and objects, the
closed sets of values its apps offer, and the other words people use for its commands — for
:mod:`wrappers.matching`, which reaches it through ``family_of(env).matching()``. The labelled
pairs these were checked on are ``data/matching_pairs.jsonl`` (:mod:`gui_gym.android.matching_pairs`)
and ``data/phrasing_pairs*.jsonl``.

Example:
    >>> import re
    >>> any(re.search(p, "Tap the Start chat button", re.I) for p, _ in VOCABULARY.synonyms)
    True
    >>> sorted(VOCABULARY.targets)
    ['app', 'field', 'object', 'setting', 'tab']
"""

from __future__ import annotations

from gui_gym.core.matching import MatchingVocabulary

__all__ = ["CLOSED_SETS", "FIELDS", "SYNONYMS", "TARGETS", "VOCABULARY"]

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

#: Closed sets of values the apps offer: when both texts name members of one, they must agree.
CLOSED_SETS: dict[str, tuple[str, ...]] = {
    "level": ("none", "low", "medium", "high", "urgent"),
    "repetition": ("daily", "weekly", "monthly", "yearly", "annually", "no repetition", "never", "once"),
    "size": ("smallest", "small", "default", "large", "largest", "huge", "tiny"),
    "mode": ("view mode", "edit mode", "reading mode", "editing mode"),
    # Pro Expense's categories ("Other" left out: it is a word of any sentence)
    "category": ("food", "transport", "entertainment", "health", "bills", "shopping"),
}

#: The home screen closes an app: going there is not opening one.
AXES = (("open/close", "open", r"\bopen\w*|\blaunch\w*", "close", r"\bhome screen\b|\bgo home\b"),)

#: Fields of the phone's forms (what a ``<Slot>`` may name, and the labels of its text fields).
FIELDS: dict[str, str] = {
    "name": r"(?:full |contact(?:'s)? )?names?|first name|last name|surname|given name|family name",
    "phone": r"phone(?: number)?|mobile(?: number)?|(?:tele)?phone|number|cell",
    "email": r"e-?mail(?: address)?",
    "company": r"company|organi[sz]ation|employer",
    "title": r"title|task name|event name|subject",
    "message": r"message|text|sms|reply|body",
    "amount": r"amount|price|cost|sum",
    "note": r"notes?|note content|content|body",
    "time": r"time|hour|minute",
    "label": r"label",
}
NUMERIC_FIELDS = frozenset({"phone", "amount", "time"})

# "the floating", "the round blue": up to two words before the icon, none of them the gesture
_GESTURE_WORD = r"(?:tap|tapped|taps|click|clicked|clicks|press|pressed|hit|on)"
_ICON = rf"\b(?:(?:the|a|an)\s+)?(?:\b(?!{_GESTURE_WORD}\b)[\w-]+\s+){{0,2}}?"
_SWITCH = r"\b(?:tap|click|flip|toggle)(?:s|ped|ed)?\s+(?:the\s+)?(?:switch|toggle)\s+(?:next to|for|of|beside)\s+"
#: Other words for the phone's commands, and the icons of its buttons by what they do, each rewritten
#: to the words of the simulator's milestones and descriptions.
SYNONYMS: tuple[tuple[str, str], ...] = (
    (r"\b(?:start|begin|compose)(?:s|ed|ing)? (?:a )?(?:new )?(?:chat|conversation|message|sms)\b",
     "start a new conversation"),
    (r"\bnew (?:chat|conversation|message)\b", "new conversation"),
    (_ICON + r'(?:"\+"|\+|plus|fab|floating action)\s+(?:button|icon|sign)\b', 'the "Add new" button'),
    (_ICON + r"(?:check ?mark|tick)\s+(?:icon|button)\b", 'the "Save" button'),
    (_ICON + r"(?:pencil|pen)\s+(?:icon|button)\b", 'the "Edit" button'),
    (_ICON + r"(?:trash|bin|garbage|rubbish)(?: can)?\s+(?:icon|button)\b", 'the "Delete" button'),
    (_ICON + r"(?:kebab|overflow|three[- ]dots?|three[- ]dot menu|⋮)(?:\s+(?:icon|button|menu))?\b",
     'the "More options" button'),
    (_ICON + r"(?:magnifying glass|magnifier|search)\s+(?:icon|button)\b", 'the "Search" button'),
    (_ICON + r"(?:gear|cog)\s+(?:icon|button)\b", 'the "Settings" button'),
    (_ICON + r"(?:back arrow|left arrow|up arrow)(?:\s+(?:icon|button))?\b", 'the "Navigate up" button'),
    (_ICON + r"flag\s+(?:icon|button)\b", 'the "Priority" button'),
    (_ICON + r"(?:paper plane|send arrow)(?:\s+(?:icon|button))?\b", 'the "Send" button'),
    (_ICON + r"(?:heart)\s+(?:icon|button)\b", 'the "Favourite" button'),
    (_ICON + r'(?:"x"|x|cross|close)\s+(?:icon|button)\b', 'the "Close" button'),
    (r"\b(?:tap|click|press)(?:s|ped|ed)?\s+(?:on\s+)?" + _ICON + r"star(?:\s+(?:icon|button))?\b",
     "star it as a favourite by tapping the star"),
    # a switch tapped in a known state turns it the other way
    (_SWITCH + r"(?:the\s+)?(.+?)\s*\(currently on\)", r"turn off \1"),
    (_SWITCH + r"(?:the\s+)?(.+?)\s*\(currently off\)", r"turn on \1"),
)  # fmt: skip

VOCABULARY = MatchingVocabulary(
    "android",
    synonyms=SYNONYMS,
    targets=TARGETS,
    closed_sets=CLOSED_SETS,
    axes=AXES,
    fields=FIELDS,
    numeric_fields=NUMERIC_FIELDS,
)
