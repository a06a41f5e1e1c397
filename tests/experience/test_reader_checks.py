"""The readers' checks on what a data file says (:mod:`gui_gym.experience.readers.checks`):
coordinates in range, screenshot paths inside the data set's folder, and errors that name the
file and the line (UI-S1), the annotation file and step (GUI-Odyssey), or the shard and record
(AndroidControl). Every case is a small file written to tmp_path."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from gui_gym.experience.readers import read_experiences
from gui_gym.experience.readers.androidcontrol import encode_episode, read_androidcontrol, write_records
from gui_gym.experience.readers.checks import MAX_SIDE, data_path, on_screen, sane_box, screen_size
from gui_gym.experience.readers.odyssey import read_odyssey
from gui_gym.experience.readers.uis1 import read_uis1
from gui_gym.experience.record import ExperienceError

OK_STEP = {"action_content": {"action": "system_button", "button": "Back"}}


def _png(path: Path, size: tuple[int, int]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    Image.new("RGB", size, "white").save(buf, format="PNG")
    path.write_bytes(buf.getvalue())
    return path


def _uis1(path: Path, *lines: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _episode(*steps: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"goal": "g", "steps": list(steps), **extra}


def _click(x: Any, y: Any, **extra: Any) -> dict[str, Any]:
    return {"action_content": {"action": "click", "coordinate": [x, y]}, **extra}


def _refused(path: Path, where: str, what: str, **kw: Any) -> None:
    """Reading ``path`` raises an error that starts with the file and ``where`` and says ``what``."""
    with pytest.raises(ExperienceError) as err:
        read_uis1(path, **kw)
    assert str(err.value).startswith(f"{path}:{where}: "), str(err.value)
    assert re.search(what, str(err.value)), str(err.value)


# == the checks themselves ===========================================================================


def test_on_screen_takes_edges_and_refuses_the_rest() -> None:
    assert on_screen([0, 0], (1080, 2400), "p") == (0, 0)
    assert on_screen((1080, 2400.0), (1080, 2400), "p") == (1080, 2400.0)
    assert on_screen([MAX_SIDE, 5], None, "p") == (MAX_SIDE, 5)
    for bad in ([1e308, 1], [-1, 5], [5, 2401], [float("nan"), 1], [10**400, 1], [True, 1]):
        with pytest.raises(ExperienceError, match=r"^p "):
            on_screen(bad, (1080, 2400), "p")
    with pytest.raises(ExperienceError, match=r"out of range \(0 to 10000"):
        on_screen([MAX_SIDE + 1, 0], None, "p")


def test_sane_box_and_screen_size() -> None:
    assert sane_box([-20, 0, 1100, 2500], "b") == [-20, 0, 1100, 2500]  # a box may reach past the screen
    assert sane_box("not a box", "b") == "not a box"  # the record says what a box must be
    with pytest.raises(ExperienceError, match="out of range"):
        sane_box([0, 0, 1e308, 5], "b")
    with pytest.raises(ExperienceError, match="finite"):
        sane_box([0, 0, float("inf"), 5], "b")
    assert screen_size(1080, 2400, "s") == (1080, 2400)
    for w, h in ((0, 10), (10**9, 10), (1080.5, 2400), (True, 2400), (-1, 5)):
        with pytest.raises(ExperienceError, match="whole pixels"):
            screen_size(w, h, "s")


def test_data_path_stays_inside_the_folder(tmp_path) -> None:
    root = tmp_path / "data"
    (root / "sub").mkdir(parents=True)
    assert data_path(root, "sub/a.png") == root / "sub" / "a.png"
    assert data_path(root, "sub/../a.png") == root / "sub" / ".." / "a.png"  # climbs, but stays inside
    with pytest.raises(ExperienceError, match="absolute path"):
        data_path(root, "/etc/passwd")
    with pytest.raises(ExperienceError, match=r"climbs out .* with '\.\.'"):
        data_path(root, "../../../etc/passwd")
    with pytest.raises(ExperienceError, match="climbs out"):
        data_path(root, "sub/../../x.png")
    with pytest.raises(ExperienceError, match="NUL"):
        data_path(root, "a\0.png")
    (tmp_path / "outside").mkdir()
    (root / "away").symlink_to(tmp_path / "outside")
    with pytest.raises(ExperienceError, match="leads out of the data folder"):
        data_path(root, "away/x.png")


# == UI-S1 ===========================================================================================


def test_uis1_refuses_coordinates_out_of_range_naming_file_and_line(tmp_path) -> None:
    path = tmp_path / "ac.jsonl"
    # no image and no screen field: the screen is a guess, so only [0, MAX_SIDE] holds
    _uis1(path, _episode(OK_STEP), _episode(OK_STEP, _click(1e308, 5)))
    _refused(path, "2: step 1", r"coordinate \[1e\+308, 5\] is out of range \(0 to 10000")
    _uis1(path, _episode(_click(-3, 5)))
    _refused(path, "1: step 0", "out of range")
    (tmp_path / "huge.jsonl").write_text('{"goal": "g", "steps": [' + json.dumps(_click(1, 1)) + ", "
                                         '{"action_content": {"action": "long_press", "coordinate": [1, '
                                         + "9" * 400 + "]}}]}\n")  # fmt: skip
    _refused(tmp_path / "huge.jsonl", "1: step 1", "finite numbers")
    # a guessed screen does not refuse a point past it (another phone's screen)
    _uis1(path, _episode(_click(1300, 3000)))
    assert read_uis1(path)[0].steps[0].action.point == (1300, 3000)


def test_uis1_holds_points_to_the_screen_the_data_says(tmp_path) -> None:
    path = tmp_path / "ac.jsonl"
    _uis1(path, _episode(_click(1300, 3000), screen=[1080, 2400]))  # the line's own screen
    _refused(path, "1: step 0", r"off the screen: x must be in \[0, 1080\] and y in \[0, 2400\]")
    _png(tmp_path / "shots" / "0.png", (720, 1600))  # the first step's image
    _uis1(path, _episode(_click(700, 1500, screenshot="0.png"), _click(962, 2180, screenshot="1.png")))
    _refused(path, "1: step 1", r"coordinate \[962, 2180\] is off the screen", image_root=tmp_path / "shots")
    swipe = {"action_content": {"action": "swipe", "coordinate": [540, 600], "coordinate2": [540, 2401]}}
    _uis1(path, _episode(swipe, screen=[1080, 2400]))
    _refused(path, "1: step 0", r"coordinate2 \[540, 2401\] is off the screen")
    _uis1(path, _episode(_click(10, 10), screen=[1e308, 5]))
    _refused(path, "1", "screen must be a width and height in whole pixels")


def test_uis1_refuses_boxes_out_of_range(tmp_path) -> None:
    path = tmp_path / "ac.jsonl"
    step = {"action_content": {"action": "click", "coordinate": [5, 5], "bbox": [0, 0, 1e308, 10]}}
    _uis1(path, _episode(step))
    _refused(path, "1: step 0", r"bbox \[0, 0, 1e\+308, 10\] is out of range")
    step = _click(5, 5, check_options={"action": "click", "candidate_bbox": [[0, 0, 10, 10], [0, 0, 10, -1e300]]})
    _uis1(path, _episode(step))
    _refused(path, "1: step 0", r"check_options\.candidate_bbox .* is out of range")


def test_uis1_keeps_screenshots_inside_the_data_folder(tmp_path) -> None:
    data, outside = tmp_path / "data", tmp_path / "outside"
    secret = _png(outside / "secret.png", (720, 1600))
    path = data / "ac.jsonl"
    # an absolute path is never followed: its name is looked up in the data folder
    _uis1(path, _episode(_click(5, 5, screenshot=str(secret))))
    [e] = read_uis1(path)
    assert e.steps[0].screenshot == str(data / "secret.png")
    assert e.screen == (1080, 2400)  # the image outside was not opened for its size
    _uis1(path, _episode(_click(5, 5, screenshot="/")))
    _refused(path, "1: step 0", "names no file")
    # relative paths under the file's folder (no image_root) or image_root
    _png(data / "img" / "0.png", (1440, 3120))
    _uis1(path, _episode(_click(5, 5, screenshot="img/0.png")))
    [e] = read_uis1(path)
    assert (e.steps[0].screenshot, e.screen) == (str(data / "img" / "0.png"), (1440, 3120))
    assert read_uis1(path, image_root=tmp_path)[0].steps[0].screenshot == str(tmp_path / "img" / "0.png")
    # ".." out of the folder, on the first step (opened for the size) or a later one
    _uis1(path, _episode(_click(5, 5, screenshot="../outside/secret.png")))
    _refused(path, "1: step 0", r"screenshot '\.\./outside/secret\.png' climbs out of the data folder")
    _uis1(path, _episode(OK_STEP, _click(5, 5, screenshot="img/../../../../etc/passwd")))
    _refused(path, "1: step 1", "climbs out")
    _refused(path, "1: step 1", "climbs out", image_root=data / "img")
    # a symbolic link that leads out, to a file or through a folder
    (data / "link.png").symlink_to(secret)
    (data / "away").symlink_to(outside)
    _uis1(path, _episode(_click(5, 5, screenshot="link.png")))
    _refused(path, "1: step 0", "leads out of the data folder")
    _uis1(path, _episode(OK_STEP, OK_STEP, _click(5, 5, screenshot="away/secret.png")))
    _refused(path, "1: step 2", "leads out of the data folder")
    # a link that stays inside is a path like any other
    (data / "inside.png").symlink_to(data / "img" / "0.png")
    _uis1(path, _episode(_click(5, 5, screenshot="inside.png")))
    assert read_uis1(path)[0].screen == (1440, 3120)


def test_uis1_errors_through_read_experiences_name_file_and_line(tmp_path) -> None:
    path = _uis1(tmp_path / "ac.jsonl", _episode(OK_STEP), _episode(OK_STEP), _episode(_click(5, 5, screenshot=7)))
    with pytest.raises(ExperienceError, match=rf"^{re.escape(str(path))}:3: step 0: screenshot must be a path"):
        read_experiences(path, "ui-s1")


# == GUI-Odyssey =====================================================================================


def _odyssey(root: Path, steps: list[dict[str, Any]], **device: Any) -> Path:
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    episode = {
        "episode_id": "e",
        "device_info": {"w": 1080, "h": 2400, **device},
        "task_info": {"instruction": "Do it"},
        "steps": steps,
    }
    f = root / "annotations" / "e.json"
    f.write_text(json.dumps(episode), encoding="utf-8")
    return f


def _step(k: int, action: str, info: Any, **extra: Any) -> dict[str, Any]:
    return {"step": k, "screenshot": f"e_{k}.png", "action": action, "info": info, **extra}


def _odyssey_refused(root: Path, f: Path, where: str, what: str) -> None:
    with pytest.raises(ExperienceError) as err:
        read_odyssey(root)
    assert str(err.value).startswith(f"{f}: {where}"), str(err.value)
    assert re.search(what, str(err.value)), str(err.value)


def test_odyssey_refuses_points_outside_its_0_1000_space(tmp_path) -> None:
    ok = _step(0, "CLICK", [[0, 1000], [0, 1000]])
    f = _odyssey(tmp_path, [ok])
    assert read_odyssey(tmp_path)[0].steps[0].action.point == (0.0, 2400.0)
    _odyssey(tmp_path, [ok, _step(1, "CLICK", [[1e308, 5], [1e308, 5]])])
    _odyssey_refused(tmp_path, f, "step 1: ", r"info \[1e\+308, 5\] is off the screen: x must be in \[0, 1000\]")
    _odyssey(tmp_path, [_step(0, "SCROLL", [[500, 500], [500, 1001]])])
    _odyssey_refused(tmp_path, f, "step 0: ", r"info\[-1\] \[500, 1001\] is off the screen")
    _odyssey(tmp_path, [_step(0, "LONG_PRESS", [[-1, 5], [-1, 5]])])
    _odyssey_refused(tmp_path, f, "step 0: ", "off the screen")
    # an out-of-range sam2_bbox is dropped, as a malformed one is: the click stands
    _odyssey(tmp_path, [_step(0, "CLICK", [[500, 500], [500, 500]], sam2_bbox=[0, 0, 1e308, 10])])
    assert read_odyssey(tmp_path)[0].steps[0].action.box is None


def test_odyssey_checks_the_screen_size(tmp_path) -> None:
    f = _odyssey(tmp_path, [_step(0, "COMPLETE", "")], w="1440", h=3120.0)
    assert read_odyssey(tmp_path)[0].screen == (1440, 3120)  # whole numbers, however written
    _odyssey(tmp_path, [_step(0, "COMPLETE", "")], w=1e308)
    _odyssey_refused(tmp_path, f, "device_info's w and h must be", "whole pixels")
    _odyssey(tmp_path, [_step(0, "COMPLETE", "")], h=0)
    _odyssey_refused(tmp_path, f, "device_info's w and h must be", "whole pixels")


def test_odyssey_keeps_screenshots_inside_the_images_folder(tmp_path) -> None:
    outside = tmp_path / "outside"
    _png(outside / "secret.png", (10, 10))
    root = tmp_path / "odyssey"
    f = _odyssey(root, [_step(0, "COMPLETE", "", screenshot="../../outside/secret.png")])
    _odyssey_refused(root, f, "step 0: ", "climbs out of the data folder")
    _odyssey(root, [_step(0, "COMPLETE", "", screenshot=str(outside / "secret.png"))])
    _odyssey_refused(root, f, "step 0: ", "absolute path")
    (root / "screenshots").mkdir()
    (root / "screenshots" / "e_0.png").symlink_to(outside / "secret.png")
    _odyssey(root, [_step(0, "COMPLETE", "")])
    _odyssey_refused(root, f, "step 0: ", "leads out of the data folder")
    (root / "screenshots" / "e_0.png").unlink()
    assert read_odyssey(root)[0].steps[0].screenshot == str(root / "screenshots" / "e_0.png")


# == AndroidControl ==================================================================================


def _shard(tmp_path: Path, actions: list[dict[str, Any]], sizes: list[tuple[int, int]] | None = None) -> Path:
    shard = tmp_path / "android_control-00000-of-00001"
    ok = encode_episode(1, "ok", [{"action_type": "navigate_back"}])
    write_records(shard, [ok, encode_episode(77, "bad", actions, sizes=sizes)])
    return shard


def test_androidcontrol_holds_points_to_the_observation_screen(tmp_path) -> None:
    shard = _shard(tmp_path, [{"action_type": "click", "x": 1080, "y": 2400}])
    assert read_androidcontrol(shard)[1].steps[0].action.point == (1080, 2400)  # the edge is on it
    where = re.escape(f"{shard.resolve()}: record 1 (episode 77), step ")
    shard = _shard(tmp_path, [{"action_type": "navigate_back"}, {"action_type": "click", "x": 1e308, "y": 5}])
    with pytest.raises(ExperienceError, match=rf"^{where}1: the action's x, y \[1e\+308, 5\] is off the screen"):
        read_androidcontrol(shard)
    # each action against its own observation's size
    sizes = [(1080, 2400), (720, 1600)]
    shard = _shard(tmp_path, [{"action_type": "long_press", "x": 900, "y": 100}], sizes=sizes)
    assert read_androidcontrol(shard)[1].steps[0].action.point == (900, 100)
    shard = _shard(tmp_path, [{"action_type": "navigate_back"}, {"action_type": "long_press", "x": 900, "y": 100}],
                   sizes=[(1080, 2400), (720, 1600), (720, 1600)])  # fmt: skip
    with pytest.raises(ExperienceError, match=rf"^{where}1: .* x must be in \[0, 720\]"):
        read_androidcontrol(shard)
    shard = _shard(tmp_path, [{"action_type": "type", "text": "hi", "x": -1, "y": 5}])
    with pytest.raises(ExperienceError, match=rf"^{where}0: .*off the screen"):
        read_androidcontrol(shard)


def test_androidcontrol_checks_screen_sizes(tmp_path) -> None:
    shard = _shard(tmp_path, [{"action_type": "navigate_back"}], sizes=[(1080, 2400), (10**12, 2400)])
    where = re.escape(f"{shard.resolve()}: record 1 (episode 77), observation 1: ")
    with pytest.raises(ExperienceError, match=rf"^{where}the screenshot's width and height must be"):
        read_androidcontrol(shard)
    shard = _shard(tmp_path, [{"action_type": "navigate_back"}], sizes=[(0, 2400), (1080, 2400)])
    with pytest.raises(ExperienceError, match=r"record 1 \(episode 77\), observation 0: .*whole pixels"):
        read_androidcontrol(shard)
