"""``gui-gym train --env WebShop-v0`` runs trainers and shaped rewards on the WebShop family
unchanged, with no Android code on the way (a fresh interpreter; the tiny random encoder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = """
import sys
from agents.cli import main
rc = main(sys.argv[1:])
android = sorted(m for m in sys.modules if m.startswith("gui_gym.android"))
print("ANDROID_MODULES", android)
sys.exit(rc or (3 if android else 0))
"""


@pytest.mark.parametrize(("algo", "reward"), [("grpo", "milestone+spa"), ("adagrpo", "milestone-adaptive")])
def test_trainers_and_rewards_run_on_webshop(tmp_path: Path, tiny_encoder: str, algo: str, reward: str) -> None:
    args = ["train", "--env", "WebShop-v0", "--tasks", "train:easy", "--iterations", "2", "--tasks-per-iter", "2",
            "--group-size", "2", "--num-envs", "2", "--max-steps", "6", "--eval-every", "2",
            "--eval-tasks", "human:0,human:1", "--eval-episodes", "1", "--encoder", tiny_encoder, "--hidden", "8",
            "--out", str(tmp_path / algo), "--no-progress", "--algo", algo, "--reward", reward]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    run = subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, env=env, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "ANDROID_MODULES []" in run.stdout
    rows = [json.loads(line) for line in (tmp_path / algo / "metrics.jsonl").read_text().splitlines()]
    trained = [r for r in rows if r["iteration"] >= 0 and "episodes" in r]
    assert len(trained) == 2 and all(r["episodes"] > 0 for r in trained)
    assert any("eval_success_rate" in r for r in rows)
