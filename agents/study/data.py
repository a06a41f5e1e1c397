"""Reading a reward-shaping study's raw run files: :func:`load_study` and the records it returns.

The runner (``gui-gym study``) leaves, under a study directory ``OUT``::

    OUT/study.json                          mode, command, config (StudyConfig), times, machine
    OUT/runs/<setting>/seed<k>/status.json  done | crashed | diverged, iterations, milestone stats
    OUT/runs/<setting>/seed<k>/eval.jsonl   one line per final evaluation episode
    OUT/runs/<setting>/seed<k>/metrics.jsonl  the trainer's per-iteration metrics
    OUT/models/<name>/eval.json             ProgRM-style reward-model metrics

A finished run's ``eval.jsonl`` and ``metrics.jsonl`` are gzipped (``eval.jsonl.gz``,
``metrics.jsonl.gz``: :func:`agents.study.runner.pack_run`); :func:`run_file` finds either form and
:func:`read_jsonl_objects` reads both, so a study of plain, packed or mixed runs reads the same.

:func:`load_study` reads them without ever failing on one run: a missing or corrupt file turns
the run into a ``missing`` / ``unreadable`` record with the reason. :func:`num` and :func:`as_list`
are the lenient value readers the other study modules share.
"""

from __future__ import annotations

import logging
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.study.settings import SETTINGS, Setting, setting
from gui_gym.core.io import CorruptFileError, loads_json, open_lines, read_json

log = logging.getLogger(__name__)

__all__ = [
    "MODEL_NAMES",
    "RAW_FILES",
    "REPORT_COLUMNS",
    "TIERS",
    "ModelEval",
    "RunRecord",
    "StudyData",
    "load_study",
    "read_jsonl_objects",
    "run_file",
]

TIERS: tuple[str, ...] = ("easy", "medium", "hard")
MODEL_NAMES: tuple[str, ...] = ("progress-env", "progress-lcs", "orm")
_SEED_DIR = re.compile(r"^seed(-?\d+)$")
#: A run's JSON Lines files: plain while it runs, gzipped (``<name>.gz``) once it has finished.
RAW_FILES: tuple[str, ...] = ("eval.jsonl", "metrics.jsonl")
#: The trainer's per-iteration columns the report and its plots read (``metrics.jsonl``): what
#: :func:`agents.study.runner.slim_run` keeps of a finished run (the trainer's ``metrics.csv``
#: beside it keeps every column).
REPORT_COLUMNS: frozenset[str] = frozenset({
    "iteration", "eval_success_rate", "success_rate", "mean_length", "return", "milestone_hits",
    "milestone_hit_rate", "rm_accuracy", "rm_auc", "rm_score_failure", "rm_score_success",
})  # fmt: skip


@dataclass
class RunRecord:
    """One training run (a setting × a training seed) as found on disk.

    ``status`` is the runner's (``done``, ``crashed``, ``diverged``, …) or ``missing`` (no
    ``status.json``, or no run directory) or ``unreadable`` (``status.json`` is corrupt);
    ``reason`` says why for the last two. ``problems`` lists non-fatal data issues (skipped
    lines, absent files) so that nothing is dropped silently.
    """

    setting: str
    seed: int
    path: Path
    status: str
    reason: str | None = None
    reward: str | None = None
    error: str | None = None
    wall_s: float | None = None  # of the process that finished the run, from iteration resumed_at on
    iterations: int | None = None
    resumed_at: int = 0
    milestone_coverage: float | None = None
    milestone_hits: dict[str, dict[str, int]] | None = None
    eval_rows: list[dict[str, Any]] = field(default_factory=list)
    metrics: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.status == "done"

    def evals(self, phase: str, split: str) -> list[dict[str, Any]]:
        return [r for r in self.eval_rows if r["phase"] == phase and r["split"] == split]

    @property
    def usable(self) -> bool:
        """Finished, with a trained evaluation: the runs the success tables average over."""
        return self.done and any(r["phase"] == "trained" for r in self.eval_rows)


@dataclass
class ModelEval:
    """``models/<name>/eval.json``: ``status`` is ``ok``, ``missing`` or ``unreadable``."""

    name: str
    status: str
    metrics: dict[str, Any] = field(default_factory=dict)
    reason: str | None = None


@dataclass
class StudyData:
    """Everything :func:`load_study` found under ``out``."""

    out: Path
    study: dict[str, Any]
    config: dict[str, Any]
    settings: list[str]  # the study's order (StudyConfig.settings), then any extra found on disk
    seeds: list[int]
    runs: list[RunRecord]
    models: dict[str, ModelEval]
    problems: list[str] = field(default_factory=list)

    def runs_of(self, name: str) -> list[RunRecord]:
        return [r for r in self.runs if r.setting == name]

    def info(self, name: str) -> Setting:
        """The :class:`Setting` called ``name``; an ad-hoc one for names the study code does not know."""
        try:
            return setting(name)
        except ValueError:
            reward = next((r.reward for r in self.runs_of(name) if r.reward), name)
            return Setting(name, reward, "other", name)


def _read_json(path: Path) -> tuple[Any, str | None]:
    """``(value, None)``, or ``(None, reason)`` when the file is absent or not JSON."""
    if not path.is_file():
        return None, f"{path.name} missing"
    try:
        return read_json(path), None
    except (OSError, ValueError) as e:
        return None, f"{path.name} unreadable ({type(e).__name__}: {str(e).removeprefix(f'{path}: ')})"


def run_file(run: Path, name: str) -> Path | None:
    """``run/name`` if it exists, else its gzipped ``run/name.gz`` (a finished run's), else None.

    A run killed between gzipping a file and removing the plain one has both: they hold the same.
    """
    for path in (run / name, run / f"{name}.gz"):
        if path.is_file():
            return path
    return None


def read_jsonl_objects(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The object lines of ``path`` (gzipped when its name ends in ``.gz``); corrupt lines (e.g. a
    truncated last one) are skipped with a warning. A damaged gzip raises
    :class:`~gui_gym.core.io.CorruptFileError` naming the file.

    Not :func:`agents.plot.read_metrics`: the report needs to know how many lines were skipped.
    """
    rows: list[dict[str, Any]] = []
    bad: list[int] = []
    with open_lines(path) as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            try:  # a BOM is fine, bad bytes or nesting are a bad line (never silently altered)
                row = loads_json(raw, f"{path}:{n}")
            except ValueError:
                bad.append(n)
                continue
            if isinstance(row, dict):
                rows.append(row)
            else:
                bad.append(n)
    problems = []
    if bad:
        log.warning("%s: skipped %d corrupt line(s): %s", path, len(bad), bad[:10])
        name = path.name.removesuffix(".gz")  # the same lines, plain or gzipped: the same words in the report
        problems.append(f"{name}: skipped {len(bad)} corrupt line(s) (line {', '.join(map(str, bad[:5]))})")
    return rows, problems


def _eval_row(row: dict[str, Any]) -> dict[str, Any] | None:
    """A normalised evaluation row, or None when it lacks what the tables need."""
    phase, split, success = row.get("phase"), row.get("split"), row.get("success")
    if phase not in ("untrained", "trained") or split not in ("seen", "unseen") or success is None:
        return None
    length = row.get("length")
    return {
        "phase": phase,
        "split": split,
        "task": str(row.get("task", "?")),
        "seed": row.get("seed"),
        "difficulty": row.get("difficulty") if row.get("difficulty") in TIERS else "unknown",
        "success": bool(success),
        "length": int(length) if isinstance(length, int | float) and not isinstance(length, bool) else None,
        "score": num(row.get("score")),  # the env's final task score (WebShop's reward at Buy Now)
    }


def num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) else None


def _load_run(path: Path, name: str, seed: int) -> RunRecord:
    run = RunRecord(setting=name, seed=seed, path=path, status="missing")
    if not path.is_dir():
        run.reason = "run directory missing"
        return run
    status, why = _read_json(path / "status.json")
    if why is not None:
        run.status = "missing" if why.endswith(" missing") else "unreadable"
        run.reason = why + (" (unfinished or killed run?)" if run.status == "missing" else "")
    elif not isinstance(status, dict):
        run.status, run.reason = "unreadable", f"status.json holds a {type(status).__name__}, not an object"
    else:
        run.status = str(status.get("status") or "unknown")
        run.reward = status.get("reward") if isinstance(status.get("reward"), str) else None
        err = status.get("error")
        run.error = str(err) if err else None
        run.wall_s = num(status.get("wall_s"))
        it = status.get("iterations")
        run.iterations = int(it) if isinstance(it, int | float) and not isinstance(it, bool) else None
        start = status.get("resumed_at")
        run.resumed_at = int(start) if isinstance(start, int) and not isinstance(start, bool) and start > 0 else 0
        run.milestone_coverage = num(status.get("milestone_coverage"))
        hits = status.get("milestone_hits")
        if isinstance(hits, dict):
            run.milestone_hits = {
                str(t): {str(m): int(c) for m, c in ms.items() if num(c) is not None}
                for t, ms in hits.items()
                if isinstance(ms, dict)
            }
        for key, want in (("setting", name), ("seed", seed)):
            if key in status and status[key] != want:
                run.problems.append(f"status.json says {key}={status[key]!r}, directory says {want!r}")
    for fname, attr in zip(RAW_FILES, ("eval_rows", "metrics"), strict=True):
        fpath = run_file(path, fname)
        if fpath is None:
            if run.done:  # expected of crashed runs; a finished run without it is a data problem
                run.problems.append(f"{fname} missing")
            continue
        try:
            rows, probs = read_jsonl_objects(fpath)
        except CorruptFileError as e:  # a damaged gzip
            log.warning("%s", e)
            run.problems.append(f"{fpath.name} unreadable ({str(e).removeprefix(f'{fpath}: ')})")
            continue
        except OSError as e:
            run.problems.append(f"{fname} unreadable ({e})")
            continue
        run.problems.extend(probs)
        if attr == "eval_rows":
            good = [r for r in (_eval_row(x) for x in rows) if r is not None]
            if len(good) < len(rows):
                run.problems.append(f"eval.jsonl: skipped {len(rows) - len(good)} row(s) without phase/split/success")
            run.eval_rows = good
        else:
            good = [r for r in rows if num(r.get("iteration")) is not None]
            if len(good) < len(rows):
                run.problems.append(f"metrics.jsonl: skipped {len(rows) - len(good)} row(s) without an iteration")
            run.metrics = sorted(good, key=lambda r: r["iteration"])
    if (
        run.done
        and not any(r["phase"] == "trained" for r in run.eval_rows)
        and "eval.jsonl missing" not in run.problems
    ):
        run.problems.append("no trained evaluation rows")
    return run


def as_list(v: Any) -> list[Any]:
    if isinstance(v, str):
        return [x for x in (s.strip() for s in v.split(",")) if x]
    return list(v) if isinstance(v, list | tuple) else []


def load_study(out: str | os.PathLike[str]) -> StudyData:
    """Read a study directory. FileNotFoundError when ``out`` holds neither ``study.json`` nor ``runs/``."""
    out = Path(out)
    if not out.is_dir():
        raise FileNotFoundError(f"study directory {out} does not exist")
    runs_dir = out / "runs"
    if not (out / "study.json").is_file() and not runs_dir.is_dir():
        raise FileNotFoundError(f"{out} holds no study.json and no runs/: is it a `gui-gym study --out` directory?")
    problems: list[str] = []
    study, why = _read_json(out / "study.json")
    if why is not None or not isinstance(study, dict):
        problems.append(why or "study.json is not a JSON object")
        study = {}
    config = study.get("config") if isinstance(study.get("config"), dict) else {}
    if study and not config:
        problems.append("study.json has no config")

    # runs on disk, whether or not the config names them
    found: dict[tuple[str, int], Path] = {}
    if runs_dir.is_dir():
        for sdir in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
            for rdir in sorted(sdir.iterdir()):
                m = _SEED_DIR.match(rdir.name)
                if m and rdir.is_dir():
                    found[(sdir.name, int(m.group(1)))] = rdir
                else:
                    problems.append(f"ignored {rdir.relative_to(out)}: not a seed<k> run directory")
    elif study:
        problems.append("runs/ missing: no run has started")

    known = [s.name for s in SETTINGS]
    names = [str(s) for s in as_list(config.get("settings"))]
    extra = sorted({s for s, _ in found} - set(names), key=lambda s: (known.index(s) if s in known else len(known), s))
    if names and extra:
        problems.append(f"runs found for settings the config does not list: {', '.join(extra)}")
    names += extra
    seeds = [int(s) for s in as_list(config.get("seeds")) if num(s) is not None]
    extra_seeds = sorted({k for _, k in found} - set(seeds))
    if seeds and extra_seeds:
        problems.append(f"runs found for seeds the config does not list: {', '.join(map(str, extra_seeds))}")
    seeds += extra_seeds

    # expected = the config's settings × seeds (absent ones become "missing" records), plus whatever is on disk
    expected = {(n, k) for n in as_list(config.get("settings")) for k in as_list(config.get("seeds"))}
    runs = [
        _load_run(found.get((name, seed), runs_dir / name / f"seed{seed}"), name, seed)
        for name in names
        for seed in seeds
        if (name, seed) in found or (name, seed) in expected
    ]

    models: dict[str, ModelEval] = {}
    mdir = out / "models"
    model_names = list(MODEL_NAMES)
    if mdir.is_dir():
        model_names += sorted(p.name for p in mdir.iterdir() if p.is_dir() and p.name not in MODEL_NAMES)
    for name in model_names:
        value, why = _read_json(mdir / name / "eval.json")
        if why is not None:
            models[name] = ModelEval(name, "missing" if why.endswith(" missing") else "unreadable", reason=why)
        elif not isinstance(value, dict):
            models[name] = ModelEval(name, "unreadable", reason="eval.json is not a JSON object")
        else:
            models[name] = ModelEval(name, "ok", metrics=value)
    return StudyData(out, study, config, names, seeds, runs, models, problems)
