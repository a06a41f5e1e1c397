"""Product search as upstream WebShop runs it: Lucene BM25 over one text field, top 50.

Upstream indexes, per product, ``" ".join([Title, Description, BulletPoints[0], options])``
lower-cased (``search_engine/convert_product_file_format.py:17-31``) with pyserini's default
analyser (Anserini's ``DefaultEnglishAnalyzer``: Unicode word segmentation, English possessive
removal, lower case, Lucene's 33 English stop words, Porter stemming) and answers a query with
``LuceneSearcher.search(keywords, k=50)`` (``engine.py:166-170``): BM25 with k1 = 0.9, b = 0.4,
a bag-of-words query whose repeated terms are boosted by their count.

:class:`BM25Search` reproduces Lucene 8's scoring to the float: idf = ln(1 + (N − n + 0.5)/(n +
0.5)), each document length stored in Lucene's one-byte norm (exact below 24 terms, 4
significant bits above), the score ``w − w / (1 + f · 1/(k1·(1 − b + b·dl/avgdl)))`` in
single precision, terms summed in double and rounded to single, best first, equal scores by
product id (Anserini sorts by score, then by the id field; the scores it reports are rounded to
four decimals and nudged apart, which leaves that order as it is).

Any object with ``search(query, k) -> list[str]`` (product ids, best first) plugs in, e.g.
:class:`PyseriniSearch` over a real Lucene index.

Example:
    >>> engine = BM25Search.build([("A1", "red cotton shirt"), ("A2", "blue shirts, men's"),
    ...                            ("A3", "red wine glass")])
    >>> engine.search("red shirt", k=50)
    ['A1', 'A2', 'A3']
    >>> analyze("The Kid's 3.5oz Sunscreen-Lotions!")
    ['kid', '3.5oz', 'sunscreen', 'lotion']
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from gui_gym.webshop.porter import stem

__all__ = [
    "STOP_WORDS",
    "BM25Search",
    "K",
    "PyseriniSearch",
    "SearchEngine",
    "analyze",
    "document_text",
    "tokenize",
]

#: How many hits a search returns (engine.py:27, SEARCH_RETURN_N).
K = 50
#: Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``.
STOP_WORDS = frozenset(
    (
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no",
        "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this",
        "to", "was", "will", "with",
    )
)  # fmt: skip
MAX_TOKEN_LENGTH = 255  # StandardTokenizer's default: longer tokens are cut into pieces


@runtime_checkable
class SearchEngine(Protocol):
    """What the engine asks of a search: product ids for a query, best first, at most *k*."""

    def search(self, query: str, k: int = K) -> list[str]: ...


# -- analysis ---------------------------------------------------------------------------------

# Unicode word-break classes (UAX #29) that join or split words, as StandardTokenizer uses them.
_MID_LETTER = frozenset(":\u00b7\u0387\u05f4\u2027\ufe13\ufe55\uff1a")
_MID_NUM_LET = frozenset(".\u2018\u2019\u2024\ufe52\uff07\uff0e'")  # with Single_Quote
_MID_NUM = frozenset(",;\u037e\u0589\u060c\u060d\u066c\u07f8\u2044\ufe10\ufe14\ufe50\ufe54\uff0c\uff1b")
_APOSTROPHES = ("'", "\u2019", "\uff07")

_LETTER, _DIGIT, _JOIN, _IDEO, _OTHER = range(5)


def _kind(ch: str) -> int:
    if ch.isdecimal():  # Numeric in UAX #29 is decimal digits; superscripts (²) are Other
        return _DIGIT
    if ch == "_" or unicodedata.category(ch) == "Pc":
        return _JOIN
    if ch.isalpha():
        cp = ord(ch)
        # ideographs, hiragana: one token each
        if 0x3040 <= cp <= 0x309F or 0x3400 <= cp <= 0x9FFF or 0x20000 <= cp <= 0x2FFFF or 0xF900 <= cp <= 0xFAFF:
            return _IDEO
        return _LETTER
    if 0x1F000 <= ord(ch) <= 0x1FAFF or 0x2600 <= ord(ch) <= 0x27BF:
        return _IDEO  # emoji: a token each, as StandardTokenizer emits them
    if unicodedata.category(ch) in ("Mn", "Mc", "Me", "Cf"):
        return _JOIN  # Extend/Format: stays with the character before (WB4)
    return _OTHER


def tokenize(text: str) -> list[str]:
    """Unicode word segmentation as Lucene's StandardTokenizer applies it to product text:
    letters, digits and ``_`` form words; ``.``, ``'`` and ``:`` join letters to letters,
    ``.``, ``'``, ``,`` and ``;`` join digits to digits; every other character splits."""
    tokens: list[str] = []
    n = len(text)
    i = 0
    kinds = [_kind(ch) for ch in text]
    while i < n:
        kind = kinds[i]
        if kind == _IDEO:
            tokens.append(text[i])
            i += 1
            continue
        if kind not in (_LETTER, _DIGIT) and not (kind == _JOIN and text[i] == "_"):
            i += 1
            continue
        start = i
        i += 1
        while i < n:
            k = kinds[i]
            if k in (_LETTER, _DIGIT, _JOIN):
                i += 1
                continue
            if i + 1 < n:
                ch, prev, nxt = text[i], kinds[i - 1], kinds[i + 1]
                letters = prev == _LETTER and nxt == _LETTER and (ch in _MID_LETTER or ch in _MID_NUM_LET)
                digits = prev == _DIGIT and nxt == _DIGIT and (ch in _MID_NUM or ch in _MID_NUM_LET)
                if letters or digits:
                    i += 2
                    continue
            break
        word = text[start:i]
        if all(kinds[j] == _JOIN for j in range(start, i)):
            continue  # "___" alone is no word
        for cut in range(0, len(word), MAX_TOKEN_LENGTH):
            tokens.append(word[cut : cut + MAX_TOKEN_LENGTH])
    return tokens


def analyze(text: str) -> list[str]:
    """The index terms of *text*: tokens, ``'s`` removed, lower case, stop words dropped, stemmed."""
    terms = []
    for token in tokenize(text):
        if len(token) >= 2 and token[-1] in "sS" and token[-2] in _APOSTROPHES:
            token = token[:-2]
        token = token.lower()
        if not token or token in STOP_WORDS:
            continue
        terms.append(stem(token))
    return terms


def document_text(product: Mapping[str, Any]) -> str:
    """The indexed text of a loaded product, as upstream's index builder writes it."""
    options = ", and ".join(f"{name}: {', '.join(values)}" for name, values in product.get("options", {}).items())
    bullets = product.get("BulletPoints") or [""]
    return " ".join([product["Title"], product["Description"], bullets[0], options]).lower()


# -- Lucene 8's BM25 ----------------------------------------------------------------------------


def _int4_to_long(i: int) -> int:
    bits, shift = i & 0x07, (i >> 3) - 1
    return bits if shift == -1 else (bits | 0x08) << shift


def _long_to_int4(i: int) -> int:
    num_bits = i.bit_length()
    if num_bits < 4:
        return i
    shift = num_bits - 4
    return ((i >> shift) & 0x07) | ((shift + 1) << 3)


_NUM_FREE_VALUES = 255 - _long_to_int4(2**31 - 1)  # 24


def _encode_length(length: int) -> int:
    """SmallFloat.intToByte4: the one-byte norm of a field of *length* terms."""
    if length < _NUM_FREE_VALUES:
        return length
    return _NUM_FREE_VALUES + _long_to_int4(length - _NUM_FREE_VALUES)


def _decode_length(byte: int) -> int:
    if byte < _NUM_FREE_VALUES:
        return byte
    return _NUM_FREE_VALUES + _int4_to_long(byte - _NUM_FREE_VALUES)


_LENGTH_TABLE = np.array([_decode_length(i) for i in range(256)], dtype=np.float32)


class BM25Search:
    """Lucene 8 BM25 over analysed documents, held as numpy postings.

    Build with :meth:`build` from ``(id, text)`` pairs or :meth:`from_products` from loaded
    products. ``search`` returns at most *k* ids, best first."""

    def __init__(
        self,
        ids: Sequence[str],
        postings: dict[str, tuple[np.ndarray, np.ndarray]],
        norms: np.ndarray,
        avgdl: float,
        k1: float = 0.9,
        b: float = 0.4,
    ) -> None:
        self.ids = list(ids)
        self.postings = postings
        self.norms = norms
        self.k1, self.b = np.float32(k1), np.float32(b)
        self.avgdl = np.float32(avgdl)
        # 1 / (k1 · ((1 − b) + b · dl / avgdl)) for each of the 256 norms, in single precision
        one = np.float32(1.0)
        self._norm_inverse = one / (self.k1 * ((one - self.b) + self.b * _LENGTH_TABLE / self.avgdl))
        self._query_cache: dict[str, list[str]] = {}
        self._id_rank = np.argsort(np.argsort(np.asarray(self.ids, dtype=object), kind="stable"), kind="stable")

    @classmethod
    def build(cls, documents: Iterable[tuple[str, str]], k1: float = 0.9, b: float = 0.4) -> BM25Search:
        ids: list[str] = []
        lengths: list[int] = []
        term_docs: dict[str, list[int]] = {}
        term_freqs: dict[str, list[int]] = {}
        for doc, (doc_id, text) in enumerate(documents):
            ids.append(doc_id)
            terms = analyze(text)
            lengths.append(len(terms))
            counts: dict[str, int] = {}
            for term in terms:
                counts[term] = counts.get(term, 0) + 1
            for term, count in counts.items():
                term_docs.setdefault(term, []).append(doc)
                term_freqs.setdefault(term, []).append(count)
        postings = {
            term: (np.asarray(docs, dtype=np.int32), np.asarray(term_freqs[term], dtype=np.float32))
            for term, docs in term_docs.items()
        }
        norms = np.asarray([_encode_length(n) for n in lengths], dtype=np.uint8)
        total = sum(lengths)
        avgdl = float(np.float32(total / len(ids))) if ids else 1.0
        return cls(ids, postings, norms, avgdl or 1.0, k1, b)

    @classmethod
    def from_products(cls, products: Iterable[Mapping[str, Any]], k1: float = 0.9, b: float = 0.4) -> BM25Search:
        return cls.build(((p["asin"], document_text(p)) for p in products), k1, b)

    def scores(self, query: str) -> dict[str, float]:
        """Every matching id with its (single-precision) score."""
        scored, order = self._score(query)
        return {self.ids[d]: float(scored[d]) for d in order}

    def _score(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        counts: dict[str, int] = {}
        for term in analyze(query):
            counts[term] = counts.get(term, 0) + 1
        n_docs = len(self.ids)
        total = np.zeros(n_docs, dtype=np.float64)
        hit = np.zeros(n_docs, dtype=bool)
        for term, boost in counts.items():
            posting = self.postings.get(term)
            if posting is None:
                continue
            docs, freqs = posting
            idf = np.float32(np.log(1.0 + (n_docs - len(docs) + 0.5) / (len(docs) + 0.5)))
            weight = np.float32(boost) * idf
            part = weight - weight / (np.float32(1.0) + freqs * self._norm_inverse[self.norms[docs]])
            total[docs] += part.astype(np.float64)
            hit[docs] = True
        matched = np.flatnonzero(hit)
        scored = total.astype(np.float32)
        # best first; equal scores by product id (Anserini sorts by score, then by the id field)
        order = matched[np.lexsort((self._id_rank[matched], -scored[matched]))]
        return scored, order

    def search(self, query: str, k: int = K) -> list[str]:
        key = f"{k}\x00{query}"
        cached = self._query_cache.get(key)
        if cached is None:
            _, order = self._score(query)
            cached = [self.ids[d] for d in order[:k]]
            if len(self._query_cache) > 4096:
                self._query_cache.clear()
            self._query_cache[key] = cached
        return list(cached)


class PyseriniSearch:
    """A real Lucene index through pyserini, as upstream searches it: ``PyseriniSearch(path)``
    where *path* is an index built by upstream's ``search_engine/run_indexing.sh``. Needs
    ``pyserini`` and a Java runtime; raises ``ImportError`` saying so when they are missing."""

    def __init__(self, index_dir: str) -> None:
        try:
            from pyserini.search.lucene import LuceneSearcher
        except ImportError as err:  # pragma: no cover - depends on the machine
            raise ImportError(
                "PyseriniSearch needs pyserini and Java (pip install pyserini); the embedded BM25Search needs neither"
            ) from err
        import json

        self._json = json
        self._searcher = LuceneSearcher(index_dir)

    def search(self, query: str, k: int = K) -> list[str]:  # pragma: no cover - needs Java
        hits = self._searcher.search(query, k=k)
        return [self._json.loads(self._searcher.doc(h.docid).raw())["id"] for h in hits]
