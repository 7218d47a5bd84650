"""Fig. 7: per-flow bytes in flight, pooled over every (flow, burst 2-11) pair while the
flow is active, on a 10 us grid from the burst start: mean and the p0/25/50/75/95/100
bands; a companion panel shows the total over flows / BDP. Windows are sampled every
10 us (the artifact traces every change; a 10 us grid is what the figure plots)."""

from __future__ import annotations

import matplotlib.pyplot as plt

from fanin.imc24 import analysis


derive = {"summary": analysis.inflight_summary, "bands": analysis.inflight_bands}


def p100_over_p50(data) -> float:
    s = data["summary"]
    return float((s["mid_p100_bytes"] / s["mid_p50_bytes"]).median())


def end_over_mid_mean(data) -> float:
    s = data["summary"]
    return float((s["end_mean_bytes"] / s["mid_mean_bytes"]).median())


def plot(data):
    b = data["bands"].groupby("t_us").mean(numeric_only=True)
    t = b.index / 1e3
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(8, 2.8))
    ax.fill_between(t, b["p0_kb"], b["p100_kb"], color="C0", alpha=0.12, lw=0, label="p0-p100")
    ax.fill_between(t, b["p25_kb"], b["p95_kb"], color="C0", alpha=0.25, lw=0, label="p25-p95")
    ax.plot(t, b["p50_kb"], color="C0", lw=0.6, ls="--", label="p50")
    ax.plot(t, b["p75_kb"], color="C0", lw=0.6, ls=":", label="p75")
    ax.plot(t, b["mean_kb"], color="k", lw=0.9, label="mean")
    ax.set_xlabel("time since burst start (ms)")
    ax.set_ylabel("bytes in flight per flow (KB)")
    ax.legend(fontsize=6, ncol=2)
    ax2.plot(t, b["total_over_bdp"], color="C1", lw=0.8)
    ax2.set_xlabel("time since burst start (ms)")
    ax2.set_ylabel("total in flight / BDP")
    return fig
