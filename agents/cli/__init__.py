"""The ``gui-gym`` command line.

::

    gui-gym tasks [--difficulty hard] [--app contacts]
    gui-gym rollout --policy oracle,random --episodes 40 [--task ID|TIER] [--save-screens DIR] [--out T.jsonl]
    gui-gym play [--task ID] [--seed 0] [--save-screens DIR]
    gui-gym progrm synth|label|train|eval ...   (see agents/progrm_cli.py)
    gui-gym train [--preset quick] [--algo grpo|rloo|dapo|reinforce++|adagrpo|ppo] [--reward milestone+spa] ...
    gui-gym plot RUN_DIR... [-o curves.png]       (see agents/train_cli.py)
    gui-gym study [--mode quick|full] [--out DIR] [--settings a,b] [--seeds 0,1,2] [--report-only]
    gui-gym calibrate-matcher [--pairs FILE.jsonl] [--mode all|guarded|cosine] [--deltas 0.30:0.95:0.05]
                              [--split all|calib|heldout] [--plot FILE.png]
"""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import gymnasium as gym

import gui_gym  # noqa: F401  (registers the env ids)
from agents import progrm_cli, train_cli
from agents.policies import NoisyOraclePolicy, OraclePolicy, RandomPolicy
from agents.rollout import format_summary, rollout, save_screen, summarize
from agents.study import cli as study_cli
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


def _deltas_arg(value: str) -> list[float]:
    """``START:STOP:STEP`` (inclusive) or a comma-separated list of thresholds."""
    try:
        if ":" in value:
            start, stop, step = (float(x) for x in value.split(":"))
            if step <= 0 or stop < start:
                raise ValueError
            n = round((stop - start) / step)
            out = [round(start + i * step, 6) for i in range(n + 1)]
        else:
            out = [float(x) for x in value.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected START:STOP:STEP (e.g. 0.30:0.95:0.05) or a comma-separated list, got {value!r}"
        ) from None
    if not out or not all(-1.0 <= d <= 1.0 for d in out):
        raise argparse.ArgumentTypeError(f"thresholds must lie in [-1, 1], got {value!r}")
    return out


def cmd_calibrate_matcher(args: argparse.Namespace) -> int:
    """Sweep δ over a labelled milestone/action JSONL and report the accuracy (ADMIRE App. B.4.2, Fig. 9)."""
    import numpy as np

    from gui_gym.android.matching_pairs import DATA_PATH, PairsFileError, load_pairs
    from wrappers.matching import MODES, SemanticMatcher, accuracy, best_delta

    path = args.pairs or str(DATA_PATH)
    try:
        rows = load_pairs(path, warn=lambda msg: print(f"warning: {msg}", file=sys.stderr))
    except (PairsFileError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.split != "all":
        rows = [r for r in rows if r.get("split") == args.split]
        if not rows:
            print(f"error: no rows with split {args.split!r} in {path}", file=sys.stderr)
            return 2
    labels = np.array([r["label"] for r in rows], dtype=int)
    halves = {r.get("split") for r in rows}
    modes = list(MODES[::-1]) if args.mode == "all" else [args.mode]
    n_pos = int(labels.sum())
    print(f"{len(rows)} pairs from {path}: {n_pos} positive, {len(rows) - n_pos} negative")
    if n_pos in (0, len(rows)):
        print("note: only one class: accuracy is the share on the right side of δ", file=sys.stderr)
    deltas = args.deltas
    curves: dict[str, list[float]] = {}
    defaults: dict[str, float] = {}
    summary = []
    for mode in modes:
        try:
            matcher = SemanticMatcher(model=args.model, mode=mode)
            scores = matcher.pair_scores(
                [r["action"] for r in rows], [r["milestone"] for r in rows], progress=not args.quiet
            )
        except (ImportError, OSError, ValueError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        curves[mode] = [accuracy(scores, labels, d) for d in deltas]
        defaults[mode] = matcher.delta
        d_best, a_best = best_delta(scores, labels, deltas)
        at_default = accuracy(scores, labels, matcher.delta)
        line = (
            f"{mode}: best delta {d_best:.2f} (accuracy {a_best:.3f}); "
            f"default delta {matcher.delta:.2f} (accuracy {at_default:.3f})"
        )
        if {"calib", "heldout"} <= halves:
            cal = np.array([r.get("split") == "calib" for r in rows])
            hel = np.array([r.get("split") == "heldout" for r in rows])
            d_cal, a_cal = best_delta(scores[cal], labels[cal], deltas)
            line += (
                f"; delta {d_cal:.2f} chosen on the calib half ({cal.sum()} pairs, {a_cal:.3f}) "
                f"gives {accuracy(scores[hel], labels[hel], d_cal):.3f} on the held-out half ({hel.sum()} pairs)"
            )
        summary.append(line)
    print()
    print("delta  " + "  ".join(f"{m:>8}" for m in modes))
    for i, d in enumerate(deltas):
        print(f"{d:5.2f}  " + "  ".join(f"{curves[m][i]:8.3f}" for m in modes))
    print()
    for line in summary:
        print(line)
    if args.plot:
        try:
            _plot_calibration(args.plot, deltas, curves, defaults, title=f"{len(rows)} pairs: {Path(path).name}")
        except ImportError:
            print("error: --plot needs matplotlib: pip install matplotlib", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"error: cannot write the plot: {e}", file=sys.stderr)
            return 2
        print(f"plot: {args.plot}")
    return 0


def _plot_calibration(
    path: str, deltas: Sequence[float], curves: dict[str, list[float]], defaults: dict[str, float], title: str
) -> None:
    """Accuracy against δ, one curve per mode, like ADMIRE's Fig. 9 (top); dashed: each mode's default δ."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.0), dpi=100)
    for mode, acc in curves.items():
        (line,) = ax.plot(deltas, [100 * a for a in acc], marker="o", label=f"{mode} (default δ {defaults[mode]:.2f})")
        ax.axvline(defaults[mode], color=line.get_color(), linestyle="--", alpha=0.5)
        i = max(range(len(acc)), key=acc.__getitem__)
        ax.annotate(
            f"{100 * acc[i]:.1f}%", (deltas[i], 100 * acc[i]), textcoords="offset points", xytext=(0, 6), ha="center"
        )
    ax.set_xlabel("similarity threshold δ")
    ax.set_ylabel("matching accuracy (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    try:
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)


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

    p = sub.add_parser("rollout", help="run oracle / noisy / random policies and print success by tier")
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
    p.add_argument("--task")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save-screens", metavar="DIR")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "calibrate-matcher",
        help="sweep the milestone-matching threshold δ on labelled pairs (ADMIRE App. B.4.2, Fig. 9)",
        description="Accuracy of the semantic matcher against the threshold δ on a JSONL of "
        "milestone / action / label rows (default: the set shipped with gui-gym, drawn from the simulator).",
    )
    p.add_argument("--pairs", metavar="FILE.jsonl", help="labelled pairs (default: the shipped set)")
    p.add_argument("--mode", choices=("all", "guarded", "cosine"), default="all", help="matcher mode (default: all)")
    p.add_argument(
        "--deltas",
        type=_deltas_arg,
        default=_deltas_arg("0.30:0.95:0.05"),
        metavar="START:STOP:STEP",
        help="thresholds to try, or a comma-separated list (default: 0.30:0.95:0.05)",
    )
    p.add_argument("--split", choices=("all", "calib", "heldout"), default="all", help="use only one half of the set")
    p.add_argument("--plot", metavar="FILE.png", help="save the accuracy-vs-δ curves as a PNG")
    p.add_argument("--model", metavar="DIR", help="a local sentence-transformers model (default: all-MiniLM-L6-v2)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_calibrate_matcher)

    progrm_cli.add_parser(sub)
    train_cli.add_parser(sub)
    study_cli.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if not logging.getLogger().handlers:  # library warnings (corrupt lines, missing recipes) reach the user
        logging.basicConfig(level=logging.WARNING, format="warning: %(message)s")
    try:
        return args.func(args)
    except (FileNotFoundError, FileExistsError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # unknown task ids and the like: a message, not a traceback
        print(f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
