"""The embedded search against real Lucene: Anserini 0.14.3 (upstream WebShop's pyserini 0.17.0)
indexed the embedded catalog as upstream's index builder does, and its analyser and BM25 top 50
were recorded by ``record_lucene.py`` (see its docstring to re-record)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from gui_gym.webshop.engine import Shop
from gui_gym.webshop.search import analyze

FIXTURES = Path(__file__).parent / "fixtures" / "lucene"


def _records(name: str) -> list[dict]:
    with gzip.open(FIXTURES / name, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def test_analyzer_terms_equal_lucenes() -> None:
    records = _records("analyzer.jsonl.gz")
    assert len(records) > 300
    for r in records:
        assert analyze(r["text"]) == r["terms"], r["text"]


def test_bm25_top_50_equals_lucenes_for_every_recorded_query() -> None:
    engine = Shop.generated(1000).search
    records = _records("search.jsonl.gz")
    assert len(records) > 350
    for r in records:
        assert engine.search(r["query"]) == [hit[0] for hit in r["hits"]], r["query"]


def test_scores_agree_to_lucenes_four_decimals() -> None:
    engine = Shop.generated(1000).search
    for r in _records("search.jsonl.gz")[:100]:
        scores = engine.scores(r["query"])
        for doc, score in r["hits"]:
            assert scores[doc] == pytest.approx(score, abs=1e-4)
