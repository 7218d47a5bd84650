"""Fig. 13A: a black-holed WAN link under eight 5 MB inter-DC flows, 100 seeds. Per run the
flows' mean and p99 FCT; the figure is a violin per scheme of the per-seed values (the
artifact's), and the claims compare their means over seeds and their pooled p99."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.catalog.uno import derive_failure as derive  # noqa: F401 (the figure's derive)
from fanin.catalog.uno import failure_mean_ratio, failure_violins


mean_ratio = failure_mean_ratio


def pooled_p99_ratio(df: pd.DataFrame, a: str, b: str) -> float:
    """The p99 over seeds of each run's p99 FCT, scheme a over scheme b."""
    p = {v: np.percentile(g["p99_fct_ms"].dropna(), 99) for v, g in df.groupby("variant")}
    return float(p[a] / p[b])


def unfinished_runs(df: pd.DataFrame) -> int:
    return int((df["completed"] < df["flows"]).sum())


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    return {"mean": failure_violins(df, "mean FCT of the 8 flows (ms)"), "p99": failure_violins(df, "p99 FCT of the 8 flows (ms)", "p99_fct_ms")}
