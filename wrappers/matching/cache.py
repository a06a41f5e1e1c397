"""What the matchers of a process share: the loaded encoders and the embeddings they made.

Each text is encoded once per model in a process (:data:`CACHES`); a matcher's ``save_cache`` /
``load_cache`` carry the embeddings across processes in a ``.npz`` whose texts are packed by
:func:`pack_texts`.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from wrappers.encoder import default_model_path, offline, quiet_transformers

#: Embeddings, per model, shared by every matcher of this process: text -> unit vector.
CACHES: dict[str, dict[str, np.ndarray]] = {}
CACHE_LOCK = threading.Lock()

# Loaded encoders, per (model directory, device, copy), shared by the matchers of this process.
# Copies beyond the first encode texts in parallel threads, each with its own tokenizer.
_MODELS: dict[tuple[str | None, str, int], Any] = {}
MODEL_LOCK = threading.RLock()


def load_model(model_path: str | None, device: str, copy: int = 0) -> Any:
    """The sentence-transformers encoder of ``model_path`` (``None``: all-MiniLM-L6-v2) on
    ``device``, its ``copy``-th instance: loaded and warmed up once per process."""
    with MODEL_LOCK:
        key = (model_path, device, copy)
        if key not in _MODELS:
            path = model_path or default_model_path()
            offline()
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise ImportError(
                    "the matcher needs sentence-transformers (and torch): pip install sentence-transformers"
                ) from e
            try:
                with quiet_transformers():
                    model = SentenceTransformer(path, device=device, local_files_only=True)
            except Exception as e:  # a directory that is not a sentence-transformers model, a bad device …
                raise ValueError(f"cannot load a sentence-transformers model from {path} on {device!r}: {e}") from e
            model.encode(["warm up"], batch_size=1, show_progress_bar=False)  # the first call sets torch up
            _MODELS[key] = model
        return _MODELS[key]


def pack_texts(texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Texts as two arrays that take their own length: the UTF-8 bytes end to end and where each
    text ends. (A fixed-width string array takes the longest text's width for every text: 750k
    texts with a whole screen among them took 12 GB.)

    >>> unpack_texts(pack_texts(["Turn on dark mode", "", "Café"]))
    ['Turn on dark mode', '', 'Café']
    """
    encoded = [str(t).encode("utf-8") for t in texts]
    ends = np.cumsum([len(b) for b in encoded], dtype=np.int64) if encoded else np.zeros(0, np.int64)
    return {"text_bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8), "text_ends": ends}


def unpack_texts(arrays: Any) -> list[str]:
    """The texts of :func:`pack_texts` (``arrays``: a mapping such as an open ``.npz``), or of a
    plain string array ``texts`` as earlier files hold them; ValueError if they do not add up."""
    if "text_bytes" not in arrays:
        texts = arrays["texts"]
        if texts.ndim != 1 or texts.dtype.kind != "U":
            raise ValueError("texts must be a one-dimensional text array")
        return [str(t) for t in texts]
    blob, ends = arrays["text_bytes"], arrays["text_ends"]
    if blob.ndim != 1 or blob.dtype != np.uint8 or ends.ndim != 1 or ends.dtype.kind not in "iu":
        raise ValueError("text_bytes must be bytes and text_ends integers")
    bounds = [0, *ends.tolist()]  # text i is bytes bounds[i]:bounds[i + 1]
    if any(b < a for a, b in itertools.pairwise(bounds)) or bounds[-1] != len(blob):
        raise ValueError("text_ends do not mark the texts in text_bytes")
    raw = blob.tobytes()
    try:
        return [raw[a:b].decode("utf-8") for a, b in itertools.pairwise(bounds)]
    except UnicodeDecodeError as e:
        raise ValueError(f"texts that are not UTF-8: {e}") from e
