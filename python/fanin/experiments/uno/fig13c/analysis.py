"""Fig. 13C: an AllReduce of eight 35 MB inter-DC flows over a 7.1 ms RTT WAN with a failed
link and Table 1's drops, 10 seeds: per run y = (mean FCT of the 8 flows - 10.4 ms) / 10.4
ms, the paper's hard-coded ideal (spec pitfall 9)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from fanin.catalog.uno import derive_failure as derive  # noqa: F401 (the figure's derive)
from fanin.catalog.uno import failure_violins

IDEAL_MS = 10.4


def with_y(df: pd.DataFrame) -> pd.DataFrame:
    return df.assign(y=(df["mean_fct_ms"] - IDEAL_MS) / IDEAL_MS)


def mean_y(df: pd.DataFrame, variant: str) -> float:
    d = with_y(df)
    return float(d[d["variant"] == variant]["y"].mean())


def y_ratio(df: pd.DataFrame, a: str, b: str) -> float:
    return mean_y(df, a) / mean_y(df, b)


def runner_up_over_best(df: pd.DataFrame) -> float:
    """The second-lowest scheme's mean y over the lowest's."""
    ys = sorted(mean_y(df, v) for v in df["variant"].unique())
    return float(ys[1] / ys[0])


def best_is(df: pd.DataFrame, variant: str) -> bool:
    return min(df["variant"].unique(), key=lambda v: mean_y(df, v)) == variant


def plot(df: pd.DataFrame) -> plt.Figure:
    return failure_violins(with_y(df), "(mean FCT - 10.4 ms) / 10.4 ms", "y")
