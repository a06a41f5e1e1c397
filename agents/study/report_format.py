"""The study report's Markdown formatting: percentages, p-values, intervals, table cells and tables.

Shared by :mod:`agents.study.report` and :mod:`agents.study.report_significance`. A missing value
is a dash (:data:`DASH`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from agents.study.stats import SettingAggregate, Stat

__all__ = [
    "DASH",
    "bold_best",
    "duration",
    "interval",
    "md_table",
    "n_cell",
    "p_value",
    "pct",
    "plain",
    "pp",
    "shorten",
]

DASH = "—"


def pct(st: Stat, signed: bool = False) -> str:
    """``"41.7 ± 5.9"`` in percent; a single seed shows no ±, none shows a dash."""
    if st.mean is None:
        return DASH
    m = f"{100 * st.mean:+.1f}" if signed else f"{100 * st.mean:.1f}"
    return m if st.std is None else f"{m} ± {100 * st.std:.1f}"


def plain(st: Stat, digits: int = 2, signed: bool = False) -> str:
    if st.mean is None:
        return DASH
    m = f"{st.mean:+.{digits}f}" if signed else f"{st.mean:.{digits}f}"
    return m if st.std is None else f"{m} ± {st.std:.{digits}f}"


def p_value(p: float | None) -> str:
    if p is None:
        return "n/a"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def _cell(text: Any) -> str:
    """Table-safe text: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def shorten(text: str, width: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def md_table(header: Sequence[str], rows: Iterable[Sequence[Any]], align: str | None = None) -> list[str]:
    """GitHub Markdown table; ``align`` is one of l/r per column (default: first left, rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    lines = [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "| " + " | ".join("---:" if a == "r" else ":---" for a in align) + " |",
    ]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def n_cell(a: SettingAggregate) -> str:
    text = f"{a.finished}/{a.runs}"
    if a.shortfall:
        text += " (" + ", ".join(f"{n} {why}" for why, n in sorted(a.shortfall.items())) + ")"
    return text


def duration(s: float | None) -> str:
    if s is None:
        return DASH
    if s < 120:
        return f"{s:.0f} s"
    h, rem = divmod(round(s), 3600)
    return f"{h} h {rem // 60:02d} min" if h else f"{rem // 60} min {rem % 60:02d} s"


def bold_best(cells: list[list[str]], values: list[list[float | None]], cols: Sequence[int]) -> None:
    """Bold each column's highest mean (ADMIRE's convention) when at least two rows have one."""
    for c in cols:
        col = [v[c] for v in values]
        present = [v for v in col if v is not None]
        if len(present) < 2 or max(present) == min(present):
            continue
        for r, v in enumerate(col):
            if v is not None and math.isclose(v, max(present)):
                cells[r][c] = f"**{cells[r][c]}**"


def pp(d: float | None) -> str:
    """A difference in percentage points, signed; one that rounds to zero reads +0.0, never -0.0."""
    return DASH if d is None else f"{round(100 * d, 1) + 0.0:+.1f}"


def interval(c: tuple[float, float] | None) -> str:
    return DASH if c is None else f"[{100 * c[0]:+.1f}, {100 * c[1]:+.1f}]"
