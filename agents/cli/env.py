"""``gui-gym tasks``, ``gui-gym rollout`` and ``gui-gym play``: an env's tasks, baseline policies, and you.

::

    gui-gym tasks [--env ID] [--difficulty hard] [--app contacts] [--suite androidworld]
    gui-gym rollout [--env ID] [--env-kwargs KEY=VALUE ...] --policy oracle,random --episodes 40 [--task ID|TIER]
    gui-gym play [--env ID] [--task ID] [--seed 0] [--save-screens DIR]

``--env`` takes any registered id, or ``module:EnvId`` for an env that ``module`` registers.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import gymnasium as gym

from agents.cli.common import add_env_arguments, env_kwargs, task_arg
from agents.policies import NoisyOraclePolicy, OraclePolicy, RandomPolicy
from agents.rollout import format_summary, rollout, save_screen, summarize
from gui_gym.core import contract as C
from gui_gym.core.contract import DIFFICULTIES
from gui_gym.core.trajectory import write_jsonl

__all__ = ["add_parser", "cmd_play", "cmd_rollout", "cmd_tasks"]


def _make(env_id: str, **kwargs: Any) -> gym.Env:
    """``gym.make``, with an unknown id as a ValueError (a message, not a traceback)."""
    try:
        return gym.make(env_id, **kwargs)
    except (gym.error.Error, ImportError) as e:
        raise ValueError(f"cannot make env {env_id!r}: {e}") from e


def cmd_tasks(args: argparse.Namespace) -> int:
    from agents.train import env_family

    family = env_family(args.env)
    specs = family.tasks(None)
    if args.suite:  # a suite, or a named subset of one (tasks needing a browser are listed by name)
        try:
            specs = [] if args.suite in DIFFICULTIES else family.tasks(args.suite)
        except ValueError as e:  # it names the suites there are
            print(f"error: no suite {args.suite!r}: {e}", file=sys.stderr)
            return 2
        if not specs:
            print(f"error: no suite {args.suite!r}", file=sys.stderr)
            return 2
    if args.difficulty:
        specs = [s for s in specs if s.difficulty == args.difficulty]
    if args.app:  # multi-app tasks list every app they touch
        specs = [s for s in specs if args.app in (getattr(s, "apps", ()) or (getattr(s, "app", None),))]
    width = max(len(s.id) for s in specs) if specs else 10
    # A benchmark's own metadata (its label is the tier, its optimal steps) beside our oracle's length.
    meta = any(getattr(s, "optimal_steps", None) is not None for s in specs)
    oracle = getattr(family, "oracle_steps", None) if meta else None
    head = f"{'id':<{width}}  {'app':<9} {'tier':<7}{'kind':<11}{'milestones':>10}"
    if meta:
        head += f"{'optimal':>8}{'oracle':>7}  {'tags':<24}"
    print(head + "  template")
    for s in specs:
        row = f"{s.id:<{width}}  {s.app:<9} {s.difficulty:<7}{s.kind:<11}{len(s.milestones):>10}"
        if meta:
            ours = oracle(s.id) if callable(oracle) else None
            row += f"{_dash(s.optimal_steps):>8}{_dash(ours):>7}  {','.join(s.tags) or '-':<24}"
        print(row + "  " + s.template.replace("\n", "\\n"))
    counts = ", ".join(f"{sum(s.difficulty == t for s in specs)} {t}" for t in DIFFICULTIES)
    print(f"\n{len(specs)} tasks: {counts}")
    return 0


def _dash(value: Any) -> str:
    return "-" if value is None else str(value)


def cmd_rollout(args: argparse.Namespace) -> int:
    render_mode = "rgb_array" if args.save_screens else None
    env = _make(args.env, task=task_arg(args.task), render_mode=render_mode, **env_kwargs(args.env_kwargs))
    hook = save_screen(args.save_screens) if args.save_screens else None
    all_trajs = []
    for name in [p.strip() for p in args.policy.split(",") if p.strip()]:
        if name == "oracle":
            policy = OraclePolicy(env)
        elif name == "random":
            policy = RandomPolicy(args.env, seed=args.seed)
        elif name == "noisy":
            policy = NoisyOraclePolicy(env, epsilon=args.epsilon, seed=args.seed)
        else:
            print(f"error: unknown policy {name!r}; choose oracle, noisy or random", file=sys.stderr)
            return 2
        results = rollout(env, policy, args.episodes, seed=args.seed, progress=not args.quiet, on_step=hook)
        print(format_summary(f"policy={name} episodes={args.episodes}", summarize(results)))
        for r in results:
            r.trajectory.meta["policy"] = name
        all_trajs.extend(r.trajectory for r in results)
    if args.out:
        write_jsonl(args.out, all_trajs)
        print(f"wrote {len(all_trajs)} trajectories to {args.out}")
    if args.save_screens:
        print(f"screenshots in {args.save_screens}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    env = _make(args.env, task=task_arg(args.task), render_mode="ansi")
    unwrapped = env.unwrapped
    hook = save_screen(args.save_screens) if args.save_screens else None
    _, info = env.reset(seed=args.seed)
    print(f"Task {info[C.TASK_ID]}: {info[C.INSTRUCTION]}")
    print("Type an action (any syntax), 'hint' for the oracle's next action, or 'quit'.")
    step = 0
    while True:
        print(env.render())
        if hook is not None:
            hook(0, step, _RgbView(unwrapped))
        try:
            line = input("action> ").strip()
        except EOFError:
            print()
            return 0
        if line in ("quit", "exit", "q"):
            return 0
        if line == "hint":
            oracle = getattr(unwrapped, "oracle_action", None)
            print(f"oracle: {oracle()}" if oracle else f"{args.env} has no oracle")
            continue
        if not line:
            continue
        _obs, reward, terminated, truncated, info = env.step(line)
        step += 1
        mark = "ok" if info[C.FORMAT_VALID] else "invalid"
        print(
            f"[{mark}] {info[C.ACTION_DESCRIPTION]}"
            + (f"  milestones: {info[C.MILESTONES]}" if info[C.MILESTONES] else "")
        )
        print(f"progress {info[C.PROGRESS]:.2f}  reward {reward}")
        if terminated or truncated:
            print(
                f"episode over: success={info[C.SUCCESS]} after {step} steps" + (" (step limit)" if truncated else "")
            )
            return 0


class _RgbView:
    """Lets the screenshot hook render an ansi-mode env."""

    def __init__(self, env: gym.Env) -> None:
        self.env = env

    def render(self):
        return self.env._screenshot()


def add_parser(sub: Any) -> None:
    p = sub.add_parser("tasks", help="list an env's tasks (default: GuiAndroid-v0)")
    add_env_arguments(p, kwargs=False)
    p.add_argument("--difficulty", choices=DIFFICULTIES)
    p.add_argument("--app")
    p.add_argument("--suite", help="one suite of the env's tasks (GuiAndroid-v0: androidworld, gui-gym)")
    p.set_defaults(func=cmd_tasks)

    p = sub.add_parser("rollout", help="run oracle / noisy / random policies and print success by tier")
    add_env_arguments(p)
    p.add_argument("--policy", default="oracle,random", help="comma-separated: oracle, noisy (ε-noisy oracle), random")
    p.add_argument("--epsilon", type=float, default=0.3, help="the noisy oracle's random-action rate (default 0.3)")
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--task", help="task id, comma-separated ids, or a tier (easy/medium/hard); default: all")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-screens", metavar="DIR", help="write a PNG per step to DIR")
    p.add_argument("--out", metavar="FILE.jsonl", help="write the trajectories as JSON Lines")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_rollout)

    p = sub.add_parser("play", help="play a task yourself in the terminal")
    add_env_arguments(p, kwargs=False)
    p.add_argument("--task")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-screens", metavar="DIR")
    p.set_defaults(func=cmd_play)
