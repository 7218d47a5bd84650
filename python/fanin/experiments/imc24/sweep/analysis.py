"""The sweep over N: share of burst time with the queue at or above K, BCT and
throughput per burst (N x B x 8 / BCT), and each burst's mode.

The claim "the share rises with N" is checked as: the per-N share (median over seeds)
never falls by more than 0.02 from one N to the next; the knee is the first N whose share
exceeds 0.85. Both rules were fixed before any run."""

from __future__ import annotations

from pathlib import Path
import matplotlib.pyplot as plt
import pandas as pd

from fanin.imc24 import analysis
from fanin.sweep import load_module

common = load_module(Path(__file__).parent.parent / "common.py", "imc24_common")

MONOTONE_SLACK = 0.02
KNEE_SHARE = 0.85


derive = analysis.burst_table


def per_n(data: pd.DataFrame, column: str) -> pd.Series:
    d = data[data["measured"]]
    return d.groupby(["N", "seed"])[column].mean().groupby(level=0).median()


def share_rises_with_n(data) -> bool:
    s = per_n(data, "share_at_or_above_k")
    return bool((s.diff().dropna() >= -MONOTONE_SLACK).all())


def knee_n(data) -> float:
    s = per_n(data, "share_at_or_above_k")
    above = s[s > KNEE_SHARE]
    return float(above.index[0]) if len(above) else float("nan")


def throughput_gbps_1000(data) -> float:
    return float(per_n(data, "throughput_gbps").loc[1000])


def plot(data):
    fig, (a, b) = plt.subplots(1, 2, figsize=(8, 2.8))
    s = per_n(data, "share_at_or_above_k")
    a.plot(s.index, s.values, "o-", ms=3)
    a.axhline(KNEE_SHARE, ls=":", color="k", lw=0.8)
    a.set_xlabel("flows N")
    a.set_ylabel("share of burst time with queue >= K")
    bct = per_n(data, "bct_ms")
    b.plot(bct.index, bct.values, "o-", ms=3)
    b.set_xlabel("flows N")
    b.set_ylabel("burst completion time (ms)")
    b.set_yscale("log")
    return fig
