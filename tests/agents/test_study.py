"""The reward-shaping study end to end in a tiny configuration, and the pieces it adds.

Runs use the real trainer, envs and MiniLM matcher; the candidate policy reads a tiny random
encoder to keep the suite fast.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401
from agents.cli import main
from agents.study.data import RAW_FILES, load_study, run_file
from agents.study.leakage import EXPERIENCE_FILE, EXPERIENCE_SEEDS
from agents.study.runner import code_version, estimate_minutes, read_status, run_dir, run_study, train_config
from agents.study.settings import MODES, SETTINGS, StudyConfig, setting
from wrappers import MilestoneReward
from wrappers.spec import admire_config, make_env, parse_reward, wrapper_chain


def tiny(tmp_encoder: str, **changes) -> StudyConfig:
    base = MODES["quick"].with_overrides(
        train_tasks="SystemWifiTurnOn,TasksEditPriority",
        heldout_tasks="SystemBluetoothTurnOff",
        settings=("outcome", "milestone-static"),
        seeds=(0,),
        iterations=2,
        tasks_per_iter=2,
        group_size=4,
        max_steps=6,
        eval_every=1,
        curve_episodes=1,
        eval_episodes=2,
        num_envs=4,
        workers=1,
        warm_start=False,
        extra={"encoder": tmp_encoder},
    )
    return base.with_overrides(**changes)


def _raw(d: Path, name: str) -> list[str]:
    """The lines of a run's eval.jsonl or metrics.jsonl: gzipped once the run has finished, plain before."""
    path = run_file(d, name)
    assert path is not None, f"no {name} in {d}"
    data = path.read_bytes()
    return (gzip.decompress(data) if path.name.endswith(".gz") else data).decode().splitlines()


# ----------------------------------------------------------------------------- reward specs


def test_milestone_options_are_admire_ablation_switches():
    assert admire_config("no-decay,base-success") == admire_config("base-success,no-decay")
    cfg = admire_config("no-decay,no-base-failure,base-success")
    assert (cfg.decay, cfg.base_on_failure, cfg.base_on_success) == (False, False, True)
    assert admire_config(None) == admire_config("")
    env = make_env("GuiAndroid-v0", tasks="SystemWifiTurnOn", reward="milestone-adaptive=no-base-failure")
    (wrapper,) = wrapper_chain(env)
    assert wrapper.book is not None and wrapper.config.base_on_failure is False
    for bad, words in [("milestone=decay", "unknown milestone option"), ("spa=x", "takes no argument"),
                       ("orm", "needs a checkpoint")]:  # fmt: skip
        with pytest.raises(ValueError, match=words):
            parse_reward(bad)


def test_the_orm_term_is_always_innermost():
    assert [n for n, _ in parse_reward("milestone+spa+orm=m.pt")] == ["orm", "milestone", "spa"]


def test_milestone_wrapper_reports_hits_and_total_at_the_last_step():
    class Exact:
        delta = 0.75

        def score(self, action: str, milestone: str) -> float:
            return 1.0 if action == "Launch Settings" and "Settings" in milestone else 0.0

    env = MilestoneReward(gym.make("GuiAndroid-v0", task="SystemWifiTurnOn", max_steps=2), matcher=Exact())
    _, info = env.reset(seed=0)
    _, _, _, _, info = env.step('do(action="Launch", app="Settings")')
    assert "milestones_total" not in info
    _, _, term, trunc, info = env.step('do(action="Wait")')
    assert term or trunc
    assert (info["milestones_hit"], info["milestones_total"]) == (1, len(env.milestones)) and len(env.milestones) == 3


# ----------------------------------------------------------------------------- the study


def test_settings_cover_the_issue_and_unknown_names_fail():
    names = {s.name for s in SETTINGS}
    assert {"outcome", "orm", "milestone-static", "milestone-adaptive", "progress-env", "progress-lcs", "spa",
            "milestone+spa", "admire-base-success", "admire-no-base-failure", "admire-no-decay"} <= names  # fmt: skip
    for s in SETTINGS:
        parse_reward(s.spec("/models"))  # every spec parses
    with pytest.raises(ValueError, match="unknown study setting"):
        setting("milestones")


def test_the_time_estimate_takes_its_pace_from_finished_runs(tmp_path):
    cfg = tiny("unused", settings=("outcome", "milestone-static", "spa"), seeds=(0, 1), iterations=100, workers=2)
    assert estimate_minutes(cfg) == 3 * 100 * 1.5 / 60  # 6 runs on 2 workers, the default pace
    cfg = dataclasses.replace(cfg, workers=1)
    for name, seed, wall in (("outcome", 0, 300.0), ("spa", 1, 500.0)):
        run = run_dir(tmp_path, name, seed)
        run.mkdir(parents=True)
        (run / "status.json").write_text(json.dumps({"status": "done", "iterations": 100, "wall_s": wall}))
    crashed = run_dir(tmp_path, "outcome", 1)
    crashed.mkdir(parents=True)
    (crashed / "status.json").write_text(json.dumps({"status": "crashed", "iterations": 3, "wall_s": 1.0}))
    # 3 runs left at (3 + 5) / 2 = 4 s per iteration; 4 when the crashed one is retried
    assert estimate_minutes(cfg, tmp_path) == 3 * 100 * 4.0 / 60
    assert estimate_minutes(cfg, tmp_path, retry_failed=True) == 4 * 100 * 4.0 / 60
    # a run resumed at iteration 90 took its 40 s for the last 10 iterations: (3 + 5 + 4) / 3
    resumed = run_dir(tmp_path, "milestone-static", 0)
    resumed.mkdir(parents=True)
    (resumed / "status.json").write_text(json.dumps({"status": "done", "iterations": 100, "wall_s": 40.0,
                                                     "resumed_at": 90}))  # fmt: skip
    assert estimate_minutes(cfg, tmp_path) == 2 * 100 * 4.0 / 60


def test_smoke_study_end_to_end_and_resume(tmp_path, tiny_encoder):
    out = tmp_path / "study"
    report = run_study(tiny(tiny_encoder), out, command="gui-gym study --test", progress=False)
    assert report == out / "reward_study.md"
    for name in ("outcome", "milestone-static"):
        d = run_dir(out, name, 0)
        status = read_status(d)
        assert status is not None and status["status"] == "done" and status["iterations"] == 2, status
        rows = [json.loads(line) for line in _raw(d, "eval.jsonl")]
        # 2 phases × (2 seen tasks + 1 unseen task) × 2 seeds
        assert len(rows) == 12
        assert {(r["phase"], r["split"]) for r in rows} == {
            (p, s) for p in ("untrained", "trained") for s in ("seen", "unseen")
        }
        assert {r["task"] for r in rows if r["split"] == "unseen"} == {"SystemBluetoothTurnOff"}
        assert all(r["score"] == float(r["success"]) for r in rows)  # the phone's task score is its success
        metrics = [json.loads(line) for line in _raw(d, "metrics.jsonl")]
        assert [m["iteration"] for m in metrics] == [-1, 0, 1]
    static = read_status(run_dir(out, "milestone-static", 0))
    assert static["milestone_coverage"] == 1.0 and isinstance(static["milestone_hits"], dict)
    first = _raw(run_dir(out, "milestone-static", 0), "metrics.jsonl")[1]
    assert "milestone_hits" in json.loads(first)
    assert read_status(run_dir(out, "outcome", 0))["milestone_hits"] is None
    # each run names the code it ran (the commit, +dirty with uncommitted changes), where there is a checkout
    code = read_status(run_dir(out, "outcome", 0))["code"]
    assert code == code_version() and (code is None or re.fullmatch(r"[0-9a-f]{40}(\+dirty)?", code))
    # A finished run's raw files are gzipped (byte-reproducibly: no time or name in the header), and read
    # back as the rows they held.
    loaded = {r.setting: r for r in load_study(out).runs}
    for name in ("outcome", "milestone-static"):
        d = run_dir(out, name, 0)
        for raw in RAW_FILES:
            assert not (d / raw).exists() and (d / f"{raw}.gz").read_bytes()[4:8] == bytes(4), (name, raw)
        keys = ("phase", "split", "task", "seed", "success", "length", "score")
        written = [{k: json.loads(x)[k] for k in keys} for x in _raw(d, "eval.jsonl")]
        assert [{k: r[k] for k in keys} for r in loaded[name].eval_rows] == written and len(written) == 12
        assert loaded[name].metrics == [json.loads(x) for x in _raw(d, "metrics.jsonl")]

    text = report.read_text()
    study = json.loads((out / "study.json").read_text())
    assert study["command"] == "gui-gym study --test" and study["finished"] and study["mode"] == "quick"
    assert "gui-gym study --test" in text
    for heading in ("## Success by difficulty", "## Significance", "## Steps to success",
                    "## Shaped reward against success during training", "## Milestones: static vs adaptive",
                    "## Runs", "## Reading", "## Raw data"):  # fmt: skip
        assert heading in text, heading
    for label in ("Outcome (env check)", "Milestone, static (annotated)"):
        assert re.search(rf"^\|\s*{re.escape(label)}\s*\|", text, re.M), label
    for png in re.findall(r"\(([^)]+\.png)\)", text):
        assert (out / png).is_file(), png
    assert (out / "plots" / "outcome.png").is_file()

    # Resuming skips the finished runs (their files are not rewritten).
    before = {n: (run_dir(out, n, 0) / "status.json").stat().st_mtime_ns for n in ("outcome", "milestone-static")}
    run_study(tiny(tiny_encoder), out, command="gui-gym study --test", progress=False)
    after = {n: (run_dir(out, n, 0) / "status.json").stat().st_mtime_ns for n in before}
    assert before == after

    # Another budget in the same directory is refused, not mixed in.
    with pytest.raises(ValueError, match="another --out"):
        run_study(tiny(tiny_encoder, iterations=3), out, progress=False)


def test_a_study_on_another_family(tmp_path, tiny_encoder):
    """The study asks the env's family for tasks, milestones and difficulty: TextRooms has no Android code."""
    import textrooms  # noqa: F401  (registers TextRooms-v0)

    cfg = tiny(tiny_encoder, train_tasks="LightLamp,OpenChest", heldout_tasks="FetchApple",
               settings=("outcome", "milestone-static", "spa"))  # fmt: skip
    cfg = cfg.with_overrides(extra={**cfg.extra, "env_id": "TextRooms-v0"})
    out = tmp_path / "rooms"
    report = run_study(cfg, out, command="gui-gym study --env TextRooms-v0", progress=False)
    for name in cfg.settings:
        assert read_status(run_dir(out, name, 0))["status"] == "done", name
    rows = [json.loads(line) for line in _raw(run_dir(out, "outcome", 0), "eval.jsonl")]
    assert {r["task"] for r in rows} == {"LightLamp", "OpenChest", "FetchApple"}
    assert {r["difficulty"] for r in rows} == {"easy", "medium"}
    assert read_status(run_dir(out, "milestone-static", 0))["milestone_coverage"] == 1.0
    assert "## Success by difficulty" in report.read_text()


def test_a_crashed_run_is_recorded_and_the_study_goes_on(tmp_path, tiny_encoder, monkeypatch):
    from agents.train import Trainer

    real_run = Trainer.run

    def run(self, close=True):
        if "milestone" in self.cfg.reward:
            raise RuntimeError("simulated failure\nsecond line")
        return real_run(self, close)

    monkeypatch.setattr(Trainer, "run", run)
    out = tmp_path / "study"
    report = run_study(tiny(tiny_encoder), out, progress=False)
    crashed = read_status(run_dir(out, "milestone-static", 0))
    assert crashed["status"] == "crashed" and "simulated failure" in crashed["error"]
    assert read_status(run_dir(out, "outcome", 0))["status"] == "done"
    text = report.read_text()
    assert "crashed" in text and "simulated failure" in text

    # A crashed run is kept as recorded on resume, and rerun with retry_failed.
    monkeypatch.setattr(Trainer, "run", real_run)
    run_study(tiny(tiny_encoder), out, progress=False)
    assert read_status(run_dir(out, "milestone-static", 0))["status"] == "crashed"
    run_study(tiny(tiny_encoder), out, progress=False, retry_failed=True)
    assert read_status(run_dir(out, "milestone-static", 0))["status"] == "done"


def test_a_study_killed_between_runs_keeps_the_time_it_spent(tmp_path, tiny_encoder, monkeypatch):
    """study.json's wall time is written as runs finish and adds up over the processes that resume it."""
    from agents.train import Trainer

    real_iterate = Trainer.iterate

    def iterate(self):
        if "milestone" in self.cfg.reward:
            raise KeyboardInterrupt
        return real_iterate(self)

    monkeypatch.setattr(Trainer, "iterate", iterate)
    out = tmp_path / "study"
    with pytest.raises(KeyboardInterrupt):
        run_study(tiny(tiny_encoder), out, progress=False)
    killed = json.loads((out / "study.json").read_text())
    assert killed["finished"] is None and killed["wall_s"] > 0  # the outcome run's time is kept

    monkeypatch.setattr(Trainer, "iterate", real_iterate)
    report = run_study(tiny(tiny_encoder), out, progress=False)
    done = json.loads((out / "study.json").read_text())
    assert done["finished"] and done["started"] == killed["started"] and done["wall_s"] > killed["wall_s"]
    assert "the runs' own times add up to" in report.read_text()


def test_an_interrupted_run_resumes_from_its_checkpoint(tmp_path, tiny_encoder, monkeypatch):
    from agents.train import Trainer

    calls = {"n": 0}
    real_iterate = Trainer.iterate

    def iterate(self):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real_iterate(self)

    monkeypatch.setattr(Trainer, "iterate", iterate)
    cfg = tiny(tiny_encoder, settings=("outcome",))
    out = tmp_path / "study"
    with pytest.raises(KeyboardInterrupt):
        run_study(cfg, out, progress=False)
    d = run_dir(out, "outcome", 0)
    assert read_status(d) is None and (d / "checkpoint.pt").exists()
    run_study(cfg, out, progress=False)
    status = read_status(d)
    assert status["status"] == "done" and status["iterations"] == 2 and status["resumed_at"] == 1
    assert calls["n"] == 3  # one iteration before the interruption, one after: not restarted
    rows = [json.loads(line) for line in _raw(d, "eval.jsonl")]
    assert sum(r["phase"] == "untrained" for r in rows) == sum(r["phase"] == "trained" for r in rows) == 6


def test_missing_reward_models_fail_only_their_settings(tmp_path, tiny_encoder, monkeypatch):
    import agents.study.reward_models as rm

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(rm, "prepare_reward_models", broken)
    out = tmp_path / "study"
    run_study(tiny(tiny_encoder, settings=("outcome", "progress-env")), out, progress=False, report=False)
    assert read_status(run_dir(out, "outcome", 0))["status"] == "done"
    failed = read_status(run_dir(out, "progress-env", 0))
    assert failed["status"] == "crashed" and "progress-env" in failed["error"]


def test_cli_rejects_unknown_settings_and_rebuilds_reports(tmp_path, tiny_encoder, capsys):
    assert main(["study", "--settings", "outcome,nonsense", "--out", str(tmp_path / "x")]) == 2
    assert "unknown study setting" in capsys.readouterr().err
    assert main(["study", "--report-only", "--out", str(tmp_path / "empty")]) == 2
    out = tmp_path / "study"
    run_study(tiny(tiny_encoder, settings=("outcome",)), out, progress=False, report=False)
    assert not (out / "reward_study.md").exists()
    assert main(["study", "--report-only", "--out", str(out)]) == 0
    assert (out / "reward_study.md").is_file()


# ----------------------------------------------------------------------------- kills and resumes


def _run_files(d) -> dict:
    """What a finished run leaves, less wall-clock figures (and hit counts and the wall time, which
    cover the iterations since a resume)."""
    metrics = [json.loads(line) for line in _raw(d, "metrics.jsonl")]
    status = json.loads((d / "status.json").read_text())
    return {
        "eval": [json.loads(line) for line in _raw(d, "eval.jsonl")],
        "metrics": [{k: v for k, v in m.items() if not k.startswith("time_")} for m in metrics],
        "status": {k: v for k, v in status.items() if k not in ("wall_s", "resumed_at", "milestone_hits")},
    }


def _lines(path: Path) -> int:
    """Lines of a run's metrics.jsonl, or of its metrics.jsonl.gz once it has finished."""
    try:
        data = path.read_bytes()
        return (gzip.decompress(data) if path.name.endswith(".gz") else data).count(b"\n")
    except FileNotFoundError:
        return 0


def _workers_of(pid: int) -> list[int]:
    """The multiprocessing workers ``pid`` started (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (stat.parent / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and b"spawn_main" in cmdline:
            out.append(int(stat.parent.name))
    return out


def test_a_killed_study_resumes_to_the_rows_of_an_uninterrupted_one(tmp_path, tiny_encoder):
    """Killed at a random point (its runs in fresh worker processes, which stop with it) and
    resumed in this process: the same evaluation rows, once each, and the same metrics."""
    cfg = tiny(tiny_encoder, iterations=8)
    run_study(cfg, tmp_path / "a", progress=False, report=False)
    # Runs share their embeddings (the same bits in any process): the tiny encoder's and MiniLM's.
    assert len(list((tmp_path / "a" / "embeddings").glob("*.npz"))) == 2

    out = tmp_path / "b"
    spec = tmp_path / "cfg.json"
    spec.write_text(json.dumps(dataclasses.asdict(cfg.with_overrides(workers=2))))
    script = (
        "import json, sys; from agents.study.settings import StudyConfig; from agents.study.runner import run_study; "
        "d = json.load(open(sys.argv[1])); d['settings'] = tuple(d['settings']); d['seeds'] = tuple(d['seeds']); "
        "run_study(StudyConfig(**d), sys.argv[2], progress=False, report=False)"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", script, str(spec), str(out)], cwd=root,
                            env={**os.environ, "OMP_NUM_THREADS": "1"}, stderr=subprocess.DEVNULL)  # fmt: skip
    workers: set[int] = set()
    try:
        deadline = time.monotonic() + 240  # hang detection only
        # kill when the furthest run has this many metrics rows: short of its last, so that on a loaded
        # machine it cannot also finish (evaluation, status) in the moment the kill takes to arrive
        rows = random.randint(2, cfg.iterations - 1)
        while max((_lines(f) for f in out.glob("runs/*/seed0/metrics.jsonl*")), default=0) < rows:
            assert proc.poll() is None and time.monotonic() < deadline, "the study ended or hung before the kill"
            workers.update(_workers_of(proc.pid))
            time.sleep(0.01)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
    assert workers, "the runs were not in worker processes"
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() for pid in workers):  # orphans would write into the resumed runs
        assert time.monotonic() < deadline, "the workers of the killed study went on"
        time.sleep(0.1)
    assert not all(read_status(run_dir(out, s, 0)) for s in cfg.settings)  # it was stopped before the end

    run_study(cfg, out, progress=False, report=False)
    for name in cfg.settings:
        a, b = _run_files(run_dir(tmp_path / "a", name, 0)), _run_files(run_dir(out, name, 0))
        assert a == b, name
        keys = [(r["phase"], r["split"], r["task"], r["seed"]) for r in b["eval"]]
        assert len(keys) == len(set(keys)) == 12

    # A duplicated row and a torn last line (an older writer's) are rewritten, not kept.
    d = run_dir(out, "outcome", 0)
    lines = _raw(d, "eval.jsonl")
    (d / "eval.jsonl").write_text("\n".join([*lines, lines[0]]) + '\n{"phase": "trained", "spl')
    (d / "status.json").unlink()
    run_study(cfg, out, progress=False, report=False)
    assert _run_files(d)["eval"] == _run_files(run_dir(tmp_path / "a", "outcome", 0))["eval"]


def test_the_empo_setting_trains_offline_and_is_judged_live(tmp_path, tiny_encoder):
    """EMPO trains on the expert trajectories of the training tasks and is evaluated on the phone,
    on the same tasks and seeds as the outcome setting."""
    cfg = tiny(tiny_encoder, settings=("outcome", "empo"))
    out = tmp_path / "empo"
    run_study(cfg, out, progress=False, report=False)
    for name in cfg.settings:
        assert read_status(run_dir(out, name, 0))["status"] == "done", name
    from agents.train import load_checkpoint

    config = load_checkpoint(run_dir(out, "empo", 0) / "checkpoint.pt")["config"]
    assert config["env_id"] == "GuiExperience-v0" and config["algo"] == "empo"
    assert config["tasks"] == "train:SystemWifiTurnOn,train:TasksEditPriority"
    # the study's own expert trajectories, at seeds the evaluation never draws
    assert config["env_kwargs"]["data"] == str(out / EXPERIENCE_FILE)
    from gui_gym.experience.readers import read_gui_gym

    ids = sorted(e.id for e in read_gui_gym(out / EXPERIENCE_FILE))
    assert ids == sorted(f"{t}/{s}" for t in ("SystemWifiTurnOn", "TasksEditPriority") for s in EXPERIENCE_SEEDS)

    def keys(name):
        rows = _raw(run_dir(out, name, 0), "eval.jsonl")
        return sorted((r["phase"], r["split"], r["task"], r["seed"]) for r in map(json.loads, rows))

    assert keys("empo") == keys("outcome")  # judged live: the phone's tasks, not experiences


def test_a_warm_started_study_clones_once_and_every_run_starts_from_it(tmp_path, tiny_encoder):
    """warm_start: the study behaviour-clones one policy (OUT/sft) before its runs, every run's RL
    starts from it (--init), the report shows pass@1 / pass@k per tier before RL, and a resumed
    study reuses the clone."""
    cfg = tiny(tiny_encoder, warm_start=True, sft_epochs=1, sft_demos=1, sft_k=2, settings=("outcome",))
    out = tmp_path / "study"
    run_study(cfg, out, progress=False)
    summary = json.loads((out / "sft" / "sft_summary.json").read_text())
    assert summary["config"]["tasks"] == cfg.train_tasks and summary["config"]["k"] == 2
    assert train_config(cfg, setting("outcome"), 0, out).init == str(out / "sft")
    md = (out / "reward_study.md").read_text()
    assert "## Warm start" in md and "pass@2 at RL start" in md
    stamp = (out / "sft" / "sft_summary.json").stat().st_mtime_ns
    run_study(cfg.with_overrides(seeds=(0, 1)), out, progress=False)  # resumed with one more seed
    assert (out / "sft" / "sft_summary.json").stat().st_mtime_ns == stamp


def test_a_kept_warm_start_without_its_weights_is_cloned_again_and_must_match(tmp_path, tiny_encoder):
    """A committed study keeps the clone's summary, not its weights: on a new machine the study
    clones again and goes on only when the new clone says the same as the kept one."""
    from agents.study.runner import prepare_warm_start

    cfg = tiny(tiny_encoder, warm_start=True, sft_epochs=1, sft_demos=1, sft_k=2, settings=("outcome",))
    out = tmp_path / "study"
    first = prepare_warm_start(cfg, out, progress=False)
    (out / "sft" / "checkpoint.pt").unlink()  # as in a fresh clone of the repository
    again = prepare_warm_start(cfg, out, progress=False)  # the same policy, another wall time
    assert {k: v for k, v in again["kept"].items() if k != "seconds"} == {
        k: v for k, v in first["kept"].items() if k != "seconds"
    }
    assert (out / "sft" / "checkpoint.pt").exists()
    summary = out / "sft" / "sft_summary.json"
    doctored = json.loads(summary.read_text())
    doctored["kept"]["seconds"] = 1e6  # wall time is not the policy: still accepted
    summary.write_text(json.dumps(doctored))
    (out / "sft" / "checkpoint.pt").unlink()
    prepare_warm_start(cfg, out, progress=False)
    doctored["kept"]["pass@1_all"] = 0.99  # another starting policy than this machine clones
    summary.write_text(json.dumps(doctored))
    (out / "sft" / "checkpoint.pt").unlink()
    with pytest.raises(RuntimeError, match="differs from the one this study's runs started from"):
        prepare_warm_start(cfg, out, progress=False)


def test_sampled_evaluation_reaches_the_trainer_and_the_report_header(tmp_path, tiny_encoder):
    cfg = tiny(tiny_encoder, eval_sampled=True)
    assert train_config(cfg, setting("outcome"), 0, tmp_path).eval_greedy is False
    assert train_config(tiny(tiny_encoder), setting("outcome"), 0, tmp_path).eval_greedy is True
    assert MODES["full"].eval_sampled and MODES["full"].eval_episodes >= 16 and MODES["full"].warm_start


def test_a_webshop_study_keeps_the_task_score(tmp_path, tiny_encoder):
    """A purchase that matches only part of the goal scores between 0 and 1: eval rows keep it, and
    the report shows ADMIRE Table 4's Score beside success."""
    cfg = tiny(tiny_encoder, train_tasks="human:1584", heldout_tasks="human:2160", settings=("outcome",),
               iterations=1, max_steps=8, extra={"encoder": tiny_encoder, "env_id": "WebShop-v0"})  # fmt: skip
    report = run_study(cfg, tmp_path / "shop", progress=False)
    rows = [json.loads(x) for x in _raw(run_dir(tmp_path / "shop", "outcome", 0), "eval.jsonl")]
    assert len(rows) == 8 and all(0.0 <= r["score"] <= 1.0 for r in rows)
    assert all(r["success"] == (r["score"] == 1.0) for r in rows)  # verl-agent's rule: success is a score of 1
    assert "## ADMIRE Table 4's columns" in report.read_text() and "| Score | Succ. |" in report.read_text()
