"""Fig. 1B: the share of a message's completion time that is propagation delay.

The paper's model: a message of S bytes over a path of round-trip time RTT at B = 400 Gb/s
completes in RTT + 8 S / B, of which RTT is propagation; the share is
100 * RTT / (RTT + 8 S / B). The curve crosses 50% where 8 S / B = RTT.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

LINK_BPS = 400e9
RTTS_S = {"10 us": 10e-6, "20 us": 20e-6, "40 us": 40e-6, "1 ms": 1e-3, "10 ms": 10e-3, "20 ms": 20e-3}
KIB = 1024
SIZES = 2.0 ** np.arange(15, 37)  # 32 KiB ... 64 GiB, the paper's x axis


def propagation_share_percent(rtt_s: float, size_bytes: np.ndarray | float) -> np.ndarray | float:
    return 100.0 * rtt_s / (rtt_s + np.asarray(size_bytes) * 8.0 / LINK_BPS)


def crossover_bytes(rtt_s: float) -> float:
    """The size at which propagation is half the completion time, by bisection on the curve
    (in log space), so the claim checks the plotted function rather than restating it."""
    lo, hi = 1.0, 1e15
    for _ in range(200):
        mid = float(np.sqrt(lo * hi))
        if propagation_share_percent(rtt_s, mid) > 50.0:
            lo = mid
        else:
            hi = mid
    return float(np.sqrt(lo * hi))


def crossover_20ms(_: pd.DataFrame) -> float:
    return crossover_bytes(RTTS_S["20 ms"])


def crossover_10us(_: pd.DataFrame) -> float:
    return crossover_bytes(RTTS_S["10 us"])


def crossover_20ms_gib(_: pd.DataFrame) -> float:
    return crossover_bytes(RTTS_S["20 ms"]) / KIB**3


def intra_crossover_kib(_: pd.DataFrame) -> float:
    """Where the 10 us curve (the shortest intra-DC RTT) becomes throughput-dominated;
    the 20 and 40 us curves cross later."""
    return crossover_bytes(RTTS_S["10 us"]) / KIB


def alibaba_inter_dc_latency_bound(_: pd.DataFrame) -> bool:
    """Every inter-DC message of the Alibaba traces (< 300 MB) is latency-bound at 20 ms."""
    return bool(propagation_share_percent(RTTS_S["20 ms"], 300e6) > 50.0)


def plot(_: pd.DataFrame) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5, 3))
    for label, rtt in RTTS_S.items():
        style = "--" if rtt < 1e-3 else "-"
        ax.plot(SIZES, propagation_share_percent(rtt, SIZES), style, label=f"RTT {label}")
    ax.axhline(50, color="k", lw=0.6, ls=":")
    ax.set_xscale("log", base=2)
    ticks = SIZES[::3]
    ax.set_xticks(ticks)
    ax.set_xticklabels([_size_label(s) for s in ticks], rotation=30)
    ax.set_xlabel("message size")
    ax.set_ylabel("propagation share of\ncompletion time (%)")
    ax.set_ylim(0, 100)
    ax.legend(fontsize=6, ncol=2)
    return fig


def _size_label(s: float) -> str:
    for unit, scale in (("GiB", KIB**3), ("MiB", KIB**2), ("KiB", KIB)):
        if s >= scale:
            return f"{s / scale:g} {unit}"
    return f"{s:g} B"
