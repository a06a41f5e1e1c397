"""The embedded WebShop against upstream WebShop's own code, recorded by ``record_upstream.py``:
upstream's loader, goal builders, Flask/Jinja pages, BeautifulSoup text, available actions, state
machine and ``get_reward`` (thefuzz 0.19.0, spaCy ``en_core_web_sm`` 3.6), with real Lucene
search (Anserini 0.14.3), on the first 300 products of the embedded catalog in upstream's files.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from gui_gym.webshop.catalog import Catalog, load_products, product_prices
from gui_gym.webshop.engine import Session, Shop
from gui_gym.webshop.generator import generate
from gui_gym.webshop.goals import derive_goals
from gui_gym.webshop.reward import StoredNouns, get_reward

FIXTURES = Path(__file__).parent / "fixtures" / "upstream"
FIELDS = ("text", "text_rich", "url", "available_actions", "reward", "done")


def _lines(name: str) -> list[dict]:
    with gzip.open(FIXTURES / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.fixture(scope="module")
def products() -> list[dict]:
    made = generate(300)
    return load_products(made.products, made.attributes, made.human_goals)


@pytest.fixture(scope="module")
def spacy_nouns() -> StoredNouns:
    with open(FIXTURES / "nouns.json", encoding="utf-8") as f:
        recorded = json.load(f)
    assert recorded["tagger"] == "spacy"
    return StoredNouns(recorded["nouns"])


@pytest.fixture(scope="module")
def shop(products, spacy_nouns) -> Shop:
    rng = random.Random(0)  # upstream's global random, seeded 0 before its server was built
    catalog = Catalog(products, product_prices(products, rng), None, "upstream fixture")
    return Shop.from_catalog(catalog, rng, "human", tagger=spacy_nouns)


@pytest.mark.parametrize("kind", ["human", "synthetic"])
def test_goals_and_prices_equal_upstreams(products, kind: str) -> None:
    with gzip.open(FIXTURES / "goals.json.gz", "rt", encoding="utf-8") as f:
        recorded = json.load(f)[kind]
    rng = random.Random(0)
    prices = product_prices(products, rng)
    assert prices == recorded["prices"]
    goals = derive_goals(products, prices, kind, rng)
    keys = ("asin", "instruction_text", "attributes", "goal_options", "price_upper", "query", "category")
    assert [{k: g[k] for k in keys} for g in goals] == recorded["goals"]


def test_every_recorded_step_is_reproduced(shop: Shop) -> None:
    episodes = _lines("transcripts.jsonl.gz")
    assert len(episodes) >= 40 and {e["style"] for e in episodes} == {"scripted", "random", "malformed"}
    n = 0
    for episode in episodes:
        shop.show_attrs = episode["show_attrs"]
        session = Session(shop, episode["goal_index"])
        for step in episode["steps"]:
            reward, done = 0.0, False
            if step["action"] is not None:
                outcome = session.step(step["action"])
                reward, done = outcome.reward, session.done
            got = {
                "text": session.observation("text"),
                "text_rich": session.observation("text_rich"),
                "url": session.url,
                "available_actions": session.available_actions(),
                "reward": reward,
                "done": done,
            }
            for field in FIELDS:
                assert got[field] == step[field], (episode["goal_index"], step["action"], field)
            n += 1
    shop.show_attrs = False
    assert n > 400


def test_every_recorded_reward_is_reproduced(shop: Shop, spacy_nouns: StoredNouns) -> None:
    cases = _lines("rewards.jsonl.gz")
    assert len(cases) > 5000
    assert {type(c["goal"]["goal_options"]).__name__ for c in cases} == {"dict", "list"}
    scores = set()
    for case in cases:
        product = shop.catalog.by_asin[case["asin"]]
        info = get_reward(case["goal"], product, case["price"], case["options"], spacy_nouns)
        assert info.score == case["score"] and info.verbose() == case["info"], case
        scores.add(round(case["score"], 3))
    assert len(scores) > 20  # the cases span many partial scores, not just 0 and 1
