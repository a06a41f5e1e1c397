"""The ``gui-gym`` command line.

::

    gui-gym tasks [--difficulty hard] [--app contacts]
    gui-gym rollout --policy oracle,random --episodes 40 [--task ID|TIER] [--save-screens DIR] [--out T.jsonl]
    gui-gym play [--task ID] [--seed 0] [--save-screens DIR]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the env ids)
from agents.policies import OraclePolicy, RandomPolicy
from agents.rollout import format_summary, rollout, save_screen, summarize
from gui_gym.android import list_tasks
from gui_gym.core.trajectory import write_jsonl


def _task_arg(value: str | None) -> str | list[str] | None:
    if value is None:
        return None
    parts = [v.strip() for v in value.split(",") if v.strip()]
    return parts[0] if len(parts) == 1 else parts


def cmd_tasks(args: argparse.Namespace) -> int:
    specs = list_tasks(difficulty=args.difficulty, app=args.app)
    width = max(len(s.id) for s in specs) if specs else 10
    print(f"{'id':<{width}}  {'app':<9} {'tier':<7}{'kind':<11}{'milestones':>10}  template")
    for s in specs:
        print(f"{s.id:<{width}}  {s.app:<9} {s.difficulty:<7}{s.kind:<11}{len(s.milestones):>10}  {s.template}")
    counts = {t: sum(s.difficulty == t for s in specs) for t in ("easy", "medium", "hard")}
    print(f"\n{len(specs)} tasks: {counts['easy']} easy, {counts['medium']} medium, {counts['hard']} hard")
    return 0


def cmd_rollout(args: argparse.Namespace) -> int:
    render_mode = "rgb_array" if args.save_screens else None
    env = gym.make("GuiAndroid-v0", task=_task_arg(args.task), render_mode=render_mode)
    hook = save_screen(args.save_screens) if args.save_screens else None
    all_trajs = []
    for name in [p.strip() for p in args.policy.split(",") if p.strip()]:
        if name == "oracle":
            policy = OraclePolicy(env)
        elif name == "random":
            policy = RandomPolicy(seed=args.seed)
        else:
            print(f"error: unknown policy {name!r}; choose oracle or random", file=sys.stderr)
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
    env = gym.make("GuiAndroid-v0", task=_task_arg(args.task), render_mode="ansi")
    unwrapped = env.unwrapped
    hook = save_screen(args.save_screens) if args.save_screens else None
    _, info = env.reset(seed=args.seed)
    print(f"Task {info['task_id']}: {info['instruction']}")
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
            print(f"oracle: {unwrapped.oracle_action()}")
            continue
        if not line:
            continue
        _obs, reward, terminated, truncated, info = env.step(line)
        step += 1
        mark = "ok" if info["format_valid"] else "invalid"
        print(
            f"[{mark}] {info['action_description']}"
            + (f"  milestones: {info['milestones']}" if info["milestones"] else "")
        )
        print(f"progress {info['progress']:.2f}  reward {reward}")
        if terminated or truncated:
            print(
                f"episode over: success={info['success']} after {step} steps" + (" (step limit)" if truncated else "")
            )
            return 0


class _RgbView:
    """Lets the screenshot hook render an ansi-mode env."""

    def __init__(self, env: gym.Env) -> None:
        self.env = env

    def render(self):
        return self.env._screenshot()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gui-gym", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("tasks", help="list the GuiAndroid-v0 tasks")
    p.add_argument("--difficulty", choices=("easy", "medium", "hard"))
    p.add_argument("--app")
    p.set_defaults(func=cmd_tasks)

    p = sub.add_parser("rollout", help="run oracle / random policies and print success by tier")
    p.add_argument("--policy", default="oracle,random", help="comma-separated: oracle, random")
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--task", help="task id, comma-separated ids, or a tier (easy/medium/hard); default: all")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-screens", metavar="DIR", help="write a PNG per step to DIR")
    p.add_argument("--out", metavar="FILE.jsonl", help="write the trajectories as JSON Lines")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_rollout)

    p = sub.add_parser("play", help="play a task yourself in the terminal")
    p.add_argument("--task")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-screens", metavar="DIR")
    p.set_defaults(func=cmd_play)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except ValueError as e:  # unknown task ids and the like: a message, not a traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
