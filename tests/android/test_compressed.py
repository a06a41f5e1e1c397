"""Compressed UI formats: MobileRL's released compressor and its App. C, gui-gym's indexed form.

Fixtures (tests/android/fixtures/compressed/, sources in SOURCES.md): real and simulator dumps
with the text MobileRL's own compressor writes for them, and a hand-worked App. C example.
"""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest
from _util import TASK_IDS, make

from gui_gym.android.actions import parse_action
from gui_gym.android.candidates import candidate_actions, parse_screen
from gui_gym.android.compressed import (
    COMPRESSED_FORMATS,
    MOBILERL_HEADER,
    compress_tree,
    compress_xml,
    detect_format,
    parse_compressed,
    resolve_format,
)
from gui_gym.android.env import UI_FORMATS
from gui_gym.android.forest import element_box
from gui_gym.android.screen import screen_text
from gui_gym.android.ui import Node, to_xml

FIXTURES = Path(__file__).parent / "fixtures" / "compressed"
FORMATS = sorted(COMPRESSED_FORMATS)
PIXEL5 = {"width": 1080, "height": 2160}  # the talos dump's phone

# App. C.4's original node (a full dump of one node, as the paper prints it).
APP_C_NODE = (
    '<hierarchy rotation="0"><node index="0" text="Audio Recorder" '
    'resource-id="com.dimowner.audiorecorder:id/txt_title" class="android.widget.TextView" '
    'package="com.dimowner.audiorecorder" content-desc="" checkable="false" checked="false" '
    'clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" '
    'long-clickable="false" password="false" selected="false" bounds="[221,1095][858,1222]" /></hierarchy>'
)


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8").rstrip("\n")


def test_app_c_example_node() -> None:
    assert compress_xml(APP_C_NODE, "mobilerl_appc") == "TextView;;Audio Recorder;[221,1095][858,1222]"
    # The released format scales the same node to 0..999 of a 1080x2400 screen, under its header.
    assert compress_xml(APP_C_NODE) == MOBILERL_HEADER + "\n    TextView;;Audio Recorder;[204,455,793,508]"


def test_hand_worked_app_c_example_on_a_real_dump() -> None:
    """The worked example of notes/compressed.md: wrappers, the status bar view, a zero-area
    node and an off-screen one go; flags become words; a two-line text stays two lines."""
    got = compress_xml(fixture("talos_pixel5.xml"), "mobilerl_appc", **PIXEL5)
    assert got == fixture("talos_pixel5.mobilerl_appc.txt")
    assert "Heading 3" not in got  # bounds [0,0][0,0]
    assert "Heading 3" in compress_xml(fixture("talos_pixel5.xml"), "mobilerl_appc", remain_nodes=True, **PIXEL5)


@pytest.mark.parametrize("name", ["talos_pixel5", "settings_row", "sim_network_settings", "quirks"])
@pytest.mark.parametrize("fmt", ["mobilerl", "mobilerl_appc"])
def test_fixtures_match_what_mobilerl_writes(name: str, fmt: str) -> None:
    size = PIXEL5 if name.startswith("talos") else {}
    assert compress_xml(fixture(f"{name}.xml"), fmt, **size) == fixture(f"{name}.{fmt}.txt")


def test_released_format_folds_texts_into_clickable_rows() -> None:
    real = fixture("settings_row.mobilerl.txt").split("\n")[2:]  # a real Settings row: icon frames go, texts fold
    folded = "Network & internet|Wi-Fi, SIM card & mobile network, Hotspot & tethering"
    assert real == [f"    LinearLayout;click;{folded};[0,528,999,634]"]
    text = fixture("sim_network_settings.mobilerl.txt")
    assert "    LinearLayout;click;Wi-Fi|Off;[0,99,999,189]\n        Switch;click check unchecked;OFF;" in text
    assert "TextView;;Wi-Fi;" in fixture("sim_network_settings.mobilerl_appc.txt")  # App. C keeps the row's texts


def test_released_format_quirks_are_kept() -> None:
    text = fixture("quirks.mobilerl.txt")
    lines = text.split("\n")[2:]
    # Single-child focusable wrappers above the list go; the list lands before the last top-level node.
    assert [ln.strip().split(";")[0] for ln in lines if not ln.startswith("        ")] == [
        "TextView",
        "View",
        "LinearLayout",
        "RecyclerView",
        "TextView",
    ]
    assert "        TextView;;Item one, again;[0,100,1080,201]" in lines  # a repeated scaled box keeps pixels
    assert "    LinearLayout;click;Top||Deep;[0,811,999,874]" in lines  # an empty wrapper leaves "||"
    assert "        TextView; click;12;[416,499,508,541]" in lines  # the clock face's numbers
    assert lines[-1] == "    TextView;;Tagged  text desc;[0,882,999,915]"  # "[n…]" tags go, in text too


@pytest.mark.parametrize("task_id", TASK_IDS)
def test_tree_and_its_dump_compress_identically(task_id: str) -> None:
    env = make(task_id)
    env.reset(seed=0)
    screens = 0
    while True:
        tree = env.unwrapped.backend.tree()
        xml = to_xml(tree)
        for fmt in FORMATS:
            assert compress_tree(tree, fmt) == compress_xml(xml, fmt), f"{task_id} screen {screens} {fmt}"
        screens += 1
        _, _, term, trunc, _ = env.step(env.unwrapped.oracle_action())
        if term or trunc:
            break
    assert screens >= 2


def test_node_texts_read_as_a_dump_carries_them() -> None:
    root = Node("android.widget.FrameLayout", (0, 0, 1080, 2400), children=[
        Node("android.widget.TextView", (0, 100, 1080, 200), 'a\x01b "q"\nc', desc="d\ud800"),
    ])  # fmt: skip
    for fmt in FORMATS:
        assert compress_tree(root, fmt) == compress_xml(to_xml(root), fmt)
    assert 'a\ufffdb "q"\nc d\ufffd' in compress_tree(root, "mobilerl")


def test_names_and_errors() -> None:
    assert resolve_format("compressed") == "mobilerl"
    assert set(UI_FORMATS) == {"xml", "compressed", *COMPRESSED_FORMATS, "forest"}
    with pytest.raises(ValueError, match="mobilerl_appc"):
        compress_tree(Node("android.widget.FrameLayout", (0, 0, 10, 10)), "mobilerl_v9")
    with pytest.raises(ValueError, match="not a uiautomator dump"):
        compress_xml("<hierarchy><node", "mobilerl")
    with pytest.raises(ValueError, match="bounds"):
        compress_xml('<hierarchy><node class="a.B" bounds="somewhere" /></hierarchy>')
    with pytest.raises(ValueError, match="ui_format must be one of"):
        make(ui_format="mobilerl_v9")


def test_env_observations_in_each_format() -> None:
    texts = {}
    for fmt in ("compressed", *FORMATS):
        env = make("SystemWifiTurnOn", ui_format=fmt, render_mode="ansi")
        obs, _ = env.reset(seed=0)
        texts[fmt] = obs["ui"]
        assert detect_format(obs["ui"]) == resolve_format(fmt)
        assert env.render() == f"[{obs['instruction']}]\n{obs['ui']}"
        assert compress_tree(env.unwrapped.backend.tree(), resolve_format(fmt)) == obs["ui"]
    assert texts["compressed"] == texts["mobilerl"] and texts["compressed"].startswith(MOBILERL_HEADER)
    env = make("SystemWifiTurnOn", render_mode="ansi")  # the XML env renders the indexed form
    obs, _ = env.reset(seed=0)
    assert env.render().split("\n", 1)[1] == texts["indexed"]


def test_parse_compressed_reads_records_and_scales_back() -> None:
    nodes = parse_compressed(fixture("talos_pixel5.mobilerl_appc.txt"))
    assert len(nodes) == 19 and [n.depth for n in nodes[:3]] == [0, 0, 1]
    run = nodes[13]
    assert run.text.startswith("Run\nadb shell") and run.bounds == (28, 1196, 1052, 1341) and run.depth == 1
    assert nodes[7].desc == "Decrease accessibility volume" and nodes[7].text == "" and "click" in nodes[7].flags
    released = parse_compressed(fixture("sim_network_settings.mobilerl.txt"))
    row = next(n for n in released if n.text == "Wi-Fi")
    assert row.folded == ("Off",) and row.depth == 0 and row.cls == "LinearLayout"
    assert all(abs(a - b) <= 2 for a, b in zip(row.bounds, (0, 238, 1080, 456), strict=True))
    switch = released[released.index(row) + 1]
    assert switch.depth == 1 and {"click", "check", "unchecked"} <= switch.flags
    again = next(n for n in parse_compressed(fixture("quirks.mobilerl.txt")) if n.text == "Item one, again")
    assert again.bounds == (0, 100, 1080, 201)  # kept in pixels by the released code: read as pixels


@pytest.mark.parametrize("fmt", ["compressed", "mobilerl_appc"])
def test_candidates_reach_every_oracle_tap(fmt: str) -> None:
    """From MobileRL's text alone, a tap candidate lands inside each element the oracle taps."""
    taps = 0
    for task_id in TASK_IDS:
        env = make(task_id, ui_format=fmt)
        obs, _ = env.reset(seed=0)
        while True:
            action = env.unwrapped.oracle_action()
            target = parse_action(action)
            if target.kind in ("tap", "long_press") and target.element is not None:
                x1, y1, x2, y2 = target.element
                centers = [parse_action(c.action).center() for c in candidate_actions(obs) if c.kind == target.kind]
                assert any(x1 <= x <= x2 and y1 <= y <= y2 for x, y in centers), f"{task_id}: {action}"
                taps += 1
            obs, _, term, trunc, _ = env.step(action)
            if term or trunc:
                break
    assert taps > 100


def test_parse_screen_and_screen_text_on_mobilerl_formats() -> None:
    released = parse_screen(fixture("sim_network_settings.mobilerl.txt"))
    appc = parse_screen(fixture("sim_network_settings.mobilerl_appc.txt"))
    system = [e.label for e in released if e.system]
    assert system == ["9:30", "Battery 84 percent", "Bluetooth on", "Wi-Fi off", "Back", "Home", "Overview"]
    assert [e.label for e in appc if e.system] == system
    row = next(e for e in released if e.text == "Wi-Fi")
    assert row.clickable and row.label == "Wi-Fi Off" and row.folded == ("Off",)
    assert next(e for e in appc if e.label == "Navigate up").clickable
    assert screen_text(fixture("sim_network_settings.mobilerl.txt")).startswith(
        'ImageButton desc="Navigate up" | TextView "Network & internet" | LinearLayout "Wi-Fi" "Off" | Switch "OFF"'
    )
    env = make("SystemWifiTurnOn", ui_format="compressed")
    obs, _ = env.reset(seed=0)
    answers = {c.action for c in candidate_actions(obs) if c.kind == "answer"}
    assert 'finish(message="Sunday, October 15")' in answers  # a plain text of the home screen


def test_indexed_format_numbers_lines_like_ui_elements() -> None:
    env = gym.make("GuiAndroid-v0", task="SystemWifiTurnOn", ui_format="indexed", ui_elements="dump")
    obs, info = env.reset(seed=0)
    for line in obs["ui"].split("\n"):
        index = int(line.strip().split("]", 1)[0][1:])
        element = info["ui_elements"][index]
        assert line.strip().split()[1] == element.class_name.rsplit(".", 1)[-1]
        assert line.endswith("[{},{}][{},{}]".format(*element_box(element)))
