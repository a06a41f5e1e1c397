"""The reward-shaping study's report: raw run files in, ``reward_study.md`` and PNGs out.

The runner (``gui-gym study``) leaves, under a study directory ``OUT``::

    OUT/study.json                          mode, command, config (StudyConfig), times, machine
    OUT/runs/<setting>/seed<k>/status.json  done | crashed | diverged, iterations, milestone stats
    OUT/runs/<setting>/seed<k>/eval.jsonl   one line per final evaluation episode
    OUT/runs/<setting>/seed<k>/metrics.jsonl  the trainer's per-iteration metrics
    OUT/models/<name>/eval.json             ProgRM-style reward-model metrics

:func:`load_study` reads them without ever failing on one run: a missing or corrupt file turns
the run into a ``missing`` / ``unreadable`` record with the reason. :func:`aggregate` turns the
runs into per-setting numbers (fractions, mean and sample std over training seeds), and
:func:`write_report` renders the tables in the papers' shapes (ADMIRE Table 1/3, App. B.2-B.6,
Fig. 4; ProgRM Tables 1 and 3; MobileRL Fig. 6) plus learning curves under ``OUT/plots/``.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import statistics
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.study.settings import SETTINGS, Setting, setting

log = logging.getLogger(__name__)

__all__ = [
    "MODEL_NAMES",
    "TIERS",
    "Aggregates",
    "ModelEval",
    "RunRecord",
    "SettingAggregate",
    "Stat",
    "StudyData",
    "aggregate",
    "auto_reading",
    "load_study",
    "milestone_hit_counts",
    "significance",
    "summary_table",
    "write_report",
]

TIERS: tuple[str, ...] = ("easy", "medium", "hard")
MODEL_NAMES: tuple[str, ...] = ("progress-env", "progress-lcs", "orm")
REPORT_NAME = "reward_study.md"
OVERVIEW_PNG = "overview.png"
_SEED_DIR = re.compile(r"^seed(-?\d+)$")
_DASH = "—"


# -- loading -------------------------------------------------------------------------------


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
    wall_s: float | None = None
    iterations: int | None = None
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
        return json.loads(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        return None, f"{path.name} unreadable ({type(e).__name__}: {e})"


def _read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The object lines of ``path``; corrupt lines (e.g. a truncated last one) are skipped with a warning.

    Not :func:`agents.plot.read_metrics`: the report needs to know how many lines were skipped.
    """
    rows: list[dict[str, Any]] = []
    bad: list[int] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                bad.append(n)
                continue
            if isinstance(row, dict):
                rows.append(row)
            else:
                bad.append(n)
    problems = []
    if bad:
        log.warning("%s: skipped %d corrupt line(s): %s", path, len(bad), bad[:10])
        problems.append(f"{path.name}: skipped {len(bad)} corrupt line(s) (line {', '.join(map(str, bad[:5]))})")
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
    }


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) else None


def _load_run(path: Path, name: str, seed: int) -> RunRecord:
    run = RunRecord(setting=name, seed=seed, path=path, status="missing")
    if not path.is_dir():
        run.reason = "run directory missing"
        return run
    status, why = _read_json(path / "status.json")
    if why is not None:
        run.status = "missing" if "missing" in why else "unreadable"
        run.reason = why + (" (unfinished or killed run?)" if run.status == "missing" else "")
    elif not isinstance(status, dict):
        run.status, run.reason = "unreadable", f"status.json holds a {type(status).__name__}, not an object"
    else:
        run.status = str(status.get("status") or "unknown")
        run.reward = status.get("reward") if isinstance(status.get("reward"), str) else None
        err = status.get("error")
        run.error = str(err) if err else None
        run.wall_s = _num(status.get("wall_s"))
        it = status.get("iterations")
        run.iterations = int(it) if isinstance(it, int | float) and not isinstance(it, bool) else None
        run.milestone_coverage = _num(status.get("milestone_coverage"))
        hits = status.get("milestone_hits")
        if isinstance(hits, dict):
            run.milestone_hits = {
                str(t): {str(m): int(c) for m, c in ms.items() if _num(c) is not None}
                for t, ms in hits.items()
                if isinstance(ms, dict)
            }
        for key, want in (("setting", name), ("seed", seed)):
            if key in status and status[key] != want:
                run.problems.append(f"status.json says {key}={status[key]!r}, directory says {want!r}")
    for fname, attr in (("eval.jsonl", "eval_rows"), ("metrics.jsonl", "metrics")):
        fpath = path / fname
        if not fpath.is_file():
            if run.done:  # expected of crashed runs; a finished run without it is a data problem
                run.problems.append(f"{fname} missing")
            continue
        try:
            rows, probs = _read_jsonl(fpath)
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
            good = [r for r in rows if _num(r.get("iteration")) is not None]
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


def _as_list(v: Any) -> list[Any]:
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
    names = [str(s) for s in _as_list(config.get("settings"))]
    extra = sorted({s for s, _ in found} - set(names), key=lambda s: (known.index(s) if s in known else len(known), s))
    if names and extra:
        problems.append(f"runs found for settings the config does not list: {', '.join(extra)}")
    names += extra
    seeds = [int(s) for s in _as_list(config.get("seeds")) if _num(s) is not None]
    extra_seeds = sorted({k for _, k in found} - set(seeds))
    if seeds and extra_seeds:
        problems.append(f"runs found for seeds the config does not list: {', '.join(map(str, extra_seeds))}")
    seeds += extra_seeds

    # expected = the config's settings × seeds (absent ones become "missing" records), plus whatever is on disk
    expected = {(n, k) for n in _as_list(config.get("settings")) for k in _as_list(config.get("seeds"))}
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
            models[name] = ModelEval(name, "missing" if "missing" in why else "unreadable", reason=why)
        elif not isinstance(value, dict):
            models[name] = ModelEval(name, "unreadable", reason="eval.json is not a JSON object")
        else:
            models[name] = ModelEval(name, "ok", metrics=value)
    return StudyData(out, study, config, names, seeds, runs, models, problems)


# -- numbers -------------------------------------------------------------------------------


@dataclass
class Stat:
    """Per-seed values of one quantity; ``mean`` and sample ``std`` (ddof=1) over seeds."""

    values: list[float] = field(default_factory=list)
    seeds: list[int] = field(default_factory=list)

    def add(self, seed: int, value: float | None) -> None:
        if value is not None:
            self.values.append(float(value))
            self.seeds.append(seed)

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.values) if self.values else None

    @property
    def std(self) -> float | None:
        return statistics.stdev(self.values) if len(self.values) >= 2 else None


#: The per-seed quantities of a setting (success as fractions, steps in actions).
METRICS: tuple[str, ...] = (
    *(f"seen_{t}" for t in TIERS),
    "seen_all",
    "delta_seen",
    "unseen_all",
    "delta_unseen",
    "steps_seen",  # mean length of the successful trained episodes on seen tasks
    "delta_steps",  # … minus the untrained policy's (same seed)
    "coverage",
    "hits_late",  # mean milestones hit per training episode over the last 20% of iterations
    "hit_rate_late",
)


@dataclass
class SettingAggregate:
    """A setting's numbers: ``metrics[key]`` for each key of :data:`METRICS`, over finished seeds."""

    name: str
    label: str
    reward: str
    group: str
    runs: int = 0  # runs the study expects (or found)
    finished: int = 0  # runs counted in the success tables (``RunRecord.usable``)
    shortfall: dict[str, int] = field(default_factory=dict)  # why the others are not: {"crashed": 1, …}
    metrics: dict[str, Stat] = field(default_factory=lambda: {k: Stat() for k in METRICS})
    # pooled trained episodes of the finished runs: split -> (successes, episodes); empty for the untrained row
    counts: dict[str, tuple[int, int]] = field(default_factory=lambda: {"seen": (0, 0), "unseen": (0, 0)})

    def mean(self, key: str) -> float | None:
        return self.metrics[key].mean


@dataclass
class Aggregates:
    """:func:`aggregate`'s result: the untrained policy and each setting in the study's order."""

    untrained: SettingAggregate
    settings: dict[str, SettingAggregate]

    def __getitem__(self, name: str) -> SettingAggregate:
        return self.settings[name]

    def __contains__(self, name: object) -> bool:
        return name in self.settings


def _rate(rows: Sequence[dict[str, Any]]) -> float | None:
    return sum(r["success"] for r in rows) / len(rows) if rows else None


def _success_steps(rows: Iterable[dict[str, Any]]) -> float | None:
    lengths = [r["length"] for r in rows if r["success"] and r["length"] is not None]
    return statistics.fmean(lengths) if lengths else None


def _minus(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def _untrained_by_seed(data: StudyData) -> dict[int, list[dict[str, Any]]]:
    """Untrained rows pooled over every run of a seed: the policy before training depends only on the seed."""
    by_seed: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for run in data.runs:
        by_seed[run.seed].extend(r for r in run.eval_rows if r["phase"] == "untrained")
    return by_seed


def _per_split(rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    seen = [r for r in rows if r["split"] == "seen"]
    unseen = [r for r in rows if r["split"] == "unseen"]
    out = {f"seen_{t}": _rate([r for r in seen if r["difficulty"] == t]) for t in TIERS}
    out.update(seen_all=_rate(seen), unseen_all=_rate(unseen), steps_seen=_success_steps(seen))
    return out


def _late_milestones(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    """Mean of ``key`` over the training rows of the last 20% of iterations (ADMIRE App. B.2's late phase)."""
    train = [r for r in rows if r["iteration"] >= 0]
    if not train:
        return None
    n_it = int(max(r["iteration"] for r in train)) + 1
    start = n_it - max(1, math.ceil(0.2 * n_it))
    vals = [v for r in train if r["iteration"] >= start and (v := _num(r.get(key))) is not None]
    return statistics.fmean(vals) if vals else None


def aggregate(data: StudyData) -> Aggregates:
    """Per-setting numbers (fractions, not percent) over the finished seeds; see :data:`METRICS`."""
    base_rows = _untrained_by_seed(data)
    base = {seed: _per_split(rows) for seed, rows in base_rows.items() if rows}
    untrained = SettingAggregate("untrained", "Untrained policy", "", "baseline", len(data.seeds), len(base))
    if len(base) < len(data.seeds):
        untrained.shortfall["no untrained eval"] = len(data.seeds) - len(base)
    for seed in sorted(base):
        for k, v in base[seed].items():
            untrained.metrics[k].add(seed, v)
    # no pooled episode counts: every run re-evaluates the same untrained policy, so pooling would count
    # each episode once per setting
    untrained.counts = {}

    result: dict[str, SettingAggregate] = {}
    for name in data.settings:
        info = data.info(name)
        runs = data.runs_of(name)
        shortfall: Counter[str] = Counter()
        agg = SettingAggregate(name, info.label, info.reward, info.group, runs=len(runs))
        for run in runs:
            if not run.done:
                shortfall[run.status] += 1
                continue
            # milestone statistics come from training, so a finished run counts even without eval rows
            agg.metrics["coverage"].add(run.seed, run.milestone_coverage)
            agg.metrics["hits_late"].add(run.seed, _late_milestones(run.metrics, "milestone_hits"))
            agg.metrics["hit_rate_late"].add(run.seed, _late_milestones(run.metrics, "milestone_hit_rate"))
            if not run.usable:
                shortfall["no eval"] += 1
                continue
            agg.finished += 1
            trained = [r for r in run.eval_rows if r["phase"] == "trained"]
            vals = _per_split(trained)
            b = base.get(run.seed, {})
            vals["delta_seen"] = _minus(vals["seen_all"], b.get("seen_all"))
            vals["delta_unseen"] = _minus(vals["unseen_all"], b.get("unseen_all"))
            vals["delta_steps"] = _minus(vals["steps_seen"], b.get("steps_seen"))
            for k, v in vals.items():
                agg.metrics[k].add(run.seed, v)
            for split in ("seen", "unseen"):
                rows = [r for r in trained if r["split"] == split]
                s, n = agg.counts[split]
                agg.counts[split] = (s + sum(r["success"] for r in rows), n + len(rows))
        agg.shortfall = dict(shortfall)
        result[name] = agg
    return Aggregates(untrained, result)


def summary_table(data: StudyData | Aggregates) -> list[dict[str, Any]]:
    """One flat dict of numbers per row (untrained first, then each setting): ``<metric>_mean/_std/_n``."""
    agg = data if isinstance(data, Aggregates) else aggregate(data)
    rows = []
    for a in (agg.untrained, *agg.settings.values()):
        row: dict[str, Any] = {
            "setting": a.name,
            "label": a.label,
            "group": a.group,
            "runs": a.runs,
            "finished": a.finished,
            "shortfall": dict(a.shortfall),
        }
        for k, st in a.metrics.items():
            row[f"{k}_mean"], row[f"{k}_std"], row[f"{k}_n"] = st.mean, st.std, st.n
        for split, (s, n) in a.counts.items():
            row[f"{split}_successes"], row[f"{split}_episodes"] = s, n
        rows.append(row)
    return rows


def _stats() -> Any:
    """``scipy.stats``, or None: scipy comes with the encoder's dependencies but the report must render without it."""
    try:
        from scipy import stats
    except ImportError:
        return None
    return stats


def _welch(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided Welch p-value; None when a group has fewer than two seeds or neither varies."""
    stats = _stats()
    if len(a) < 2 or len(b) < 2 or stats is None:
        return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero variance in both groups: p is nan
        p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return p if math.isfinite(p) else None


def _fisher(a: tuple[int, int], b: tuple[int, int]) -> float | None:
    stats = _stats()
    if a[1] == 0 or b[1] == 0 or stats is None:
        return None

    return float(stats.fisher_exact([[a[0], a[1] - a[0]], [b[0], b[1] - b[0]]], alternative="two-sided").pvalue)


def significance(agg: Aggregates, baseline: str = "outcome") -> list[dict[str, Any]]:
    """Each setting vs ``baseline``: Welch's t-test on per-seed trained success, Fisher's exact on pooled episodes.

    Keys: ``setting``, ``diff_seen``/``diff_unseen`` (difference of means, fraction),
    ``welch_seen``/``welch_unseen``, ``fisher_seen``/``fisher_unseen`` (p-values, None = n/a),
    ``counts_seen``/``counts_unseen`` ((successes, episodes) of the setting and the baseline).
    Empty when the study has no ``baseline`` setting.
    """
    if baseline not in agg:
        return []
    ref = agg[baseline]
    out = []
    for name, a in agg.settings.items():
        if name == baseline:
            continue
        row: dict[str, Any] = {"setting": name}
        for split in ("seen", "unseen"):
            sa, sb = a.metrics[f"{split}_all"], ref.metrics[f"{split}_all"]
            row[f"diff_{split}"] = _minus(sa.mean, sb.mean)
            row[f"welch_{split}"] = _welch(sa.values, sb.values)
            row[f"fisher_{split}"] = _fisher(a.counts[split], ref.counts[split])
            row[f"counts_{split}"] = (a.counts[split], ref.counts[split])
        out.append(row)
    return out


def milestone_hit_counts(data: StudyData, name: str) -> tuple[dict[str, Counter[str]], int]:
    """Hit counts per task and milestone text, summed over the runs of ``name``; and how many runs reported them."""
    totals: dict[str, Counter[str]] = defaultdict(Counter)
    reported = 0
    for run in data.runs_of(name):
        if run.milestone_hits is None:
            continue
        reported += 1
        for task, hits in run.milestone_hits.items():
            totals[task].update(hits)
    return dict(totals), reported


# -- formatting ----------------------------------------------------------------------------


def _pct(st: Stat, signed: bool = False) -> str:
    """``"41.7 ± 5.9"`` in percent; a single seed shows no ±, none shows a dash."""
    if st.mean is None:
        return _DASH
    m = f"{100 * st.mean:+.1f}" if signed else f"{100 * st.mean:.1f}"
    return m if st.std is None else f"{m} ± {100 * st.std:.1f}"


def _plain(st: Stat, digits: int = 2, signed: bool = False) -> str:
    if st.mean is None:
        return _DASH
    m = f"{st.mean:+.{digits}f}" if signed else f"{st.mean:.{digits}f}"
    return m if st.std is None else f"{m} ± {st.std:.{digits}f}"


def _p(p: float | None) -> str:
    if p is None:
        return "n/a"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _cell(text: Any) -> str:
    """Table-safe text: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _short(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None) -> list[str]:
    """GitHub Markdown table; ``align`` is one of l/r per column (default: first left, rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    lines = [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "| " + " | ".join("---:" if a == "r" else ":---" for a in align) + " |",
    ]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _n_cell(a: SettingAggregate) -> str:
    text = f"{a.finished}/{a.runs}"
    if a.shortfall:
        text += " (" + ", ".join(f"{n} {why}" for why, n in sorted(a.shortfall.items())) + ")"
    return text


def _duration(s: float | None) -> str:
    if s is None:
        return _DASH
    if s < 120:
        return f"{s:.0f} s"
    h, rem = divmod(round(s), 3600)
    return f"{h} h {rem // 60:02d} min" if h else f"{rem // 60} min {rem % 60:02d} s"


def _bold_best(cells: list[list[str]], values: list[list[float | None]], cols: Sequence[int]) -> None:
    """Bold each column's highest mean (ADMIRE's convention) when at least two rows have one."""
    for c in cols:
        col = [v[c] for v in values]
        present = [v for v in col if v is not None]
        if len(present) < 2 or max(present) == min(present):
            continue
        for r, v in enumerate(col):
            if v is not None and math.isclose(v, max(present)):
                cells[r][c] = f"**{cells[r][c]}**"


def _tiers_of(data: StudyData) -> dict[str, str]:
    """Task id -> tier, from the task suite, else from the evaluation rows."""
    tiers: dict[str, str] = {}
    for run in data.runs:
        for r in run.eval_rows:
            tiers.setdefault(r["task"], r["difficulty"])
    try:
        from gui_gym.android.tasks import TASKS
    except Exception as e:  # the report must render without the simulator too
        log.debug("task suite unavailable (%s); tiers come from eval rows", e)
        return tiers
    return tiers | {t: TASKS[t].difficulty for t in TASKS}


# -- sections ------------------------------------------------------------------------------


def _header(data: StudyData) -> list[str]:
    st, cfg = data.study, data.config
    lines = ["# Reward-shaping study", ""]
    lines.append(f"- **Mode:** {st.get('mode', cfg.get('mode', '?'))}")
    lines.append(f"- **Command:** `{st.get('command', '?')}`")
    tiers = _tiers_of(data)
    for key, what in (("train_tasks", "Training tasks (seen)"), ("heldout_tasks", "Held-out tasks (unseen)")):
        tasks = _as_list(cfg.get(key))
        count = Counter(tiers.get(t, "unknown") for t in tasks)
        per_tier = ", ".join(f"{count[t]} {t}" for t in (*TIERS, "unknown") if count[t])
        listing = ", ".join(f"{t} ({tiers.get(t, '?')})" for t in tasks) or _DASH
        lines.append(f"- **{what}:** {len(tasks)} ({per_tier or 'none'}): {listing}")
    seeds = _as_list(cfg.get("seeds"))
    lines.append(f"- **Training seeds:** {', '.join(map(str, seeds)) or _DASH} ({len(seeds)} per setting)")
    g = cfg.get
    lines.append(
        f"- **Training:** {g('algo', '?')}, {g('iterations', '?')} iterations, group shape {g('tasks_per_iter', '?')} "
        f"tasks × {g('group_size', '?')} trajectories per iteration, at most {g('max_steps', '?')} steps per episode"
    )
    lines.append(
        f"- **Evaluation:** {g('eval_episodes', '?')} episodes (held-out seeds) per task per split, before and after "
        f"training; learning curves every {g('eval_every', '?')} iterations on {g('curve_episodes', '?')} seeds "
        "per training task"
    )
    if cfg.get("extra"):
        lines.append(f"- **Trainer overrides:** `{json.dumps(cfg['extra'], sort_keys=True)}`")
    finished = st.get("finished")
    when = f"{st.get('started', '?')} → {finished}" if finished else f"started {st.get('started', '?')}, not finished"
    lines.append(f"- **Wall time:** {_duration(_num(st.get('wall_s')))} ({when})")
    lines.append(f"- **Machine:** {st.get('machine', '?')}")
    problems = data.problems + [f"model {m.name}: {m.reason}" for m in data.models.values() if m.status == "unreadable"]
    if problems:
        lines += ["", "> **Data problems:** " + "; ".join(problems)]
    return lines


_SUCCESS_HEADER = ("Setting", "n", "Easy", "Medium", "Hard", "All (seen)", "Δ seen", "Unseen", "Δ unseen")


def _success_section(data: StudyData, agg: Aggregates, sig: list[dict[str, Any]]) -> list[str]:
    lines = ["## Success by difficulty", ""]
    lines.append(
        "Trained success rate (%) on the training tasks at held-out seeds (seen), per tier and overall, and on the "
        "held-out tasks (unseen); Δ is the gain over the untrained policy of the same training seed. Cells are "
        "mean ± sample std over the finished seeds (a cell without ± comes from one seed); n counts finished "
        "runs; crashed, diverged and missing runs are not averaged in. Best value per column in **bold**; "
        "\\* marks p < 0.05 against Outcome (Welch's t-test over seeds, see Significance)."
    )
    lines.append("")
    p_of = {r["setting"]: r for r in sig}
    u = agg.untrained
    rows = [
        [
            u.label,
            f"{u.finished}/{u.runs} seeds",
            *(_pct(u.metrics[f"seen_{t}"]) for t in TIERS),
            _pct(u.metrics["seen_all"]),
            _DASH,
            _pct(u.metrics["unseen_all"]),
            _DASH,
        ]
    ]
    cells, values = [], []
    for a in agg.settings.values():
        m = a.metrics
        row = [
            a.label,
            _n_cell(a),
            *(_pct(m[f"seen_{t}"]) for t in TIERS),
            _pct(m["seen_all"]),
            _pct(m["delta_seen"], signed=True),
            _pct(m["unseen_all"]),
            _pct(m["delta_unseen"], signed=True),
        ]
        for col, split in ((5, "seen"), (7, "unseen")):
            p = p_of.get(a.name, {}).get(f"welch_{split}")
            if p is not None and p < 0.05:
                row[col] += "\\*"
        cells.append(row)
        keys = ("", "", *(f"seen_{t}" for t in TIERS), "seen_all", "delta_seen", "unseen_all", "delta_unseen")
        values.append([m[k].mean if k else None for k in keys])
    _bold_best(cells, values, range(2, 9))
    lines += _table(_SUCCESS_HEADER, rows + cells)
    lines += ["", "### Learning curves", ""]
    lines.append(
        "Success on the training tasks at held-out seeds (the trainer's learning-curve evaluations, left) and of "
        "the training rollouts (right); bold: mean over finished seeds, band: ± std, thin lines: single seeds "
        "(dotted when the run did not finish)."
    )
    lines += ["", f"![eval success of every setting](plots/{OVERVIEW_PNG})", ""]
    lines += [f"- {agg[n].label}: [plots/{n}.png](plots/{n}.png)" for n in agg.settings]
    return lines


def _significance_section(agg: Aggregates, sig: list[dict[str, Any]]) -> list[str]:
    lines = ["## Significance", ""]
    if "outcome" not in agg:
        return [*lines, "The study has no `outcome` setting to test against."]
    lines.append(
        "Each setting against Outcome: Welch's t-test (unequal variances) on per-seed trained success, and a "
        "two-sided Fisher exact test on the success counts pooled over every evaluation episode of the finished "
        "seeds. Δ is the difference of the means in percentage points; n/a: fewer than two seeds in a group, "
        "no variance in either, or no episodes."
    )
    lines.append("")

    def counts(c: tuple[tuple[int, int], tuple[int, int]]) -> str:
        return f"{c[0][0]}/{c[0][1]} vs {c[1][0]}/{c[1][1]}"

    def pp(d: float | None) -> str:
        return _DASH if d is None else f"{100 * d:+.1f}"

    rows = [
        [
            agg[r["setting"]].label,
            pp(r["diff_seen"]),
            _p(r["welch_seen"]),
            _p(r["fisher_seen"]),
            counts(r["counts_seen"]),
            pp(r["diff_unseen"]),
            _p(r["welch_unseen"]),
            _p(r["fisher_unseen"]),
            counts(r["counts_unseen"]),
        ]
        for r in sig
    ]
    header = (
        "Setting",
        "Δ seen (pp)",
        "Welch p (seen)",
        "Fisher p (seen)",
        "successes (seen)",
        "Δ unseen (pp)",
        "Welch p (unseen)",
        "Fisher p (unseen)",
        "successes (unseen)",
    )
    lines += _table(header, rows) if rows else ["Outcome is the only setting."]
    lines.append("")
    ns = [a.metrics["seen_all"].n for a in agg.settings.values() if a.metrics["seen_all"].n]
    stds = [s for a in agg.settings.values() if (s := a.metrics["seen_all"].std) is not None]
    n = int(statistics.median(ns)) if ns else 0
    note = (
        f"How to read this: with n = {n} seed(s) per setting, Welch's test has few degrees of freedom, so only "
        "large effects reach p < 0.05"
    )
    stats = _stats()
    if stats is None:
        lines += ["_scipy is not installed, so no p-value could be computed._", ""]
    elif n >= 2 and stds:
        s = statistics.median(stds)
        mdd = stats.t.ppf(0.975, 2 * n - 2) * s * math.sqrt(2 / n)
        note += (
            f": at the median seed-to-seed std seen here ({100 * s:.1f} pp), a difference needs to be about "
            f"{100 * mdd:.0f} pp to get there"
        )
    note += (
        ". A large p is therefore not evidence of no effect. Fisher's test treats every evaluation episode as "
        "independent and ignores the variation between training seeds, so it asks whether a gap exceeds "
        "evaluation noise, not whether it would survive retraining, and with many episodes per seed it can "
        "give small p-values where Welch's does not. Neither is corrected for the "
        f"{len(sig)} comparisons made here: about {0.05 * len(sig):.1f} of them would fall below 0.05 by chance "
        "if no setting differed."
    )
    return [*lines, note]


_PAIRS = (("outcome", "spa"), ("milestone-adaptive", "milestone+spa"))


def _task_steps(data: StudyData, name: str) -> dict[str, list[int]]:
    """Lengths of successful trained seen episodes per task, over the finished runs of ``name``."""
    out: dict[str, list[int]] = defaultdict(list)
    for run in data.runs_of(name):
        if run.usable:
            for r in run.evals("trained", "seen"):
                if r["success"] and r["length"] is not None:
                    out[r["task"]].append(r["length"])
    return out


def _steps_section(data: StudyData, agg: Aggregates) -> list[str]:
    lines = ["## Steps to success", ""]
    lines.append(
        "Mean number of actions in the successful trained episodes on seen tasks (MobileRL Fig. 6: fewer is "
        "better), mean ± std over seeds; Δ is against the untrained policy of the same seed."
    )
    lines.append("")
    u = agg.untrained
    rows = [[u.label, f"{u.finished}/{u.runs} seeds", _plain(u.metrics["steps_seen"]), _DASH, _DASH]]
    for a in agg.settings.values():
        rows.append(
            [
                a.label,
                _n_cell(a),
                _plain(a.metrics["steps_seen"]),
                _plain(a.metrics["delta_steps"], signed=True),
                a.counts["seen"][0],
            ]
        )
    lines += _table(("Setting", "n", "Steps of successes (seen)", "Δ vs untrained", "successful episodes"), rows)
    tiers = _tiers_of(data)
    for a_name, b_name in _PAIRS:
        if a_name not in agg or b_name not in agg:
            continue
        a, b = agg[a_name], agg[b_name]
        lines += ["", f"### {a.label} vs {b.label}", ""]
        sa, sb = a.metrics["steps_seen"], b.metrics["steps_seen"]
        if sa.mean is not None and sb.mean is not None:
            d = sb.mean - sa.mean
            lines.append(
                f"Steps of successes: {_plain(sa)} vs {_plain(sb)} ({d:+.2f} steps, {100 * d / sa.mean:+.0f}%)."
            )
            lines.append("")
        ta, tb = _task_steps(data, a_name), _task_steps(data, b_name)
        tasks = sorted(set(ta) | set(tb), key=lambda t: (TIERS.index(tiers[t]) if tiers.get(t) in TIERS else 9, t))
        if not tasks:
            lines.append("Neither has a successful seen episode.")
            continue
        rows, wins = [], Counter()
        for t in tasks:
            ma = statistics.fmean(ta[t]) if ta.get(t) else None
            mb = statistics.fmean(tb[t]) if tb.get(t) else None
            if ma is None or mb is None:
                who = f"only {a.label if mb is None else b.label} succeeds"
                wins["one"] += 1
            else:
                who = b.label if mb < ma else a.label if ma < mb else "tie"
                wins[who] += 1
            rows.append(
                [
                    t,
                    tiers.get(t, "?"),
                    _DASH if ma is None else f"{ma:.2f} ({len(ta[t])})",
                    _DASH if mb is None else f"{mb:.2f} ({len(tb[t])})",
                    who,
                ]
            )
        both = len(tasks) - wins["one"]
        lines.append(
            f"Per task (MobileRL Fig. 6's win count, pooled over seeds): {b.label} is shorter on {wins[b.label]} "
            f"and {a.label} on {wins[a.label]} of the {both} task(s) both solve ({wins['tie']} tie(s)); "
            f"{wins['one']} task(s) are solved by only one."
        )
        lines.append("")
        lines += _table(
            ("Task", "Tier", f"{a.label}: steps (successes)", f"{b.label}: steps (successes)", "Shorter"), rows, "llrrl"
        )
    return lines


def _is_milestone(agg: SettingAggregate) -> bool:
    return "milestone" in agg.reward


def _milestone_section(data: StudyData, agg: Aggregates) -> list[str]:
    lines = ["## Milestones: static vs adaptive", ""]
    ms = [a for a in agg.settings.values() if _is_milestone(a)]
    if not ms:
        return [*lines, "No setting of this study rewards milestones."]
    lines.append(
        "ADMIRE Table 3 and App. B.2 / B.6, for every setting whose reward uses milestones: coverage is the share of "
        "training tasks that had milestones by the end of training (adaptive: distilled from successes; static: "
        "annotated); hits are the mean number of milestones reached per training episode over the last 20% of "
        "iterations, and the hit rate divides by the number of milestones. Mean ± std over finished seeds."
    )
    lines.append("")
    rows = []
    for a in ms:
        m = a.metrics
        rows.append(
            [
                a.label,
                _n_cell(a),
                _pct(m["seen_all"]),
                _pct(m["delta_seen"], signed=True),
                _pct(m["coverage"]),
                _plain(m["hits_late"]),
                _pct(m["hit_rate_late"]),
            ]
        )
    lines += _table(
        ("Setting", "n", "Seen success", "Δ seen", "Coverage (%)", "Hits per episode (late)", "Hit rate (%, late)"),
        rows,
    )
    pair = [n for n in ("milestone-static", "milestone-adaptive") if n in agg]
    if not pair:
        return lines
    lines += ["", "### Milestone hit counts per task", ""]
    counts = {n: milestone_hit_counts(data, n) for n in pair}
    lines.append(
        "Hits of each milestone over all of training, summed over the runs that reported them ("
        + ", ".join(f"{agg[n].label}: {counts[n][1]} run(s)" for n in pair)
        + "); the three most hit milestones per task, text shortened. Adaptive milestones change during training, "
        "so their texts are summed as they were worded."
    )
    lines.append("")
    tasks = sorted({t for n in pair for t in counts[n][0]})
    if not tasks:
        return [*lines, "No run reported milestone hit counts."]
    rows = []
    for t in tasks:
        row = [t]
        for n in pair:
            c = counts[n][0].get(t)
            if not c:
                row += [_DASH, _DASH]
                continue
            top = "<br>".join(f"{_short(text, 48)} ({k})" for text, k in c.most_common(3))
            row += [f"{sum(c.values())} over {len(c)}", top]
        rows.append(row)
    header = ["Task"]
    for n in pair:
        header += [f"{agg[n].label}: hits over milestones", f"{agg[n].label}: top milestones"]
    return lines + _table(header, rows, "l" + "rl" * len(pair))


def _ablation_section(agg: Aggregates) -> list[str]:
    lines = ["## ADMIRE ablations", ""]
    abl = [a for a in agg.settings.values() if a.group == "ablation"]
    if "milestone-adaptive" not in agg or not abl:
        return [*lines, "The study has no full ADMIRE setting (milestone-adaptive) or no ablation of it."]
    full = agg["milestone-adaptive"]
    lines.append(
        "ADMIRE App. B.3 / Fig. 4: the full reward against its variants. Δ vs full is the difference of the "
        "means in percentage points (negative: the variant is worse)."
    )
    lines.append("")

    def diff(a: SettingAggregate, key: str) -> str:
        d = _minus(a.mean(key), full.mean(key))
        return _DASH if d is None else f"{100 * d:+.1f}"

    rows = [
        [
            f"{full.label} (full)",
            _n_cell(full),
            _pct(full.metrics["seen_all"]),
            _DASH,
            _pct(full.metrics["unseen_all"]),
            _DASH,
        ]
    ]
    rows += [
        [
            a.label,
            _n_cell(a),
            _pct(a.metrics["seen_all"]),
            diff(a, "seen_all"),
            _pct(a.metrics["unseen_all"]),
            diff(a, "unseen_all"),
        ]
        for a in abl
    ]
    return lines + _table(
        ("Setting", "n", "Seen success", "Δ vs full (pp)", "Unseen success", "Δ unseen vs full (pp)"), rows
    )


_RM_COLUMNS = (
    ("key_step_mae", "Key-step MAE"),
    ("label_mae", "Label MAE"),
    ("final_score_success", "Final score (success)"),
    ("final_score_failure", "Final score (failure)"),
    ("accuracy", "Accuracy"),
    ("precision", "Precision"),
    ("recall", "Recall"),
    ("f1", "F1"),
    ("false_positive_rate", "FPR"),
    ("states", "States"),
    ("trajectories", "Trajectories"),
)


def _value(v: Any) -> str:
    if v is None:
        return _DASH
    if isinstance(v, bool) or not isinstance(v, int | float):
        return _short(str(v), 60)
    return str(v) if isinstance(v, int) else f"{v:.3f}"


def _flat(d: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out = []
    for k, v in d.items():
        if isinstance(v, dict):
            out += _flat(v, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", v))
    return out


def _progrm_section(data: StudyData, agg: Aggregates) -> list[str]:
    lines = ["## Progress and outcome reward models", ""]
    names = [n for n in ("outcome", "orm", "progress-env", "progress-lcs") if n in agg]
    if names:
        lines.append(
            "ProgRM Table 1's comparison: the env's outcome check, a learned outcome reward model, and progress "
            "models trained on env milestone labels (Env) or LCS labels. Trained success (%), mean ± std over seeds."
        )
        lines.append("")
        rows = [
            [
                agg[n].label,
                _n_cell(agg[n]),
                *(_pct(agg[n].metrics[f"seen_{t}"]) for t in TIERS),
                _pct(agg[n].metrics["seen_all"]),
                _pct(agg[n].metrics["unseen_all"]),
            ]
            for n in names
        ]
        lines += _table(("Setting", "n", "Easy", "Medium", "Hard", "All (seen)", "Unseen"), rows)
    else:
        lines.append("The study trains none of these settings.")
    lines += ["", "### Reward models", ""]
    needed = {m for n in data.settings for m in data.info(n).needs}
    models = [m for m in data.models.values() if m.status != "missing" or m.name in needed]
    if not models:
        return [*lines, "No reward-model evaluation (models/*/eval.json) was found."]
    lines.append(
        "ProgRM Table 3's quantities on held-out rollouts of the training tasks: mean absolute progress error at "
        "key steps (and over all states), the mean predicted score at final states of successful and failed "
        "trajectories, and success prediction at final states."
    )
    lines.append("")
    rows = []
    for m in models:
        if m.status != "ok":
            rows.append([m.name, *[_DASH] * len(_RM_COLUMNS), m.reason])
            continue
        rows.append([m.name, *(_value(m.metrics.get(k)) for k, _ in _RM_COLUMNS), ""])
    lines += _table(("Model", *(t for _, t in _RM_COLUMNS), "Note"), rows, "l" + "r" * len(_RM_COLUMNS) + "l")
    extras = []
    for m in models:
        if m.status != "ok":
            continue
        rest = [(k, v) for k, v in _flat(m.metrics) if k not in dict(_RM_COLUMNS)]
        if rest:
            extras.append(f"- `{m.name}`: " + ", ".join(f"{k} {_value(v)}" for k, v in rest))
    if extras:
        lines += ["", "Other fields of the evaluations:", "", *extras]
    return lines


def _runs_section(data: StudyData) -> list[str]:
    lines = ["## Runs", "", "Every run the study expects or left on disk."]
    lines.append("")
    rows = []
    for r in data.runs:
        err = r.error or r.reason or ""
        err = _short(err.strip().splitlines()[0], 100) if err.strip() else ""
        rows.append(
            [
                r.setting,
                r.seed,
                r.status,
                _DASH if r.iterations is None else r.iterations,
                _duration(r.wall_s),
                err,
                "; ".join(r.problems),
            ]
        )
    return lines + _table(
        ("Setting", "Seed", "Status", "Iterations", "Wall time", "Error", "Data problems"), rows, "lrlrrll"
    )


def _compare(a: float, b: float, tol: float) -> str:
    return "matches" if abs(a - b) <= tol else "trails" if a < b else "leads"


def auto_reading(data: StudyData, agg: Aggregates, sig: list[dict[str, Any]] | None = None) -> list[str]:
    """Factual sentences computed from the numbers; each is stated only when its data exist."""
    sig = significance(agg) if sig is None else sig
    out: list[str] = []
    seen = [(a, a.mean("seen_all")) for a in agg.settings.values() if a.mean("seen_all") is not None]
    u_seen, u_unseen = agg.untrained.mean("seen_all"), agg.untrained.mean("unseen_all")
    if not seen:
        out.append("No setting has a finished run with a trained evaluation yet.")
    else:
        seen.sort(key=lambda x: -x[1])
        best, bv = seen[0]
        top = [a.label for a, v in seen if math.isclose(v, bv)]
        msg = f"Highest trained success on seen tasks: {' and '.join(top)} ({100 * bv:.1f}%, n = {best.finished})"
        if len(seen) > len(top):
            low, lv = seen[-1]
            msg += f"; lowest: {low.label} ({100 * lv:.1f}%)"
        out.append(msg + ".")
        if u_seen is not None:
            up = [a for a, v in seen if a.mean("delta_seen") is not None and a.mean("delta_seen") > 0]
            out.append(
                f"{len(up)} of {len(seen)} settings improved seen-task success over the untrained policy "
                f"({100 * u_seen:.1f}%) on average over seeds."
            )
    unseen = sorted(
        ((a, v) for a in agg.settings.values() if (v := a.mean("unseen_all")) is not None), key=lambda x: -x[1]
    )
    if unseen:
        a, v = unseen[0]
        base = f"; the untrained policy scores {100 * u_unseen:.1f}%" if u_unseen is not None else ""
        out.append(f"On unseen tasks the highest success is {a.label}'s ({100 * v:.1f}%){base}.")
    if sig:
        hits = [
            agg[r["setting"]].label + f" (p = {_p(r['welch_seen'])})"
            for r in sig
            if r["welch_seen"] is not None and r["welch_seen"] < 0.05
        ]
        tested = sum(r["welch_seen"] is not None for r in sig)
        if hits:
            out.append(f"Against Outcome on seen tasks, Welch's test gives p < 0.05 for: {', '.join(hits)}.")
        elif tested:
            out.append(f"No setting differs from Outcome on seen tasks at p < 0.05 (Welch, {tested} tested).")
        else:
            out.append("Too few seeds for Welch's test against Outcome.")
    for a_name, b_name in _PAIRS:
        if a_name in agg and b_name in agg:
            sa, sb = agg[a_name].metrics["steps_seen"], agg[b_name].metrics["steps_seen"]
            if sa.mean is None or sb.mean is None:
                continue
            d = sb.mean - sa.mean
            verb = "did not change" if abs(d) < 0.05 else "reduced" if d < 0 else "increased"
            msg = (
                f"{agg[b_name].label} {verb} the mean steps of successful seen episodes relative to "
                f"{agg[a_name].label}: {sa.mean:.2f} → {sb.mean:.2f} ({d:+.2f} steps, {100 * d / sa.mean:+.0f}%)"
            )
            spread = [s for s in (sa.std, sb.std) if s is not None]
            if spread and verb != "did not change":
                within = abs(d) <= max(spread)
                msg += f", {'within' if within else 'beyond'} the seed-to-seed std ({max(spread):.2f})"
            out.append(msg + ".")
    if "progress-env" in agg and "progress-lcs" in agg:
        e, lcs = agg["progress-env"].mean("seen_all"), agg["progress-lcs"].mean("seen_all")
        if e is not None and lcs is not None:
            out.append(
                f"ProgRM LCS {_compare(lcs, e, 0.005)} ProgRM Env on seen success ({100 * lcs:.1f}% vs {100 * e:.1f}%)."
            )
    me, ml = data.models.get("progress-env"), data.models.get("progress-lcs")
    if me and ml and me.status == ml.status == "ok":
        ke, kl = _num(me.metrics.get("key_step_mae")), _num(ml.metrics.get("key_step_mae"))
        if ke is not None and kl is not None:
            cmp = "lower" if kl < ke else "higher" if kl > ke else "equal"
            out.append(f"The LCS progress model's key-step MAE is {cmp} than the Env model's ({kl:.3f} vs {ke:.3f}).")
    if "milestone-static" in agg and "milestone-adaptive" in agg:
        s, a = agg["milestone-static"], agg["milestone-adaptive"]
        if s.mean("seen_all") is not None and a.mean("seen_all") is not None:
            msg = (
                f"{a.label} {_compare(a.mean('seen_all'), s.mean('seen_all'), 0.005)} {s.label} on "
                f"seen success ({100 * a.mean('seen_all'):.1f}% vs {100 * s.mean('seen_all'):.1f}%)"
            )
            if a.mean("coverage") is not None and s.mean("coverage") is not None:
                msg += (
                    f"; final milestone coverage {100 * a.mean('coverage'):.0f}% (adaptive) vs "
                    f"{100 * s.mean('coverage'):.0f}% (static)"
                )
            out.append(msg + ".")
    if "milestone-adaptive" in agg and (full := agg["milestone-adaptive"].mean("seen_all")) is not None:
        abl = [
            (a, v - full)
            for a in agg.settings.values()
            if a.group == "ablation" and (v := a.mean("seen_all")) is not None
        ]
        if abl:
            abl.sort(key=lambda x: -x[1])
            out.append(
                "Against full ADMIRE, the ablations change seen success by: "
                + ", ".join(f"{a.label} {100 * d:+.1f} pp" for a, d in abl)
                + "."
            )
    bad = [r for r in data.runs if not r.done]
    if bad:
        by = Counter(r.status for r in bad)
        out.append(
            f"{len(bad)} of {len(data.runs)} runs did not finish ("
            + ", ".join(f"{n} {s}" for s, n in sorted(by.items()))
            + "); see Runs."
        )
    return out


def _reading_section(data: StudyData, agg: Aggregates, sig: list[dict[str, Any]], reading: str | None) -> list[str]:
    lines = ["## Reading", ""]
    if reading:
        return [*lines, reading.strip()]
    lines.append("_No reading written yet. Generated from the numbers above:_")
    lines.append("")
    return lines + [f"- {s}" for s in auto_reading(data, agg, sig)]


def _raw_section(data: StudyData) -> list[str]:
    out = str(data.out)
    return [
        "## Raw data",
        "",
        f"Everything above is computed from the files under `{out}`:",
        "",
        "- `study.json`: mode, command, configuration, times, machine",
        "- `runs/<setting>/seed<k>/status.json`: run status, error, iterations, milestone coverage and hit counts",
        "- `runs/<setting>/seed<k>/eval.jsonl`: one line per evaluation episode (before and after training)",
        "- `runs/<setting>/seed<k>/metrics.jsonl`: the trainer's per-iteration metrics",
        "- `models/<name>/eval.json`: reward-model evaluations",
        "- `plots/`: the learning curves above",
        "",
        "Rebuild this report from them with:",
        "",
        "```",
        f"gui-gym study --report-only --out {out}",
        "```",
    ]


# -- plots ---------------------------------------------------------------------------------


def _curve(rows: Sequence[dict[str, Any]], key: str) -> dict[float, float]:
    """x -> value; evaluations sit after their iteration's update (x = iteration + 1), rollouts before (x = iteration).

    That is, x counts the policy updates made before the measurement, as in :mod:`agents.plot`.
    """
    shift = 1 if key.startswith("eval_") else 0
    out = {}
    for r in rows:
        v = _num(r.get(key))
        if v is not None and (shift or r["iteration"] >= 0):
            out[max(float(r["iteration"]) + shift, 0.0)] = v
    return out


def _band(curves: Sequence[dict[float, float]]) -> tuple[list[float], list[float], list[float]]:
    xs = sorted({x for c in curves for x in c})
    means, stds = [], []
    for x in xs:
        vals = [c[x] for c in curves if x in c]
        means.append(statistics.fmean(vals))
        stds.append(statistics.stdev(vals) if len(vals) > 1 else 0.0)
    return xs, means, stds


def _figure(ncols: int, width: float) -> Any:
    # an explicit Agg canvas: no pyplot, so no global backend state and nothing left open
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 4.0))
    FigureCanvasAgg(fig)
    return fig, fig.subplots(1, ncols, squeeze=False)[0]


def _plot_setting(data: StudyData, a: SettingAggregate, path: Path) -> None:
    fig, axes = _figure(2, 11)
    for ax, key, title in (
        (axes[0], "eval_success_rate", "success at held-out seeds (learning-curve eval)"),
        (axes[1], "success_rate", "success of training rollouts"),
    ):
        done = []
        for run in data.runs_of(a.name):
            c = _curve(run.metrics, key)
            if not c:
                continue
            xs = sorted(c)
            ax.plot(
                xs,
                [c[x] for x in xs],
                lw=0.8,
                alpha=0.5,
                ls="-" if run.done else ":",
                label=f"seed {run.seed}" + ("" if run.done else f" ({run.status})"),
            )
            if run.done:
                done.append(c)
        if done:
            xs, m, s = _band(done)
            ax.plot(xs, m, color="black", lw=2, label=f"mean of {len(done)}")
            ax.fill_between(
                xs,
                [v - d for v, d in zip(m, s, strict=True)],
                [v + d for v, d in zip(m, s, strict=True)],
                color="black",
                alpha=0.12,
                lw=0,
            )
        else:
            ax.text(0.5, 0.5, "no finished run with this curve", ha="center", va="center", transform=ax.transAxes)
        ax.set(title=title, xlabel="policy updates (iterations completed)", ylabel="success rate", ylim=(-0.02, 1.02))
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"{a.label}  [{a.name}]")
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def _plot_overview(data: StudyData, agg: Aggregates, path: Path) -> None:
    import matplotlib

    fig, (ax,) = _figure(1, 9)
    cmap = matplotlib.colormaps["tab10" if len(agg.settings) <= 10 else "tab20"]
    drawn = 0
    for i, a in enumerate(agg.settings.values()):
        curves = [c for r in data.runs_of(a.name) if r.done and (c := _curve(r.metrics, "eval_success_rate"))]
        if not curves:
            continue
        xs, m, s = _band(curves)
        color = cmap(i % cmap.N)
        ax.plot(xs, m, color=color, marker="o", ms=3, label=f"{a.label} (n={len(curves)})")
        ax.fill_between(
            xs,
            [v - d for v, d in zip(m, s, strict=True)],
            [v + d for v, d in zip(m, s, strict=True)],
            color=color,
            alpha=0.12,
            lw=0,
        )
        drawn += 1
    if not drawn:
        ax.text(
            0.5,
            0.5,
            "no finished run with learning-curve evaluations",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    ax.set(
        title="success at held-out seeds of the training tasks (mean ± std over seeds)",
        xlabel="policy updates (iterations completed)",
        ylabel="success rate",
        ylim=(-0.02, 1.02),
    )
    ax.grid(alpha=0.3)
    if drawn:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=100, bbox_inches="tight")  # the legend sits outside the axes


# -- the report ----------------------------------------------------------------------------


def write_report(out: str | os.PathLike[str], reading: str | None = None) -> Path:
    """Write ``OUT/reward_study.md`` and ``OUT/plots/*.png`` from the raw files; returns the Markdown's path."""
    data = load_study(out)
    agg = aggregate(data)
    sig = significance(agg)
    plots = data.out / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    for a in agg.settings.values():
        _plot_setting(data, a, plots / f"{a.name}.png")
    _plot_overview(data, agg, plots / OVERVIEW_PNG)
    sections = (
        _header(data),
        _success_section(data, agg, sig),
        _significance_section(agg, sig),
        _steps_section(data, agg),
        _milestone_section(data, agg),
        _ablation_section(agg),
        _progrm_section(data, agg),
        _runs_section(data),
        _reading_section(data, agg, sig, reading),
        _raw_section(data),
    )
    text = "\n\n".join("\n".join(s) for s in sections) + "\n"
    path = data.out / REPORT_NAME
    tmp = path.with_suffix(".md.tmp")  # a reader never sees half a report
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path
