"""Record real Lucene (Anserini 0.14.3, the engine of upstream WebShop's pyserini 0.17.0) on the
embedded catalog: the analyser's terms for many strings and BM25's top 50 for many queries.

Run with a Python that has ``pyjnius`` and Java 11+ (pyserini's wheel carries the jar)::

    python tests/webshop/record_lucene.py --jar .../anserini-0.14.3-fatjar.jar --work /tmp/lucene \
        --out tests/webshop/fixtures/lucene [--products 1000] [--queries 300]

It writes the catalog's documents as upstream's index builder does (``convert_product_file_format.py``),
indexes them with Anserini's ``IndexCollection`` exactly as ``run_indexing.sh`` does, then records
``search.jsonl.gz`` (query → [[id, score], ...]) and ``analyzer.jsonl.gz`` (text → terms).
The project never imports this file; tests read what it wrote.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

EDGE_QUERIES = [
    "the of and", "x-large", "3.5oz", "$19.99", "women's", "men's running shoes", "don't", "rock'n'roll",
    "ünïcödé café", "中文 shampoo", "🧴 lotion", "a.b.c", "1,299.00", "snake_case", "hdmi 4k hdr", "usb-c",
    "pack of 2", "16 fl oz", "navy blue x-large", "tv stand 55 inch", "gluten free gluten free", "ASIN B0",
    "supercalifragilisticexpialidocious", "   ", "shampoo shampoo shampoo", "e.g. i.e.", "o'brien's",
]  # fmt: skip

WORDS = [
    "caresses",
    "ponies",
    "ties",
    "caress",
    "cats",
    "feed",
    "agreed",
    "plastered",
    "bled",
    "motoring",
    "sing",
    "conflated",
    "troubled",
    "sized",
    "hopping",
    "tanned",
    "falling",
    "hissing",
    "fizzed",
    "failing",
    "filing",
    "happy",
    "sky",
    "relational",
    "conditional",
    "rational",
    "valenci",
    "hesitanci",
    "digitizer",
    "conformabli",
    "radicalli",
    "differentli",
    "vileli",
    "analogousli",
    "vietnamization",
    "predication",
    "operator",
    "feudalism",
    "decisiveness",
    "hopefulness",
    "callousness",
    "formaliti",
    "sensitiviti",
    "sensibiliti",
    "triplicate",
    "formative",
    "formalize",
    "electriciti",
    "electrical",
    "hopeful",
    "goodness",
    "revival",
    "allowance",
    "inference",
    "airliner",
    "gyroscopic",
    "adjustable",
    "defensible",
    "irritant",
    "replacement",
    "adjustment",
    "dependent",
    "adoption",
    "homologou",
    "communism",
    "activate",
    "angulariti",
    "homologous",
    "effective",
    "bowdlerize",
    "probate",
    "rate",
    "cease",
    "controll",
    "roll",
    "archaeology",
    "possibly",
    "generalizations",
    "oscillators",
    "organization",
    "sweaters",
    "leggings",
    "jeans",
    "shoes",
    "headphones",
    "batteries",
    "cherries",
    "flies",
    "dying",
    "lying",
    "tying",
    "agreement",
    "argument",
    "judgment",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--jar", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--products", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()

    from gui_gym.webshop.engine import Shop
    from gui_gym.webshop.search import document_text

    shop = Shop.generated(args.products)
    docs = os.path.join(args.work, "docs")
    index = os.path.join(args.work, "index")
    os.makedirs(docs, exist_ok=True)
    with open(os.path.join(docs, "documents.jsonl"), "w") as f:
        for p in shop.catalog.products:
            f.write(json.dumps({"id": p["asin"], "contents": document_text(p), "product": {}}) + "\n")
    subprocess.run(
        ["java", "-cp", args.jar, "io.anserini.index.IndexCollection", "-collection", "JsonCollection",
         "-input", docs, "-index", index, "-generator", "DefaultLuceneDocumentGenerator", "-threads", "1",
         "-storePositions", "-storeDocvectors", "-storeRaw"],
        check=True, capture_output=True,
    )  # fmt: skip

    import jnius_config

    jnius_config.set_classpath(args.jar)
    from jnius import autoclass

    searcher = autoclass("io.anserini.search.SimpleSearcher")(index)
    analyzer = autoclass("io.anserini.analysis.DefaultEnglishAnalyzer").newDefaultInstance()
    utils = autoclass("io.anserini.analysis.AnalyzerUtils")

    queries = [g["instruction_text"].lower() for g in shop.goals[: args.queries]]
    queries += [" ".join(q.split()[:4]) for q in queries[:50]] + EDGE_QUERIES
    os.makedirs(args.out, exist_ok=True)
    with gzip.open(os.path.join(args.out, "search.jsonl.gz"), "wt", encoding="utf-8") as f:
        for q in queries:
            hits = searcher.search(q, 50)
            f.write(json.dumps({"query": q, "hits": [[h.docid, h.score] for h in hits]}) + "\n")
    texts = WORDS + EDGE_QUERIES + [p["name"] for p in shop.catalog.products[:200]]
    with gzip.open(os.path.join(args.out, "analyzer.jsonl.gz"), "wt", encoding="utf-8") as f:
        for t in texts:
            f.write(json.dumps({"text": t, "terms": list(utils.analyze(analyzer, t))}) + "\n")
    print(f"{len(queries)} queries, {len(texts)} texts recorded in {args.out}")


if __name__ == "__main__":
    main()
