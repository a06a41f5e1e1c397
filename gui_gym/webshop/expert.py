"""What a careful shopper does, and the milestones of a goal.

:func:`next_action` is the env's ``oracle_action()``: it knows the goal (as the instruction
states it, plus which product and options satisfy it) and shops like a careful person — search
the instruction, read the results pages for a product that can satisfy it, open it, choose
each wanted option, buy. When the instruction's own words do not bring a satisfying product
into the first results, it searches that product's title instead.

:func:`goal_milestones` names the goal's sub-goals (ADMIRE-style milestones): the search, an
item of the goal's type, each wanted option, the purchase.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gui_gym.webshop.engine import PRODUCT_WINDOW, Session
from gui_gym.webshop.normalize import normalize_color
from gui_gym.webshop.pages import BACK_TO_SEARCH, END_BUTTON, NEXT_PAGE, PREV_PAGE
from gui_gym.webshop.reward import MATCH_THRESHOLD, token_set_ratio, wanted_options

__all__ = ["Milestone", "goal_milestones", "goal_query", "next_action", "option_matches", "wanted_options"]

_PRICE_CLAUSE = re.compile(r",? and price lower than [\d.]+ dollars$")
MAX_RESULT_PAGES = 5  # a person reads at most five pages of results before searching again


def goal_query(instruction: str) -> str:
    """The instruction as a search query: lower case, without the price clause."""
    return _PRICE_CLAUSE.sub("", instruction.strip()).lower()


def option_matches(chosen: str, wanted: Any) -> bool:
    """Whether a chosen option value counts for a wanted option under the reward's rule."""
    return token_set_ratio(normalize_color(chosen), normalize_color(wanted)) > MATCH_THRESHOLD


@dataclass(frozen=True)
class Milestone:
    """A named sub-goal: ``kind`` is ``search``, ``item``, ``option`` or ``buy``; ``option``
    holds the wanted option of an ``option`` milestone."""

    label: str
    kind: str
    option: Any = None


def _option_text(wanted: Any) -> str:
    return wanted[1] if isinstance(wanted, tuple) else str(wanted)


def goal_milestones(goal: Mapping[str, Any]) -> list[Milestone]:
    """The goal's sub-goals, named as an annotator who reads the page would name them: what to
    search for (the goal's product type), which item to open, each option to click, the
    purchase. They name the product and the buttons, as the actions' descriptions do
    (``Search for "…"``, ``Click "B0…" (title)``, ``Click "Buy Now" on B0…``), so ADMIRE's
    semantic matcher can tell them apart; a generic "Search for the product" matches no search."""
    query = goal["query"]
    out = [Milestone(f"Search for {query}", "search"), Milestone(f"Click a {query} item", "item")]
    out += [Milestone(f'Click "{_option_text(w)}"', "option", w) for w in wanted_options(goal)]
    out.append(Milestone('Click "Buy Now"', "buy"))
    return out


def _best_options(session: Session, asin: str) -> dict[str, str]:
    """For each wanted option, the product's value (and its group) that matches it best."""
    product = session.shop.catalog.by_asin[asin]
    chosen: dict[str, str] = {}
    for wanted in wanted_options(session.goal):
        best, best_score = None, MATCH_THRESHOLD
        for group, values in product["options"].items():
            if isinstance(wanted, tuple) and wanted[0] != group:
                continue
            for value in values:
                score = token_set_ratio(normalize_color(value), normalize_color(wanted))
                exact = value == _option_text(wanted)
                if exact or score > best_score:
                    best, best_score = (group, value), (101 if exact else score)
        if best is not None:
            chosen[best[0]] = best[1]
    return chosen


def _satisfies(session: Session, asin: str) -> bool:
    """Whether buying *asin* with its best options scores 1.0."""
    options = _best_options(session, asin)
    return session.shop.reward(session.goal, asin, options).score >= 1.0


def next_action(session: Session) -> str:
    """The careful shopper's next action in *session* (``click[buy now]`` ends it)."""
    goal = session.goal
    page = session.page.kind
    target = goal["asin"]
    if page == "index":
        return f"search[{goal_query(session.instruction)}]"
    if page == "item_sub_page":
        return f"click[{PREV_PAGE.lower()}]"
    if page == "item_page":
        asin = session.asin or ""
        if asin != target and not _satisfies(session, asin):
            return f"click[{PREV_PAGE.lower()}]"
        for group, value in _best_options(session, asin).items():
            if session.options.get(group) != value:
                return f"click[{value}]"
        return f"click[{END_BUTTON.lower()}]"
    if page == "search_results":
        listed = [n.text for n in session.page.nodes if n.tag == "a"]
        for asin in listed:
            if asin == target or _satisfies(session, asin):
                return f"click[{asin.lower()}]"
        total = _total(session)
        page_no = session.page_no or 1
        searched_title = (session.keywords or []) == session.shop.catalog.by_asin[target]["Title"].lower().split(" ")
        if page_no < MAX_RESULT_PAGES and page_no * PRODUCT_WINDOW < total:
            return f"click[{NEXT_PAGE.lower()}]"
        if not searched_title:
            return f"search[{session.shop.catalog.by_asin[target]['Title'].lower()}]"
        return f"click[{BACK_TO_SEARCH.lower()}]"
    return f"click[{END_BUTTON.lower()}]"


def _total(session: Session) -> int:
    for node in session.page.nodes:
        m = re.fullmatch(r"Page \d+ \(Total results: (\d+)\)", node.text)
        if m:
            return int(m.group(1))
    return 0
