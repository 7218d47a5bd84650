"""Fig. 11: slowdowns of the 40% workload against the inter/intra base-RTT ratio."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from fanin import Results
from fanin.catalog.uno import SCHEMES, base_rtts_s, derive_fct, value


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    d = derive_fct(results, point)
    _, inter = base_rtts_s(results.manifest["scenario"])
    # The paper's label: the inter-DC base RTT over its rounded intra-DC one, 14 us.
    d["rtt_ratio"] = round(inter / 14e-6)
    return d


def ratios(df: pd.DataFrame) -> list[int]:
    return sorted(set(df["rtt_ratio"]))


def s(df: pd.DataFrame, variant: str, stat: str, ratio: int) -> float:
    return value(df, variant, "all", stat, rtt_ratio=ratio)


def mb_close_to_uno_at_8(df: pd.DataFrame) -> float:
    """|Uno - MB| / MB of the mean slowdown at the smallest ratio (8x)."""
    r = ratios(df)[0]
    mb = s(df, "mprdma_bbr", "mean_slowdown", r)
    return abs(s(df, "uno", "mean_slowdown", r) - mb) / mb


def tail_ratio_at_512(df: pd.DataFrame) -> float:
    """min(MB, Gemini) / Uno of the p99 slowdown at the largest ratio."""
    r = ratios(df)[-1]
    return min(s(df, o, "p99_slowdown", r) for o in ("mprdma_bbr", "gemini")) / s(df, "uno", "p99_slowdown", r)


def uno_tail_falls_with_ratio(df: pd.DataFrame) -> bool:
    tails = [s(df, "uno", "p99_slowdown", r) for r in ratios(df)]
    return all(a > b for a, b in zip(tails, tails[1:], strict=False))


def uno_lowest_tail_beyond_8(df: pd.DataFrame) -> bool:
    others = [v for v in SCHEMES if v != "uno"]
    return all(s(df, "uno", "p99_slowdown", r) <= min(s(df, o, "p99_slowdown", r) for o in others) for r in ratios(df)[1:])


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    from fanin.catalog.uno import fct_bars

    out = {}
    for stat in ("mean_slowdown", "p99_slowdown"):
        fig = fct_bars(df, "rtt_ratio", ratios(df), stat, ["all"], unit="x")
        fig.axes[0].set_xlabel("inter/intra-DC base RTT ratio")
        out[stat.split("_")[0]] = fig
    return out
