"""The study's power tools by hand: Holm's adjustment, paired seeds, bootstrap intervals and the
minimum detectable effect of a paired t-test."""

from __future__ import annotations

import pytest

from agents.study.stats import Stat, bootstrap_ci, holm, min_detectable_effect, paired


def test_holm_by_hand() -> None:
    # sorted 0.001, 0.02, 0.04, 0.3 (m = 4): ×4, ×3, ×2, ×1 = 0.004, 0.06, 0.08, 0.3, kept monotone
    assert holm([0.04, 0.001, 0.3, 0.02]) == [0.08, 0.004, 0.3, 0.06]
    assert holm([0.5, 0.6]) == [1.0, 1.0] and holm([None, 0.01]) == [None, 0.01] and holm([]) == []


def test_paired_differences_use_the_seeds_both_ran() -> None:
    a, b = Stat(), Stat()
    for seed, v in ((0, 0.5), (1, 0.75), (3, 1.0)):
        a.add(seed, v)
    for seed, v in ((0, 0.25), (1, 0.5), (2, 0.0)):
        b.add(seed, v)
    assert paired(a, b) == [0.25, 0.25]


def test_bootstrap_interval_holds_the_mean_and_is_reproducible() -> None:
    values = [0.0, 0.1, 0.2, 0.3, 0.4]
    lo, hi = bootstrap_ci(values)
    assert lo < 0.2 < hi and (lo, hi) == bootstrap_ci(values)
    assert lo >= 0.0 and hi <= 0.4 and bootstrap_ci([1.0]) is None


def test_minimum_detectable_effect_by_hand() -> None:
    # n = 4, std 0.1: (t_{0.975,3} + t_{0.8,3}) · 0.1 / 2 = (3.1824 + 0.9785) · 0.05 = 0.2080
    assert min_detectable_effect(0.1, 4) == pytest.approx(0.2080, abs=1e-4)
    assert min_detectable_effect(0.1, 16) < min_detectable_effect(0.1, 4)  # more seeds, smaller effects
    assert min_detectable_effect(0.1, 1) is None
