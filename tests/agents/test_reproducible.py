"""Runs repeat bit for bit: ``gui-gym train`` under other thread settings, and killed and resumed.

Each run is a real ``gui-gym train`` process (the candidate policy on a tiny encoder, ADMIRE's
adaptive milestones with SPA at step level, settled per batch, on the real MiniLM); the killed
one gets SIGKILL at a random point after its second iteration, and ``--resume`` finishes it in a
new process with an empty embedding cache.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from agents.train import load_checkpoint

ROOT = Path(__file__).resolve().parents[2]
ITERATIONS = 8


def _env(threads: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GUI_GYM_THREADS"}
    return {**env, "OMP_NUM_THREADS": str(threads), "PYTHONUNBUFFERED": "1"}


def _command(out: Path, encoder: str, *more: str) -> list[str]:
    return [
        sys.executable, "-m", "agents.cli", "train", "--tasks", "SystemWifiTurnOn,ClockStopWatchRunning",
        "--reward", "milestone-adaptive+spa", "--level", "step", "--iterations", str(ITERATIONS),
        "--tasks-per-iter", "2", "--group-size", "3",
        "--num-envs", "3", "--max-steps", "6", "--eval-every", "2", "--eval-episodes", "1", "--hidden", "16",
        "--minibatch", "8", "--encoder", encoder, "--out", str(out), "--no-progress", *more,
    ]  # fmt: skip


def _train(out: Path, encoder: str, threads: int = 1, *more: str) -> None:
    done = subprocess.run(_command(out, encoder, *more), cwd=ROOT, env=_env(threads), capture_output=True,
                          text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def _untimed(row: dict) -> dict:
    """A metrics row without its wall-clock fields."""
    return {k: v for k, v in row.items() if not k.startswith("time_")}


def _rows(out: Path) -> list[dict]:
    return [_untimed(json.loads(line)) for line in (out / "metrics.jsonl").read_text().splitlines()]


def _assert_same_run(a: Path, b: Path) -> None:
    assert _rows(a) == _rows(b)
    ca, cb = load_checkpoint(a / "checkpoint.pt"), load_checkpoint(b / "checkpoint.pt")
    assert ca["iteration"] == cb["iteration"] == ITERATIONS
    assert ca["policy"].keys() == cb["policy"].keys()
    for k in ca["policy"]:
        assert torch.equal(ca["policy"][k], cb["policy"][k]), k
    for sa, sb in zip(ca["optimizer"]["state"].values(), cb["optimizer"]["state"].values(), strict=True):
        assert all(torch.equal(sa[k], sb[k]) for k in sa)
    sa, sb = (json.loads((d / "summary.json").read_text()) for d in (a, b))
    for key in ("first_eval", "last_eval", "random_policy"):
        assert _untimed(sa[key]) == _untimed(sb[key]), key


@pytest.fixture(scope="module")
def straight(tmp_path_factory: pytest.TempPathFactory, tiny_encoder: str) -> Path:
    """The uninterrupted run, on one thread."""
    out = tmp_path_factory.mktemp("straight") / "run"
    _train(out, tiny_encoder)
    return out


def test_thread_settings_do_not_change_a_run(straight: Path, tiny_encoder: str, tmp_path: Path) -> None:
    """OMP_NUM_THREADS=2 and --threads 2 against OMP_NUM_THREADS=1: the same bits."""
    out = tmp_path / "run"
    _train(out, tiny_encoder, 2, "--threads", "2")
    _assert_same_run(straight, out)


def test_a_killed_run_resumes_bit_for_bit(straight: Path, tiny_encoder: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = subprocess.Popen(_command(out, tiny_encoder), cwd=ROOT, env=_env(1), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        deadline = time.monotonic() + 240  # hang detection only
        while not any(r.get("iteration", -1) >= 1 for r in _read_partial(out / "metrics.jsonl")):
            assert proc.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, "no second iteration within 240 s"
            time.sleep(0.05)
        time.sleep(random.uniform(0.0, 0.2))  # somewhere in the iterations that follow (each well under 1 s)
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(timeout=30) == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
    stopped_at = load_checkpoint(out / "checkpoint.pt")["iteration"]
    assert 2 <= stopped_at < ITERATIONS
    _train(out, tiny_encoder, 1, "--resume")
    _assert_same_run(straight, out)


def _read_partial(path: Path) -> list[dict]:
    """The complete lines of a file another process is writing."""
    try:
        lines = path.read_text().splitlines()
    except FileNotFoundError:
        return []
    out = []
    for line in lines:
        with contextlib.suppress(json.JSONDecodeError):
            out.append(json.loads(line))
    return out
