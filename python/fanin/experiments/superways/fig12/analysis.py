"""Fig. 12: extra links from the incast servers to spines (Superways) against the same capacity
to other racks' leaves: p99 short-flow FCT and long-flow throughput, each averaged over seeds,
degrees and loads. The runs and their reduction are Figs. 6-9's (the same derive)."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.sweep import load_module

figs6_9 = load_module(Path(__file__).parent.parent / "fig6_9" / "analysis.py", "fanin_catalog_superways_fig6_9")
derive = figs6_9.derive
SERIES = {"superways_leaf_spine": "to spines (3 x 40G)", "to_leaves": "to leaves (12 x 10G)"}


def _mean(df: pd.DataFrame, variant: str, col: str) -> float:
    t = figs6_9.table(df)
    return float(t[t["variant"] == variant][col].mean())


def spine_over_leaf_p99(df: pd.DataFrame) -> float:
    return _mean(df, "superways_leaf_spine", "p99_ms") / _mean(df, "to_leaves", "p99_ms")


def spine_over_leaf_throughput(df: pd.DataFrame) -> float:
    return _mean(df, "superways_leaf_spine", "long_gbps") / _mean(df, "to_leaves", "long_gbps")


def plot(df: pd.DataFrame) -> plt.Figure:
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    x = np.arange(len(SERIES))
    for ax, (col, label) in zip(axes, (("p99_ms", "p99 FCT, short flows (ms)"), ("long_gbps", "throughput, long flows (Gb/s)")), strict=True):
        ax.bar(x, [_mean(df, v, col) for v in SERIES], 0.6)
        ax.set_xticks(x, list(SERIES.values()), fontsize=8)
        ax.set_ylabel(label)
    return fig
