"""WebShop's state machine: a shop (products, prices, goals, search, noun tagger) and the
sessions that shop in it, page by page, as upstream's text env does.

:class:`Session` follows ``web_agent_text_env.py`` (``WebAgentTextEnv.step``, lines 89-131;
``SimServer.receive``, lines 424-505; ``get_available_actions``, lines 133-154):

- an action is parsed with upstream's pattern ``(.+)\\[(.+)\\]`` (matched at the start, so
  ``search[x]`` followed by anything still searches for ``x``) and its argument lower-cased;
- ``search[q]`` works from any page (a non-empty *q*): the results of ``q.split(" ")``, page 1;
- ``click[x]`` works when *x* is one of the page's clickables — its buttons' lower-cased labels,
  then its product links' lower-cased ids, then its option values — and is not ``search``;
- ``buy now`` ends the session with the score; ``back to search`` starts over (same goal);
  ``next >`` / ``< prev`` page through results; ``< prev`` goes from a sub-page to its item and
  from an item to its results page (forgetting the chosen options); ``description``,
  ``features``, ``reviews`` and ``attributes`` open sub-pages; a product link opens the item; an
  option value chooses it.
- anything else changes nothing (upstream returns the same page with reward 0).

Each page keeps upstream's URL, because upstream decides "on the results page" and "option
chosen" by looking inside it.

Example:
    >>> shop = Shop.generated(num_products=200)
    >>> session = Session(shop, 0)
    >>> session.observation().startswith("WebShop [SEP] Instruction: [SEP] ")
    True
    >>> shop.goals[0]["query"]
    'usb microphones'
    >>> session.step("search[usb microphones]").valid
    True
    >>> session.observation().split(" [SEP] ")[2:5]  # products holding "usb" or "microphon"
    ['Back to Search', 'Page 1 (Total results: 16)', 'Next >']
"""

from __future__ import annotations

import functools
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gui_gym.webshop import pages as P
from gui_gym.webshop.catalog import Catalog, load_products, product_prices, read_catalog
from gui_gym.webshop.goals import derive_goals
from gui_gym.webshop.reward import NounTagger, RewardInfo, default_tagger, get_reward
from gui_gym.webshop.search import BM25Search, K, SearchEngine

__all__ = ["BASE_URL", "PRODUCT_WINDOW", "Outcome", "Session", "Shop", "parse_action"]

BASE_URL = "http://127.0.0.1:3000"
PRODUCT_WINDOW = 10  # results per page (engine.py:28)
MAX_QUERY_CHARS = 500
_ACTION = re.compile(r"(.+)\[(.+)\]")
_SUB_PAGE = {name.lower(): name for name in P.SUB_PAGES}


def parse_action(action: str) -> tuple[str, str | None]:
    """``(name, argument)`` as upstream's ``parse_action`` splits an action (engine.py:118-129)."""
    m = _ACTION.match(action)
    if m is None:
        return action, None
    return m.group(1), m.group(2)


# -- the shop -----------------------------------------------------------------------------------


@dataclass
class Shop:
    """Everything sessions share: the loaded catalog (products and sale prices), the goals in
    served order, the search engine and the noun tagger of the type reward."""

    catalog: Catalog
    goals: list[dict[str, Any]]
    search: SearchEngine
    tagger: NounTagger
    goal_kind: str = "human"
    show_attrs: bool = False
    attribute_to_asins: dict[str, set[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.attribute_to_asins = {}
        for p in self.catalog.products:
            for a in p["Attributes"]:
                self.attribute_to_asins.setdefault(a, set()).add(p["asin"])

    @classmethod
    def from_catalog(
        cls,
        catalog: Catalog,
        rng: random.Random,
        goals: str = "human",
        search: SearchEngine | None = None,
        tagger: NounTagger | None = None,
        show_attrs: bool = False,
    ) -> Shop:
        """A shop over a loaded catalog; *rng* continues where the prices left it (the goals'
        price bounds), as upstream's global ``random`` does."""
        if tagger is None:
            tagger = default_tagger(catalog.nouns_by_title())
        served = derive_goals(catalog.products, catalog.prices, goals, rng)
        if not served:
            why = (
                "no human-goal file, or none with attributes" if goals == "human" else "no attribute-file instructions"
            )
            raise ValueError(f"the catalog at {catalog.source} yields no {goals} goals ({why})")
        engine = search if search is not None else BM25Search.from_products(catalog.products)
        return cls(catalog, served, engine, tagger, goals, show_attrs)

    @classmethod
    def from_directory(
        cls,
        directory: Any,
        goals: str = "human",
        seed: int = 0,
        num_products: int | None = None,
        search: SearchEngine | None = None,
        tagger: NounTagger | None = None,
        show_attrs: bool = False,
        reviews: bool = False,
    ) -> Shop:
        """The shop of a WebShop data directory (upstream's files, or a generated catalog);
        ``reviews=True`` shows its ``reviews.json`` (upstream's loader leaves reviews out)."""
        rng = random.Random(seed)
        catalog = read_catalog(directory, num_products, rng, reviews=reviews)
        return cls.from_catalog(catalog, rng, goals, search, tagger, show_attrs)

    @classmethod
    def generated(
        cls,
        num_products: int = 1000,
        catalog_seed: int = 0,
        goals: str = "human",
        seed: int = 0,
        show_attrs: bool = False,
        reviews: bool = False,
    ) -> Shop:
        """The embedded shop: a generated catalog (cached per process, read-only); ``reviews``
        fills the Reviews pages (upstream shows none)."""
        return _generated_shop(num_products, catalog_seed, goals, seed, show_attrs, reviews)

    def product(self, asin: str) -> dict[str, Any] | None:
        return self.catalog.by_asin.get(asin)

    def price(self, asin: str) -> float:
        return self.catalog.prices[asin]

    def top_products(self, keywords: Sequence[str], rng: random.Random) -> list[dict[str, Any]]:
        """The ranked products of a search (engine.py:139-172), including upstream's debug
        prefixes ``<r>`` (random), ``<a>`` (attribute), ``<c>`` (category) and ``<q>`` (query)."""
        products = self.catalog.products
        head = keywords[0] if keywords else ""
        if head == "<r>":
            return rng.sample(products, k=min(K, len(products)))
        if head == "<a>":
            asins = self.attribute_to_asins.get(" ".join(keywords[1:]).strip(), set())
            return [p for p in products if p["asin"] in asins]
        if head == "<c>":
            category = keywords[1].strip() if len(keywords) > 1 else ""
            return [p for p in products if p["category"] == category]
        if head == "<q>":
            query = " ".join(keywords[1:]).strip()
            return [p for p in products if p["query"] == query]
        ids = self.search.search(" ".join(keywords), k=K)
        return [self.catalog.by_asin[a] for a in ids if a in self.catalog.by_asin]

    def reward(self, goal: Mapping[str, Any], asin: str, options: Mapping[str, str]) -> RewardInfo:
        return get_reward(goal, self.catalog.by_asin[asin], self.price(asin), options, self.tagger)


@functools.lru_cache(maxsize=8)
def _generated_shop(
    num_products: int, catalog_seed: int, goals: str, seed: int, show_attrs: bool, reviews: bool
) -> Shop:
    from gui_gym.webshop.generator import generate

    made = generate(num_products=num_products, seed=catalog_seed)
    rows = made.reviews if reviews else None
    products = load_products(made.products, made.attributes, made.human_goals, where="generated catalog", reviews=rows)
    rng = random.Random(seed)
    prices = product_prices(products, rng)
    catalog = Catalog(
        products, prices, dict(made.title_nouns), source=f"generated(num_products={num_products}, seed={catalog_seed})"
    )
    return Shop.from_catalog(catalog, rng, goals, show_attrs=show_attrs)


# -- a session ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    """What one action did: ``valid`` (it was parsed and applied), ``reason`` when not,
    ``kind`` (search, click, invalid), the clicked control's ``target`` (``button``, ``a``,
    ``label``) and ``label``, and, on ``Buy Now``, ``done`` with the ``reward``. ``refused``
    marks a query upstream would run but this engine declines (too long, control characters)."""

    valid: bool
    kind: str
    reason: str = ""
    target: str = ""
    label: str = ""
    done: bool = False
    reward: float = 0.0
    refused: bool = False


class Session:
    """One shopper after one goal (see the module docstring). ``session_id`` defaults to the
    goal's index, as verl-agent's ``reset(session=idx)`` names it."""

    def __init__(
        self, shop: Shop, goal_index: int, session_id: str | None = None, rng: random.Random | None = None
    ) -> None:
        if not 0 <= goal_index < len(shop.goals):
            raise IndexError(f"goal index {goal_index} outside 0..{len(shop.goals) - 1}")
        self.shop = shop
        self.goal_index = goal_index
        self.goal = shop.goals[goal_index]
        self.session_id = str(goal_index) if session_id is None else session_id
        self.rng = rng if rng is not None else random.Random(goal_index)
        self.asins: set[str] = set()
        self.reward_info: RewardInfo | None = None
        self._index()
        self.url = f"{BASE_URL}/{self.session_id}"

    # -- reading ---------------------------------------------------------------------------------
    @property
    def instruction(self) -> str:
        return self.goal["instruction_text"]

    @property
    def done(self) -> bool:
        return self.reward_info is not None

    def observation(self, mode: str = "text") -> str:
        """The page in an upstream observation mode: ``text``, ``text_rich``, ``html`` or ``url``."""
        if mode == "url":
            return self.url
        if mode == "html":
            return P.render_html(self.page, chosen=self.options)
        return P.render_text(self.page, mode, self.url, self.asins)

    def clickables(self) -> dict[str, P.Node]:
        """The page's clickables by key, in upstream's order: buttons, product links, options
        (a later option with the same value takes the earlier one's place)."""
        nodes = self.page.nodes
        table: dict[str, P.Node] = {}
        for node in nodes:
            if node.tag == "button":
                table[node.text.lower()] = node
        for node in nodes:
            if node.tag == "a":
                table[node.text.lower()] = node
        for node in nodes:
            if node.tag == "label" and node.value is not None:
                table[node.value] = node
        return table

    def available_actions(self) -> dict[str, Any]:
        """Upstream's ``get_available_actions()``: ``has_search_bar`` and ``clickables``."""
        return {"has_search_bar": self.page.has_search_bar, "clickables": list(self.clickables())}

    def page_name(self) -> str:
        """Upstream's ``get_page_name``: which page name occurs first in the URL."""
        for name in ("search_results", "item_page", "item_sub_page", "done"):
            if name in self.url:
                return name
        return ""

    # -- acting -------------------------------------------------------------------------------------
    def step(self, action: Any) -> Outcome:
        if self.done:
            return Outcome(False, "invalid", "the session has ended (Buy Now was clicked)")
        if not isinstance(action, str):
            return Outcome(
                False, "invalid", f"an action is text such as search[...] or click[...], not {type(action).__name__}"
            )
        name, arg = parse_action(action)
        if arg is not None:
            arg = arg.lower()
        if name == "search":
            if not arg:
                return Outcome(False, "invalid", "search[...] needs keywords inside the brackets")
            if len(arg) > MAX_QUERY_CHARS:
                return Outcome(
                    False, "invalid", f"a query of {len(arg)} characters; at most {MAX_QUERY_CHARS}", refused=True
                )
            if not arg.isprintable():
                return Outcome(False, "invalid", "the query holds control characters", refused=True)
            self._results(arg.split(" "), 1)
            return Outcome(True, "search", label=arg)
        if name == "click" and arg is not None:
            table = self.clickables()
            node = table.get(arg)
            if node is None or arg == "search":
                return Outcome(False, "invalid", self._not_clickable(arg, table))
            return self._click(arg, node)
        if arg is not None:
            return Outcome(False, "invalid", f"unknown action {name[:40]!r}: write search[<keywords>] or click[<item>]")
        return Outcome(False, "invalid", f"cannot parse {action[:80]!r}: write search[<keywords>] or click[<item>]")

    def _not_clickable(self, arg: str, table: Mapping[str, P.Node]) -> str:
        if arg == "search":
            return "click[search] does nothing; write search[<keywords>]"
        shown = ", ".join(list(table)[:12]) or "nothing"
        return f"{arg[:80]!r} is not clickable on this page; clickable: {shown}"

    def _click(self, name: str, node: P.Node) -> Outcome:
        page = self.page_name()
        if name == P.END_BUTTON.lower():
            return self._buy(node)
        if name == P.BACK_TO_SEARCH.lower():
            self._index()
            self.url = f"{BASE_URL}/{self.session_id}"
        elif name == P.NEXT_PAGE.lower() and page == "search_results":
            self._results(self.keywords or [""], (self.page_no or 1) + 1)
        elif name == P.PREV_PAGE.lower() and page == "search_results":
            self._results(self.keywords or [""], (self.page_no or 1) - 1)
        elif name == P.PREV_PAGE.lower() and page == "item_sub_page":
            self._item(name, node)
        elif name == P.PREV_PAGE.lower() and page == "item_page":
            self._results(self.keywords or [""], self.page_no or 1)
        elif name in _SUB_PAGE:
            self._sub(_SUB_PAGE[name])
        else:
            if node.tag == "a" and self.shop.product(name.upper()) is None:
                return Outcome(False, "invalid", f"no product {name.upper()} in this catalog")
            self._item(name, node)
        return Outcome(True, "click", target=node.tag, label=node.text)

    # -- pages (SimServer's handlers) ------------------------------------------------------------
    def _index(self) -> None:
        self.keywords: list[str] | None = None
        self.page_no: int | None = None
        self.asin: str | None = None
        self.asins = set()
        self.options: dict[str, str] = {}
        self.page = P.search_page(self.instruction)

    def _keywords_url(self) -> str:
        return "+".join(self.keywords or [])

    def _results(self, keywords: list[str], page: int) -> None:
        self.keywords, self.page_no = keywords, page
        self.asin, self.options = None, {}
        top = self.shop.top_products(keywords, self.rng)
        shown = top[(page - 1) * PRODUCT_WINDOW : page * PRODUCT_WINDOW]
        self.url = f"{BASE_URL}/search_results/{self.session_id}/{self._keywords_url()}/{page}"
        self.page = P.results_page(self.instruction, page, len(top), shown)

    def _item(self, name: str, node: P.Node) -> None:
        if node.tag == "a":
            self.asin = name.upper()
            self.asins.add(self.asin)
        elif node.group is not None:
            self.options[node.group.lower()] = name
        product = self.shop.product(self.asin or "")
        assert product is not None  # a product link was checked; options exist only on an item
        self.url = (
            f"{BASE_URL}/item_page/{self.session_id}/{self.asin}/{self._keywords_url()}/"
            f"{self.page_no}/{json.dumps(self.options)}"
        )
        self.page = P.item_page(self.instruction, product, self.shop.show_attrs)

    def _sub(self, name: str) -> None:
        product = self.shop.product(self.asin or "")
        assert product is not None
        self.url = (
            f"{BASE_URL}/item_sub_page/{self.session_id}/{self.asin}/{self._keywords_url()}/"
            f"{self.page_no}/{name}/{self.options}"
        )
        self.page = P.sub_page(self.instruction, product, name)

    def _buy(self, node: P.Node) -> Outcome:
        assert self.asin is not None
        info = self.shop.reward(self.goal, self.asin, self.options)
        self.reward_info = info
        self.url = f"{BASE_URL}/done/{self.session_id}/{self.asin}/{self.options}"
        self.page = P.done_page(self.asin, self.options, info.score)
        return Outcome(True, "click", target=node.tag, label=node.text, done=True, reward=info.score)
