"""Learning curves of one or more training runs from their ``metrics.jsonl``.

``gui-gym plot runs/a runs/b -o curves.png`` draws, per run: training and held-out success
rate, every reward component (mean per-step value), and the mean episode length.
"""

from __future__ import annotations

import io
import logging
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gui_gym.core.io import read_jsonl_records

log = logging.getLogger(__name__)

__all__ = ["plot_runs", "read_metrics"]

#: The columns the plot reads besides ``iteration`` (and every ``reward_*``): numbers or null.
PLOTTED = ("success_rate", "eval_success_rate", "mean_length")


def save_png(fig: Any, path: str | Path, dpi: int = 100, **kwargs: Any) -> None:
    """Save a matplotlib figure as a 256-colour PNG: line plots read the same, and the file is
    about a third of matplotlib's truecolour one (studies commit their plots)."""
    from PIL import Image

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, **kwargs)
    buf.seek(0)
    with Image.open(buf) as im:
        im.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(path, format="PNG", optimize=True)


def _row(value: Any) -> dict[str, Any]:
    """A metrics row as the plot reads it; ValueError on a row it could not draw."""
    if not isinstance(value, dict):
        raise ValueError(f"a metrics row must be an object, not a JSON {type(value).__name__}")
    it = value.get("iteration")
    if not isinstance(it, int) or isinstance(it, bool):
        raise ValueError(f"a metrics row needs an integer iteration, not {it!r}")
    row = {"iteration": it}
    for k, v in value.items():
        if k in PLOTTED or k.startswith("reward_"):
            if v is None:
                continue  # not measured this iteration
            if not isinstance(v, int | float) or isinstance(v, bool) or math.isinf(v):
                raise ValueError(f"{k} must be a number, not {v!r}")
            row[k] = v
    return row


def read_metrics(run: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The rows of ``RUN/metrics.jsonl`` (or of a finished study run's ``metrics.jsonl.gz``; a file
    path works too, gzipped when its name ends in ``.gz``), with the columns the plot reads.

    A bad line (not JSON, no integer ``iteration``, a plotted column that is not a number) is
    reported with ``file:line`` and skipped, and the skipped lines are counted; a file with
    lines but no good one raises :class:`~gui_gym.core.io.CorruptFileError` (a ValueError).
    """
    hint = f"is {run} a gui-gym train run directory?"
    return read_jsonl_records(_metrics_path(run), "metrics row", _row, report=log, missing_hint=hint)


def _metrics_path(run: str | os.PathLike[str]) -> Path:
    path = Path(run)
    if not path.is_dir():
        return path
    plain = path / "metrics.jsonl"
    packed = path / "metrics.jsonl.gz"  # a finished study run's (agents.study.runner.pack_run)
    return packed if not plain.exists() and packed.is_file() else plain


def plot_runs(runs: Sequence[str | os.PathLike[str]], out: str | os.PathLike[str], labels: Sequence[str] | None = None):
    """Draw the learning curves of ``runs`` into ``out`` (PNG/PDF/SVG by extension); returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if not runs:
        raise ValueError("give at least one run directory")
    labels = list(labels) if labels else [Path(r).name or str(r) for r in runs]
    if len(labels) != len(runs):
        raise ValueError(f"{len(runs)} runs but {len(labels)} labels")
    data = [read_metrics(r) for r in runs]
    if empty := [str(_metrics_path(r)) for r, rows in zip(runs, data, strict=True) if not rows]:
        raise ValueError(f"no metrics rows yet in {', '.join(empty)}: nothing to plot")
    comps = sorted({k for rows in data for row in rows for k in row if k.startswith("reward_")})
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    ax_s, ax_r, ax_l = axes
    for label, rows, color in zip(labels, data, plt.rcParams["axes.prop_cycle"].by_key()["color"] * 10, strict=False):
        train = [r for r in rows if "success_rate" in r and r["iteration"] >= 0]
        evals = [r for r in rows if "eval_success_rate" in r]
        if train:
            ax_s.plot([r["iteration"] for r in train], [r["success_rate"] for r in train], color=color, alpha=0.35,
                      label=f"{label} (train)")  # fmt: skip
        if evals:
            ax_s.plot([max(r["iteration"] + 1, 0) for r in evals], [r["eval_success_rate"] for r in evals],
                      color=color, marker="o", label=f"{label} (held-out)")  # fmt: skip
        for style, k in zip(("-", "--", ":", "-."), comps, strict=False):
            pts = [(r["iteration"], r[k]) for r in train if k in r]
            if pts:
                ax_r.plot(*zip(*pts, strict=True), linestyle=style, color=color, label=f"{label} {k[7:]}")
        pts = [(r["iteration"], r["mean_length"]) for r in train if "mean_length" in r]
        if pts:
            ax_l.plot(*zip(*pts, strict=True), color=color, label=label)
    ax_s.set(title="success rate", xlabel="iteration", ylim=(-0.02, 1.02))
    ax_r.set(title="reward components (mean per step)", xlabel="iteration")
    ax_l.set(title="mean episode length", xlabel="iteration", ylabel="steps")
    for ax in axes:
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    save_png(fig, out, dpi=110)
    plt.close(fig)
    return fig
