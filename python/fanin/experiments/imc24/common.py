"""Helpers the IMC '24 figures share: seed medians and the standard queue plot.

Each figure's ``analysis.py`` loads this file by path (figures are loaded by file, not as
a package). Claims are checked on the median over seeds of per-seed values, each the mean
over the measured bursts (2-11), as the spec asks ("pass = the median of 5 seeds").
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.imc24 import K_PKTS

CAPACITY_PKTS = 1334


def measured(bursts: pd.DataFrame, **where: Any) -> pd.DataFrame:
    """The measured bursts (2-11) of the runs matching ``where`` (label = value)."""
    d = bursts[bursts["measured"]]
    for k, v in where.items():
        d = d[d[k] == v]
    if d.empty:
        raise ValueError(f"no measured bursts for {where}")
    return d


def seed_median(bursts: pd.DataFrame, column: str, how: str = "mean", **where: Any) -> float:
    """Median over seeds of the per-seed ``how`` (mean, max, min, median) over bursts."""
    d = measured(bursts, **where)
    return float(d.groupby("seed")[column].agg(how).median())


def queue_plot(grid: pd.DataFrame, panels: list[tuple[str, dict[str, Any]]], xmax_ms: float | None = None):
    """Queue-disc length vs time from the burst start, one panel per (title, labels), with
    K dashed and the capacity dotted when the maximum exceeds half of it."""
    fig, axes = plt.subplots(1, len(panels), figsize=(4 * len(panels), 2.8), squeeze=False)
    for ax, (title, where) in zip(axes[0], panels, strict=True):
        g = grid
        for k, v in where.items():
            g = g[g[k] == v]
        # The grid of each seed, averaged over seeds (runs have equal grids up to their length).
        m = g.groupby("t_us")["packets"].mean()
        ax.plot(m.index / 1e3, m.values, lw=0.8, color="C0")
        ax.axhline(K_PKTS, ls="--", color="k", lw=0.8, label=f"K = {K_PKTS}")
        if len(m) and m.max() > CAPACITY_PKTS / 2:
            ax.axhline(CAPACITY_PKTS, ls=":", color="k", lw=0.8, label="capacity")
        ax.set_title(title)
        ax.set_xlabel("time since burst start (ms)")
        if xmax_ms:
            ax.set_xlim(0, xmax_ms)
        ax.set_ylim(bottom=0)
    axes[0][0].set_ylabel("queue length (packets)")
    axes[0][0].legend(loc="upper right", fontsize=7)
    return fig


def finite(x: float) -> float:
    return x if np.isfinite(x) else float("nan")
