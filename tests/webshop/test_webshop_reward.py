"""WebShop's score (goal.py:get_reward) on worked examples computed by hand."""

from __future__ import annotations

import pytest

from gui_gym.webshop.normalize import normalize_color
from gui_gym.webshop.reward import (
    FunctionWordNouns,
    StoredNouns,
    get_reward,
    option_reward,
    score,
    token_set_ratio,
    type_reward,
)

NOUNS = StoredNouns(
    {
        "Acme Argan Shampoo": ["acme", "argan", "shampoo"],
        "Acme Argan Conditioner": ["acme", "argan", "conditioner"],
        "Zed Wool Sweater": ["zed", "wool", "sweater"],
        "Many Nouns Here A B C D E F G H I J K": list("abcdefghijk"),
        "Only A": ["a"],
    }
)


def product(name: str = "Acme Argan Shampoo", **kw) -> dict:
    p = {
        "query": "shampoo",
        "product_category": "Beauty & Personal Care › Hair Care › Shampoo",
        "name": name,
        "Title": name,
        "Attributes": ["sulfate free"],
        "BulletPoints": ["made for dry hair"],
        "Description": "A gentle paraben free wash.",
    }
    p.update(kw)
    return p


def goal(**kw) -> dict:
    g = {
        "query": "shampoo",
        "product_category": "Beauty & Personal Care › Hair Care › Shampoo",
        "name": "Acme Argan Shampoo",
        "attributes": ["sulfate free", "dry hair", "paraben free"],
        "goal_options": ["16 oz"],
        "price_upper": 30.0,
    }
    g.update(kw)
    return g


def test_every_part_right_scores_one() -> None:
    # 3 attributes (one listed, one in the bullets, one in the description) + 1 option + price = 5/5
    info = get_reward(goal(), product(), 19.99, {"size": "16 oz"}, NOUNS)
    assert info.score == 1.0
    assert (info.r_att, info.r_option, info.r_price, info.r_type) == (1.0, 1.0, True, 1.0)
    assert (info.w_att, info.w_option, info.w_price) == (3 / 5, 1 / 5, 1 / 5)


def test_missing_option_and_price_over_the_bound() -> None:
    # (3 + 0 + 0) / 5
    assert score(goal(), product(), 30.01, {}, NOUNS) == pytest.approx(0.6)
    # the bound is inclusive: price <= price_upper
    assert score(goal(), product(), 30.0, {}, NOUNS) == pytest.approx(0.8)


def test_attribute_by_fuzzy_match_or_text_containment() -> None:
    p = product(Attributes=["Sulfate-Free!"], BulletPoints=[], Description="")
    # "Sulfate-Free!" processes to "sulfate free": ratio 100 > 85; "dry hair" and "paraben free" are nowhere
    info = get_reward(goal(goal_options=[]), p, 10.0, {}, NOUNS)
    assert info.r_att == pytest.approx(1 / 3)
    assert info.score == pytest.approx((1 + 0 + 1) / (3 + 0 + 1))
    assert info.r_option is None and info.w_option is None


def test_type_reward_tiers() -> None:
    same = type_reward(product(), goal(), NOUNS)
    assert same == {"r_type": 1.0, "query_match": True, "category_match": True, "title_score": 1.0}
    # other query and category, 1 of 3 nouns shared (> 0.2): still 1.0
    other = product("Acme Argan Conditioner", query="conditioner", product_category="Beauty › Conditioner")
    t = type_reward(other, goal(), NOUNS)
    assert (t["query_match"], t["category_match"], t["title_score"], t["r_type"]) == (False, False, 2 / 3, 1.0)
    # nothing shared at all: 0.0, and the whole score with it
    sweater = product("Zed Wool Sweater", query="sweaters", product_category="Clothing › Sweaters")
    assert type_reward(sweater, goal(), NOUNS)["r_type"] == 0.0
    assert score(goal(), sweater, 1.0, {"size": "16 oz"}, NOUNS) == 0.0
    # 1 of 11 goal nouns (0.09 < 0.1): 0.1 whatever the query says
    many = goal(name="Many Nouns Here A B C D E F G H I J K")
    assert type_reward(product("Only A"), many, NOUNS)["r_type"] == 0.1
    # exactly 0.2 of the nouns is not "> 0.2": without query or category match, 0.5
    five = StoredNouns({"g": list("abcde"), "p": ["a"]})
    t = type_reward(product("p", query="x", product_category="A › B"), goal(name="g", product_category="C › D"), five)
    assert (t["title_score"], t["r_type"]) == (0.2, 0.5)
    # a goal title without nouns scores 0.2 (then 0.5 without query or category match)
    empty = StoredNouns({"g": [], "p": ["a"]})
    t = type_reward(product("p", query="x", product_category="A"), goal(name="g", product_category="B"), empty)
    assert (t["title_score"], t["r_type"]) == (0.2, 0.5)


def test_category_match_needs_two_shared_breadcrumbs() -> None:
    t = type_reward(
        product(query="x", product_category="Beauty & Personal Care › Hair Care › Conditioner"), goal(), NOUNS
    )
    assert t["category_match"] is True  # "Beauty & Personal Care" and "Hair Care"
    t = type_reward(product(query="x", product_category="Beauty & Personal Care › Skin Care"), goal(), NOUNS)
    assert t["category_match"] is False


def test_colour_normalisation_follows_upstreams_list_order() -> None:
    assert normalize_color("navy blue") == "blue"  # "blue" comes before "navy"
    assert normalize_color("royal blue") == "blue"
    assert normalize_color("washed denim") == "ash"  # a substring match, as upstream
    # human goal "navy blue" is met by a purchased "royal blue": both become "blue"
    assert option_reward(["royal blue"], ["navy blue"]) == (1.0, 1)
    assert option_reward(["red"], ["navy blue"]) == (0.0, 0)


def test_synthetic_goal_options_are_name_value_pairs() -> None:
    # goal.py hands dict.items() over: ("size", "x-large") is compared as the string "('size', 'x-large')",
    # whose tokens {size, x, large} contain the purchased "large": token_set_ratio 100
    assert token_set_ratio("large", ("size", "x-large")) == 100
    assert option_reward(["large"], [("size", "x-large")]) == (1.0, 1)
    # a pair whose value is exactly a colour normalises to that colour
    assert normalize_color(("color", "black")) == "black"
    assert option_reward(["jet black"], [("color", "black")]) == (1.0, 1)
    # a wrong value shares no token
    assert option_reward(["small"], [("size", "x-large")])[1] == 0
    g = goal(goal_options={"size": "x-large"}, attributes=["sulfate free"])
    assert score(g, product(), 10.0, {"size": "large"}, NOUNS) == 1.0


def test_thefuzz_compatible_ratio() -> None:
    assert token_set_ratio("16 Oz.", "16 oz") == 100
    assert token_set_ratio("", "x") == 0
    assert token_set_ratio(None, "x") == 0
    # characters 128-255 are dropped before comparing (thefuzz's force_ascii)
    assert token_set_ratio("café", "caf") == 100


def test_fallback_tagger_is_reported() -> None:
    info = get_reward(goal(), product(), 10.0, {"size": "16 oz"})
    assert info.nouns == "fallback"
    assert FunctionWordNouns().nouns("Acme Sulfate Free Shampoo for Dry Hair, 16 oz") == [
        "acme",
        "sulfate",
        "shampoo",
        "dry",
        "hair",
    ]
    tagger = StoredNouns({})
    tagger.nouns("Unknown Title")
    assert tagger.misses == 1
