"""Fig. 9: mean and p99 FCT of a 256-flow permutation, 8 vs 128 WAN links."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from fanin import Results
from fanin.catalog.uno import SCHEMES, derive_fct, fct_bars, value


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    d = derive_fct(results, point)
    return d[d["class"] == "all"]


def links(df: pd.DataFrame) -> list[int]:
    return sorted(set(df["wan_links"]))


def ordering_holds(df: pd.DataFrame) -> bool:
    """Uno < Uno+ECMP < min(Gemini, MB) on mean and p99, for every provisioning."""
    ok = True
    for n in links(df):
        for stat in ("mean_fct_us", "p99_fct_us"):
            val = {k: value(df, k, "all", stat, wan_links=n) for k in SCHEMES}
            ok &= val["uno"] < val["uno_ecmp"] < min(val["gemini"], val["mprdma_bbr"])
    return ok


def fewer_links_slower(df: pd.DataFrame) -> bool:
    """Every scheme's mean FCT is higher with 8 WAN links than with 128."""
    if len(links(df)) < 2:
        raise ValueError("needs both provisioning cases")
    lo, hi = links(df)[0], links(df)[-1]
    return all(value(df, k, "all", "mean_fct_us", wan_links=lo) > value(df, k, "all", "mean_fct_us", wan_links=hi) for k in SCHEMES)


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    out = {}
    for stat in ("mean_fct_us", "p99_fct_us"):
        fig = fct_bars(df, "wan_links", links(df), stat, ["all"], scale=1e-3, unit="ms")
        fig.axes[0].set_xlabel("WAN links")
        out[stat.split("_")[0]] = fig
    return out
