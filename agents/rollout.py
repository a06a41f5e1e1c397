"""Run a policy for whole episodes and summarise success by difficulty tier."""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
from tqdm import tqdm

from agents.policies.baselines import Policy
from gui_gym.core import contract as C
from gui_gym.core.contract import DIFFICULTIES, DIFFICULTY
from gui_gym.core.family import family_of
from gui_gym.core.trajectory import Step, Trajectory


@dataclass
class EpisodeResult:
    """One finished episode."""

    task_id: str
    difficulty: str
    success: bool
    steps: int
    invalid: int
    trajectory: Trajectory = field(repr=False)


def rollout(
    env: gym.Env,
    policy: Policy,
    episodes: int,
    seed: int = 0,
    progress: bool = True,
    on_step: Callable[[int, int, gym.Env], Any] | None = None,
) -> list[EpisodeResult]:
    """Run ``episodes`` episodes with seeds ``seed, seed+1, …``.

    ``on_step(episode, step, env)`` is called after every step (e.g. to save screenshots).
    Each trajectory records, per step, the compact text of the observation the action was
    taken on (the env family's ``observation_text``) and, in ``meta``, the observation after
    the last step, the instance's ``placeholders`` and the task's milestones: what progress
    labelling (``gui-gym progrm label``) reads. The difficulty is the one the env reports at reset.
    """
    screen_text = family_of(env).observation_text
    results: list[EpisodeResult] = []
    bar = tqdm(range(episodes), desc=type(policy).__name__, disable=not progress, leave=False)
    for ep in bar:
        obs, info = env.reset(seed=seed + ep)
        policy.reset(seed + ep)
        difficulty = str(info.get(DIFFICULTY, "?"))
        traj = Trajectory(task_id=info[C.TASK_ID], instruction=info[C.INSTRUCTION], seed=seed + ep)
        traj.meta["difficulty"] = difficulty
        for key in ("placeholders", "task_milestones"):
            if key in info:
                traj.meta[key] = info[key]
        invalid = 0
        if on_step is not None:
            on_step(ep, 0, env)
        while True:
            action = policy.act(obs, info)
            seen = screen_text(obs)
            obs, reward, terminated, truncated, info = env.step(action)
            invalid += not info[C.FORMAT_VALID]
            traj.steps.append(Step.from_info(action, info, observation=seen, reward=float(reward)))
            if on_step is not None:
                on_step(ep, len(traj.steps), env)
            if terminated or truncated:
                break
        traj.success, traj.truncated = bool(info[C.SUCCESS]), bool(truncated)
        traj.meta["final_observation"] = screen_text(obs)
        results.append(EpisodeResult(info[C.TASK_ID], difficulty, traj.success, len(traj.steps), invalid, traj))
        bar.set_postfix(success=f"{sum(r.success for r in results) / len(results):.2f}", refresh=False)
    return results


def summarize(results: list[EpisodeResult]) -> dict[str, dict[str, float]]:
    """Success rate, mean steps and invalid-action rate, overall and per tier."""
    groups: dict[str, list[EpisodeResult]] = defaultdict(list)
    for r in results:
        groups[r.difficulty].append(r)
        groups["all"].append(r)
    out = {}
    for tier in (*DIFFICULTIES, "all"):
        rs = groups.get(tier)
        if not rs:
            continue
        steps = sum(r.steps for r in rs)
        out[tier] = {
            "episodes": len(rs),
            "success_rate": sum(r.success for r in rs) / len(rs),
            "mean_steps": steps / len(rs),
            "invalid_rate": sum(r.invalid for r in rs) / max(1, steps),
        }
    return out


def format_summary(name: str, summary: dict[str, dict[str, float]]) -> str:
    lines = [f"{name}", f"  {'tier':<8}{'episodes':>9}{'success':>9}{'steps':>8}{'invalid':>9}"]
    for tier, s in summary.items():
        lines.append(
            f"  {tier:<8}{s['episodes']:>9}{s['success_rate']:>9.2f}{s['mean_steps']:>8.1f}{s['invalid_rate']:>9.2f}"
        )
    return "\n".join(lines)


def save_screen(directory: str) -> Callable[[int, int, gym.Env], None]:
    """An ``on_step`` hook writing ``DIR/ep{episode:03d}_step{step:03d}.png``."""
    from PIL import Image

    os.makedirs(directory, exist_ok=True)

    def hook(ep: int, step: int, env: gym.Env) -> None:
        frame = env.render()
        if frame is not None:
            Image.fromarray(frame).save(os.path.join(directory, f"ep{ep:03d}_step{step:03d}.png"))

    return hook
