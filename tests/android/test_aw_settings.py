"""AndroidWorld's Settings tasks on the simulated phone (``task_evals/single/system.py``,
``task_evals/composite/system.py`` at AndroidWorld's commit :data:`AW_COMMIT`).

The oracle solves every recorded seed; doing nothing fails where the start state is the other
way and succeeds for the ``…Verify`` tasks, whose start state already is the goal (AndroidWorld
judges the state alone); near misses fail; the checks read what AndroidWorld reads over adb.
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import gui_gym  # noqa: F401  (registers GuiAndroid-v0)
from gui_gym.android.sim.adb.shell import Shell
from gui_gym.android.sim.apps.settings.androidworld import (
    CLIPBOARD_RESET,
    CLIPBOARD_TEXTS,
    TEMPLATES,
    android_setting,
)
from gui_gym.android.sim.tasks import TASKS

IDS = [t.id for t in TEMPLATES]
VERIFY = [i for i in IDS if i.endswith("Verify")]
SEEDS = range(30)


def _env(task_id: str, seed: int) -> gym.Env:
    env = gym.make("GuiAndroid-v0", task=task_id)
    env.reset(options={"params": {"seed": seed}})
    return env


def _judge(env: gym.Env) -> bool:
    u = env.unwrapped
    return TASKS[u.task.id].check(u.device, u.params, None, "complete")


@pytest.mark.parametrize("task_id", IDS)
def test_the_oracle_solves_every_seed(task_id: str) -> None:
    env = gym.make("GuiAndroid-v0", task=task_id)
    for seed in SEEDS:
        _, info = env.reset(options={"params": {"seed": seed}})
        reached = list(info["milestones"])
        for _ in range(20):
            action = env.unwrapped.oracle_action()
            _, reward, term, trunc, info = env.step(action)
            assert info["format_valid"], (seed, action, info["reason"])
            reached += info["milestones"]
            if term or trunc:
                break
        assert term and info["success"] and reward == 1.0, (seed, info["action_description"])
        assert reached == TASKS[task_id].milestone_texts(env.unwrapped.params), seed
    env.close()


@pytest.mark.parametrize("task_id", IDS)
def test_finishing_at_once_succeeds_only_for_the_verify_tasks(task_id: str) -> None:
    for seed in range(3):
        env = _env(task_id, seed)
        _, _, term, _, info = env.step("finish()")
        assert term and info["success"] is (task_id in VERIFY), seed


@pytest.mark.parametrize(
    "task_id, change, ok",
    [
        ("SystemWifiTurnOn", {"wifi": True, "airplane": True}, True),  # wifi_on 2 counts as on
        ("SystemWifiTurnOffVerify", {"wifi": True}, False),
        ("SystemBluetoothTurnOff", {"wifi": False}, False),  # the wrong radio
        ("SystemBluetoothTurnOnVerify", {"bluetooth": False}, False),
        ("SystemBrightnessMax", {"brightness": 99}, False),  # 252 is not 255
        ("SystemBrightnessMaxVerify", {"brightness": 99}, False),
        ("SystemBrightnessMin", {"brightness": 1}, False),  # 4 is not 1
        ("SystemBrightnessMin", {"brightness": 0}, True),
    ],
)
def test_near_misses_fail(task_id: str, change: dict, ok: bool) -> None:
    env = _env(task_id, 0)
    env.unwrapped.device.state.settings.update(change)
    assert _judge(env) is ok


def test_the_start_states_are_androidworlds_as_adb_reads_them() -> None:
    """``initialize_task``: ``svc wifi enable|disable``, ``svc bluetooth …``, ``settings put
    system screen_brightness 255|1``; read back with AndroidWorld's own ``settings get``."""
    want = {
        "SystemWifiTurnOn": ("wifi_on", "global", "0"),
        "SystemWifiTurnOnVerify": ("wifi_on", "global", "1"),
        "SystemWifiTurnOff": ("wifi_on", "global", "1"),
        "SystemWifiTurnOffVerify": ("wifi_on", "global", "0"),
        "SystemBluetoothTurnOn": ("bluetooth_on", "global", "0"),
        "SystemBluetoothTurnOnVerify": ("bluetooth_on", "global", "1"),
        "SystemBluetoothTurnOff": ("bluetooth_on", "global", "1"),
        "SystemBluetoothTurnOffVerify": ("bluetooth_on", "global", "0"),
        "SystemBrightnessMax": ("screen_brightness", "system", "1"),
        "SystemBrightnessMaxVerify": ("screen_brightness", "system", "255"),
        "SystemBrightnessMin": ("screen_brightness", "system", "255"),
        "SystemBrightnessMinVerify": ("screen_brightness", "system", "1"),
    }
    for task_id, (key, namespace, value) in want.items():
        dev = _env(task_id, 5).unwrapped.device
        assert android_setting(dev, key) == value, task_id
        assert Shell(dev).run(f"settings get {namespace} {key}").stdout == f"{value}\n".encode(), task_id


def test_brightness_put_over_adb_is_judged_as_androidworld_judges_it() -> None:
    """``_SystemBrightnessToggle.is_successful``: ``int(settings get system screen_brightness)``
    must be exactly 255 (max) or 1 (min); ``adb_utils.set_brightness`` puts those two values."""
    env = _env("SystemBrightnessMax", 0)
    sh = Shell(env.unwrapped.device)
    assert not _judge(env)
    assert sh.run("settings put system screen_brightness 255").status == 0
    assert _judge(env) and sh.run("settings get system screen_brightness").stdout == b"255\n"
    env = _env("SystemBrightnessMin", 0)
    Shell(env.unwrapped.device).run("settings put system screen_brightness 1")
    assert _judge(env) and env.unwrapped.device.state.settings["brightness"] == 0  # the slider's left end


def test_the_composite_scores_the_mean_of_its_two_parts() -> None:
    """``TurnOffWifiAndTurnOnBluetooth.is_successful`` = (wifi_score + bluetooth_score) / 2."""
    env = _env("TurnOffWifiAndTurnOnBluetooth", 0)
    u, task = env.unwrapped, TASKS["TurnOffWifiAndTurnOnBluetooth"]
    s = u.device.state.settings
    assert (s["wifi"], s["bluetooth"]) == (True, False)
    assert task.score(u.device, u.params, None, "complete") == 0.0
    s["wifi"] = False
    assert task.score(u.device, u.params, None, "complete") == 0.5 and not _judge(env)
    s["bluetooth"] = True
    assert task.score(u.device, u.params, None, "complete") == 1.0 and _judge(env)


def test_copy_to_clipboard_draws_and_judges_as_androidworld() -> None:
    """``SystemCopyToClipboard``: ``random.choice`` of 36 texts (seed 0: the 25th, as AndroidWorld
    drew it), the clipboard reset to ``~~~RESET~~~``, success by ``fuzzy_match`` (difflib ratio
    at least 0.9, case ignored)."""
    assert len(CLIPBOARD_TEXTS) == 36 and CLIPBOARD_TEXTS[24] == "2554 Oak Street, Boston, MA"
    env = _env("SystemCopyToClipboard", 0)
    u = env.unwrapped
    assert u.params["clipboard_content"] == "2554 Oak Street, Boston, MA"
    assert u.device.state.clipboard == CLIPBOARD_RESET and not _judge(env)
    # one character short of 27: ratio 2 * 26 / 53 = 0.98, a match; half the text is not
    u.device.state.clipboard = "2554 oak street, boston, M"
    assert _judge(env)
    u.device.state.clipboard = "2554 Oak Street"
    assert not _judge(env)


def test_typing_the_text_without_copying_it_fails() -> None:
    env = _env("SystemCopyToClipboard", 3)
    for _ in range(3):  # launch Settings, open the search, type the text
        _, _, _, _, info = env.step(env.unwrapped.oracle_action())
    assert info["milestones"] == [f'Type "{env.unwrapped.params["clipboard_content"]}" into a text field']
    _, _, term, _, info = env.step("finish()")
    assert term and not info["success"]
