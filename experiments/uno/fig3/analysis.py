"""Fig. 3: per-flow rates over time (300 us windows) and their fairness (Jain's index)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results
from fanin.catalog.uno import HOSTS_PER_DC, SCHEMES

FAIR_SHARE_GBPS = 100 / 8


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """One row per (window, flow) while every flow is still running: the flow's rate
    (zero in a window where it got nothing acknowledged), its class, and the window's JFI."""
    f = results.flows.set_index("flow_id")
    r = results.rates
    end_ps = int(f.loc[f["completed"], "finish_ps"].min()) if f["completed"].any() else int(r["time_ps"].max())
    times = np.sort(r["time_ps"].unique())
    times = times[times <= end_ps]
    grid = pd.MultiIndex.from_product([times, f.index], names=["time_ps", "flow_id"])
    rates = r.set_index(["time_ps", "flow_id"])["rate_bps"].reindex(grid, fill_value=0.0).reset_index()
    rates["inter"] = (f.loc[rates["flow_id"], "src"].to_numpy() // HOSTS_PER_DC) != (f.loc[rates["flow_id"], "dst"].to_numpy() // HOSTS_PER_DC)
    x = rates.groupby("time_ps")["rate_bps"]
    jfi = (x.sum() ** 2 / (x.count() * (x.apply(lambda v: (v**2).sum())))).rename("jfi")
    rates = rates.merge(jfi.reset_index(), on="time_ps")
    rates["time_ms"] = rates["time_ps"] / 1e9
    rates["rate_gbps"] = rates["rate_bps"] / 1e9
    return rates[["time_ms", "flow_id", "inter", "rate_gbps", "jfi"]]


def _jfi(df: pd.DataFrame, variant: str) -> pd.Series:
    d = df[df["variant"] == variant].drop_duplicates("time_ms").set_index("time_ms")["jfi"]
    if d.empty:
        raise ValueError(f"no rate samples for {variant}")
    return d


def uno_fair_within_100ms(df: pd.DataFrame) -> bool:
    """Uno's JFI reaches 0.9 within 100 ms and stays at or above it while all flows run."""
    j = _jfi(df, "uno")
    after = j[j.index >= 100.0]
    return bool(len(after) > 0 and (after >= 0.9).all())


def gemini_unfair_share(df: pd.DataFrame) -> float:
    """The share of Gemini's windows with JFI below 0.9."""
    return float((_jfi(df, "gemini") < 0.9).mean())


def mb_inter_intra_rate_ratio(df: pd.DataFrame) -> float:
    d = df[df["variant"] == "mprdma_bbr"]
    return float(d[d["inter"]]["rate_gbps"].mean() / d[~d["inter"]]["rate_gbps"].mean())


def mb_unfair(df: pd.DataFrame) -> bool:
    ratio = mb_inter_intra_rate_ratio(df)
    return not 0.67 <= ratio <= 1.5


def plot(df: pd.DataFrame) -> plt.Figure:
    variants = [v for v in ("gemini", "mprdma_bbr", "uno") if v in set(df["variant"])]
    fig, axes = plt.subplots(1, len(variants), figsize=(3.2 * len(variants), 2.6), sharey=True, squeeze=False)
    for ax, v in zip(axes[0], variants, strict=True):
        d = df[df["variant"] == v]
        for fid, g in d.groupby("flow_id"):
            ax.plot(g["time_ms"], g["rate_gbps"], lw=0.6, color="C0" if g["inter"].iloc[0] else "C1")
        ax.axhline(FAIR_SHARE_GBPS, color="k", ls="--", lw=0.8)
        ax.set_title(SCHEMES[v], fontsize=8)
        ax.set_xlabel("time (ms)")
        ax.set_ylim(0, 100)
    axes[0][0].set_ylabel("rate (Gb/s)\nblue inter, orange intra")
    return fig
