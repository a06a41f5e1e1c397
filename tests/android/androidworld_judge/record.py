"""AndroidWorld's own task code judging the served phone, recorded as fixtures.

Run with a Python where AndroidWorld imports (android_env and AndroidWorld's requirements), with
AndroidWorld's source on the path::

    /tmp/awvenv/bin/python tests/android/androidworld_judge/record.py --aw /tmp/aw \\
        [--tasks SystemWifiTurnOn SimpleCalendarAddOneEvent ...] [--seeds 0] [--keep-failing]

(AndroidWorld writes Retro Music's songs as MP3s with ``ffmpeg``: put one on ``PATH`` for those tasks,
e.g. the binary of the ``imageio-ffmpeg`` wheel.)

For each task id it starts ``gui-gym serve-adb --console --expert`` (the project's Python, a
subprocess on free loopback ports) and drives it as AndroidWorld drives an emulator: AndroidWorld's
``AsyncAndroidEnv`` over its ``AndroidWorldController`` (UI elements from ``uiautomator dump``,
parsed by its ``representation_utils``), over android_env's ``AdbCallParser`` and ``AdbController``
running the real ``adb`` client. Nothing of AndroidWorld is changed; two things of the host are:
``time.sleep`` returns at once (the simulated phone's clock moves with its actions, not with the
host's; AndroidWorld waits up to 7 s for real apps; the oracle's Wait is sent as ``adb shell sleep
3``, which moves the served phone's clock as the sim's Wait does), and the controller's recovery from a failed
command (``adb kill-server`` and ``start-server``, which would stop the served phone and start a
real adb server in its place) is left out: the failed command is retried once, as after a restart.

Then per seed, two episodes on the same phone, as AndroidWorld's suite runs them:

1. ``random.seed(seed)``, ``generate_random_params()``, ``params["seed"] = seed``; the task's
   ``initialize_task``; the simulator's oracle for that instance plays (its next action asked over
   serve-adb's expert side channel, sent back through AndroidWorld's own actuation as adb input
   commands: taps, ``input text`` word by word, key events, ``am start``); ``is_successful`` (1.0
   expected); ``tear_down``.
2. The same instance again, idle: ``initialize_task``, ``is_successful`` (0.0 expected, but 1.0
   for the tasks whose set-up already makes the goal hold, :data:`DONE_AT_START`), ``tear_down``.

Beside each of AndroidWorld's verdicts the simulator's own (its task's ``score`` on the phone as it
is then, over the expert side channel) is recorded, so a disagreement shows.

AndroidWorld's state carries UI elements from ``uiautomator dump`` and, where a task reads it
(ContactsNewContactDraft), the accessibility forest that AndroidWorld's default forwarder app would
send, fetched from serve-adb's ``host:gui-gym-a11y:forest``.

Every adb call (its arguments, its output bytes, its exit status; for ``push`` and ``pull`` the
file's bytes, a pushed video's frame data zeroed: :func:`slim`), every forest fetched, and the verdicts go to
``tests/android/fixtures/androidworld/judge/<TaskId>.json.gz`` (written only where AndroidWorld
judged as expected, unless ``--keep-failing``); ``tests/android/test_androidworld_judge.py``
replays them against a fresh served phone. A summary table (task, verdicts, steps, the reason of
a failure) is printed at the end.
"""

from __future__ import annotations

import argparse
import base64
import dataclasses
import datetime
import gzip
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import types
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO / "tests" / "android" / "fixtures" / "androidworld" / "judge"
FORMAT = 1
#: The served phone's accessibility forest (gui_gym.android.sim.adb.server.A11Y_FOREST).
A11Y_FOREST = "host:gui-gym-a11y:forest"
#: Where a pushed or pulled host file's path stands in a recorded command and its output.
LOCAL = "<local>"
_RATE = re.compile(rb"\d+(?:\.\d+)? [KMG]?B/s \((\d+) bytes in \d+(?:\.\d+)?s\)")


def normalize(out: bytes, local: str | None) -> bytes:
    """An adb client's output without what changes from run to run: the host file's path, the
    transfer rate and time of ``push`` / ``pull`` (``23.0 MB/s (1000 bytes in 0.000s)``)."""
    if local:
        out = out.replace(local.encode(), LOCAL.encode())
    return _RATE.sub(rb"<rate> (\1 bytes in <time>)", out)


def pack(data: bytes) -> str | dict[str, str]:
    """Bytes as JSON: text where it is UTF-8, else ``{"b64": ...}``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(data).decode("ascii")}


def slim(remote: str, data: bytes) -> bytes:
    """A pushed file as the fixture keeps it: a video's frame data (the payload of its MP4 ``mdat``
    boxes) zeroed, so the fixture compresses; the phone reads only the container (its length)
    and the adb exchange (the byte count) is the same. Anything else as it is."""
    if not remote.lower().endswith(".mp4") or len(data) < 65536:
        return data
    out, pos = bytearray(data), 0
    while pos + 8 <= len(out):
        size = int.from_bytes(out[pos : pos + 4], "big")
        head = 8
        if size == 1:
            size, head = int.from_bytes(out[pos + 8 : pos + 16], "big"), 16
        elif size == 0:
            size = len(out) - pos
        if size < head:
            break
        if out[pos + 4 : pos + 8] == b"mdat":
            out[pos + head : pos + size] = bytes(min(size, len(out) - pos) - head)
        pos += size
    return bytes(out)


def unpack(value: str | dict[str, str], blobs: dict[str, Any] | None = None) -> bytes:
    """Bytes from :func:`pack`'s JSON (``{"blob": SHA}``: from the fixture's ``blobs``)."""
    if isinstance(value, dict):
        if "blob" in value:
            return unpack((blobs or {})[value["blob"]])
        return base64.b64decode(value["b64"])
    return value.encode("utf-8")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def jsonable(value: Any) -> Any:
    """AndroidWorld's params as the simulator keeps them: a dataclass row as a dict of its fields,
    a datetime as ISO text (``None`` for what has no JSON form)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, datetime.datetime | datetime.date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return None


# ----------------------------------------------------------------------------- the served phone


class ServedPhone:
    """``gui-gym serve-adb --console --expert`` in a subprocess of the project's Python."""

    def __init__(self, python: str, log: Path) -> None:
        self.port = free_port()
        self.console = free_port()
        self.serial = f"emulator-{self.console}"
        self.log = log
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        cmd = [python, "-m", "agents.cli", "serve-adb", "--port", str(self.port), "--serial", self.serial]
        with log.open("wb") as sink:  # a file, not a pipe: nobody has to keep reading the server's logs
            self.proc = subprocess.Popen([*cmd, "--console", "--expert"], cwd=REPO, env=env, stdout=sink, stderr=sink)
        deadline = time.monotonic() + 120
        while b"adb server (version" not in log.read_bytes():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError("serve-adb did not start:\n" + log.read_text(errors="replace")[-3000:])
            _pause(0.05)

    def host(self, request: str) -> Any:
        """One host request; its answer as JSON (``FAIL`` raises with the reason)."""
        data = request.encode()
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as s:
            s.sendall(f"{len(data):04x}".encode() + data)
            status = _read(s, 4)
            size = int(_read(s, 4), 16)
            payload = _read(s, size).decode()
        if status != b"OKAY":
            raise RuntimeError(f"serve-adb refused {request[:60]!r}: {payload}")
        return json.loads(payload)

    def raw(self, request: str) -> bytes:
        """A host request answered ``OKAY`` and data until the connection closes (the forest)."""
        data = request.encode()
        with socket.create_connection(("127.0.0.1", self.port), timeout=60) as s:
            s.sendall(f"{len(data):04x}".encode() + data)
            status = _read(s, 4)
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        if status != b"OKAY":
            raise RuntimeError(f"serve-adb refused {request[:60]!r}: {b''.join(chunks)[4:].decode(errors='replace')}")
        return b"".join(chunks)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


_pause = time.sleep  # the host's own sleep, kept before main() makes AndroidWorld's instant


def _read(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise RuntimeError("serve-adb closed the connection (its log says why)")
        buf += chunk
    return buf


# ----------------------------------------------------------------------------- AndroidWorld's side


class Tape:
    """Every adb client run of android_env's AdbController: ``subprocess.check_output`` as it
    calls it, recorded."""

    def __init__(self, prefix: list[str]) -> None:
        self.prefix = prefix
        self.calls: list[dict[str, Any]] = []

    def check_output(self, command: list[str], stderr: Any = None, timeout: Any = None, env: Any = None) -> bytes:
        args = list(command[len(self.prefix) :]) if command[: len(self.prefix)] == self.prefix else list(command)
        local = args[1] if args[:1] == ["push"] and len(args) == 3 else args[2] if args[:1] == ["pull"] else None
        entry: dict[str, Any] = {"a": [LOCAL if a == local else a for a in args]}
        if args[:1] == ["push"] and local:
            entry["f"] = pack(slim(args[2], Path(local).read_bytes()))
        proc = subprocess.run(command, stdout=subprocess.PIPE, stderr=stderr, timeout=timeout, env=env)
        entry["o"] = pack(normalize(proc.stdout, local))
        entry["r"] = proc.returncode
        if args[:1] == ["pull"] and local and Path(local).exists():
            entry["f"] = pack(Path(local).read_bytes())
        self.calls.append(entry)
        if proc.returncode:
            raise subprocess.CalledProcessError(proc.returncode, command, output=proc.stdout)
        return proc.stdout


def build_env(phone: ServedPhone, adb_path: str) -> tuple[Any, Tape]:
    """AndroidWorld's ``AsyncAndroidEnv`` on the served phone, and the tape of its adb calls."""
    import dm_env
    import numpy as np
    from android_env.components import adb_call_parser, adb_controller, config_classes
    from android_world.env import android_world_controller, interface

    config = config_classes.AdbControllerConfig(
        adb_path=adb_path, adb_server_port=phone.port, device_name=phone.serial, default_timeout=60.0
    )

    class KeepServer(adb_controller.AdbController):
        """android_env's AdbController, but for its recovery by restarting the adb server."""

        def _restart_server(self, timeout: float | None = None) -> None:
            """Left out: it would stop the served phone (see the module docstring)."""

    controller = KeepServer(config)
    tape = Tape(controller.command_prefix())
    adb_controller.subprocess = types.SimpleNamespace(
        check_output=tape.check_output,
        CalledProcessError=subprocess.CalledProcessError,
        TimeoutExpired=subprocess.TimeoutExpired,
        STDOUT=subprocess.STDOUT,
    )
    parser = adb_call_parser.AdbCallParser(controller)

    class Device:
        """What AndroidWorldController wraps: android_env's AndroidEnv, as far as AndroidWorld's
        tasks use it (adb calls; a step is a look at the screen: no pixels are streamed)."""

        def execute_adb_call(self, request: Any) -> Any:
            return parser.parse(request)

        def _timestep(self) -> Any:
            return dm_env.TimeStep(dm_env.StepType.MID, 0.0, 1.0, {"pixels": np.zeros((1, 1, 3), np.uint8)})

        def reset(self) -> Any:
            return self._timestep()

        def step(self, action: Any) -> Any:
            return self._timestep()

        def close(self) -> None:
            pass

    def forest() -> Any:
        """The accessibility forest, as android_env's forwarder app would send it (fetched when
        a task reads it; the fetch is on the tape like the adb calls)."""
        from android_env.proto.a11y import android_accessibility_forest_pb2
        from google.protobuf import json_format

        data = phone.raw(A11Y_FOREST)
        tape.calls.append({"h": A11Y_FOREST, "o": pack(data)})
        return json_format.ParseDict(json.loads(data), android_accessibility_forest_pb2.AndroidAccessibilityForest())

    class Controller(android_world_controller.AndroidWorldController):
        """AndroidWorld's controller reading UI elements from ``uiautomator dump``; its ``forest``
        is the served accessibility forest (AndroidWorld's default forwarder app sends one)."""

        def _process_timestep(self, timestep: Any) -> Any:
            timestep = super()._process_timestep(timestep)
            timestep.observation[android_world_controller.OBSERVATION_KEY_FOREST] = LazyForest(forest)
            return timestep

    wrapped = Controller(Device(), a11y_method=android_world_controller.A11yMethod.UIAUTOMATOR)
    return interface.AsyncAndroidEnv(wrapped), tape


class LazyForest:
    """A forest fetched the first time something of it is read (few tasks read it)."""

    def __init__(self, fetch: Any) -> None:
        self._fetch, self._forest = fetch, None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if self._forest is None:
            self._forest = self._fetch()
        return getattr(self._forest, name)


def act(env: Any, g: dict[str, Any]) -> None:
    """Send one of the oracle's gestures as AndroidWorld sends an agent's action."""
    from android_world.env import adb_utils, json_action

    kind = g["kind"]
    point = g.get("point")
    xy = {"x": point[0], "y": point[1]} if point else {}
    simple = {
        "tap": "click", "long_press": "long_press", "double_tap": "double_tap", "back": "navigate_back",
        "home": "navigate_home", "enter": "keyboard_enter",
    }  # fmt: skip
    if kind in simple:
        env.execute_action(json_action.JSONAction(action_type=simple[kind], **xy))
    elif kind == "wait":  # time passing on the phone: AndroidWorld's wait only sleeps on the host
        adb_utils.issue_generic_request(["shell", "sleep", "3"], env.controller)
    elif kind == "launch":
        env.execute_action(json_action.JSONAction(action_type="open_app", app_name=g["app"]))
    elif kind == "answer":
        env.execute_action(json_action.JSONAction(action_type="answer", text=g["text"]))
    elif kind == "type" and g["enter"] and g["text"]:
        clear = {"clear_text": True} if g["clear"] else {}
        env.execute_action(json_action.JSONAction(action_type="input_text", text=g["text"], **xy, **clear))
    elif kind == "type":  # no Enter after: AndroidWorld's input_text without its last key
        if point:
            adb_utils.tap_screen(point[0], point[1], env.controller)
        if g["clear"]:
            cmd = ["shell", "input", "keycombination", "113", "29", "&&", "input", "keyevent", "67"]
            adb_utils.issue_generic_request(cmd, env.controller)
        if g["text"]:
            adb_utils.type_text(g["text"], env.controller)
        if g["enter"]:
            adb_utils.press_enter_button(env.controller)
    elif kind == "swipe":
        (sx, sy), (ex, ey) = g["start"], g["end"]
        adb_utils.issue_generic_request(adb_utils.generate_swipe_command(sx, sy, ex, ey), env.controller)
    else:
        raise ValueError(f"no way to send a {kind!r} gesture")


def episode(
    env: Any, phone: ServedPhone, task_cls: Any, task_id: str, seed: int, play: bool, max_steps: int
) -> dict[str, Any]:
    """One AndroidWorld episode of instance ``seed`` (see the module docstring)."""
    random.seed(seed)
    params = task_cls.generate_random_params()
    params["seed"] = seed
    task = task_cls(params)
    out: dict[str, Any] = {"seed": seed, "mode": "oracle" if play else "idle"}
    t0 = time.perf_counter()
    task.initialize_task(env)
    out["_setup_s"] = time.perf_counter() - t0  # the reset over adb (timings stay out of the fixture)
    out["goal"] = task.goal
    out["params"] = jsonable(task.params)
    chosen = phone.host("host:gui-gym-expert:task:" + json.dumps({"task": task_id, "seed": seed}))
    if chosen.get("suite") == "androidworld":  # the instance as AndroidWorld made it (dates reworded…)
        known = {k: v for k, v in out["params"].items() if v is not None}
        chosen = phone.host("host:gui-gym-expert:task:" + json.dumps({"task": task_id, "seed": seed, "params": known}))
    out["sim_instruction"], out["sim_params"] = chosen["instruction"], chosen["params"]
    steps, actions = 0, []
    status = None
    if play:
        while steps < max_steps:
            g = phone.host("host:gui-gym-expert:next")
            actions.append(g["action"])
            if g["kind"] == "finish":
                if g.get("text"):
                    env.interaction_cache = g["text"]
                status = g["status"]
                break
            act(env, g)
            steps += 1
        out["actions"] = actions
    out["verdict"] = float(task.is_successful(env))
    answer = env.interaction_cache or None
    out["sim_verdict"] = phone.host("host:gui-gym-expert:check:" + json.dumps({"answer": answer, "status": status}))[
        "score"
    ]
    task.tear_down(env)
    return out


def record_task(
    task_id: str, task_cls: Any, seeds: list[int], python: str, adb_path: str, max_steps: int, logs: Path
) -> dict:
    logs.mkdir(parents=True, exist_ok=True)
    phone = ServedPhone(python, logs / f"{task_id}.serve-adb.log")
    try:
        env, tape = build_env(phone, adb_path)
        episodes = []
        for seed in seeds:
            for play in (True, False):
                start = len(tape.calls)
                try:
                    ep = episode(env, phone, task_cls, task_id, seed, play, max_steps)
                except Exception as e:  # reported in the summary, recorded as a failure
                    ep = {"seed": seed, "mode": "oracle" if play else "idle", "verdict": None}
                    ep["error"] = f"{type(e).__name__}: {e}"
                    ep["traceback"] = traceback.format_exc(limit=6)
                ep["exchanges"] = tape.calls[start:]
                episodes.append(ep)
        return {"format": FORMAT, "task": task_id, "episodes": episodes}
    finally:
        phone.close()


#: AndroidWorld's tasks whose set-up makes their goal hold already ("Precondition: Wi-Fi is on",
#: ``task_evals/single/system.py``): AndroidWorld judges an idle episode of these a success.
DONE_AT_START = frozenset(
    f"System{what}Verify"
    for what in ("WifiTurnOn", "WifiTurnOff", "BluetoothTurnOn", "BluetoothTurnOff", "BrightnessMax", "BrightnessMin")
)


#: AndroidWorld's tasks whose own check cannot judge an idle episode: RetroPlayingQueue's set-up
#: deletes Retro Music's ``music_playback_state.db`` and its ``is_successful`` reads the queue from it,
#: which only the app recreates when it plays ("no such table: playing_queue", as on an emulator).
IDLE_UNJUDGEABLE = frozenset({"RetroPlayingQueue"})


def expected(task_id: str, mode: str) -> float | None:
    """The verdict AndroidWorld must give: 1.0 for the oracle, 0.0 idle (1.0 where the goal holds
    from the start, :data:`DONE_AT_START`; none, its check failing, for :data:`IDLE_UNJUDGEABLE`)."""
    if mode == "idle" and task_id in IDLE_UNJUDGEABLE:
        return None
    return 1.0 if mode == "oracle" or task_id in DONE_AT_START else 0.0


def passed(fixture: dict) -> bool:
    return all(ep.get("verdict") == expected(fixture["task"], ep["mode"]) for ep in fixture["episodes"])


def shared_files(fixture: dict) -> dict:
    """The fixture with each file's bytes (``"f"``, 4 KB or more) written once, in ``"blobs"`` by
    SHA-256, and ``{"blob": SHA}`` where it is pushed or pulled (a task pushes the same picture
    ten times): :func:`unpack` with the blobs reads them back."""
    import hashlib

    blobs: dict[str, Any] = {}
    for ep in fixture["episodes"]:
        for call in ep.get("exchanges", []):
            f = call.get("f")
            if f is None or (isinstance(f, dict) and "blob" in f):
                continue
            data = unpack(f)
            if len(data) >= 4096:
                key = hashlib.sha256(data).hexdigest()
                blobs.setdefault(key, f)
                call["f"] = {"blob": key}
    return {**fixture, "blobs": blobs} if blobs else fixture


def write(fixture: dict, folder: Path) -> Path:
    episodes = [{k: v for k, v in ep.items() if not k.startswith("_")} for ep in fixture["episodes"]]
    fixture = shared_files({**fixture, "episodes": episodes})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{fixture['task']}.json.gz"
    raw = json.dumps(fixture, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode()
    path.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    return path


def project_adb(python: str) -> str:
    """The adb client the project's tests use (tests/android/_adb.py)."""
    code = "import sys; sys.path.insert(0, 'tests/android'); from _adb import adb_binary; print(adb_binary())"
    return subprocess.run([python, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--aw", default=os.environ.get("GUI_GYM_ANDROIDWORLD", "/tmp/aw"), help="AndroidWorld's source")
    ap.add_argument("--tasks", nargs="*", help="AndroidWorld task ids (default: those the phone has)")
    ap.add_argument("--seeds", nargs="*", type=int, default=[0])
    ap.add_argument("--python", default=os.environ.get("GUI_GYM_PYTHON", "python"), help="the project's Python")
    ap.add_argument("--adb", help="the adb client (default: the one the project's tests use)")
    ap.add_argument("--out", type=Path, default=FIXTURES)
    ap.add_argument("--max-steps", type=int, default=60)
    ap.add_argument("--keep-failing", action="store_true", help="write fixtures of failing tasks too")
    ap.add_argument(
        "--report", type=Path, help="also write the summary as JSON here (per episode: verdicts, steps, set-up seconds)"
    )
    ap.add_argument(
        "--logs",
        type=Path,
        default=Path(tempfile.gettempdir()) / "gui-gym-androidworld-judge",
        help="where each task's serve-adb log goes",
    )
    ap.add_argument("--verbose", action="store_true", help="show AndroidWorld's and android_env's logs")
    ap.add_argument(
        "--family", choices=("android_world", "miniwob"), default="android_world",
        help="AndroidWorld's task family: its own tasks, or MiniWoB (ids as the phone names them: MiniWobClickButton)",
    )  # fmt: skip
    args = ap.parse_args(argv)

    sys.path.insert(0, str(Path(args.aw).resolve()))
    time.sleep = lambda seconds: None  # see the module docstring
    from absl import logging as absl_logging
    from android_world import registry

    absl_logging.set_verbosity(absl_logging.FATAL if not args.verbose else absl_logging.INFO)
    if args.family == "miniwob":  # AndroidWorld keys its MiniWoB tasks by page; the phone by class name
        pages = registry.TaskRegistry().get_registry(registry.TaskRegistry.MINIWOB_FAMILY)
        aw = {"MiniWob" + "".join(part.capitalize() for part in k.split("-")): v for k, v in pages.items()}
    else:
        aw = registry.TaskRegistry().get_registry(registry.TaskRegistry.ANDROID_WORLD_FAMILY)
    ids = args.tasks or sorted(set(phone_task_ids(args.python)) & set(aw))
    unknown = [t for t in ids if t not in aw]
    if unknown:
        ap.error(f"not AndroidWorld task ids: {', '.join(unknown)}")
    adb_path = args.adb or project_adb(args.python)
    rows = []
    for task_id in ids:
        t0 = time.perf_counter()
        fixture = record_task(task_id, aw[task_id], args.seeds, args.python, adb_path, args.max_steps, args.logs)
        ok = passed(fixture)
        if ok or args.keep_failing:
            write(fixture, args.out)
        for ep in fixture["episodes"]:
            rows.append(
                {
                    "task": task_id, "seed": ep["seed"], "mode": ep["mode"], "verdict": ep.get("verdict"),
                    "sim_verdict": ep.get("sim_verdict"),
                    "steps": len(ep.get("actions", [])), "exchanges": len(ep["exchanges"]),
                    "error": ep.get("error"), "ok": ok, "seconds": round(time.perf_counter() - t0, 1),
                    "setup_s": round(ep.get("_setup_s", float("nan")), 3),
                }
            )  # fmt: skip
        status = "ok" if ok else "FAIL"
        verdicts = ", ".join(
            f"{ep['mode']} {ep.get('verdict')} (simulator {ep.get('sim_verdict')})" for ep in fixture["episodes"]
        )
        print(f"{status:4} {task_id:44} {verdicts}", flush=True)
        for ep in fixture["episodes"]:
            if ep.get("error"):
                print(f"     {ep['mode']} seed {ep['seed']}: {ep['error'][:300]}", flush=True)
    if args.report:
        args.report.write_text(json.dumps(rows, indent=1))
    return 0 if all(r["ok"] for r in rows) else 1


def phone_task_ids(python: str) -> list[str]:
    """The ids of the phone's tasks (both suites): the AndroidWorld ids among them are recorded."""
    code = "from gui_gym.android.sim.tasks import ALL_TASKS; print(' '.join(ALL_TASKS))"
    out = subprocess.run([python, "-c", code], cwd=REPO, capture_output=True, text=True, check=True).stdout
    return out.split()


if __name__ == "__main__":
    sys.exit(main())
