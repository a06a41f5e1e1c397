"""AndroidWorld's own task code judges the served phone: its recorded runs, replayed.

Each fixture in ``fixtures/androidworld/judge/`` is AndroidWorld's ``initialize_task``,
``is_successful`` and ``tear_down`` (run unmodified through android_env's ``AdbController`` and
the real ``adb`` client) setting up the served phone, the simulator's oracle playing the task over
adb, and an idle episode: every adb call with its output bytes and exit status, and the verdicts
(the oracle's 1.0, the idle episode's 0.0, or 1.0 where AndroidWorld's set-up makes the goal hold;
the simulator's own verdict at recording time is kept beside each, for the record). The replay
sends the same calls through the real adb client to a fresh served phone and asserts the same
answers byte for byte (the files pushed and pulled too), so AndroidWorld's code, which reads only
those answers, would judge as it did, without AndroidWorld installed. A mismatch means the phone
answers differently now: when that is intended (an app's screen changed), record the fixtures
again (``androidworld_judge/record.py``).

The live test runs the recorder itself where AndroidWorld imports: set ``GUI_GYM_ANDROIDWORLD``
to its source folder and ``GUI_GYM_ANDROIDWORLD_PYTHON`` to a Python with android_env and
AndroidWorld's requirements (default: this one); ``GUI_GYM_ANDROIDWORLD_TASKS`` picks the task ids
(default: those with fixtures).
"""

from __future__ import annotations

import gzip
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _adb import adb_binary
from androidworld_judge.record import FIXTURES, FORMAT, LOCAL, expected, normalize, unpack

from gui_gym.android.sim.adb.console import EmulatorConsole
from gui_gym.android.sim.adb.server import AdbServer, serve_adb

CASES = sorted(FIXTURES.glob("*.json.gz"))
RECORD = Path(__file__).parent / "androidworld_judge" / "record.py"


def _load(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def phone() -> Iterator[AdbServer]:
    """A fresh served phone whose serial names its emulator console's port (``adb emu``)."""
    console_port = _free_port()
    server = serve_adb(port=0, serial=f"emulator-{console_port}", timeout=10)
    console = EmulatorConsole(server, port=console_port).start()
    yield server
    console.close()
    server.close()


def test_there_are_fixtures() -> None:
    assert CASES, f"no recorded runs in {FIXTURES}"


@pytest.mark.parametrize("path", CASES, ids=[p.name.split(".")[0] for p in CASES])
def test_androidworld_judges_the_replayed_run(path: Path, phone: AdbServer, tmp_path: Path) -> None:
    fixture = _load(path)
    assert fixture["format"] == FORMAT and fixture["task"] == path.name.split(".")[0]
    modes = [ep["mode"] for ep in fixture["episodes"]]
    assert "oracle" in modes and "idle" in modes
    adb = adb_binary()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ADB_")} | {"ADB_MDNS": "0"}
    local = tmp_path / "local"
    for ep in fixture["episodes"]:
        # the verdicts AndroidWorld gave on these very answers
        assert ep["verdict"] == expected(fixture["task"], ep["mode"]), (ep["mode"], ep.get("error"))
        for i, call in enumerate(ep["exchanges"]):
            if "h" in call:  # a host request of the served phone's own (the accessibility forest)
                assert _raw(phone, call["h"]) == unpack(call["o"]), f"{fixture['task']} {ep['mode']}, call {i}"
                continue
            if call["a"][:1] == ["push"]:
                local.write_bytes(unpack(call["f"], fixture.get("blobs")))
            elif local.exists():
                local.unlink()
            args = [str(local) if a == LOCAL else a for a in call["a"]]
            proc = subprocess.run(
                [adb, "-P", str(phone.port), "-s", phone.serial, *args],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, env=env,
            )  # fmt: skip
            where = f"{fixture['task']} {ep['mode']} seed {ep['seed']}, call {i}: adb {' '.join(call['a'])[:200]}"
            assert normalize(proc.stdout, str(local)) == unpack(call["o"]), where
            assert proc.returncode == call["r"], where
            if call["a"][:1] == ["pull"] and "f" in call:
                assert local.read_bytes() == unpack(call["f"], fixture.get("blobs")), where + " (the pulled file)"


def _raw(server: AdbServer, request: str) -> bytes:
    """A host request answered ``OKAY`` and data until the connection closes."""
    data = request.encode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=30) as s:
        s.sendall(f"{len(data):04x}".encode() + data)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    assert answer[:4] == b"OKAY", answer[:200]
    return answer[4:]


def _androidworld_python() -> tuple[str, str] | None:
    """AndroidWorld's source and a Python that imports it, where the environment names them."""
    source = os.environ.get("GUI_GYM_ANDROIDWORLD")
    if not source:
        return None
    python = os.environ.get("GUI_GYM_ANDROIDWORLD_PYTHON", sys.executable)
    probe = f"import sys; sys.path.insert(0, {source!r}); import android_env, android_world.registry"
    if subprocess.run([python, "-c", probe], capture_output=True).returncode != 0:
        return None
    return source, python


@pytest.mark.skipif(_androidworld_python() is None, reason="AndroidWorld does not import (GUI_GYM_ANDROIDWORLD)")
def test_androidworld_judges_the_served_phone_live(tmp_path: Path) -> None:
    found = _androidworld_python()
    assert found is not None
    source, python = found
    tasks = os.environ.get("GUI_GYM_ANDROIDWORLD_TASKS", "").split() or [p.name.split(".")[0] for p in CASES]
    report = tmp_path / "report.json"
    cmd = [python, str(RECORD), "--aw", source, "--python", sys.executable, "--out", str(tmp_path / "judge")]
    proc = subprocess.run(
        [*cmd, "--report", str(report), "--tasks", *tasks], capture_output=True, text=True, timeout=3600
    )
    rows = json.loads(report.read_text()) if report.exists() else []
    failing = [r for r in rows if not r["ok"]]
    assert proc.returncode == 0 and rows and not failing, proc.stdout[-4000:] + proc.stderr[-4000:]
