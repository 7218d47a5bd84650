"""The static receive-window clamp (`rwndStrategy=static`) swept over 2-14 KiB for N = 50
to 1000, as the artifact's `imc_experiments.sh` ran it: BCT, drops, timeouts and the
queue per clamp and N, and the paper's point that a clamp small enough to keep the
large incasts from overflowing slows the small ones."""

from __future__ import annotations

import pandas as pd

from fanin.imc24 import analysis, plots

NO_CLAMP = "1GB"
COLUMNS = ["bct_ms", "drops", "timeouts", "mean_queue", "max_queue"]

derive = analysis.burst_table


def clamp_kib(label: str) -> float:
    return float("inf") if label == NO_CLAMP else float(label.removesuffix("KiB"))


def table(data: pd.DataFrame) -> pd.DataFrame:
    """Per clamp (KiB; inf = none) and N: mean over measured bursts of BCT, drops, timeouts, queue."""
    d = data[data["measured"]].astype({"drops": float, "timeouts": float})
    d = d.assign(clamp_kib=d["rwnd"].map(clamp_kib))
    return d.groupby(["clamp_kib", "N"])[COLUMNS].mean()


def _safe_clamps(t: pd.DataFrame, n: int) -> list[float]:
    """The clamps under which the N-flow incast neither drops nor times out."""
    at = t.xs(n, level="N")
    return [c for c in at.index if at.loc[c, "drops"] == 0 and at.loc[c, "timeouts"] == 0]


def largest_safe_clamp_500(data) -> float:
    """The largest clamp (KiB) under which 500 flows neither drop nor time out (inf: no clamp needed)."""
    return max(_safe_clamps(table(data), 500), default=float("nan"))


def safe_clamp_exists_1000(data) -> bool:
    """Some clamp keeps the 1000-flow incast from dropping (its 1000 request ACKs alone fill most of the port)."""
    return bool(_safe_clamps(table(data), 1000))


def bct_50_smallest_over_none(data) -> float:
    """BCT at 50 flows under the smallest clamp (2 KiB) relative to no clamp."""
    t = table(data)
    return float(t.loc[(2.0, 50), "bct_ms"] / t.loc[(float("inf"), 50), "bct_ms"])


def bct_small_slowed(data) -> bool:
    """The smallest clamp slows some N <= 200 by at least 5% against no clamp."""
    t = table(data)
    ratios = [t.loc[(2.0, n), "bct_ms"] / t.loc[(float("inf"), n), "bct_ms"] for n in (50, 100, 150, 200) if (2.0, n) in t.index]
    return bool(ratios) and max(ratios) >= 1.05


def plot(data):
    t = table(data)
    clamps = sorted(t.index.get_level_values("clamp_kib").unique())

    def lines(col: str):
        for c in clamps:
            yield ("no clamp" if c == float("inf") else f"{c:g} KiB"), t.xs(c, level="clamp_kib")[col]

    return plots.over_n(lines)
