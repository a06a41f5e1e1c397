"""Goals as upstream WebShop derives them, and its splits.

- Human goals (``goal.py:get_human_goals``, goal.py:22-65): one per instruction of the human-goal
  file with at least one attribute; the options are the instruction's option values (a list).
- Synthetic goals (``goal.py:get_synthetic_goals``, goal.py:68-124): one per product with an
  attribute-file instruction and per combination of its option values, the option groups in
  sorted order; the instruction gets ``" with size: m, and color: navy"``; the options are a dict.

Both add a price bound: of the first four multiples of $10 above the product's price, two are
drawn and the larger is the bound (``", and price lower than 40.00 dollars"``); with fewer than
two such multiples the bound is 1,000,000 and nothing is said. Upstream draws with Python's
global ``random``; :func:`derive_goals` draws from the caller's generator in the same order,
then shuffles with ``Random(233)`` as upstream's server does (``web_agent_text_env.py:276-278``).

Splits of the shuffled goals: upstream's (``baseline_models/env.py``: test = the first 500,
eval = the next 1,000, train = the rest) or verl-agent's (test = the first 500, train = the rest).
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "GOAL_KINDS",
    "PRICE_RANGE",
    "SPLITS",
    "SPLIT_CONVENTIONS",
    "derive_goals",
    "human_goals",
    "split_indices",
    "synthetic_goals",
]

PRICE_RANGE = [10.0 * i for i in range(1, 100)]
GOAL_KINDS = ("human", "synthetic")
SPLITS = ("train", "eval", "test", "all")
SPLIT_CONVENTIONS = ("upstream", "verl-agent")
NO_BOUND = 1000000


def _price_bound(price: float, rng: random.Random) -> tuple[float, str]:
    above = [p for p in PRICE_RANGE if p > price][:4]
    if len(above) >= 2:
        _, upper = sorted(rng.sample(above, 2))
        return upper, f", and price lower than {upper:.2f} dollars"
    return NO_BOUND, ""


def human_goals(
    products: Sequence[Mapping[str, Any]], prices: Mapping[str, float], rng: random.Random
) -> list[dict[str, Any]]:
    goals = []
    for item in products:
        for instruction in item.get("instructions") or ():
            attributes = instruction.get("instruction_attributes") or []
            if not attributes:
                continue  # upstream skips goals without attributes
            upper, price_text = _price_bound(prices[item["asin"]], rng)
            goals.append(
                {
                    "asin": item["asin"],
                    "category": item["category"],
                    "query": item["query"],
                    "name": item["name"],
                    "product_category": item["product_category"],
                    "instruction_text": instruction["instruction"].strip(".") + price_text,
                    "attributes": attributes,
                    "price_upper": upper,
                    "goal_options": instruction.get("instruction_options") or [],
                    "weight": 1,
                }
            )
    return goals


def synthetic_goals(
    products: Sequence[Mapping[str, Any]], prices: Mapping[str, float], rng: random.Random
) -> list[dict[str, Any]]:
    goals = []
    counts: dict[str, int] = defaultdict(int)
    for product in products:
        text = product.get("instruction_text")
        if text is None:
            continue
        attributes = product.get("instruction_attributes") or []
        if not attributes:
            continue  # upstream asserts there is at least one
        upper, price_text = _price_bound(prices[product["asin"]], rng)
        options = product["options"]
        names = sorted(options)
        for combination in itertools.product(*(options[n] for n in names)):
            goal_options = dict(zip(names, combination, strict=True))
            option_text = ", and ".join(f"{k}: {v}" for k, v in goal_options.items())
            option_text = " with " + option_text if option_text else ""
            goals.append(
                {
                    "asin": product["asin"],
                    "category": product["category"],
                    "query": product["query"],
                    "name": product["Title"],
                    "product_category": product["product_category"],
                    "instruction_text": f"{text}{option_text}{price_text}",
                    "attributes": attributes,
                    "price_upper": upper,
                    "goal_options": goal_options,
                }
            )
            for attribute in attributes:
                counts[attribute] += 1
    for goal in goals:
        goal["weight"] = sum(1.0 / counts[a] for a in goal["attributes"]) / len(goal["attributes"])
    return goals


def derive_goals(
    products: Sequence[Mapping[str, Any]], prices: Mapping[str, float], kind: str, rng: random.Random
) -> list[dict[str, Any]]:
    """The goals of *kind* in upstream's served order (after its fixed shuffle)."""
    if kind not in GOAL_KINDS:
        raise ValueError(f"unknown goal kind {kind!r}; choose from {', '.join(GOAL_KINDS)}")
    goals = human_goals(products, prices, rng) if kind == "human" else synthetic_goals(products, prices, rng)
    random.Random(233).shuffle(goals)
    return goals


def split_indices(n_goals: int, split: str, convention: str = "upstream") -> range:
    """The goal indices of *split* under *convention*."""
    if convention not in SPLIT_CONVENTIONS:
        raise ValueError(f"unknown split convention {convention!r}; choose from {', '.join(SPLIT_CONVENTIONS)}")
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; choose from {', '.join(SPLITS)}")
    if split == "all":
        return range(n_goals)
    if split == "test":
        return range(min(500, n_goals))
    if convention == "verl-agent":
        if split == "eval":
            raise ValueError("verl-agent's convention has no eval split (test = the first 500 goals, train = the rest)")
        return range(min(500, n_goals), n_goals)
    if split == "eval":
        return range(min(500, n_goals), min(1500, n_goals))
    return range(min(1500, n_goals), n_goals)
