"""Fig. 10: FCT statistics of the artifact's 5000-flow workloads, per scheme and load."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from fanin import Results
from fanin.catalog.uno import derive_fct, fct_bars, lowest, value

LOADS = {"websearchIntra_AlibabaInter_5000f_40l.cm": 40, "websearchIntra_AlibabaInter_5000f_60l.cm": 60, "websearchIntra_AlibabaInter_5000f_80l.cm": 80}


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    d = derive_fct(results, point)
    d["load_pct"] = LOADS[point["load"]]
    return d


def v(df: pd.DataFrame, variant: str, cls: str, stat: str, load: int = 40) -> float:
    return value(df, variant, cls, stat, load_pct=load)


def loads(df: pd.DataFrame) -> list[int]:
    return sorted(set(df["load_pct"]))


# ---- claims (spec section 3, Fig 10) -------------------------------------------------


def unocc_trades_intra_for_inter(df: pd.DataFrame) -> bool:
    """Uno+ECMP at 40%: intra mean >= min(Gemini, MB) and inter mean < both."""
    others = ("gemini", "mprdma_bbr")
    intra = v(df, "uno_ecmp", "intra", "mean_fct_us") >= min(v(df, o, "intra", "mean_fct_us") for o in others)
    inter = all(v(df, "uno_ecmp", "inter", "mean_fct_us") < v(df, o, "inter", "mean_fct_us") for o in others)
    return intra and inter


def mean_all_reduction_vs_mb_pct(df: pd.DataFrame) -> float:
    return 100 * (1 - v(df, "uno_ecmp", "all", "mean_fct_us") / v(df, "mprdma_bbr", "all", "mean_fct_us"))


def mean_all_reduction_vs_gemini_pct(df: pd.DataFrame) -> float:
    return 100 * (1 - v(df, "uno_ecmp", "all", "mean_fct_us") / v(df, "gemini", "all", "mean_fct_us"))


def _at(df: pd.DataFrame, load: int) -> int:
    return load if load in loads(df) else loads(df)[0]


def _p99_ratio(df: pd.DataFrame, other: str, cls: str, load: int = 40) -> float:
    """p99 FCT of scheme `other` over Uno's (UnoCC + UnoLB), for one flow class."""
    return v(df, other, cls, "p99_fct_us", load) / v(df, "uno", cls, "p99_fct_us", load)


def p99_all_ratio_mb_60(df: pd.DataFrame) -> float:
    return _p99_ratio(df, "mprdma_bbr", "all", _at(df, 60))


def p99_all_ratio_gemini_60(df: pd.DataFrame) -> float:
    return _p99_ratio(df, "gemini", "all", _at(df, 60))


def uno_lowest_p99_all_every_load(df: pd.DataFrame) -> bool:
    return all(lowest(df, "uno", "all", "p99_fct_us", load_pct=load) for load in loads(df))


def intra_tail_ratio_mb(df: pd.DataFrame) -> float:
    return _p99_ratio(df, "mprdma_bbr", "intra", _at(df, 60))


def intra_tail_ratio_gemini(df: pd.DataFrame) -> float:
    return _p99_ratio(df, "gemini", "intra", _at(df, 60))


def inter_tail_ratio_mb(df: pd.DataFrame) -> float:
    return _p99_ratio(df, "mprdma_bbr", "inter")


def inter_tail_ratio_gemini(df: pd.DataFrame) -> float:
    return _p99_ratio(df, "gemini", "inter")


def uno_lowest_intra_every_load(df: pd.DataFrame) -> bool:
    return all(lowest(df, "uno", "intra", stat, load_pct=load) for load in loads(df) for stat in ("mean_fct_us", "p99_fct_us"))


# Absolute values at 40% (report-only, the spec's +-35% warning band).
def uno_ecmp_mean_all_ms(df: pd.DataFrame) -> float:
    return v(df, "uno_ecmp", "all", "mean_fct_us") / 1e3


def uno_mean_all_ms(df: pd.DataFrame) -> float:
    return v(df, "uno", "all", "mean_fct_us") / 1e3


def gemini_mean_all_ms(df: pd.DataFrame) -> float:
    return v(df, "gemini", "all", "mean_fct_us") / 1e3


def mb_mean_all_ms(df: pd.DataFrame) -> float:
    return v(df, "mprdma_bbr", "all", "mean_fct_us") / 1e3


def uno_ecmp_mean_intra_us(df: pd.DataFrame) -> float:
    return v(df, "uno_ecmp", "intra", "mean_fct_us")


def uno_mean_intra_us(df: pd.DataFrame) -> float:
    return v(df, "uno", "intra", "mean_fct_us")


def uno_ecmp_mean_inter_ms(df: pd.DataFrame) -> float:
    return v(df, "uno_ecmp", "inter", "mean_fct_us") / 1e3


def uno_p99_all_ms(df: pd.DataFrame) -> float:
    return v(df, "uno", "all", "p99_fct_us") / 1e3


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    groups = loads(df)
    out = {}
    for stat in ("mean_fct_us", "p99_fct_us"):
        name = stat.split("_")[0]
        out[f"{name}-all"] = fct_bars(df, "load_pct", groups, stat, ["all"], scale=1e-3, unit="ms")
        out[f"{name}-intra"] = fct_bars(df, "load_pct", groups, stat, ["intra"], unit="µs")
        out[f"{name}-inter"] = fct_bars(df, "load_pct", groups, stat, ["inter"], scale=1e-3, unit="ms")
    for fig in out.values():
        fig.axes[0].set_xlabel("load (%)")
    return out
