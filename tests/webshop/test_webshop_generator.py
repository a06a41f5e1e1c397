"""The generated catalog: deterministic, in upstream's formats, with near misses and consistent goals."""

from __future__ import annotations

import json
import re
import time

import pytest

from gui_gym.webshop.catalog import CatalogError, find_files, load_products, read_catalog
from gui_gym.webshop.generator import generate, read_title_nouns, spacy_title_nouns, write


@pytest.fixture(scope="module")
def made():
    return generate(num_products=1000, seed=0)


def test_same_seed_same_bytes(tmp_path) -> None:
    a, b = write(generate(200, seed=3), tmp_path / "a"), write(generate(200, seed=3), tmp_path / "b")
    for role in a:
        assert a[role].read_bytes() == b[role].read_bytes()
    assert generate(200, seed=4).products != generate(200, seed=3).products


def test_small_names_are_what_upstream_reads_by_default(tmp_path) -> None:
    paths = write(generate(40, seed=3), tmp_path, names="small")
    assert paths["products"].name == "items_shuffle_1000.json" and paths["attributes"].name == "items_ins_v2_1000.json"
    assert find_files(tmp_path)[:2] == (paths["products"], paths["attributes"])
    assert len(read_catalog(tmp_path).products) == 40
    with pytest.raises(ValueError, match="names must be"):
        write(generate(5), tmp_path, names="medium")


def test_formats_are_upstreams(made, tmp_path) -> None:
    paths = write(made, tmp_path)
    assert {p.name for p in paths.values()} == {
        "items_shuffle.json", "items_ins_v2.json", "items_human_ins.json", "title_nouns.json", "reviews.json"
    }  # fmt: skip
    assert find_files(tmp_path)[2] is not None
    products = json.loads(paths["products"].read_text())
    for p in products:
        assert re.fullmatch(r"B0[A-Z0-9]{8}", p["asin"])
        assert p["pricing"] == "" or re.fullmatch(r"\$\d+\.\d\d( - \$\d+\.\d\d)?", p["pricing"])
        assert isinstance(p["small_description"], list) and p["images"][0].startswith("https://")
        assert p["category"] in ("beauty", "food", "fashion", "furniture", "electronics")
        assert " › " in p["product_category"]
        for group in (p["customization_options"] or {}).values():
            assert all(set(v) == {"value", "image"} for v in group)
    assert len({p["asin"] for p in products}) == len(products) == 1000
    catalog = read_catalog(tmp_path)
    assert len(catalog.products) == 1000 and catalog.title_nouns == read_title_nouns(paths["title_nouns"])


def test_goals_agree_with_their_products(made) -> None:
    loaded = {p["asin"]: p for p in load_products(made.products, made.attributes, made.human_goals)}
    n_goals = n_without_options = 0
    for asin, goals in made.human_goals.items():
        product = loaded[asin]
        values = {v for vs in product["options"].values() for v in vs}
        for goal in goals:
            n_goals += 1
            n_without_options += not goal["instruction_options"]
            assert set(goal["instruction_attributes"]) <= set(product["Attributes"])
            assert set(goal["instruction_options"]) <= values
            for option in goal["instruction_options"]:
                assert option in goal["instruction"]
    assert n_goals > 2000 and 0.15 < n_without_options / n_goals < 0.45
    for record in made.attributes.values():
        assert set(record["instruction_attributes"]) <= set(record["attributes"])


def test_near_misses_exist(made) -> None:
    by_query: dict[str, list[dict]] = {}
    for p in made.products:
        by_query.setdefault(p["query"], []).append(p)
    assert len(by_query) == 40 and min(len(v) for v in by_query.values()) >= 8
    colours = {v["value"] for p in made.products for v in (p["customization_options"] or {}).get("Color", [])}
    assert {"navy", "navy blue"} <= colours or {"grey", "dark grey"} <= colours
    # same type, other hidden attributes
    shampoo = [frozenset(made.attributes[p["asin"]]["attributes"]) for p in by_query["shampoo"]]
    assert len(set(shampoo)) > len(shampoo) // 2


def test_title_nouns_come_from_the_titles(made) -> None:
    spacy = spacy_title_nouns()
    for p in made.products:
        nouns = made.title_nouns[p["asin"]]
        assert nouns and all(n in p["name"].lower() for n in nouns)
        assert nouns == spacy[p["name"]]  # the default catalog's titles were all tagged by spaCy
    other = generate(300, seed=5)
    constructed = [p for p in other.products if p["name"] not in spacy]
    assert constructed  # titles spaCy never saw get the nouns known by construction
    for p in constructed:
        words = set(re.findall(r"[a-z0-9]+", p["name"].lower().replace("&", " ")))
        assert set(other.title_nouns[p["asin"]]) <= words


def test_generation_is_fast() -> None:
    start = time.perf_counter()
    generate(1000, seed=9)
    assert time.perf_counter() - start < 30  # a sanity bound; the benchmark measures (~0.2 s)


def test_damaged_files_give_clear_errors(tmp_path) -> None:
    write(generate(20), tmp_path)
    (tmp_path / "items_shuffle.json").write_text("[{not json")
    with pytest.raises(CatalogError, match=r"items_shuffle\.json: not a readable WebShop product file"):
        read_catalog(tmp_path)
    (tmp_path / "items_shuffle.json").write_text('{"a": 1}')
    with pytest.raises(CatalogError, match="holds a JSON list"):
        read_catalog(tmp_path)
    (tmp_path / "items_shuffle.json").write_text('[{"asin": "B000000001", "name": "x"}]')
    with pytest.raises(CatalogError, match=r"missing full_description"):
        read_catalog(tmp_path)
    (tmp_path / "items_shuffle.json").write_text(
        json.dumps([{"asin": "B000000001", "name": "x", "full_description": "", "small_description": [],
                     "category": "c", "query": "q", "product_category": "a", "images": [], "pricing": "$abc"}])
    )  # fmt: skip
    with pytest.raises(CatalogError, match="unreadable pricing"):
        read_catalog(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="lacks WebShop's data files"):
        read_catalog(tmp_path / "empty")
    with pytest.raises(FileNotFoundError, match="no WebShop data directory"):
        read_catalog(tmp_path / "nowhere")


_GOOD = {"asin": "B000000001", "name": "x", "full_description": "", "small_description": [], "category": "c",
         "query": "q", "product_category": "a", "images": [], "pricing": "$1.00"}  # fmt: skip


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", None, "'name' must be a string"),
        ("product_category", None, "'product_category' must be a string"),
        ("full_description", 3, "'full_description' must be a string"),
        ("small_description", [1], "'small_description' must be a string or a list of strings"),
        ("images", "x.jpg", "'images' must be a list"),
    ],
)
def test_fields_of_the_wrong_type_are_named(field, value, message) -> None:
    with pytest.raises(CatalogError, match=message):
        load_products([{**_GOOD, field: value}], {})


@pytest.mark.parametrize(
    ("attributes", "human", "message"),
    [
        ({"B000000001": {"attributes": None}}, {}, "'attributes' must be a list of strings"),
        ({"B000000001": ["x"]}, {}, "an entry is"),
        ({}, {"B000000001": {"instruction": "x"}}, "a list of instructions"),
        ({}, {"B000000001": [{"instruction": None}]}, "an instruction is"),
        ({}, {"B000000001": [{"instruction": "x", "instruction_options": "blue"}]}, "'instruction_options' must"),
    ],
)
def test_damaged_goal_entries_are_named(attributes, human, message) -> None:
    with pytest.raises(CatalogError, match=message):
        load_products([_GOOD], attributes, human)


def test_reviews_are_written_and_shown_only_when_asked(made, tmp_path) -> None:
    from gui_gym.webshop.engine import Session, Shop

    assert len(made.reviews) == 1000 and any(r["reviews"] for r in made.reviews)
    assert all(set(r) == {"asin", "reviews", "average_rating"} for r in made.reviews)
    paths = write(generate(60), tmp_path)
    assert paths["reviews"].name == "reviews.json"
    plain, rich = Shop.from_directory(tmp_path), Shop.from_directory(tmp_path, reviews=True)
    reviewed = next(p for p in rich.catalog.products if p["Reviews"])
    assert plain.product(reviewed["asin"])["Reviews"] == [] and plain.product(reviewed["asin"])["Rating"] == "N.A."
    assert isinstance(reviewed["Rating"], float) and {"score", "body", "title"} <= set(reviewed["Reviews"][0])
    session = Session(rich, 0)
    session.asin, session.keywords, session.page_no = reviewed["asin"], ["x"], 1
    session._sub("Reviews")
    first = reviewed["Reviews"][0]
    assert session.observation().split(" [SEP] ")[4:7] == [f'"{first["title"]}"', str(first["score"]), first["body"]]
    (tmp_path / "reviews.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"no reviews\.json"):
        Shop.from_directory(tmp_path, reviews=True)
