"""``GuiAndroidEnv(backend=AndroidEnvBackend(env))`` on DeepMind android_env: its FakeSimulator
through android_env's own loader, and android_env's own ADB path (AdbController, AdbCallParser and
the real adb client) against the simulated phone served by ``serve-adb``."""

from __future__ import annotations

import io
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from _adb import adb_binary
from absl import logging as absl_logging
from android_env import loader
from android_env.components import adb_call_parser, adb_controller, config_classes
from android_env.components.action_type import ActionType
from PIL import Image

from gui_gym.android.backends.android_env import AndroidEnvBackend
from gui_gym.android.env import GuiAndroidEnv
from gui_gym.android.sim.adb.server import AdbServer, serve_adb

absl_logging.set_verbosity(absl_logging.ERROR)


@pytest.fixture
def fake_env() -> Iterator[Any]:
    task = Path(tempfile.mkdtemp()) / "task.textproto"
    task.write_text('id: "gui_gym"\nname: "gui_gym"\nmax_episode_sec: 0\n')
    config = config_classes.AndroidEnvConfig(
        task=config_classes.FilesystemTaskConfig(path=str(task)),
        simulator=config_classes.FakeSimulatorConfig(screen_dimensions=(240, 108)),
    )
    env = loader.load(config)
    yield env
    env.close()


def test_the_fake_simulator_runs_an_episode(fake_env: Any) -> None:
    backend = AndroidEnvBackend(fake_env)
    env = GuiAndroidEnv(task="ClockStopWatchRunning", backend=backend, obs_mode="both", screen_size=(108, 240))
    obs, info = env.reset(seed=0)
    assert obs["screen"].shape == (240, 108, 3) and info["backend"] == "android_env"
    assert backend.dump_error and "not XML" in backend.dump_error  # the fake answers every command "fake output"
    for action in (
        'do(action="Tap", element=[540,1200])',
        'do(action="Long Press", element=[100,200])',
        'do(action="Swipe", direction="up", dist="medium")',
        'do(action="Back")',
        'do(action="Launch", app="Clock")',
        '{"action_type": "TOUCH", "touch_position": [0.5, 0.5]}',
        '{"action_type": "LIFT", "touch_position": [0.5, 0.5]}',
        'do(action="Type", text="a; b $(c)")',
    ):
        _, _, terminated, _, info = env.step(action)
        assert info["format_valid"] and not terminated, action
    typed = [r.input_text.text for r in backend.adb_log if r.HasField("input_text")]
    assert typed == ["'a;%sb%s$(c)'"]  # one single-quoted sh word: the device shell types it, runs nothing
    _, _, terminated, _, info = env.step("finish()")
    assert terminated and info["success"] is True  # instruction-only: the agent's own "complete" is the verdict
    env.close()


class AdbOnlyEnv:
    """What the backend asks of an ``AndroidEnv`` (reset, step, execute_adb_call), over android_env's
    own ADB path pointed at an adb server: its AdbController (the real adb client) and AdbCallParser.
    Touches are played as ``input tap`` / ``input swipe`` when the finger lifts."""

    def __init__(self, port: int) -> None:
        controller = adb_controller.AdbController(
            config_classes.AdbControllerConfig(adb_path=adb_binary(), adb_server_port=port, device_name="emulator-5554")
        )
        self.parser = adb_call_parser.AdbCallParser(controller)
        self.controller = controller
        self.path: list[tuple[int, int]] = []

    def execute_adb_call(self, request: Any) -> Any:
        return self.parser.parse(request)

    def _pixels(self) -> np.ndarray:
        png = self.controller.execute_command(["exec-out", "screencap", "-p"])
        with Image.open(io.BytesIO(png)) as im:
            return np.asarray(im.convert("RGB"))

    def reset(self) -> Any:
        self.path = []
        return SimpleNamespace(observation={"pixels": self._pixels()})

    def step(self, action: dict[str, np.ndarray]) -> Any:
        x, y = (int(v * s) for v, s in zip(action["touch_position"], (1080, 2400), strict=True))
        self.path.append((x, y))
        if int(action["action_type"]) == ActionType.LIFT:
            (x0, y0), (x1, y1) = self.path[0], self.path[-1]
            if len(self.path) >= 4 and (x0, y0) == (x1, y1):
                self.controller.execute_command(["shell", "input", "swipe", *map(str, (x0, y0, x0, y0)), "1000"])
            elif (x0, y0) == (x1, y1):
                self.controller.execute_command(["shell", "input", "tap", str(x0), str(y0)])
            else:
                self.controller.execute_command(["shell", "input", "swipe", *map(str, (x0, y0, x1, y1)), "300"])
            self.path = []
        return SimpleNamespace(observation={"pixels": np.zeros((8, 8, 3), np.uint8)})


@pytest.fixture
def server() -> Iterator[AdbServer]:
    srv = serve_adb(port=0, timeout=10)
    yield srv
    srv.close()


def test_android_envs_own_adb_path_drives_the_served_phone(server: AdbServer) -> None:
    task = "ContactsAddContact"
    sim = GuiAndroidEnv(task=task)
    sim.reset(seed=5)
    server.backend.start(task, np.random.default_rng(5))  # the same instance on the served phone
    backend = AndroidEnvBackend(AdbOnlyEnv(server.port))
    env = GuiAndroidEnv(task=task, backend=backend)
    obs, _ = env.reset(seed=5)
    assert obs["ui"] == sim.unwrapped.observe()["ui"] and backend.dump_error is None
    while True:
        action = sim.unwrapped.oracle_action()
        sobs, _, term, trunc, _ = sim.step(action)
        obs, _, _, _, info = env.step(action)
        assert info["format_valid"] and obs["ui"] == sobs["ui"], action
        if term or trunc:
            break
    assert server.backend.check(None, "complete")  # the contact was saved on the served phone
