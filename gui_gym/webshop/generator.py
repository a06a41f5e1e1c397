"""The embedded WebShop catalog: products and goals generated from a seed, in upstream's files.

:func:`generate` makes ``num_products`` products (1,000 by default, like upstream's small set;
100,000 works) across five categories — beauty, food, fashion, furniture, electronics — with
eight product types each (:mod:`gui_gym.webshop.vocabulary`). Products come in clusters of one
type whose members differ on purpose: other hidden attributes, other or near-miss option values
("navy" / "navy blue", "x-large" / "xx-large", "pack of 2" / "pack of 3"), a higher price, or
another type with the same attributes — so that reading the page matters.

Each product has an Amazon-style title, bullet points, a description, reviews, option groups, a price or
a price range (some none: upstream then sells at $100), and hidden attributes of which some
appear in its text and some only in the attribute file. The goals are upstream's two kinds:

- the attribute file's synthetic instruction ("i need a sulfate free shampoo for dry hair") with
  the attributes it names — upstream turns it into one goal per option combination;
- human-style instructions ("i am looking for a sulfate free shampoo for dry hair in 16 fl oz
  size") with the attributes and option values they name; about a third name no option.

:func:`write` puts them in a directory as ``items_shuffle.json``, ``items_ins_v2.json`` and
``items_human_ins.json`` (upstream's formats and full-data names; ``names="small"`` writes the
``*_1000.json`` names upstream's code reads by default) plus
``reviews.json`` (upstream's review file, which its loader leaves out; ``reviews=True`` shows them)
and ``title_nouns.json``: for every product the nouns and proper nouns of its title, which stand in
for upstream's spaCy tagger in the type reward: spaCy's own (``en_core_web_sm`` 3.6, shipped for
the default catalog's titles) or, for other titles, the nouns known by construction.

Example:
    >>> made = generate(num_products=100, seed=1)
    >>> len(made.products), made.products[0]["asin"][:2], sorted({p["category"] for p in made.products})
    (100, 'B0', ['beauty', 'electronics', 'fashion', 'food', 'furniture'])
    >>> generate(num_products=100, seed=1) == made
    True
"""

from __future__ import annotations

import functools
import gzip
import json
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gui_gym.core.io import atomic_write
from gui_gym.webshop.vocabulary import BRANDS, CATEGORIES, NOUN_WORDS, OPTION_VALUES, USES, ProductType

__all__ = [
    "CLUSTER",
    "DEARER",
    "GOAL_ATTRIBUTES",
    "GOAL_OPTIONS",
    "NO_OPTIONS",
    "NO_OPTION_GOALS",
    "TEXT_SHOWS_ATTRIBUTE",
    "GeneratedCatalog",
    "generate",
    "read_title_nouns",
    "spacy_title_nouns",
    "write",
]

CLUSTER = 8  # products per cluster of one type (the near misses of one another)
DEARER = 0.5  # the chance that a near miss costs 1.5-3 times as much
NO_OPTIONS = 0.08  # products without option groups
NO_OPTION_GOALS = 0.25  # the share of human goals that name no option
HUMAN_GOALS_PER_PRODUCT = (1, 2, 3, 4)  # drawn uniformly for the products that have human goals
HUMAN_GOAL_SHARE = 0.9  # products with human goals
GOAL_ATTRIBUTES = (1, 2, 3, 3, 4)  # how many attributes a human goal names (drawn uniformly)
GOAL_OPTIONS = (2, 3, 3)  # how many option groups a human goal with options names
TEXT_SHOWS_ATTRIBUTE = 0.1  # the chance that the title or the bullets name a given hidden attribute
_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
_UNITS = frozenset(["oz", "fl", "ounce", "ounces", "inch", "feet", "pound", "pack", "count", "piece"])
_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")


@dataclass(frozen=True)
class GeneratedCatalog:
    """Upstream's three files' contents, the title nouns (asin → nouns) and the reviews in the
    format of upstream's ``reviews.json`` (which its loader leaves out)."""

    products: list[dict[str, Any]]
    attributes: dict[str, dict[str, Any]]
    human_goals: dict[str, list[dict[str, Any]]]
    title_nouns: dict[str, list[str]]
    reviews: list[dict[str, Any]] = field(default_factory=list)


# -- parts of a product ---------------------------------------------------------------------------


def _asin(rng: random.Random, taken: set[str]) -> str:
    while True:
        asin = "B0" + "".join(rng.choice(_ALNUM) for _ in range(8))
        if asin not in taken:
            taken.add(asin)
            return asin


def _nouns(words: str, proper: Sequence[str] = ()) -> list[str]:
    """The nouns of a title phrase as a tagger marks them: brand words, type words, noun-like
    attribute words and units; never numbers, adjectives or function words."""
    out = [w.lower() for w in proper]
    for word in _WORD.findall(words.lower().replace("-", " ")):
        if word[0].isdigit():
            continue
        if word in NOUN_WORDS or word in _UNITS or word in _TYPE_NOUNS:
            out.append(word)
    return out


_TYPE_NOUNS = frozenset(
    w
    for types in CATEGORIES.values()
    for t in types
    for w in (*t.head_nouns, *(n for u in t.uses for n in USES[u]))
    if not w[0].isdigit()
)


def _options(rng: random.Random, kind: ProductType) -> dict[str, list[str]]:
    """Option groups: a contiguous run of each group's values (so neighbours are near misses)."""
    groups: dict[str, list[str]] = {}
    for group in kind.options:
        values = OPTION_VALUES[group]
        if group == "color" or group.startswith("flavor"):
            picked = rng.sample(values, k=min(len(values), rng.randint(2, 6)))
        else:
            n = min(len(values), rng.randint(2, 5))
            start = rng.randint(0, len(values) - n)
            picked = list(values[start : start + n])
        name = "size" if group.startswith("size") else "flavor name" if group.startswith("flavor") else group
        groups[name] = picked
    return groups


def _price(rng: random.Random, kind: ProductType, scale: float = 1.0) -> tuple[str, float]:
    low, high = kind.price
    value = round(rng.uniform(low, high) * scale, 2)
    roll = rng.random()
    if roll < 0.03:
        return "", 100.0  # no price listed: upstream sells at $100
    if roll < 0.25:
        top = round(value * rng.uniform(1.2, 1.8), 2)
        return f"${value:.2f} - ${top:.2f}", value
    return f"${value:.2f}", value


def _title(
    rng: random.Random, brand: str, kind: ProductType, attributes: Sequence[str], options: dict[str, list[str]]
) -> str:
    shown = [a for a in attributes if rng.random() < TEXT_SHOWS_ATTRIBUTE][:2]
    use = rng.choice(kind.uses) if kind.uses and rng.random() < 0.7 else ""
    parts = [brand, *([shown[0]] if shown and rng.random() < 0.5 else []), kind.head]
    title = " ".join(parts)
    if use:
        title += f" for {use.title() if use in ('iphone',) else use}"
    extras = [a for a in shown if a not in parts]
    if extras:
        title += ", " + " and ".join(extras)
    size = options.get("size")
    if size and rng.random() < 0.5:
        title += f", {size[0]}"
    if rng.random() < 0.5:
        title = _title_case(title, brand)
    return title


def _title_case(title: str, brand: str) -> str:
    rest = title[len(brand) :]
    small = {"for", "and", "with", "of", "in", "to", "a"}
    words = [w if w in small or not w[:1].isalpha() else w[:1].upper() + w[1:] for w in rest.split(" ")]
    return brand + " ".join(words)


def _bullets(rng: random.Random, kind: ProductType, attributes: Sequence[str]) -> list[str]:
    lines = []
    for attribute in attributes:
        if rng.random() < TEXT_SHOWS_ATTRIBUTE:
            lines.append(f"{attribute.upper()}: our {kind.head} is {attribute}, made to last and easy to love.")
    lines.append(f"WHAT YOU GET: one {kind.head} and our friendly customer service.")
    lines.append(f"PERFECT GIFT: a thoughtful {kind.query} for family and friends.")
    rng.shuffle(lines)
    return lines


def _description(rng: random.Random, brand: str, kind: ProductType, attributes: Sequence[str]) -> str:
    said = [a for a in attributes if rng.random() < TEXT_SHOWS_ATTRIBUTE / 2]
    text = f"{brand} brings you a {kind.head} designed for everyday use."
    if said:
        text += f" It is {' and '.join(said)}."
    text += rng.choice(
        [
            " Satisfaction guaranteed.",
            " Please check the size chart before ordering.",
            " Colors may vary slightly due to screen settings.",
            "",
        ]
    )
    return text


def _product(rng: random.Random, asin: str, kind: ProductType, brand: str, attributes: list[str], options: dict,
             price_scale: float = 1.0) -> tuple[dict[str, Any], list[str]]:  # fmt: skip
    pricing, _ = _price(rng, kind, price_scale)
    title = _title(rng, brand, kind, attributes, options)
    record = {
        "asin": asin,
        "name": title,
        "full_description": _description(rng, brand, kind, attributes),
        "small_description": _bullets(rng, kind, attributes),
        "pricing": pricing,
        "images": [f"https://example.invalid/images/{asin}.jpg"],
        "category": kind.category,
        "query": kind.query,
        "product_category": kind.breadcrumb,
        "customization_options": {
            name.title(): [{"value": v, "image": None} for v in values] for name, values in options.items()
        }
        or None,
        "brand": brand,
        "average_rating": round(rng.uniform(3.0, 5.0), 1),
    }
    return record, _nouns(title[len(brand) :], brand.replace("&", " ").split())


# -- goals ---------------------------------------------------------------------------------------


def _article(phrase: str) -> str:
    return "an" if phrase[:1] in "aeiou" else "a"


def _option_clause(rng: random.Random, chosen: dict[str, str]) -> str:
    parts = []
    for group, value in chosen.items():
        if group == "color":
            parts.append(f"{value} color")
        elif group == "size":
            parts.append(f"{value} size" if not value[0].isdigit() or rng.random() < 0.5 else value)
        elif group == "flavor name":
            parts.append(f"{value} flavor")
        elif group in ("pack", "item package quantity"):
            parts.append(value if value.startswith("pack") else f"pack of {value}")
        else:
            parts.append(f"{value} {group}")
    if not parts:
        return ""
    return rng.choice([" in ", ", ", " with "]) + " and ".join(parts)


def _human_instruction(rng: random.Random, kind: ProductType, attributes: Sequence[str], chosen: dict[str, str]) -> str:
    named = " and ".join(attributes)
    thing = rng.choice([kind.query, kind.head])
    use = f" for {rng.choice(kind.uses)}" if kind.uses and rng.random() < 0.3 else ""
    opening = rng.choice(
        [
            f"i am looking for {_article(named)} {named} {thing}{use}",
            f"i need {_article(named)} {named} {thing}{use}",
            f"i want to buy {_article(thing)} {thing}{use} that is {named}",
            f"find me {_article(named)} {named} {thing}{use}",
            f"i'm looking for {thing}{use} that are {named}",
        ]
    )
    return opening + _option_clause(rng, chosen) + rng.choice(["", ".", ""])


def _human_goals(rng: random.Random, record: dict[str, Any], kind: ProductType, attributes: list[str],
                 options: dict[str, list[str]]) -> list[dict[str, Any]]:  # fmt: skip
    goals = []
    for i in range(rng.choice(HUMAN_GOALS_PER_PRODUCT)):
        named = rng.sample(attributes, k=min(len(attributes), rng.choice(GOAL_ATTRIBUTES)))
        chosen: dict[str, str] = {}
        if options and rng.random() >= NO_OPTION_GOALS:
            groups = rng.sample(list(options), k=min(len(options), rng.choice(GOAL_OPTIONS)))
            chosen = {g: rng.choice(options[g]) for g in groups}
        goals.append(
            {
                "asin": record["asin"],
                "instruction": _human_instruction(rng, kind, named, chosen),
                "instruction_attributes": named,
                "instruction_options": list(chosen.values()),
                "options": [f"{g}: {v}" for g, v in chosen.items()],
                "worker_id": f"W{rng.randrange(10**9):09d}",
                "assignment_id": f"{record['asin']}-{i}",
            }
        )
    return goals


def _synthetic_instruction(rng: random.Random, kind: ProductType, named: Sequence[str]) -> str:
    return rng.choice(["i need", "find me", "i want", "i am looking for"]) + f" {' and '.join(named)} {kind.query}"


# -- the catalog ---------------------------------------------------------------------------------


def generate(num_products: int = 1000, seed: int = 0) -> GeneratedCatalog:
    """The catalog of *num_products* products for *seed* (the same pair, the same bytes)."""
    if num_products < 1:
        raise ValueError(f"num_products must be at least 1, got {num_products}")
    rng = random.Random(f"webshop-catalog:{seed}")
    tagged = spacy_title_nouns()
    # the types round-robin over the categories, so that any prefix of the catalog spans all five
    kinds = [t for group in zip(*CATEGORIES.values(), strict=True) for t in group]
    taken: set[str] = set()
    products: list[dict[str, Any]] = []
    attributes: dict[str, dict[str, Any]] = {}
    human: dict[str, list[dict[str, Any]]] = {}
    nouns: dict[str, list[str]] = {}
    while len(products) < num_products:
        kind = kinds[len(products) // CLUSTER % len(kinds)] if rng.random() < 0.8 else rng.choice(kinds)
        base_attrs = rng.sample(kind.attributes, k=rng.randint(3, min(5, len(kind.attributes))))
        base_options = _options(rng, kind)
        brand = rng.choice(BRANDS[kind.category])
        for member in range(CLUSTER):
            if len(products) >= num_products:
                break
            attrs, options, this_kind, scale = (
                list(base_attrs),
                {k: list(v) for k, v in base_options.items()},
                kind,
                1.0,
            )
            variant = member % 4
            if variant in (1, 3):  # same type, other attributes (sharing some by chance)
                attrs = rng.sample(kind.attributes, k=len(base_attrs))
            elif member >= 4:  # same type, two attributes swapped for others
                for slot in rng.sample(range(len(attrs)), k=min(2, len(attrs))):
                    others = [a for a in kind.attributes if a not in attrs]
                    attrs[slot] = rng.choice(others) if others else attrs[slot]
            if variant == 2:  # same type and attributes, other option values
                options = _options(rng, kind)
            if member and rng.random() < DEARER:  # the same kind of thing at a higher price
                scale = rng.uniform(1.5, 3.0)
            if member == CLUSTER - 1:  # another type of the category with these attributes
                this_kind = rng.choice(CATEGORIES[kind.category])
                options = _options(rng, this_kind)
            if rng.random() < NO_OPTIONS:
                options = {}
            brand_here = brand if rng.random() < 0.5 else rng.choice(BRANDS[this_kind.category])
            asin = _asin(rng, taken)
            record, title_nouns = _product(rng, asin, this_kind, brand_here, attrs, options, scale)
            products.append(record)
            nouns[asin] = tagged.get(record["name"], title_nouns)
            named = rng.sample(attrs, k=rng.randint(1, min(3, len(attrs))))
            attributes[asin] = {
                "attributes": attrs,
                "instruction": _synthetic_instruction(rng, this_kind, named),
                "instruction_attributes": named,
            }
            if rng.random() < HUMAN_GOAL_SHARE:
                human[asin] = _human_goals(rng, record, this_kind, attrs, options)
    reviews = [_reviews(seed, p, attributes[p["asin"]]["attributes"]) for p in products]
    return GeneratedCatalog(products, attributes, human, nouns, reviews)


_PRAISE = ("works great", "love it", "exactly as described", "great value", "would buy again", "five stars")
_COMPLAINTS = ("not as pictured", "broke after a week", "runs small", "too expensive for what it is", "meh")


def _reviews(seed: int, product: dict[str, Any], attributes: Sequence[str]) -> dict[str, Any]:
    """A product's reviews in upstream's ``reviews.json`` format, from a stream of their own (so
    the catalog's other draws do not depend on them)."""
    rng = random.Random(f"webshop-reviews:{seed}:{product['asin']}")
    out = []
    for _ in range(rng.choice((0, 1, 2, 2, 3, 4))):
        stars = rng.choices((1, 2, 3, 4, 5), weights=(1, 1, 2, 4, 6))[0]
        title = rng.choice(_PRAISE if stars >= 4 else _COMPLAINTS)
        said = f" It is {rng.choice(attributes)} as promised." if attributes and stars >= 4 else ""
        out.append({"title": title, "stars": stars, "review": f"{title.capitalize()}.{said}"})
    rating = round(sum(r["stars"] for r in out) / len(out), 1) if out else "N.A."
    return {"asin": product["asin"], "reviews": out, "average_rating": rating}


@functools.lru_cache(maxsize=1)
def spacy_title_nouns() -> dict[str, list[str]]:
    """spaCy's nouns (``en_core_web_sm`` 3.6, as upstream's type reward takes them) of every title
    of the default catalog (``generate(1000, seed=0)``, hence of its prefixes), shipped with the
    package; other titles get the nouns known by construction."""
    path = Path(__file__).parent / "data" / "title_nouns_spacy.json.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return {str(k): list(v) for k, v in json.load(f)["nouns"].items()}


def write(catalog: GeneratedCatalog, directory: str | Path, names: str = "full") -> dict[str, Path]:
    """Write the catalog's files into *directory* (created if needed); their paths by role.
    *names* ``full`` writes ``items_shuffle.json`` and ``items_ins_v2.json`` (upstream's full-data
    names); ``small`` writes ``items_shuffle_1000.json`` and ``items_ins_v2_1000.json``, the names
    upstream's code reads by default (``web_agent_site/utils.py``, ``setup.sh -d small``)."""
    if names not in ("full", "small"):
        raise ValueError(f"names must be 'full' or 'small', got {names!r}")
    suffix = "_1000" if names == "small" else ""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    files = {
        "products": (directory / f"items_shuffle{suffix}.json", catalog.products),
        "attributes": (directory / f"items_ins_v2{suffix}.json", catalog.attributes),
        "human_goals": (directory / "items_human_ins.json", catalog.human_goals),
        "title_nouns": (directory / "title_nouns.json", catalog.title_nouns),
        "reviews": (directory / "reviews.json", catalog.reviews),
    }
    for path, data in files.values():
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        atomic_write(str(path), lambda f, text=text: f.write(text))
    return {role: path for role, (path, _) in files.items()}


def read_title_nouns(path: str | Path) -> dict[str, list[str]]:
    """A ``title_nouns.json`` (asin → nouns)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise ValueError(f"{path}: a title-noun file maps product ids to lists of nouns")
    return {str(k): [str(n) for n in v] for k, v in data.items()}


if __name__ == "__main__":  # python -m gui_gym.webshop.generator DIR [NUM_PRODUCTS]
    import sys

    made = generate(int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
    for role, path in write(made, sys.argv[1] if len(sys.argv) > 1 else ".").items():
        print(role, path)
