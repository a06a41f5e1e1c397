"""``gui-gym calibrate-matcher``: the δ sweep of ADMIRE App. B.4.2 / Fig. 9, run for real."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from agents.cli import main

ROWS = [
    ("Turn on Wi-Fi", 'Turn on "Wi-Fi" in Settings', 1, "calib"),
    ("Turn on Wi-Fi", 'Turn off "Wi-Fi" in Settings', 0, "calib"),
    ("Open the Settings app", "Launch Settings", 1, "calib"),
    ("Open the Settings app", "Launch Clock", 0, "calib"),
    (
        "Save the new contact Zara Costa",
        'Tap the "Save" button to save the contact "Zara Costa" in Contacts',
        1,
        "heldout",
    ),
    ("Save the new contact Zara Costa", 'Confirm deleting the contact "Zara Costa" in Contacts', 0, "heldout"),
    ("Open the contact Hana Silva", 'Open the contact "Hana Silva" in Contacts', 1, "heldout"),
    ("Open the contact Hana Silva", 'Open the contact "Kofi Rossi" in Contacts', 0, "heldout"),
]


def write(path: Path, rows=ROWS, extra_lines: tuple[str, ...] = ()) -> Path:
    lines = [json.dumps({"milestone": m, "action": a, "label": y, "split": s}) for m, a, y, s in rows]
    path.write_text("\n".join([*lines, *extra_lines]) + "\n", encoding="utf-8")
    return path


def test_sweep_prints_the_table_and_saves_the_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs, png = write(tmp_path / "pairs.jsonl"), tmp_path / "plots" / "fig9.png"
    assert main(["calibrate-matcher", "--pairs", str(pairs), "--plot", str(png), "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert f"8 pairs from {pairs}: 4 positive, 4 negative" in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("delta"))
    assert lines[header].split() == ["delta", "guarded", "cosine"]
    table = [line.split() for line in lines[header + 1 : header + 15]]
    assert [row[0] for row in table] == [f"{0.30 + 0.05 * i:.2f}" for i in range(14)]
    assert all(0.0 <= float(x) <= 1.0 for row in table for x in row[1:])
    assert "guarded: best delta" in out and "cosine: best delta" in out
    assert "chosen on the calib half (4 pairs" in out and "held-out half (4 pairs)" in out
    assert f"plot: {png}" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Traceback" not in err


def test_one_mode_and_listed_deltas(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = write(tmp_path / "pairs.jsonl")
    assert (
        main(["calibrate-matcher", "--pairs", str(pairs), "--mode", "cosine", "--deltas", "0.5,0.75", "--quiet"]) == 0
    )
    out = capsys.readouterr().out
    assert "delta    cosine" in out and "guarded" not in out
    rows = [line.split() for line in out.splitlines() if line.strip()[:5] in ("0.50 ", "0.75 ")]
    assert [r[0] for r in rows] == ["0.50", "0.75"]
    assert "cosine: best delta" in out and "plot:" not in out


def test_split_and_progress_bar(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    new = f"Open the note n{uuid.uuid4().hex[:10]}.md"  # never encoded before: the bar shows
    pairs = write(tmp_path / "pairs.jsonl", rows=[*ROWS, (new, f"{new} in Markor", 1, "heldout")])
    assert main(["calibrate-matcher", "--pairs", str(pairs), "--split", "heldout", "--mode", "guarded"]) == 0
    out, err = capsys.readouterr()
    assert "5 pairs from" in out and "calib half" not in out and "guarded: best delta" in out
    assert "encoding" in err and "text" in err


def test_corrupt_lines_are_skipped_with_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pairs = write(tmp_path / "pairs.jsonl", extra_lines=("{oops", json.dumps({"milestone": "x", "label": 1})))
    assert main(["calibrate-matcher", "--pairs", str(pairs), "--mode", "guarded", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert f"warning: {pairs}:9: skipped: not valid JSON" in err
    assert f"warning: {pairs}:10: skipped: missing key(s) action" in err
    assert "8 pairs from" in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "error: no such file"),
        ("", "no usable milestone/action/label rows"),
        ('{"milestone": "a", "action": "b"}\nnot json\n', "no usable milestone/action/label rows"),
    ],
)
def test_bad_input_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, message: str
) -> None:
    pairs = tmp_path / "pairs.jsonl"
    if content is not None:
        pairs.write_text(content, encoding="utf-8")
    assert main(["calibrate-matcher", "--pairs", str(pairs), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_other_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    no_split = tmp_path / "plain.jsonl"
    no_split.write_text(json.dumps({"milestone": "a", "action": "b", "label": 1}) + "\n", encoding="utf-8")
    assert main(["calibrate-matcher", "--pairs", str(no_split), "--split", "calib"]) == 2
    assert "no rows with split 'calib'" in capsys.readouterr().err
    pairs = write(tmp_path / "pairs.jsonl")
    assert main(["calibrate-matcher", "--pairs", str(pairs), "--model", str(tmp_path / "nope")]) == 2
    assert "no sentence-transformers model directory" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x")
    argv = ["calibrate-matcher", "--pairs", str(pairs), "--quiet", "--plot", str(blocker / "fig.png")]
    assert main(argv) == 2
    assert "cannot write the plot" in capsys.readouterr().err
    for bad in ("0.9:0.1:0.05", "a,b", "0.1:0.5:0", "2.0"):
        with pytest.raises(SystemExit) as e:
            main(["calibrate-matcher", "--deltas", bad])
        assert e.value.code == 2
    assert "expected START:STOP:STEP" in capsys.readouterr().err
