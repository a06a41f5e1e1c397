"""ProgRM's progress model (paper 001, Eq. 5-6) and its training and evaluation (§3.3, App. C-D)."""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

import numpy as np
import pytest
import torch

import wrappers.progress.training as train_mod
from wrappers.progress.data import ProgressExample
from wrappers.progress.model import ProgressModel, read_checkpoint
from wrappers.progress.training import (
    ProgressTrainConfig,
    balanced_indices,
    evaluate,
    key_steps,
    split_by_task,
    train_progress_model,
)


@pytest.fixture(scope="module")
def minilm() -> ProgressModel:
    return ProgressModel(hidden=32)


def wizard(n_tasks: int = 8, fail: bool = True) -> list[ProgressExample]:
    """Synthetic trajectories: task ``i`` is an ``n``-page wizard; progress = pages done / n.

    Each task has one successful trajectory (all ``n`` pages) and, with ``fail``, two failed ones
    that stop a page or two short, so failed steps outnumber successful ones (App. C balancing).
    """
    apps = ["Clock", "Contacts", "Settings", "Files", "Camera", "Notes", "Maps", "Music", "Mail", "Photos"]
    out = []
    for task in range(n_tasks):
        n, app = 3 + task % 4, apps[task % len(apps)]
        runs = [(n, True)] + ([(n - 1, False), (max(1, n - 2), False)] if fail else [])
        for traj, (m, success) in enumerate(runs):
            for t in range(m + 1):
                out.append(
                    ProgressExample(
                        goal=f"Complete the {n}-page setup wizard in {app} {task}",
                        history=tuple(f"Tap Next on page {k + 1} of {app}" for k in range(t)),
                        observation=f"{app} setup | page {t + 1} of {n} | Button Next"
                        if t < n
                        else f"{app} | setup complete",
                        label=t / n,
                        task_id=f"wizard-{task}",
                        trajectory=traj,
                        step=t,
                        env_label=t / n,
                        final=t == m,
                        success=success,
                    )
                )
    return out


def head_state(path: Path) -> dict[str, torch.Tensor]:
    return read_checkpoint(path)["head"]


def same_state(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


# ----------------------------------------------------------------------------- the model


def test_predict_is_a_probability_per_example(minilm: ProgressModel) -> None:
    exs = wizard(2, fail=False)
    p = minilm.predict(exs)
    assert p.shape == (len(exs),) and p.dtype == np.float32
    assert np.all((p >= 0) & (p <= 1))
    e = exs[3]
    assert minilm.score(e.goal, e.history, e.observation) == pytest.approx(float(p[3]), abs=1e-6)
    batch = minilm.predict_texts([e.goal for e in exs], [e.history for e in exs], [e.observation for e in exs])
    np.testing.assert_allclose(batch, p, atol=1e-6)
    with pytest.raises(ValueError, match="2 goals, 1 histories"):
        minilm.predict_texts(["a", "b"], [()], ["o", "o"])
    assert minilm.dim == 384 and minilm.head[0].in_features == 6 * 384 + 1
    assert minilm.predict([]).shape == (0,)


def test_each_text_is_encoded_once(tiny_encoder: str, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ProgressModel(tiny_encoder, hidden=8)
    encoded: list[str] = []
    real = model._encode_batch

    def counting(texts: list[str]) -> torch.Tensor:
        encoded.extend(texts)
        return real(texts)

    monkeypatch.setattr(model, "_encode_batch", counting)
    exs = wizard(3)
    first = model.predict(exs)
    assert sorted(encoded) == sorted(model.texts(exs))  # every distinct text, once
    encoded.clear()
    np.testing.assert_array_equal(model.predict(exs), first)
    assert encoded == []  # all from the cache
    model.clear_cache()
    model.predict(exs[:1])
    assert sorted(encoded) == sorted(model.texts(exs[:1]))


def test_save_load_round_trip(tiny_encoder: str, tmp_path: Path) -> None:
    torch.manual_seed(1)
    model = ProgressModel(tiny_encoder, hidden=8, dropout=0.0, max_length=64)
    exs = wizard(3)
    model.save(tmp_path / "m.pt", note="round trip", epoch=3)
    loaded = ProgressModel.load(tmp_path / "m.pt")
    assert loaded.config == model.config and loaded.extra == {"note": "round trip", "epoch": 3}
    np.testing.assert_array_equal(loaded.predict(exs), model.predict(exs))
    assert [p.name for p in tmp_path.iterdir()] == ["m.pt"]  # no temporary file left behind
    with pytest.raises(TypeError, match="extras"):
        model.save(tmp_path / "x.pt", bad=object())


def test_missing_checkpoint_says_how_to_train(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="gui-gym progrm train"):
        ProgressModel.load(tmp_path / "nope.pt")


def test_unreadable_checkpoints_are_value_errors(tiny_encoder: str, tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.pt"
    corrupt.write_bytes(b"\x80\x02 this is not a checkpoint")
    with pytest.raises(ValueError, match=r"corrupt\.pt"):
        ProgressModel.load(corrupt)
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}}, foreign)
    with pytest.raises(ValueError, match=r"foreign\.pt is not a progress-model checkpoint"):
        ProgressModel.load(foreign)
    model = ProgressModel(tiny_encoder, hidden=8)
    ckpt = model.checkpoint()
    ckpt["config"]["hidden"] = 16  # weights of an 8-wide head under a 16-wide config
    torch.save(ckpt, tmp_path / "shape.pt")
    with pytest.raises(ValueError, match=r"shape\.pt does not fit"):
        ProgressModel.load(tmp_path / "shape.pt")


def test_finetuning_moves_the_encoder(tiny_encoder: str, tmp_path: Path) -> None:
    model = ProgressModel(tiny_encoder, hidden=8, finetune=True)
    frozen = ProgressModel(tiny_encoder, hidden=8)
    assert model.encoder is not frozen.encoder  # a fine-tuned encoder is a private copy
    before = {k: v.clone() for k, v in model.encoder.state_dict().items()}
    exs = wizard(2)
    model.train()
    logits = model.logits(exs)
    assert model.cache == {} and logits.requires_grad
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    train_mod.bce(logits, torch.tensor([e.label for e in exs])).backward()
    optimizer.step()
    after = model.encoder.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    assert same_state(frozen.encoder.state_dict(), before)

    config = ProgressTrainConfig(encoder=tiny_encoder, hidden=8, finetune=True, epochs=1, batch_size=64)
    result = train_progress_model(wizard(4), tmp_path, config, progress=False)
    ckpt = read_checkpoint(tmp_path / "best.pt")
    assert ckpt["encoder"] is not None and ckpt["config"]["finetune"] is True
    loaded = ProgressModel.load(tmp_path / "best.pt")
    np.testing.assert_allclose(loaded.predict(exs), result.model.predict(exs), atol=1e-6)


# ----------------------------------------------------------------------------- training


def test_training_beats_a_constant_predictor(minilm: ProgressModel, tmp_path: Path) -> None:
    exs = wizard(10)
    train_set, val_set = split_by_task(exs, 0.2, seed=0)
    config = ProgressTrainConfig(hidden=64, epochs=25, patience=4, batch_size=32, lr=3e-3)
    result = train_progress_model(train_set, tmp_path, config, val_examples=val_set, progress=False)
    mean = float(np.mean([e.label for e in train_set]))
    val_labels = torch.tensor([e.label for e in val_set])
    constant = float(train_mod.bce(torch.full_like(val_labels, math.log(mean / (1 - mean))), val_labels))
    assert result.best_val_loss < constant - 0.1, (result.best_val_loss, constant)
    assert result.stopped_reason in ("early stopping", "max epochs")
    lines = (tmp_path / "metrics.jsonl").read_text().splitlines()
    assert len(lines) == result.epochs_run == len(result.history)
    assert set(json.loads(lines[0])) == {"epoch", "train_loss", "val_loss", "val_mae", "seconds"}
    metrics = evaluate(result.model, val_set, baseline_label=mean, measure_latency=False)
    assert metrics["label_mae"] < metrics["constant_baseline"]["label_mae"]
    assert ProgressModel.load(tmp_path / "best.pt").config["encoder"] is None


def tiny_config(encoder: str, **kw: object) -> ProgressTrainConfig:
    return ProgressTrainConfig(**{"encoder": encoder, "hidden": 16, "batch_size": 16, "patience": 10, **kw})


def test_resume_reproduces_an_uninterrupted_run(tiny_encoder: str, tmp_path: Path) -> None:
    exs = wizard(6)
    whole = train_progress_model(exs, tmp_path / "a", tiny_config(tiny_encoder, epochs=4), progress=False)
    first = train_progress_model(exs, tmp_path / "b", tiny_config(tiny_encoder, epochs=2), progress=False)
    assert first.epochs_run == 2 and first.stopped_reason == "max epochs"
    resumed = train_progress_model(exs, tmp_path / "b", tiny_config(tiny_encoder, epochs=4), progress=False)
    assert resumed.epochs_run == 4
    assert same_state(head_state(tmp_path / "a" / "last.pt"), head_state(tmp_path / "b" / "last.pt"))
    assert same_state(head_state(tmp_path / "a" / "best.pt"), head_state(tmp_path / "b" / "best.pt"))
    assert [r["val_loss"] for r in whole.history] == [r["val_loss"] for r in resumed.history]
    assert len((tmp_path / "b" / "metrics.jsonl").read_text().splitlines()) == 4
    state = read_checkpoint(tmp_path / "b" / "last.pt")["extra"]["train"]
    assert state["epoch"] == 4 and state["best_val"] == resumed.best_val_loss
    # a finished run resumed with the same settings trains no further
    again = train_progress_model(exs, tmp_path / "b", tiny_config(tiny_encoder, epochs=4), progress=False)
    assert again.epochs_run == 4 and same_state(again.model.head.state_dict(), head_state(tmp_path / "b" / "best.pt"))


def test_resume_refuses_another_model(tiny_encoder: str, tmp_path: Path) -> None:
    exs = wizard(3)
    train_progress_model(exs, tmp_path, tiny_config(tiny_encoder, epochs=1), progress=False)
    with pytest.raises(ValueError, match=r"hidden=16.*new out_dir.*resume=False"):
        train_progress_model(exs, tmp_path, tiny_config(tiny_encoder, epochs=2, hidden=32), progress=False)
    restarted = train_progress_model(
        exs, tmp_path, tiny_config(tiny_encoder, epochs=1, hidden=32), resume=False, progress=False
    )
    assert restarted.epochs_run == 1 and ProgressModel.load(tmp_path / "last.pt").hidden == 32


def test_nan_loss_keeps_the_last_good_checkpoint(
    tiny_encoder: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    exs = wizard(4)
    config = tiny_config(tiny_encoder, epochs=3, batch_size=512)  # one batch per epoch
    reference = train_progress_model(
        exs, tmp_path / "ref", tiny_config(tiny_encoder, epochs=1, batch_size=512), progress=False
    )
    real, calls = train_mod.bce, []

    def nan_in_epoch_2(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        if torch.is_grad_enabled():  # a training batch, not validation
            calls.append(1)
            if len(calls) == 2:
                return real(logits, labels) * float("nan")
        return real(logits, labels)

    monkeypatch.setattr(train_mod, "bce", nan_in_epoch_2)
    with caplog.at_level(logging.WARNING, logger="wrappers.progress.training"):
        result = train_progress_model(exs, tmp_path / "run", config, progress=False)
    last = tmp_path / "run" / "last.pt"
    assert result.stopped_reason == "nan loss" and result.epochs_run == 1 and len(result.history) == 1
    assert f"loss became nan at epoch 2 batch 1; keeping the last good checkpoint {last}" in caplog.text
    assert same_state(head_state(last), head_state(tmp_path / "ref" / "last.pt"))
    assert same_state(head_state(tmp_path / "run" / "best.pt"), head_state(tmp_path / "ref" / "best.pt"))
    np.testing.assert_array_equal(ProgressModel.load(last).predict(exs), reference.model.predict(exs))
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) == 1


def test_training_needs_examples_and_validation(tiny_encoder: str, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no training examples"):
        train_progress_model([], tmp_path, tiny_config(tiny_encoder), progress=False)
    with pytest.raises(ValueError, match="no validation examples"):
        train_progress_model(wizard(3), tmp_path, tiny_config(tiny_encoder, val_fraction=0.0), progress=False)
    with pytest.raises(ValueError, match="no validation examples"):
        train_progress_model(wizard(3), tmp_path, tiny_config(tiny_encoder), val_examples=[], progress=False)


def test_split_by_task_keeps_tasks_apart(caplog: pytest.LogCaptureFixture) -> None:
    exs = wizard(10)
    train_set, val_set = split_by_task(exs, 0.3, seed=7)
    assert {e.task_id for e in train_set}.isdisjoint({e.task_id for e in val_set})
    assert len({e.task_id for e in val_set}) == 3 and len(train_set) + len(val_set) == len(exs)
    assert split_by_task(exs, 0.3, seed=7) == (train_set, val_set)
    assert split_by_task(exs, 0.3, seed=8) != (train_set, val_set)
    one_task = [e for e in exs if e.task_id == "wizard-5"]
    with caplog.at_level(logging.WARNING, logger="wrappers.progress.training"):
        tr, va = split_by_task(one_task, 0.3, seed=0)
    assert "splitting by trajectory" in caplog.text
    assert {e.trajectory for e in tr}.isdisjoint({e.trajectory for e in va}) and tr and va


def test_failed_steps_are_balanced_per_epoch() -> None:
    exs = wizard(6)
    ok = [i for i, e in enumerate(exs) if e.success]
    assert len(exs) - len(ok) > len(ok)
    idx = balanced_indices(exs, seed=0, epoch=1)
    assert len(idx) == 2 * len(ok) and set(ok) <= set(idx.tolist())
    np.testing.assert_array_equal(idx, balanced_indices(exs, seed=0, epoch=1))
    assert not np.array_equal(idx, balanced_indices(exs, seed=0, epoch=2))
    only_ok = [e for e in exs if e.success]
    np.testing.assert_array_equal(balanced_indices(only_ok, 0, 1), np.arange(len(only_ok)))


# ----------------------------------------------------------------------------- evaluation


class StubModel(ProgressModel):
    """Predictions set by hand per (task, trajectory, step); no encoder."""

    def __init__(self, preds: dict[tuple[str, int, int], float]) -> None:
        torch.nn.Module.__init__(self)
        self.preds, self.cache = preds, {}

    def predict(self, examples, batch_size=256):  # type: ignore[no-untyped-def]
        return np.array([self.preds.get((e.task_id, e.trajectory, e.step), 0.5) for e in examples])


def hand_fixture() -> tuple[list[ProgressExample], StubModel]:
    rows = [  # task, trajectory, success, [(env_label, label, key, prediction) per state]
        ("a", 0, True, [(0.0, 0.0, False, 0.1), (0.5, 0.5, True, 0.4), (1.0, 1.0, True, 0.9)]),
        ("a", 1, False, [(0.0, 0.0, False, 0.0), (0.0, 0.25, False, 0.3), (0.5, 0.5, False, 0.6)]),
        ("b", 0, True, [(0.0, 0.0, False, 0.2), (1.0, 1.0, False, 0.7)]),
        ("b", 1, False, [(0.0, 0.0, False, 0.1), (None, 0.0, False, 0.2)]),
    ]
    exs, preds = [], {}
    for task, traj, success, states in rows:
        for t, (env, label, key, pred) in enumerate(states):
            exs.append(
                ProgressExample(f"goal {task}", ("x",) * t, f"screen {t}", label, task, traj, t, key, env,
                                final=t == len(states) - 1, success=success)
            )  # fmt: skip
            preds[(task, traj, t)] = pred
    return exs, StubModel(preds)


def test_evaluate_by_hand() -> None:
    exs, model = hand_fixture()
    mask, target = key_steps(exs)
    assert target[mask].tolist() == [0.5, 1.0, 0.5, 1.0]
    assert [(e.task_id, e.trajectory, e.step) for e in np.array(exs, dtype=object)[mask]] == [
        ("a", 0, 1), ("a", 0, 2), ("a", 1, 2), ("b", 0, 1),
    ]  # fmt: skip
    m = evaluate(model, exs, baseline_label=0.5)
    # key steps |0.4-0.5|, |0.9-1|, |0.6-0.5|, |0.7-1|; the None env label of b/1 is no key step
    assert m["key_step_mae"] == pytest.approx((0.1 + 0.1 + 0.1 + 0.3) / 4)
    assert m["label_mae"] == pytest.approx((0.3 + 0.15 + 0.5 + 0.3) / 10)
    assert m["final_score_success"] == pytest.approx((0.9 + 0.7) / 2)
    assert m["final_score_failure"] == pytest.approx((0.6 + 0.2) / 2)
    # finals: a/0 0.9 TP, a/1 0.6 FP, b/0 0.7 TP, b/1 0.2 TN
    assert m["confusion"] == {"tp": 2, "fp": 1, "fn": 0, "tn": 1}
    assert m["accuracy"] == pytest.approx(3 / 4)
    assert m["precision"] == pytest.approx(2 / 3) and m["recall"] == 1.0
    assert m["f1"] == pytest.approx(0.8) and m["false_positive_rate"] == pytest.approx(0.5)
    assert (m["states"], m["trajectories"], m["key_steps"], m["final_states"]) == (10, 4, 4, 4)
    assert m["constant_baseline"]["label_mae"] == pytest.approx(3.75 / 10)
    assert m["constant_baseline"]["key_step_mae"] == pytest.approx(0.25)
    assert m["latency_ms_per_step"] >= 0 and m["batched_ms_per_step"] >= 0

    strict = evaluate(model, exs, threshold=0.95, measure_latency=False)
    assert strict["confusion"] == {"tp": 0, "fp": 0, "fn": 2, "tn": 2}
    assert (strict["accuracy"], strict["precision"], strict["recall"], strict["f1"]) == (0.5, 0.0, 0.0, 0.0)
    assert strict["latency_ms_per_step"] is None and "constant_baseline" not in strict

    by_label = evaluate(model, exs, key_source="label", measure_latency=False)
    assert by_label["key_steps"] == 2 and by_label["key_step_mae"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="key_source"):
        evaluate(model, exs, key_source="lcs", measure_latency=False)


def test_package_exports() -> None:
    import wrappers.progress as progrm

    assert (
        progrm.train_progress_model is train_progress_model
        and progrm.ProgressModel is ProgressModel
        and progrm.evaluate is evaluate
    )
    assert (progrm.ProgressTrainConfig().betas, progrm.TrainResult.__name__, progrm.split_by_task) == (
        (0.9, 0.95),
        "TrainResult",
        split_by_task,
    )


def test_evaluate_measures_latency_without_losing_the_cache(minilm: ProgressModel) -> None:
    exs = wizard(1, fail=False)
    minilm.predict(exs)
    cached = dict(minilm.cache)
    m = evaluate(minilm, exs)
    assert m["latency_ms_per_step"] > 0 and m["batched_ms_per_step"] > 0
    assert minilm.cache.keys() == cached.keys()
