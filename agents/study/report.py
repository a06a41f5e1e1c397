"""The reward-shaping study's report: raw run files in, ``reward_study.md`` and PNGs out.

:func:`write_report` reads a study directory (:mod:`agents.study.data`), computes its numbers
(:mod:`agents.study.stats`), draws learning curves under ``OUT/plots/`` (:mod:`agents.study.plots`)
and renders the tables in the papers' shapes (ADMIRE Table 1/3/4, App. B.2-B.6, Fig. 4; ProgRM
Tables 1-3; MobileRL Fig. 6), with the declared comparisons' tests (:data:`~agents.study.stats.PRIMARY`,
:data:`~agents.study.stats.SECONDARY`). This module holds the Markdown sections and
:func:`auto_reading`; the sections of the declared tests (Significance, the ADMIRE ablations) are in
:mod:`agents.study.report_significance`, the cell and table formatting in
:mod:`agents.study.report_format`. It re-exports the public names of the data and stats modules, so
``from agents.study.report import load_study, aggregate, ...`` keeps working.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import os
import statistics
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from agents.study.data import MODEL_NAMES, TIERS, ModelEval, RunRecord, StudyData, as_list, load_study, num
from agents.study.plots import OVERVIEW_PNG, plot_overview, plot_setting
from agents.study.report_format import (
    DASH,
    bold_best,
    duration,
    md_table,
    n_cell,
    pct,
    plain,
    shorten,
)
from agents.study.report_significance import (
    ablation_section,
    comparison_note,
    family_sentences,
    significance_section,
)
from agents.study.settings import PAPER
from agents.study.stats import (
    TABLE4_COLUMNS,
    Aggregates,
    FamilyResult,
    SettingAggregate,
    Stat,
    aggregate,
    families,
    milestone_hit_counts,
    summary_table,
    table4,
    vs_baseline,
)
from agents.study.tiers import read_tiers
from gui_gym.core.io import atomic_write

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
    "families",
    "load_study",
    "milestone_hit_counts",
    "summary_table",
    "vs_baseline",
    "write_report",
]

REPORT_NAME = "reward_study.md"
READING_NAME = "reading.md"  # the written reading, kept next to the report


def _tiers_of(data: StudyData) -> dict[str, str]:
    """Task id -> tier: the study's oracle-length tiers (``tiers.json``), else the study env's
    family's difficulty, else the evaluation rows'."""
    try:
        if measured := read_tiers(data.out):
            return measured
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.warning("tiers.json unreadable (%s); using the declared difficulty", e)
    tiers: dict[str, str] = {}
    for run in data.runs:
        for r in run.eval_rows:
            tiers.setdefault(r["task"], r["difficulty"])
    env_id = (data.config.get("extra") or {}).get("env_id", "GuiAndroid-v0")
    try:
        from gui_gym.core.family import family_of

        specs = family_of(env_id).tasks(None)
    except Exception as e:  # the report must render without the env too
        log.debug("tasks of %s unavailable (%s); tiers come from eval rows", env_id, e)
        return tiers
    return tiers | {t.id: t.difficulty for t in specs}


# -- sections ------------------------------------------------------------------------------


def _header(data: StudyData) -> list[str]:
    st, cfg = data.study, data.config
    lines = ["# Reward-shaping study", ""]
    lines.append(f"- **Mode:** {st.get('mode', cfg.get('mode', '?'))}")
    lines.append(
        f"- **Command:** `{st.get('command', '?')}` (the last that ran; a study resumed or extended with "
        "other settings or seeds keeps every earlier run)"
    )
    tiers = _tiers_of(data)
    for key, what in (("train_tasks", "Training tasks (seen)"), ("heldout_tasks", "Held-out tasks (unseen)")):
        tasks = as_list(cfg.get(key))
        count = Counter(tiers.get(t, "unknown") for t in tasks)
        per_tier = ", ".join(f"{count[t]} {t}" for t in (*TIERS, "unknown") if count[t])
        listing = ", ".join(f"{t} ({tiers.get(t, '?')})" for t in tasks) or DASH
        lines.append(f"- **{what}:** {len(tasks)} ({per_tier or 'none'}): {listing}")
    if (cuts := as_list(cfg.get("tier_cuts"))) and (data.out / "tiers.json").is_file():
        lines.append(
            f"- **Tiers:** by the oracle's length (`tiers.json`): easy under {cuts[0]} steps, medium "
            f"{cuts[0]}-{int(cuts[1]) - 1}, hard {cuts[1]} and more"
        )
    seeds = sorted({run.seed for run in data.runs}) or as_list(cfg.get("seeds"))
    per = Counter(run.setting for run in data.runs)
    low, high = (min(per.values()), max(per.values())) if per else (len(seeds), len(seeds))
    lines.append(
        f"- **Training seeds:** {', '.join(map(str, seeds)) or DASH} "
        f"({low if low == high else f'{low}-{high}'} per setting)"
    )
    g = cfg.get
    lines.append(
        f"- **Training:** {g('algo', '?')} (the common optimiser; `@paper` runs: see Optimisers), "
        f"{g('iterations', '?')} iterations, group shape {g('tasks_per_iter', '?')} "
        f"tasks × {g('group_size', '?')} trajectories per iteration, at most {g('max_steps', '?')} steps per episode"
    )
    if (gamma := num(g("admire_gamma"))) is not None:
        lines.append(
            f"- **ADMIRE's decay:** γ = {gamma:g} per epoch (λ = λ0·γ^E; the paper's 0.99 rescaled to this "
            "study's fewer epochs)"
        )
    lines.append(
        f"- **Evaluation:** {g('eval_episodes', '?')} episodes (held-out seeds) per task per split, "
        f"{'sampled (temperature 1)' if g('eval_sampled') else 'greedy'}, before and after training; learning curves "
        f"every {g('eval_every', '?')} iterations on {g('curve_episodes', '?')} seeds per training task"
    )
    if cfg.get("extra"):
        lines.append(f"- **Trainer overrides:** `{json.dumps(cfg['extra'], sort_keys=True)}`")
    finished = st.get("finished")
    when = f"{st.get('started', '?')} → {finished}" if finished else f"started {st.get('started', '?')}, not finished"
    run_s = [r.wall_s for r in data.runs if r.wall_s]
    summed = (f"; the runs' own times add up to {duration(sum(run_s))} over {len(run_s)} runs on "
              f"{cfg.get('workers', '?')} worker(s)") if run_s else ""  # fmt: skip
    lines.append(f"- **Wall time:** {duration(num(st.get('wall_s')))} ({when}{summed})")
    lines.append(f"- **Machine:** {st.get('machine', '?')}")
    problems = data.problems + [f"model {m.name}: {m.reason}" for m in data.models.values() if m.status == "unreadable"]
    if problems:
        lines += ["", "> **Data problems:** " + "; ".join(problems)]
    return lines


_SUCCESS_HEADER = ("Setting", "n", "Easy", "Medium", "Hard", "All (seen)", "Δ seen", "Unseen", "Δ unseen")


def _success_section(data: StudyData, agg: Aggregates, fams: dict[str, FamilyResult]) -> list[str]:
    lines = ["## Success by difficulty", ""]
    lines.append(
        "Trained success rate (%) on the training tasks at held-out seeds (seen), per tier and overall, and on the "
        "held-out tasks (unseen); Δ is the gain over the policy before RL (untrained, or the warm start) of the same "
        "training seed. Cells are mean ± sample std over the finished seeds (a cell without ± comes from one seed); "
        "n counts finished runs; crashed, diverged and missing runs are not averaged in. Best value per column in "
        "**bold**; \\* marks the setting of a primary comparison whose Holm-corrected paired p < 0.05 (see "
        "Significance: each is tested against its paper's control, which is not always Outcome); the other cells are "
        "not tested."
    )
    lines.append("")
    primary = fams.get("primary")
    marked = {r.comparison.setting for r in primary.significant()} if primary else set()
    u = agg.untrained
    rows = [
        [
            u.label,
            f"{u.finished}/{u.runs} seeds",
            *(pct(u.metrics[f"seen_{t}"]) for t in TIERS),
            pct(u.metrics["seen_all"]),
            DASH,
            pct(u.metrics["unseen_all"]),
            DASH,
        ]
    ]
    cells, values = [], []
    for a in agg.settings.values():
        m = a.metrics
        row = [
            a.label,
            n_cell(a),
            *(pct(m[f"seen_{t}"]) for t in TIERS),
            pct(m["seen_all"]),
            pct(m["delta_seen"], signed=True),
            pct(m["unseen_all"]),
            pct(m["delta_unseen"], signed=True),
        ]
        if a.name in marked:  # the family's endpoint is seen success: only that cell is tested
            row[5] += "\\*"
        cells.append(row)
        keys = ("", "", *(f"seen_{t}" for t in TIERS), "seen_all", "delta_seen", "unseen_all", "delta_unseen")
        values.append([m[k].mean if k else None for k in keys])
    views = {n: data.info(n).view for n in agg.settings}
    if all(v != "paper" for v in views.values()):  # one optimiser for every setting: one table
        bold_best(cells, values, range(2, 9))
        lines += md_table(_SUCCESS_HEADER, rows + cells)
    else:  # the controlled comparison, then each reward under its paper's optimiser (see Optimisers)
        for view, title in (("common", "Common optimiser"), ("paper", "Each paper's optimiser")):
            keep = [i for i, n in enumerate(agg.settings) if views[n] in (view, "both")]
            if not keep:
                continue
            part, vals = [list(cells[i]) for i in keep], [values[i] for i in keep]  # bolded per table
            bold_best(part, vals, range(2, 9))
            lines += ["", f"**{title}**", "", *md_table(_SUCCESS_HEADER, rows + part)]
    lines += ["", "### Learning curves", ""]
    lines.append(
        "Success on the training tasks at held-out seeds (the trainer's learning-curve evaluations, left) and of "
        "the training rollouts (right); bold: mean over finished seeds, band: ± std, thin lines: single seeds "
        "(dotted when the run did not finish)."
    )
    lines += ["", f"![eval success of every setting](plots/{OVERVIEW_PNG})", ""]
    lines += [f"- {agg[n].label}: [plots/{n}.png](plots/{n}.png)" for n in agg.settings]
    return lines


#: ADMIRE Table 4 with GRPO (Qwen2.5-1.5B-Instruct): Outcome Reward and ADMIRE, for the reader's scale.
_TABLE4_PAPER = {
    "ALFWorld": "Outcome 83.5 / 84.5 / 75.0 / 71.4 / 52.3 / 64.3, All 75.8; ADMIRE 84.8 / 85.7 / 81.8 / 73.1 / "
    "56.3 / 63.6, All 78.1",
    "WebShop": "Outcome 74.7 score / 50.0 success; ADMIRE 81.9 / 57.0",
}


def _table4_section(data: StudyData, agg: Aggregates) -> list[str]:
    """ADMIRE Table 4's own columns on the text families (ALFWorld per task type, WebShop's score)."""
    family, cols = table4(data)
    if family is None:
        return []
    keys = TABLE4_COLUMNS[family]
    what = (
        "trained success (%) on the seen tasks per task type (Pick, Clean, Heat, Cool, Pick2, Look; a task id "
        "starts with its type), over all seen tasks, and on the held-out tasks (a column Table 4 does not have)"
        if family == "ALFWorld"
        else "the mean final task score (×100; upstream WebShop's reward at Buy Now, 0 without a purchase) and "
        "success (%, a score of 1, verl-agent's rule), on the seen and on the held-out tasks (the last two columns are "
        "not in Table 4)"
    )
    lines = [
        "## ADMIRE Table 4's columns",
        "",
        f"{family} as ADMIRE Table 4 reports it: {what}; mean ± std over the finished seeds. Table 4's GRPO rows, "
        f"for scale (a 1.5B LM on the real {family}): {_TABLE4_PAPER[family]}.",
        "",
    ]
    rows, values = [], []
    for name, stats in cols.items():
        label = agg.untrained.label if name == "untrained" else agg[name].label
        rows.append([label, *(pct(stats[k]) for k in keys)])
        values.append([None, *(stats[k].mean for k in keys)])
    bold_best(rows[1:], values[1:], range(1, len(keys) + 1))
    return [*lines, *md_table(("Setting", *keys), rows)]


def _optimiser_section(data: StudyData, agg: Aggregates) -> list[str]:
    """Which optimiser and which reward each row trained with: the common view, or its paper's."""
    infos = [data.info(n) for n in agg.settings]
    if all(i.view != "paper" for i in infos):
        return []
    algo = data.config.get("algo") or "grpo"
    rows = []
    for i in infos:
        o = i.optimiser if i.algo else dataclasses.replace(i.optimiser, algo=algo)  # the study's, where it names none
        view = {"both": "both (the papers' baseline)", "paper": "paper", "common": "common"}.get(i.view, i.view)
        rows.append([i.label, view, o.describe(), f"`{i.reward}`", i.env_id or DASH])
    return [
        "## Optimisers",
        "",
        "The common view trains every reward with one optimiser, so that only the reward differs; the paper "
        "view (`<setting>@paper`) trains each reward as its paper does: ADMIRE at step level with the milestone "
        "book settled per batch, ProgRM with REINFORCE++ on its reward model's output alone (its models learnt "
        "from the warm-started actor's rollouts), MobileRL with AdaGRPO. Outcome serves both views.",
        "",
        *md_table(("Setting", "View", "Optimiser", "Reward trained on", "Trained on env"), rows, "lllll"),
    ]


def _reward_model_section(data: StudyData, agg: Aggregates) -> list[str]:
    """ProgRM's question during RL: does the learned reward's final score agree with true success?"""
    rows = []
    for name, a in agg.settings.items():
        curves = [r.metrics for r in data.runs_of(name) if r.done and any("rm_accuracy" in m for m in r.metrics)]
        if not curves:
            continue

        def mean_over_seeds(key: str, window: slice, curves: list[list[dict[str, Any]]] = curves) -> str:
            """The seeds' mean of each run's mean of ``key`` over the iterations in ``window``."""
            vals = [statistics.fmean(xs[window]) for c in curves if (xs := [m[key] for m in c if key in m])]
            return DASH if not vals else f"{statistics.fmean(vals):.2f}"

        early, late = slice(None, 5), slice(-5, None)
        rows.append([a.label, str(len(curves)), mean_over_seeds("rm_accuracy", early),
                     mean_over_seeds("rm_accuracy", late), mean_over_seeds("rm_auc", early),
                     mean_over_seeds("rm_auc", late), mean_over_seeds("rm_score_success", late),
                     mean_over_seeds("rm_score_failure", late)])  # fmt: skip
    if not rows:
        return []
    header = ("Setting", "runs", "accuracy, first 5 it.", "accuracy, last 5 it.", "AUC, first 5", "AUC, last 5",
              "score | success (last 5)", "score | failure (last 5)")  # fmt: skip
    return [
        "## Reward models during RL",
        "",
        "The learned reward model's score of each training rollout's final state against the env's true "
        "success (the ORM's verdict; a progress model's last estimate), over the first and the last five "
        "iterations, mean over seeds: accuracy at 0.5 and AUC (the chance a success outscores a failure). A "
        "policy that learns to please the model rather than to finish the task shows as falling accuracy.",
        "",
        *md_table(header, rows),
    ]


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
    rows = [[u.label, f"{u.finished}/{u.runs} seeds", plain(u.metrics["steps_seen"]), DASH, DASH]]
    for a in agg.settings.values():
        rows.append(
            [
                a.label,
                n_cell(a),
                plain(a.metrics["steps_seen"]),
                plain(a.metrics["delta_steps"], signed=True),
                a.counts["seen"][0],
            ]
        )
    lines += md_table(("Setting", "n", "Steps of successes (seen)", "Δ vs untrained", "successful episodes"), rows)
    tiers = _tiers_of(data)
    for a_name, b_name in _PAIRS:
        if a_name not in agg or b_name not in agg:
            continue
        a, b = agg[a_name], agg[b_name]
        lines += ["", f"### {a.label} vs {b.label}", ""]
        sa, sb = a.metrics["steps_seen"], b.metrics["steps_seen"]
        if sa.mean is not None and sb.mean is not None:
            d = sb.mean - sa.mean
            lines.append(f"Steps of successes: {plain(sa)} vs {plain(sb)} ({d:+.2f} steps, {100 * d / sa.mean:+.0f}%).")
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
                    DASH if ma is None else f"{ma:.2f} ({len(ta[t])})",
                    DASH if mb is None else f"{mb:.2f} ({len(tb[t])})",
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
        lines += md_table(
            ("Task", "Tier", f"{a.label}: steps (successes)", f"{b.label}: steps (successes)", "Shorter"), rows, "llrrl"
        )
    return lines


def _reward_section(agg: Aggregates) -> list[str]:
    """What each reward paid during training against the env's own success: exploitation shows here."""
    lines = ["## Shaped reward against success during training", ""]
    lines.append(
        "The training rollouts of the last 20% of iterations: R(τ), the trajectory reward the algorithm "
        "maximised (the mean of the final per-step rewards), next to the env's own success rate and the "
        "mean episode length. A reward that rises while success does not is paying for something else "
        "(a learned model's false positives, scaffolding for failures, early finishes). Mean ± std over "
        "finished seeds."
    )
    lines.append("")
    rows = []
    for a in agg.settings.values():
        m = a.metrics
        late = [plain(m["return_late"], 3), pct(m["train_success_late"]), plain(m["length_late"], 1)]
        rows.append([a.label, n_cell(a), *late, pct(m["seen_all"])])
    header = ("Setting", "n", "R(τ) (late)", "Training success (%, late)", "Episode length (late)", "Eval success (%)")
    return lines + md_table(header, rows)


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
                n_cell(a),
                pct(m["seen_all"]),
                pct(m["delta_seen"], signed=True),
                pct(m["coverage"]),
                plain(m["hits_late"]),
                pct(m["hit_rate_late"]),
            ]
        )
    lines += md_table(
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
                row += [DASH, DASH]
                continue
            top = "<br>".join(f"{shorten(text, 48)} ({k})" for text, k in c.most_common(3))
            row += [f"{sum(c.values())} over {len(c)}", top]
        rows.append(row)
    header = ["Task"]
    for n in pair:
        header += [f"{agg[n].label}: hits over milestones", f"{agg[n].label}: top milestones"]
    return lines + md_table(header, rows, "l" + "rl" * len(pair))


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
        return DASH
    if isinstance(v, bool) or not isinstance(v, int | float):
        return shorten(str(v), 60)
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
            "ProgRM Table 1's comparison: a learned outcome reward model (\"w/ ORM\", the paper's baseline) and "
            "progress models trained on env milestone labels (Env) or LCS labels; the env's own outcome check is "
            "this study's baseline, not a row of Table 1. Trained success (%), mean ± std over seeds; the order is "
            "tested in the paper view (see Significance)."
        )
        lines.append("")
        rows = [
            [
                agg[n].label,
                n_cell(agg[n]),
                *(pct(agg[n].metrics[f"seen_{t}"]) for t in TIERS),
                pct(agg[n].metrics["seen_all"]),
                pct(agg[n].metrics["unseen_all"]),
            ]
            for n in names
        ]
        lines += md_table(("Setting", "n", "Easy", "Medium", "Hard", "All (seen)", "Unseen"), rows)
    else:
        lines.append("The study trains none of these settings.")
    lines += ["", "### Reward models", ""]
    needed = {m for n in data.settings for m in data.info(n).needs}
    models = [m for m in data.models.values() if m.status != "missing" or m.name in needed]
    if not models:
        return [*lines, "No reward-model evaluation (models/*/eval.json) was found."]
    lines.append(
        "On held-out rollouts of the training tasks, ProgRM Table 3's quantities: mean absolute progress error at "
        "key steps (and over all states) and the mean predicted score at final states of successful and failed "
        "trajectories; and Table 2's: success prediction at final states (accuracy, precision, recall, F1, "
        "false-positive rate)."
    )
    lines.append("")
    rows = []
    for m in models:
        if m.status != "ok":
            rows.append([m.name, *[DASH] * len(_RM_COLUMNS), m.reason])
            continue
        rows.append([m.name, *(_value(m.metrics.get(k)) for k, _ in _RM_COLUMNS), ""])
    lines += md_table(("Model", *(t for _, t in _RM_COLUMNS), "Note"), rows, "l" + "r" * len(_RM_COLUMNS) + "l")
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
    lines = [
        "## Runs",
        "",
        "Every run the study expects or left on disk. The wall time is that of the process "
        "that finished the run: a resumed run's counts from the iteration it resumed at.",
    ]
    lines.append("")
    rows = []
    for r in data.runs:
        err = r.error or r.reason or ""
        err = shorten(err.strip().splitlines()[0], 100) if err.strip() else ""
        rows.append(
            [
                r.setting,
                r.seed,
                r.status,
                DASH if r.iterations is None else r.iterations,
                duration(r.wall_s) + (f" (from iteration {r.resumed_at})" if r.resumed_at else ""),
                err,
                "; ".join(r.problems),
            ]
        )
    return lines + md_table(
        ("Setting", "Seed", "Status", "Iterations", "Wall time", "Error", "Data problems"), rows, "lrlrrll"
    )


def auto_reading(data: StudyData, agg: Aggregates, fams: dict[str, FamilyResult] | None = None) -> list[str]:
    """Factual sentences computed from the numbers; each is stated only when its data exist, and a
    difference is called significant only by its declared family's Holm-corrected test."""
    fams = families(agg) if fams is None else fams
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
                f"{len(up)} of {len(seen)} settings improved seen-task success over the policy before RL "
                f"({100 * u_seen:.1f}%) on average over seeds."
            )
    unseen = sorted(
        ((a, v) for a in agg.settings.values() if (v := a.mean("unseen_all")) is not None), key=lambda x: -x[1]
    )
    if unseen:
        a, v = unseen[0]
        base = f"; the policy before RL scores {100 * u_unseen:.1f}%" if u_unseen is not None else ""
        out.append(f"On unseen tasks the highest success is {a.label}'s ({100 * v:.1f}%){base}.")
    for name, fam in fams.items():
        out += family_sentences(name, fam)
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
    for suffix in ("", PAPER):  # ProgRM Table 1's order, each view on its own
        env, lcs = "progress-env" + suffix, "progress-lcs" + suffix
        if env in agg and lcs in agg and None not in (e := agg[env].mean("seen_all"), c := agg[lcs].mean("seen_all")):
            out.append(f"{agg[env].label} against {agg[lcs].label} on seen success: {100 * e:.1f}% vs {100 * c:.1f}% "
                       f"({comparison_note(fams, env, lcs)}).")  # fmt: skip
    me, ml = data.models.get("progress-env"), data.models.get("progress-lcs")
    if me and ml and me.status == ml.status == "ok":
        ke, kl = num(me.metrics.get("key_step_mae")), num(ml.metrics.get("key_step_mae"))
        if ke is not None and kl is not None:
            cmp = "lower" if kl < ke else "higher" if kl > ke else "equal"
            out.append(f"The LCS progress model's key-step MAE is {cmp} than the Env model's ({kl:.3f} vs {ke:.3f}).")
    for suffix in ("", PAPER):  # ADMIRE Table 3, each view on its own
        ad, st = agg.settings.get("milestone-adaptive" + suffix), agg.settings.get("milestone-static" + suffix)
        if ad is None or st is None or ad.mean("seen_all") is None or st.mean("seen_all") is None:
            continue
        msg = (f"{ad.label} against {st.label} on seen success: {100 * ad.mean('seen_all'):.1f}% vs "
               f"{100 * st.mean('seen_all'):.1f}% ({comparison_note(fams, ad.name, st.name)})")  # fmt: skip
        if ad.mean("coverage") is not None and st.mean("coverage") is not None:
            msg += (
                f"; final milestone coverage {100 * ad.mean('coverage'):.0f}% (adaptive) vs "
                f"{100 * st.mean('coverage'):.0f}% (static)"
            )
        out.append(msg + ".")
    for suffix in ("", PAPER):  # each view's ablations against the full ADMIRE of the same optimiser
        name = "milestone-adaptive" + suffix
        if name not in agg or (full := agg[name].mean("seen_all")) is None:
            continue
        abl = [
            (a, v - full)
            for n, a in agg.settings.items()
            if a.group == "ablation" and (PAPER in n) == bool(suffix) and (v := a.mean("seen_all")) is not None
        ]
        if abl:
            abl.sort(key=lambda x: -x[1])
            out.append(
                f"Against full ADMIRE ({agg[name].label}), the ablations change seen success by: "
                + "; ".join(f"{a.label} {100 * d:+.1f} pp ({comparison_note(fams, a.name, name)})" for a, d in abl)
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


def _reading_section(data: StudyData, agg: Aggregates, fams: dict[str, FamilyResult], reading: str | None) -> list[str]:
    """The written reading (``reading``, else ``OUT/reading.md``), then the facts generated from the numbers."""
    lines = ["## Reading", ""]
    path = data.out / READING_NAME
    if reading is None and path.is_file():
        reading = path.read_text(encoding="utf-8")
    if reading and reading.strip():
        lines += [reading.strip(), "", "### Generated from the numbers above", ""]
    else:
        lines += [f"_No reading written yet (put one in `{READING_NAME}` next to this report). "
                  "Generated from the numbers above:_", ""]  # fmt: skip
    return lines + [f"- {s}" for s in auto_reading(data, agg, fams)]


def _raw_section(data: StudyData) -> list[str]:
    out = str(data.out)
    return [
        "## Raw data",
        "",
        f"Everything above is computed from the files under `{out}`:",
        "",
        "- `study.json`: mode, command, configuration, times, machine",
        "- `runs/<setting>/seed<k>/status.json`: run status, error, iterations, milestone coverage and hit counts, "
        "the commit the run ran",
        "- `runs/<setting>/seed<k>/eval.jsonl.gz`: one line per evaluation episode (before and after training; "
        "plain `eval.jsonl` while a run trains)",
        "- `runs/<setting>/seed<k>/metrics.jsonl.gz`: the trainer's per-iteration metrics (likewise; "
        "`gui-gym study --pack --slim` keeps the columns this report reads)",
        "- `models/<name>/eval.json`: reward-model evaluations",
        "- `plots/`: the learning curves above",
        "",
        "Rebuild this report from them with:",
        "",
        "```",
        f"gui-gym study --report-only --out {out}",
        "```",
    ]


# -- the report ----------------------------------------------------------------------------


def _warm_start_section(out: Path) -> list[str]:
    """Pass@1 and pass@k per tier of the behaviour-cloned starting policy, before RL (``OUT/sft``)."""
    path = out / "sft" / "sft_summary.json"
    if not path.exists():
        return []
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
        k, before, kept = summary["config"]["k"], summary["before"], summary["kept"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        return ["## Warm start", "", f"`{path}` is unreadable ({type(e).__name__}: {e})."]
    tiers = [t for t in ("easy", "medium", "hard") if f"pass@1_{t}" in kept] + ["all"]
    rows = [
        [t, f"{100 * before[f'pass@1_{t}']:.1f}", f"{100 * before[f'pass@{k}_{t}']:.1f}",
         f"{100 * kept[f'pass@1_{t}']:.1f}", f"{100 * kept[f'pass@{k}_{t}']:.1f}"]
        for t in tiers
    ]  # fmt: skip
    inside = sum(0 < kept[f"pass@{k}_{t}"] < 1 for t in tiers[:-1])
    band = (
        f"every tier at 0 < pass@{k} < 1"
        if inside == len(tiers) - 1
        else f"{inside} of {len(tiers) - 1} tiers at 0 < pass@{k} < 1, the most any epoch reached"
    )
    lines = [
        "## Warm start",
        "",
        f"Every setting's RL starts from one policy behaviour-cloned on the oracle (`gui-gym sft`, "
        f"{summary['demonstration_steps']} demonstration steps on seeds disjoint from evaluation, "
        f"{100 * summary['coverage']:.1f}% of the oracle's steps among the candidates; epoch "
        f"{summary['kept_epoch']} of {summary['epochs_run']} kept: {band}, then the highest pass@1). "
        "Sampled success (temperature 1) on held-out seeds of the training tasks, %:",
        "",
    ]
    header = ("Tier", "pass@1 untrained", f"pass@{k} untrained", "pass@1 at RL start", f"pass@{k} at RL start")
    return [*lines, *md_table(header, rows)]


def write_report(out: str | os.PathLike[str], reading: str | None = None) -> Path:
    """Write ``OUT/reward_study.md`` and ``OUT/plots/*.png`` from the raw files; returns the Markdown's path.

    ``reading``: the written reading of the results; by default ``OUT/reading.md`` when it exists.
    """
    data = load_study(out)
    agg = aggregate(data)
    fams = families(agg)
    plots = data.out / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    for a in agg.settings.values():
        plot_setting(data, a, plots / f"{a.name}.png")
    plot_overview(data, agg, plots / OVERVIEW_PNG)
    sections = (
        _header(data),
        *([w] if (w := _warm_start_section(data.out)) else []),
        *([o] if (o := _optimiser_section(data, agg)) else []),
        _success_section(data, agg, fams),
        *([t] if (t := _table4_section(data, agg)) else []),
        significance_section(agg, fams, vs_baseline(agg)),
        *([r] if (r := _reward_model_section(data, agg)) else []),
        _steps_section(data, agg),
        _reward_section(agg),
        _milestone_section(data, agg),
        ablation_section(agg, fams),
        _progrm_section(data, agg),
        _runs_section(data),
        _reading_section(data, agg, fams, reading),
        _raw_section(data),
    )
    text = "\n\n".join("\n".join(s) for s in sections) + "\n"
    path = data.out / REPORT_NAME
    atomic_write(path, lambda f: f.write(text))  # a reader never sees half a report
    return path
