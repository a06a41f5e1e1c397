"""The reward-shaping study's learning-curve PNGs, written under ``OUT/plots/``.

:func:`plot_setting` draws one setting (every seed, and the mean ± std of the finished ones) and
:func:`plot_overview` the mean curve of every setting (:data:`OVERVIEW_PNG`). matplotlib is
imported only when drawing, on an explicit Agg canvas.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.plot import save_png
from agents.study.data import StudyData, num
from agents.study.stats import Aggregates, SettingAggregate

__all__ = ["OVERVIEW_PNG", "plot_overview", "plot_setting"]

OVERVIEW_PNG = "overview.png"


def _curve(rows: Sequence[dict[str, Any]], key: str) -> dict[float, float]:
    """x -> value; evaluations sit after their iteration's update (x = iteration + 1), rollouts before (x = iteration).

    That is, x counts the policy updates made before the measurement, as in :mod:`agents.plot`.
    """
    shift = 1 if key.startswith("eval_") else 0
    out = {}
    for r in rows:
        v = num(r.get(key))
        if v is not None and (shift or r["iteration"] >= 0):
            out[max(float(r["iteration"]) + shift, 0.0)] = v
    return out


def _band(curves: Sequence[dict[float, float]]) -> tuple[list[float], list[float], list[float]]:
    xs = sorted({x for c in curves for x in c})
    means, stds = [], []
    for x in xs:
        vals = [c[x] for c in curves if x in c]
        means.append(statistics.fmean(vals))
        stds.append(statistics.stdev(vals) if len(vals) > 1 else 0.0)
    return xs, means, stds


def _figure(ncols: int, width: float) -> Any:
    # an explicit Agg canvas: no pyplot, so no global backend state and nothing left open
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, 4.0))
    FigureCanvasAgg(fig)
    return fig, fig.subplots(1, ncols, squeeze=False)[0]


def plot_setting(data: StudyData, a: SettingAggregate, path: Path) -> None:
    fig, axes = _figure(2, 11)
    for ax, key, title in (
        (axes[0], "eval_success_rate", "success at held-out seeds (learning-curve eval)"),
        (axes[1], "success_rate", "success of training rollouts"),
    ):
        done = []
        for run in data.runs_of(a.name):
            c = _curve(run.metrics, key)
            if not c:
                continue
            xs = sorted(c)
            ax.plot(
                xs,
                [c[x] for x in xs],
                lw=0.8,
                alpha=0.5,
                ls="-" if run.done else ":",
                label=f"seed {run.seed}" + ("" if run.done else f" ({run.status})"),
            )
            if run.done:
                done.append(c)
        if done:
            xs, m, s = _band(done)
            ax.plot(xs, m, color="black", lw=2, label=f"mean of {len(done)}")
            ax.fill_between(
                xs,
                [v - d for v, d in zip(m, s, strict=True)],
                [v + d for v, d in zip(m, s, strict=True)],
                color="black",
                alpha=0.12,
                lw=0,
            )
        else:
            ax.text(0.5, 0.5, "no finished run with this curve", ha="center", va="center", transform=ax.transAxes)
        ax.set(title=title, xlabel="policy updates (iterations completed)", ylabel="success rate", ylim=(-0.02, 1.02))
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    fig.suptitle(f"{a.label}  [{a.name}]")
    fig.tight_layout()
    save_png(fig, path)


def plot_overview(data: StudyData, agg: Aggregates, path: Path) -> None:
    import matplotlib

    fig, (ax,) = _figure(1, 9)
    cmap = matplotlib.colormaps["tab10" if len(agg.settings) <= 10 else "tab20"]
    drawn = 0
    for i, a in enumerate(agg.settings.values()):
        curves = [c for r in data.runs_of(a.name) if r.done and (c := _curve(r.metrics, "eval_success_rate"))]
        if not curves:
            continue
        xs, m, s = _band(curves)
        color = cmap(i % cmap.N)
        ax.plot(xs, m, color=color, marker="o", ms=3, label=f"{a.label} (n={len(curves)})")
        ax.fill_between(
            xs,
            [v - d for v, d in zip(m, s, strict=True)],
            [v + d for v, d in zip(m, s, strict=True)],
            color=color,
            alpha=0.12,
            lw=0,
        )
        drawn += 1
    if not drawn:
        ax.text(
            0.5,
            0.5,
            "no finished run with learning-curve evaluations",
            ha="center",
            va="center",
            transform=ax.transAxes,
        )
    ax.set(
        title="success at held-out seeds of the training tasks (mean ± std over seeds)",
        xlabel="policy updates (iterations completed)",
        ylabel="success rate",
        ylim=(-0.02, 1.02),
    )
    ax.grid(alpha=0.3)
    if drawn:
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    save_png(fig, path, bbox_inches="tight")  # the legend sits outside the axes
