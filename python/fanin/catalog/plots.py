"""Drawing helpers for catalog figures: the shapes the papers use, from sweep DataFrames."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes


def minmax_err(mean: Any, lo: Any, hi: Any) -> np.ndarray:
    """Error-bar lengths from the mean down to the minimum and up to the maximum. Clipped at
    zero: the mean of equal values can round one ulp past them, which matplotlib refuses."""
    return np.clip(np.vstack([np.asarray(mean) - np.asarray(lo), np.asarray(hi) - np.asarray(mean)]), 0.0, None)


def mean_minmax(ax: Axes, df: pd.DataFrame, x: str, y: str, *, label: str | None = None, **kw: Any) -> pd.DataFrame:
    """The mean of ``y`` at each ``x`` (over seeds, say) with bars from min to max.

    Returns the drawn table (``x``, mean, min, max) so a metric can use the same numbers.
    """
    g = df.groupby(x)[y].agg(["mean", "min", "max"]).reset_index()
    yerr = minmax_err(g["mean"], g["min"], g["max"])
    kw.setdefault("fmt", "o-")
    kw.setdefault("capsize", 3)
    ax.errorbar(g[x], g["mean"], yerr=yerr, label=label, **kw)
    return g


def cdf(ax: Axes, values: Sequence[float] | pd.Series | np.ndarray, *, label: str | None = None, **kw: Any) -> None:
    """Empirical CDF as a step line (the fraction of values <= x)."""
    v = np.sort(np.asarray(values, dtype=np.float64))
    if v.size:
        ax.step(v, np.arange(1, v.size + 1) / v.size, where="post", label=label, **kw)
    ax.set_ylim(0, 1.02)


def grouped_bars(
    ax: Axes, df: pd.DataFrame, group: str, bar: str, y: str, *, order: Sequence[Any] | None = None, width: float = 0.8
) -> pd.DataFrame:
    """Bars of the mean of ``y`` for each ``bar`` value, grouped by ``group``, min-max whiskers."""
    g = df.groupby([group, bar])[y].agg(["mean", "min", "max"]).reset_index()
    groups = list(dict.fromkeys(g[group]))
    bars = list(order) if order is not None else list(dict.fromkeys(g[bar]))
    w = width / max(len(bars), 1)
    for i, b in enumerate(bars):
        d = g[g[bar] == b].set_index(group).reindex(groups)
        xs = np.arange(len(groups)) + (i - (len(bars) - 1) / 2) * w
        yerr = minmax_err(d["mean"], d["min"], d["max"])
        ax.bar(xs, d["mean"], w, yerr=yerr, capsize=2, label=str(b))
    ax.set_xticks(np.arange(len(groups)), [str(x) for x in groups])
    return g


def paper_reference(ax: Axes, xs: Sequence[float], ys: Sequence[float], *, label: str = "paper", **kw: Any) -> None:
    """The paper's own values (read off its figure or text), as hollow black markers.

    Only for drawing beside fanin's: metrics and claims never read these.
    """
    kw.setdefault("marker", "D")
    kw.setdefault("ms", 5)
    ax.plot(xs, ys, ls="none", mfc="none", mec="k", label=label, **kw)
