"""gui-gym's own JSON Lines reader (:func:`gui_gym.experience.readers.read_gui_gym`) keeps every
screenshot a file names inside the file's folder: a step's ``screenshot``, an experience's
``final_screenshot`` and the shard of an AndroidControl reference. What it keeps renders through
``GuiExperience-v0``; ``gui-gym export-experience --screens`` writes files it reads back."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest
from PIL import Image

import gui_gym  # noqa: F401
from agents.cli import main
from gui_gym.experience.readers import read_experiences, read_gui_gym
from gui_gym.experience.readers.androidcontrol import encode_episode, load_screenshot, write_records
from gui_gym.experience.readers.checks import data_screenshot, split_reference
from gui_gym.experience.record import ExperienceError

RED, BLUE = (255, 0, 0), (0, 0, 255)
BACK = '{"action": "system_button", "button": "Back"}'


def _png_bytes(color: tuple[int, int, int], size: tuple[int, int] = (6, 12)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def _png(path: Path, color: tuple[int, int, int] = RED) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(_png_bytes(color))
    return path


def _record(eid: str, *shots: str | None, final: str | None = None, source: str = "gui-gym") -> dict[str, Any]:
    steps = [{"action": {"action": "system_button", "button": "Back"}} for _ in shots]
    for step, shot in zip(steps, shots, strict=True):
        if shot is not None:
            step["screenshot"] = shot
    out: dict[str, Any] = {"id": eid, "goal": "Go back", "screen": [6, 12], "source": source, "steps": steps}
    if final is not None:
        out["final_screenshot"] = final
    return out


def _write(path: Path, *records: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _refused(path: Path, where: str, what: str) -> None:
    """Reading ``path`` (directly and through format detection) raises an error that starts with
    the file and ``where`` and says ``what``."""
    for read in (read_gui_gym, read_experiences):
        with pytest.raises(ExperienceError) as err:
            read(path)
        assert str(err.value).startswith(f"{path}:{where}: "), str(err.value)
        assert re.search(what, str(err.value)), str(err.value)


def _cli(*args: object) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


# == refused: every way out of the data folder, named by file and line ================================


def test_an_absolute_screenshot_path_is_refused(tmp_path) -> None:
    secret = _png(tmp_path / "elsewhere" / "secret.png")
    path = _write(tmp_path / "data" / "set.jsonl", _record("ok", "a.png"), _record("bad", "a.png", str(secret)))
    _refused(path, "2", r"step 1: screenshot '/.* is an absolute path")


def test_a_dotdot_escape_is_refused(tmp_path) -> None:
    _png(tmp_path / "secret.png")
    path = _write(tmp_path / "data" / "set.jsonl", _record("bad", "../secret.png"))
    _refused(path, "1", r"step 0: screenshot '\.\./secret\.png' climbs out of the data folder")
    path = _write(tmp_path / "data" / "deep.jsonl", _record("ok", "x.png"), _record("bad", "sub/../../secret.png"))
    _refused(path, "2", "step 0: .*climbs out")


def test_a_symlink_out_is_refused(tmp_path) -> None:
    _png(tmp_path / "outside" / "secret.png")
    data = tmp_path / "data"
    data.mkdir()
    (data / "away").symlink_to(tmp_path / "outside")
    (data / "shot.png").symlink_to(tmp_path / "outside" / "secret.png")
    path = _write(data / "set.jsonl", _record("bad", "away/secret.png"))
    _refused(path, "1", "step 0: screenshot 'away/secret.png' leads out of the data folder .* symbolic link")
    path = _write(data / "file.jsonl", _record("bad", "shot.png"))
    _refused(path, "1", "step 0: .*leads out of the data folder")


def test_the_final_screenshot_is_held_to_the_folder_too(tmp_path) -> None:
    path = _write(tmp_path / "data" / "set.jsonl", _record("bad", "a.png", final="/etc/passwd"))
    _refused(path, "1", "final_screenshot '/etc/passwd' is an absolute path")
    path = _write(tmp_path / "data" / "up.jsonl", _record("bad", "a.png", final="../x.png"))
    _refused(path, "1", "final_screenshot '../x.png' climbs out")


def test_empty_or_non_text_screenshots_are_refused(tmp_path) -> None:
    _refused(_write(tmp_path / "d" / "a.jsonl", _record("e", "")), "1", "step 0: screenshot '' names no file")
    _refused(_write(tmp_path / "d" / "b.jsonl", _record("e", "./")), "1", "step 0: .*names no file")
    _refused(_write(tmp_path / "d" / "c.jsonl", _record("e", "#0/1")), "1", "step 0: .*names no shard")
    bad = _record("e", "a.png")
    bad["steps"][0]["screenshot"] = 7
    _refused(_write(tmp_path / "d" / "n.jsonl", bad), "1", "screenshot must be text")


def _shard(path: Path, *colors: tuple[int, int, int]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    episode = encode_episode(
        7,
        "Go back",
        [{"action_type": "navigate_back"}] * (len(colors) - 1),
        screenshots=[_png_bytes(c) for c in colors],
        sizes=[(6, 12)] * len(colors),
    )
    write_records(path, [episode])
    return path


def test_an_androidcontrol_reference_with_a_shard_outside_is_refused(tmp_path) -> None:
    outside = _shard(tmp_path / "outside" / "android_control-00000-of-00001", RED, BLUE)
    data = tmp_path / "data"
    absolute = _record("abs", f"{outside}#0/0", source="androidcontrol")
    _refused(_write(data / "abs.jsonl", absolute), "1", r"step 0: screenshot's shard '/.* is an absolute path")
    up = _record("up", "../outside/android_control-00000-of-00001#0/0", source="androidcontrol")
    _refused(_write(data / "up.jsonl", up), "1", "step 0: screenshot's shard '../outside/.*' climbs out")
    (data / "ac").symlink_to(outside)  # a link named like a shard, to a shard of another data set
    linked = _record("ln", "ok.png", final="ac#0/1", source="androidcontrol")
    _refused(_write(data / "ln.jsonl", linked), "1", "final_screenshot's shard 'ac' leads out of the data folder")
    # a file that reads as an image path can still be taken as a reference: its shard is checked too
    plain = _record("plain", "ac#0/0")
    _refused(_write(data / "plain.jsonl", plain), "1", "step 0: screenshot's shard 'ac' leads out")


def test_references_are_parsed_once_for_reader_and_loader(tmp_path) -> None:
    assert split_reference("a/b.tfrecord#12/3") == ("a/b.tfrecord", "12", "3")
    assert split_reference("a#b#1/2") == ("a#b", "1", "2")
    assert split_reference("shot.png") is None and split_reference("a#1/x") is None
    assert split_reference("a#\u00b2/1") is None  # a superscript two is a digit to isdigit, not to int
    assert data_screenshot(tmp_path, "sub/./s//x#4/5") == f"{tmp_path / 'sub' / 's' / 'x'}#4/5"
    with pytest.raises(ExperienceError, match="not a screenshot reference"):
        load_screenshot("a#\u00b2/1")


# == kept: paths inside the folder load, and render through the env ==================================


def test_a_relative_screenshot_inside_loads_and_renders(tmp_path) -> None:
    data = tmp_path / "data"
    _png(data / "shots" / "e_0.png", RED)
    _png(data / "shots" / "e_1.png", BLUE)
    path = _write(data / "set.jsonl", _record("e", "shots/e_0.png", "shots/./e_1.png", final="shots/../shots/e_1.png"))
    [e] = read_gui_gym(path)
    assert [s.screenshot for s in e.steps] == [str(data / "shots" / "e_0.png"), str(data / "shots" / "e_1.png")]
    assert e.final_screenshot == str(data / "shots" / ".." / "shots" / "e_1.png")  # climbs, but stays inside
    env = gym.make("GuiExperience-v0", data=str(path), obs_mode="pixels", screen_size=(6, 12))
    obs, _ = env.reset(seed=0)
    assert obs["screen"].shape == (12, 6, 3) and (obs["screen"] == np.array(RED, np.uint8)).all()
    obs, *_ = env.step(BACK)
    assert (obs["screen"] == np.array(BLUE, np.uint8)).all()
    env.close()


def test_a_data_file_read_from_its_own_folder_by_a_relative_name(tmp_path, monkeypatch) -> None:
    _png(tmp_path / "a.png")
    _write(tmp_path / "set.jsonl", _record("e", "a.png"))
    monkeypatch.chdir(tmp_path)
    [e] = read_gui_gym("set.jsonl")
    assert e.steps[0].screenshot == "a.png"


def test_an_androidcontrol_reference_inside_loads_and_renders(tmp_path) -> None:
    data = tmp_path / "data"
    _shard(data / "shards" / "android_control-00000-of-00001", RED, BLUE)
    ref = "shards/android_control-00000-of-00001"
    record = _record("ac", f"{ref}#0/0", final=f"{ref}#0/1", source="androidcontrol")
    path = _write(data / "ac.jsonl", record)
    [e] = read_gui_gym(path)
    shard = data / "shards" / "android_control-00000-of-00001"
    assert (e.steps[0].screenshot, e.final_screenshot) == (f"{shard}#0/0", f"{shard}#0/1")
    assert load_screenshot(e.final_screenshot) == _png_bytes(BLUE)
    env = gym.make("GuiExperience-v0", data=str(path), obs_mode="pixels", screen_size=(6, 12))
    obs, _ = env.reset(seed=0)
    assert (obs["screen"] == np.array(RED, np.uint8)).all()
    env.close()


# == the exporter: paths relative to the output's folder ============================================


def test_export_with_screens_round_trips_through_the_env(tmp_path, monkeypatch) -> None:
    out = tmp_path / "set" / "set.jsonl"
    monkeypatch.chdir(tmp_path)  # a CWD-relative --screens: the file still names the PNGs from its folder
    code, _, err = _cli(
        "export-experience", "set/set.jsonl", "--tasks", "ClockStopWatchRunning/0", "--screens", "set/png"
    )
    assert code == 0, err
    [row] = [json.loads(line) for line in out.read_text().splitlines()]
    shots = [s["screenshot"] for s in row["steps"]]
    assert shots and all(s.startswith("png/") and s.endswith(".png") for s in shots)
    assert all((out.parent / s).is_file() for s in shots)
    moved = tmp_path / "moved"
    (tmp_path / "set").rename(moved)  # the file and its screens move together
    env = gym.make("GuiExperience-v0", data=str(moved / "set.jsonl"), obs_mode="pixels", screen_size=(54, 120))
    obs, _ = env.reset(seed=0)
    assert obs["screen"].shape == (120, 54, 3) and obs["screen"].std() > 0  # a rendered screen, not a blank
    assert env.unwrapped.experience.steps[0].screenshot == str(moved / shots[0])
    env.close()


def test_export_screens_beside_the_file_in_both_formats(tmp_path) -> None:
    for fmt in ("gui-gym", "ui-s1"):
        out = tmp_path / fmt / "set.jsonl"
        code, _, err = _cli(
            "export-experience", out, "--tasks", "ClockStopWatchRunning/0", "--format", fmt, "--screens", out.parent
        )
        assert code == 0, err
        [e] = read_experiences(out, fmt)
        assert all(Path(s.screenshot).parent == out.parent and Path(s.screenshot).is_file() for s in e.steps)
        written = json.loads(out.read_text().splitlines()[0])["steps"][0]["screenshot"]
        assert written.endswith(".png") and "/" not in written  # the file's own folder: a bare name


def test_export_refuses_screens_outside_the_output_folder(tmp_path) -> None:
    out = tmp_path / "data" / "set.jsonl"
    for screens in (tmp_path / "screens", tmp_path / "data" / ".." / "screens"):
        code, stdout, err = _cli("export-experience", out, "--tasks", "ClockStopWatchRunning/0", "--screens", screens)
        assert code == 2 and stdout == ""
        assert err.startswith("error: ") and "outside the folder of" in err
        assert "put the screens under the output's folder" in err
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    code, _, err = _cli(
        "export-experience", out, "--tasks", "ClockStopWatchRunning/0", "--screens", tmp_path / "data" / "link"
    )
    assert code == 2 and "outside the folder" in err  # a link inside that leads out: the reader would refuse it
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["data", "link"]  # nothing written
