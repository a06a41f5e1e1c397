"""``gui-gym calibrate-matcher``: the milestone matcher's accuracy against its threshold δ.

::

    gui-gym calibrate-matcher [--pairs FILE.jsonl] [--env ENV_ID] [--mode all|guarded|cosine]
                              [--deltas 0.30:0.95:0.05] [--split all|calib|heldout] [--plot FILE.png]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "cmd_calibrate_matcher"]


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
            matcher = SemanticMatcher(model=args.model, mode=mode, vocabulary=args.env or None)
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


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "calibrate-matcher",
        help="sweep the milestone-matching threshold δ on labelled pairs (ADMIRE App. B.4.2, Fig. 9)",
        description="Accuracy of the semantic matcher against the threshold δ on a JSONL of "
        "milestone / action / label rows (default: the set shipped with gui-gym, drawn from the simulator).",
    )
    p.add_argument("--pairs", metavar="FILE.jsonl", help="labelled pairs (default: the shipped set)")
    p.add_argument(
        "--env",
        default="GuiAndroid-v0",
        metavar="ENV_ID",
        help="whose family's words the guarded matcher uses (default: GuiAndroid-v0; '' for the world-free rules)",
    )
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
