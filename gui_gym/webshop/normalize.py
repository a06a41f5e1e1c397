"""Colour and size normalisation of option values, as WebShop's reward reads them.

The reward compares a purchased option with a goal option after replacing each by the first
base colour it contains (``web_agent_site/engine/normalize.py:4-24,71-76``): ``"navy blue"``
becomes ``"blue"`` because ``blue`` precedes ``navy`` in the list, ``"washed denim"`` becomes
``"ash"``. :func:`normalize_color` keeps that substring rule and that order, including for the
``(name, value)`` pairs that synthetic goals pass in (``in`` on a tuple is element equality).

Example:
    >>> normalize_color("navy blue"), normalize_color("light grey"), normalize_color("16 oz")
    ('blue', 'grey', '16 oz')
    >>> normalize_color(("color", "black")), normalize_color(("color", "jet black"))
    ('black', ('color', 'jet black'))
"""

from __future__ import annotations

from typing import TypeVar

__all__ = ["COLOR_SET", "normalize_color"]

#: The base colours in upstream's order: the first one contained wins.
COLOR_SET: tuple[str, ...] = (
    "alabaster", "apricot", "aqua", "ash", "asphalt", "azure",
    "banana", "beige", "black", "blue", "blush", "bordeaux", "bronze",
    "brown", "burgundy", "camel", "camo", "caramel", "champagne",
    "charcoal", "cheetah", "chestnut", "chocolate", "christmas", "coffee",
    "cognac", "copper", "coral", "cranberry", "cream", "crystal", "dark",
    "denim", "eggplant", "elephant", "espresso", "fuchsia", "gold", "granite",
    "grape", "graphite", "grass", "gray", "green", "grey", "heather", "indigo",
    "ivory", "ivy", "khaki", "lavender", "lemon", "leopard", "light", "lilac",
    "lime", "magenta", "maroon", "mauve", "merlot", "midnight", "mint", "mocha",
    "multicolor", "mushroom", "mustard", "natural", "navy", "nude", "olive",
    "orange", "peach", "pewter", "pink", "plum", "purple", "rainbow", "red",
    "rose", "royal", "rust", "sand", "sapphire", "seashell", "silver", "skull",
    "slate", "steel", "stone", "stonewash", "sunflower", "tan", "taupe", "teal",
    "tiger", "turquoise", "violet", "walnut", "wheat", "white", "wine", "yellow",
)  # fmt: skip

T = TypeVar("T")


def normalize_color(value: T) -> str | T:
    """The first base colour ``in`` *value* (a substring of a string, an element of a tuple),
    else *value* unchanged."""
    for color in COLOR_SET:
        if color in value:  # type: ignore[operator]
            return color
    return value
