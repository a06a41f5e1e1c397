"""The study's statistics by hand: the paired t-test and its interval, Holm's step-down (ties included),
the power of Holm's first step by the noncentral t, the minimum detectable effect, the seeds a power
needs, and the declared comparisons (agents/study/stats.py)."""

from __future__ import annotations

import math
import random

import pytest

from agents.study.settings import setting
from agents.study.stats import (
    BCA_MIN_N,
    FAMILIES,
    PRIMARY,
    SECONDARY,
    Stat,
    bca_interval,
    holm,
    mean_interval,
    min_detectable_effect,
    paired,
    paired_power,
    paired_t,
    seeds_needed,
    t_interval,
)


def test_paired_t_by_hand() -> None:
    # d = 1, 2, 3, 6: mean 3, squared deviations 4 + 1 + 0 + 9 = 14, s = √(14/3) = 2.16025, s/√4 = 1.08012,
    # t = 3 / 1.08012 = 2.77746 on 3 df
    t = paired_t([1.0, 2.0, 3.0, 6.0])
    assert (t.n, t.mean, t.interval) == (4, 3.0, "t")
    assert t.sd == pytest.approx(math.sqrt(14 / 3)) and t.t == pytest.approx(2.77746, abs=1e-5)
    # Student's t on 3 df in closed form: P(|T| > t) = 1 − (2/π)(x/(1 + x²) + atan x), x = t/√3
    x = t.t / math.sqrt(3)
    assert t.p == pytest.approx(1 - 2 / math.pi * (x / (1 + x * x) + math.atan(x)), abs=1e-12)
    assert t.p == pytest.approx(0.0691, abs=1e-4)  # between the table's 0.05 (3.182) and 0.10 (2.353)
    # on 2 df: P(|T| > t) = 1 − t/√(t² + 2); d = 0.5, 0.5, 0.75 has t = 7.0
    assert paired_t([0.5, 0.5, 0.75]).p == pytest.approx(1 - 7 / math.sqrt(51), abs=1e-12)


def test_paired_t_without_a_test() -> None:
    assert paired_t([]).mean is None and paired_t([]).ci is None
    one = paired_t([0.2])
    assert (one.n, one.mean, one.p, one.ci) == (1, 0.2, None, None)
    # 6/6 − 4/6 and 5/6 − 3/6 differ only by rounding: no spread, so t is undefined, the interval a point
    flat = paired_t([6 / 6 - 4 / 6, 5 / 6 - 3 / 6])
    assert flat.sd == 0 and flat.t is None and flat.p is None and flat.ci == (pytest.approx(1 / 3),) * 2


def test_t_interval_by_hand() -> None:
    # 3 ± t_{0.975,3} · 1.08012 = 3 ± 3.1824 · 1.08012 = 3 ± 3.4374 (t_{0.975,3} = 3.182 in any table)
    lo, hi = t_interval([1.0, 2.0, 3.0, 6.0])
    assert lo == pytest.approx(3 - 3.1824 * 1.08012, abs=1e-3) and hi == pytest.approx(3 + 3.1824 * 1.08012, abs=1e-3)
    assert t_interval([0.1, 0.1, 0.1]) == (0.1, 0.1) and t_interval([0.1]) is None
    # 90 %: t_{0.95,3} = 2.353
    lo, hi = t_interval([1.0, 2.0, 3.0, 6.0], level=0.9)
    assert hi - 3 == pytest.approx(2.3534 * 1.08012, abs=1e-3)


def test_intervals_are_t_below_fifteen_pairs_and_bca_from_there() -> None:
    rng = random.Random(0)
    few = [rng.gauss(0.02, 0.03) for _ in range(BCA_MIN_N - 1)]
    many = [rng.gauss(0.02, 0.03) for _ in range(BCA_MIN_N)]
    assert mean_interval(few) == (t_interval(few), "t")
    ci, how = mean_interval(many)
    assert how == "BCa" and ci == bca_interval(many) and paired_t(many).interval == "BCa"
    mean = sum(many) / len(many)
    assert ci[0] < mean < ci[1] and ci == bca_interval(many)  # holds the mean; reproducible (seeded)
    assert bca_interval([0.1] * BCA_MIN_N) == (0.1, 0.1) and bca_interval([0.1]) is None


def test_holm_by_hand() -> None:
    # sorted 0.001, 0.02, 0.04, 0.3 (m = 4): ×4, ×3, ×2, ×1 = 0.004, 0.06, 0.08, 0.3, kept monotone
    assert holm([0.04, 0.001, 0.3, 0.02]) == [0.08, 0.004, 0.3, 0.06]
    assert holm([0.5, 0.6]) == [1.0, 1.0] and holm([None, 0.01]) == [None, 0.01] and holm([]) == []


def test_holm_with_ties_by_hand() -> None:
    # sorted 0.01, 0.01, 0.03, 0.04 (m = 4): 4·0.01 = 0.04, 3·0.01 = 0.03 → kept at 0.04 (tied p, tied
    # adjusted p), 2·0.03 = 0.06, 1·0.04 = 0.04 → kept at 0.06
    assert holm([0.01, 0.04, 0.01, 0.03]) == [0.04, 0.06, 0.04, 0.06]
    # a tie at the top: 3·0.02 = 0.06 for all three
    assert holm([0.02, 0.02, 0.02]) == [0.06, 0.06, 0.06]


def test_paired_power_against_known_values() -> None:
    # no effect: the rejection rate is the level itself, α/m (noncentrality 0 is the central t)
    assert paired_power(0.0, 1.0, 5, 0.05, m=4) == pytest.approx(0.05 / 4, abs=1e-12)
    # G*Power, "t tests – means: difference from constant (one sample case)", d = 0.5, α = 0.05 two-tailed:
    # total sample size 34, actual power 0.8077775; d = 0.8: 15, 0.8213105
    assert paired_power(0.5, 1.0, 34) == pytest.approx(0.8077775, abs=1e-6)
    assert paired_power(0.8, 1.0, 15) == pytest.approx(0.8213105, abs=1e-6)
    # many pairs: the noncentral t tends to the normal, power ≈ Φ(δ − z_{0.975}); n = 400, d = 0.2: δ = 4
    normal = 0.5 * (1 + math.erf((4 - 1.959964) / math.sqrt(2)))
    assert paired_power(0.2, 1.0, 400) == pytest.approx(normal, abs=1e-3)
    # the figures: 5 seeds, paired SD 2.3 pp, 3.8 pp: about 0.79 for one test, 0.16 at Holm's
    # first step over 18 (α/18)
    assert paired_power(3.8, 2.3, 5) == pytest.approx(0.787, abs=1e-3)
    assert paired_power(3.8, 2.3, 5, m=18) == pytest.approx(0.157, abs=1e-3)
    assert paired_power(0.04, 0.023, 5, m=18) == pytest.approx(paired_power(4.0, 2.3, 5, m=18))  # unit-free
    assert paired_power(-0.5, 1.0, 34) == pytest.approx(paired_power(0.5, 1.0, 34))  # two-sided
    assert paired_power(0.5, 1.0, 1) is None and paired_power(0.5, 0.0, 5) is None


def test_minimum_detectable_effect_is_the_inverse_of_power() -> None:
    # n = 4, std 0.1: the central-t shortcut (t_{0.975,3} + t_{0.8,3}) · 0.1/2 = (3.1824 + 0.9785) · 0.05 = 0.2080
    # is optimistic: the exact effect (noncentral t) is larger, and has exactly 80 % power
    mde = min_detectable_effect(0.1, 4)
    assert mde == pytest.approx(0.2128, abs=1e-4) and mde > 0.2080
    assert paired_power(mde, 0.1, 4) == pytest.approx(0.8, abs=1e-9)
    # G*Power above: d = 0.5 at n = 34 has power 0.808 > 0.8, so the 80 % effect there is a little below 0.5
    assert 0.49 < min_detectable_effect(1.0, 34) < 0.5
    # a stricter level (Holm's first step over 5) needs a larger effect; more seeds a smaller one
    assert min_detectable_effect(0.1, 4, m=5) > mde > min_detectable_effect(0.1, 16)
    assert min_detectable_effect(0.1, 1) is None


def test_seeds_needed_by_hand() -> None:
    # pwr.t.test(d = 0.5, power = 0.8, type = "one.sample") gives n = 33.37, G*Power 34 (power 0.808 above,
    # 33 gives 0.795): the smallest whole number of pairs is 34; d = 0.8: 15 (14 gives 0.790)
    assert seeds_needed(1.0, 0.5) == 34 and paired_power(0.5, 1.0, 33) < 0.8
    assert seeds_needed(1.0, 0.8) == 15 and paired_power(0.8, 1.0, 14) < 0.8
    assert seeds_needed(2.0, 1.0) == 34  # only the ratio effect/sd matters
    # the defaults: 4 pp at one test; Holm's first step over 5 needs more, and is the first n past 80 %
    n = seeds_needed(2.0, m=5)
    assert n > seeds_needed(2.0) and paired_power(4.0, 2.0, n, m=5) >= 0.8 > paired_power(4.0, 2.0, n - 1, m=5)
    assert seeds_needed(0.0) == 2
    with pytest.raises(ValueError, match="effect of 0"):
        seeds_needed(1.0, effect=0.0)


def test_paired_differences_use_the_seeds_both_ran() -> None:
    a, b = Stat(), Stat()
    for seed, v in ((0, 0.5), (1, 0.75), (3, 1.0)):
        a.add(seed, v)
    for seed, v in ((0, 0.25), (1, 0.5), (2, 0.0)):
        b.add(seed, v)
    assert paired(a, b) == [0.25, 0.25]


def test_the_declared_comparisons() -> None:
    # one primary comparison per paper, named by the paper its claim cites
    papers = [c.claim.split()[0] for c in PRIMARY]
    assert papers == ["ADMIRE", "MobileRL", "ProgRM", "EMPO", "UI-Mem"]
    pairs = [(c.setting, c.baseline) for comps in FAMILIES.values() for c in comps]
    assert len(pairs) == len(set(pairs)) == len(PRIMARY) + len(SECONDARY)  # each in one family, once
    # ADMIRE against the same step-level optimiser; ProgRM against its own baseline, a learned ORM
    assert ("milestone-adaptive@paper", "outcome-step") in pairs and ("progress-env@paper", "orm@paper") in pairs
    # each ablation against full ADMIRE under ADMIRE's optimiser (App. B.3), not against Outcome
    ablations = [c for c in SECONDARY if c.setting.startswith("admire-")]
    assert len(ablations) == 3 and {c.baseline for c in ablations} == {"milestone-adaptive@paper"}
    for name in {n for pair in pairs for n in pair}:
        assert setting(name).name == name
