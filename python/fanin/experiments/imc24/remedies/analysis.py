"""Section 5's remedies that the artifact made concrete, on the 500- and 1000-flow
incasts: a static receive-window clamp (4 KB), the clamp at BDP / N (`bdp+connections`),
the 20-token receiver scheduler (64 KB windows), and DCTCP with g = 1/4. The paper reports
no numbers for them; the table shows what each does in fanin."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from fanin.imc24 import analysis

REMEDIES = ["baseline", "static_4KB", "bdp_connections", "scheduled_20", "g_quarter"]


derive = analysis.burst_table


def table(data: pd.DataFrame) -> pd.DataFrame:
    """Per remedy and N: mean over measured bursts and seeds of BCT, timeouts, drops, mean queue."""
    d = data[data["measured"]].copy()
    d[["remedy", "N"]] = d["variant"].str.split("@", expand=True)
    d["N"] = d["N"].astype(int)
    return d.groupby(["remedy", "N"])[["bct_ms", "timeouts", "drops", "mean_queue", "median_start_cwnd_mss"]].mean()


def _at(data, remedy: str, n: int, column: str) -> float:
    return float(table(data).loc[(remedy, n), column])


def timeouts_1000_baseline(data) -> float:
    return _at(data, "baseline", 1000, "timeouts")


def timeouts_1000_scheduled(data) -> float:
    return _at(data, "scheduled_20", 1000, "timeouts")


def scheduler_only_fix_at_1000(data) -> bool:
    """Of the remedies, the scheduler alone leaves no timeout at 1000 flows."""
    t = table(data).xs(1000, level="N")["timeouts"]
    return bool(t["scheduled_20"] == 0 and (t.drop(["scheduled_20"]) > 0).all())


def queue_500_static_over_baseline(data) -> float:
    return _at(data, "static_4KB", 500, "mean_queue") / _at(data, "baseline", 500, "mean_queue")


def bct_1000_scheduled(data) -> float:
    return _at(data, "scheduled_20", 1000, "bct_ms")


def plot(data):
    t = table(data)
    fig, axes = plt.subplots(1, 2, figsize=(8, 2.8))
    for ax, col, label in ((axes[0], "bct_ms", "BCT (ms)"), (axes[1], "mean_queue", "mean queue (packets)")):
        w = t[col].unstack("N").reindex(REMEDIES)
        w.plot.bar(ax=ax, rot=30, fontsize=7)
        ax.set_ylabel(label)
        ax.set_xlabel("")
    axes[0].set_yscale("log")
    return fig
