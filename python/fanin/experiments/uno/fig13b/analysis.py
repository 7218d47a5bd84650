"""Fig. 13B: one 5 MB inter-DC flow under Table 1's correlated drops, 100 seeds: per scheme,
the violin of its per-seed FCT; the claims compare the means over seeds and the tails."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.catalog.uno import derive_failure as derive  # noqa: F401 (the figure's derive)
from fanin.catalog.uno import failure_mean_ratio, failure_means, failure_violins


def unolb_vs_spray_gap(df: pd.DataFrame) -> float:
    """|UnoLB - spraying| / spraying, on the mean over seeds."""
    m = failure_means(df)
    return float(abs(m["unolb"] - m["spray"]) / m["spray"])


mean_ratio = failure_mean_ratio


def tail_ratio(df: pd.DataFrame, a: str, b: str) -> float:
    """p99 over seeds of the FCT, scheme a over scheme b."""
    p = {v: np.percentile(g["mean_fct_ms"].dropna(), 99) for v, g in df.groupby("variant")}
    return float(p[a] / p[b])


def plot(df: pd.DataFrame) -> plt.Figure:
    return failure_violins(df, "FCT of the 5 MB flow (ms)")
