"""A small catalog in upstream WebShop's file formats, built in code for the engine's tests."""

from __future__ import annotations

import random
from typing import Any

from gui_gym.webshop.catalog import Catalog, load_products, product_prices
from gui_gym.webshop.engine import Shop


def raw_products(n: int = 24) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        options = None
        if i % 3 == 1:
            options = {
                "Size": [{"value": "16 Oz", "image": None}, {"value": "32 oz/2 pack", "image": None}],
                "Color": [{"value": "Navy Blue", "image": "https://example.invalid/navy.jpg"}],
            }
        elif i % 3 == 2:
            options = {"Size": [{"value": "X-Large", "image": None}, {"value": "Large", "image": None}]}
        out.append(
            {
                "asin": f"B0TEST{i:04d}",
                "name": f"Acme Argan Shampoo {i} for Dry Hair, 16 Ounce" if i < 16 else f"Zed Wool Sweater {i}",
                "full_description": "A gentle shampoo. Sulfate free." if i < 16 else "A warm sweater.",
                "small_description": ["sulfate free formula", "made in usa"] if i < 16 else "machine wash",
                "pricing": ["$12.99", "$9.99 - $19.99", ""][i % 3],
                "images": [f"https://example.invalid/{i}.jpg"],
                "category": "beauty" if i < 16 else "fashion",
                "query": "shampoo" if i < 16 else "men's sweaters",
                "product_category": "Beauty & Personal Care › Hair Care › Shampoo"
                if i < 16
                else "Clothing, Shoes & Jewelry › Men › Clothing › Sweaters",
                "customization_options": options,
                "brand": "Acme",
            }
        )
    return out


def attributes(products: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        p["asin"]: {
            "attributes": ["sulfate free", "dry hair"] if p["category"] == "beauty" else ["machine wash"],
            "instruction": "i need a sulfate free shampoo" if p["category"] == "beauty" else "i want a wool sweater",
            "instruction_attributes": ["sulfate free"] if p["category"] == "beauty" else ["machine wash"],
        }
        for p in products
    }


def human(products: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        products[1]["asin"]: [
            {
                "instruction": "i am looking for a sulfate free shampoo for dry hair in 16 oz size.",
                "instruction_attributes": ["sulfate free", "dry hair"],
                "instruction_options": ["16 oz"],
            },
            {
                "instruction": "a goal without attributes is skipped",
                "instruction_attributes": [],
                "instruction_options": [],
            },
        ],
        products[17]["asin"]: [
            {
                "instruction": "i want a machine wash wool sweater in x-large",
                "instruction_attributes": ["machine wash"],
                "instruction_options": ["x-large"],
            }
        ],
    }


def small_shop(goals: str = "human", seed: int = 0, show_attrs: bool = False, n: int = 24) -> Shop:
    raw = raw_products(n)
    loaded = load_products(raw, attributes(raw), human(raw))
    rng = random.Random(seed)
    catalog = Catalog(loaded, product_prices(loaded, rng), None, source="tests")
    return Shop.from_catalog(catalog, rng, goals, show_attrs=show_attrs)
