"""UI-Mem's parameterised experience: concrete values become ``{{slot}}`` placeholders (§3.2).

An experience is stored abstract (``Tap 'Save' to create {{Name}}``) and filled with an episode's
values when it is given as guidance. The values are the env's ``info["placeholders"]`` (slot ->
value); abstraction replaces whole-word occurrences, longest values first, as the milestone book
does with its ``<Slot>`` templates, and a ``<Slot>`` milestone template reads as ``{{Slot}}``.

>>> abstract("Type 'Zara Costa' and tap Save", {"Name": "Zara Costa"})
"Type '{{Name}}' and tap Save"
>>> instantiate("Type '{{ Name }}' in {{field}}", {"Name": "Zara Costa"})
"Type 'Zara Costa' in {{field}}"
>>> slots("Add {{city1}} then {{ city2 }}"), from_angle("Enter <Name>")
(['city1', 'city2'], 'Enter {{Name}}')
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from wrappers.generation import abstract as _abstract_values

__all__ = ["abstract", "from_angle", "instantiate", "slots"]

_SLOT = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def abstract(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each value of ``values`` replaced by its ``{{slot}}``."""
    return _abstract_values(text, values, slot_format="{{{{{}}}}}")


def instantiate(text: str, values: Mapping[str, str]) -> str:
    """``text`` with each ``{{slot}}`` filled from ``values`` (unknown slots stay as they are)."""
    return _SLOT.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def slots(text: str) -> list[str]:
    """The slots ``text`` names, in order, each once."""
    return list(dict.fromkeys(m.group(1) for m in _SLOT.finditer(text)))


def from_angle(template: str) -> str:
    """A milestone template's ``<Slot>`` placeholders as ``{{Slot}}``."""
    return re.sub(r"<(\w+)>", r"{{\1}}", template)
