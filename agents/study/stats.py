"""The reward-shaping study's numbers, computed from a loaded :class:`~agents.study.data.StudyData`.

:func:`aggregate` turns the runs into per-setting numbers (fractions, mean and sample std over
training seeds); :func:`summary_table` flattens them into one dict per row; :func:`milestone_hit_counts`
sums the milestone hits of a setting's runs.

What the study tests is declared here, before any result: :data:`PRIMARY` (one comparison per
paper's headline claim) and :data:`SECONDARY` (the papers' other claims, the study's own controls),
each a Holm family (:func:`families`). A comparison is a paired t-test on the training seeds both
settings ran (:func:`paired_t`; the runs share seeds, tasks and evaluation seeds), with Student's t
interval below :data:`BCA_MIN_N` pairs and a BCa bootstrap from it on; power and the minimum
detectable effect are those of Holm's first step, α/m, by the noncentral t (:func:`paired_power`,
:func:`min_detectable_effect`, :func:`seeds_needed`). :func:`vs_baseline` describes every setting
against Outcome without a test. scipy is optional (:func:`scipy_stats`): without it nothing is tested.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.study.data import TIERS, StudyData, num

__all__ = [
    "ALPHA",
    "BCA_MIN_N",
    "ENDPOINT",
    "FAMILIES",
    "METRICS",
    "PRIMARY",
    "SECONDARY",
    "TABLE4_COLUMNS",
    "TARGET_EFFECT",
    "TARGET_POWER",
    "Aggregates",
    "Comparison",
    "ComparisonResult",
    "FamilyResult",
    "PairedTest",
    "SettingAggregate",
    "Stat",
    "aggregate",
    "bca_interval",
    "compare_family",
    "families",
    "holm",
    "mean_interval",
    "milestone_hit_counts",
    "min_detectable_effect",
    "paired",
    "paired_power",
    "paired_t",
    "seeds_needed",
    "summary_table",
    "t_interval",
    "table4",
    "vs_baseline",
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


#: ADMIRE Table 4's columns per text family, and the held-out split's (Table 4 reports none).
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


def holm(pvalues: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None stays None and is not counted).

    Sorted p_(1) ≤ … ≤ p_(m): p̃_(i) = max_{j ≤ i} min(1, (m − j + 1)·p_(j)). Tied p-values get the
    same adjusted value (the running maximum carries the first one's over the rest).

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


#: From this many paired seeds on, intervals are BCa bootstrap ones; below it, Student's t. A
#: bootstrap resamples the few values it has, so with 5 seeds its percentile interval is about as
#: narrow as a t interval with n (not n − 1) in the denominator and z for t: too narrow.
BCA_MIN_N = 15


def _sd(values: Sequence[float]) -> float:
    """The sample std (ddof 1), exactly 0 where the values differ only by rounding (1/3 − 1/6 against 1/6)."""
    sd = statistics.stdev(values)
    return 0.0 if sd <= 1e-12 * max(1.0, max(abs(v) for v in values)) else sd


def t_interval(values: Sequence[float], level: float = 0.95) -> tuple[float, float] | None:
    """Student's t interval of the mean: x̄ ± t_{(1+level)/2, n−1} · s/√n (None below two values or without scipy).

    >>> t_interval([0.1, 0.1, 0.1])
    (0.1, 0.1)
    """
    stats = scipy_stats()
    if len(values) < 2 or stats is None:
        return None
    n, mean = len(values), statistics.fmean(values)
    half = float(stats.t.ppf((1 + level) / 2, n - 1)) * _sd(values) / math.sqrt(n)
    return round(mean - half, 12), round(mean + half, 12)


def bca_interval(
    values: Sequence[float], level: float = 0.95, n_resamples: int = 10_000, seed: int = 0
) -> tuple[float, float] | None:
    """The bias-corrected and accelerated bootstrap interval of the mean (Efron 1987; ``scipy.stats.bootstrap``),
    for :data:`BCA_MIN_N` values or more; None below two values or without scipy."""
    stats = scipy_stats()
    if len(values) < 2 or stats is None:
        return None
    if _sd(values) == 0:  # every resample has the same mean: the interval is that point (BCa's z0 is undefined)
        mean = statistics.fmean(values)
        return round(mean, 12), round(mean, 12)
    import numpy as np

    res = stats.bootstrap((np.asarray(values, dtype=float),), np.mean, confidence_level=level,
                          n_resamples=n_resamples, method="BCa", random_state=np.random.default_rng(seed))  # fmt: skip
    return round(float(res.confidence_interval.low), 12), round(float(res.confidence_interval.high), 12)


def mean_interval(values: Sequence[float], level: float = 0.95) -> tuple[tuple[float, float] | None, str]:
    """The interval of the mean valid at this many values, and how it was made: ``"t"`` below
    :data:`BCA_MIN_N` values, ``"BCa"`` from it on."""
    if len(values) >= BCA_MIN_N:
        return bca_interval(values, level), "BCa"
    return t_interval(values, level), "t"


@dataclass(frozen=True)
class PairedTest:
    """The paired t-test of per-seed differences d_1..d_n against 0: t = d̄ / (s/√n) on n − 1 degrees
    of freedom, two-sided p = 2·P(T_{n−1} > |t|), with the interval of d̄ (:func:`mean_interval`).

    ``t`` and ``p`` are None below two pairs, without scipy, or when the differences do not vary
    (t is then undefined); ``sd`` is the differences' sample std (ddof 1)."""

    n: int
    mean: float | None
    sd: float | None
    t: float | None
    p: float | None
    ci: tuple[float, float] | None
    interval: str = "t"


def paired_t(diffs: Sequence[float], level: float = 0.95) -> PairedTest:
    """:class:`PairedTest` of ``diffs`` (e.g. :func:`paired`'s)."""
    n = len(diffs)
    mean = statistics.fmean(diffs) if diffs else None
    stats = scipy_stats()
    if n < 2 or stats is None:
        return PairedTest(n, mean, None, None, None, None)
    sd = _sd(diffs)
    ci, how = mean_interval(diffs, level)
    if sd == 0:
        return PairedTest(n, mean, sd, None, None, ci, how)
    t = mean / (sd / math.sqrt(n))
    return PairedTest(n, mean, sd, t, float(2 * stats.t.sf(abs(t), n - 1)), ci, how)


def paired_power(effect: float, sd: float, n: int, alpha: float = 0.05, m: int = 1) -> float | None:
    """Power of the two-sided paired t-test at level α/m (Holm's first step in a family of m tests,
    the strictest, so a lower bound on Holm's power for the smallest p) to find a true mean difference
    ``effect`` between pairs whose differences have std ``sd``, over ``n`` pairs:

    1 − F(c; n − 1, δ) + F(−c; n − 1, δ), with c = t_{1−α/(2m), n−1} and F the noncentral t CDF of
    noncentrality δ = effect·√n / sd. None without scipy, below two pairs or without spread.
    """
    stats = scipy_stats()
    if stats is None or n < 2 or not sd > 0:
        return None
    df, delta = n - 1, effect * math.sqrt(n) / sd
    c = float(stats.t.ppf(1 - alpha / (2 * m), df))
    # F(−c; δ) as 1 − F(c; −δ) (−T is noncentral t of −δ): scipy's lower tail turns NaN far out, its upper does not
    return float(stats.nct.sf(c, df, delta) + stats.nct.sf(c, df, -delta))


def min_detectable_effect(std: float, n: int, alpha: float = 0.05, power: float = 0.8, m: int = 1) -> float | None:
    """The smallest mean paired difference that the two-sided paired t-test at α/m finds with
    ``power``, for ``n`` pairs whose differences have std ``std``: the root of
    :func:`paired_power` (effect) = power (exact, by the noncentral t; the textbook
    (t_{1−α/2m} + t_{power}) · std/√n is that root's central-t approximation, a little optimistic at
    few pairs). None without scipy, below two pairs or without spread."""
    if paired_power(0.0, std, n, alpha, m) is None:
        return None
    from scipy.optimize import brentq

    def short(effect: float) -> float:  # how far the power at ``effect`` falls short of ``power``
        return power - (paired_power(effect, std, n, alpha, m) or 0.0)

    hi = std  # widen until the bracket holds the root: power rises with the effect
    while short(hi) > 0:
        hi *= 2
    return float(brentq(short, 0.0, hi, xtol=1e-12))


def seeds_needed(sd: float, effect: float = 4.0, alpha: float = 0.05, m: int = 1, power: float = 0.8) -> int | None:
    """The smallest number of paired seeds n ≥ 2 at which the paired t-test at α/m (Holm's first step
    in a family of m) reaches ``power`` against a true difference ``effect``, the paired differences
    having std ``sd`` (the same unit as ``effect``): :func:`paired_power` rises with n, so the first n
    past the target is found by doubling, then bisection. None without scipy."""
    if effect == 0:
        raise ValueError("no number of seeds detects an effect of 0")
    if scipy_stats() is None:
        return None
    if sd <= 0:
        return 2  # no spread: any difference shows with the fewest pairs a t-test takes

    def enough(n: int) -> bool:
        return (paired_power(abs(effect), sd, n, alpha, m) or 0.0) >= power

    lo, hi = 1, 2  # invariant: not enough at lo (or lo < 2), enough at hi
    while not enough(hi):
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if enough(mid) else (mid, hi)
    return hi


# -- the declared comparisons ---------------------------------------------------------------

#: What every family tests: trained success on the training tasks at held-out seeds (fraction).
ENDPOINT = "seen_all"
#: The family-wise error rate each family keeps (Holm), the effect power is computed for (4 pp, the
#: size of the papers' headline gaps: ADMIRE Table 1 +4.3, ProgRM Table 1 +3.3) and the power sought.
ALPHA, TARGET_EFFECT, TARGET_POWER = 0.05, 0.04, 0.8


@dataclass(frozen=True)
class Comparison:
    """One declared test: ``setting`` minus ``baseline`` on :data:`ENDPOINT`, paired over training seeds."""

    setting: str
    baseline: str
    label: str  # how the tables name it
    claim: str  # the paper's claim it tests, with where the paper shows it


#: One comparison per paper's headline claim, each against the control that differs from it only in
#: what the paper proposes, corrected together (Holm). Chosen before the results, not after:
#:
#: - ADMIRE trains every reward, Outcome included, with step-level GRPO (§3.3, Eq. 12-13), so its
#:   control is ``outcome-step``, not trajectory-level ``outcome``.
#: - MobileRL's AdaGRPO (SPA, AdaPR, FCF) against GRPO. The paper has no plain-GRPO row: Fig. 4c's
#:   "w/o AdaGRPO" (56.8) is the reasoning-SFT model without RL (Fig. 4a's row), and the nearest is
#:   "w/o AdaPR & SPA" (58.5, FCF kept).
#: - ProgRM's baseline is a learned outcome reward model ("w/ ORM", Table 1), never the env's own
#:   check, so ProgRM Env is tested against ``orm@paper``, both trained by REINFORCE++ (§2.4).
#: - EMPO and UI-Mem against vanilla GRPO, their tables' baseline.
PRIMARY: tuple[Comparison, ...] = (
    Comparison("milestone-adaptive@paper", "outcome-step", "ADMIRE vs Outcome, both step-level GRPO",
               "ADMIRE Table 1: adaptive milestones beat the outcome reward under the same step-level GRPO "
               "(AndroidWorld 44.0 vs 39.7, 7B; 31.0 vs 26.7, 3B)"),
    Comparison("spa@paper", "outcome", "AdaGRPO + SPA vs GRPO",
               "MobileRL §2.2 / Fig. 4c: AdaGRPO improves on GRPO (71.1; without AdaPR and SPA 58.5)"),
    Comparison("progress-env@paper", "orm@paper", "ProgRM Env vs ORM, both REINFORCE++",
               "ProgRM Table 1: the Env progress model beats the outcome reward model (SR 62.00 vs 58.67)"),
    Comparison("empo", "outcome", "EMPO vs GRPO",
               "EMPO Table 2: EMPO beats vanilla GRPO on the same trajectories (AndroidWorld 30.4 vs 15.7, 7B)"),
    Comparison("uimem", "outcome", "UI-Mem vs GRPO",
               "UI-Mem Table 3: memory-guided RL beats vanilla GRPO (AndroidWorld 66.8 vs 53.0)"),
)  # fmt: skip

#: The papers' other claims this study can test, and its own controls, as a second Holm family.
SECONDARY: tuple[Comparison, ...] = (
    Comparison("admire-base-success@paper", "milestone-adaptive@paper", "ADMIRE w/ base reward on success vs full",
               "ADMIRE §5.3 / Fig. 4 (variants: App. B.3): a base reward on successes lowers success"),
    Comparison("admire-no-base-failure@paper", "milestone-adaptive@paper",
               "ADMIRE w/o base reward on failure vs full",
               "ADMIRE §5.3 / Fig. 4: removing the base reward on failures costs the most"),
    Comparison("admire-no-decay@paper", "milestone-adaptive@paper", "ADMIRE w/o reward decay vs full",
               "ADMIRE §5.3 / Fig. 4: removing the decay costs nothing (62.0 on MobileMiniWob++)"),
    Comparison("milestone-adaptive@paper", "milestone-static@paper", "adaptive vs static milestones",
               "ADMIRE Table 3: adaptive milestones beat static human-annotated ones (44.0 vs 41.4, 7B)"),
    Comparison("milestone-adaptive@paper", "milestone-cosine@paper", "guarded matcher vs pure cosine",
               "ADMIRE Eq. 8-9 match by cosine similarity alone, δ = 0.75 (App. A.1.2, B.4.2); this study's "
               "default matcher normalises the texts and vetoes lexical mismatches at δ = 0.42, a change of its own "
               "whose effect on success is tested here"),
    Comparison("outcome-step", "outcome", "step-level vs trajectory-level GRPO (Outcome)",
               "ADMIRE §3.3: GRPO extended to the step level (Eq. 12-13); the optimiser's own effect"),
    Comparison("progress-env@paper", "progress-lcs@paper", "ProgRM Env vs LCS",
               "ProgRM Table 1: Env labels beat LCS labels (SR 62.00 vs 59.33)"),
    Comparison("progress-lcs@paper", "orm@paper", "ProgRM LCS vs ORM",
               "ProgRM Table 1: LCS labels beat the outcome reward model (SR 59.33 vs 58.67)"),
)  # fmt: skip

FAMILIES: dict[str, tuple[Comparison, ...]] = {"primary": PRIMARY, "secondary": SECONDARY}


@dataclass
class ComparisonResult:
    """A declared comparison on a study: the paired test on :data:`ENDPOINT` (``seen``), the unseen
    split's paired difference (``unseen``: described, not tested), Holm's p within its family, the
    power of Holm's first step at the family's target effect with this comparison's own paired std,
    and the paired seeds that power would take with every comparison of the family tested."""

    comparison: Comparison
    seen: PairedTest | None  # None when the study lacks a setting (``missing``)
    unseen: PairedTest | None
    missing: tuple[str, ...] = ()
    p_holm: float | None = None
    power: float | None = None
    seeds_needed: int | None = None  # paired seeds for the target power with all the family's comparisons tested

    @property
    def tested(self) -> bool:
        return self.seen is not None and self.seen.p is not None

    def why_untested(self) -> str | None:
        """Why this comparison has no p-value (None when it has one)."""
        if self.missing:
            return "not available: the study has no " + " or ".join(f"`{n}`" for n in self.missing) + " runs"
        assert self.seen is not None
        if self.seen.n < 2:
            return f"not tested: {self.seen.n} paired seed(s)"
        if self.seen.p is None:
            return "not tested: " + ("scipy is not installed" if scipy_stats() is None else "no spread")
        return None


@dataclass
class FamilyResult:
    """A family's comparisons, Holm-corrected together over those this study could test (``m``);
    power and the minimum detectable effect (at ``target_power``) of Holm's first step, α/m, at the
    median paired std and median number of paired seeds of the tested comparisons; and the paired seeds
    that would give ``target_power`` at ``effect`` with every declared comparison tested (α/declared)."""

    name: str
    results: list[ComparisonResult]
    alpha: float = ALPHA
    effect: float = TARGET_EFFECT
    target_power: float = TARGET_POWER
    sd: float | None = None
    n: int | None = None
    power: float | None = None
    mde: float | None = None
    seeds_needed: int | None = None

    @property
    def m(self) -> int:
        return sum(r.tested for r in self.results)

    @property
    def declared(self) -> int:
        return len(self.results)

    def significant(self) -> list[ComparisonResult]:
        return [r for r in self.results if r.p_holm is not None and r.p_holm < self.alpha]


def compare_family(
    agg: Aggregates,
    name: str,
    comparisons: Sequence[Comparison],
    alpha: float = ALPHA,
    effect: float = TARGET_EFFECT,
    power: float = TARGET_POWER,
) -> FamilyResult:
    """Each comparison's paired t-test on :data:`ENDPOINT`, Holm over the family's tested ones."""
    results = []
    for c in comparisons:
        missing = tuple(n for n in (c.setting, c.baseline) if n not in agg)
        if missing:  # said so in the report: never a silent fallback to another control
            results.append(ComparisonResult(c, None, None, missing))
            continue
        a, b = agg[c.setting].metrics, agg[c.baseline].metrics
        results.append(ComparisonResult(c, paired_t(paired(a[ENDPOINT], b[ENDPOINT])),
                                         paired_t(paired(a["unseen_all"], b["unseen_all"]))))  # fmt: skip
    tests = [r.seen if r.tested and r.seen is not None else None for r in results]
    for r, p in zip(results, holm([t.p if t else None for t in tests]), strict=True):
        r.p_holm = p
    fam = FamilyResult(name, results, alpha, effect, power)
    done = [t for t in tests if t is not None and t.sd is not None]
    m = len(done)
    for r, t in zip(results, tests, strict=True):
        if t is not None and t.sd is not None:
            r.power = paired_power(effect, t.sd, t.n, alpha, m)
            r.seeds_needed = seeds_needed(t.sd, effect, alpha, len(results), power)
    if done:
        fam.sd = statistics.median(t.sd for t in done if t.sd is not None)
        fam.n = int(statistics.median(t.n for t in done))
        fam.power = paired_power(effect, fam.sd, fam.n, alpha, m)
        fam.mde = min_detectable_effect(fam.sd, fam.n, alpha, power, m)
        fam.seeds_needed = seeds_needed(fam.sd, effect, alpha, len(results), power)
    return fam


def families(agg: Aggregates, **kwargs: Any) -> dict[str, FamilyResult]:
    """:data:`FAMILIES`, each tested by :func:`compare_family` on ``agg``."""
    return {name: compare_family(agg, name, comps, **kwargs) for name, comps in FAMILIES.items()}


def vs_baseline(agg: Aggregates, baseline: str = "outcome") -> list[dict[str, Any]]:
    """Every other setting against ``baseline``, described, not tested (tests are the declared
    families' alone): per split, the mean paired difference over the seeds both ran with its interval
    (:func:`paired_t`'s ``mean``, ``ci``, ``n``) as ``seen``/``unseen``, and ``counts_<split>``, the
    (successes, episodes) pooled over the setting's and the baseline's finished runs. Empty when the
    study has no ``baseline`` setting."""
    if baseline not in agg:
        return []
    ref = agg[baseline]
    out = []
    for name, a in agg.settings.items():
        if name == baseline:
            continue
        row: dict[str, Any] = {"setting": name}
        for split in ("seen", "unseen"):
            row[split] = paired_t(paired(a.metrics[f"{split}_all"], ref.metrics[f"{split}_all"]))
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
