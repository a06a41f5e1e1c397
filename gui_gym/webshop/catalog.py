"""Products as upstream WebShop loads them, from its own file formats.

:func:`load_products` reads the three files of a WebShop data directory — the product file
(``items_shuffle*.json``), the attribute file (``items_ins_v2*.json``) and the human-goal file
(``items_human_ins.json``) — into the records upstream's ``load_products`` builds
(``web_agent_site/engine/engine.py:206-330``), field for field: ``Title`` from ``name``,
``BulletPoints`` from ``small_description``, ``Price`` as ``"$12.99"`` or ``"$9.99 to $19.99"``,
option values stripped, lower-cased and with ``/`` turned into ``" | "``, ``Attributes`` from the
attribute file (``["DUMMY_ATTR"]`` when absent), no reviews, rating ``N.A.``; products whose ASIN
is ``nan`` or longer than ten characters, and repeated ASINs, are skipped.

A ranged price is drawn uniformly inside its range (engine.py:180-193) from the caller's
``random.Random``: seeded like Python's global generator before upstream builds its server, it
draws the same prices (:class:`Catalog` records them).

A damaged file raises :class:`CatalogError` naming the file and what is wrong with it.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

__all__ = [
    "ATTRIBUTE_FILES",
    "HUMAN_FILE",
    "NOUN_FILE",
    "PRODUCT_FILES",
    "REVIEW_FILE",
    "Catalog",
    "CatalogError",
    "find_files",
    "load_products",
    "parse_pricing",
    "product_prices",
    "read_catalog",
]

#: File names searched in a data directory, in order (upstream's full set, then its 1k set).
PRODUCT_FILES = ("items_shuffle.json", "items_shuffle_1000.json")
ATTRIBUTE_FILES = ("items_ins_v2.json", "items_ins_v2_1000.json")
HUMAN_FILE = "items_human_ins.json"
#: The embedded catalog's title nouns (asin → nouns), the stand-in for spaCy's tagger.
NOUN_FILE = "title_nouns.json"
#: Upstream's review file (its loader leaves it out: reviews show only with ``reviews=True``).
REVIEW_FILE = "reviews.json"

_DROPPED = (
    "product_information", "brand", "brand_url", "list_price", "availability_quantity",
    "availability_status", "total_reviews", "total_answered_questions", "seller_id", "seller_name",
    "fulfilled_by_amazon", "fast_track_message", "aplus_present", "small_description_old",
)  # fmt: skip
_NON_PRICE = re.compile(r"[^\d.]")


class CatalogError(ValueError):
    """A WebShop data file that cannot be read as one."""


def parse_pricing(text: Any) -> tuple[list[float], str]:
    """``(pricing, price tag)`` of a product file's ``pricing`` string (engine.py:279-292)."""
    if not text:
        return [100.0], "$100.0"
    if not isinstance(text, str):
        raise CatalogError(f"pricing must be a string like '$12.99', got {text!r}")
    try:
        values = [float(Decimal(_NON_PRICE.sub("", part))) for part in text.split("$")[1:]]
    except InvalidOperation as err:
        raise CatalogError(f"unreadable pricing {text!r}") from err
    if not values:
        raise CatalogError(f"pricing {text!r} names no '$' amount")
    if len(values) == 1:
        return values, f"${values[0]}"
    return values[:2], f"${values[0]} to ${values[1]}"


def product_prices(products: Sequence[Mapping[str, Any]], rng: random.Random) -> dict[str, float]:
    """The price each product sells at: its price, or a uniform draw inside its range."""
    prices: dict[str, float] = {}
    for product in products:
        pricing = product["pricing"]
        if not pricing:
            prices[product["asin"]] = 100.0
        elif len(pricing) == 1:
            prices[product["asin"]] = pricing[0]
        else:
            prices[product["asin"]] = rng.uniform(*pricing[:2])
    return prices


def _read_json(path: Path, kind: str, expected: type) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise CatalogError(f"{path}: not a readable WebShop {kind} (JSON): {err}") from err
    if not isinstance(data, expected):
        raise CatalogError(f"{path}: a WebShop {kind} holds a JSON {expected.__name__}, found {type(data).__name__}")
    return data


def _options(raw: Any, where: str) -> tuple[dict[str, list[str]], dict[str, Any]]:
    options: dict[str, list[str]] = {}
    images: dict[str, Any] = {}
    if not raw:
        return options, images
    if not isinstance(raw, dict):
        raise CatalogError(f"{where}: customization_options must be an object of option groups")
    for name, contents in raw.items():
        if contents is None:
            continue
        values = []
        for content in contents:
            if not isinstance(content, dict) or not isinstance(content.get("value"), str):
                raise CatalogError(f"{where}: option {name!r} holds {content!r}, not {{'value': str, 'image': ...}}")
            value = content["value"].strip().replace("/", " | ").lower()
            values.append(value)
            images[value] = content.get("image")
        options[name.lower()] = values
    return options, images


def load_products(
    products: Sequence[Mapping[str, Any]],
    attributes: Mapping[str, Any],
    human: Mapping[str, Any] | None = None,
    num_products: int | None = None,
    where: str = "products",
    reviews: Sequence[Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Upstream's product records from the three files' contents. Every record carries both
    goal sources: ``instructions`` (human, where the human file has the ASIN) and
    ``instruction_text``/``instruction_attributes`` (synthetic, from the attribute file).
    *reviews* (the contents of a ``reviews.json``) fills ``Reviews`` and ``Rating`` as upstream's
    disabled review loading would (engine.py:218-244); without it, as upstream runs, there are
    none and the rating is ``N.A.``."""
    human = human or {}
    by_asin_reviews, ratings = _review_table(reviews or [], where)
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    rows = products[:num_products] if num_products is not None else products
    for i, raw in enumerate(rows):
        at = f"{where}[{i}]"
        if not isinstance(raw, dict):
            raise CatalogError(f"{at}: a product is a JSON object, got {type(raw).__name__}")
        asin = raw.get("asin")
        if not isinstance(asin, str):
            raise CatalogError(f"{at}: missing 'asin'")
        if asin == "nan" or len(asin) > 10 or asin in seen:
            continue
        seen.add(asin)
        missing = [
            k
            for k in (
                "name",
                "full_description",
                "small_description",
                "category",
                "query",
                "product_category",
                "images",
            )
            if k not in raw
        ]
        if missing:
            raise CatalogError(f"{at} ({asin}): missing {', '.join(missing)}")
        _check_types(raw, f"{at} ({asin})")
        p = {k: v for k, v in raw.items() if k not in _DROPPED}
        p["Title"] = p["name"]
        p["Description"] = p["full_description"]
        p["Reviews"] = [dict(r) for r in by_asin_reviews.get(asin, [])]
        p["Rating"] = ratings.get(asin, "N.A.")
        bullets = p["small_description"]
        p["BulletPoints"] = bullets if isinstance(bullets, list) else [bullets]
        try:
            p["pricing"], p["Price"] = parse_pricing(p.get("pricing"))
        except CatalogError as err:
            raise CatalogError(f"{at} ({asin}): {err}") from None
        p["options"], p["option_to_image"] = _options(p.get("customization_options"), f"{at} ({asin})")
        record = attributes.get(asin)
        if record is not None:
            _check_attribute_record(record, f"attribute file ({asin})")
        p["Attributes"] = (
            record["attributes"] if isinstance(record, dict) and "attributes" in record else ["DUMMY_ATTR"]
        )
        if asin in human:
            p["instructions"] = _check_human(human[asin], f"human-goal file ({asin})")
        if isinstance(record, dict):
            p["instruction_text"] = record.get("instruction")
            p["instruction_attributes"] = record.get("instruction_attributes")
        images = p["images"]
        p["MainImage"] = images[0] if isinstance(images, list) and images else None
        p["query"] = str(p["query"]).lower().strip()
        out.append(p)
    return out


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _check_types(raw: Mapping[str, Any], where: str) -> None:
    # Upstream lower-cases, splits and joins these fields; anything but text breaks its pages and reward.
    for key in ("name", "full_description", "category", "query", "product_category"):
        if not isinstance(raw[key], str):
            raise CatalogError(f"{where}: {key!r} must be a string, got {type(raw[key]).__name__}")
    bullets = raw["small_description"]
    if not (isinstance(bullets, str) or _is_strings(bullets)):
        raise CatalogError(f"{where}: 'small_description' must be a string or a list of strings")
    if raw["images"] is not None and not isinstance(raw["images"], list):
        raise CatalogError(f"{where}: 'images' must be a list of image addresses")


def _check_attribute_record(record: Any, where: str) -> None:
    if not isinstance(record, dict):
        raise CatalogError(f"{where}: an entry is {{'attributes': [...], 'instruction': ..., ...}}")
    if "attributes" in record and not _is_strings(record["attributes"]):
        raise CatalogError(f"{where}: 'attributes' must be a list of strings")
    if record.get("instruction_attributes") is not None and not _is_strings(record["instruction_attributes"]):
        raise CatalogError(f"{where}: 'instruction_attributes' must be a list of strings")
    if record.get("instruction") is not None and not isinstance(record["instruction"], str):
        raise CatalogError(f"{where}: 'instruction' must be a string")


def _check_human(entries: Any, where: str) -> list[dict[str, Any]]:
    if not isinstance(entries, list):
        raise CatalogError(f"{where}: an entry is a list of instructions")
    for j, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("instruction"), str):
            shape = "{'instruction': str, 'instruction_attributes': [...]}"
            raise CatalogError(f"{where}[{j}]: an instruction is {shape}")
        for key in ("instruction_attributes", "instruction_options"):
            if entry.get(key) is not None and not _is_strings(entry[key]):
                raise CatalogError(f"{where}[{j}]: {key!r} must be a list of strings")
    return entries


def _review_table(reviews: Sequence[Mapping[str, Any]], where: str) -> tuple[dict[str, list], dict[str, Any]]:
    table: dict[str, list] = {}
    ratings: dict[str, Any] = {}
    for entry in reviews:
        if not isinstance(entry, Mapping) or "asin" not in entry or not isinstance(entry.get("reviews", []), list):
            raise CatalogError(f"reviews for {where}: an entry is {{'asin', 'reviews': [...], 'average_rating'}}")
        rows = []
        for r in entry.get("reviews", []):
            r = dict(r)
            if "score" not in r:
                r["score"] = r.pop("stars", "")
            r["body"] = r.pop("review", r.get("body", ""))
            rows.append(r)
        table[entry["asin"]] = rows
        ratings[entry["asin"]] = entry.get("average_rating", "N.A.")
    return table, ratings


@dataclass
class Catalog:
    """Loaded products, their sale prices and (for the embedded catalog) their title nouns."""

    products: list[dict[str, Any]]
    prices: dict[str, float]
    title_nouns: dict[str, list[str]] | None = None
    source: str = "generated"
    by_asin: dict[str, dict[str, Any]] = field(init=False)

    def __post_init__(self) -> None:
        self.by_asin = {p["asin"]: p for p in self.products}

    def nouns_by_title(self) -> dict[str, list[str]] | None:
        """The title → nouns table the reward's tagger reads."""
        if self.title_nouns is None:
            return None
        return {self.by_asin[a]["name"]: n for a, n in self.title_nouns.items() if a in self.by_asin}


def find_files(directory: str | Path) -> tuple[Path, Path, Path | None]:
    """The product, attribute and human-goal files of a WebShop data directory."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"no WebShop data directory at {directory}")

    def first(names: Sequence[str]) -> Path | None:
        return next((directory / n for n in names if (directory / n).is_file()), None)

    product_file, attribute_file = first(PRODUCT_FILES), first(ATTRIBUTE_FILES)
    if product_file is None or attribute_file is None:
        raise FileNotFoundError(
            f"{directory} lacks WebShop's data files: it needs one of {', '.join(PRODUCT_FILES)} and one of "
            f"{', '.join(ATTRIBUTE_FILES)} (upstream's setup.sh downloads them), or write a generated catalog there "
            "with `python -m gui_gym.webshop.generator DIR`"
        )
    human = directory / HUMAN_FILE
    return product_file, attribute_file, human if human.is_file() else None


def read_catalog(
    directory: str | Path, num_products: int | None = None, rng: random.Random | None = None, reviews: bool = False
) -> Catalog:
    """The catalog in a WebShop data directory; *rng* (default ``Random(0)``) draws the ranged
    prices and is left where upstream's goal builders go on drawing. ``reviews=True`` reads the
    directory's ``reviews.json`` too."""
    product_file, attribute_file, human_file = find_files(directory)
    products = _read_json(product_file, "product file", list)
    attributes = _read_json(attribute_file, "attribute file", dict)
    human = _read_json(human_file, "human-goal file", dict) if human_file is not None else {}
    review_rows = None
    if reviews:
        review_file = Path(directory) / REVIEW_FILE
        if not review_file.is_file():
            raise FileNotFoundError(f"reviews=True, but {directory} has no {REVIEW_FILE}")
        review_rows = _read_json(review_file, "review file", list)
    loaded = load_products(products, attributes, human, num_products, where=product_file.name, reviews=review_rows)
    nouns = None
    noun_file = Path(directory) / NOUN_FILE
    if noun_file.is_file():
        nouns = {str(k): list(v) for k, v in _read_json(noun_file, "title-noun file", dict).items()}
    prices = product_prices(loaded, rng if rng is not None else random.Random(0))
    return Catalog(loaded, prices, nouns, source=str(directory))
