"""The reward-shaping study's numbers, computed from a loaded :class:`~agents.study.data.StudyData`.

:func:`aggregate` turns the runs into per-setting numbers (fractions, mean and sample std over
training seeds); :func:`summary_table` flattens them into one dict per row; :func:`significance`
tests each setting against Outcome (Welch's t-test over seeds, Fisher's exact test on pooled
episodes; scipy optional, see :func:`scipy_stats`); :func:`milestone_hit_counts` sums the
milestone hits of a setting's runs.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.study.data import TIERS, StudyData, num

__all__ = [
    "METRICS",
    "TABLE4_COLUMNS",
    "Aggregates",
    "SettingAggregate",
    "Stat",
    "aggregate",
    "bootstrap_ci",
    "holm",
    "milestone_hit_counts",
    "min_detectable_effect",
    "paired",
    "significance",
    "summary_table",
    "table4",
]


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
    # training rollouts over the last 20% of iterations: what the shaped reward paid against the
    # env's own success (a reward that pays without success is being exploited)
    "return_late",
    "train_success_late",
    "length_late",
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


def minus(a: float | None, b: float | None) -> float | None:
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


#: ADMIRE Table 4's ALFWorld columns, in its order: the six task types (a task id starts with its type).
ALFWORLD_TYPES = {
    "Pick": "pick_and_place_simple",
    "Clean": "pick_clean_then_place_in_recep",
    "Heat": "pick_heat_then_place_in_recep",
    "Cool": "pick_cool_then_place_in_recep",
    "Pick2": "pick_two_obj_and_place",
    "Look": "look_at_obj_in_light",
}


def _mean_score(rows: Sequence[dict[str, Any]]) -> float | None:
    """The mean final task score, where every row has one (rows written before scores were kept have none)."""
    scores = [r.get("score") for r in rows]
    return statistics.fmean(scores) if scores and all(v is not None for v in scores) else None


#: ADMIRE Table 4's columns per text family.
TABLE4_COLUMNS: dict[str, tuple[str, ...]] = {
    "ALFWorld": (*ALFWORLD_TYPES, "All", "Unseen"),
    "WebShop": ("Score", "Succ.", "Score (unseen)", "Succ. (unseen)"),
}


def _table4_values(family: str, rows: Sequence[dict[str, Any]]) -> dict[str, float | None]:
    """One run's ADMIRE Table 4 quantities (fractions) from its evaluation rows of one phase."""
    seen = [r for r in rows if r["split"] == "seen"]
    unseen = [r for r in rows if r["split"] == "unseen"]
    if family == "ALFWorld":
        out = {c: _rate([r for r in seen if r["task"].startswith(t)]) for c, t in ALFWORLD_TYPES.items()}
        return {**out, "All": _rate(seen), "Unseen": _rate(unseen)}
    return {"Score": _mean_score(seen), "Succ.": _rate(seen),
            "Score (unseen)": _mean_score(unseen), "Succ. (unseen)": _rate(unseen)}  # fmt: skip


def table4(data: StudyData) -> tuple[str | None, dict[str, dict[str, Stat]]]:
    """ADMIRE Table 4's columns (:data:`TABLE4_COLUMNS`) per setting over the finished seeds,
    ``"untrained"`` (the policy before RL) first: on ALFWorld, seen success per task type, overall
    and unseen; on WebShop, the mean task score (upstream's reward at Buy Now) and success (a
    score of 1), seen and unseen. ``(family, stats)``; ``(None, {})`` for the other families."""
    env_id = str((data.config.get("extra") or {}).get("env_id", "GuiAndroid-v0"))
    family = next((f for f in TABLE4_COLUMNS if env_id.startswith(f)), None)
    if family is None:
        return None, {}
    out: dict[str, dict[str, Stat]] = {"untrained": defaultdict(Stat)}
    for seed, rows in sorted(_untrained_by_seed(data).items()):
        for k, v in (_table4_values(family, rows) if rows else {}).items():
            out["untrained"][k].add(seed, v)
    for name in data.settings:
        out[name] = defaultdict(Stat)
        for run in data.runs_of(name):
            if run.done and run.usable:
                trained = [r for r in run.eval_rows if r["phase"] == "trained"]
                for k, v in _table4_values(family, trained).items():
                    out[name][k].add(run.seed, v)
    return family, out


#: Late-training aggregates: metric key → trainer metrics column.
LATE = {
    "hits_late": "milestone_hits",
    "hit_rate_late": "milestone_hit_rate",
    "return_late": "return",
    "train_success_late": "success_rate",
    "length_late": "mean_length",
}


def late_mean(rows: Sequence[dict[str, Any]], key: str) -> float | None:
    """Mean of ``key`` over the training rows of the last 20% of iterations (ADMIRE App. B.2's late phase)."""
    train = [r for r in rows if r["iteration"] >= 0]
    if not train:
        return None
    n_it = int(max(r["iteration"] for r in train)) + 1
    start = n_it - max(1, math.ceil(0.2 * n_it))
    vals = [v for r in train if r["iteration"] >= start and (v := num(r.get(key))) is not None]
    return statistics.fmean(vals) if vals else None


def aggregate(data: StudyData) -> Aggregates:
    """Per-setting numbers (fractions, not percent) over the finished seeds; see :data:`METRICS`."""
    base_rows = _untrained_by_seed(data)
    base = {seed: _per_split(rows) for seed, rows in base_rows.items() if rows}
    label = "Before RL (the warm start)" if data.config.get("warm_start") else "Untrained policy"
    untrained = SettingAggregate("untrained", label, "", "baseline", len(data.seeds), len(base))
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
            for key, column in LATE.items():
                agg.metrics[key].add(run.seed, late_mean(run.metrics, column))
            if not run.usable:
                shortfall["no eval"] += 1
                continue
            agg.finished += 1
            trained = [r for r in run.eval_rows if r["phase"] == "trained"]
            vals = _per_split(trained)
            b = base.get(run.seed, {})
            vals["delta_seen"] = minus(vals["seen_all"], b.get("seen_all"))
            vals["delta_unseen"] = minus(vals["unseen_all"], b.get("unseen_all"))
            vals["delta_steps"] = minus(vals["steps_seen"], b.get("steps_seen"))
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


def scipy_stats() -> Any:
    """``scipy.stats``, or None: scipy comes with the encoder's dependencies but the report must render without it."""
    try:
        from scipy import stats
    except ImportError:
        return None
    return stats


def _welch(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Two-sided Welch p-value; None when a group has fewer than two seeds or neither varies."""
    stats = scipy_stats()
    if len(a) < 2 or len(b) < 2 or stats is None:
        return None

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # zero variance in both groups: p is nan
        p = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return p if math.isfinite(p) else None


def _fisher(a: tuple[int, int], b: tuple[int, int]) -> float | None:
    stats = scipy_stats()
    if a[1] == 0 or b[1] == 0 or stats is None:
        return None

    return float(stats.fisher_exact([[a[0], a[1] - a[0]], [b[0], b[1] - b[0]]], alternative="two-sided").pvalue)


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None stays None and is not counted).

    >>> holm([0.01, 0.04, 0.03, None])
    [0.03, 0.06, 0.06, None]
    """
    tested = sorted((p, i) for i, p in enumerate(pvalues) if p is not None)
    m, out, running = len(tested), list(pvalues), 0.0
    for rank, (p, i) in enumerate(tested):
        running = max(running, min(1.0, (m - rank) * p))  # monotone: never below an earlier one
        out[i] = round(running, 12)
    return out


def paired(a: Stat, b: Stat) -> list[float]:
    """``a − b`` on the training seeds both have (paired seeds: same tasks, same evaluation seeds)."""
    other = dict(zip(b.seeds, b.values, strict=True))
    return [v - other[s] for s, v in zip(a.seeds, a.values, strict=True) if s in other]


def bootstrap_ci(
    values: Sequence[float], level: float = 0.95, n: int = 10_000, seed: int = 0
) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of ``values`` (None for fewer than two).

    >>> bootstrap_ci([0.1, 0.1, 0.1])
    (0.1, 0.1)
    """
    if len(values) < 2:
        return None
    import numpy as np

    x = np.asarray(values, dtype=float)
    means = x[np.random.default_rng(seed).integers(0, len(x), size=(n, len(x)))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, (1 + level) / 2])
    return round(float(lo), 12), round(float(hi), 12)


def min_detectable_effect(std: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float | None:
    """The smallest mean paired difference a two-sided paired t-test at ``alpha`` detects with
    ``power``, for ``n`` seeds whose differences have standard deviation ``std``:
    (t_{1−α/2, n−1} + t_{power, n−1}) · std / √n (None without scipy or with fewer than two seeds).
    """
    stats = scipy_stats()
    if stats is None or n < 2:
        return None
    return float((stats.t.ppf(1 - alpha / 2, n - 1) + stats.t.ppf(power, n - 1)) * std / math.sqrt(n))


def _paired_t(diffs: Sequence[float]) -> float | None:
    stats = scipy_stats()
    if len(diffs) < 2 or stats is None:
        return None
    if statistics.pstdev(diffs) == 0:  # no spread: t is undefined, as for Welch's without variance
        return None
    return float(stats.ttest_1samp(diffs, 0.0).pvalue)


def significance(agg: Aggregates, baseline: str = "outcome") -> list[dict[str, Any]]:
    """Each setting vs ``baseline``: Welch's t-test on per-seed trained success, Fisher's exact on
    pooled episodes, and on the seeds both ran (paired seeds) a paired t-test, Holm-adjusted over
    the settings, with a bootstrap 95 % interval of the paired difference.

    Keys: ``setting``, ``diff_seen``/``diff_unseen`` (difference of means, fraction),
    ``welch_seen``/``welch_unseen``, ``fisher_seen``/``fisher_unseen`` (p-values, None = n/a),
    ``counts_seen``/``counts_unseen`` ((successes, episodes) of the setting and the baseline),
    ``paired_seen``/``paired_unseen`` (paired t-test p), ``holm_seen``/``holm_unseen`` (Holm-adjusted),
    ``ci_seen``/``ci_unseen`` (bootstrap interval of the mean paired difference) and
    ``pairs_seen``/``pairs_unseen`` (how many seeds were paired). Empty when the study has no
    ``baseline`` setting.
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
            row[f"diff_{split}"] = minus(sa.mean, sb.mean)
            row[f"welch_{split}"] = _welch(sa.values, sb.values)
            row[f"fisher_{split}"] = _fisher(a.counts[split], ref.counts[split])
            row[f"counts_{split}"] = (a.counts[split], ref.counts[split])
            diffs = paired(sa, sb)
            row[f"pairs_{split}"] = len(diffs)
            row[f"paired_{split}"] = _paired_t(diffs)
            row[f"ci_{split}"] = bootstrap_ci(diffs)
        out.append(row)
    for split in ("seen", "unseen"):
        for row, adjusted in zip(out, holm([r[f"paired_{split}"] for r in out]), strict=True):
            row[f"holm_{split}"] = adjusted
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
