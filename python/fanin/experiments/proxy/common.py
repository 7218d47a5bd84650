"""Shared by the proxy paper's three figures: one row per run, and the reductions the
paper's claims are made of.

A run's incast completion time (ICT) is the engine's `incasts.ict_ps`: from t = 0 until the
source of the last inter-datacenter connection has the ACK of its last byte (the sender for
Baseline and Streamlined, proxy_S for Naive). "On average" in the paper is read as the mean
over x points of the per-point mean ICTs (spec section 3); reductions are reported both as
the mean of per-point percentages and as the mean absolute difference.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results
from fanin.catalog.plots import minmax_err

SCHEMES = ("baseline", "naive", "streamlined")
LABELS = {"baseline": "Baseline", "naive": "Proxy (Naive)", "streamlined": "Proxy (Streamlined)"}
MARKERS = {"baseline": "s", "naive": "o", "streamlined": "^"}


def run_row(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """One row per run: ICT, last byte at the receiver, loss and recovery counters."""
    inc = results.incasts
    s = results.summary
    return pd.DataFrame(
        {
            "ict_ms": [float(inc["ict_ps"].max()) / 1e9],
            "total_bytes": [int((inc["degree"] * inc["bytes_per_sender"]).sum())],
            "delivery_ms": [float(inc["last_delivery_ps"].max()) / 1e9],
            "completed": [bool(inc["completed"].all())],
            "trims": [int(s.get("trims", 0))],
            "drops": [int(s.get("drops", 0))],
            "nacks": [int(s.get("nacks", 0))],
            "proxy_nacks": [int(s.get("proxy_nacks", 0))],
            "timeouts": [int(s.get("timeouts", 0))],
            "run_wall_s": [float(s.get("wall_s", 0.0))],
        }
    )


def means(df: pd.DataFrame, x: str) -> pd.DataFrame:
    """Mean ICT over seeds: rows x, columns scheme (an incomplete run counts as infinite)."""
    ict = df["ict_ms"].where(df["completed"], np.inf)
    return df.assign(ict=ict).groupby([x, "variant"])["ict"].mean().unstack("variant")


def pct_reduction(df: pd.DataFrame, x: str, scheme: str) -> pd.Series:
    """Per x point: 100 (1 - scheme / baseline) on the seed means."""
    m = means(df, x)
    return 100.0 * (1.0 - m[scheme] / m["baseline"])


def ms_reduction(df: pd.DataFrame, x: str, scheme: str) -> pd.Series:
    m = means(df, x)
    return m["baseline"] - m[scheme]


def plot_ict(df: pd.DataFrame, x: str, xlabel: str, *, xscale: float = 1.0, log: bool = False) -> plt.Figure:
    """Mean ICT per scheme with min-max bars, as the paper's Figs. 2 and 3."""
    fig, ax = plt.subplots()
    for scheme in SCHEMES:
        g = df[df["variant"] == scheme].groupby(x)["ict_ms"]
        mean, lo, hi = g.mean(), g.min(), g.max()
        xs = np.asarray(mean.index, dtype=float) * xscale
        ax.errorbar(xs, mean, yerr=minmax_err(mean, lo, hi), fmt=MARKERS[scheme] + "-", capsize=3, ms=4, label=LABELS[scheme])
    ax.set_xlabel(xlabel)
    ax.set_ylabel("incast completion time (ms)")
    if log:
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.legend()
    return fig
