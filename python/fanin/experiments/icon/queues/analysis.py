"""Fig. 9: the queue (packets) each arrival finds at leaf0's host-facing ports, pooled over
the ports and seeds, per scheme and buffer size."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.icon import analysis as icon

derive = icon.derive_arrival_queues
BUFFER = "200pkt"  # the paper's setting (spec §2); the others are the sweep of §4.3


def p99(df: pd.DataFrame, variant: str, buffer: str = BUFFER) -> float:
    return icon.queue_quantile(df[(df["variant"] == variant) & (df["buffer"] == buffer)], 0.99)


def table(df: pd.DataFrame) -> pd.DataFrame:
    rows = [
        {"variant": v, "buffer": b, **{f"p{q}": icon.queue_quantile(h, q / 100) for q in (50, 90, 99)}}
        for (v, b), h in df.groupby(["variant", "buffer"])
    ]
    return pd.DataFrame(rows)


def icon_p99_below_baselines(df: pd.DataFrame, scheme: str = "icon", buffer: str = BUFFER) -> float:
    """ICON's p99 queue over the smaller of DCTCP's and ICTCP's (below 1: ICON's is shorter)."""
    return p99(df, scheme, buffer) / float(np.min([p99(df, "dctcp", buffer), p99(df, "ictcp", buffer)]))


def ictcp_over_icon_p99(df: pd.DataFrame, scheme: str = "icon", buffer: str = BUFFER) -> float:
    return p99(df, "ictcp", buffer) / max(p99(df, scheme, buffer), 1.0)


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    buffers = sorted(set(df["buffer"]), key=lambda b: int(b.removesuffix("pkt")))
    fig, axes = plt.subplots(1, len(buffers), figsize=(4.0 * len(buffers), 3.2), squeeze=False, sharey=True)
    for ax, b in zip(axes[0], buffers, strict=True):
        for v in [s for s in icon.SCHEMES if s in set(df["variant"])]:
            c = icon.queue_cdf(df[(df["variant"] == v) & (df["buffer"] == b)])
            ax.step(c["packets_ahead"], c["cdf"], where="post", label=icon.LABELS[v])
        ax.set_title(f"buffer {b}", fontsize=9)
        ax.set_xlabel("queue length found by an arrival (packets)")
    axes[0][0].set_ylabel("CDF")
    axes[0][0].legend(fontsize=7, loc="lower right")
    return {"fig9": fig}
