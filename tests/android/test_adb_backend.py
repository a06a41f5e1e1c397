"""``GuiAndroidEnv(backend="adb")`` against the simulated phone served over the adb protocol
(``serve-adb``) on loopback: the same observations as the simulator backend along an oracle
episode, text with every shell metacharacter typed as text, and a server that dies mid-episode."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from gui_gym.android.actions import Action
from gui_gym.android.backends.adb import AdbBackend, DeviceError, parse_dump, shell_quote, text_commands
from gui_gym.android.backends.device_state import judging
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.sim.adb.server import AdbServer, serve_adb
from gui_gym.android.sim.tasks import TASKS
from gui_gym.android.ui import to_xml

TASK = "ContactsAddContact"


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10)
    yield srv
    srv.close()


def _lockstep(sim: GuiAndroidEnv, dev: GuiAndroidEnv, last_screen: bool = True) -> tuple[dict, dict]:
    """Play the simulator's oracle on *sim* and each of its actions on *dev*: the screens and the
    kinds of action are the same at every step (``last_screen=False``: but the last, where the
    simulator's clock takes a step for the finish and the phone's does not). The last infos of both."""
    while True:
        action = sim.unwrapped.oracle_action()
        obs, _, term, trunc, info = sim.step(action)
        dobs, _, dterm, dtrunc, dinfo = dev.step(action)
        assert dobs["ui"] == obs["ui"] or (not last_screen and (term or trunc)), action
        assert dinfo["format_valid"] and dinfo["action_kind"] == info["action_kind"]
        if term or trunc:
            assert dterm or dtrunc
            return info, dinfo


def test_an_instruction_only_episode_over_adb_sees_what_the_simulator_shows(server: AdbServer) -> None:
    task = "TasksCompleteTask"  # judged by the agent on a device: the phone's data as it is
    sim = GuiAndroidEnv(task=task)
    obs, info = sim.reset(seed=3)
    # the served phone gets the same instance (the env's generator for seed 3 is default_rng(3))
    server.backend.start(task, np.random.default_rng(3))
    dev = GuiAndroidEnv(task=task, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.5})
    dobs, dinfo = dev.reset(seed=3)
    assert dinfo["instruction"] == info["instruction"] and dinfo["backend"] == "adb" and info["backend"] == "sim"
    assert dinfo["judged_by"] == "agent" and dobs["ui"] == obs["ui"]
    info, dinfo = _lockstep(sim, dev)
    assert info["success"] and dinfo["success"]  # the agent's own finish
    assert server.backend.check(None, "complete")  # and on the served phone the task is really done


def test_a_refused_action_changes_nothing_and_pixels_come_from_screencap(server: AdbServer) -> None:
    dev = GuiAndroidEnv(
        task=TASK, backend="adb", obs_mode="both", screen_size=(108, 240),
        backend_options={"port": server.port, "settle_timeout": 0.2},
    )  # fmt: skip
    obs, _ = dev.reset(seed=0)
    assert obs["screen"].shape == (240, 108, 3) and obs["screen"].any()
    again, _, _, _, info = dev.step('do(action="Type", text="héllo")')  # not ASCII: refused, not mangled
    assert not info["format_valid"] and "ASCII" in info["reason"] and again["ui"] == obs["ui"]


@pytest.mark.parametrize(
    "text",
    ["a; rm -rf /", "x && reboot", "p | cat /proc/version", "$(id)", "`id`", 'it\'s "quoted"', "*? [x] ~/", "a%sb"],
)
def test_injection_strings_are_typed_as_text(server: AdbServer, text: str) -> None:
    device = server.backend.device
    device.act(Action("launch", app="Contacts"))
    device.act(Action("tap", element=(850, 2044, 1020, 2214)))  # Create contact: a field has focus
    backend = AdbBackend(port=server.port, settle_timeout=0.1)
    out = backend.act(Action("type", text=text, clear=False, enter=False))
    assert out.valid
    host, key = device.focused_host()
    # input text reads %s as a space: a literal "%s" in agent text arrives as a space (Android's rule)
    assert host.form[key] == text.replace("%s", " ")


def test_text_commands_quote_and_split() -> None:
    assert shell_quote("a'b") == "'a'\\''b'"
    assert text_commands("x y") == ["input text 'x%sy'"]
    with pytest.raises(ValueError, match="ASCII"):
        text_commands("ü")
    with pytest.raises(ValueError, match="control"):
        text_commands("a\tb")


def test_garbage_dumps_and_missing_servers_are_clear_errors() -> None:
    with pytest.raises(DeviceError, match="not XML"):
        parse_dump("<hierarchy><node")
    with pytest.raises(DeviceError, match="holds no node"):
        parse_dump("<hierarchy/>")
    with pytest.raises(DeviceError, match="bounds"):
        parse_dump('<hierarchy><node bounds="[a,b][c,d]"/></hierarchy>')
    assert to_xml(parse_dump(to_xml(parse_dump('<hierarchy><node class="A" bounds="[0,0][1,1]"/></hierarchy>'))))
    with pytest.raises(DeviceError, match="no adb server answers"):
        AdbBackend(port=1, command_timeout=2)


def test_a_server_killed_mid_episode_is_a_clear_error_not_a_hang(server: AdbServer) -> None:
    backend = AdbBackend(port=server.port, settle_timeout=0.1, command_timeout=3)
    backend.start(TASK, np.random.default_rng(0))
    server.close()
    with pytest.raises(DeviceError, match="no adb server answers"):
        backend.act(Action("home"))


#: Every task the adb backend sets up and judges from the device's state.
STATE_TASKS = [t for t in TASKS if judging(TASKS[t]) == "state"]
#: Every task it judges from the final screen (AndroidWorld's Clock tasks, the new-contact draft).
SCREEN_TASKS = [t for t in TASKS if judging(TASKS[t]) == "screen"]
#: AndroidWorld's "…Verify" tasks start with the goal already holding (AndroidWorld judges the state,
#: so finishing at once succeeds there); each is undone on the phone with AndroidWorld's own command.
UNDO_VERIFY = {
    "SystemWifiTurnOnVerify": "svc wifi disable",
    "SystemWifiTurnOffVerify": "svc wifi enable",
    "SystemBluetoothTurnOnVerify": "svc bluetooth disable",
    "SystemBluetoothTurnOffVerify": "svc bluetooth enable",
    "SystemBrightnessMaxVerify": "settings put system screen_brightness 128",
    "SystemBrightnessMinVerify": "settings put system screen_brightness 128",
}


def _data(device) -> dict:
    """What the device backend writes of a phone: settings, contacts, messages, notes, the clipboard."""
    contacts = sorted((c.name, c.phone, c.starred) for c in device.data("contacts").contacts)
    sms = sorted(
        (c.key, m.text, m.incoming, m.time, m.read) for c in device.data("messages").conversations for m in c.messages
    )
    notes = device.data("markor").signature()
    return {
        "settings": device.state.settings, "contacts": contacts, "sms": sms, "notes": notes,
        "clipboard": device.state.clipboard,
    }  # fmt: skip


def test_the_verify_tasks_are_those_that_start_done() -> None:
    assert {t for t in STATE_TASKS if t.endswith("Verify")} == set(UNDO_VERIFY)


@pytest.mark.parametrize("task", STATE_TASKS)
def test_every_state_task_is_set_up_and_judged_on_the_device(server: AdbServer, task: str) -> None:
    """The start state goes to the device (settings put; the contacts' INSERT intent and Save; SMS
    rows; Markor's files; the clipboard through the clipper app) and comes back for the simulator's
    own check, with the app in front and the phone's clock: doing nothing fails (a "…Verify" task
    starts done: idle wins there, and fails once the phone is put the other way), the oracle's
    actions sent over adb succeed, and the screens along the way equal the simulator's."""
    dev = GuiAndroidEnv(task=task, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.05})
    _, info = dev.reset(seed=0)
    assert info["judged_by"] == "state" and dev.backend.checked_on_device(task)
    _, _, term, _, info = dev.step("finish()")
    assert term and info["success"] == (task in UNDO_VERIFY)
    if task in UNDO_VERIFY:
        dev.reset(seed=0)
        dev.backend.shell(UNDO_VERIFY[task])
        _, _, term, _, info = dev.step("finish()")
        assert term and not info["success"]
    sim = GuiAndroidEnv(task=task)
    obs, sinfo = sim.reset(seed=0)
    assert sinfo["judged_by"] == "state"
    dobs, _ = dev.reset(seed=0)
    assert _data(server.backend.device) == _data(sim.unwrapped.device)  # the same start
    assert dobs["ui"] == obs["ui"]
    sinfo, info = _lockstep(sim, dev)
    assert sinfo["success"] and info["success"]


@pytest.mark.parametrize("task", SCREEN_TASKS)
def test_every_screen_task_is_judged_from_the_final_screen(server: AdbServer, task: str) -> None:
    """Doing nothing fails (the launcher shows nothing of the goal); the oracle's actions sent over
    adb succeed, judged on the served accessibility forest with AndroidWorld's predicates."""
    dev = GuiAndroidEnv(task=task, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.05})
    _, info = dev.reset(seed=0)
    assert info["judged_by"] == "screen" and dev.backend.checked_on_device(task)
    _, _, term, _, info = dev.step("finish()")
    assert term and not info["success"]
    sim = GuiAndroidEnv(task=task)
    obs, _ = sim.reset(seed=0)
    dobs, _ = dev.reset(seed=0)
    assert dobs["ui"] == obs["ui"]
    sinfo, info = _lockstep(sim, dev, last_screen=False)  # a running stopwatch shows the clock
    assert sinfo["success"] and info["success"]


def test_a_contact_draft_is_judged_on_its_fields_hints(server: AdbServer) -> None:
    """ContactsNewContactDraft: the form's fields are found by their hints, which the served
    accessibility forest carries; the right text in the wrong fields is no draft."""
    dev = GuiAndroidEnv(
        task="ContactsNewContactDraft", backend="adb",
        backend_options={"port": server.port, "settle_timeout": 0.05},
    )  # fmt: skip
    dev.reset(seed=0)
    p = dev.unwrapped._episode.params
    dev.step('do(action="Launch", app="Contacts")')
    _tap(dev, desc="Create contact")
    assert {"First name", "Last name", "Phone"} <= {e.hint_text for e in dev.backend.screen_elements()}
    _type_into(dev, "First name", p["last"])  # swapped
    _type_into(dev, "Last name", p["first"])
    _type_into(dev, "Phone", p["phone"])
    assert not dev.backend.check(None, "complete")


def _type_into(env: GuiAndroidEnv, hint: str, text: str) -> None:
    field = next(e for e in env.backend.screen_elements() if e.hint_text == hint)
    b = field.bbox_pixels
    env.step(f'do(action="Tap", element={[int(b.x_min), int(b.y_min), int(b.x_max), int(b.y_max)]})')
    env.step(f'do(action="Type", text="{text}")')


def _tap(env: GuiAndroidEnv, **match: str) -> None:
    node = next(n for n in env.backend.elements() if all(getattr(n, k) == v for k, v in match.items()))
    env.step(f'do(action="Tap", element={list(node.bounds)})')


@pytest.mark.parametrize("task", ["ClockStopWatchRunning", "ClockStopWatchPausedVerify", "ClockTimerEntry"])
def test_androidworlds_clock_tasks_are_judged_from_the_screen(server: AdbServer, task: str) -> None:
    """The Clock app is cleared at the start (``pm clear``, AndroidWorld's precondition) and the final
    screen is judged with AndroidWorld's predicates (the Clock activity focused, "Pause" and "Lap",
    "Start" and the Stopwatch tab, the timer's "HHh MMm SSs")."""
    dev = GuiAndroidEnv(task=task, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.05})
    server.backend.device.data("clock").sw_running = True  # left over: the reset clears it
    _, info = dev.reset(seed=4)
    assert info["judged_by"] == "screen" and not server.backend.device.data("clock").sw_running
    dev.step('do(action="Launch", app="Clock")')
    _tap(dev, desc="Timer" if task == "ClockTimerEntry" else "Stopwatch")
    if task == "ClockTimerEntry":
        p = dev.unwrapped._episode.params
        for digit in f"{p['hours']}{p['minutes']:02d}{p['seconds']:02d}".lstrip("0"):  # a first 0 types nothing
            _tap(dev, text=digit, cls="android.widget.Button")
    elif task == "ClockStopWatchRunning":
        _tap(dev, desc="Start")
    won = dev.unwrapped.backend.check(None, "complete")
    dev.step(Action("home"))
    lost = dev.unwrapped.backend.check(None, "complete")  # off the Clock app the screen shows nothing
    assert won and not lost


def test_the_registered_device_env_runs_the_tasks_a_device_judges(server: AdbServer) -> None:
    import gymnasium as gym

    env = gym.make("GuiAndroidDevice-v0", port=server.port, settle_timeout=0.05)
    pool = {t.id for t in env.unwrapped.pool}
    assert pool == {t for t in TASKS if judging(TASKS[t]) != "agent"}
    assert "ClockTimerEntry" in pool and "SimpleCalendarAddOneEvent" not in pool
    _, info = env.reset(seed=0, options={"task": "SimpleCalendarAddOneEvent"})
    assert info["judged_by"] == "agent" and info["backend"] == "adb"  # instruction-only, and says so
    _, _, _, _, info = env.step('do(action="Launch", app="calendar")')  # AndroidWorld's name for it
    assert info["format_valid"] and env.unwrapped.backend.app_opened("calendar")
    with pytest.raises(TypeError, match="serial/host/port"):
        gym.make("GuiAndroidDevice-v0", port=server.port, backend="sim")
