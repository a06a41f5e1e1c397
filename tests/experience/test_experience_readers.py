"""The data readers of GuiExperience-v0 on small fixtures written into tmp_path in each format:
UI-S1's JSON Lines (eval and train shapes, both swipe conventions, the writer's round trip),
GUI-Odyssey's annotation folder, AndroidControl's TFRecord shards (forest proto, XML, boxes,
screenshot references, splits) and the format detection in front of them."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from PIL import Image

from gui_gym.android.candidates import parse_screen
from gui_gym.android.forest import to_forest
from gui_gym.android.ui import Node, Window
from gui_gym.experience.readers import detect_format, read_experiences, write_uis1
from gui_gym.experience.readers.androidcontrol import (
    candidate_boxes,
    decode_forest,
    encode_episode,
    encode_forest,
    forest_to_xml,
    load_screenshot,
    parse_action,
    read_androidcontrol,
)
from gui_gym.experience.readers.odyssey import read_odyssey
from gui_gym.experience.readers.tfrecord import Feature, encode_example, field_bytes, field_varint, write_records
from gui_gym.experience.readers.uis1 import read_uis1
from gui_gym.experience.record import Experience, ExperienceError, ExpertStep, UIAction, dumps


def _jsonl(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def _png(size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, "white").save(buf, format="PNG")
    return buf.getvalue()


# == UI-S1 ==============================================================================================

EVAL_LINE = {
    "goal": "Open the notes app and create a note titled groceries",
    "is_successful": True,
    "episode_id": 90001,
    "steps": [
        {
            "action_content": {"action": "open", "text": "Keep Notes"},
            "screenshot": "/datasets/AndroidControl/images/90001_0.png",
            "step_instruction": "open Keep Notes",
            "check_options": {"action": "open", "text": "Keep Notes", "candidate_bbox": [[10, 20, 110, 120]]},
        },
        {
            "action_content": {"action": "click", "coordinate": [962, 2180]},
            "screenshot": "/datasets/AndroidControl/images/90001_1.png",
            "step_instruction": "tap the add button",
            "check_options": {
                "action": "click",
                "candidate_bbox": [[900, 2120, 1030, 2250], [0, 300, 1080, 2300]],
                "coordinate": [962, 2180],
            },
        },
        {
            "action_content": {"action": "swipe", "coordinate": [540, 1800], "coordinate2": [540, 600]},
            "screenshot": "/datasets/AndroidControl/images/90001_2.png",
            "step_instruction": "scroll down",
            "check_options": {"action": "swipe", "direction": "down"},
        },
        {  # UI-S1's eval file writes AndroidControl's horizontal labels as finger moves
            "action_content": {"action": "swipe", "coordinate": [270, 1200], "coordinate2": [810, 1200]},
            "screenshot": "/datasets/AndroidControl/images/90001_3.png",
            "step_instruction": "scroll right",
            "check_options": {"action": "swipe", "direction": "right"},
        },
        {
            "action_content": {"action": "long_press", "coordinate": [100, 200], "time": 2},
            "screenshot": "/datasets/AndroidControl/images/90001_4.png",
            "check_options": {
                "action": "long_press",
                "coordinate": [100, 200],
                "candidate_bbox": [[50, 150, 150, 250]],
            },
        },
        {
            "action_content": {"action": "type", "text": "groceries"},
            "screenshot": "/datasets/AndroidControl/images/90001_5.png",
            "check_options": {"action": "type", "text": "groceries"},
        },
        {
            "action_content": {"action": "wait", "time": 2},
            "screenshot": "/datasets/AndroidControl/images/90001_6.png",
            "check_options": {"action": "wait", "time": 2},
        },
        {
            "action_content": {"action": "system_button", "button": "Back"},
            "screenshot": "/datasets/AndroidControl/images/90001_7.png",
            "check_options": {"action": "system_button", "button": "Back"},
        },
    ],
}

TRAIN_LINE = {
    "goal": "Open the Zoho Meet app, view the scheduled meetings.",
    "is_successful": True,
    "steps": [
        {"action_content": {"action": "open", "text": "Zoho Meeting"}, "screenshot": "/d/0_0.png"},
        {"action_content": {"action": "wait", "time": 2}, "screenshot": "/d/0_1.png", "motivation": "Let it load."},
        {
            "action_content": {
                "action": "click",
                "coordinate": [540.0, 389.8351648351648],
                "bbox": [360, 327, 695, 466],
            },
            "screenshot": "/d/0_2.png",
            "thought": "The meetings tab is visible; open it.",
            "annotation": "GOOD",
        },
        {"action_content": {"action": "swipe", "coordinate": [540, 600], "coordinate2": [540, 1800]}},
        {"action_content": {"action": "swipe", "coordinate": [500, 700], "coordinate2": [520, 1500]}},
        {"action_content": {"action": "terminate", "status": "success"}, "screenshot": "/d/0_3.png"},
    ],
}

HF_LINE = {  # the released 1,000-episode file: every key of action_content, null when unused
    "goal": "Go back",
    "is_successful": True,
    "steps": [
        {
            "action_content": {
                "action": "system_button",
                "coordinate": None,
                "bbox": None,
                "text": None,
                "status": None,
                "button": "Back",
                "coordinate2": None,
                "time": None,
            },
            "screenshot": "/d/1_0.png",
        }
    ],
}


def test_uis1_eval_shape(tmp_path) -> None:
    [e] = read_uis1(_jsonl(tmp_path / "android_control_evaluation_std.jsonl", [EVAL_LINE]))
    assert (e.id, e.goal, e.screen, e.source) == ("90001", EVAL_LINE["goal"], (1080, 2400), "ui-s1")
    assert e.meta["is_successful"] is True
    s = e.steps
    assert s[0].action == UIAction("open", text="Keep Notes") and s[0].boxes == ((10, 20, 110, 120),)
    assert s[1].action == UIAction("click", point=(962, 2180))
    assert s[1].boxes == ((900, 2120, 1030, 2250), (0, 300, 1080, 2300))
    # the label is AndroidControl's content direction; the standard finger points say nothing more
    assert s[2].action == UIAction("swipe", direction="down")
    assert s[2].action.finger(e.screen) == ((540, 1800), (540, 600))
    # a label the finger points contradict: the label wins, the points are dropped (native keeps them)
    assert s[3].action == UIAction("swipe", direction="right")
    assert json.loads(s[3].native) == EVAL_LINE["steps"][3]["action_content"]
    assert s[4].action == UIAction("long_press", point=(100, 200), time=2) and s[4].boxes == ((50, 150, 150, 250),)
    assert s[5].action == UIAction("type", text="groceries")
    assert s[6].action == UIAction("wait", time=2)
    assert s[7].action == UIAction("system_button", button="Back")
    assert [x.instruction for x in s[:4]] == ["open Keep Notes", "tap the add button", "scroll down", "scroll right"]
    # the authors' absolute path is never followed: its file name is looked up in the data folder
    assert s[0].screenshot == str(tmp_path / "90001_0.png")
    assert json.loads(s[1].native) == {"action": "click", "coordinate": [962, 2180]}
    assert all(x.ui is None for x in s)


def test_uis1_train_shape_and_swipe_conventions(tmp_path) -> None:
    path = _jsonl(tmp_path / "android_control_train_example.jsonl", [TRAIN_LINE, HF_LINE])
    e, hf = read_uis1(path)
    assert (e.id, hf.id) == ("android_control_train_example:1", "android_control_train_example:2")
    s = e.steps
    assert s[1].thought == "Let it load." and s[2].thought == "The meetings tab is visible; open it."
    click = s[2].action
    assert click.point == (540.0, 389.8351648351648) and click.box == (360, 327, 695, 466)
    assert s[2].boxes == ((360, 327, 695, 466),)
    assert [x.annotation for x in s] == [None, None, "GOOD", None, None, None]
    assert s[5].action == UIAction("terminate", status="success")
    assert hf.steps[0].action == UIAction("system_button", button="Back")

    # "content": the points are the finger's path, the content moves the other way
    assert s[3].action.direction == "up" and s[3].action.finger(e.screen) == ((540, 600), (540, 1800))
    assert s[4].action == UIAction("swipe", point=(500, 700), point2=(520, 1500), direction="up")

    # "uis1-train": the train file's vertical paths are reversed; AndroidControl's "down" reads as down
    t = read_uis1(path, swipe_convention="uis1-train")[0].steps
    assert t[3].action == UIAction("swipe", point=(540, 1800), point2=(540, 600), direction="down")  # reversed
    assert t[3].action.finger(e.screen) == ((540, 1800), (540, 600))
    assert t[4].action == UIAction("swipe", point=(520, 1500), point2=(500, 700), direction="down")
    assert [x.action for i, x in enumerate(t) if i not in (3, 4)] == [
        x.action for i, x in enumerate(s) if i not in (3, 4)
    ]
    with pytest.raises(ValueError, match="swipe_convention"):
        read_uis1(path, swipe_convention="finger")


def test_uis1_horizontal_train_swipes_keep_their_label_under_both_conventions(tmp_path) -> None:
    line = {
        "goal": "g",
        "steps": [{"action_content": {"action": "swipe", "coordinate": [270, 1200], "coordinate2": [810, 1200]}}],
    }
    path = _jsonl(tmp_path / "h.jsonl", [line])
    assert read_uis1(path)[0].steps[0].action.direction == "left"
    assert read_uis1(path, swipe_convention="uis1-train")[0].steps[0].action.direction == "left"


def test_uis1_screen_comes_from_the_image_under_image_root(tmp_path) -> None:
    images = tmp_path / "images"
    images.mkdir()
    (images / "90001_0.png").write_bytes(_png((1440, 3120)))
    path = _jsonl(tmp_path / "eval.jsonl", [EVAL_LINE])
    [e] = read_uis1(path, image_root=images)
    assert e.screen == (1440, 3120)
    assert e.steps[0].screenshot == str(images / "90001_0.png")
    assert e.steps[1].screenshot == str(images / "90001_1.png")  # missing images are still named
    # the eval file's standard 1080x2400 swipe points are no longer standard at 1440x3120: kept
    assert e.steps[2].action.point == (540, 1800)
    [other] = read_uis1(path, screen=(1440, 3120))
    assert other.screen == (1440, 3120)
    (images / "90001_0.png").write_bytes(b"not an image")
    with pytest.raises(ExperienceError, match=r"90001_0\.png: not a readable image"):
        read_uis1(path, image_root=images)


def _varied_experiences(folder: Path) -> list[Experience]:
    box = (100.0, 200.0, 300.0, 260.0)
    shot = str(folder / "s0.png")  # a screenshot of the data folder: written relative to it
    steps = (
        ExpertStep(UIAction("click", point=(200, 230), box=box), ((0, 0, 1440, 3120),), shot, thought="tap"),
        ExpertStep(UIAction("swipe", direction="left"), instruction="scroll left"),  # no finger points
        ExpertStep(UIAction("swipe", point=(700, 2000), point2=(720, 900), direction="down")),
        ExpertStep(UIAction("long_press", point=(5.5, 6.25), time=1.5)),
        ExpertStep(UIAction("open", text="Files"), ((10, 10, 20, 20),)),
        ExpertStep(UIAction("key", text="KEYCODE_APP_SWITCH")),
        ExpertStep(UIAction("answer", text="42")),
        ExpertStep(UIAction("wait")),
        ExpertStep(UIAction("system_button", button="Home")),
        ExpertStep(UIAction("terminate", status="failure")),
    )
    return [
        Experience("77", "Do many things", steps, (1440, 3120), meta={"is_successful": False}),
        Experience("task:3", "Type", (ExpertStep(UIAction("type", text='naïve "quoted"')),)),
    ]


def _action(a: UIAction, screen: tuple[int, int]) -> object:
    """A swipe by its direction and finger path (a labelled swipe's standard path is written out and
    read back as the label alone), anything else as it is."""
    return (a.direction, a.finger(screen)) if a.action == "swipe" else a


def _same(a: Experience, b: Experience) -> None:
    assert (a.id, a.goal, a.screen) == (b.id, b.goal, b.screen)
    for x, y in zip(a.steps, b.steps, strict=True):
        assert (_action(x.action, a.screen), x.boxes, x.screenshot, x.thought, x.instruction) == (
            _action(y.action, b.screen),
            y.boxes,
            y.screenshot,
            y.thought,
            y.instruction,
        )


def test_uis1_writer_round_trip(tmp_path) -> None:
    original = _varied_experiences(tmp_path)
    first = tmp_path / "out.jsonl"
    assert write_uis1(original, first) == 2
    back = read_uis1(first)
    for a, b in zip(original, back, strict=True):
        _same(a, b)
    assert back[0].meta["is_successful"] is False
    # the file is UI-S1's eval shape
    line = json.loads(first.read_text().splitlines()[0])
    assert line["episode_id"] == 77 and line["goal"] == "Do many things"
    left = line["steps"][1]
    assert left["action_content"] == {"action": "swipe", "coordinate": [360, 1560], "coordinate2": [1080, 1560]}
    assert left["check_options"] == {"action": "swipe", "direction": "left"}
    click = line["steps"][0]
    assert click["screenshot"] == "s0.png"
    assert click["check_options"]["candidate_bbox"] == [[100.0, 200.0, 300.0, 260.0], [0, 0, 1440, 3120]]
    assert click["action_content"]["coordinate"] == [200, 230]
    # written again, the same bytes
    second = tmp_path / "again.jsonl"
    write_uis1(back, second)
    assert second.read_bytes() == first.read_bytes()
    # and UI-S1 data read, written and read again is unchanged
    eval_path = _jsonl(tmp_path / "eval.jsonl", [EVAL_LINE, TRAIN_LINE])
    read = read_uis1(eval_path)
    write_uis1(read, tmp_path / "eval_out.jsonl")
    for a, b in zip(read, read_uis1(tmp_path / "eval_out.jsonl"), strict=True):
        _same(a, b)


def test_uis1_damaged_input(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match=r"missing\.jsonl"):
        read_uis1(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(EVAL_LINE) + "\n{not json\n")
    with pytest.raises(ExperienceError, match=r"bad\.jsonl:2: not JSON"):
        read_uis1(bad)
    bad.write_text(json.dumps(EVAL_LINE) + "\n" + json.dumps(EVAL_LINE)[:50])
    with pytest.raises(ExperienceError, match=r"bad\.jsonl:2: not JSON \(the file seems cut short\)"):
        read_uis1(bad)
    line = {"goal": "g", "steps": [EVAL_LINE["steps"][0], {"action_content": {"action": "fly"}}]}
    _jsonl(bad, [line])
    with pytest.raises(ExperienceError, match=r"bad\.jsonl:1: step 1: unknown action 'fly'"):
        read_uis1(bad)
    _jsonl(bad, [{"goal": "g", "steps": [{"action_content": {"action": "click", "coordinate": "here"}}]}])
    with pytest.raises(ExperienceError, match=r"bad\.jsonl:1: step 0: coordinate must be \[x, y\]"):
        read_uis1(bad)
    _jsonl(bad, [{"goal": "g", "steps": [{"action_content": {"action": "swipe", "coordinate": [1, 2, 3]}}]}])
    with pytest.raises(ExperienceError, match=r"step 0: coordinate must be \[x, y\]"):
        read_uis1(bad)
    _jsonl(bad, [{"goal": "g", "steps": []}])
    with pytest.raises(ExperienceError, match=r"bad\.jsonl:1: .*no steps"):
        read_uis1(bad)
    _jsonl(bad, [[1, 2]])
    with pytest.raises(ExperienceError, match=r"bad\.jsonl:1: an episode is a JSON object"):
        read_uis1(bad)


# == GUI-Odyssey ========================================================================================


def _odyssey_step(i: int, action: str, info, **extra) -> dict:
    return {"step": i, "screenshot": f"E_{i}.png", "action": action, "info": info, "ps": "", **extra}


def _odyssey(root: Path, episode_id: str, steps: list[dict], w: int = 1080, h: int = 2400) -> dict:
    episode = {
        "episode_id": episode_id,
        "device_info": {
            "product": "sdk",
            "release_version": "14",
            "sdk_version": "34",
            "h": h,
            "w": w,
            "device_name": "Medium Phone",
        },
        "task_info": {
            "category": "Information_Management",
            "app": ["Chrome", "Google Docs"],
            "meta_task": "Look up {}",
            "task": "Look up Paris",
            "instruction": "Use Chrome to look up Paris.",
        },
        "step_length": len(steps),
        "steps": steps,
    }
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    (root / "annotations" / f"{episode_id}.json").write_text(json.dumps(episode), encoding="utf-8")
    return episode


ODYSSEY_STEPS = [
    _odyssey_step(
        0,
        "CLICK",
        [[719, 762], [719, 762]],
        sam2_bbox=[650, 700, 790, 820],
        low_level_instruction="Open Chrome.",
        intention="Open the browser first.",
    ),
    _odyssey_step(1, "TEXT", "weather in Paris", sam2_bbox=[]),
    _odyssey_step(2, "SCROLL", [[563, 867], [522, 401]]),  # finger up: content down
    _odyssey_step(3, "SCROLL", [[500, 300], [500, 800]]),  # finger down: content up
    _odyssey_step(4, "SCROLL", [[800, 500], [200, 520]]),  # finger left: content right
    _odyssey_step(5, "SCROLL", [[500, 500], [600, 590]]),  # in [0,1000] horizontal wins (pixels would not)
    _odyssey_step(6, "CLICK", "KEY_HOME"),
    _odyssey_step(7, "CLICK", "KEY_BACK"),
    _odyssey_step(8, "CLICK", "KEY_APPSELECT"),
    _odyssey_step(9, "LONG_PRESS", [[100, 200], [100, 200]], sam2_bbox=None),
    _odyssey_step(10, "TYPE", "hello"),
    _odyssey_step(11, "COMPLETE", ""),
]


def test_odyssey_action_mapping(tmp_path) -> None:
    raw = _odyssey(tmp_path, "0000000000000001", ODYSSEY_STEPS)
    [e] = read_odyssey(tmp_path)
    assert (e.id, e.goal, e.screen, e.source, e.app) == (
        "0000000000000001",
        "Use Chrome to look up Paris.",
        (1080, 2400),
        "gui-odyssey",
        "Chrome",
    )
    assert e.meta["apps"] == ["Chrome", "Google Docs"] and e.meta["category"] == "Information_Management"
    a = [s.action for s in e.steps]
    assert a[0] == UIAction("click", point=(776.52, 1828.8), box=(702.0, 1680.0, 853.2, 1968.0))
    assert e.steps[0].boxes == ((702.0, 1680.0, 853.2, 1968.0),)
    assert (e.steps[0].thought, e.steps[0].instruction) == ("Open the browser first.", "Open Chrome.")
    assert a[1] == UIAction("type", text="weather in Paris")
    assert a[2] == UIAction("swipe", point=(608.04, 2080.8), point2=(563.76, 962.4), direction="down")
    assert [x.direction for x in a[2:6]] == ["down", "up", "right", "left"]
    assert a[6] == UIAction("system_button", button="Home")
    assert a[7] == UIAction("system_button", button="Back")
    assert a[8] == UIAction("key", text="KEYCODE_APP_SWITCH")  # the recent-apps key, not Menu
    assert a[9] == UIAction("long_press", point=(108.0, 480.0))  # sam2_bbox null: no box
    assert a[10] == UIAction("type", text="hello")
    assert a[11] == UIAction("terminate", status="success")
    assert e.steps[2].screenshot == str(tmp_path / "screenshots" / "E_2.png")
    assert [json.loads(s.native) for s in e.steps] == [{"action": s["action"], "info": s["info"]} for s in raw["steps"]]


def test_odyssey_incomplete_and_other_screens(tmp_path) -> None:
    _odyssey(
        tmp_path,
        "2",
        [_odyssey_step(0, "CLICK", [[500, 500], [500, 500]]), _odyssey_step(1, "INCOMPLETE", "")],
        w=1440,
        h=3120,
    )
    [e] = read_odyssey(tmp_path / "annotations")  # the annotations folder itself
    assert e.screen == (1440, 3120)
    assert e.steps[0].action.point == (720.0, 1560.0)
    assert e.steps[1].action == UIAction("terminate", status="failure")
    assert read_odyssey(tmp_path / "annotations" / "2.json")[0] == e  # one file
    assert read_odyssey(tmp_path, image_root=tmp_path / "img")[0].steps[0].screenshot == str(
        tmp_path / "img" / "E_0.png"
    )


def test_odyssey_splits(tmp_path) -> None:
    for name in ("a", "b", "c"):
        _odyssey(tmp_path, name, [_odyssey_step(0, "COMPLETE", "")])
    (tmp_path / "splits").mkdir()
    (tmp_path / "splits" / "random_split.json").write_text(json.dumps({"train": ["a.json", "c"], "test": ["b.json"]}))
    assert [e.id for e in read_odyssey(tmp_path)] == ["a", "b", "c"]
    assert [e.id for e in read_odyssey(tmp_path, split="train")] == ["a", "c"]
    assert [e.id for e in read_odyssey(tmp_path, split="test", split_name="random")] == ["b"]
    with pytest.raises(ExperienceError, match="no split 'dev'"):
        read_odyssey(tmp_path, split="dev")
    with pytest.raises(FileNotFoundError, match=r"app_split\.json"):
        read_odyssey(tmp_path, split="train", split_name="app_split")


def test_odyssey_damaged_input(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="nowhere"):
        read_odyssey(tmp_path / "nowhere")
    episode = _odyssey(tmp_path, "x", [_odyssey_step(0, "FLY", "")])
    with pytest.raises(ExperienceError, match=r"x\.json: step 0: unknown action 'FLY'"):
        read_odyssey(tmp_path)
    episode["steps"] = [_odyssey_step(0, "CLICK", "KEY")]
    (tmp_path / "annotations" / "x.json").write_text(json.dumps(episode))
    with pytest.raises(ExperienceError, match="neither a point nor a KEY_ name"):
        read_odyssey(tmp_path)
    del episode["device_info"]
    (tmp_path / "annotations" / "x.json").write_text(json.dumps(episode))
    with pytest.raises(ExperienceError, match=r"x\.json: device_info needs"):
        read_odyssey(tmp_path)
    (tmp_path / "annotations" / "x.json").write_text(json.dumps(episode)[:40])
    with pytest.raises(ExperienceError, match=r"x\.json: not a readable GUI-Odyssey annotation"):
        read_odyssey(tmp_path)


# == AndroidControl =====================================================================================

APP = "com.example.contacts"


def _windows() -> list[Window]:
    name = Node("android.widget.TextView", (200, 270, 700, 340), "Alice Smith", rid=f"{APP}:id/name")
    row = Node("android.view.ViewGroup", (0, 210, 1080, 400), desc="Alice Smith", clickable=True, children=[name])
    hidden = Node("android.widget.ImageView", (950, 460, 1030, 530), desc="Starred", visible=False)
    above = Node("android.widget.TextView", (0, -120, 1080, 0), "Above")  # scrolled off: negative bounds
    lst = Node(
        "androidx.recyclerview.widget.RecyclerView",
        (0, 210, 1080, 2337),
        rid=f"{APP}:id/list",
        scrollable=True,
        children=[row, hidden, above],
    )
    search = Node(
        "android.widget.EditText", (40, 90, 1040, 190), "Search", clickable=True, focusable=True, field=object()
    )
    app = Node("android.widget.FrameLayout", (0, 63, 1080, 2337), package=APP, children=[search, lst])
    key = Node("android.view.View", (0, 1550, 108, 1700), desc="q")
    ime = Node("android.widget.FrameLayout", (0, 1500, 1080, 2337), children=[key])
    clock = Node("android.widget.TextView", (40, 0, 160, 63), "12:00", rid="com.android.systemui:id/clock")
    status = Node("android.widget.FrameLayout", (0, 0, 1080, 63), children=[clock])
    return [
        Window(11, "system", 2, "StatusBar", "com.android.systemui", (0, 0, 1080, 63), status),
        Window(8, "input_method", 1, "Keyboard", "com.google.ime", (0, 1500, 1080, 2337), ime),
        Window(5, "application", 0, "Contacts", APP, (0, 0, 1080, 2400), app, active=True, focused=True),
    ]


AC_ACTIONS = [
    {"action_type": "click", "x": 450, "y": 300},
    {"action_type": "long_press", "x": 50, "y": 1600},
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "open_app", "app_name": "Zoho Meeting"},
    {"action_type": "input_text", "text": "Welsh cakes"},
    {"action_type": "navigate_home"},
    {"action_type": "navigate_back"},
    {"action_type": "wait"},
    {"action_type": "type", "x": 540, "y": 140, "text": "hi"},
]


def _shards(root: Path) -> Path:
    """Two shards (a gzip one with a zero-action episode, a plain one) and the split files."""
    forest = to_forest(_windows())
    n = len(AC_ACTIONS) + 1
    first = encode_episode(
        8193,
        "Find Alice",
        AC_ACTIONS,
        step_instructions=[f"step {i}" for i in range(len(AC_ACTIONS))],
        screenshots=[f"png-{i}".encode() for i in range(n)],
        forests=[forest] * n,
    )
    empty = encode_episode(5, "Nothing", [], screenshots=[b"only"], forests=[forest])
    second = encode_episode(
        42,
        "Open settings",
        [{"action_type": "open_app", "app_name": "Settings"}],
        screenshots=[_png((4, 8)), b"last"],
        sizes=[(1440, 3120)] * 2,
    )
    root.mkdir(exist_ok=True)
    write_records(root / "android_control-00000-of-00002", [first, empty])
    write_records(root / "android_control-00001-of-00002", [second], compress=False)
    (root / "splits.json").write_text(json.dumps({"train": [42], "validation": [], "test": ["8193", 5]}))
    (root / "test_subsplits.json").write_text(json.dumps({"IDD": [8193], "app_unseen": []}))
    return root


def test_forest_proto_round_trip_and_xml() -> None:
    forest = to_forest(_windows())
    data = encode_forest(forest)
    assert decode_forest(data) == forest  # every field, negative bounds and selections (-1) included
    xml = forest_to_xml(decode_forest(data))
    elements = {(e.label, e.cls): e for e in parse_screen(xml)}
    assert elements["Alice Smith", "ViewGroup"].bounds == (0, 210, 1080, 400)
    assert elements["Alice Smith", "ViewGroup"].clickable
    assert elements["Alice Smith", "TextView"].bounds == (200, 270, 700, 340)
    elements = {label: e for (label, _), e in elements.items()}
    assert elements["Search"].editable and elements["Search"].bounds == (40, 90, 1040, 190)
    assert elements["12:00"].system and elements["q"].bounds == (0, 1550, 108, 1700)
    assert elements["Above"].bounds == (0, -120, 1080, 0)
    assert "Starred" not in xml  # not visible to the user: not in a dump
    assert xml.startswith("<?xml") and xml.count('<node index="0"') >= 3  # one root per window


def test_forest_decoder_is_lenient_where_protobuf_is() -> None:
    rect = field_varint(1, 10) + field_varint(3, -5)  # left 10, right -5 (sign-extended)
    node = (
        field_bytes(2, rect)
        + field_varint(25, 3)  # child_ids unpacked
        + field_varint(25, 4)
        + field_bytes(25, b"\x05\x06")  # and packed
        + field_varint(99, 1)  # an unknown field
        + field_bytes(7, "hé".encode())
    )
    window = field_varint(6, 42) + field_bytes(11, field_bytes(1, node))  # an enum value from the future
    forest = decode_forest(field_bytes(1, window))
    [w] = forest["windows"]
    [n] = w["tree"]["nodes"]
    assert w["window_type"] == "UNKNOWN_TYPE" and w["is_active"] is False and w["title"] == ""
    assert n["child_ids"] == [3, 4, 5, 6] and n["text"] == "hé" and n["unique_id"] == 0
    assert n["bounds_in_screen"] == {"left": 10, "top": 0, "right": -5, "bottom": 0}
    with pytest.raises(ExperienceError, match="accessibility forest: truncated"):
        decode_forest(field_bytes(1, window)[:-3])


def test_a_forest_too_deep_for_xml_is_an_error() -> None:
    depth = sys.getrecursionlimit() + 100
    nodes = [{"unique_id": i, "child_ids": [i + 1], "is_visible_to_user": True} for i in range(depth)]
    with pytest.raises(ExperienceError, match="too deep"):
        forest_to_xml({"windows": [{"tree": {"nodes": nodes}}]})


def test_candidate_boxes_are_nested_smallest_first() -> None:
    forest = to_forest(_windows())
    assert candidate_boxes(forest, (450, 300)) == [
        (200, 270, 700, 340),
        (0, 210, 1080, 400),
        (0, 210, 1080, 2337),
        (0, 63, 1080, 2337),
    ]
    # across windows: the key, the keyboard, then the app's list and root; the hidden star is skipped
    assert candidate_boxes(forest, (50, 1600)) == [
        (0, 1550, 108, 1700),
        (0, 1500, 1080, 2337),
        (0, 210, 1080, 2337),
        (0, 63, 1080, 2337),
    ]
    assert candidate_boxes(forest, (990, 500))[0] == (0, 210, 1080, 2337)
    assert candidate_boxes(forest, (200, 270))[0] == (200, 270, 700, 340)  # edges count


def test_androidcontrol_episodes(tmp_path) -> None:
    root = _shards(tmp_path / "ac")
    episodes = read_androidcontrol(root)
    assert [e.id for e in episodes] == ["8193", "42"]  # the zero-action episode is skipped
    e, other = episodes
    assert (e.goal, e.screen, e.source, e.app) == ("Find Alice", (1080, 2400), "androidcontrol", "Zoho Meeting")
    assert [s.action for s in e.steps] == [
        UIAction("click", point=(450, 300)),
        UIAction("long_press", point=(50, 1600)),
        UIAction("swipe", direction="down"),
        UIAction("open", text="Zoho Meeting"),
        UIAction("type", text="Welsh cakes"),
        UIAction("system_button", button="Home"),
        UIAction("system_button", button="Back"),
        UIAction("wait"),
        UIAction("type", text="hi", point=(540, 140)),
    ]
    assert e.steps[0].boxes[:2] == ((200, 270, 700, 340), (0, 210, 1080, 400))
    assert e.steps[1].boxes[0] == (0, 1550, 108, 1700)
    assert e.steps[2].boxes == ()
    assert [s.instruction for s in e.steps[:2]] == ["step 0", "step 1"]
    assert [json.loads(s.native) for s in e.steps] == AC_ACTIONS
    assert "Alice Smith" in {x.label for x in parse_screen(e.steps[0].ui)}
    shard = str((root / "android_control-00000-of-00002").resolve())
    assert e.steps[3].screenshot == f"{shard}#0/3" and e.final_screenshot == f"{shard}#0/9"
    assert [load_screenshot(s.screenshot) for s in e.steps] == [f"png-{i}".encode() for i in range(9)]
    assert load_screenshot(e.final_screenshot) == b"png-9"
    assert e.meta == {"episode_id": 8193, "shard": shard, "record": 0}
    assert (other.screen, other.steps[0].ui, other.steps[0].instruction) == ((1440, 3120), None, None)
    png = load_screenshot(other.steps[0].screenshot)
    assert Image.open(io.BytesIO(png)).size == (4, 8)
    assert load_screenshot(other.final_screenshot) == b"last"


def test_androidcontrol_paths_splits_and_options(tmp_path) -> None:
    root = _shards(tmp_path / "ac")
    assert [e.id for e in read_androidcontrol(root / "android_control-00001-of-00002")] == ["42"]
    assert [e.id for e in read_androidcontrol(str(root / "android_control-0000*"))] == ["8193", "42"]
    assert [e.id for e in read_androidcontrol(root, split="train")] == ["42"]
    assert [e.id for e in read_androidcontrol(root, split="test")] == ["8193"]
    assert [e.id for e in read_androidcontrol(root, split="IDD")] == ["8193"]  # test_subsplits.json
    assert [e.id for e in read_androidcontrol(root, limit=1)] == ["8193"]
    with pytest.raises(ExperienceError, match=r"no split 'dev'.*train, validation, test, IDD, app_unseen"):
        read_androidcontrol(root, split="dev")
    [e] = read_androidcontrol(root, split="test", with_ui=False, terminate=True)
    assert all(s.ui is None for s in e.steps) and e.steps[0].boxes == ()
    assert e.steps[-1].action == UIAction("terminate", status="success")
    assert e.steps[-1].screenshot == e.final_screenshot
    (root / "splits.json").unlink()
    with pytest.raises(FileNotFoundError, match=r"splits\.json: no splits file"):
        read_androidcontrol(root, split="train")


def test_androidcontrol_damaged_input(tmp_path) -> None:
    with pytest.raises(FileNotFoundError, match="no AndroidControl shards"):
        read_androidcontrol(tmp_path)
    with pytest.raises(FileNotFoundError, match="no file matches"):
        read_androidcontrol(str(tmp_path / "android_control-*"))
    root = _shards(tmp_path / "ac")
    plain = root / "android_control-00001-of-00002"
    raw = bytearray(plain.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    plain.write_bytes(bytes(raw))
    with pytest.raises(ExperienceError, match=r"android_control-00001-of-00002: record 0 .*bad CRC of the data"):
        read_androidcontrol(root)
    plain.write_bytes(bytes(raw[:-30]))
    with pytest.raises(ExperienceError, match=r"record 0 .*truncated"):
        read_androidcontrol(root)

    def shard_of(example: bytes) -> Path:
        path = tmp_path / "one.tfrecord"
        write_records(path, [example])
        return path

    counts = encode_example(
        {
            "episode_id": [1],
            "goal": ["g"],
            "screenshot_widths": [1080, 1080],
            "screenshot_heights": [2400, 2400],
            "actions": ["{}", "{}"],
        }
    )
    with pytest.raises(ExperienceError, match=r"one\.tfrecord: record 0: 2 actions for 2 observations"):
        read_androidcontrol(shard_of(counts))
    unknown = encode_episode(1, "g", [{"action_type": "teleport"}])
    with pytest.raises(ExperienceError, match=r"record 0 \(episode 1\), step 0: .*unknown action_type 'teleport'"):
        read_androidcontrol(shard_of(unknown))
    bad_forest = encode_episode(1, "g", [{"action_type": "wait"}], forests=[b"\x0a\x50\x01", b""])
    with pytest.raises(ExperienceError, match=r"\(episode 1\), observation 0: accessibility forest: truncated"):
        read_androidcontrol(shard_of(bad_forest))
    no_goal = encode_example({"episode_id": [1], "screenshot_widths": [1], "screenshot_heights": [1], "actions": []})
    with pytest.raises(ExperienceError, match="no 'goal' feature"):
        read_androidcontrol(shard_of(no_goal))
    wrong_kind = encode_example({"episode_id": Feature("float", [1.0])})
    with pytest.raises(ExperienceError, match="'episode_id' is a float_list, expected int64_list"):
        read_androidcontrol(shard_of(wrong_kind))
    not_example = tmp_path / "junk.tfrecord"
    write_records(not_example, [b"\x0b\x0c"])
    with pytest.raises(ExperienceError, match=r"junk\.tfrecord: record 0: not a tf\.train\.Example"):
        read_androidcontrol(not_example)


def test_screenshot_references(tmp_path) -> None:
    root = _shards(tmp_path / "ac")
    shard = root / "android_control-00000-of-00002"
    assert load_screenshot(f"{shard}#1/0") == b"only"  # the skipped episode's image is still addressable
    with pytest.raises(ExperienceError, match="is not a screenshot reference"):
        load_screenshot(str(shard))
    with pytest.raises(ExperienceError, match="the episode has 10 screenshots"):
        load_screenshot(f"{shard}#0/10")
    with pytest.raises(ExperienceError, match="no record 2: the file holds 2 records"):
        load_screenshot(f"{shard}#2/0")
    with pytest.raises(FileNotFoundError, match="gone"):
        load_screenshot(f"{tmp_path / 'gone'}#0/0")


def test_parse_action_accepts_and_rejects() -> None:
    assert parse_action('{"action_type": "scroll", "direction": "Left"}') == UIAction("swipe", direction="left")
    assert parse_action({"action_type": "wait", "time": 3}) == UIAction("wait", time=3)
    assert parse_action(b'{"action_type": "click", "x": 1.5, "y": 2}').point == (1.5, 2)
    for bad, why in [
        ("{", "not JSON"),
        ("[1]", "a JSON object"),
        ('{"action_type": "click", "x": "1", "y": 2}', "'x' must be a number"),
        ('{"action_type": "open_app"}', "'app_name' must be text"),
        ('{"action_type": "scroll", "direction": "diagonal"}', "direction is one of"),
    ]:
        with pytest.raises(ExperienceError, match=why):
            parse_action(bad)


# == format detection ===================================================================================


def test_detect_and_dispatch(tmp_path) -> None:
    mine = Experience("e1", "Go home", (ExpertStep(UIAction("system_button", button="Home")),))
    (tmp_path / "mine.jsonl").write_text(dumps([mine]))
    uis1 = _jsonl(tmp_path / "uis1.jsonl", [EVAL_LINE])
    _odyssey(tmp_path / "ody", "1", ODYSSEY_STEPS)
    root = _shards(tmp_path / "ac")
    cases = {
        tmp_path / "mine.jsonl": "gui-gym",
        uis1: "ui-s1",
        tmp_path / "ody": "gui-odyssey",
        tmp_path / "ody" / "annotations": "gui-odyssey",
        tmp_path / "ody" / "annotations" / "1.json": "gui-odyssey",
        root: "androidcontrol",
        root / "android_control-00000-of-00002": "androidcontrol",
        str(root / "android_control-*"): "androidcontrol",
    }
    for path, fmt in cases.items():
        assert detect_format(path) == fmt, path
    assert read_experiences(tmp_path / "mine.jsonl") == [mine]
    assert read_experiences(uis1, image_root=tmp_path)[0].id == "90001"
    assert read_experiences(tmp_path / "ody")[0].id == "1"
    assert [e.id for e in read_experiences(root, split="train")] == ["42"]
    assert read_experiences(uis1, format="ui-s1")[0].source == "ui-s1"
    with pytest.raises(ValueError, match="unknown format 'csv'"):
        read_experiences(uis1, format="csv")
    with pytest.raises(TypeError, match="no options"):
        read_experiences(tmp_path / "mine.jsonl", split="train")
    with pytest.raises(FileNotFoundError, match=r"absent\.jsonl"):
        read_experiences(tmp_path / "absent.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ExperienceError, match="cannot tell the format of this folder"):
        detect_format(tmp_path / "empty")
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ExperienceError, match="cannot tell the format of this file"):
        detect_format(tmp_path / "notes.txt")
    (tmp_path / "broken.jsonl").write_text(dumps([mine]) + '{"id": "e2", "goal": 3, "steps": []}\n')
    with pytest.raises(ExperienceError, match=r"broken\.jsonl:2: "):
        read_experiences(tmp_path / "broken.jsonl")
    (tmp_path / "deep.jsonl").write_text('{"id": "x", "steps": [{"action": {}}], "goal": ' + "[" * 100_000 + "\n")
    with pytest.raises(ExperienceError, match=r"deep\.jsonl"):
        read_experiences(tmp_path / "deep.jsonl")
