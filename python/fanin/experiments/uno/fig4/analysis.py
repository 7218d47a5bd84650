"""Fig. 4: the receiver port's queue and the small flows' FCT, phantom marking on or off."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results

SMALL_BYTES = 100_000


def derive_summary(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    f = results.flows
    small = f[(f["size_bytes"] < SMALL_BYTES) & f["completed"]]
    fct_us = small["fct_ps"].astype(float) / 1e6
    q = results.queues
    return pd.DataFrame(
        {
            "small_flows": [len(f[f["size_bytes"] < SMALL_BYTES])],
            "small_completed": [len(small)],
            "mean_small_fct_us": [float(fct_us.mean()) if len(small) else np.nan],
            "p99_small_fct_us": [float(np.percentile(fct_us, 99)) if len(small) else np.nan],
            "median_queue_bytes": [float(q["bytes"].median())],
        }
    )


def derive_series(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    q = results.queues
    cols = {"time_ms": q["time_ps"] / 1e9, "queue_mib": q["bytes"] / 2**20, "phantom_mib": q["phantom_bytes"] / 2**20}
    return pd.DataFrame(cols).iloc[::10]


derive = {"summary": derive_summary, "series": derive_series}


def _s(data: dict[str, pd.DataFrame], variant: str, col: str) -> float:
    d = data["summary"]
    return float(d[d["variant"] == variant][col].mean())


def mean_small_fct_ratio(data: dict[str, pd.DataFrame]) -> float:
    return _s(data, "physical", "mean_small_fct_us") / _s(data, "phantom", "mean_small_fct_us")


def p99_small_fct_ratio(data: dict[str, pd.DataFrame]) -> float:
    return _s(data, "physical", "p99_small_fct_us") / _s(data, "phantom", "p99_small_fct_us")


def median_queue_share(data: dict[str, pd.DataFrame]) -> float:
    """Median ToR -> 240 occupancy with phantom marking, as a share of the one without."""
    return _s(data, "phantom", "median_queue_bytes") / _s(data, "physical", "median_queue_bytes")


def plot(data: dict[str, pd.DataFrame]) -> dict[str, plt.Figure]:
    s = data["series"]
    out = {}
    for v in ("physical", "phantom"):
        fig, ax = plt.subplots(figsize=(4, 2.4))
        d = s[s["variant"] == v]
        ax.plot(d["time_ms"], d["queue_mib"], lw=0.8, label="physical queue")
        if v == "phantom":
            ax.plot(d["time_ms"], d["phantom_mib"], lw=0.8, label="phantom queue")
        ax.set_xlabel("time (ms)")
        ax.set_ylabel("ToR -> 240 queue (MiB)")
        ax.legend(fontsize=6)
        out[v] = fig
    fig, ax = plt.subplots(figsize=(3.2, 2.4))
    summ = data["summary"]
    for i, stat in enumerate(("mean_small_fct_us", "p99_small_fct_us")):
        for j, v in enumerate(("physical", "phantom")):
            ax.bar(i + (j - 0.5) * 0.4, summ[summ["variant"] == v][stat].mean(), 0.4, color=f"C{j}", label=v if i == 0 else None)
    ax.set_xticks([0, 1], ["mean", "p99"])
    ax.set_ylabel("FCT of flows < 100 kB (µs)")
    ax.legend(fontsize=6)
    out["fct"] = fig
    return out
