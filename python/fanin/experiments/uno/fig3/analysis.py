"""Fig. 3: per-flow rates over time (300 us windows) and their fairness (Jain's index)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from fanin import Results
from fanin.catalog.uno import SCHEMES, jfi_series, min_jfi_after, rate_lines, rates_with_jfi


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """One row per (window, flow) while every flow is still running: the flow's rate, its
    class, and the window's JFI."""
    return rates_with_jfi(results)


def _jfi(df: pd.DataFrame, variant: str) -> pd.Series:
    d = jfi_series(df[df["variant"] == variant])
    if d.empty:
        raise ValueError(f"no rate samples for {variant}")
    return d


def uno_min_jfi_after_100ms(df: pd.DataFrame) -> float:
    """Uno's smallest JFI from 100 ms on while all flows run (the claim: it stays >= 0.9)."""
    _jfi(df, "uno")
    return min_jfi_after(df[df["variant"] == "uno"])


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
        rate_lines(ax, df[df["variant"] == v], SCHEMES[v])
    axes[0][0].set_ylabel("rate (Gb/s)\nblue inter, orange intra")
    return fig
