"""Fig. 12: FCT statistics at 40% load with per-class buffers."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from fanin import Results
from fanin.catalog.uno import derive_fct, value


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    d = derive_fct(results, point)
    d["case"] = "buffers"
    return d


def tail(df: pd.DataFrame, variant: str, cls: str) -> float:
    return value(df, variant, cls, "p99_fct_us")


def intra_tail_vs_gemini(df: pd.DataFrame) -> float:
    return tail(df, "gemini", "intra") / tail(df, "uno", "intra")


def inter_tail_vs_gemini(df: pd.DataFrame) -> float:
    return tail(df, "gemini", "inter") / tail(df, "uno", "inter")


def intra_tail_vs_mb(df: pd.DataFrame) -> float:
    return tail(df, "mprdma_bbr", "intra") / tail(df, "uno", "intra")


def inter_tail_vs_mb(df: pd.DataFrame) -> float:
    return tail(df, "mprdma_bbr", "inter") / tail(df, "uno", "inter")


def unocc_trades_intra_for_inter(df: pd.DataFrame) -> bool:
    others = ("gemini", "mprdma_bbr")
    mean = "mean_fct_us"
    inter = all(value(df, "uno_ecmp", "inter", mean) < value(df, o, "inter", mean) for o in others)
    intra = value(df, "uno_ecmp", "intra", mean) >= min(value(df, o, "intra", mean) for o in others)
    return inter and intra


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    from fanin.catalog.uno import fct_bars

    return {stat.split("_")[0]: fct_bars(df, "case", ["buffers"], stat, ["all", "inter", "intra"], scale=1e-3, unit="ms", log=True) for stat in ("mean_fct_us", "p99_fct_us")}
