"""Fig. 2 (right): incast completion time against the total incast size S, N = 4, 1 ms
long-haul links."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fanin.sweep import load_module

common = load_module(Path(__file__).parent.parent / "common.py", "fanin_catalog_proxy_common")
X = "S_MB"


def derive(results, point):
    # From the run itself: an identical run of another figure may be shared (the cache).
    row = common.run_row(results, point)
    return row.assign(S_MB=row["total_bytes"] / 1e6)


def _over_20(df: pd.DataFrame) -> pd.DataFrame:
    return df[df[X] > 20]


def naive_mean_pct_reduction_over_20mb(df: pd.DataFrame) -> float:
    return float(common.pct_reduction(_over_20(df), X, "naive").mean())


def streamlined_mean_pct_reduction_over_20mb(df: pd.DataFrame) -> float:
    return float(common.pct_reduction(_over_20(df), X, "streamlined").mean())


def naive_gains_at_least_streamlined(df: pd.DataFrame) -> bool:
    d = _over_20(df)
    return bool(common.pct_reduction(d, X, "naive").mean() >= common.pct_reduction(d, X, "streamlined").mean())


def losses_at_20mb(df: pd.DataFrame) -> float:
    """Trims plus drops over every run at the smallest size."""
    d = df[df[X] == df[X].min()]
    return float((d["trims"] + d["drops"]).sum())


def spread_at_20mb(df: pd.DataFrame) -> float:
    """max/min - 1 of the three schemes' mean ICTs at the smallest size."""
    m = common.means(df, X).iloc[0]
    return float(m.max() / m.min() - 1.0)


def first_rtt_loss_drives_the_gain(df: pd.DataFrame) -> bool:
    """At every S > 20 MB: the baseline trims, and both proxies cut its ICT by more than 20%."""
    d = _over_20(df)
    trims = d[d["variant"] == "baseline"].groupby(X)["trims"].min()
    ok = bool((trims > 0).all())
    for scheme in ("naive", "streamlined"):
        ok &= bool((common.pct_reduction(d, X, scheme) > 20).all())
    return ok


def plot(df: pd.DataFrame):
    return common.plot_ict(df, X, "total incast size S (MB), N = 4")
