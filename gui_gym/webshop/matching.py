"""The shop's words for ADMIRE's milestone matcher (:class:`~gui_gym.core.matching.MatchingVocabulary`).

WebShop's milestones ("Search for bluetooth headphones", "Click a bluetooth headphones item",
'Click "grey"', 'Click "Buy Now"') and action descriptions ('Search for "…"', 'Click "B0X7DJ7ML8"
(Voltix Wireless Bluetooth Headphones)', 'Click "grey" on B0X7DJ7ML8') name the shop's four steps
— search, open a product, choose its options, buy — and its option values
(:data:`gui_gym.webshop.vocabulary.OPTION_VALUES`); people name them in their own words ("purchase
it", "pick the grey colour", "the product page is open"). :mod:`wrappers.matching` reaches this
through ``family_of(env).matching()``.

Example:
    >>> import re
    >>> text = 'Click "Buy Now" on B0X7DJ7ML8'
    >>> for pattern, replacement in VOCABULARY.synonyms:
    ...     text = re.sub(pattern, replacement, text, flags=re.I)
    >>> text
    'buy the product'
"""

from __future__ import annotations

import re

from gui_gym.core.matching import MatchingVocabulary
from gui_gym.webshop.vocabulary import OPTION_VALUES

__all__ = ["CLOSED_SETS", "SYNONYMS", "VOCABULARY"]

#: Option values by group: a milestone's value must be the one clicked ("grey" is not "black").
CLOSED_SETS: dict[str, tuple[str, ...]] = {
    group: tuple(sorted((re.escape(v) for v in values), key=len, reverse=True))
    for group, values in OPTION_VALUES.items()
    if group != "size_shoes"  # bare numbers: the world-free number rule holds them
}

_PRESS = r"\b(?:click|press|tap|hit|select|choose)(?:s|es|ed|ing)?\s+(?:on\s+)?(?:the\s+)?(?:[\w-]+\s+)?"
#: The shop's steps in other words, rewritten to the words of its milestones and descriptions.
SYNONYMS: tuple[tuple[str, str], ...] = (
    # the product a click opens, its id left out: 'Click "B0X7DJ7ML8" (Voltix …)' → 'open the product Voltix …'
    (_PRESS + r'"(?:B0[A-Z0-9]{8})"\s*\((.+)\)', r"open the product \1"),
    (r"^click (?:on )?an? (.+?) item$", r"open a \1 product"),
    (_PRESS + r'"?buy now"?(?:\s+button)?(?:\s+on\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?page|\s+on\s+B0[A-Z0-9]{8})?',
     "buy the product"),
    (r"\b(?:the )?order (?:for (.+?) )?(?:is|was|has been|gets) placed\b", r"buy \1"),
    (r"\bplace[sd]? (?:an |the )?order(?: for)?\b", "buy"),
    (r"\b(?:purchase[sd]?|purchasing|check(?:s|ed)? ?out|order(?:s|ed)?)\b", "buy"),
    # the shop has one buy button, and its description does not name the product: any buying is it
    (r"^(?:(?:please|now|then|finally)\s+)?buy\b.*$", "buy the product"),
    (_PRESS + r'"next\s*>?"(?:\s+button)?', "go to the next page of results"),
    (_PRESS + r'"<?\s*prev(?:ious)?"(?:\s+button)?', "go to the previous page of results"),
    (_PRESS + r'"back to search"(?:\s+button)?', "go back to the search"),
    # an option chosen on a product page: its product id is noise
    (r'^click\s+"([^"]+)"\s+on\s+B0[A-Z0-9]{8}$', r'select "\1"'),
    (r'^click\s+"([^"]+)"$', r'select "\1"'),
    (r'^type\s+"([^"]+)"\s+(?:into|in)\s+the\s+search\s+(?:box|bar|field)(?:\s+and\s+(?:press|hit)\s+enter)?',
     r'search for "\1"'),
    (r"\b(?:look(?:s|ed)? up|query|queried)\b", "search for"),
    (r"\bgray\b", "grey"),
    (r"\bcolou?r\b", "color"),
    (r"\bflavou?r\b", "flavor"),
)  # fmt: skip

VOCABULARY = MatchingVocabulary(
    "webshop",
    synonyms=SYNONYMS,
    closed_sets=CLOSED_SETS,
    fields={"search": r"search(?: box| bar| field)?|query|keywords?"},
    verbs=frozenset({"buy", "purchase", "order", "select", "choose", "pick", "search"}),
)
