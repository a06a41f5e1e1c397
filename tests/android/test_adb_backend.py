"""``GuiAndroidEnv(backend="adb")`` against the simulated phone served over the adb protocol
(``serve-adb``) on loopback: the same observations as the simulator backend along an oracle
episode, text with every shell metacharacter typed as text, and a server that dies mid-episode."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from gui_gym.android.actions import Action
from gui_gym.android.backends.adb import AdbBackend, DeviceError, parse_dump, shell_quote, text_commands
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.sim.adb.server import AdbServer, serve_adb
from gui_gym.android.ui import to_xml

TASK = "ContactsAddContact"


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10)
    yield srv
    srv.close()


def test_an_episode_over_adb_sees_what_the_simulator_shows(server: AdbServer) -> None:
    sim = GuiAndroidEnv(task=TASK)
    obs, info = sim.reset(seed=3)
    # the served phone gets the same instance (the env's generator for seed 3 is default_rng(3))
    server.backend.start(TASK, np.random.default_rng(3))
    dev = GuiAndroidEnv(task=TASK, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.5})
    dobs, dinfo = dev.reset(seed=3)
    assert dinfo["instruction"] == info["instruction"] and dinfo["backend"] == "adb" and info["backend"] == "sim"
    assert dobs["ui"] == obs["ui"]
    while True:
        action = sim.unwrapped.oracle_action()
        obs, _, term, trunc, info = sim.step(action)
        dobs, _, dterm, _, dinfo = dev.step(action)
        assert dobs["ui"] == obs["ui"], action
        assert dinfo["format_valid"] and dinfo["action_kind"] == info["action_kind"]
        if term or trunc:
            break
    assert info["success"] and dterm and dinfo["success"]  # instruction-only: the agent's own finish
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


def _oracle_succeeds_on_both(sim: GuiAndroidEnv, dev: GuiAndroidEnv) -> None:
    """Play the simulator's oracle on *sim* and send each of its actions to *dev* too: both succeed."""
    while True:
        action = sim.unwrapped.oracle_action()
        _, _, term, trunc, sinfo = sim.step(action)
        _, _, dterm, _, info = dev.step(action)
        if term or trunc:
            break
    assert sinfo["success"] and dterm and info["success"]


@pytest.mark.parametrize("task", ["SystemWifiTurnOff", "SystemBrightnessMax", "TurnOffWifiAndTurnOnBluetooth"])
def test_settings_tasks_are_set_up_and_judged_on_the_device(server: AdbServer, task: str) -> None:
    """The start state goes to the device with settings put; settings get reads it back for the
    simulator's own check: doing nothing fails, the oracle's actions (sent over adb) succeed."""
    dev = GuiAndroidEnv(task=task, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.1})
    assert dev.backend.checked_on_device(task) and not dev.backend.checked_on_device("ContactsFavorite")
    dev.reset(seed=1)
    _, _, term, _, info = dev.step("finish()")
    assert term and not info["success"]
    sim = GuiAndroidEnv(task=task)
    sim.reset(seed=1)
    assert server.backend.device.state.settings == sim.unwrapped.device.state.settings  # the same start
    dev.reset(seed=1)
    _oracle_succeeds_on_both(sim, dev)


@pytest.mark.parametrize("task", ["ContactsAddContact", "ContactsDeleteContact", "ContactsPhoneNumberQuestion"])
def test_contacts_tasks_are_set_up_and_judged_on_the_device(server: AdbServer, task: str) -> None:
    """The contacts go to the device through pm clear, the INSERT intent and Save; content query
    reads them back: doing nothing fails, the oracle's actions succeed."""
    dev = GuiAndroidEnv(task=task, backend="adb", backend_options={"port": server.port, "settle_timeout": 0.1})
    assert dev.backend.checked_on_device(task)
    dev.reset(seed=2)
    _, _, term, _, info = dev.step("finish()")
    assert term and not info["success"]
    sim = GuiAndroidEnv(task=task)
    sim.reset(seed=2)

    def book(device) -> list[tuple[str, str]]:
        return sorted((c.name, c.phone) for c in device.data("contacts").contacts)

    assert book(server.backend.device) == book(sim.unwrapped.device)  # the same contacts to start with
    dev.reset(seed=2)
    _oracle_succeeds_on_both(sim, dev)
