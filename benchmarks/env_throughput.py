"""Throughput of ``GuiAndroid-v0`` against DeepMind android_env's FakeSimulator, in one run.

Usage::

    python benchmarks/env_throughput.py            # ~1 minute, stable figures
    python benchmarks/env_throughput.py --quick    # a few seconds, smoke test
    python benchmarks/env_throughput.py --steps 20000 --seconds 8 --rounds 4

What is measured (every figure comes from this one process run, so ratios are like for like):

* gui-gym single env (``gym.make("GuiAndroid-v0", obs_mode=...)``, i.e. with Gymnasium's
  default wrappers) for obs_mode ``text``, ``both`` and ``pixels`` (540x1200, the default,
  and 1080x2400, the full device size). The env is driven by a fixed, seeded mix of actions
  that really exercise the device: the task oracle's next action (55%), a tap on a random
  clickable element of ``info["ui_elements"]`` (25%, as AndroidLab text or AndroidWorld
  index), a swipe / AndroidWorld scroll (10%) and Back (10%), over gui-gym's own suite,
  resetting whenever an episode ends. AndroidWorld's suite runs the same mix in text and pixel
  mode (540x1200) in the same rounds, with every task's reset timed: its targets are the own
  suite's text speed and pixel ratio to android_env within 10%, and <= 1 ms per reset for the
  slowest task. The oracle action is computed *inside* the env's step
  (by a small wrapper, so that vector workers can do it too) and is part of the measured step
  time: a conservative choice. steps/s is ``steps / (time in env.step + time in env.reset)``;
  the driver's own bookkeeping is left out. Reset time is the mean over the run's resets,
  after one warm-up reset per task.
* ``SyncVectorEnv`` and ``AsyncVectorEnv`` of 2 text envs (autoreset in the same step),
  counted in env-steps (num_envs x vector steps). Async runs with Gymnasium's default shared
  memory, with ``shared_memory=False``, and with ``info_elements=False`` (a policy that reads
  the observation alone: no element list goes through the pipes, and the mix's taps are chosen
  inside the env processes).
* The anchor: android_env's ``AndroidEnv`` built by ``android_env.loader.load`` with
  ``FakeSimulatorConfig(screen_dimensions=(H, W))`` and a minimal task textproto, stepped with
  touch / lift actions at random positions; and the bare ``FakeSimulator.get_screenshot()``
  next to gui-gym's bare ``Renderer.render`` (uncached) at the same sizes.

Every time is taken twice: wall clock and CPU time (the process's, plus the workers' for
AsyncVectorEnv, read from /proc). "per core" is env-steps per CPU-second, which a busy shared
machine does not distort the way it distorts wall-clock rates; the targets are judged on it:
>= 10,000 text steps/s per core; pixel mode >= 3x android_env's fake simulator at the same
screen size; mean reset <= 0.5 ms (text) and <= 2 ms (pixels). One more is judged by wall
clock: an AsyncVectorEnv of 2 text envs >= 1.5x one env on two cores. Configurations run in
interleaved rounds (ours, then the anchor at the same size, ...) so that a slow phase of the
machine hits all of them alike. ``env_instructions.py`` counts instructions per step, which
no load moves.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import os
import platform
import sys
import tempfile
import time
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout without installing

import gui_gym  # registers GuiAndroid-v0
from gui_gym.android.forest import element_box
from gui_gym.android.sim.tasks import TASKS

ORACLE = "__oracle__"
TAP = "__tap__"  # a tap on a random clickable element, chosen inside the env process
BACK = 'do(action="Back")'
DEFAULT_SIZE = (540, 1200)  # (w, h): GuiAndroidEnv's default screenshot size
FULL_SIZE = (1080, 2400)  # (w, h): the simulated device
TEXT_TARGET_PER_CORE = 10_000.0
PIXEL_TARGET_RATIO = 3.0  # x android_env's FakeSimulator at the same size, per core
RESET_TARGET_MS = {"text": 0.5, "both": 2.0, "pixels": 2.0}  # mean CPU ms per reset
VECTOR_TARGET_RATIO = 1.5  # AsyncVectorEnv 2x text vs one env, by wall clock, on two cores
NO_INFO_ELEMENTS = {"info_elements": False}  # a policy that reads the observation alone
MIX = (("oracle", 0.55), ("tap", 0.25), ("swipe", 0.10), ("back", 0.10))
INSTALL_HINT = "pip install android_env immutabledict"
wall, cpu = time.perf_counter, time.process_time


# -- driving gui-gym ------------------------------------------------------------------------
class OracleActions(gym.Wrapper):
    """Replaces the :data:`ORACLE` sentinel by the task oracle's action, inside the env process.

    An exception raised by the env's step (a bug: a valid action should never raise) is counted
    in ``errors`` and ends the episode as truncated, so that one bug does not stop the benchmark;
    the report lists every such error.
    """

    def __init__(self, env: gym.Env, seed: int = 0) -> None:
        super().__init__(env)
        self.rng = np.random.default_rng(seed)  # for TAP
        self.oracle_s = 0.0
        self.oracle_calls = 0
        self.errors: Counter[str] = Counter()

    def step(self, action: Any) -> tuple:
        call = "step"
        try:
            if isinstance(action, str) and action == ORACLE:
                call = f"oracle_action ({self.env.unwrapped.task.id})"
                t0 = wall()
                action = self.env.unwrapped.oracle_action()
                self.oracle_s += wall() - t0
                self.oracle_calls += 1
                call = "step"
            elif isinstance(action, str) and action == TAP:
                call = "current_elements"
                action = tap_action(self.env.unwrapped.current_elements(), self.rng)
                call = "step"
            return self.env.step(action)
        except Exception as e:
            frame = traceback.extract_tb(e.__traceback__)[-1]
            where = f"{Path(frame.filename).name}:{frame.lineno} {frame.name}"
            on = "" if call != "step" else f" on {str(action)[:60]!r}"
            self.errors[f"{call}: {type(e).__name__} at {where}{on}"] += 1
            obs, _ = self.env.reset()  # the device may be left half-changed: start afresh
            return obs, 0.0, False, True, {"ui_elements": [], "bench_error": f"{type(e).__name__}: {e}"}


POOL: list[str] = [t for t in TASKS if TASKS[t].suite == "gui-gym"]  # the own suite (see usable_tasks)
AW_POOL: list[str] = [t for t in TASKS if TASKS[t].suite == "androidworld"]  # AndroidWorld's suite
#: AndroidWorld's tasks on the twelve apps of its second part (Audio Recorder, Broccoli, Camera's two
#: capture tasks, Chrome, Files, Joplin, OpenTracks, OsmAnd, Retro Music, Simple Draw Pro, Simple
#: Gallery Pro's receipt copy, VLC), by their ids' prefixes; the others are part 1 (the 8 first apps)
PART_TWO_PREFIXES = (
    "AudioRecorder", "Recipe", "CameraTake", "Browser", "Files", "Notes", "SportsTracker", "Osm", "Retro",
    "SimpleDrawPro", "SaveCopyOfReceipt", "Vlc",
)  # fmt: skip
SUITE_TOLERANCE = 0.10  # AndroidWorld's suite within 10% of the own suite's text and pixel speed
AW_RESET_TARGET_MS = 1.0  # every AndroidWorld task's reset (wall, text)


def make_env(
    obs_mode: str = "text",
    screen_size: tuple[int, int] = DEFAULT_SIZE,
    pool: tuple[str, ...] | None = None,
    **kw: Any,
) -> gym.Env:
    tasks = list(pool) if pool is not None else list(POOL)
    return OracleActions(gym.make("GuiAndroid-v0", obs_mode=obs_mode, screen_size=screen_size, task=tasks, **kw))


def tap_action(ui_elements: Any, rng: np.random.Generator) -> Any:
    """A tap on a random clickable element (AndroidLab text or AndroidWorld index); Back if none."""
    clickable = [i for i, e in enumerate(ui_elements) if e.is_clickable and e.is_enabled]
    if not clickable:
        return BACK
    i = clickable[int(rng.integers(len(clickable)))]
    if rng.random() < 0.5:  # AndroidLab text with the element's bbox
        return 'do(action="Tap", element=[{},{},{},{}])'.format(*element_box(ui_elements[i]))
    return {"action_type": "click", "index": i}  # AndroidWorld dict


def usable_tasks(pool: list[str]) -> tuple[list[str], dict[str, str]]:
    """Tasks of ``pool`` whose reset works (a task being edited in the working tree may not); the
    others, with why."""
    env = gym.make("GuiAndroid-v0")
    good, bad = [], {}
    for tid in pool:
        try:
            env.reset(seed=0, options={"task": tid})
            good.append(tid)
        except Exception as e:
            bad[tid] = f"{type(e).__name__}: {str(e)[:80]}"
    env.close()
    return good, bad


class Driver:
    """The fixed, seeded action mix (see :data:`MIX`), in several of the env's action syntaxes."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.cum = np.cumsum([p for _, p in MIX])
        self.kinds: Counter[str] = Counter()

    def act(self, ui_elements: Any) -> Any:
        """The next action; ``ui_elements`` ``None`` (an env without them in info) leaves the
        tap's choice to the env process (:data:`TAP`)."""
        rng = self.rng
        kind = MIX[int(np.searchsorted(self.cum, rng.random(), side="right"))][0]
        if kind == "tap":
            action = TAP if ui_elements is None else tap_action(ui_elements, rng)
            self.kinds["back" if action == BACK else kind] += 1  # nothing to tap: Back
            return action
        self.kinds[kind] += 1
        if kind == "oracle":
            return ORACLE
        if kind == "swipe":
            d = ("up", "down", "left", "right")[int(rng.integers(4))]
            if rng.random() < 0.5:
                return f'do(action="Swipe", direction="{d}", dist="medium")'
            return {"action_type": "scroll", "direction": d}
        return BACK


# -- results -------------------------------------------------------------------------------
@dataclass
class Result:
    name: str
    steps: int = 0
    step_s: float = 0.0  # wall seconds in step
    reset_s: float = 0.0  # wall seconds in reset
    step_cpu: float = 0.0  # CPU seconds in step (all processes involved)
    reset_cpu: float = 0.0
    resets: int = 0
    cores: int = 1  # cores the configuration can keep busy
    extra: dict[str, Any] = field(default_factory=dict)
    slices: list[float] = field(default_factory=list)  # the wall rate of each interleaved round

    @property
    def rate(self) -> float:
        """Wall-clock steps/s, resets included."""
        busy = self.step_s + self.reset_s
        return self.steps / busy if busy > 0 else float("nan")

    @property
    def per_core(self) -> float:
        """Steps per CPU-second, resets included."""
        busy = self.step_cpu + self.reset_cpu
        return self.steps / busy if busy > 0 else float("nan")

    @property
    def best(self) -> float:
        return max(self.slices) if self.slices else self.rate

    @property
    def reset_ms(self) -> float:
        return 1000 * self.reset_s / self.resets if self.resets else float("nan")

    @property
    def reset_cpu_ms(self) -> float:
        return 1000 * self.reset_cpu / self.resets if self.resets else float("nan")


def merge(a: Result | None, b: Result) -> Result:
    """Sum two rounds of the same configuration."""
    if a is None:
        b.slices = [b.rate]
        return b
    extra: dict[str, Any] = {}
    for k in set(a.extra) | set(b.extra):
        x, y = a.extra.get(k), b.extra.get(k)
        if isinstance(x, dict) or isinstance(y, dict):
            extra[k] = Counter(x or {}) + Counter(y or {})
        else:
            extra[k] = (x or 0) + (y or 0)
    return Result(
        a.name,
        a.steps + b.steps,
        a.step_s + b.step_s,
        a.reset_s + b.reset_s,
        a.step_cpu + b.step_cpu,
        a.reset_cpu + b.reset_cpu,
        a.resets + b.resets,
        a.cores,
        extra,
        [*a.slices, b.rate],
    )


def proc_cpu(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by other processes, from /proc; NaN where unreadable."""
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0.0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            return float("nan")
    return total


# -- gui-gym measurements ------------------------------------------------------------------
def bench_single(
    obs_mode: str, size: tuple[int, int], max_steps: int, seconds: float, seed: int, suite: str = "gui-gym"
) -> Result:
    pool = POOL if suite == "gui-gym" else AW_POOL
    env = make_env(obs_mode, size, tuple(pool))
    for tid in pool:  # warm-up: one reset per task (fills per-task caches, e.g. the step limit)
        env.reset(options={"task": tid})
    _obs, info = env.reset(seed=seed)
    wrapper: OracleActions = env  # type: ignore[assignment]
    wrapper.oracle_s, wrapper.oracle_calls = 0.0, 0
    driver = Driver(seed)
    res = Result(f"{suite} {obs_mode} {size[0]}x{size[1]}")
    ends: Counter[str] = Counter()
    deadline = wall() + seconds
    while res.steps < max_steps and wall() < deadline:
        action = driver.act(info["ui_elements"])
        w0, c0 = wall(), cpu()
        _obs, _reward, terminated, truncated, info = env.step(action)
        res.step_s += wall() - w0
        res.step_cpu += cpu() - c0
        res.steps += 1
        if terminated or truncated:
            ends["success" if info.get("success") else ("fail" if terminated else "truncated")] += 1
            w0, c0 = wall(), cpu()
            _obs, info = env.reset()
            res.reset_s += wall() - w0
            res.reset_cpu += cpu() - c0
            res.resets += 1
    res.extra = {
        "ends": dict(ends),
        "oracle_s": wrapper.oracle_s,
        "oracle_calls": wrapper.oracle_calls,
        "kinds": dict(driver.kinds),
        "errors": Counter(wrapper.errors),
    }
    env.close()
    return res


def reset_target(r: Result) -> float:
    """The mean reset target (CPU ms) of a single-env row, by its observation mode."""
    return RESET_TARGET_MS[r.name.split()[1]]


def vector_label(kind: str, n: int, kw: dict[str, Any], env_kw: dict[str, Any] | None = None) -> str:
    opts = {**kw, **(env_kw or {})}
    return f"{kind.capitalize()}VectorEnv {n}x text" + "".join(f" ({k}={v})" for k, v in opts.items())


def bench_vector(
    kind: str, n: int, max_steps: int, seconds: float, seed: int, env_kw: dict[str, Any] | None = None, **kw: Any
) -> Result:
    """``n`` text envs in a vector env (``kw`` its options, ``env_kw`` the envs'); under
    ``info_elements=False`` the taps are chosen inside the env processes."""
    from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv

    cls = SyncVectorEnv if kind == "sync" else AsyncVectorEnv
    fn = functools.partial(make_env, "text", DEFAULT_SIZE, tuple(POOL), **(env_kw or {}))
    envs = cls([fn] * n, autoreset_mode=AutoresetMode.SAME_STEP, **kw)
    try:
        for tid in POOL:
            envs.reset(options={"task": tid})
        _obs, info = envs.reset(seed=seed)
        drivers = [Driver(seed + i) for i in range(n)]
        pids = [p.pid for p in getattr(envs, "processes", [])]
        cores = 1 if kind == "sync" else max(1, min(n, os.cpu_count() or 1))
        res = Result(vector_label(kind, n, kw, env_kw), cores=cores)
        episodes = 0
        workers0 = proc_cpu(pids)
        deadline = wall() + seconds
        while res.steps < max_steps and wall() < deadline:
            elements = info.get("ui_elements")
            actions = tuple(d.act(None if elements is None else elements[i]) for i, d in enumerate(drivers))
            w0, c0 = wall(), cpu()
            _obs, _reward, terminated, truncated, info = envs.step(actions)
            res.step_s += wall() - w0
            res.step_cpu += cpu() - c0
            res.steps += n
            episodes += int(np.sum(terminated | truncated))
        res.step_cpu += proc_cpu(pids) - workers0  # the workers' CPU (they are idle between steps)
        errors: Counter[str] = Counter()
        for c in envs.get_attr("errors"):
            errors.update(c)
        res.extra = {"episodes": episodes, "errors": errors}
        return res
    finally:
        envs.close()


def bench_resets(reps: int, seed: int, pool: list[str]) -> dict[str, float]:
    """Mean reset ms (wall) per task of ``pool``, text mode, after one warm-up reset per task."""
    env = make_env("text", pool=tuple(pool))
    env.reset(seed=seed)
    out = {}
    for tid in pool:
        env.reset(options={"task": tid})
        t0 = wall()
        for _ in range(reps):
            env.reset(options={"task": tid})
        out[tid] = 1000 * (wall() - t0) / reps
    env.close()
    return out


def collect_trees(n: int, seed: int) -> list[tuple[Any, bool]]:
    """Distinct view trees visited by the action mix, to render outside the env."""
    env = make_env("text")
    _obs, info = env.reset(seed=seed)
    driver = Driver(seed)
    trees, seen = [], set()
    for _ in range(20 * n):
        dev = env.unwrapped.device
        tree = dev.tree()
        if id(tree) not in seen:
            seen.add(id(tree))
            trees.append((tree, bool(dev.state.settings.get("dark_theme"))))
            if len(trees) >= n:
                break
        _obs, _r, term, trunc, info = env.step(driver.act(info["ui_elements"]))
        if term or trunc:
            _obs, info = env.reset()
    env.close()
    return trees


def bench_renderer(size: tuple[int, int], trees: list[tuple[Any, bool]], max_calls: int, seconds: float) -> Result:
    from gui_gym.android.sim.render import Renderer

    r = Renderer(size)
    for tree, dark in trees:  # warm-up: fonts and masks
        r.render(tree, dark=dark)
    res = Result(f"gui-gym Renderer.render {size[0]}x{size[1]} (bare, uncached)")
    deadline = wall() + seconds
    while res.steps < max_calls and wall() < deadline:
        tree, dark = trees[res.steps % len(trees)]
        r._last_key = None  # defeat the unchanged-frame cache: measure a real redraw
        w0, c0 = wall(), cpu()
        r.render(tree, dark=dark)
        res.step_s += wall() - w0
        res.step_cpu += cpu() - c0
        res.steps += 1
    return res


# -- the anchor: android_env ---------------------------------------------------------------
TASK_TEXTPROTO = """\
id: "gui_gym_throughput"
name: "gui-gym throughput anchor"
description: "Minimal task: no setup, no reset steps, no episode time limit."
max_episode_sec: 0
"""


def android_env_available() -> str | None:
    """``None`` when android_env imports, else the reason it does not."""
    try:
        import android_env  # noqa: F401
        from android_env import loader  # noqa: F401
        from android_env.components import config_classes  # noqa: F401
        from android_env.components.simulators.fake import fake_simulator  # noqa: F401
    except Exception as e:  # ImportError, or a broken dependency
        return f"{type(e).__name__}: {e}"
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except Exception:
        pass
    return None


def load_android_env(h: int, w: int, task_path: str) -> Any:
    """AndroidEnv + FakeSimulator through android_env's own loader (as in its loader_test)."""
    from android_env import loader
    from android_env.components import config_classes

    config = config_classes.AndroidEnvConfig(
        task=config_classes.FilesystemTaskConfig(path=task_path),
        simulator=config_classes.FakeSimulatorConfig(screen_dimensions=(h, w)),
    )
    return loader.load(config)


def bench_android_env(size: tuple[int, int], task_path: str, max_steps: int, seconds: float, seed: int) -> Result:
    from android_env.components import action_type

    w, h = size
    env = load_android_env(h, w, task_path)
    try:
        spec = env.action_spec()
        assert set(spec) >= {"action_type", "touch_position"}, spec
        env.reset()  # warm-up
        rng = np.random.default_rng(seed)
        touch, lift = np.int32(action_type.ActionType.TOUCH), np.int32(action_type.ActionType.LIFT)
        res = Result(f"android_env AndroidEnv+FakeSimulator {w}x{h}")

        def reset() -> None:
            w0, c0 = wall(), cpu()
            env.reset()
            res.reset_s += wall() - w0
            res.reset_cpu += cpu() - c0
            res.resets += 1

        reset()
        deadline = wall() + seconds
        ts = None
        while res.steps < max_steps and wall() < deadline:
            action = {
                "action_type": touch if res.steps % 2 == 0 else lift,
                "touch_position": rng.random(2, dtype=np.float32),
            }
            w0, c0 = wall(), cpu()
            ts = env.step(action)
            res.step_s += wall() - w0
            res.step_cpu += cpu() - c0
            res.steps += 1
            if ts.last():
                reset()
        if ts is not None:
            shape = ts.observation["pixels"].shape
            assert shape == (h, w, 3), shape
        return res
    finally:
        env.close()


def bench_fake_screenshot(size: tuple[int, int], max_calls: int, seconds: float) -> Result:
    from android_env.components import config_classes
    from android_env.components.simulators.fake import fake_simulator

    w, h = size
    sim = fake_simulator.FakeSimulator(config_classes.FakeSimulatorConfig(screen_dimensions=(h, w)))
    sim.launch()
    try:
        sim.get_screenshot()
        res = Result(f"android_env FakeSimulator.get_screenshot {w}x{h} (bare)")
        deadline = wall() + seconds
        while res.steps < max_calls and wall() < deadline:
            w0, c0 = wall(), cpu()
            sim.get_screenshot()
            res.step_s += wall() - w0
            res.step_cpu += cpu() - c0
            res.steps += 1
        return res
    finally:
        sim.close()


# -- report --------------------------------------------------------------------------------
def fmt(x: float | None, nd: int = 0) -> str:
    return "n/a" if x is None or x != x else f"{x:,.{nd}f}"


def rx(x: float) -> str:
    return "n/a" if x != x else f"{x:.2f}x"


def ok(flag: bool | None) -> str:
    return "n/a" if flag is None else ("MET" if flag else "MISSED")


def div(a: float, b: float) -> float:
    return a / b if b and b == b and a == a else float("nan")


def load() -> str:
    try:
        return "/".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def versions() -> str:
    import PIL

    parts = [
        f"gui_gym {gui_gym.__version__}",
        f"gymnasium {gym.__version__}",
        f"numpy {np.__version__}",
        f"Pillow {PIL.__version__}",
    ]
    try:
        from importlib.metadata import version

        parts.append(f"android_env {version('android_env')}")
    except Exception:
        parts.append("android_env not installed")
    return ", ".join(parts)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument(
        "--steps",
        type=int,
        default=50_000,
        help="at most this many env-steps per configuration, all rounds together (default 50000)",
    )
    p.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="at most this many seconds per configuration, all rounds together (default 4.5; --quick 0.3)",
    )
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per configuration (default 3; --quick 1)")
    p.add_argument("--quick", action="store_true", help="a short run (a few seconds) for smoke testing")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-async", action="store_true", help="skip AsyncVectorEnv (no subprocesses)")
    p.add_argument(
        "--aw-part",
        choices=("all", "1", "2"),
        default="all",
        help="AndroidWorld's tasks to time beside the own suite: all (default), part 1's 73 or part 2's 43",
    )
    args = p.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.3 if args.quick else 4.5)
    max_steps = min(args.steps, 400) if args.quick else args.steps
    rounds = 1 if args.quick else args.rounds
    if max_steps < 1 or seconds <= 0 or rounds < 1:
        p.error("--steps, --seconds and --rounds must be positive")
    t_all = wall()

    print(
        f"env_throughput  {dt.date.today().isoformat()}  Python {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores (os.cpu_count), CPU only"
    )
    print(f"versions: {versions()}")
    print(
        f"budget: <= {max_steps} env-steps or <= {seconds:g} s per configuration, in {rounds} interleaved "
        f"round(s){' (--quick)' if args.quick else ''}; load average at start {load()}"
    )
    good, bad = usable_tasks(POOL)
    if not good:
        print("no task of gui_gym resets without error: nothing to measure", file=sys.stderr)
        return 1
    POOL[:] = good
    if args.aw_part != "all":
        second = [t for t in AW_POOL if t.startswith(PART_TWO_PREFIXES)]
        AW_POOL[:] = second if args.aw_part == "2" else [t for t in AW_POOL if t not in second]
    aw_good, aw_bad = usable_tasks(AW_POOL)
    AW_POOL[:] = aw_good
    bad.update(aw_bad)
    print(f"gui-gym suite ({len(good)}): {', '.join(good)}")
    print(f"androidworld suite ({len(aw_good)}): {', '.join(aw_good)}")
    if bad:
        print(f"left out, reset raises ({len(bad)}): " + "; ".join(f"{k} ({v})" for k, v in bad.items()))
    print(
        "mix: "
        + ", ".join(f"{k} {p:.0%}" for k, p in MIX)
        + "; oracle computed inside env.step (counted); resets on episode end (counted)"
    )
    why_not = android_env_available()
    anchor_note = ""
    if why_not is not None:
        anchor_note = (
            f"android_env is not importable ({why_not}); install it with `{INSTALL_HINT}` "
            "to get the anchor figures. The gui-gym figures are still valid."
        )
        print(f"NOTE: {anchor_note}")
    print()
    sys.stdout.flush()

    tmp = tempfile.TemporaryDirectory()
    task_path = os.path.join(tmp.name, "task.textproto")
    Path(task_path).write_text(TASK_TEXTPROTO)
    per = seconds / rounds
    cap = max(1, -(-max_steps // rounds))
    sizes = (DEFAULT_SIZE, FULL_SIZE)
    single_cfgs = (("text", DEFAULT_SIZE), ("both", DEFAULT_SIZE), ("pixels", DEFAULT_SIZE), ("pixels", FULL_SIZE))
    # AndroidWorld's suite, next to the own suite's rows of the same round.
    aw_cfgs = (("text", DEFAULT_SIZE), ("pixels", DEFAULT_SIZE)) if AW_POOL else ()
    aw_singles: dict[tuple[str, tuple[int, int]], Result] = {}
    vector_cfgs: list[tuple[str, dict[str, Any], dict[str, Any]]] = [("sync", {}, {})]
    if not args.no_async:
        vector_cfgs += [("async", {}, {}), ("async", {"shared_memory": False}, {}), ("async", {}, NO_INFO_ELEMENTS)]
    singles: dict[tuple[str, tuple[int, int]], Result] = {}
    vec: dict[int, Result] = {}
    anchor: dict[tuple[int, int], Result] = {}
    anchor_bare: dict[tuple[int, int], Result] = {}
    bare: dict[tuple[int, int], Result] = {}
    failures: dict[str, str] = {}
    anchor_failed = ""
    trees = collect_trees(24, args.seed)
    for rnd in range(rounds):
        seed = args.seed + 1000 * rnd
        for mode, size in single_cfgs:
            singles[(mode, size)] = merge(singles.get((mode, size)), bench_single(mode, size, cap, per, seed))
            if (mode, size) in aw_cfgs:
                one = bench_single(mode, size, cap, per, seed, "androidworld")
                aw_singles[(mode, size)] = merge(aw_singles.get((mode, size)), one)
            if mode == "pixels" and why_not is None and not anchor_failed:
                try:
                    anchor[size] = merge(anchor.get(size), bench_android_env(size, task_path, cap, per, seed))
                except Exception as e:  # keep the simulator-level anchor if the full env cannot be built
                    anchor_failed = f"{type(e).__name__}: {e}"
                    anchor.clear()
                    anchor_note = (
                        f"AndroidEnv could not be built/stepped offline ({anchor_failed}); "
                        "only the simulator-level anchor (bare FakeSimulator screenshot) is reported"
                    )
        for i, (kind, kw, env_kw) in enumerate(vector_cfgs):
            label = vector_label(kind, 2, kw, env_kw)
            if label in failures:
                continue
            try:
                vec[i] = merge(vec.get(i), bench_vector(kind, 2, cap, per, seed, env_kw, **kw))
            except Exception as e:  # report, and go on with the other configurations
                failures[label] = f"{type(e).__name__}: {str(e)[:200]}"
                vec.pop(i, None)
        for size in sizes:
            bare[size] = merge(bare.get(size), bench_renderer(size, trees, cap, per / 2))
            if why_not is None:
                anchor_bare[size] = merge(anchor_bare.get(size), bench_fake_screenshot(size, cap, per / 2))
    tmp.cleanup()
    resets_by_task = bench_resets(5 if args.quick else 40, args.seed, POOL)
    aw_resets = bench_resets(5 if args.quick else 40, args.seed, AW_POOL) if AW_POOL else {}
    rows: list[Result] = [singles[c] for c in single_cfgs] + [aw_singles[c] for c in aw_cfgs]
    vectors = [vec[i] for i in sorted(vec)]
    text_results = [singles[("text", DEFAULT_SIZE)], *vectors]
    text_ids = {id(r) for r in text_results}

    def ratios(ours: Result, theirs: Result | None) -> tuple[float, float]:
        """(per-core ratio, wall ratio) of ours to theirs."""
        if theirs is None:
            return float("nan"), float("nan")
        return div(ours.per_core, theirs.per_core), div(ours.rate, theirs.rate)

    # -- the table --
    print(
        "| configuration | env-steps | steps/s wall (incl. resets) | best round wall | steps/s per core (CPU) "
        "| mean reset ms wall / CPU | target | vs android_env per core / wall | status |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---:|---|")
    for r in [*rows, *vectors]:
        target, rt, status = "", "", ""
        if id(r) in text_ids:
            target = f">= {TEXT_TARGET_PER_CORE:,.0f}/s/core"
            status = ok(r.per_core >= TEXT_TARGET_PER_CORE)
        elif r.name.split()[1] == "pixels":
            size = FULL_SIZE if r is singles[("pixels", FULL_SIZE)] else DEFAULT_SIZE
            rc, rw = ratios(r, anchor.get(size))
            target, rt = f">= {PIXEL_TARGET_RATIO:g}x android_env fake", f"{rx(rc)} / {rx(rw)}"
            status = ok(None if rc != rc else rc >= PIXEL_TARGET_RATIO)
        if r.resets:
            target += ("; " if target else "") + f"reset <= {reset_target(r):g} ms"
            status += ("; " if status else "") + ok(r.reset_cpu_ms <= reset_target(r))
        reset = f"{fmt(r.reset_ms, 2)} / {fmt(r.reset_cpu_ms, 2)}" if r.resets else "n/a"
        print(
            f"| {r.name} | {r.steps:,} | {fmt(r.rate)} | {fmt(r.best)} | {fmt(r.per_core)} | {reset} "
            f"| {target} | {rt} | {status} |"
        )
    for label in failures:
        print(f"| {label} | 0 | FAILED | | | | | | see note |")
    for size in sizes:
        a = anchor.get(size)
        if a is not None:
            print(
                f"| {a.name} | {a.steps:,} | {fmt(a.rate)} | {fmt(a.best)} | {fmt(a.per_core)} "
                f"| {fmt(a.reset_ms, 2)} / {fmt(a.reset_cpu_ms, 2)} | anchor | 1.00x | |"
            )
    for size in sizes:
        b, fb = bare[size], anchor_bare.get(size)
        rc, rw = ratios(b, fb)
        print(
            f"| {b.name} | {b.steps:,} frames | {fmt(b.rate)} frames/s | {fmt(b.best)} | {fmt(b.per_core)} "
            f"| | | {rx(rc)} / {rx(rw)} | |"
        )
        if fb is not None:
            print(
                f"| {fb.name} | {fb.steps:,} frames | {fmt(fb.rate)} frames/s | {fmt(fb.best)} | {fmt(fb.per_core)} "
                "| | anchor | 1.00x | |"
            )

    # -- notes --
    print()
    for label, why in failures.items():
        print(f"FAILED: {label}: {why}")
    if anchor_note:
        print("NOTE: " + anchor_note)
    t = singles[("text", DEFAULT_SIZE)]
    share = div(t.extra["oracle_s"], t.step_s)
    print(
        f"text single: {t.resets} resets, episode ends {dict(t.extra['ends'])}; actions {dict(t.extra['kinds'])}; "
        f"oracle-action computation is {share:.0%} of step time "
        f"({fmt(1e6 * div(t.extra['oracle_s'], t.extra['oracle_calls']))} us/call)"
    )
    for r in rows:
        print(
            f"{r.name}: step-only {fmt(div(r.steps, r.step_s))} steps/s wall, "
            f"{fmt(1000 * div(r.step_cpu, r.steps), 3)} CPU-ms/step"
        )
    for r in vectors:
        print(
            f"{r.name}: {fmt(r.rate)} env-steps/s wall = {fmt(r.rate / r.cores)}/s per core by wall "
            f"({r.cores} core(s)), {fmt(r.per_core)} per CPU-second; {r.extra.get('episodes', 0)} episodes"
        )
    worst = sorted(resets_by_task.items(), key=lambda kv: -kv[1])
    print(
        "reset ms by task (text, wall, dedicated loop), slowest first: "
        + ", ".join(f"{k} {v:.2f}" for k, v in worst[:8])
        + (" ..." if len(worst) > 8 else "")
    )
    errors: Counter[str] = Counter()
    for r in [*rows, *vectors]:
        errors.update(r.extra.get("errors", {}))
    if errors:
        print(
            f"WARNING: the env raised {sum(errors.values())} exception(s) in step or oracle_action (counted as "
            "truncated episodes; each is a gui-gym bug):"
        )
        for msg, n in errors.most_common(10):
            print(f"  {n:5d} x {msg}")

    # -- verdict --
    best_text = max(r.per_core for r in text_results)
    print("\nTARGETS (judged on CPU time, i.e. per core; wall-clock figures above)")
    print(
        f"  text >= {TEXT_TARGET_PER_CORE:,.0f} steps/s per core: single {fmt(t.per_core)}, "
        + ", ".join(f"{r.name} {fmt(r.per_core)}" for r in vectors)
        + f" -> {ok(t.per_core >= TEXT_TARGET_PER_CORE)} (single env); best {fmt(best_text)} "
        f"-> {ok(best_text >= TEXT_TARGET_PER_CORE)}"
    )
    for size in sizes:
        ours, theirs = singles[("pixels", size)], anchor.get(size)
        rc, rw = ratios(ours, theirs)
        print(
            f"  pixels {size[0]}x{size[1]} >= {PIXEL_TARGET_RATIO:g}x android_env fake: per core "
            f"{fmt(ours.per_core)} vs {fmt(theirs.per_core) if theirs else 'n/a'} = {rx(rc)} (wall {rx(rw)}) "
            f"-> {ok(None if theirs is None else rc >= PIXEL_TARGET_RATIO)}"
        )
    print(
        "  reset (CPU ms, mean): "
        + ", ".join(f"{r.name} {fmt(r.reset_cpu_ms, 2)} (<= {reset_target(r):g})" for r in rows if r.resets)
        + f"; slowest task (text, wall) {worst[0][0]} {worst[0][1]:.2f} -> "
        f"{ok(all(r.reset_cpu_ms <= reset_target(r) for r in rows if r.resets))}"
    )
    for r in vectors:
        if r.name.startswith("Async"):
            ratio = div(r.rate, t.rate)
            print(
                f"  {r.name} >= {VECTOR_TARGET_RATIO:g}x one env by wall clock: {rx(ratio)} "
                f"-> {ok(ratio >= VECTOR_TARGET_RATIO if os.cpu_count() and os.cpu_count() >= 2 else None)}"
            )
    if aw_cfgs:
        own_t, aw_t = singles[("text", DEFAULT_SIZE)], aw_singles[("text", DEFAULT_SIZE)]
        text_share = div(aw_t.per_core, own_t.per_core)
        own_px, _ = ratios(singles[("pixels", DEFAULT_SIZE)], anchor.get(DEFAULT_SIZE))
        aw_px, _ = ratios(aw_singles[("pixels", DEFAULT_SIZE)], anchor.get(DEFAULT_SIZE))
        px_share = div(aw_px, own_px)
        slow = max(aw_resets.items(), key=lambda kv: kv[1])
        print(
            f"  androidworld suite text within {SUITE_TOLERANCE:.0%} of the own suite's (per core): "
            f"{fmt(aw_t.per_core)} vs {fmt(own_t.per_core)} = {rx(text_share)} "
            f"-> {ok(text_share >= 1 - SUITE_TOLERANCE)}"
        )
        print(
            f"  androidworld suite pixel ratio to android_env fake within {SUITE_TOLERANCE:.0%} of the own suite's: "
            f"{rx(aw_px)} vs {rx(own_px)} -> {ok(None if px_share != px_share else px_share >= 1 - SUITE_TOLERANCE)}"
        )
        print(
            f"  androidworld reset <= {AW_RESET_TARGET_MS:g} ms for every task (text, wall): slowest {slow[0]} "
            f"{slow[1]:.2f} ms -> {ok(slow[1] <= AW_RESET_TARGET_MS)}; by task, slowest first: "
            + ", ".join(f"{k} {v:.2f}" for k, v in sorted(aw_resets.items(), key=lambda kv: -kv[1])[:8])
        )
    print(f"\ntotal wall time {wall() - t_all:.1f} s; load average at end {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
