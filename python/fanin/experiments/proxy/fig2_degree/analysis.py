"""Fig. 2 (left): incast completion time against the incast degree N, 100 MB in total,
1 ms long-haul links."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fanin.sweep import load_module

common = load_module(Path(__file__).parent.parent / "common.py", "fanin_catalog_proxy_common")
derive = common.run_row
X = "N"


def naive_mean_pct_reduction(df: pd.DataFrame) -> float:
    return float(common.pct_reduction(df, X, "naive").mean())


def streamlined_mean_pct_reduction(df: pd.DataFrame) -> float:
    return float(common.pct_reduction(df, X, "streamlined").mean())


def naive_mean_ms_reduction(df: pd.DataFrame) -> float:
    return float(common.ms_reduction(df, X, "naive").mean())


def streamlined_mean_ms_reduction(df: pd.DataFrame) -> float:
    return float(common.ms_reduction(df, X, "streamlined").mean())


def naive_below_baseline_everywhere(df: pd.DataFrame) -> bool:
    m = common.means(df, X)
    return bool((m["naive"] < m["baseline"]).all())


def streamlined_below_baseline_everywhere(df: pd.DataFrame) -> bool:
    m = common.means(df, X)
    return bool((m["streamlined"] < m["baseline"]).all())


def baseline_mean_ms(df: pd.DataFrame) -> float:
    return float(common.means(df, X)["baseline"].mean())


def naive_mean_ms(df: pd.DataFrame) -> float:
    return float(common.means(df, X)["naive"].mean())


def streamlined_mean_ms(df: pd.DataFrame) -> float:
    return float(common.means(df, X)["streamlined"].mean())


def benefit_grows_with_n(df: pd.DataFrame) -> bool:
    """Both proxies' reductions, in ms and in %, are larger at the largest N than at the smallest."""
    ok = True
    for scheme in ("naive", "streamlined"):
        for red in (common.pct_reduction(df, X, scheme), common.ms_reduction(df, X, scheme)):
            ok &= bool(red.iloc[-1] > red.iloc[0])
    return ok


def baseline_non_decreasing_in_n(df: pd.DataFrame) -> bool:
    """Each step in N leaves the baseline's mean ICT at least 95% of the previous one."""
    b = common.means(df, X)["baseline"].to_numpy()
    return bool((b[1:] >= 0.95 * b[:-1]).all())


def large_n_proxies_within(df: pd.DataFrame) -> float:
    """max over N >= 16 of |Streamlined - Naive| / Naive."""
    m = common.means(df, X)
    m = m[m.index >= 16]
    return float(((m["streamlined"] - m["naive"]).abs() / m["naive"]).max()) if len(m) else float("nan")


def small_n_order(df: pd.DataFrame) -> bool:
    """At the smallest N: Naive < Streamlined < 0.6 Baseline."""
    m = common.means(df, X).iloc[0]
    return bool(m["naive"] < m["streamlined"] < 0.6 * m["baseline"])


def plot(df: pd.DataFrame):
    return common.plot_ict(df, X, "incast degree N (100 MB in total)")
