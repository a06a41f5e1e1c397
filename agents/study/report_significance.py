"""The study report's tests: the Significance section (each declared Holm family of
:data:`~agents.study.stats.PRIMARY` / :data:`~agents.study.stats.SECONDARY`, and every setting against
Outcome, described), the ADMIRE ablations against full ADMIRE, and the words :func:`agents.study.report.auto_reading`
says of each family. Part of :mod:`agents.study.report`, which assembles the sections.
"""

from __future__ import annotations

from typing import Any

from agents.study.report_format import DASH, interval, md_table, n_cell, p_value, pct, pp
from agents.study.settings import PAPER
from agents.study.stats import Aggregates, ComparisonResult, FamilyResult, SettingAggregate, minus, scipy_stats

__all__ = ["ablation_section", "comparison_note", "family_sentences", "significance_section"]

#: The mark of a comparison whose Holm-corrected p < α, per family.
_MARKS = {"primary": "\\*", "secondary": "†"}
_FAMILY_TITLES = {
    "primary": (
        "Primary comparisons",
        "One comparison per paper's headline claim, each against the control that differs from it only in what "
        "the paper proposes",
    ),
    "secondary": (
        "Secondary comparisons",
        "The papers' other claims this study can test (ADMIRE's ablations against full ADMIRE under the same "
        "optimiser, adaptive against static milestones, ProgRM's order of reward models) and the study's own "
        "controls (its matcher against the paper's pure cosine, step-level against trajectory-level GRPO)",
    ),
}


def _family_section(name: str, fam: FamilyResult) -> list[str]:
    """One Holm family: the claims it tests, one row per comparison, and its power at the target effect."""
    title, what = _FAMILY_TITLES.get(name, (f"{name.capitalize()} comparisons", "Declared comparisons"))
    mark = _MARKS.get(name, "")
    lines = [f"### {title}", "", f"{what}, tested together (Holm over this family; {mark}: corrected p < "
             f"{fam.alpha:g}). The claims, as each paper shows them:", ""]  # fmt: skip
    for i, r in enumerate(fam.results, 1):
        c = r.comparison
        lines.append(f"{i}. **{c.label}** (`{c.setting}` − `{c.baseline}`): {c.claim}.")
    lines.append("")
    rows = []
    for i, r in enumerate(fam.results, 1):
        why, t, u = r.why_untested(), r.seen, r.unseen
        if t is None or u is None:  # a setting the study lacks: said, never replaced by another control
            rows.append([f"{i}. {r.comparison.label}", DASH, why, *[DASH] * 8])
            continue
        delta = pp(t.mean) + (mark if r.p_holm is not None and r.p_holm < fam.alpha else "")
        sd = DASH if t.sd is None else f"{100 * t.sd:.1f}"
        power = DASH if r.power is None else f"{r.power:.2f}"
        needed = DASH if r.seeds_needed is None else str(r.seeds_needed)
        p = p_value(t.p) if why is None else why
        rows.append([f"{i}. {r.comparison.label}", t.n, delta, interval(t.ci), sd, p, p_value(r.p_holm), power, needed,
                     pp(u.mean), interval(u.ci)])  # fmt: skip
    header = ("Comparison", "pairs", "Δ seen (pp)", "95% CI (seen)", "paired SD (pp)", "p", "p, Holm",
              f"power at {100 * fam.effect:g} pp", f"seeds for {100 * fam.target_power:.0f} %", "Δ unseen (pp)",
              "95% CI (unseen)")  # fmt: skip
    lines += md_table(header, rows)
    lines.append("")
    m, k = fam.m, fam.declared
    if m == 0:
        return [*lines, f"None of the {k} comparisons could be tested in this study (see the rows)."]
    a = fam.alpha / m
    note = (
        f"Holm over the {m} of {k} declared comparisons this study could test. Power is that of Holm's first (and "
        f"strictest) step, α/m = {fam.alpha:g}/{m} = {a:.4g}, two-sided, by the noncentral t with n − 1 degrees "
        f"of freedom, against a true difference of {100 * fam.effect:g} pp: in the rows with each comparison's own "
        "paired SD"
    )
    if fam.sd is not None and fam.n is not None and fam.power is not None:
        note += (
            f"; at the family's median paired SD, {100 * fam.sd:.1f} pp over {fam.n} paired seeds, it is "
            f"{fam.power:.2f}, and the smallest difference found with {100 * fam.target_power:.0f} % power is "
            f"{DASH if fam.mde is None else f'{100 * fam.mde:.1f}'} pp"
        )
    note += (
        f". Seeds for {100 * fam.target_power:.0f} %: the paired seeds that would give that power at "
        f"{100 * fam.effect:g} pp with all {k} comparisons tested (α/{k})"
    )
    if fam.seeds_needed is not None and fam.sd is not None:
        note += f"; at the median paired SD, {fam.seeds_needed}"
    return [*lines, note + "."]


def significance_section(agg: Aggregates, fams: dict[str, FamilyResult], rows: list[dict[str, Any]]) -> list[str]:
    lines = ["## Significance", ""]
    if scipy_stats() is None:
        lines += ["_scipy is not installed, so nothing is tested and no interval is computed._", ""]
    n_pairs = [r.seen.n for f in fams.values() for r in f.results if r.seen is not None and r.seen.n]
    small = not n_pairs or max(n_pairs) < 15
    lines.append(
        "What this study tests is declared in code before any result (`PRIMARY` and `SECONDARY` in "
        "`agents/study/stats.py`): trained success on the training tasks at held-out seeds (seen), one paired t-test "
        "per comparison on the training seeds both settings ran (they share tasks and evaluation seeds), each "
        "family Holm-corrected on its own. Δ is the mean paired difference in percentage points with its 95 % "
        + ("Student's t interval (a percentile bootstrap of so few seeds is too narrow; from 15 pairs on the "
           "interval is a BCa bootstrap)" if small else "interval (Student's t below 15 pairs, BCa bootstrap from "
           "15 on)")
        + "; the unseen split is described with its interval, not tested. A large p is not evidence of no effect: "
        "see each family's power."
    )  # fmt: skip
    for name, fam in fams.items():
        lines += ["", *_family_section(name, fam)]
    lines += ["", "### Every setting against Outcome (described, not tested)", ""]
    if "outcome" not in agg:
        return [*lines, "The study has no `outcome` setting."]
    lines.append(
        "The mean paired difference from Outcome (trajectory-level GRPO on the env's check) of each of the "
        f"{len(rows)} other settings, with its 95 % interval, and the successes pooled over every evaluation "
        "episode of the finished seeds. No p-values and no marks: these comparisons are not in a family, so an "
        f"interval here that excludes 0 is one of {len(rows)} uncorrected looks, not a finding."
    )
    lines.append("")

    def counts(c: tuple[tuple[int, int], tuple[int, int]]) -> str:
        return f"{c[0][0]}/{c[0][1]} vs {c[1][0]}/{c[1][1]}"

    table = [
        [agg[r["setting"]].label, r["seen"].n, pp(r["seen"].mean), interval(r["seen"].ci), pp(r["unseen"].mean),
         interval(r["unseen"].ci), counts(r["counts_seen"]), counts(r["counts_unseen"])]
        for r in rows
    ]  # fmt: skip
    header = ("Setting", "pairs", "Δ seen (pp)", "95% CI (seen)", "Δ unseen (pp)", "95% CI (unseen)",
              "successes (seen)", "successes (unseen)")  # fmt: skip
    return lines + (md_table(header, table) if table else ["Outcome is the only setting."])


def _declared(fams: dict[str, FamilyResult]) -> dict[tuple[str, str], tuple[str, ComparisonResult]]:
    """(setting, baseline) → (family, result) of every declared comparison."""
    return {(r.comparison.setting, r.comparison.baseline): (n, r) for n, f in fams.items() for r in f.results}


def comparison_note(fams: dict[str, FamilyResult], setting: str, baseline: str) -> str:
    """The declared test of ``setting`` − ``baseline`` in words: its interval and Holm p, or why there is none."""
    found = _declared(fams).get((setting, baseline))
    if found is None:
        return "not tested: no declared comparison"
    name, r = found
    if r.seen is None or not r.tested:
        return r.why_untested() or "not tested"
    fam = fams[name]
    verdict = "significant" if r.p_holm is not None and r.p_holm < fam.alpha else "not significant"
    over = f"the {fam.m} {name} comparisons" if fam.m > 1 else f"the one {name} comparison tested"
    return f"paired 95 % CI {interval(r.seen.ci)}, Holm p = {p_value(r.p_holm)} over {over}: {verdict}"


def ablation_section(agg: Aggregates, fams: dict[str, FamilyResult]) -> list[str]:
    """ADMIRE App. B.3 / Fig. 4: the full reward against its variants, within each optimiser's view."""
    lines = ["## ADMIRE ablations", ""]
    tables: list[list[str]] = []
    declared = _declared(fams)
    for suffix, title in (("", "Common optimiser"), (PAPER, "ADMIRE's optimiser (step-level GRPO)")):
        abl = [a for n, a in agg.settings.items() if a.group == "ablation" and (PAPER in n) == bool(suffix)]
        full = agg.settings.get("milestone-adaptive" + suffix)
        if full is None or not abl:
            continue

        def diff(a: SettingAggregate, key: str, full: SettingAggregate = full) -> str:
            d = minus(a.mean(key), full.mean(key))
            return DASH if d is None else f"{100 * d:+.1f}"

        def test(a: SettingAggregate, full: SettingAggregate = full) -> list[str]:
            """The declared paired test of the variant against full ADMIRE: interval and Holm p."""
            name, r = declared.get((a.name, full.name), ("", None))
            if r is None:
                return [DASH, "not declared"]
            if r.seen is None or not r.tested:
                return [interval(r.seen.ci) if r.seen else DASH, r.why_untested() or DASH]
            mark = _MARKS.get(name, "") if r.p_holm is not None and r.p_holm < fams[name].alpha else ""
            return [interval(r.seen.ci), f"{p_value(r.p_holm)}{mark} ({name})"]

        rows = [[f"{full.label} (full)", n_cell(full), pct(full.metrics["seen_all"]), DASH, DASH, DASH,
                 pct(full.metrics["unseen_all"]), DASH]]  # fmt: skip
        rows += [
            [a.label, n_cell(a), pct(a.metrics["seen_all"]), diff(a, "seen_all"), *test(a),
             pct(a.metrics["unseen_all"]), diff(a, "unseen_all")]
            for a in abl
        ]  # fmt: skip
        header = ("Setting", "n", "Seen success", "Δ vs full (pp)", "95% CI, paired (seen)", "p, Holm (family)",
                  "Unseen success", "Δ unseen vs full (pp)")  # fmt: skip
        tables.append(["", f"**{title}**", "", *md_table(header, rows)])
    if not tables:
        return [*lines, "The study has no full ADMIRE setting (milestone-adaptive) or no ablation of it."]
    lines.append(
        "ADMIRE §5.3 / Fig. 4 (the variants defined in App. B.3): the full reward against its variants, each under "
        "the same optimiser. Δ vs full is the difference of the means in percentage points (negative: the variant "
        "is worse); the interval and Holm p are the declared paired test's (see Significance), where there is one."
    )
    for t in tables:
        lines += t
    return lines


def family_sentences(name: str, fam: FamilyResult) -> list[str]:
    """What a family's Holm-corrected tests say, what they could not test, and their power."""
    title = _FAMILY_TITLES.get(name, (f"{name.capitalize()} comparisons", ""))[0]
    missing = [f"{r.comparison.label} ({r.why_untested()})" for r in fam.results if not r.tested]
    if fam.m == 0:
        return [f"{title}: none of the {fam.declared} could be tested here: {'; '.join(missing)}."]
    sig = fam.significant()
    head = f"{title} (Holm over {fam.m} of {fam.declared})"
    if sig:
        notes = [f"{r.comparison.label}, Δ {pp(r.seen.mean if r.seen else None)} pp "
                 f"({comparison_note({name: fam}, r.comparison.setting, r.comparison.baseline)})"
                 for r in sig]  # fmt: skip
        out = [f"{head}: significant at {fam.alpha:g}: {'; '.join(notes)}."]
    else:
        best = min((r for r in fam.results if r.p_holm is not None), key=lambda r: r.p_holm or 1.0)
        out = [f"{head}: none is significant at {fam.alpha:g}; the smallest corrected p is that of "
               f"{best.comparison.label} ({p_value(best.p_holm)})."]  # fmt: skip
    if missing:
        out.append(f"Not tested among the {name} comparisons: {'; '.join(missing)}.")
    if fam.power is not None and fam.sd is not None:
        out.append(
            f"At the {name} comparisons' median paired SD ({100 * fam.sd:.1f} pp, {fam.n} paired seeds), Holm's "
            f"first step (α/{fam.m}) finds {100 * fam.effect:g} pp with power {fam.power:.2f}; "
            f"{100 * fam.target_power:.0f} % power at {100 * fam.effect:g} pp with all {fam.declared} tested takes "
            f"{fam.seeds_needed} paired seeds."
        )
    return out
