"""WebShop's five pages and their sub-pages, as text (upstream's observation modes) and as HTML.

A page is a list of :class:`Node` — the visible text nodes of upstream's template in document
order, each with the tag that holds it — built by :func:`search_page`, :func:`results_page`,
:func:`item_page`, :func:`sub_page` and :func:`done_page`. The observation modes are computed
from the nodes exactly as upstream computes them from its HTML
(``web_agent_text_env.py:convert_html_to_text``, lines 191-222):

- ``text``: the nodes' text, stripped, joined by ``" [SEP] "``;
- ``text_rich``: one line per node: ``[button] … [button_]`` for buttons, options and product
  links, ``[clicked button] …`` for the chosen options and the visited products, plain text
  otherwise, with ``You have clicked <option>.`` lines in front.

BeautifulSoup's rules for whitespace are kept: a text of ASCII whitespace is dropped when it
holds a newline and becomes an empty entry otherwise.

:func:`render_html` writes the same page as HTML (every product text and query escaped; the
forms post ``action=click[…]`` / ``search[…]`` back to the served shop); its visible text is the
nodes' text, so a browser shows what the agent reads.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BACK_TO_SEARCH",
    "END_BUTTON",
    "NEXT_PAGE",
    "PREV_PAGE",
    "SUB_PAGES",
    "Node",
    "Page",
    "done_page",
    "item_page",
    "render_html",
    "render_text",
    "results_page",
    "search_page",
    "sub_page",
]

END_BUTTON = "Buy Now"
NEXT_PAGE = "Next >"
PREV_PAGE = "< Prev"
BACK_TO_SEARCH = "Back to Search"
#: The item's sub-pages, by button label (engine.py:32-37).
SUB_PAGES = ("Description", "Features", "Reviews", "Attributes")

_ASCII_SPACE = str.maketrans("", "", " \n\t\x0c\r")


@dataclass(frozen=True)
class Node:
    """One visible text: its string as rendered, the tag holding it (``button``, ``label``,
    ``a`` for product links, ``p``/``h4``/``pre``… otherwise) and, for controls, what clicking
    it does (``value``: the clickable's key, ``group``: an option's group)."""

    text: str
    tag: str = "p"
    value: str | None = None
    group: str | None = None


@dataclass(frozen=True)
class Page:
    """A rendered page: its kind (``index``, ``search_results``, ``item_page``,
    ``item_sub_page``, ``done``), its nodes and whether it has the search bar."""

    kind: str
    nodes: tuple[Node, ...]
    has_search_bar: bool = False
    title: str = "WebShop"


def _visible(nodes: Sequence[Node]) -> list[Node]:
    """BeautifulSoup's view of the texts: empty texts are no nodes; a whitespace-only text
    becomes ``"\\n"`` (dropped by upstream) when it holds a newline, else ``" "``."""
    out = []
    for node in nodes:
        if not node.text:
            continue
        if node.tag != "pre" and not node.text.translate(_ASCII_SPACE):
            if "\n" in node.text:
                continue
            node = Node(" ", node.tag, node.value, node.group)
        out.append(node)
    return out


def render_text(page: Page, mode: str = "text", url: str = "", visited: frozenset[str] | set[str] = frozenset()) -> str:
    """The page in upstream's ``text`` or ``text_rich`` observation mode. *url* is the page's
    URL (upstream marks an option chosen when ``'"<value>"'`` occurs in it) and *visited* the
    product ids opened this session."""
    nodes = _visible(page.nodes)
    if mode == "text":
        return " [SEP] ".join(n.text.strip() for n in nodes)
    if mode != "text_rich":
        raise ValueError(f"render_text renders 'text' or 'text_rich', not {mode!r}")
    observation = ""
    for node in nodes:
        t = node.text
        if node.tag == "button":
            line = f"[button] {t} [button_]"
        elif node.tag == "label":
            if f'"{t}"' in url:
                line = f"  [clicked button] {t} [clicked button_]"
                observation = f"You have clicked {t}.\n" + observation
            else:
                line = f"  [button] {t} [button_]"
        elif node.tag == "a":
            line = f"\n[clicked button] {t} [clicked button_]" if t in visited else f"\n[button] {t} [button_]"
        else:
            line = t
        observation += line + "\n"
    return observation


# -- the pages --------------------------------------------------------------------------------


def _header(instruction: str, label: str = "Instruction:") -> list[Node]:
    return [Node(label, "h4"), Node(instruction, "h4")]


def search_page(instruction: str) -> Page:
    return Page(
        "index",
        (Node("WebShop", "h2"), *_header(instruction, "Instruction: "), Node("Search", "button", "search")),
        has_search_bar=True,
    )


def results_page(instruction: str, page: int, total: int, products: Sequence[Mapping[str, Any]]) -> Page:
    nodes = [*_header(instruction), Node(BACK_TO_SEARCH, "button", BACK_TO_SEARCH.lower())]
    nodes.append(Node(f"Page {page} (Total results: {total})", "h3"))
    if page > 1:
        nodes.append(Node(PREV_PAGE, "button", PREV_PAGE.lower()))
    nodes.append(Node(NEXT_PAGE, "button", NEXT_PAGE.lower()))
    for product in products:
        nodes.append(Node(str(product["asin"]), "a", str(product["asin"]).lower()))
        nodes.append(Node(str(product["Title"]), "h4"))
        nodes.append(Node(str(product["Price"]), "h5"))
    return Page("search_results", tuple(nodes))


def item_page(instruction: str, product: Mapping[str, Any], show_attrs: bool = False) -> Page:
    nodes = [*_header(instruction), Node(BACK_TO_SEARCH, "button", BACK_TO_SEARCH.lower())]
    nodes.append(Node(PREV_PAGE, "button", PREV_PAGE.lower()))
    for group, values in product["options"].items():
        nodes.append(Node(str(group), "h4"))
        for value in values:
            nodes.append(Node(str(value), "label", str(value), str(group)))
    nodes.append(Node(str(product["Title"]), "h2"))
    nodes.append(Node(f"Price: {product['Price']}", "h4"))
    nodes.append(Node(f"Rating: {product['Rating']}", "h4"))
    for name in SUB_PAGES[:3] + (SUB_PAGES[3:] if show_attrs else ()):
        nodes.append(Node(name, "button", name.lower()))
    nodes.append(Node(END_BUTTON, "button", END_BUTTON.lower()))
    return Page("item_page", tuple(nodes))


def _review_nodes(review: Mapping[str, Any]) -> list[Node]:
    # title in quotes, the score, the body; the stars are icons without text
    score, body = review.get("score", ""), review.get("body", "")
    return [Node(f'"{review.get("title", "")}"', "h4"), Node(str(score), "span"), Node(str(body), "p")]


def sub_page(instruction: str, product: Mapping[str, Any], name: str) -> Page:
    nodes = [*_header(instruction), Node(BACK_TO_SEARCH, "button", BACK_TO_SEARCH.lower())]
    nodes.append(Node(PREV_PAGE, "button", PREV_PAGE.lower()))
    if name == "Description":
        nodes.append(Node(str(product["Description"]), "p"))
    elif name == "Features":
        nodes.extend(Node(f" {b}", "p") for b in product["BulletPoints"])
    elif name == "Reviews":
        for review in product["Reviews"]:
            nodes.extend(_review_nodes(review))
    elif name == "Attributes":
        nodes.extend(Node(f" {a}", "p") for a in product["Attributes"])
        nodes.extend(Node(str(product[k]), "h5") for k in ("category", "query", "product_category"))
    else:
        raise ValueError(f"unknown sub-page {name!r}; one of {', '.join(SUB_PAGES)}")
    return Page("item_sub_page", tuple(nodes))


def _tojson(value: Any) -> str:
    """Flask's ``tojson`` filter: sorted keys, ASCII, HTML-sensitive characters escaped."""
    text = json.dumps(value, sort_keys=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").replace("'", "\\u0027")


def done_page(asin: str, options: Mapping[str, str], reward: float) -> Page:
    """The page after ``Buy Now`` as upstream's text env renders it: its hidden details block
    is part of the text (BeautifulSoup does not read CSS); the fields the text env leaves unset
    read ``None`` or nothing."""
    nodes = [
        Node("Thank you for shopping with us!", "h1"),
        Node("Your code: ", "h3"),
        Node("None", "pre"),
        Node(" (Paste it in your MTurk interface.)", "p"),
        Node("Purchased", "h2"),
        Node("asin", "h4"),
        Node(str(asin), "pre"),
        Node("options", "h4"),
        Node(_tojson(dict(options)), "pre"),
    ]
    for label in ("attrs", "category", "query", "product category"):
        nodes += [Node(label, "h4"), Node("None", "pre")]
    nodes.append(Node("Target", "h2"))
    for label in (
        "asin",
        "options",
        "attrs",
        "price upper",
        "instuction text",
        "category",
        "product category",
        "query",
    ):
        nodes.append(Node(label, "h4"))
    nodes += [Node("Goal ", "h4"), Node("None", "pre"), Node("Reward", "h2")]
    nodes += [Node("Your score (min 0.0, max 1.0)", "h3"), Node(str(reward), "pre")]
    nodes += [Node("Reward Details ", "h4"), Node("None", "pre")]
    return Page("done", tuple(nodes))


# -- HTML ------------------------------------------------------------------------------------

_STYLE = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:60em;color:#222}
.instruction{background:#f3f6fa;padding:.6em 1em;border-radius:6px}
.product{border-top:1px solid #ddd;padding:.5em 0}form.options{display:inline}
.option.chosen{background:#2b6cb0;color:#fff}.bar{margin-bottom:1em}
button{margin:.2em .4em .2em 0}.score{font-size:1.4em}.hidden{display:none}"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _form(action_url: str, action: str, inner: str, css: str = "") -> str:
    cls = f' class="{css}"' if css else ""
    return (
        f'<form method="post" action="{_e(action_url)}"{cls}>'
        f'<input type="hidden" name="action" value="{_e(action)}">{inner}</form>'
    )


def render_html(page: Page, action_url: str = "", extra: str = "", chosen: Mapping[str, str] | None = None) -> str:
    """The page as a complete HTML document whose forms post ``action=click[…]`` (or
    ``action=search`` with ``query``) to *action_url*. Every text is escaped and there is no
    script: each option is a button of its own form, marked when it is *chosen* (group →
    value). *extra* is trusted markup from the server (its navigation bar)."""
    chosen = chosen or {}
    body: list[str] = []
    nodes = list(page.nodes)
    i = 0
    if page.kind == "done":
        body.append('<div id="thankyou"><h1>Thank you for shopping with us!</h1></div>')
        details = "".join(f"<{n.tag}>{_e(n.text)}</{n.tag}>" for n in nodes[1:-4])
        body.append(f'<div class="hidden">{details}</div>')
        body.append(f'<h3 id="reward">{_e(nodes[-4].text)}<pre class="score">{_e(nodes[-3].text)}</pre></h3>')
        body.append(f"<h4 hidden>{_e(nodes[-2].text)}<pre>{_e(nodes[-1].text)}</pre></h4>")
        return _document(page, "".join(body), extra)
    if nodes and nodes[0].tag == "h2" and page.kind == "index":
        body.append(f'<div id="logo"><h2>{_e(nodes[0].text)}</h2></div>')
        i = 1
    body.append(
        f'<div id="instruction-text" class="instruction"><h4>{_e(nodes[i].text)}<br>{_e(nodes[i + 1].text)}</h4></div>'
    )
    i += 2
    group_open = None
    for node in nodes[i:]:
        if node.tag == "label":
            if group_open != node.group:
                body.append(f'<h4 class="option-group">{_e(node.group)}</h4>')
                group_open = node.group
            on = chosen.get(str(node.group).lower()) == node.value
            button = (
                f'<button type="submit" class="option{" chosen" if on else ""}" aria-pressed="{str(on).lower()}">'
                f"{_e(node.text)}</button>"
            )
            body.append(_form(action_url, f"click[{node.value}]", button, "options"))
            continue
        if node.tag == "h4" and node.group is None and any(n.tag == "label" and n.group == node.text for n in nodes):
            continue  # an option group's heading, written with its first option
        if node.tag == "button" and node.value == "search":
            inner = (
                '<input id="search_input" type="text" name="query" placeholder="Search..." required>'
                '<button class="btn" type="submit">Search</button>'
            )
            body.append(
                f'<form method="post" action="{_e(action_url)}" class="search">'
                f'<input type="hidden" name="action" value="search">{inner}</form>'
            )
        elif node.tag == "button":
            body.append(
                _form(action_url, f"click[{node.value}]", f'<button class="btn" type="submit">{_e(node.text)}</button>')
            )
        elif node.tag == "a":
            body.append(
                _form(
                    action_url,
                    f"click[{node.value}]",
                    f'<button class="product-link" type="submit">{_e(node.text)}</button>',
                    "product",
                )
            )
        else:
            body.append(f"<{node.tag}>{_e(node.text)}</{node.tag}>")
    return _document(page, "".join(body), extra)


def _document(page: Page, body: str, extra: str) -> str:
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f"<title>{_e(page.title)}</title><style>{_STYLE}</style></head>"
        f'<body data-page="{_e(page.kind)}">{extra}{body}</body></html>'
    )
