"""Prediction of the flow count (IMC '24 section 3.3) against the oracle: BDP / N windows
paced below one segment, N either this burst's own count (`bdp+connections`, which the
artifact's receiver knows) or the p99 of the earlier bursts' counts (`predicted`), when
each burst a random half to all of the connections answer. The p99 is at least the
count of most bursts, so its windows are smaller: safe, and slower."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from fanin.imc24 import analysis

COLUMNS = ["degree", "bct_ms", "slowdown", "drops", "timeouts", "mean_queue"]


def derive(results, point=None) -> pd.DataFrame:
    """The burst table with each burst's flow count and its BCT over the ideal for it."""
    t = analysis.burst_table(results, point)
    t["degree"] = results.table("bursts")["degree"].to_numpy()
    t["slowdown"] = t["bct_ms"] / t["min_bct_ms"]
    return t


def table(data: pd.DataFrame) -> pd.DataFrame:
    """Per variant and N: means over measured bursts and seeds."""
    d = data[data["measured"]].astype({"drops": float, "timeouts": float})
    return d.groupby(["variant", "N"])[COLUMNS].mean()


def at(data, variant: str, n: int, column: str) -> float:
    return float(table(data).loc[(variant, n), column])


def plot(data):
    t = table(data)
    fig, axes = plt.subplots(1, 2, figsize=(8, 2.8))
    for ax, (col, label) in zip(axes, (("slowdown", "BCT / ideal BCT"), ("timeouts", "timeouts per burst")), strict=True):
        for i, variant in enumerate(t.index.get_level_values("variant").unique()):
            s = t.xs(variant, level="variant")[col]
            ax.plot(s.index, s.values, marker="o", ms=3, color=f"C{i}", label=variant)
        ax.set_xscale("log")
        ax.set_xlabel("connections (N; N/2 to N answer)")
        ax.set_ylabel(label)
    axes[0].legend(fontsize=7)
    return fig
