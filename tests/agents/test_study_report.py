"""The reward-study report (agents/study/report.py) on a synthetic study directory, and its raw files gzipped."""

from __future__ import annotations

import gzip
import json
import re
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from agents.cli import main
from agents.plot import read_metrics
from agents.study.data import RAW_FILES, REPORT_COLUMNS, read_jsonl_objects
from agents.study.report import aggregate, auto_reading, families, load_study, summary_table, vs_baseline, write_report
from agents.study.runner import pack_run, pack_study, slim_run
from agents.study.stats import paired_power
from gui_gym.core.io import CorruptFileError

SETTINGS = ("outcome", "spa", "milestone-adaptive")
SEEDS = (0, 1, 2)
TIER_TASKS = {"easy": "FakeEasy", "medium": "FakeMedium", "hard": "FakeHard"}
# successes out of 2 episodes per tier (easy, medium, hard) and out of 2 unseen episodes
UNTRAINED = {0: ((1, 0, 0), 0), 1: ((1, 1, 0), 1), 2: ((0, 0, 0), 0)}
TRAINED = {
    ("outcome", 0): ((2, 1, 1), 1),
    ("outcome", 1): ((2, 1, 0), 0),
    ("outcome", 2): ((2, 2, 1), 2),
    ("spa", 0): ((2, 2, 2), 2),
    ("spa", 1): ((2, 2, 1), 1),
    ("milestone-adaptive", 0): ((1, 1, 0), 1),
    ("milestone-adaptive", 1): ((2, 1, 1), 1),
}
STEPS = {"outcome": 6, "spa": 4, "milestone-adaptive": 5}  # length of every successful trained episode
HEADINGS = (
    "# Reward-shaping study",
    "## Success by difficulty",
    "## Significance",
    "## Steps to success",
    "## Milestones: static vs adaptive",
    "## ADMIRE ablations",
    "## Progress and outcome reward models",
    "## Runs",
    "## Reading",
    "## Raw data",
)


def _episodes(phase: str, tiers: tuple[int, int, int], unseen: int, steps: int) -> list[dict[str, Any]]:
    rows = []
    for (tier, task), wins in zip(TIER_TASKS.items(), tiers, strict=True):
        for i in range(2):
            ok = i < wins
            rows.append(
                {
                    "phase": phase,
                    "split": "seen",
                    "task": task,
                    "seed": i,
                    "difficulty": tier,
                    "success": ok,
                    "length": steps if ok else 15,
                }
            )
    for i in range(2):
        ok = i < unseen
        rows.append(
            {
                "phase": phase,
                "split": "unseen",
                "task": "FakeUnseen",
                "seed": i,
                "difficulty": "medium",
                "success": ok,
                "length": steps if ok else 15,
            }
        )
    return rows


def _jsonl(path: Path, rows: list[dict[str, Any]], tail: str = "") -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + tail, encoding="utf-8")


def _metrics(seed: int, milestones: bool) -> list[dict[str, Any]]:
    rows = [{"iteration": -1, "eval_success_rate": 0.1 * seed}]
    for it in range(10):
        row: dict[str, Any] = {"iteration": it, "success_rate": 0.05 * it, "mean_length": 10.0, "reward_outcome": 0.1}
        if it % 5 == 4:
            row["eval_success_rate"] = 0.1 * seed + 0.05 * it
        if milestones:
            row["milestone_hits"] = 1.0 + it / 10  # the last 20%: iterations 8 and 9 → 1.85
            row["milestone_hit_rate"] = 0.1 * it  # → 0.85
        rows.append(row)
    return rows


@pytest.fixture
def study(tmp_path: Path) -> Path:
    out = tmp_path / "study"
    config = {
        "mode": "quick",
        "train_tasks": ",".join(TIER_TASKS.values()),
        "heldout_tasks": "FakeUnseen",
        "settings": list(SETTINGS),
        "seeds": list(SEEDS),
        "iterations": 10,
        "tasks_per_iter": 4,
        "group_size": 8,
        "max_steps": 15,
        "eval_episodes": 2,
        "eval_every": 5,
        "curve_episodes": 2,
    }
    out.mkdir()
    (out / "study.json").write_text(
        json.dumps(
            {
                "mode": "quick",
                "command": "gui-gym study --mode quick --out study",
                "config": config,
                "started": "2025-01-01T00:00:00",
                "finished": "2025-01-01T00:15:00",
                "wall_s": 900.0,
                "machine": "test box",
            }
        )
    )
    for name in SETTINGS:
        for seed in SEEDS:
            run = out / "runs" / name / f"seed{seed}"
            run.mkdir(parents=True)
            crashed = (name, seed) == ("spa", 2)
            status = {
                "setting": name,
                "seed": seed,
                "reward": name,
                "status": "crashed" if crashed else "done",
                "error": "RuntimeError: boom\nTraceback line two" if crashed else None,
                "wall_s": 120.5,
                "iterations": 3 if crashed else 10,
                "milestone_coverage": None,
                "milestone_hits": None,
            }
            if (name, seed) == ("outcome", 1):
                status["resumed_at"] = 7  # its 120.5 s are those of iterations 7-9
            if name == "milestone-adaptive":
                status["milestone_coverage"] = (0.5, 1.0, 1.0)[seed]
                status["milestone_hits"] = {"FakeHard": {"open the app": 10 + seed, "tap | save": 3}}
            (run / "status.json").write_text(json.dumps(status))
            u_tiers, u_unseen = UNTRAINED[seed]
            rows = _episodes("untrained", u_tiers, u_unseen, 9)
            if (name, seed) in TRAINED:
                t_tiers, t_unseen = TRAINED[name, seed]
                rows += _episodes("trained", t_tiers, t_unseen, STEPS[name])
            if (name, seed) != ("milestone-adaptive", 2):  # a finished run whose eval file is missing
                _jsonl(run / "eval.jsonl", rows)
            corrupt = '{"iteration": 10, "success_r' if (name, seed) == ("milestone-adaptive", 1) else ""
            _jsonl(run / "metrics.jsonl", _metrics(seed, name == "milestone-adaptive"), corrupt)
    models = {
        "progress-env": {
            "key_step_mae": 0.12,
            "label_mae": 0.1,
            "final_score_success": 0.9,
            "final_score_failure": 0.3,
            "precision": 0.8,
            "recall": 0.7,
            "f1": 0.7467,
            "false_positive_rate": 0.1,
            "states": 500,
            "trajectories": 40,
        },
        "progress-lcs": {"key_step_mae": 0.25, "final_score_success": None, "confusion": {"tp": 3, "fp": 1}},
        "orm": {"accuracy": 0.85, "final_states": {"accuracy": 0.9, "count": 20}},
    }
    for name, value in models.items():
        (out / "models" / name).mkdir(parents=True)
        (out / "models" / name / "eval.json").write_text(json.dumps(value))
    return out


def _row(md: str, section: str, label: str) -> list[str]:
    """The cells of the first table row starting with ``label`` inside ``section``."""
    body = md.split(section, 1)[1].split("\n## ", 1)[0]
    for line in body.splitlines():
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if cells and cells[0].strip("*") == label:
            return cells
    raise AssertionError(f"no row {label!r} in {section}")


def _pm(values: list[float], signed: bool = False) -> str:
    m, s = 100 * statistics.fmean(values), 100 * statistics.stdev(values)
    return f"{m:+.1f} ± {s:.1f}" if signed else f"{m:.1f} ± {s:.1f}"


def test_report_sections_tables_and_plots(study: Path) -> None:
    path = write_report(study)
    assert path == study / "reward_study.md"
    md = path.read_text(encoding="utf-8")
    positions = [md.index(h) for h in HEADINGS]
    assert positions == sorted(positions), "sections out of order"
    assert "gui-gym study --mode quick --out study" in md and "test box" in md and "15 min 00 s" in md
    assert "FakeEasy (easy)" in md and "1 easy, 1 medium, 1 hard" in md

    # every table is a valid GitHub table: a separator row and the same column count throughout
    for block in re.findall(r"(?:^\|.*\|\n)+", md, flags=re.M):
        lines = block.splitlines()
        widths = {len(re.split(r"(?<!\\)\|", line)) for line in lines}
        assert len(widths) == 1, block
        assert re.fullmatch(r"\|(?: (?:---:|:---) \|)+", lines[1]), lines[1]

    section = "## Success by difficulty"
    outcome = _row(md, section, "Outcome (env check)")
    assert outcome[1] == "3/3"
    assert outcome[5].strip("*") == _pm([4 / 6, 3 / 6, 5 / 6]) == "66.7 ± 16.7"  # seen, all tiers
    assert outcome[6].strip("*") == _pm([4 / 6 - 1 / 6, 3 / 6 - 2 / 6, 5 / 6 - 0], signed=True) == "+50.0 ± 33.3"
    assert outcome[2].strip("*") == "100.0 ± 0.0"  # easy: 2/2 on every seed
    assert outcome[7].strip("*") == _pm([1 / 2, 0, 1]) == "50.0 ± 50.0"  # unseen
    untrained = _row(md, section, "Untrained policy")
    assert untrained[5] == _pm([1 / 6, 2 / 6, 0]) and untrained[6] == "—"
    spa = _row(md, section, "Outcome + SPA")
    assert spa[1] == "2/3 (1 crashed)"
    assert spa[5].strip("*\\") == _pm([6 / 6, 5 / 6])
    admire = _row(md, section, "Milestone, adaptive (ADMIRE)")
    assert admire[1] == "2/3 (1 no eval)"

    # against Outcome, described: paired on the two seeds SPA finished, 6/6 − 4/6 and 5/6 − 3/6, both +1/3:
    # a mean of +33.3 pp whose interval is one point; no p-value, no mark (not a declared comparison)
    sig = _row(md, "### Every setting against Outcome", "Outcome + SPA")
    assert sig[1:5] == ["2", "+33.3", "[+33.3, +33.3]", "+50.0"]  # unseen: 2/2 − 1/2 and 1/2 − 0/2
    assert sig[6] == "11/12 vs 12/18" and "\\*" not in "".join(sig)
    # none of the declared comparisons is in this study: each says why, nothing is tested in its place
    first = _row(md, "### Primary comparisons", "1. ADMIRE vs Outcome, both step-level GRPO")
    assert first[2] == "not available: the study has no `milestone-adaptive@paper` or `outcome-step` runs"
    assert "not available: the study has no `spa@paper` or `outcome` runs" not in md  # it has Outcome
    assert "None of the 5 comparisons could be tested in this study" in md
    assert "Welch" not in md and "bootstrap 95" not in md

    steps = _row(md, "## Steps to success", "Outcome + SPA")
    assert steps[2] == "4.00 ± 0.00" and steps[3] == "-5.00 ± 0.00"  # 4 steps vs the untrained 9
    assert "Outcome + SPA is shorter on 3" in md

    ms = _row(md, "## Milestones: static vs adaptive", "Milestone, adaptive (ADMIRE)")
    assert ms[4] == _pm([0.5, 1.0, 1.0])  # coverage over the three finished runs (training, not eval)
    assert ms[5] == "1.85 ± 0.00" and ms[6] == "85.0 ± 0.0"
    hits = _row(md, "### Milestone hit counts per task", "FakeHard")
    assert hits[1] == "42 over 2" and "open the app (33)" in hits[2] and "tap \\| save (9)" in hits[2]

    rm = _row(md, "### Reward models", "progress-env")
    assert rm[1] == "0.120" and rm[10] == "500"
    assert "final_states.accuracy 0.900" in md and "confusion.tp 3" in md

    runs = md.split("## Runs", 1)[1].split("\n## ", 1)[0]
    crashed = next(line for line in runs.splitlines() if "| crashed |" in line)
    assert [c.strip() for c in crashed.split("|")[1:5]] == ["spa", "2", "crashed", "3"]
    assert "RuntimeError: boom" in crashed and "Traceback" not in crashed
    resumed = [line for line in runs.splitlines() if "from iteration" in line]
    assert len(resumed) == 1 and "| outcome | 1 | done | 10 | 2 min 00 s (from iteration 7) |" in resumed[0]
    assert "skipped 1 corrupt line" in runs and "eval.jsonl missing" in runs

    reading = md.split("## Reading", 1)[1].split("\n## ", 1)[0]
    assert "Highest trained success on seen tasks: Outcome + SPA (91.7%" in reading
    assert "Outcome + SPA reduced the mean steps of successful seen episodes" in reading
    assert "1 of 9 runs did not finish (1 crashed)" in reading
    assert "](plots/overview.png)" in md and "](plots/milestone-adaptive.png)" in md
    assert f"gui-gym study --report-only --out {study}" in md

    for name in (*SETTINGS, "overview"):
        png = study / "plots" / f"{name}.png"
        with Image.open(png) as im:
            im.verify()
            assert im.format == "PNG"


def test_aggregate_numbers(study: Path) -> None:
    data = load_study(study)
    assert [(r.setting, r.seed) for r in data.runs] == [(n, k) for n in SETTINGS for k in SEEDS]
    agg = aggregate(data)
    assert agg["outcome"].mean("seen_all") == pytest.approx(2 / 3)
    assert agg["outcome"].metrics["seen_all"].std == pytest.approx(statistics.stdev([4 / 6, 3 / 6, 5 / 6]))
    assert agg["spa"].finished == 2 and agg["spa"].shortfall == {"crashed": 1}
    assert agg.untrained.metrics["seen_all"].values == pytest.approx([1 / 6, 2 / 6, 0])
    assert agg["milestone-adaptive"].metrics["coverage"].values == pytest.approx([0.5, 1.0, 1.0])
    rows = {r["setting"]: r for r in summary_table(data)}
    assert next(iter(rows)) == "untrained"
    assert rows["spa"]["seen_all_mean"] == pytest.approx(11 / 12) and rows["spa"]["seen_successes"] == 11
    rows = {r["setting"]: r for r in vs_baseline(agg)}
    assert set(rows) == {"spa", "milestone-adaptive"}
    # paired seeds 0 and 1: unseen 2/2 − 1/2 and 1/2 − 0/2, both +1/2
    assert rows["spa"]["unseen"].n == 2 and rows["spa"]["unseen"].mean == pytest.approx(0.5)
    assert rows["spa"]["counts_seen"] == ((11, 12), (12, 18))
    fams = families(agg)
    assert set(fams) == {"primary", "secondary"} and fams["primary"].m == fams["secondary"].m == 0
    missing = {r.comparison.setting: r.missing for r in fams["primary"].results}
    assert missing["empo"] == ("empo",) and missing["milestone-adaptive@paper"] == ("milestone-adaptive@paper",
                                                                                    "outcome-step")  # fmt: skip


def test_broken_and_missing_files_are_recorded(study: Path) -> None:
    (study / "runs" / "spa" / "seed1" / "status.json").write_text("{not json")
    (study / "runs" / "outcome" / "seed2" / "status.json").unlink()
    (study / "models" / "orm" / "eval.json").write_text("[1, 2")
    cfg = json.loads((study / "study.json").read_text())
    cfg["config"]["seeds"] = [0, 1, 2, 3]  # seed 3 never started
    (study / "study.json").write_text(json.dumps(cfg))
    data = load_study(study)
    status = {(r.setting, r.seed): r for r in data.runs}
    assert status["spa", 1].status == "unreadable" and "status.json unreadable" in status["spa", 1].reason
    assert status["outcome", 2].status == "missing" and "status.json missing" in status["outcome", 2].reason
    assert status["outcome", 3].status == "missing" and status["outcome", 3].reason == "run directory missing"
    assert data.models["orm"].status == "unreadable"
    md = write_report(study, reading="Our reading of the numbers.").read_text(encoding="utf-8")
    spa = _row(md, "## Success by difficulty", "Outcome + SPA")
    assert spa[1] == "1/4 (1 crashed, 1 missing, 1 unreadable)"
    assert "| outcome | 3 | missing |" in md and "| spa | 1 | unreadable |" in md
    assert "Our reading of the numbers." in md and "No reading written yet" not in md
    assert "model orm: eval.json unreadable" in md


def test_setting_without_finished_runs_keeps_its_row(study: Path) -> None:
    for seed in (0, 1):
        p = study / "runs" / "spa" / f"seed{seed}" / "status.json"
        p.write_text(json.dumps(json.loads(p.read_text()) | {"status": "diverged", "error": "loss is nan"}))
    md = write_report(study).read_text(encoding="utf-8")
    spa = _row(md, "## Success by difficulty", "Outcome + SPA")
    assert spa[1] == "0/3 (1 crashed, 2 diverged)" and set(spa[2:]) == {"—"}
    assert _row(md, "## Significance", "Outcome + SPA")[2] == "—"  # no paired seeds
    agg = aggregate(load_study(study))
    assert all("Outcome + SPA reduced" not in s for s in auto_reading(load_study(study), agg))


def test_load_study_empty_dir(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=re.escape(str(tmp_path))):
        load_study(tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_study(tmp_path / "nowhere")


def _text_study(tmp_path: Path, env_id: str, runs: dict[tuple[str, int], list[dict[str, Any]]]) -> Path:
    out = tmp_path / env_id
    config = {"mode": "full-text", "settings": sorted({s for s, _ in runs}), "seeds": sorted({k for _, k in runs}),
              "extra": {"env_id": env_id}}  # fmt: skip
    out.mkdir()
    (out / "study.json").write_text(json.dumps({"mode": "full-text", "config": config}))
    for (name, seed), rows in runs.items():
        run = out / "runs" / name / f"seed{seed}"
        run.mkdir(parents=True)
        (run / "status.json").write_text(json.dumps({"setting": name, "seed": seed, "status": "done"}))
        _jsonl(run / "eval.jsonl", rows)
    return out


def _ev(phase: str, split: str, task: str, seed: int, success: bool, score: float | None = None) -> dict[str, Any]:
    row = {"phase": phase, "split": split, "task": task, "seed": seed, "difficulty": "easy", "success": success,
           "length": 4}  # fmt: skip
    return row if score is None else {**row, "score": score}


def test_table4_columns_on_webshop_and_alfworld_by_hand(tmp_path: Path) -> None:
    # WebShop: two seen episodes scored 1.0 and 0.5, one unseen scored 0.25 (trained), untrained all 0
    shop = [_ev("untrained", "seen", "human:1", s, False, 0.0) for s in (0, 1)]
    shop += [_ev("untrained", "unseen", "human:9", 0, False, 0.0)]
    shop += [_ev("trained", "seen", "human:1", 0, True, 1.0), _ev("trained", "seen", "human:1", 1, False, 0.5)]
    shop += [_ev("trained", "unseen", "human:9", 0, False, 0.25)]
    md = write_report(_text_study(tmp_path, "WebShop-v0", {("outcome", 0): shop})).read_text()
    assert "## ADMIRE Table 4's columns" in md and "Score (unseen)" in md
    # Score = (1.0 + 0.5) / 2 = 75.0, Succ. = 1 / 2 = 50.0; unseen 25.0 and 0.0
    assert _row(md, "## ADMIRE Table 4's columns", "Outcome (env check)")[1:] == ["75.0", "50.0", "25.0", "0.0"]
    assert _row(md, "## ADMIRE Table 4's columns", "Untrained policy")[1:] == ["0.0", "0.0", "0.0", "0.0"]
    # ALFWorld: per task type from the id's prefix; seed 0 and 1 of one setting
    pick, look = "pick_and_place_simple-Pen-None-Desk-1/trial_1", "look_at_obj_in_light-Box-None-DeskLamp-2/trial_2"
    alf = {}
    for seed, (p, lk) in enumerate(((True, False), (True, True))):
        rows = [_ev("untrained", "seen", pick, 0, False), _ev("untrained", "seen", look, 0, False)]
        rows += [_ev("trained", "seen", pick, 0, p), _ev("trained", "seen", look, 0, lk)]
        alf["outcome", seed] = rows
    md = write_report(_text_study(tmp_path, "ALFWorld-v0", alf)).read_text()
    cells = _row(md, "## ADMIRE Table 4's columns", "Outcome (env check)")
    # Pick 100 in both seeds; Look 0 then 100: 50.0 ± 70.7; All 50 then 100: 75.0 ± 35.4; no Clean/Heat/...
    assert cells[1] == "100.0 ± 0.0" and cells[6] == _pm([0.0, 1.0]) and cells[7] == _pm([0.5, 1.0])
    assert cells[2] == "—" and cells[8] == "—"  # no Clean task, no unseen split
    assert "## ADMIRE Table 4's columns" not in write_report(_text_study(tmp_path, "GuiAndroid-v0", alf)).read_text()


def test_warm_start_section_says_how_many_tiers_are_in_the_band(study: Path) -> None:
    def stats(easy: float, medium: float, hard: float) -> dict[str, float]:  # pass@1 is half of pass@8 here
        tiers = {"easy": easy, "medium": medium, "hard": hard, "all": 0.5}
        return {f"pass@8_{t}": v for t, v in tiers.items()} | {f"pass@1_{t}": v / 2 for t, v in tiers.items()}

    (study / "sft").mkdir()
    summary = {"config": {"k": 8}, "before": stats(0.25, 0, 0), "kept": stats(1.0, 0.875, 0.5),
               "demonstration_steps": 100, "coverage": 1.0, "kept_epoch": 3, "epochs_run": 4}  # fmt: skip
    (study / "sft" / "sft_summary.json").write_text(json.dumps(summary))
    md = write_report(study).read_text()
    # easy is saturated (pass@8 = 1): two of the three tiers are in the band
    assert "epoch 3 of 4 kept: 2 of 3 tiers at 0 < pass@8 < 1, the most any epoch reached" in md
    assert _row(md, "## Warm start", "easy") == ["easy", "12.5", "25.0", "50.0", "100.0"]
    summary["kept"] = stats(0.5, 0.25, 0.125)
    (study / "sft" / "sft_summary.json").write_text(json.dumps(summary))
    assert "kept: every tier at 0 < pass@8 < 1, then the highest pass@1" in write_report(study).read_text()


def test_primary_comparisons_by_hand_and_their_marks(tmp_path: Path) -> None:
    """EMPO and UI-Mem against Outcome on three paired seeds (4 seen episodes each): the family's two
    tests, Holm over them, the mark from the corrected p, and the comparisons the study cannot make."""
    wins = {"outcome": (1, 2, 1), "empo": (3, 4, 4), "uimem": (1, 2, 2)}
    runs = {}
    for name, per_seed in wins.items():
        for seed, k in enumerate(per_seed):
            rows = [_ev("untrained", "seen", "T", i, False) for i in range(4)]
            rows += [_ev("trained", "seen", "T", i, i < k) for i in range(4)]
            rows += [_ev("trained", "unseen", "U", i, i < 1) for i in range(2)]
            runs[name, seed] = rows
    out = _text_study(tmp_path, "GuiAndroid-v0", runs)
    fam = families(aggregate(load_study(out)))["primary"]
    by = {r.comparison.setting: r for r in fam.results}
    # EMPO: d = 2/4, 2/4, 3/4, t = (7/12) / (s/√3) = 7 on 2 df, p = 1 − 7/√51 = 0.0198; UI-Mem: d = 0, 0, 1/4,
    # t = 1, p = 1 − 1/√3 = 0.4226. Holm over the two: 2 · 0.0198 = 0.0396, then max(0.0396, 0.4226)
    empo, uimem = by["empo"], by["uimem"]
    assert empo.seen.mean == pytest.approx(7 / 12) and empo.seen.p == pytest.approx(1 - 7 / 51**0.5)
    assert uimem.seen.p == pytest.approx(1 - 1 / 3**0.5)
    assert (
        fam.m == 2
        and empo.p_holm == pytest.approx(2 * (1 - 7 / 51**0.5))
        and uimem.p_holm == pytest.approx(1 - 1 / 3**0.5)
    )
    assert empo.power == pytest.approx(paired_power(0.04, empo.seen.sd, 3, 0.05, m=2))
    assert by["spa@paper"].why_untested() == "not available: the study has no `spa@paper` runs"

    md = write_report(out).read_text(encoding="utf-8")
    row = _row(md, "### Primary comparisons", "4. EMPO vs GRPO")
    assert row[1:8] == ["3", "+58.3\\*", _ci(empo.seen.ci), "14.4", "0.020", "0.040", f"{empo.power:.2f}"]
    assert _row(md, "### Primary comparisons", "5. UI-Mem vs GRPO")[2:7] == ["+8.3", _ci(uimem.seen.ci), "14.4",
                                                                             "0.423", "0.423"]  # fmt: skip
    assert "α/m = 0.05/2 = 0.025" in md
    # the success table marks EMPO's seen cell (its primary test survives Holm), nothing else
    success = md.split("## Success by difficulty", 1)[1].split("### Learning curves", 1)[0]
    assert _row(md, "## Success by difficulty", "EMPO (offline experience)")[5] == "**91.7 ± 14.4\\***"  # bold, marked
    assert success.count("\\*") == 2  # the legend's and EMPO's
    assert "None of the 8 comparisons could be tested in this study" in md  # the secondary family
    reading = md.split("## Reading", 1)[1]
    assert "Primary comparisons (Holm over 2 of 5): significant at 0.05: EMPO vs GRPO, Δ +58.3 pp" in reading
    assert "Not tested among the primary comparisons: ADMIRE vs Outcome, both step-level GRPO (not available" in reading


def _ci(c: tuple[float, float]) -> str:
    return f"[{100 * c[0]:+.1f}, {100 * c[1]:+.1f}]"


# ----------------------------------------------------------------------------- packed (gzipped) raw files


def _raw_files(out: Path) -> dict[str, bytes]:
    """Every run's raw file by its path under ``out``, as its plain bytes (a .gz decompressed)."""
    found = {}
    for path in sorted((out / "runs").glob("*/seed*/*.jsonl*")):
        data = path.read_bytes()
        found[str(path.relative_to(out)).removesuffix(".gz")] = gzip.decompress(data) if path.suffix == ".gz" else data
    return found


def test_a_packed_run_reads_back_identically_and_reproducibly(study: Path, tmp_path: Path) -> None:
    run = study / "runs" / "milestone-adaptive" / "seed1"  # its metrics end in a torn line: kept as it is
    plain = {n: (run / n).read_bytes() for n in RAW_FILES}
    before = load_study(study)
    assert [p.name for p in pack_run(run)] == ["eval.jsonl.gz", "metrics.jsonl.gz"]
    for name, data in plain.items():
        assert not (run / name).exists() and gzip.decompress((run / f"{name}.gz").read_bytes()) == data
    after = load_study(study)
    for a, b in zip(before.runs, after.runs, strict=True):
        assert (a.eval_rows, a.metrics, a.problems) == (b.eval_rows, b.metrics, b.problems), (a.setting, a.seed)
    assert "metrics.jsonl: skipped 1 corrupt line(s) (line 12)" in after.runs[7].problems  # the plain file's name
    # the same lines give the same bytes: no time or file name in the gzip header
    again = tmp_path / "again"
    again.mkdir()
    for name, data in plain.items():
        (again / name).write_bytes(data)
    time.sleep(0.01)
    pack_run(again)
    for name in plain:
        assert (again / f"{name}.gz").read_bytes() == (run / f"{name}.gz").read_bytes()


def test_a_study_of_packed_and_plain_runs_reports_as_all_plain(study: Path) -> None:
    md = write_report(study).read_text(encoding="utf-8")
    raw = _raw_files(study)
    for name in SETTINGS:  # seed 0 of each setting packed, the others plain
        pack_run(study / "runs" / name / "seed0")
    assert {p.suffix for p in (study / "runs").glob("*/seed*/*.jsonl*")} == {".gz", ".jsonl"}
    assert write_report(study).read_text(encoding="utf-8") == md
    assert _raw_files(study) == raw
    packed = pack_study(study)
    assert packed["finished"] == 9 and packed["packed"] == 6 and packed["after"] < packed["before"]
    assert not list((study / "runs").glob("*/seed*/*.jsonl"))
    assert write_report(study).read_text(encoding="utf-8") == md and _raw_files(study) == raw


def test_pack_is_idempotent_and_leaves_unfinished_runs_plain(study: Path, capsys) -> None:
    unfinished = study / "runs" / "spa" / "seed1"
    (unfinished / "status.json").unlink()  # a run still training appends to its plain files
    assert main(["study", "--pack", "--out", str(study)]) == 0
    assert "packed 8 of the 8 finished runs" in capsys.readouterr().out
    assert sorted(p.name for p in unfinished.iterdir()) == ["eval.jsonl", "metrics.jsonl"]
    files = {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted((study / "runs").rglob("*.*"))}
    assert pack_study(study)["packed"] == 0
    assert {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted((study / "runs").rglob("*.*"))} == files
    # a run killed between writing its .gz and removing the plain file: packed again, the same bytes
    done = study / "runs" / "outcome" / "seed0"
    gz = (done / "eval.jsonl.gz").read_bytes()
    (done / "eval.jsonl").write_bytes(gzip.decompress(gz))
    assert pack_study(study)["packed"] == 1 and (done / "eval.jsonl.gz").read_bytes() == gz
    assert not (done / "eval.jsonl").exists()
    assert main(["study", "--pack", "--out", str(study)]) == 0
    assert "packed 0 of the 8 finished runs" in capsys.readouterr().out
    assert main(["study", "--pack", "--out", str(study / "nowhere")]) == 2
    assert "holds no runs/" in capsys.readouterr().err


def test_slimmed_metrics_keep_what_the_report_reads(study: Path) -> None:
    """``--pack --slim``: a packed metrics file keeps only the report's columns; the report and
    its numbers are the same, the files smaller, and slimming again changes nothing."""
    md = write_report(study).read_text(encoding="utf-8")
    before = load_study(study)
    packed = pack_study(study, slim=True)
    assert packed["slimmed"] > 0 and packed["after"] < packed["before"]
    for path in (study / "runs").glob("*/seed*/metrics.jsonl.gz"):
        for row in read_jsonl_objects(path)[0]:
            assert set(row) <= REPORT_COLUMNS, path
    after = load_study(study)
    for a, b in zip(before.runs, after.runs, strict=True):
        assert a.eval_rows == b.eval_rows and a.problems == b.problems, (a.setting, a.seed)
        assert [{k: v for k, v in m.items() if k in REPORT_COLUMNS} for m in a.metrics] == b.metrics
    assert write_report(study).read_text(encoding="utf-8") == md
    files = {p: p.read_bytes() for p in sorted((study / "runs").rglob("*.gz"))}
    assert not any(slim_run(p.parent) for p in files if p.name == "metrics.jsonl.gz")
    assert {p: p.read_bytes() for p in files} == files


def test_a_corrupt_gz_is_an_error_naming_the_file(study: Path) -> None:
    run = study / "runs" / "outcome" / "seed1"
    pack_run(run)
    path = run / "eval.jsonl.gz"
    path.write_bytes(path.read_bytes()[:-10])  # truncated
    with pytest.raises(CorruptFileError, match=re.escape(f"{path}: not a readable gzip file (EOFError")):
        read_jsonl_objects(path)
    damaged = run / "metrics.jsonl.gz"
    data = bytearray(damaged.read_bytes())
    data[-8] ^= 0xFF  # the CRC-32
    damaged.write_bytes(bytes(data))
    with pytest.raises(CorruptFileError, match=re.escape(f"{damaged}: not a readable gzip file (BadGzipFile")):
        read_jsonl_objects(damaged)
    record = {(r.setting, r.seed): r for r in load_study(study).runs}["outcome", 1]
    assert record.eval_rows == [] and not record.usable
    assert any(p.startswith("eval.jsonl.gz unreadable (not a readable gzip file") for p in record.problems)
    assert any(p.startswith("metrics.jsonl.gz unreadable (") for p in record.problems)
    runs = write_report(study).read_text(encoding="utf-8").split("## Runs", 1)[1].split("\n## ", 1)[0]
    assert "eval.jsonl.gz unreadable (not a readable gzip file (EOFError" in runs


def test_the_learning_curve_plot_reads_a_packed_run(study: Path) -> None:
    run = study / "runs" / "outcome" / "seed0"
    rows = read_metrics(run)
    pack_run(run)
    assert read_metrics(run) == rows and read_metrics(run / "metrics.jsonl.gz") == rows
