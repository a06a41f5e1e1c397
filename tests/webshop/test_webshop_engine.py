"""The state machine: pages, clickables, URLs and transitions as upstream's text env has them."""

from __future__ import annotations

import json

import pytest
from _webshop_catalog import small_shop

from gui_gym.webshop.engine import BASE_URL, Session, parse_action


@pytest.fixture(scope="module")
def shop():
    return small_shop()


def first_goal(shop) -> Session:
    return Session(shop, next(i for i, g in enumerate(shop.goals) if g["asin"] == "B0TEST0001"))


def test_parse_action_is_upstreams_pattern() -> None:
    assert parse_action("search[red shoes]") == ("search", "red shoes")
    assert parse_action("search[a]tail") == ("search", "a")  # matched at the start only
    assert parse_action("search[a] [b]") == ("search[a] ", "b")  # greedy first group
    assert parse_action("search[") == ("search[", None)
    assert parse_action("search[a\nb]") == ("search[a\nb]", None)  # "." stops at a newline


def test_search_page(shop) -> None:
    s = first_goal(shop)
    assert s.observation() == f"WebShop [SEP] Instruction: [SEP] {s.instruction} [SEP] Search"
    assert s.available_actions() == {"has_search_bar": True, "clickables": ["search"]}
    assert s.url == f"{BASE_URL}/{s.session_id}" and s.page_name() == ""


def test_results_pages_and_paging(shop) -> None:
    s = first_goal(shop)
    assert s.step("search[Argan SHAMPOO]").valid
    assert s.keywords == ["argan", "shampoo"] and s.page_no == 1
    parts = s.observation().split(" [SEP] ")
    assert parts[:5] == ["Instruction:", s.instruction, "Back to Search", "Page 1 (Total results: 16)", "Next >"]
    assert len(parts) == 5 + 3 * 10 and parts[5].startswith("B0TEST") and parts[7].startswith("$")
    assert s.url == f"{BASE_URL}/search_results/{s.session_id}/argan+shampoo/1"
    clickables = s.available_actions()["clickables"]
    assert clickables[:2] == ["back to search", "next >"] and clickables[2] == parts[5].lower()
    assert s.step("click[next >]").valid and s.page_no == 2
    parts = s.observation().split(" [SEP] ")
    assert parts[3:6] == ["Page 2 (Total results: 16)", "< Prev", "Next >"] and len(parts) == 6 + 3 * 6
    assert s.step("click[next >]").valid  # past the last page: an empty page, as upstream
    assert s.observation().endswith("Page 3 (Total results: 16) [SEP] < Prev [SEP] Next >")
    assert s.step("click[< prev]").valid and s.page_no == 2


def test_item_page_options_and_sub_pages(shop) -> None:
    s = first_goal(shop)
    s.step("search[argan shampoo 1]")
    assert s.step("click[b0test0001]").valid
    assert s.asin == "B0TEST0001" and s.asins == {"B0TEST0001"}
    assert s.observation().split(" [SEP] ")[2:] == [
        "Back to Search", "< Prev", "size", "16 oz", "32 oz | 2 pack", "color", "navy blue",
        "Acme Argan Shampoo 1 for Dry Hair, 16 Ounce", "Price: $9.99 to $19.99", "Rating: N.A.",
        "Description", "Features", "Reviews", "Buy Now",
    ]  # fmt: skip
    assert s.available_actions()["clickables"] == [
        "back to search", "< prev", "description", "features", "reviews", "buy now", "16 oz", "32 oz | 2 pack",
        "navy blue",
    ]  # fmt: skip
    assert s.url.endswith(f"/item_page/{s.session_id}/B0TEST0001/argan+shampoo+1/1/{{}}")
    assert s.step("click[32 oz | 2 pack]").valid and s.options == {"size": "32 oz | 2 pack"}
    assert s.url.endswith("/" + json.dumps({"size": "32 oz | 2 pack"}))
    rich = s.observation("text_rich")
    assert rich.startswith("You have clicked 32 oz | 2 pack.\n")
    assert "  [clicked button] 32 oz | 2 pack [clicked button_]" in rich and "  [button] 16 oz [button_]" in rich
    assert s.step("click[Features]").valid  # upper case is lowered, as upstream
    assert s.observation().split(" [SEP] ")[2:] == ["Back to Search", "< Prev", "sulfate free formula", "made in usa"]
    assert s.url.endswith("/Features/{'size': '32 oz | 2 pack'}")  # the options as Python writes a dict
    assert s.available_actions()["clickables"] == ["back to search", "< prev"]
    assert s.step("click[< prev]").valid and s.page.kind == "item_page" and s.options == {"size": "32 oz | 2 pack"}
    assert s.step("click[description]").valid
    assert s.observation().split(" [SEP] ")[-1] == "A gentle shampoo. Sulfate free."
    assert s.step("click[< prev]").valid
    # < Prev from the item goes back to its results page and forgets the options
    assert s.step("click[< prev]").valid and s.page.kind == "search_results" and s.options == {}
    rich = s.observation("text_rich")
    assert "\n[clicked button] B0TEST0001 [clicked button_]" in rich


def test_buy_scores_and_ends(shop) -> None:
    s = first_goal(shop)
    s.step("search[argan shampoo 1]")
    s.step("click[b0test0001]")
    s.step("click[16 oz]")
    out = s.step("click[Buy Now]")
    assert out.valid and out.done and s.done
    assert out.reward == s.reward_info.score == 1.0
    text = s.observation()
    assert text.startswith("Thank you for shopping with us! [SEP] Your code: [SEP] None [SEP] (Paste it")
    assert '[SEP] options [SEP] {"size": "16 oz"} [SEP]' in text
    assert text.endswith("Your score (min 0.0, max 1.0) [SEP] 1.0 [SEP] Reward Details [SEP] None")
    assert s.available_actions() == {"has_search_bar": False, "clickables": []}
    assert s.url == f"{BASE_URL}/done/{s.session_id}/B0TEST0001/{{'size': '16 oz'}}"
    assert not s.step("search[more]").valid


def test_back_to_search_keeps_the_goal(shop) -> None:
    s = first_goal(shop)
    s.step("search[sweater]")
    s.step(f"click[{s.available_actions()['clickables'][2]}]")
    assert s.step("click[back to search]").valid
    assert s.page.kind == "index" and s.asins == set() and s.keywords is None
    assert s.observation().startswith("WebShop [SEP] Instruction: [SEP] " + s.instruction)


def test_search_works_from_any_page(shop) -> None:
    s = first_goal(shop)
    s.step("search[argan 1]")
    s.step("click[b0test0001]")
    assert s.step("search[sweater]").valid and s.page.kind == "search_results"


@pytest.mark.parametrize(
    "action",
    ["search[", "search[]", "click[nonexistent]", "click[search]", "click[buy now]", "clik[x]", "", "x" * 5000,
     "search[" + "q" * 600 + "]", "search[a\x00b]", "click[next >]"],
)  # fmt: skip
def test_malformed_actions_change_nothing(shop, action: str) -> None:
    s = first_goal(shop)
    before = (s.observation(), s.url, s.available_actions())
    out = s.step(action)
    assert not out.valid and out.reason
    assert (s.observation(), s.url, s.available_actions()) == before


def test_non_text_actions_are_reported(shop) -> None:
    s = first_goal(shop)
    out = s.step(42)
    assert not out.valid and "not int" in out.reason


def test_unicode_queries_search(shop) -> None:
    s = first_goal(shop)
    assert s.step("search[shampoo café 中文 🧴]").valid
    assert "Total results: 16" in s.observation()


def test_special_prefixes(shop) -> None:
    s = first_goal(shop)
    s.step("search[<c> fashion]")
    assert "Total results: 8" in s.observation()
    s.step("search[<q> shampoo]")
    assert "Total results: 16" in s.observation()
    s.step("search[<a> machine wash]")
    assert "Total results: 8" in s.observation()


def test_show_attrs_adds_the_attributes_page() -> None:
    s = first_goal(small_shop(show_attrs=True))
    s.step("search[argan 1]")
    s.step("click[b0test0001]")
    assert "attributes" in s.available_actions()["clickables"]
    s.step("click[attributes]")
    assert s.observation().split(" [SEP] ")[4:] == [
        "sulfate free", "dry hair", "beauty", "shampoo", "Beauty & Personal Care › Hair Care › Shampoo",
    ]  # fmt: skip
