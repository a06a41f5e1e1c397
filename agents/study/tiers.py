"""Difficulty tiers by oracle length: how many steps the env's own expert needs for a task.

The papers tier tasks by how long they are (ADMIRE Fig. 3 by steps; MobileRL Fig. 4c by the
shortest successful length), and a study needs each tier populated. A family's declared
difficulty is its benchmark's label (AndroidWorld's, ALFWorld's task type), which need not
follow length, so the study measures: the mean oracle length over a few seeds apart from
evaluation and training, cut at ``cuts`` = (m, h): ``easy`` below m steps, ``medium`` from m to
h − 1, ``hard`` from h. ``(6, 11)`` is the AndroidWorld split (under 6, 6-10, 11 and more).

Example (by hand: lengths 4, 7 and 12 against cuts (6, 11)):
    >>> [tier_of(n, (6, 11)) for n in (4.0, 7.0, 12.0)]
    ['easy', 'medium', 'hard']
    >>> tiers = oracle_tiers("GuiAndroid-v0", ["SystemWifiTurnOn", "SystemMultiSettingSetup"], (6, 11))
    >>> {t: (v["oracle_steps"], v["tier"]) for t, v in tiers.items()}
    {'SystemWifiTurnOn': (4.0, 'easy'), 'SystemMultiSettingSetup': (11.0, 'hard')}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

__all__ = ["TIERS_FILE", "TIER_SEED", "oracle_tiers", "read_tiers", "tier_of"]

#: Each task's oracle length and tier, under a study directory.
TIERS_FILE = "tiers.json"

#: The seeds the oracle is timed on: apart from evaluation (0..n−1), demonstrations and reward-model
#: rollouts (500,000 up) and RL (10⁶ up).
TIER_SEED = 900_000


def tier_of(steps: float, cuts: Sequence[int]) -> str:
    """``easy`` / ``medium`` / ``hard`` for an oracle length of ``steps`` (see the module docstring)."""
    medium, hard = int(cuts[0]), int(cuts[1])
    if not 0 < medium < hard:
        raise ValueError(f"tier cuts must be two increasing positive step counts, got {tuple(cuts)}")
    return "easy" if steps < medium else "medium" if steps < hard else "hard"


def oracle_tiers(
    env_id: str,
    tasks: Sequence[str],
    cuts: Sequence[int],
    seeds: int = 3,
    max_steps: int = 60,
    env_kwargs: dict[str, Any] | None = None,
) -> dict[str, dict[str, Any]]:
    """``{task: {"oracle_steps": mean length, "tier": tier, "declared": the family's difficulty}}``.

    Raises ValueError when the oracle fails a task within ``max_steps`` (a task its own expert
    cannot finish has no length to tier it by), TypeError when the env has no oracle.
    """
    out: dict[str, dict[str, Any]] = {}
    for task in tasks:
        env = gym.make(env_id, task=task, max_steps=max_steps, **(env_kwargs or {}))
        if not hasattr(env.unwrapped, "oracle_action"):
            env.close()
            raise TypeError(f"{env_id} has no oracle_action(): its tasks cannot be tiered by the oracle's length")
        lengths, declared = [], None
        try:
            for i in range(seeds):
                _, info = env.reset(seed=TIER_SEED + i)
                declared = info.get("difficulty", declared)
                n, done = 0, False
                while not done:
                    _, _, term, trunc, info = env.step(env.unwrapped.oracle_action())
                    n, done = n + 1, term or trunc
                if not info.get("success"):
                    raise ValueError(f"the oracle fails {task} (seed {TIER_SEED + i}) within {max_steps} steps")
                lengths.append(n)
        finally:
            env.close()
        steps = round(float(np.mean(lengths)), 2)
        out[task] = {"oracle_steps": steps, "tier": tier_of(steps, cuts), "declared": declared}
    return out


def read_tiers(out: str | Path) -> dict[str, str]:
    """Task → tier from a study's ``tiers.json`` ({} when the study keeps the declared difficulty)."""
    path = Path(out) / TIERS_FILE
    if not path.exists():
        return {}
    return {t: str(v["tier"]) for t, v in json.loads(path.read_text(encoding="utf-8")).items()}
