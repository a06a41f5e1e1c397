"""A labelled set of milestone / action-description pairs, drawn from the simulated phone.

ADMIRE (App. B.4.2, Fig. 9) calibrates the matching threshold δ of Eq. 8-9 on 500 pairs of a
milestone and an action description, annotated by hand. Here the labels come from the
simulator itself: a pair is positive when *executing* the described action reached the
milestone (its state predicate became true), negative when it did not.

How the pairs are drawn, for every task template and a few seeded episodes:

- ``positive``: the task's oracle plays the episode; at a step where the env reports a milestone
  in ``info["milestones"]``, the instantiated milestone text is paired with the oracle action's
  ``info["action_description"]`` — unless its predicate already held before the step (the env
  reports milestones in order, so one the oracle reached early is reported with a later one's
  step: deleting B before A, then A, reports both at A's step), which leaves the pair out.
- ``alternative``: from the state just before that step (``env.snapshot()`` / ``restore()``),
  other actions are executed instead — taps and long presses on the other elements of
  ``info["ui_elements"]``, Back, Home, launching another app, scrolling, typing another value —
  and each description is labelled by whether that action reached the same milestone. A few do
  (tapping the app icon instead of launching, Back that saves a task …): those count as
  positives only if the oracle's next action from there is the same as after its own step, so
  a loose predicate (any open menu for "Open the options for X") makes no false positive; the
  others are left out.
- ``earlier_step``: oracle actions taken while that milestone was the next one to reach but that
  did not reach it (focusing a field before typing, opening a menu before confirming, …): 0.
- ``hard_negative``: the milestone-reaching step of a *counterpart* task (Wi-Fi off against
  "Turn on Wi-Fi", deleting against saving, "not completed" against "completed", pause against
  start, minimum against maximum; :data:`COUNTERPARTS`), or of the same task with another
  instance's parameters (another contact, task, note, time), paired with this task's milestone.
  The label is that milestone's predicate on the state after the step: kept when it is false
  (0); when it is true the predicate cannot tell the targets apart, and the pair is left out.

Each task contributes all its positives and as many negatives (hard negatives first, then
alternatives, then earlier steps, sampled from the seed): :func:`task_pairs`, which depends
only on the task and the seed. :func:`generate_pairs` joins them, keeps a pair that several
tasks produce once, and drops surplus negatives so the classes are equal; the shipped rows of a
task are therefore a subset of its :func:`task_pairs`, which is how the tests check them
against the simulator. The tasks are split in two halves (alternately in the suite's order, so
each app is in both) for calibrating on one and reporting on the other: each row's ``split`` is
``"calib"`` or ``"heldout"``.

Each row: ``milestone``, ``action``, ``label`` (0/1), ``task_id`` (whose milestone), ``kind``,
``source`` (``oracle``, ``alternative``, ``counterpart:<task>``, ``other_target``), ``split``,
``seed`` and ``step`` (the episode and step the action was taken at) and ``executed`` (the
action text that was executed).

Rewrite the shipped file with ``python -m gui_gym.android.matching_pairs --out PATH``.

Example:
    >>> rows = task_pairs("SystemWifiTurnOn", seed=0)
    >>> [r["action"] for r in rows if r["kind"] == "positive" and r["milestone"] == "Turn on Wi-Fi"]
    ['Turn on "Wi-Fi" in Settings']
    >>> [(r["milestone"], r["action"], r["label"]) for r in rows if r["source"] == "counterpart:SystemWifiTurnOff"]
    [('Turn on Wi-Fi', 'Turn off "Wi-Fi" in Settings', 0)]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from gui_gym.android.actions import Action, format_action, parse_action
from gui_gym.android.env import GuiAndroidEnv, UIElement
from gui_gym.android.forest import element_box
from gui_gym.android.sim.apps import APPS
from gui_gym.android.sim.tasks import TASKS, TaskTemplate
from gui_gym.android.sim.widgets import KEYBOARD_PACKAGE
from gui_gym.core import contract as C
from gui_gym.core.io import atomic_write

DATA_PATH = Path(__file__).parent / "data" / "matching_pairs.jsonl"
REQUIRED_KEYS = ("milestone", "action", "label")
KINDS = ("positive", "alternative", "earlier_step", "hard_negative")
DEFAULT_SEED = 0
DEFAULT_EPISODES = 2

#: Counterpart tasks: (task A, milestone index of A, task B, milestone index of B). The step of
#: B that reaches B's milestone is a hard negative for A's milestone, and the other way round.
COUNTERPARTS: tuple[tuple[str, int, str, int], ...] = (
    ("SystemWifiTurnOn", -1, "SystemWifiTurnOff", -1),
    ("SystemBluetoothTurnOn", -1, "SystemBluetoothTurnOff", -1),
    ("TurnOffWifiAndTurnOnBluetooth", 1, "SystemWifiTurnOn", -1),
    ("TurnOffWifiAndTurnOnBluetooth", 3, "SystemBluetoothTurnOff", -1),
    ("SystemBrightnessMax", -1, "SystemBrightnessMin", -1),
    ("ClockStopWatchRunning", -1, "ClockStopWatchPausedVerify", -1),
    ("TasksCompleteTask", -1, "TasksUncompleteTask", -1),
    ("ContactsAddContact", -1, "ContactsDeleteContact", -1),
    ("TasksAddTask", -1, "TasksDeleteTask", -1),
    ("MarkorCreateNote", -1, "MarkorDeleteNote", -1),
    ("ExpenseAddSingle", -1, "ExpenseDeleteSingle", -1),
    ("ClockAlarmAdd", -1, "ClockAlarmDelete", -1),
    ("ClockAlarmTurnOff", -1, "ClockAlarmDelete", -1),
    ("SimpleCalendarAddOneEvent", -1, "SimpleCalendarDeleteOneEvent", -1),
    ("SimpleSmsReply", -1, "SimpleSmsDeleteConversation", -1),
)
#: Typed instead of the oracle's text, to see a field hold another value.
DECOY_TEXTS = ("hello", "Maya Chen", "Call the plumber", "12:00", "+1 555-0100", "notes.md")
MAX_TAPS = 6  # alternative taps / long presses tried per state (sampled)


@dataclass
class _Step:
    """One oracle step: the state before it, what it did, and the milestones it reached."""

    index: int
    snap: bytes
    elements: list[UIElement]
    action: str
    description: str
    reached: list[str]
    pending: str | None  # the milestone that was next to reach before the step


def task_split(task_id: str) -> str:
    """``"calib"`` or ``"heldout"``: alternate tasks in the suite's order (each app in both)."""
    order = list(TASKS)
    i = order.index(task_id) if task_id in order else zlib.crc32(task_id.encode())
    return "calib" if i % 2 == 0 else "heldout"


def _rng(seed: int, *keys: str) -> np.random.Generator:
    return np.random.default_rng([seed, *(zlib.crc32(k.encode()) for k in keys)])


def _episode(env: GuiAndroidEnv, seed: int, limit: int = 300) -> tuple[dict[str, Any], list[_Step]]:
    """Run the oracle once; every step with the snapshot of the state before it."""
    _, info = env.reset(seed=seed)
    milestones = list(info[C.TASK_MILESTONES])
    reached = len(info[C.MILESTONES])
    steps: list[_Step] = []
    for i in range(limit):
        snap = env.snapshot()
        action = env.oracle_action()
        pending = milestones[reached] if reached < len(milestones) else None
        elements = info["ui_elements"]
        _, _, term, trunc, info = env.step(action)
        steps.append(_Step(i, snap, elements, action, info[C.ACTION_DESCRIPTION], list(info[C.MILESTONES]), pending))
        reached += len(info[C.MILESTONES])
        if term or trunc:
            break
    return {"params": env.params, "milestones": milestones}, steps


def _character_key(e: UIElement) -> bool:
    return e.package_name == KEYBOARD_PACKAGE and not (e.resource_name or "").endswith("key_pos_ime_action")


def _alternatives(step: _Step, app_labels: Sequence[str], rng: np.random.Generator) -> list[str]:
    """Other actions a policy could take from the state before ``step`` (the keyboard's character
    keys are left to the typing alternative below; its Enter key is one of the taps)."""
    els = [e for e in step.elements if e.is_enabled and not _character_key(e)]
    taps = [e for e in els if e.is_clickable]
    longs = [e for e in els if e.is_long_clickable]
    out: list[str] = []
    for pool, kind in ((taps, "tap"), (longs, "long_press")):
        idx = rng.permutation(len(pool))[:MAX_TAPS]
        out += [format_action(Action(kind, element=element_box(pool[int(i)]))) for i in sorted(idx)]
    out += [format_action(Action("back")), format_action(Action("home"))]
    for label in rng.choice(list(app_labels), size=min(2, len(app_labels)), replace=False):
        out.append(format_action(Action("launch", app=str(label))))
    out.append(format_action(Action("swipe", direction=str(rng.choice(["up", "down"])), dist="medium")))
    parsed = parse_action(step.action)
    if parsed.kind == "type":
        decoys = [t for t in DECOY_TEXTS if t != parsed.text]
        out.append(format_action(Action("type", text=str(rng.choice(decoys)))))
    return [a for a in out if a != step.action]


def _next_description(env: GuiAndroidEnv) -> str:
    """What the oracle does next from the current state (the env is stepped)."""
    _, _, _, _, info = env.step(env.oracle_action())
    return str(info[C.ACTION_DESCRIPTION])


def _holds(task: TaskTemplate, k: int, env: GuiAndroidEnv, snap: bytes, params: dict[str, Any]) -> bool | None:
    """Milestone ``k`` of ``task`` with ``params`` on the state ``snap``; ``None`` if it cannot be told."""
    env.restore(snap)
    try:
        return bool(task.milestones[k].reached(env.device, params))
    except Exception:  # the predicate needs something this state or these params lack
        return None


def _cross_label(task: TaskTemplate, k: int, params: dict[str, Any], env: GuiAndroidEnv, step: _Step) -> int | None:
    """Did ``step`` (of another episode) reach milestone ``k`` of ``task`` with ``params``?"""
    before = _holds(task, k, env, step.snap, params)
    env.restore(step.snap)
    env.step(step.action)
    try:
        after: bool | None = bool(task.milestones[k].reached(env.device, params))
    except Exception:
        after = None
    if before is None or after is None:
        return None
    if after and not before:
        return 1
    return 0 if not after else None


def _instance_params(task_id: str, seed: int) -> dict[str, Any]:
    """The parameters of the instance a reset with ``seed`` sets up (some are chosen at set-up)."""
    env = GuiAndroidEnv(task=task_id)
    env.reset(seed=seed)
    return env.params


def _filled(task: TaskTemplate, params: dict[str, Any], text: str) -> bool:
    """Every ``<Slot>`` of ``text`` got a non-empty value."""
    return "<" not in text and all(str(v).strip() for v in task.placeholder_values(params).values())


def _merge_params(task: TaskTemplate, rng: np.random.Generator, other: dict[str, Any]) -> dict[str, Any]:
    """``task``'s parameters from ``rng``, with the values ``other`` has under the same keys."""
    p = task.sample(rng)
    p.update({k: v for k, v in other.items() if k in p})
    return p


def _row(
    task_id: str, milestone: str, action: str, label: int, kind: str, source: str, seed: int, step: _Step, executed: str
) -> dict[str, Any]:
    """One pair, with where it came from (the episode seed, the step index, the action executed)."""
    return {
        "milestone": milestone,
        "action": action,
        "label": int(label),
        "task_id": task_id,
        "kind": kind,
        "source": source,
        "split": task_split(task_id),
        "seed": seed,
        "step": step.index,
        "executed": executed,
    }


def _task_pool(task_id: str, seed: int, episodes: int) -> list[dict[str, Any]]:
    """Every candidate pair of one task (before balancing)."""
    task = TASKS[task_id]
    rng = _rng(seed, task_id, "alternatives")
    own_labels = {APPS[a].label for a in (task.apps or (task.app,)) if a in APPS}
    # another app to launch: one the simulator runs by itself (a browser's app would start Chromium)
    app_labels = sorted(a.label for a in APPS.values() if a.label not in own_labels and not a.requires)
    rows: list[dict[str, Any]] = []
    for ep in range(episodes):
        ep_seed = seed * 1000 + ep
        env = GuiAndroidEnv(task=task_id)  # a fresh phone per episode: nothing carries over
        meta, steps = _episode(env, ep_seed)
        for st in steps:
            for m in st.reached:
                # The env reaches milestones in order: one whose predicate already held before
                # this step (reached out of order, reported once the earlier ones are) was not
                # this action's doing, so it is no positive for it; left out.
                if _holds(task, meta["milestones"].index(m), env, st.snap, meta["params"]):
                    continue
                rows.append(_row(task_id, m, st.description, 1, "positive", "oracle", ep_seed, st, st.action))
            if st.pending is None:
                continue
            if st.pending not in st.reached:
                rows.append(
                    _row(task_id, st.pending, st.description, 0, "earlier_step", "oracle", ep_seed, st, st.action)
                )
                continue
            nxt = steps[st.index + 1].description if st.index + 1 < len(steps) else None
            for alt in _alternatives(st, app_labels, rng):
                env.restore(st.snap)
                _, _, term, trunc, info = env.step(alt)
                desc = str(info[C.ACTION_DESCRIPTION])
                if not info[C.FORMAT_VALID] or desc == st.description:
                    continue
                label = int(st.pending in info[C.MILESTONES])
                if label and not (term or trunc) and _next_description(env) != nxt:
                    continue  # a loose predicate, not the same progress: ambiguous, left out
                rows.append(_row(task_id, st.pending, desc, label, "alternative", "alternative", ep_seed, st, alt))
        # The same milestones with another instance's parameters (another contact, task, time …).
        other = _instance_params(task_id, ep_seed + 500)
        texts = task.milestone_texts(other)
        for st in steps:
            for m in st.reached:
                k = meta["milestones"].index(m)
                if texts[k] == m or not _filled(task, other, texts[k]):
                    continue
                # label 1 would mean the predicate cannot tell the two targets apart: left out
                if _cross_label(task, k, other, env, st) == 0:
                    rows.append(
                        _row(
                            task_id,
                            texts[k],
                            st.description,
                            0,
                            "hard_negative",
                            "other_target",
                            ep_seed,
                            st,
                            st.action,
                        )
                    )
    rows += _counterpart_rows(task_id, seed, episodes)
    return rows


def _counterpart_rows(task_id: str, seed: int, episodes: int) -> list[dict[str, Any]]:
    """Milestones of ``task_id`` against the milestone-reaching steps of its counterparts."""
    rows: list[dict[str, Any]] = []
    for a, ka, b, kb in COUNTERPARTS:
        for mine, k_mine, theirs, k_theirs in ((a, ka, b, kb), (b, kb, a, ka)):
            if mine != task_id:
                continue
            task, other = TASKS[mine], TASKS[theirs]
            k = k_mine % len(task.milestones)
            for ep in range(episodes):
                ep_seed = seed * 1000 + ep
                env = GuiAndroidEnv(task=theirs)
                meta, steps = _episode(env, ep_seed)
                target = meta["milestones"][k_theirs % len(other.milestones)]
                params = _merge_params(task, _rng(seed, task_id, theirs, str(ep)), meta["params"])
                text = task.milestone_texts(params)[k]
                if not _filled(task, params, text):
                    continue
                for st in steps:
                    if target in st.reached and _cross_label(task, k, params, env, st) == 0:
                        source = f"counterpart:{theirs}"
                        rows.append(
                            _row(task_id, text, st.description, 0, "hard_negative", source, ep_seed, st, st.action)
                        )
    return rows


def _balance(rows: list[dict[str, Any]], rng: np.random.Generator) -> list[dict[str, Any]]:
    """Distinct pairs; all positives and as many negatives (hard ones first)."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    conflicts: set[tuple[str, str]] = set()
    for r in rows:
        key = (r["milestone"], r["action"])
        if key in seen and seen[key]["label"] != r["label"]:
            conflicts.add(key)
        seen.setdefault(key, r)
    distinct = [r for k, r in seen.items() if k not in conflicts]
    pos = [r for r in distinct if r["label"] == 1]
    want = len(pos)
    quotas = (("hard_negative", 0.4), ("alternative", 0.4), ("earlier_step", 1.0))
    negs = {kind: [r for r in distinct if r["label"] == 0 and r["kind"] == kind] for kind, _ in quotas}
    for kind in negs:
        order = rng.permutation(len(negs[kind]))
        negs[kind] = [negs[kind][int(i)] for i in order]
    chosen: list[dict[str, Any]] = []
    for kind, share in quotas:
        n = min(len(negs[kind]), round(share * want), want - len(chosen))
        chosen += negs[kind][:n]
        negs[kind] = negs[kind][n:]
    for kind, _ in quotas:  # top up from whatever is left
        n = min(len(negs[kind]), want - len(chosen))
        chosen += negs[kind][:n]
        negs[kind] = negs[kind][n:]
    keep = {id(r) for r in pos + chosen}
    return [r for r in distinct if id(r) in keep]


def task_pairs(task_id: str, seed: int = DEFAULT_SEED, episodes: int = DEFAULT_EPISODES) -> list[dict[str, Any]]:
    """One task's balanced rows; they depend only on ``task_id``, ``seed`` and ``episodes``."""
    if task_id not in TASKS:
        raise ValueError(f"unknown task id {task_id!r}")
    return _balance(_task_pool(task_id, seed, episodes), _rng(seed, task_id, "balance"))


def generate_pairs(
    seed: int = DEFAULT_SEED, tasks: Iterable[str] | None = None, episodes: int = DEFAULT_EPISODES
) -> list[dict[str, Any]]:
    """The labelled pairs of ``tasks`` (default: every task, in the suite's order), from ``seed``.

    The rows of :func:`task_pairs` for each task, then: a pair that several tasks produce
    ("Open the Settings app" / "Launch Settings") is kept once, for the first task; and
    negatives (alternatives first, then earlier steps, hard negatives last) or positives,
    whichever are more, are dropped at random until the classes are equal. So the rows the set has for a
    task are always a subset of that task's :func:`task_pairs`.
    """
    ids = list(TASKS) if tasks is None else list(tasks)
    rows: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for task_id in ids:
        for r in task_pairs(task_id, seed, episodes):
            key = (r["milestone"], r["action"])
            if key not in seen:
                seen.add(key)
                rows.append(r)
    pos = [i for i, r in enumerate(rows) if r["label"] == 1]
    neg = [i for i, r in enumerate(rows) if r["label"] == 0]
    more, excess = (neg, len(neg) - len(pos)) if len(neg) > len(pos) else (pos, len(pos) - len(neg))
    rng = _rng(seed, "global-balance")
    rank = {"alternative": 0, "earlier_step": 1, "positive": 1, "hard_negative": 2}
    order = sorted(more, key=lambda i: (rank.get(rows[i]["kind"], 1), rng.random()))
    drop = set(order[:excess])
    return [r for i, r in enumerate(rows) if i not in drop]


# ----------------------------------------------------------------------------- files


class PairsFileError(ValueError):
    """A labelled-pairs file that cannot be used (missing, empty, wrong keys)."""


def write_pairs(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write ``rows`` as JSON Lines, atomically (temp file + rename). Returns the row count."""
    n = 0

    def write(f: IO[str]) -> None:
        nonlocal n
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
            n += 1

    atomic_write(path, write)
    return n


def iter_pairs(
    path: str | os.PathLike[str] | None = None, warn: Callable[[str], None] | None = None
) -> Iterator[dict[str, Any]]:
    """The rows of a labelled JSONL file (default: the shipped set).

    A line that is not a JSON object with string ``milestone`` and ``action`` and a 0/1
    ``label`` is skipped with a ``file:line`` message to ``warn``; blank lines are ignored.
    """
    p = DATA_PATH if path is None else Path(path)
    if not p.exists():
        raise PairsFileError(f"no such file: {p}")
    if not p.is_file():
        raise PairsFileError(f"not a file: {p}")
    with p.open(encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            why = ""
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                why = f"not valid JSON ({e.msg})"
            else:
                if not isinstance(row, dict):
                    why = "not a JSON object"
                elif missing := [k for k in REQUIRED_KEYS if k not in row]:
                    why = f"missing key(s) {', '.join(missing)}"
                elif not isinstance(row["milestone"], str) or not isinstance(row["action"], str):
                    why = "milestone and action must be strings"
                elif row["label"] not in (0, 1):
                    why = f"label must be 0 or 1, got {row['label']!r}"
            if why:
                if warn is not None:
                    warn(f"{p}:{lineno}: skipped: {why}")
                continue
            row["label"] = int(row["label"])
            yield row


def load_pairs(
    path: str | os.PathLike[str] | None = None, warn: Callable[[str], None] | None = None
) -> list[dict[str, Any]]:
    """All usable rows of a labelled JSONL file (default: the shipped set); see :func:`iter_pairs`.

    Raises :class:`PairsFileError` when the file is missing or has no usable row.
    """
    rows = list(iter_pairs(path, warn))
    if not rows:
        raise PairsFileError(f"no usable milestone/action/label rows in {DATA_PATH if path is None else path}")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m gui_gym.android.matching_pairs",
        description="Generate the labelled milestone/action pairs from the simulator.",
    )
    ap.add_argument("--out", default=str(DATA_PATH), help=f"output JSONL (default: {DATA_PATH})")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--episodes", type=int, default=DEFAULT_EPISODES, help="oracle episodes per task")
    ap.add_argument("--task", action="append", help="only this task id (repeatable)")
    args = ap.parse_args(argv)
    try:
        rows = generate_pairs(args.seed, args.task, args.episodes)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    n = write_pairs(args.out, rows)
    pos = sum(r["label"] for r in rows)
    kinds = {k: sum(r["kind"] == k for r in rows) for k in KINDS}
    print(f"wrote {n} pairs ({pos} positive, {n - pos} negative; {kinds}) to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
