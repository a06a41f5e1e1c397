"""Recorded episodes of every simulator task, with a digest of every observation option per step.

The phone builds its observations lazily and incrementally (only what is read, only what
changed); these records hold it to what a full rebuild of every step produces. Each episode is
stepped in lockstep by one env per observation option; each step keeps a short digest of the
dump in every window mode, every compressed text, the forest, both element lists, the frames at
two sizes and the step's reward and info.

Re-record (only when the observations are meant to change) with::

    python tests/android/observation_record.py

``test_observation_equivalence.py`` replays the recorded actions and compares.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

FIXTURE = Path(__file__).parent / "fixtures" / "observations.json.gz"
#: the env options stepped side by side: name -> gym.make kwargs
ENVS: dict[str, dict[str, Any]] = {
    "xml": {"obs_mode": "both"},
    "xml-all": {"ui_windows": "all", "ui_elements": "dump"},
    "xml-merged": {"ui_windows": "merged"},
    "mobilerl": {"ui_format": "mobilerl"},
    "mobilerl_appc": {"ui_format": "mobilerl_appc", "ui_windows": "merged"},
    "indexed": {"ui_format": "indexed", "ui_elements": "dump"},
    "forest": {"ui_format": "forest"},
}
FULL_SIZE = (1080, 2400)
FULL_FRAME_EVERY = 3  # the full-size frame of every third step (the renderer must not rely on seeing each)
MAX_STEPS = {"oracle": 40, "mixed": 24, "fuzz": 14}
APPS = ("Clock", "Contacts", "Markor", "Settings", "Simple Calendar Pro", "Tasks", "Pro Expense", "Nonexistent")
TEXTS = ("Sofia", "42", 'a & b <c> "d"', "line\nbreak", "\u00e9t\u00e9 \u2603", "x" * 300, "\x07bell")
GARBAGE = (
    "",
    "tap",
    'do(action="Tap", element=[1,2,3])',
    'do(action="Tap", element=[99999,0,100000,10])',
    '{"action_type": "click", "index": 100000}',
    '{"action_type": "click", "x": -5, "y": 40}',
    '{"action_type": "click"',
    "__import__('os').system('true')",
    'do(action="Swipe", direction="sideways")',
    '{"action_type": "input_text", "text": 5}',
    "\ud800",
    'finish(message="' + "z" * 50 + '")',
)


def digest(value: Any) -> str:
    """A short, stable digest of an observation part."""
    if isinstance(value, np.ndarray):
        data = value.tobytes() + repr((value.shape, str(value.dtype))).encode()
    elif isinstance(value, bytes):
        data = value
    else:
        data = value.encode("utf-8", "surrogatepass") if isinstance(value, str) else repr(value).encode()
    return hashlib.blake2b(data, digest_size=8).hexdigest()


def make_envs() -> dict[str, gym.Env]:
    import gui_gym  # noqa: F401  (registers the envs)

    return {name: gym.make("GuiAndroid-v0", **kw) for name, kw in ENVS.items()}


def observe(envs: dict[str, gym.Env], obs: dict[str, dict], infos: dict[str, dict], step: int) -> dict[str, str]:
    """The digests of one step across the envs."""
    out: dict[str, str] = {}
    for name in envs:
        out[name] = digest(obs[name]["ui"])
        if name in ("xml", "xml-all"):
            out[f"{name}:elements"] = digest([e for e in infos[name]["ui_elements"]])
        if name == "xml":
            out["frame"] = digest(obs[name]["screen"])
    if step % FULL_FRAME_EVERY == 0:
        out["frame:full"] = digest(envs["xml"].unwrapped.backend.screenshot(FULL_SIZE))
    for name, info in infos.items():
        keep = {k: v for k, v in info.items() if k != "ui_elements"}
        out[f"{name}:info"] = digest(json.dumps(keep, sort_keys=True, default=repr))
    return out


class Driver:
    """The seeded action choice of the ``mixed`` and ``fuzz`` episodes (from env ``xml``)."""

    def __init__(self, seed: int, kind: str) -> None:
        self.rng = np.random.default_rng(seed)
        self.kind = kind

    def _element(self, elements: list, want: str = "clickable") -> int | None:
        ok = [i for i, e in enumerate(elements) if getattr(e, f"is_{want}")]
        return None if not ok else ok[int(self.rng.integers(len(ok)))]

    def act(self, env: gym.Env, info: dict) -> Any:
        rng, elements = self.rng, info["ui_elements"]
        u = rng.random()
        if self.kind == "fuzz" and u < 0.5:
            return GARBAGE[int(rng.integers(len(GARBAGE)))]
        if u < 0.45:
            return env.unwrapped.oracle_action()
        u = rng.random()
        if u < 0.22 and (i := self._element(elements)) is not None:
            if rng.random() < 0.5:
                return {"action_type": "click", "index": i}
            b = elements[i].bbox_pixels
            return f'do(action="Tap", element=[{int(b.x_min)},{int(b.y_min)},{int(b.x_max)},{int(b.y_max)}])'
        if u < 0.3 and (i := self._element(elements, "long_clickable")) is not None:
            return {"action_type": "long_press", "index": i}
        if u < 0.42:
            text = TEXTS[int(rng.integers(len(TEXTS)))]
            if (i := self._element(elements, "editable")) is not None and rng.random() < 0.6:
                return {"action_type": "input_text", "text": text, "index": i}
            return json.dumps({"action_type": "input_text", "text": text}) if rng.random() < 0.5 else f"type({text!r})"
        if u < 0.6:
            d = ("up", "down", "left", "right")[int(rng.integers(4))]
            if rng.random() < 0.5:
                dist = ("short", "medium", "long")[int(rng.integers(3))]
                return f'do(action="Swipe", direction="{d}", dist="{dist}")'
            return {"action_type": "scroll", "direction": d}
        if u < 0.68:
            x, y = (float(v) for v in rng.random(2))
            return {"action_type": ("TOUCH", "LIFT")[int(rng.random() < 0.4)], "touch_position": [x, y]}
        if u < 0.8:
            return ('do(action="Back")', {"action_type": "navigate_home"}, {"action_type": "keyboard_enter"},
                    'do(action="Wait")')[int(rng.integers(4))]  # fmt: skip
        if u < 0.9:
            return {"action_type": "open_app", "app_name": APPS[int(rng.integers(len(APPS)))]}
        x, y = int(rng.integers(0, 1080)), int(rng.integers(0, 2400))
        return {"action_type": "click", "x": x, "y": y}


def run_episode(envs: dict[str, gym.Env], task: str, seed: int, kind: str, actions: list | None = None) -> dict:
    """Step every env through one episode; with ``actions``, replay them instead of choosing."""
    obs, infos = {}, {}
    for name, env in envs.items():
        obs[name], infos[name] = env.reset(seed=seed, options={"task": task})
    steps = [observe(envs, obs, infos, 0)]
    chosen: list = []
    done: set[str] = set()
    driver = Driver(seed, kind)
    todo = list(actions) if actions is not None else None
    for t in range(1, MAX_STEPS[kind] + 1):
        if todo is not None:
            if not todo:
                break
            action = todo.pop(0)
        elif kind == "oracle":
            action = envs["xml"].unwrapped.oracle_action()
        else:
            action = driver.act(envs["xml"], infos["xml"])
        chosen.append(action)
        ends = {}  # an index counts in each env's own element list, so the envs may part ways
        for name, env in envs.items():
            if name in done:
                continue
            obs[name], r, term, trunc, infos[name] = env.step(action)
            ends[name] = (float(r), bool(term), bool(trunc))
            if term or trunc:
                done.add(name)
        step = observe(envs, obs, infos, t)
        step["end"] = digest(repr(sorted(ends.items())))
        steps.append(step)
        if "xml" in done:
            break
    return {"task": task, "seed": seed, "kind": kind, "actions": chosen, "steps": steps}


def episodes_of(task_ids: list[str]) -> list[tuple[str, int, str]]:
    """The recorded episodes: per task an oracle, a mixed and a fuzzed one, at seeds fixed by position."""
    out = []
    for i, tid in enumerate(task_ids):
        out += [(tid, 3 * i, "oracle"), (tid, 3 * i + 1, "mixed"), (tid, 3 * i + 2, "fuzz")]
    return out


def record() -> list[dict]:
    from gui_gym.android.sim.tasks import TASKS

    envs = make_envs()
    return [run_episode(envs, tid, seed, kind) for tid, seed, kind in episodes_of(sorted(TASKS))]


def load() -> list[dict]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        return json.load(f)["episodes"]


if __name__ == "__main__":
    episodes = record()
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(FIXTURE, "wt", encoding="utf-8", compresslevel=9) as f:
        json.dump({"format": 1, "envs": ENVS, "episodes": episodes}, f, ensure_ascii=True, separators=(",", ":"))
    n = sum(len(e["steps"]) for e in episodes)
    print(f"{len(episodes)} episodes, {n} steps -> {FIXTURE} ({FIXTURE.stat().st_size} bytes)", file=sys.stderr)
