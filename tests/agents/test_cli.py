"""The gui-gym command line: tasks, rollout (with screenshots and JSONL), play."""

from __future__ import annotations

import io
import os

import pytest

from agents.cli import main
from gui_gym.core.trajectory import read_jsonl


def test_tasks_lists_every_task(capsys: pytest.CaptureFixture) -> None:
    assert main(["tasks"]) == 0
    out = capsys.readouterr().out
    assert "ContactsAddContact" in out and "SimpleCalendarAddRepeatingEvent" in out
    assert main(["tasks", "--difficulty", "hard"]) == 0
    hard = capsys.readouterr().out
    assert "ContactsFavorite" not in hard and "ContactsAddMultiple" in hard


def test_rollout_summary_screens_and_trajectories(tmp_path, capsys: pytest.CaptureFixture) -> None:
    screens, out = tmp_path / "screens", tmp_path / "t.jsonl"
    code = main(
        [
            "rollout",
            "--policy",
            "oracle,random",
            "--episodes",
            "2",
            "--task",
            "ContactsFavorite",
            "--save-screens",
            str(screens),
            "--out",
            str(out),
            "--quiet",
        ]
    )
    assert code == 0
    text = capsys.readouterr().out
    assert "policy=oracle" in text and "policy=random" in text
    oracle_line = next(
        line
        for line in text.splitlines()[text.splitlines().index("policy=oracle episodes=2") :]
        if line.strip().startswith("all")
    )
    assert float(oracle_line.split()[2]) == 1.0
    trajs = read_jsonl(out)
    assert len(trajs) == 4 and all(t.task_id == "ContactsFavorite" for t in trajs)
    assert all(t.success for t in trajs if t.meta["policy"] == "oracle")
    pngs = sorted(os.listdir(screens))
    assert pngs and all(p.endswith(".png") for p in pngs) and "ep000_step000.png" in pngs


def test_rollout_unknown_task_is_a_clear_error(capsys: pytest.CaptureFixture) -> None:
    assert main(["rollout", "--task", "ContactsAddContac", "--episodes", "1", "--quiet"]) == 2
    assert "ContactsAddContact" in capsys.readouterr().err


def test_play_reads_actions_until_the_episode_ends(monkeypatch, capsys: pytest.CaptureFixture) -> None:
    lines = ["hint", "not an action", 'do(action="Launch", app="Clock")', "quit"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(lines) + "\n"))
    assert main(["play", "--task", "ClockStopWatchRunning", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "oracle: " in out and "[invalid]" in out and "[ok] Launch Clock" in out


def test_play_ends_on_eof(monkeypatch, capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('finish(message="done")\n'))
    assert main(["play", "--task", "ClockStopWatchRunning"]) == 0
    assert "episode over: success=False" in capsys.readouterr().out


def test_train_preset_is_admire_at_step_level_and_another_algo_brings_its_own_level() -> None:
    import argparse

    from agents.cli.train import add_parser, config_from_args

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers())
    quick = config_from_args(parser.parse_args(["train", "--preset", "quick"]))
    assert (quick.reward, quick.algo, quick.level) == ("milestone", "grpo", "step")
    ada = config_from_args(parser.parse_args(["train", "--preset", "quick", "--algo", "adagrpo"]))
    assert (ada.algo, ada.level) == ("adagrpo", "trajectory")
    ada.check()  # a valid run, not a step-level AdaGRPO
    mean = config_from_args(parser.parse_args(["train", "--preset", "quick", "--level", "trajectory",
                                               "--returns", "mean"]))  # fmt: skip
    assert (mean.level, mean.returns) == ("trajectory", "mean")
