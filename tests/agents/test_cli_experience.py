"""``gui-gym export-experience`` and ``gui-gym ac-real`` end to end: files written and read back by the
readers, and AC-Real's metrics from the oracle, a random agent, a trained run and an exported data set."""

from __future__ import annotations

import contextlib
import io
import json

from PIL import Image

from agents.cli import main
from gui_gym.experience.readers import read_experiences


def cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def test_export_in_both_formats_reads_back(tmp_path) -> None:
    ours, theirs = tmp_path / "set.jsonl", tmp_path / "uis1.jsonl"
    code, out, _ = cli("export-experience", ours, "--tasks", "test:easy")
    assert code == 0 and "experiences" in out
    mine = read_experiences(ours)
    assert mine and all(e.meta.get("split") == "test" for e in mine)
    assert cli("export-experience", theirs, "--tasks", "test:easy", "--format", "ui-s1")[0] == 0
    back = read_experiences(theirs, "ui-s1")
    assert [e.goal for e in back] == [e.goal for e in mine]
    assert [[s.action.action for s in e.steps] for e in back] == [[s.action.action for s in e.steps] for e in mine]


def test_export_with_screens_writes_pngs_and_dumps(tmp_path) -> None:
    shots = tmp_path / "shots"
    code, _, _ = cli(
        "export-experience", tmp_path / "s.jsonl", "--tasks", "ClockStopWatchRunning/0", "--screens", shots
    )
    assert code == 0
    [e] = read_experiences(tmp_path / "s.jsonl")
    assert all(s.ui is not None and s.ui.lstrip().startswith("<") for s in e.steps)
    with Image.open(e.steps[0].screenshot) as im:
        assert im.size == (1080, 2400)


def test_ac_real_from_the_cli(tmp_path) -> None:
    code, out, _ = cli("ac-real", "--policy", "oracle", "--tasks", "test:easy", "--json")
    assert code == 0 and json.loads(out) == {"tasks": json.loads(out)["tasks"], "PG": 1.0, "TSR": 1.0, "Score": 1.0}
    code, out, _ = cli("ac-real", "--policy", "random", "--tasks", "test:easy", "--json")
    random = json.loads(out)
    assert code == 0 and 0.0 <= random["PG"] < 0.5 and random["Score"] == (random["PG"] + random["TSR"]) / 2
    # an exported data set is evaluated the same way (its screens from the file, no simulator)
    cli("export-experience", tmp_path / "d.jsonl", "--tasks", "test:ClockStopWatchRunning", "--screens", tmp_path / "p")
    code, out, _ = cli("ac-real", "--data", tmp_path / "d.jsonl", "--tasks", "all", "--json")
    assert code == 0 and json.loads(out)["PG"] == 1.0
    code, _, err = cli("ac-real", "--policy", "nobody")
    assert code == 2 and "run directory" in err
