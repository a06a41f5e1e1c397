"""The WebShop family: what code outside ``gui_gym.webshop`` learns about ``WebShop-v0``.

Reached through :func:`gui_gym.core.family.family_of`. Every goal is a task; ``tasks()`` lists
the embedded shop's training goals (upstream's split), and a selection may name a split
(``test``, ``eval``, ``train``), a tier, a category, ids (``human:42``) or a comma list of those.

Candidates: on a page with the search bar, searches built from the instruction (all of it
without the price clause, and its product phrase); then every clickable, as upstream lists it.

Example:
    >>> from gui_gym.core.family import family_of
    >>> family = family_of("WebShop-v0")
    >>> obs = {"instruction": "i need a sulfate free shampoo, and price lower than 30.00 dollars",
    ...        "text": "WebShop [SEP] Instruction: [SEP] i need a sulfate free shampoo, and price lower than "
    ...                "30.00 dollars [SEP] Search", "admissible": "search[<query>]"}
    >>> [c.action for c in family.admissible_actions(obs)]
    ['search[i need a sulfate free shampoo]', 'search[sulfate free shampoo]']
    >>> family.observation_text(obs)
    'WebShop | Search'
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

from gui_gym.core import contract as C
from gui_gym.core.family import Candidate
from gui_gym.core.matching import MatchingVocabulary
from gui_gym.core.task import TaskSpec
from gui_gym.webshop.expert import goal_query
from gui_gym.webshop.matching import VOCABULARY
from gui_gym.webshop.pages import BACK_TO_SEARCH, END_BUTTON, NEXT_PAGE, PREV_PAGE, SUB_PAGES

__all__ = ["FAMILY", "WebShopFamily", "candidate_kind", "product_phrase"]

#: Candidate kinds, in a fixed order.
KINDS = ("search", "product", "option", "buy", "page", "detail", "back")
_LEADS = re.compile(
    r"^(?:i am looking for|i'm looking for|im looking for|i am searching for|looking for|i would like|i want to buy|"
    r"i want|i need|find me|get me|buy me|buy|search for|show me|can you find|please find)\s+(?:an?\s+|some\s+|the\s+)?"
)
_ASIN = re.compile(r"^[a-z0-9]{10}$")
_DIGIT = re.compile(r"[0-9]")


def product_phrase(instruction: str) -> str:
    """The instruction's product phrase: without the price clause and the opening request."""
    return _LEADS.sub("", goal_query(instruction)).strip() or goal_query(instruction)


def candidate_kind(action: str, products: Collection[str] | None = None) -> tuple[str, str]:
    """``(candidate kind, contract action kind)`` of a WebShop action. *products*, the product
    ids on the page where known, tells a product link from a ten-letter option ("strawberry");
    without it a product id is ten letters and digits with at least one digit, as ASINs have."""
    if action.startswith("search["):
        return "search", C.INPUT
    label = action[6:-1] if action.startswith("click[") and action.endswith("]") else action
    if label == END_BUTTON.lower():
        return "buy", C.FINISH
    if label == BACK_TO_SEARCH.lower():
        return "back", C.NAVIGATE
    if label in (NEXT_PAGE.lower(), PREV_PAGE.lower()):
        return "page", C.NAVIGATE
    if label in {s.lower() for s in SUB_PAGES}:
        return "detail", C.NAVIGATE
    is_product = label in products if products is not None else bool(_ASIN.match(label) and _DIGIT.search(label))
    if is_product:
        return "product", C.INTERACT
    return "option", C.INTERACT


def _titles(text: str) -> dict[str, str]:
    """Product id (lower case) → title, read off a results page in ``text`` mode."""
    parts = text.split(" [SEP] ")
    return {p.lower(): parts[i + 1] for i, p in enumerate(parts[:-1]) if _ASIN.match(p.lower()) and p.isupper()}


class WebShopFamily:
    """The :class:`~gui_gym.core.family.EnvFamily` of ``WebShop-v0``."""

    name = "webshop"
    candidate_kinds: tuple[str, ...] = KINDS

    def tasks(self, selection: str | Sequence[str] | None = None) -> list[TaskSpec]:
        """Goals of the embedded shop: ids, tiers, categories, or ``<split>`` / ``<split>:<rest>``
        (``test:hard``); without a split, the training split's."""
        from gui_gym.webshop.engine import Shop
        from gui_gym.webshop.goals import split_indices
        from gui_gym.webshop.tasks import goal_tasks, resolve, spec_of

        shop = Shop.generated()
        everything = goal_tasks(shop, range(len(shop.goals)))
        train = [everything[i] for i in split_indices(len(everything), "train")]
        return [spec_of(t) for t in resolve(selection, everything, train)]

    def instruction(self, obs: Any) -> str:
        return str(obs.get("instruction", "")) if isinstance(obs, dict) else ""

    def observation_text(self, obs: Any, full: bool = False) -> str:
        """Compact: the page's texts joined by ``" | "`` without the instruction; full: the page
        as the env gives it, then the admissible actions, one per line."""
        if not isinstance(obs, dict):
            raise TypeError(f"a WebShop observation is the env's dict, got {type(obs).__name__}")
        text = str(obs.get("text", ""))
        if full:
            admissible = str(obs.get("admissible", ""))
            return f"{text}\n\nAvailable actions:\n{admissible}" if admissible else text
        instruction = str(obs.get("instruction", ""))
        parts = [p.strip() for p in text.split(" [SEP] ")]
        parts = [p for p in parts if p and p not in ("Instruction:", instruction)]
        return " | ".join(parts)

    def action_prompt(self) -> str:
        return "\n".join(
            [
                "You are shopping in WebShop for the product the instruction describes. Each turn you see the page",
                "and the available actions. Reply with exactly one action on one line: search[<keywords>] where there",
                "is a search bar, or click[<item>] for an available button, product id or option, for example:",
                "search[sulfate free shampoo for dry hair] | click[b07xyz1234] | click[16 oz] | click[buy now].",
                "Choose the options the instruction asks for before you click buy now; buying ends the episode.",
            ]
        )

    def admissible_actions(self, obs: Any, info: dict[str, Any] | None = None, limit: int = 96) -> list[Candidate]:
        listed = [a for a in str(obs.get("admissible", "") if isinstance(obs, dict) else "").split("\n") if a]
        titles = _titles(str(obs.get("text", ""))) if isinstance(obs, dict) else {}
        out: list[Candidate] = []
        for action in listed:
            if action == "search[<query>]":
                instruction = self.instruction(obs)
                queries = dict.fromkeys([goal_query(instruction), product_phrase(instruction)])
                for query in queries:
                    if query:
                        out.append(Candidate(f"search[{query}]", "search", f"search for {query}", C.INPUT))
                continue
            kind, action_kind = candidate_kind(action, titles or None)
            label = action[6:-1] if action.startswith("click[") else action
            if kind == "product":
                label = f"open {titles.get(label, label)}"
            out.append(Candidate(action, kind, label, action_kind))
        return out[:limit]

    def matching(self) -> MatchingVocabulary:
        """The shop's words for ADMIRE's milestone matcher (:mod:`gui_gym.webshop.matching`)."""
        return VOCABULARY

    def edit_actions(self) -> None:
        """WebShop has no action that changes nothing on every page, so ProgRM's synthesis has none."""
        return None


FAMILY = WebShopFamily()
