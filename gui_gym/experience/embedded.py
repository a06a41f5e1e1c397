"""The embedded experience set: the simulator's oracle trajectories of every task.

For each task of ``GuiAndroid-v0`` and each seed, the oracle's episode becomes an
:class:`~gui_gym.experience.record.Experience` in AndroidControl's and UI-S1's conventions: a
``Tap`` is a ``click`` at its element's centre with that element's exact box (and the boxes of
the elements under it, smallest first, as candidates), a finger ``Swipe`` up is a ``swipe`` that
scrolls the content ``down``, ``Type`` is ``type``, ``Launch`` is ``open``, ``Back``/``Home``/
``Enter`` are system buttons, ``finish()`` is ``terminate`` and ``finish(message=...)`` an
``answer``. Each step keeps the simulator's own text (``native``) so its screens can be
re-rendered exactly (:class:`~gui_gym.experience.screens.SimScreens`).

The package ships the compact set (actions only, ``data/embedded.jsonl.gz``: seeds 0-5 are the
``train`` split, 6-7 ``test``); :func:`generate` rebuilds it and a test checks the two agree.

Example:
    >>> e = oracle_experience("ClockStopWatchRunning", 0)
    >>> e.id, [s.action.action for s in e.steps]
    ('ClockStopWatchRunning/0', ['open', 'click', 'click', 'terminate'])
"""

from __future__ import annotations

import functools
import gzip
from collections.abc import Iterable, Sequence
from importlib import resources

from gui_gym.experience.grounding import boxes_at, screen_elements
from gui_gym.experience.record import Experience, ExperienceError, ExpertStep, UIAction, dumps, loads

__all__ = ["DATA_FILE", "SEEDS", "TEST_SEEDS", "embedded_experiences", "generate", "oracle_experience"]

DATA_FILE = "embedded.jsonl.gz"
#: The seeds of the shipped set, and those of its test split.
SEEDS = tuple(range(8))
TEST_SEEDS = (6, 7)


def oracle_experience(task: str, seed: int) -> Experience:
    """The simulator oracle's episode of *task* at *seed* as an expert trajectory."""
    from gui_gym.android.actions import parse_action
    from gui_gym.android.env import GuiAndroidEnv
    from gui_gym.android.sim.tasks import TASKS
    from gui_gym.experience.matching import to_ui_action

    env = GuiAndroidEnv(task=task, max_steps=10_000)
    obs, info = env.reset(seed=seed, options={"task": task})
    steps: list[ExpertStep] = []
    for _ in range(200):
        native = env.oracle_action()
        parsed = parse_action(native)
        action, _ = to_ui_action(parsed)
        if action is None:
            raise ExperienceError(f"{task}/{seed}: the oracle's {native} has no UI-S1 action")
        elements = screen_elements(obs["ui"])
        boxes: list = []
        if action.action in ("click", "long_press"):
            if parsed.element is not None:
                action = UIAction(action.action, point=action.point, box=parsed.element)
            boxes = boxes_at(elements, action.point)  # type: ignore[arg-type]
        steps.append(ExpertStep(action, tuple(boxes), native=native))
        obs, _, terminated, truncated, info = env.step(native)
        if not info.get("format_valid", True):
            raise ExperienceError(f"{task}/{seed}: the oracle's {native} was refused: {info.get('reason')}")
        if terminated or truncated:
            break
    if not info.get("success"):
        raise ExperienceError(f"{task}/{seed}: the oracle did not succeed")
    template = TASKS[task]
    return Experience(
        f"{task}/{seed}",
        env.instruction,
        tuple(steps),
        (1080, 2400),
        "gui-gym",
        task,
        seed,
        template.difficulty,
        template.app,
        meta={"split": "test" if seed in TEST_SEEDS else "train"},
    )


def generate(tasks: Iterable[str] | None = None, seeds: Sequence[int] = SEEDS) -> list[Experience]:
    """The oracle trajectories of *tasks* (default: every task) at *seeds*."""
    from gui_gym.android.sim.tasks import TASKS

    return [oracle_experience(t, s) for t in (tasks if tasks is not None else sorted(TASKS)) for s in seeds]


@functools.cache
def _shipped() -> tuple[Experience, ...]:
    data = resources.files("gui_gym.experience").joinpath("data", DATA_FILE).read_bytes()
    return tuple(loads(gzip.decompress(data).decode("utf-8"), DATA_FILE))


def embedded_experiences() -> list[Experience]:
    """The shipped set (see the module docstring)."""
    return list(_shipped())


def write_embedded(path: str, experiences: Sequence[Experience]) -> None:
    """Write *experiences* as the shipped file (gzip without a timestamp: the same bytes each time)."""
    from gui_gym.core.io import atomic_write

    blob = gzip.compress(dumps(experiences).encode("utf-8"), mtime=0)
    atomic_write(path, lambda f: f.write(blob), binary=True)


if __name__ == "__main__":  # python -m gui_gym.experience.embedded: rebuild the shipped set
    from pathlib import Path

    target = Path(__file__).with_name("data") / DATA_FILE
    target.parent.mkdir(exist_ok=True)
    made = generate()
    write_embedded(str(target), made)
    print(f"{len(made)} experiences, {sum(len(e) for e in made)} steps -> {target}")
