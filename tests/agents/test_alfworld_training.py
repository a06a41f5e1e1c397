"""``gui-gym train --env ALFWorld-v0`` runs every trainer and shaped reward on the ALFWorld family,
with no Android code on the way (a fresh interpreter; the tiny random encoder keeps it quick)."""

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


def _train(out: Path, encoder: str, *extra: str) -> subprocess.CompletedProcess[str]:
    args = ["train", "--env", "ALFWorld-v0", "--tasks", "eval_in_distribution:easy", "--iterations", "2",
            "--tasks-per-iter", "2", "--group-size", "2", "--num-envs", "2", "--max-steps", "6",
            "--eval-every", "2", "--eval-tasks", "eval_out_of_distribution:pick_and_place_simple:easy",
            "--eval-episodes", "1", "--encoder", encoder, "--hidden", "8", "--out", str(out), "--no-progress",
            *extra]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.parametrize(
    ("algo", "reward"),
    [("grpo", "milestone+spa"), ("adagrpo", "milestone-adaptive")],  # rloo, dapo, reinforce++ also pass (≈45 s each)
)
def test_trainers_and_rewards_run_on_alfworld(tmp_path: Path, tiny_encoder: str, algo: str, reward: str) -> None:
    run = _train(tmp_path / algo, tiny_encoder, "--algo", algo, "--reward", reward)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "ANDROID_MODULES []" in run.stdout
    rows = [json.loads(line) for line in (tmp_path / algo / "metrics.jsonl").read_text().splitlines()]
    trained = [r for r in rows if r["iteration"] >= 0 and "episodes" in r]
    assert len(trained) == 2 and all(r["episodes"] > 0 for r in trained)
    assert any("eval_success_rate" in r for r in rows)
