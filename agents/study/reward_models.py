"""The study's reward models, trained once per study on rollouts of its training tasks. Read top to bottom.

Three models (ProgRM, paper 001), the same network (:class:`~wrappers.progress.model.ProgressModel`,
Eq. 5-6) with three kinds of labels:

- ``progress-env``: progress labels from the env's milestones ("ProgRM Env", §2.2, Table 1);
- ``progress-lcs``: progress labels from LCS key-step discovery ("ProgRM LCS", §2.2, Eq. 3-4);
- ``orm``: the outcome of each trajectory at its final state (§3.1, "For ORM training, we use the
  overall success or failure label of each trajectory"; :mod:`wrappers.progress.outcome`).

Stages, each skipped when its output is complete, so an interrupted call picks up where it stopped:

1. **Collect** ``episodes`` rollouts of the training tasks (never the held-out ones) from the
   oracle (20%), the ε-noisy oracle (ε = 0.3, 50%) and the random policy (30%), as
   ``benchmarks/progrm.py`` does. Their seeds start at 500,000: apart from the policy's training
   seeds (10⁶ up) and the evaluation seeds (0..n−1). Written to ``trajectories.jsonl``; its
   marker ``collection.json`` is written after it.
2. **Split and label**: whole tasks are held out for validation (:func:`held_out`), the same
   trajectories for all three models; the training part gets ProgRM's App. B synthesis
   (:func:`wrappers.progress.synthesize`: an augmented copy of each success, and mismatched
   instruction/trajectory failures up to a success:failure ratio of ≈1.22); then env-milestone
   and LCS labels.
3. **Train** each model into ``<name>/`` (``best.pt``, ``last.pt``, ``metrics.jsonl``;
   :func:`wrappers.progress.training.train_progress_model` resumes from ``last.pt``), **evaluate** it on its
   validation examples (``<name>/eval.json``: ProgRM Tables 2-3's quantities) and mark it done
   (``<name>/done.json``, written atomically last).

The validation set picks the best epoch (early stopping) and is also what ``eval.json`` reports
on, so those figures are slightly optimistic; its tasks are never trained on.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from agents.policies import ActorPolicy, NoisyOraclePolicy, OraclePolicy, RandomPolicy
from agents.rollout import rollout
from gui_gym.core.io import atomic_write_json, read_json
from gui_gym.core.trajectory import Trajectory, read_jsonl, write_jsonl
from wrappers.progress import (
    ProgressExample,
    env_labels,
    examples,
    label_trajectories,
    outcome_examples,
    synthesize,
)

__all__ = ["REWARD_MODELS", "ROLLOUT_SEED", "collect", "held_out", "prepare_reward_models"]

log = logging.getLogger(__name__)

REWARD_MODELS = ("progress-env", "progress-lcs", "orm")
#: The env the reward models learn from unless told another.
DEFAULT_ENV = "GuiAndroid-v0"
#: The first rollout seed: apart from the training seeds (10⁶ up) and the evaluation seeds (0..99).
ROLLOUT_SEED = 500_000
NOISE = 0.3  # ε of the noisy oracle (benchmarks/progrm.py)
VAL_FRACTION = 0.2


def prepare_reward_models(
    models_dir: str | Path,
    train_tasks: Sequence[str] | str,
    needed: Iterable[str] = REWARD_MODELS,
    episodes: int = 600,
    epochs: int = 8,
    patience: int = 2,
    seed: int = 0,
    max_steps: int = 20,
    progress: bool = True,
    encoder: str | None = None,
    device: str = "cpu",
    env_id: str = DEFAULT_ENV,
    actor: str | Path | None = None,
) -> dict[str, dict[str, Any]]:
    """Train (or find trained) the ``needed`` reward models in ``models_dir``.

    ``env_id``: the env whose rollouts (oracle, noisy oracle, random) they learn from; it needs an
    ``oracle_action()``, and its family gives ProgRM App. B's synthesis edits. ``actor``: a run
    directory (the study's warm start, ``gui-gym sft``'s): the models then learn from that
    policy's own sampled rollouts (80%) and random walks (20%), as ProgRM's do (§3.1: the actors'
    trajectories; App. B: random walks among the synthesised failures).

    ``train_tasks``: task ids (a list or a comma-separated string). ``encoder``: a local encoder
    directory (``None``: all-MiniLM-L6-v2). Returns ``{name: {"checkpoint": ".../best.pt",
    **eval metrics}}``. Raises ValueError when ``models_dir`` holds data or models made with
    other settings, or when its files are unreadable.
    """
    from wrappers.progress import ProgressTrainConfig

    models_dir = Path(models_dir)
    tasks = [t.strip() for t in (train_tasks.split(",") if isinstance(train_tasks, str) else train_tasks)]
    tasks = [t for t in tasks if t]
    needed = list(dict.fromkeys(needed))
    if unknown := [n for n in needed if n not in REWARD_MODELS]:
        raise ValueError(f"unknown reward model {unknown[0]!r}; choose from {', '.join(REWARD_MODELS)}")
    if not tasks:
        raise ValueError("no training tasks: the reward models are trained on rollouts of the study's training tasks")
    settings = {
        "tasks": tasks, "episodes": episodes, "max_steps": max_steps, "epochs": epochs, "patience": patience,
        "seed": seed, "encoder": encoder, "synthesis": "ProgRM App. B",
    }  # fmt: skip
    if env_id != DEFAULT_ENV:  # the default stays out, so models built before env ids were named still match
        settings["env_id"] = env_id
    if actor is not None:
        settings["actor"] = Path(actor).name
    results = {name: _done(models_dir / name, settings) for name in needed}
    todo = [name for name, r in results.items() if r is None]
    if not todo:
        return results  # type: ignore[return-value]

    # --- 1-2. data, labels, and one split for every model
    trajectories = collect(models_dir, tasks, episodes, max_steps, progress, env_id, actor)
    held = held_out(trajectories, seed)
    # ProgRM App. B on the training part only (validation stays real rollouts): augmented
    # successes, and mismatched instruction/trajectory pairs as failures that end like successes.
    validation = [t for i, t in enumerate(trajectories) if i in held]
    training = [t for i, t in enumerate(trajectories) if i not in held]
    trajectories = validation + synthesize(training, seed=seed, edits=env_id)
    val = set(range(len(validation)))
    data = {"progress-env": _labelled(trajectories, "env", progress)}
    if "progress-lcs" in todo:
        data["progress-lcs"] = _labelled(trajectories, "lcs", progress)
    if "orm" in todo:
        data["orm"] = outcome_examples(trajectories)

    # --- 3. train, evaluate, mark done
    config = ProgressTrainConfig(epochs=epochs, patience=patience, seed=seed, encoder=encoder, device=device)
    for name in todo:
        train_set = [e for e in data[name] if e.trajectory not in val]
        val_set = [e for e in data[name] if e.trajectory in val]
        # The ORM's own examples are final states only: it is also scored on the progress states
        # (all carry env labels), so key-step MAE and final scores compare across models (Table 3).
        progress_val = [e for e in data["progress-env"] if e.trajectory in val] if name == "orm" else val_set
        results[name] = _train_and_evaluate(
            models_dir / name, train_set, val_set, progress_val, config, settings, progress
        )
    return results  # type: ignore[return-value]


# ----------------------------------------------------------------------------- 1. rollouts


def collect(
    models_dir: Path,
    tasks: list[str],
    episodes: int,
    max_steps: int,
    progress: bool,
    env_id: str = DEFAULT_ENV,
    actor: str | Path | None = None,
) -> list[Trajectory]:
    """``models_dir/trajectories.jsonl``: read when its ``collection.json`` matches, collected otherwise.

    The rollouts come from the oracle (20%), the noisy oracle (50%) and the random policy (30%), or,
    with ``actor`` (a run directory), from that trained policy sampling (80%) and the random policy."""
    path, marker = models_dir / "trajectories.jsonl", models_dir / "collection.json"
    if actor is None:
        counts = {"oracle": episodes // 5, "noisy": episodes // 2}
    else:
        counts = {"actor": episodes * 4 // 5}
    counts["random"] = episodes - sum(counts.values())
    want = {
        "tasks": tasks,
        "episodes": episodes,
        "max_steps": max_steps,
        "first_seed": ROLLOUT_SEED,
        "policies": counts,
    }
    if env_id != DEFAULT_ENV:
        want["env_id"] = env_id
    if marker.exists():
        have = _read_json(marker)
        got = {k: have.get(k) for k in want}
        if got != want:
            raise ValueError(
                f"{path} was collected with {got}, this study asks {want}: "
                f"use another reward-model directory, or delete {models_dir} to start over"
            )
        if not path.is_file():
            raise FileNotFoundError(f"{marker} is there but {path} is not: delete {marker} to collect again")
        trajectories = read_jsonl(path)  # corrupt lines are logged with file:line and skipped
        if len(trajectories) != episodes:
            raise ValueError(
                f"{path} holds {len(trajectories)} readable trajectories of {episodes}: delete it and {marker} "
                "to collect again"
            )
        return trajectories
    if episodes < 2:
        raise ValueError(f"episodes must be at least 2 (one to train on, one to validate), got {episodes}")
    if ROLLOUT_SEED + episodes > 10**6:
        raise ValueError(f"{episodes} episodes would reach the policy's training seeds (10⁶ up)")

    env = gym.make(env_id, task=list(tasks), max_steps=max_steps)
    policies: dict[str, Any] = {"random": RandomPolicy(env_id, seed=ROLLOUT_SEED)}
    if actor is None:
        policies.update(oracle=OraclePolicy(env), noisy=NoisyOraclePolicy(env, epsilon=NOISE, seed=ROLLOUT_SEED))
    else:
        from agents.train import policy_from_run

        policies["actor"] = ActorPolicy(policy_from_run(actor)[0], seed=ROLLOUT_SEED)
    trajectories: list[Trajectory] = []
    for name, count in counts.items():
        for result in rollout(env, policies[name], count, seed=ROLLOUT_SEED + len(trajectories), progress=progress):
            result.trajectory.meta["policy"] = name
            trajectories.append(result.trajectory)
    env.close()
    models_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(path, trajectories)  # atomic; the marker after it says it is complete
    successes = sum(t.success for t in trajectories)
    atomic_write_json(marker, {**want, "successes": successes, "steps": sum(len(t) for t in trajectories)})
    log.info("collected %d trajectories (%d successful) in %s", len(trajectories), successes, path)
    return trajectories


# ----------------------------------------------------------------------------- 2. labels and split


def _labelled(trajectories: list[Trajectory], source: str, progress: bool) -> list[ProgressExample]:
    """Per-state examples with ``source`` labels and env labels attached (as ``progrm_cli.labelled_examples``)."""
    index = {id(t): i for i, t in enumerate(trajectories)}  # empty trajectories are not labelled
    pairs, report = label_trajectories(trajectories, source=source, progress=progress)  # type: ignore[arg-type]
    log.info("%s labels: %s", source, report.summary())
    out: list[ProgressExample] = []
    for t, labels in pairs:
        out.extend(examples(t, labels.labels, labels.key_steps, env_labels(t).labels, index=index[id(t)]))
    return out


def held_out(trajectories: Sequence[Trajectory], seed: int, fraction: float = VAL_FRACTION) -> set[int]:
    """Indices of the validation trajectories, the same for every model.

    With two or more tasks, ``round(fraction · #tasks)`` whole tasks (at least one, never all) are
    held out (:func:`wrappers.progress.training.split_by_task`, ProgRM App. C splits by task goal):
    validation measures generalisation to tasks the model never saw. With one task, a ``fraction``
    of its trajectories is held out instead (split_by_task logs a warning): validation then
    measures generalisation to new instances of a known task only.
    """
    from wrappers.progress import split_by_task

    stand_ins = [
        ProgressExample("", (), "", 0.0, task_id=t.task_id, trajectory=i) for i, t in enumerate(trajectories) if t.steps
    ]
    _, val = split_by_task(stand_ins, fraction, seed)
    if not val:
        raise ValueError(f"{len(stand_ins)} non-empty trajectories are too few to hold any out for validation")
    return {e.trajectory for e in val}


# ----------------------------------------------------------------------------- 3. train and evaluate


def _train_and_evaluate(
    out: Path,
    train_set: list[ProgressExample],
    val_set: list[ProgressExample],
    progress_val: list[ProgressExample],
    config: Any,
    settings: dict[str, Any],
    progress: bool,
) -> dict[str, Any]:
    from wrappers.progress import evaluate, train_progress_model

    name = out.name
    if name == "orm" and not any(e.success for e in train_set):
        log.warning("no successful trajectory among the ORM's training tasks: it can only learn 'failure'")
    result = train_progress_model(train_set, out, config, val_examples=val_set, resume=True, progress=progress)
    best = out / "best.pt"
    if not best.exists():
        raise RuntimeError(f"training {name} produced no checkpoint ({result.stopped_reason}); see {out}")
    mean_label = float(np.mean([e.label for e in train_set]))  # the constant predictor to beat
    metrics = evaluate(result.model, progress_val, baseline_label=mean_label, measure_latency=False)
    if name == "orm":  # success prediction on its own final-state examples (Table 2)
        metrics["outcome"] = evaluate(result.model, val_set, key_source="label", measure_latency=False)
    metrics.update(
        best_val_loss=result.best_val_loss, epochs_run=result.epochs_run, stopped_reason=result.stopped_reason,
        train_examples=len(train_set), val_examples=len(val_set),
        val_tasks=sorted({e.task_id for e in val_set}),
    )  # fmt: skip
    atomic_write_json(out / "eval.json", metrics)
    atomic_write_json(out / "done.json", {"settings": settings, "checkpoint": str(best), "metrics": metrics})
    return {"checkpoint": str(best), **metrics}


def _done(out: Path, settings: dict[str, Any]) -> dict[str, Any] | None:
    """The result recorded in ``out/done.json`` (None when there is none); ValueError when it is stale."""
    path = out / "done.json"
    if not path.exists():
        return None
    done = _read_json(path)
    if done.get("settings") != settings:
        raise ValueError(
            f"{out} was trained with {done.get('settings')}, this study asks {settings}: "
            "use another reward-model directory, or delete it to start over"
        )
    best = out / "best.pt"
    if not best.is_file():
        raise FileNotFoundError(f"{path} says {out.name} is trained but {best} is missing: delete {path} to retrain")
    return {"checkpoint": str(best), **done["metrics"]}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = read_json(path, "stage record")
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is unreadable ({e}); delete it to redo its stage") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} is not a JSON object; delete it to redo its stage")
    return data
