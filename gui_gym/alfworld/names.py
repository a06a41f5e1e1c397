"""The names ALFWorld shows for PDDL ids: ``Cabinet_bar__minus_01_dot_00_bar_…`` → ``cabinet 2``.

alfworld names every entity of a game with its ``Demangler`` (alfworld 0.4.2,
``alfworld/agents/utils/misc.py:17-69``, applied by ``AlfredDemangler``,
``alfworld/agents/environment/alfred_tw_env.py:24-35``) over the ids TextWorld knows, which are
lower-cased (fast-downward reads PDDL case-insensitively). The rules, as facts:

- the *class* of an id is its part before the first ``_bar_``; an id containing ``basin`` gets
  ``basin`` appended (the data set's basins are ``Sink_bar_…_bar_SinkBasin``, so ``sinkbasin``);
- the instances of a class are numbered 1..n, handed out to the ids in sorted order from the end:
  the first id in string order gets the highest number (``shuffle`` hands them out in a random
  order instead, alfworld's training-time "domain randomization");
- an id without ``_bar_`` (``agent1``, the ``…Type`` constants) keeps its text, with the trailing
  space of ``"{} {}".format(name, "")``.

Example:
    >>> names = demangle(["cabinet_bar__minus_01", "cabinet_bar__plus_01", "sink_bar_2_bar_sinkbasin", "agent1"])
    >>> names["cabinet_bar__minus_01"], names["cabinet_bar__plus_01"], names["sink_bar_2_bar_sinkbasin"]
    ('cabinet 2', 'cabinet 1', 'sinkbasin 1')
    >>> names["agent1"]
    'agent1 '
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

__all__ = ["demangle", "entity_class"]

_SEPARATOR = "_bar_"


def entity_class(entity_id: str) -> str | None:
    """The class an id is counted under (``None`` for an id without ``_bar_``)."""
    head, sep, _ = entity_id.partition(_SEPARATOR)
    if not sep:
        return None
    return head + "basin" if "basin" in entity_id else head


def _plain(entity_id: str) -> str:
    # The text of an id that has no class, with ALFRED's escapes undone (misc.py:48-53).
    for code, char in (("_bar_", "|"), ("_minus_", "-"), ("_plus_", "+"), ("_dot_", "."), ("_comma_", ",")):
        entity_id = entity_id.replace(code, char)
    return entity_id


def demangle(ids: Iterable[str], rng: random.Random | None = None) -> dict[str, str]:
    """The display name of every id (lower-cased PDDL ids, as TextWorld holds them).

    With ``rng``, the ids are shuffled before numbering (alfworld's ``shuffle=True``); without it
    the numbering is alfworld's evaluation-time one.
    """
    order = sorted(set(ids))
    if rng is not None:
        rng.shuffle(order)
    counts: dict[str, int] = defaultdict(int)
    for entity_id in order:
        cls = entity_class(entity_id)
        if cls is not None:
            counts[cls] += 1
    names: dict[str, str] = {}
    for entity_id in order:
        cls = entity_class(entity_id)
        if cls is None:
            names[entity_id] = f"{_plain(entity_id)} "
        else:
            names[entity_id] = f"{cls} {counts[cls]}"
            counts[cls] -= 1
    return names
