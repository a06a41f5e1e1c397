"""Train and evaluate ProgRM's progress model (paper 001, §2.3 Eq. 5; App. C-D). Read top to bottom.

1. Split the examples by task (App. C partitions trajectories "based on their task goals"), so
   no task is in both the training and the validation set (:func:`split_by_task`).
2. Build :class:`~wrappers.progress.model.ProgressModel`; Adam with β = (0.9, 0.95) (App. D),
   one learning rate for the MLP head and a smaller one for the encoder when fine-tuning.
3. With a frozen encoder, encode every distinct text once before epoch 1; epochs then run only
   the MLP.
4. Each epoch: keep all steps of successful trajectories and sample as many steps of failed
   ones when those are more (App. C: "62.58% of steps from failed trajectories are sampled to
   balance the success-to-failure step ratio at approximately 1:1"), shuffle, minimise the BCE
   of Eq. 5 on mini-batches, then measure the validation BCE and MAE.
5. Checkpoints in ``out_dir``: ``best.pt`` (the model alone, :meth:`ProgressModel.load` reads
   it) whenever the validation loss improves; ``last.pt`` (model, optimizer, epoch, best loss,
   patience counter, RNG states, config) after every epoch; ``metrics.jsonl`` one line per
   epoch. All writes are atomic. Stop after ``patience`` epochs without improvement, at
   ``epochs``, or when the loss stops being finite (the bad weights are never written).
6. :func:`evaluate` reports ProgRM's Table 2-3 quantities.

Every epoch reseeds torch (dropout, shuffling) and numpy (balancing) from ``seed + epoch``, and all
of it runs on one intra-op thread, so a run resumed from ``last.pt`` (in a new process, under any
thread setting) ends with exactly the weights of an uninterrupted one.

Example (the split needs no model):
    >>> from wrappers.progress.data import ProgressExample
    >>> exs = [ProgressExample("g", (), "o", 0.0, task_id=t) for t in "abcdefghij"]
    >>> train_set, val_set = split_by_task(exs, val_fraction=0.2, seed=0)
    >>> len(train_set), len(val_set), {e.task_id for e in train_set} & {e.task_id for e in val_set}
    (8, 2, set())
"""

from __future__ import annotations

import json
import logging
import math
import os
import random
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from tqdm.auto import tqdm

from gui_gym.core.io import atomic_write
from gui_gym.core.threads import one_thread
from wrappers.progress.data import ProgressExample
from wrappers.progress.model import ProgressModel, atomic_save, read_checkpoint

__all__ = [
    "ProgressTrainConfig",
    "TrainResult",
    "balanced_indices",
    "evaluate",
    "key_steps",
    "split_by_task",
    "train_progress_model",
]

logger = logging.getLogger(__name__)

#: Model settings a resumed run must share with ``last.pt``.
MODEL_KEYS = ("encoder", "hidden", "dropout", "finetune", "max_length")


@dataclass
class ProgressTrainConfig:
    """Hyperparameters of :func:`train_progress_model`. Adam's betas are App. D's; ``balance_failed`` is App. C's."""

    encoder: str | None = None  # local encoder directory; None: all-MiniLM-L6-v2
    hidden: int = 256
    dropout: float = 0.1
    finetune: bool = False  # train the encoder too (App. D fine-tunes the whole LLM)
    lr: float = 1e-3  # the MLP head
    encoder_lr: float = 2e-5  # the encoder, when fine-tuning
    betas: tuple[float, float] = (0.9, 0.95)  # App. D
    weight_decay: float = 0.0
    batch_size: int = 128
    epochs: int = 30
    patience: int = 3  # epochs without a better validation loss before stopping
    val_fraction: float = 0.2  # of the tasks, when no validation examples are given
    seed: int = 0
    max_length: int = 256  # word pieces per segment
    balance_failed: bool = True  # App. C: failed-trajectory steps subsampled to ≈ 1:1
    device: str = "cpu"


@dataclass
class TrainResult:
    """What :func:`train_progress_model` returns. ``model`` holds the best (lowest validation loss) weights."""

    model: ProgressModel
    best_val_loss: float
    epochs_run: int  # the last finished epoch, counting those of resumed runs
    stopped_reason: str  # "early stopping" | "max epochs" | "nan loss"
    history: list[dict[str, float]] = field(default_factory=list)  # the rows of metrics.jsonl
    out_dir: str = ""


# ----------------------------------------------------------------------------- data


def split_by_task(
    examples: Sequence[ProgressExample], val_fraction: float = 0.2, seed: int = 0
) -> tuple[list[ProgressExample], list[ProgressExample]]:
    """(train, validation) with no task in both; deterministic under ``seed``.

    ``round(val_fraction · #tasks)`` tasks (at least one, never all) go to validation. With a
    single task, trajectories are split instead (with a warning): the validation loss then
    measures generalisation to new trajectories of a known task, not to new tasks.
    """
    if val_fraction <= 0 or not examples:
        return list(examples), []

    def by(key: Callable[[ProgressExample], Any]) -> tuple[list[ProgressExample], list[ProgressExample]]:
        groups = sorted({key(e) for e in examples}, key=repr)
        if len(groups) < 2:
            return list(examples), []
        random.Random(seed).shuffle(groups)
        n_val = min(len(groups) - 1, max(1, round(val_fraction * len(groups))))
        val = set(groups[:n_val])
        return [e for e in examples if key(e) not in val], [e for e in examples if key(e) in val]

    if len({e.task_id for e in examples}) > 1:
        return by(lambda e: e.task_id)
    logger.warning("all examples are of one task (%r): splitting by trajectory instead", examples[0].task_id)
    return by(lambda e: (e.task_id, e.trajectory))


def balanced_indices(examples: Sequence[ProgressExample], seed: int, epoch: int) -> np.ndarray:
    """Indices of one epoch's examples: every successful-trajectory step and, when failed ones are
    more, an equal number of failed-trajectory steps sampled under ``(seed, epoch)`` (App. C).

    >>> exs = [ProgressExample("g", (), "o", 0.0, success=i < 2) for i in range(6)]
    >>> idx = balanced_indices(exs, seed=0, epoch=1)
    >>> [int(i) for i in idx[:2]], len(idx), bool((balanced_indices(exs, 0, 1) == idx).all())
    ([0, 1], 4, True)
    """
    ok = np.array([i for i, e in enumerate(examples) if e.success], dtype=np.int64)
    failed = np.array([i for i, e in enumerate(examples) if not e.success], dtype=np.int64)
    if len(ok) == 0 or len(failed) <= len(ok):
        return np.arange(len(examples), dtype=np.int64)
    rng = np.random.default_rng([seed & 0xFFFFFFFF, epoch])
    return np.sort(np.concatenate([ok, rng.choice(failed, size=len(ok), replace=False)]))


def bce(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Eq. 5: E[−p* log p̂ − (1 − p*) log(1 − p̂)] with p̂ = σ(logit)."""
    return F.binary_cross_entropy_with_logits(logits, labels)


def _logit_fn(model: ProgressModel, examples: Sequence[ProgressExample]) -> Callable[[torch.Tensor], torch.Tensor]:
    """Logits of ``examples[idx]``. With a frozen encoder the features are computed once, in chunks."""
    if model.finetune:
        return lambda idx: model.logits([examples[i] for i in idx.tolist()])
    with torch.no_grad():
        feats = torch.cat([model.features(examples[i : i + 4096]) for i in range(0, len(examples), 4096)])
    return lambda idx: model(feats[idx])


def _labels(examples: Sequence[ProgressExample], device: torch.device) -> torch.Tensor:
    return torch.tensor([float(e.label) for e in examples], dtype=torch.float32, device=device)


# ----------------------------------------------------------------------------- checkpoints


def _rng_state() -> dict[str, Any]:
    name, keys, pos, has_gauss, gauss = np.random.get_state()
    return {
        "python": random.getstate(),
        "numpy": (name, [int(k) for k in keys], int(pos), int(has_gauss), float(gauss)),
        "torch": torch.get_rng_state(),
    }


def _set_rng_state(state: dict[str, Any]) -> None:
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, pos, has_gauss, gauss = state["numpy"]
    np.random.set_state((name, np.array(keys, dtype=np.uint32), pos, has_gauss, gauss))
    torch.set_rng_state(state["torch"])


def _write_metrics(path: Path, history: list[dict[str, float]]) -> None:
    """``metrics.jsonl`` rewritten from the history (atomically, so it always matches ``last.pt``)."""
    atomic_write(path, lambda f: f.writelines(json.dumps(row) + "\n" for row in history))


def _check_resumable(
    ckpt: dict[str, Any], model: ProgressModel, config: ProgressTrainConfig, path: Path
) -> dict[str, Any]:
    """The training state of ``last.pt``; ValueError when it was another model."""
    for key in MODEL_KEYS:
        if ckpt["config"].get(key) != model.config[key]:
            raise ValueError(
                f"{path} was trained with {key}={ckpt['config'].get(key)!r}, this run has {model.config[key]!r}: "
                "use a new out_dir, or resume=False to start over in this one"
            )
    state = (ckpt.get("extra") or {}).get("train")
    if not isinstance(state, dict):
        raise ValueError(f"{path} has no training state (a model saved by ProgressModel.save?); use resume=False")
    old = state.get("config", {})
    changed = sorted(k for k, v in asdict(config).items() if k not in ("epochs", "patience") and old.get(k) != v)
    if changed:
        logger.warning("resuming %s with changed settings: %s", path, ", ".join(changed))
    return state


# ----------------------------------------------------------------------------- training


def train_progress_model(
    examples: Sequence[ProgressExample],
    out_dir: str | os.PathLike[str],
    config: ProgressTrainConfig | None = None,
    val_examples: Sequence[ProgressExample] | None = None,
    resume: bool = True,
    progress: bool = True,
) -> TrainResult:
    """Train a progress model on ``examples`` with the BCE of Eq. 5; checkpoints go to ``out_dir``.

    Without ``val_examples`` a ``val_fraction`` of the tasks is held out (:func:`split_by_task`).
    With ``resume`` and an ``out_dir/last.pt``, training continues after its epoch; otherwise
    any ``best.pt``, ``last.pt`` and ``metrics.jsonl`` there are replaced. Seeds Python's,
    numpy's and torch's global generators (CleanRL style). The returned model holds the
    weights of ``best.pt``.

    Everything runs on one intra-op thread (:func:`gui_gym.core.threads.one_thread`): with more,
    the weights' last bits would depend on the thread count, and a run resumed under another
    setting would not end as the uninterrupted one.
    """
    with one_thread():
        return _train(examples, out_dir, config, val_examples, resume, progress)


def _train(
    examples: Sequence[ProgressExample],
    out_dir: str | os.PathLike[str],
    config: ProgressTrainConfig | None,
    val_examples: Sequence[ProgressExample] | None,
    resume: bool,
    progress: bool,
) -> TrainResult:
    config = config or ProgressTrainConfig()
    examples = list(examples)
    if not examples:
        raise ValueError("no training examples: label trajectories first (wrappers.progress.data.examples)")
    if val_examples is None:
        train_set, val_set = split_by_task(examples, config.val_fraction, config.seed)
    else:
        train_set, val_set = examples, list(val_examples)
    if not val_set:
        raise ValueError(
            "no validation examples: pass val_examples, or a val_fraction > 0 with examples of "
            "at least two tasks or trajectories"
        )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    last_path, best_path, metrics_path = out / "last.pt", out / "best.pt", out / "metrics.jsonl"

    # --- model and optimizer (Adam, β = (0.9, 0.95), App. D)
    random.seed(config.seed)
    np.random.seed(config.seed & 0xFFFFFFFF)
    torch.manual_seed(config.seed)
    model = ProgressModel(
        config.encoder, config.hidden, config.dropout, config.finetune, config.max_length, device=config.device
    )
    groups: list[dict[str, Any]] = [{"params": list(model.head.parameters()), "lr": config.lr}]
    if config.finetune:
        groups.append({"params": list(model.encoder.parameters()), "lr": config.encoder_lr})
    optimizer = torch.optim.Adam(groups, betas=tuple(config.betas), weight_decay=config.weight_decay)

    # --- resume from last.pt, or start over
    start, best_val, bad_epochs, history = 1, math.inf, 0, []
    stopped = "max epochs"
    if resume and last_path.exists():
        ckpt = read_checkpoint(last_path)
        state = _check_resumable(ckpt, model, config, last_path)
        model.load_weights(ckpt, last_path)
        optimizer.load_state_dict(state["optimizer"])
        _set_rng_state(state["rng"])
        start, best_val, bad_epochs = state["epoch"] + 1, state["best_val"], state["bad_epochs"]
        history = [dict(row) for row in state["history"]]
        logger.info("resuming %s after epoch %d (best validation loss %.4f)", last_path, state["epoch"], best_val)
        if bad_epochs >= config.patience:
            start, stopped = config.epochs + 1, "early stopping"
    else:
        for stale in (last_path, best_path, metrics_path):
            stale.unlink(missing_ok=True)

    # --- pre-encode every distinct text once (frozen encoder): epochs then run only the MLP
    if start <= config.epochs:
        if not config.finetune:
            model.encode_texts(model.texts([*train_set, *val_set]), progress=progress)
        train_logits, val_logits = _logit_fn(model, train_set), _logit_fn(model, val_set)
        y_train, y_val = _labels(train_set, model.device), _labels(val_set, model.device)

    epochs = tqdm(
        range(start, config.epochs + 1), desc="ProgRM", unit="epoch", disable=not progress, initial=start - 1,
        total=config.epochs,
    )  # fmt: skip
    for epoch in epochs:
        t0 = time.perf_counter()
        # --- one epoch over a balanced, shuffled sample (App. C)
        torch.manual_seed(config.seed + epoch)  # dropout (and the encoder's, when fine-tuning)
        idx = balanced_indices(train_set, config.seed, epoch) if config.balance_failed else np.arange(len(train_set))
        shuffle = torch.Generator().manual_seed(config.seed + epoch)
        order = torch.from_numpy(idx)[torch.randperm(len(idx), generator=shuffle)]
        model.train()
        total, bad_batch = 0.0, None
        starts = range(0, len(order), config.batch_size)
        batches = tqdm(starts, desc=f"epoch {epoch}", leave=False, disable=not progress)
        for b, i in enumerate(batches, 1):
            batch = order[i : i + config.batch_size].to(model.device)
            loss = bce(train_logits(batch), y_train[batch])
            if not torch.isfinite(loss):
                bad_batch = str(b)
                break
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
            batches.set_postfix(loss=f"{loss.item():.4f}")
        batches.close()

        # --- validation BCE and MAE
        if bad_batch is None:
            val_loss, val_mae = _validate(val_logits, y_val, model, config.batch_size)
            if not math.isfinite(val_loss):
                bad_batch = "validation"
        if bad_batch is not None:
            kept = last_path if last_path.exists() else "none (no epoch finished)"
            logger.warning(
                "loss became nan at epoch %d batch %s; keeping the last good checkpoint %s", epoch, bad_batch, kept
            )
            stopped = "nan loss"
            break

        row = {
            "epoch": epoch,
            "train_loss": total / max(1, len(order)),
            "val_loss": val_loss,
            "val_mae": val_mae,
            "seconds": time.perf_counter() - t0,
        }
        history.append(row)
        if val_loss < best_val:
            best_val, bad_epochs = val_loss, 0
            model.save(best_path, epoch=epoch, val_loss=val_loss)
        else:
            bad_epochs += 1
        train_state = {
            "epoch": epoch,
            "best_val": best_val,
            "bad_epochs": bad_epochs,
            "optimizer": optimizer.state_dict(),
            "rng": _rng_state(),
            "config": asdict(config),
            "history": history,
        }
        atomic_save(model.checkpoint(train=train_state), last_path)
        _write_metrics(metrics_path, history)
        epochs.set_postfix(train=f"{row['train_loss']:.4f}", val=f"{val_loss:.4f}", best=f"{best_val:.4f}")
        if bad_epochs >= config.patience:
            stopped = "early stopping"
            break
    epochs.close()

    # --- the best weights (the initial ones if no epoch finished)
    if best_path.exists():
        model.load_weights(read_checkpoint(best_path), best_path)
    model.eval()
    return TrainResult(
        model=model,
        best_val_loss=best_val,
        epochs_run=int(history[-1]["epoch"]) if history else 0,
        stopped_reason=stopped,
        history=history,
        out_dir=str(out),
    )


def _validate(
    logits_of: Callable[[torch.Tensor], torch.Tensor], labels: torch.Tensor, model: ProgressModel, batch_size: int
) -> tuple[float, float]:
    """Mean BCE and mean |σ(logit) − label| over all validation examples (no balancing)."""
    model.eval()
    loss = mae = 0.0
    with torch.no_grad():
        for i in range(0, len(labels), batch_size):
            idx = torch.arange(i, min(i + batch_size, len(labels)), device=labels.device)
            logits = logits_of(idx)
            loss += bce(logits, labels[idx]).item() * len(idx)
            mae += (torch.sigmoid(logits) - labels[idx]).abs().sum().item()
    return loss / len(labels), mae / len(labels)


# ----------------------------------------------------------------------------- evaluation


def key_steps(examples: Sequence[ProgressExample], source: str = "env") -> tuple[np.ndarray, np.ndarray]:
    """(mask, target) of the key steps among ``examples``, for ProgRM Table 3's key-step error.

    ``source="env"`` (the paper's ground truth, §3.3): states ``t ≥ 1`` whose ``env_label``
    differs from the nearest earlier state of the same trajectory that has one (0 at reset),
    i.e. steps where the env reported a milestone; the target is ``env_label``.
    ``source="label"``: examples with ``key=True`` (their label source's key steps, e.g. LCS);
    the target is ``label``.

    >>> env = [0.0, 0.0, 0.5, 0.5, 1.0]
    >>> exs = [ProgressExample("g", ("a",) * t, "o", 0.0, step=t, env_label=v) for t, v in enumerate(env)]
    >>> mask, target = key_steps(exs)
    >>> mask.tolist(), target[mask].tolist()
    ([False, False, True, False, True], [0.5, 1.0])
    """
    n = len(examples)
    mask, target = np.zeros(n, dtype=bool), np.full(n, np.nan)
    if source == "label":
        for i, e in enumerate(examples):
            mask[i], target[i] = e.key, e.label
        return mask, target
    if source != "env":
        raise ValueError(f"key_source must be 'env' or 'label', not {source!r}")
    trajectories: dict[tuple[str, int, str], list[int]] = defaultdict(list)
    for i, e in enumerate(examples):
        trajectories[(e.task_id, e.trajectory, e.goal)].append(i)
    for members in trajectories.values():
        previous = 0.0
        for i in sorted(members, key=lambda j: examples[j].step):
            e = examples[i]
            if e.env_label is None:
                continue
            if e.step > 0 and e.env_label != previous:
                mask[i], target[i] = True, e.env_label
            previous = e.env_label
    return mask, target


def _mean(values: np.ndarray) -> float | None:
    return float(np.mean(values)) if len(values) else None


def evaluate(
    model: ProgressModel,
    examples: Sequence[ProgressExample],
    threshold: float = 0.5,
    key_source: str = "env",
    baseline_label: float | None = None,
    measure_latency: bool = True,
) -> dict[str, Any]:
    """ProgRM Table 2-3's quantities for ``model`` on ``examples``.

    - ``key_step_mae``: mean |Prog − target| over the key steps of :func:`key_steps`
      (``key_source``); ``label_mae``: mean |Prog − label| over all states.
    - ``final_score_success`` / ``final_score_failure``: mean Prog at the final states of
      successful / failed trajectories (Table 3).
    - Success prediction at the final states (Table 2), positive = success, predicted when
      Prog ≥ ``threshold``: ``accuracy``, ``precision``, ``recall``, ``f1``,
      ``false_positive_rate``. A precision, recall, F1 or rate whose denominator is 0 is
      reported as 0.
    - ``latency_ms_per_step``, ``cold_ms_per_step``, ``batched_ms_per_step``: see
      :func:`_latency`; the cache is restored afterwards. Skipped (``None``) with
      ``measure_latency=False``.
    - ``states``, ``trajectories``, ``key_steps``, ``final_states``: counts.
    - ``constant_baseline`` (with ``baseline_label``, e.g. the mean training label): the MAEs
      and final scores of a predictor that always says ``baseline_label``.

    Means over nothing are ``None``.
    """
    examples = list(examples)
    pred = np.asarray(model.predict(examples), dtype=np.float64) if examples else np.zeros(0)
    labels = np.array([e.label for e in examples], dtype=np.float64)
    mask, target = key_steps(examples, key_source)
    final = np.array([e.final for e in examples], dtype=bool)
    success = np.array([e.success for e in examples], dtype=bool)

    def maes(p: np.ndarray) -> dict[str, float | None]:
        return {
            "key_step_mae": _mean(np.abs(p[mask] - target[mask])),
            "label_mae": _mean(np.abs(p - labels)),
            "final_score_success": _mean(p[final & success]),
            "final_score_failure": _mean(p[final & ~success]),
        }

    positive, actual = pred[final] >= threshold, success[final]
    tp, fp = int(np.sum(positive & actual)), int(np.sum(positive & ~actual))
    fn, tn = int(np.sum(~positive & actual)), int(np.sum(~positive & ~actual))
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    result: dict[str, Any] = {
        **maes(pred),
        "threshold": threshold,
        "accuracy": (tp + tn) / len(actual) if len(actual) else None,
        "precision": precision,
        "recall": recall,
        "f1": 2 * precision * recall / (precision + recall) if precision + recall else 0.0,
        "false_positive_rate": fp / (fp + tn) if fp + tn else 0.0,
        "confusion": {"tp": tp, "fp": fp, "fn": fn, "tn": tn},
        "states": len(examples),
        "trajectories": len({(e.task_id, e.trajectory, e.goal) for e in examples}),
        "key_steps": int(mask.sum()),
        "final_states": int(final.sum()),
        "key_source": key_source,
        "latency_ms_per_step": None,
        "cold_ms_per_step": None,
        "batched_ms_per_step": None,
    }
    if baseline_label is not None:
        result["constant_baseline"] = {"value": float(baseline_label), **maes(np.full(len(examples), baseline_label))}
    if measure_latency and examples:
        result.update(_latency(model, examples))
    return result


def _latency(model: ProgressModel, examples: Sequence[ProgressExample]) -> dict[str, float]:
    """Milliseconds per state, from an empty embedding cache.

    ``latency_ms_per_step``: the median of batch-1 :meth:`score` calls over up to 200 states
    in their order (as an env wrapper calls it: a step's goal, earlier actions and most screen
    elements were encoded at earlier steps, so a typical step encodes one to a few new texts);
    ``cold_ms_per_step``: the mean of those calls (first steps of new tasks encode everything);
    ``batched_ms_per_step``: one :meth:`predict` over up to 512 states, per state.
    """
    saved = dict(model.cache) if isinstance(getattr(model, "cache", None), dict) else None
    clear = getattr(model, "clear_cache", lambda: None)
    try:
        model.score(examples[0].goal, examples[0].history, examples[0].observation)  # warm-up
        clear()
        times = []
        for e in examples[:200]:
            t0 = time.perf_counter()
            model.score(e.goal, e.history, e.observation)
            times.append(time.perf_counter() - t0)
        batch = examples[:512]
        clear()
        t0 = time.perf_counter()
        model.predict(batch)
        batched = (time.perf_counter() - t0) / len(batch)
    finally:
        if saved is not None:
            model.cache.clear()
            model.cache.update(saved)
    return {
        "latency_ms_per_step": 1000 * statistics.median(times),
        "cold_ms_per_step": 1000 * statistics.fmean(times),
        "batched_ms_per_step": 1000 * batched,
    }
