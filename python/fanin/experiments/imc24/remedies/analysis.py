"""Section 5's remedies over N = 50 to 10,000 flows: a static receive-window clamp (4 KB),
the clamp at BDP / N (`bdp+connections`), the 20-token receiver scheduler (64 KB
windows), DCTCP with g = 1/4, remembering the mean window across bursts, Swift-style
pacing of sub-packet windows (BDP / N with a 1-B floor) and the same with N predicted
from the earlier bursts. The paper states what they do only in words: the table shows
what each does in fanin, and the claims check the paper's words."""

from __future__ import annotations

import pandas as pd

from fanin.imc24 import analysis, plots

REMEDIES = ["baseline", "static_4KB", "bdp_connections", "scheduled_20", "g_quarter", "remember", "swift_cc", "swift", "swift_delack", "predicted"]
COLUMNS = ["bct_ms", "drops", "timeouts", "mean_queue", "max_queue", "median_start_cwnd_mss", "max_start_cwnd_mss"]

derive = analysis.burst_table


def table(data: pd.DataFrame) -> pd.DataFrame:
    """Per remedy and N: mean over measured bursts and seeds of BCT, drops, timeouts, the
    bottleneck queue (mean and max) and the windows responses start with."""
    d = data[data["measured"]].rename(columns={"variant": "remedy"})
    d = d.astype({c: float for c in ("drops", "timeouts")})
    return d.groupby(["remedy", "N"])[COLUMNS].mean()


def at(data, remedy: str, n: int, column: str) -> float:
    """One cell of :func:`table` (claims name their cells with it)."""
    return float(table(data).loc[(remedy, n), column])


def tokens_end_timeouts_1000(data) -> bool:
    """The 1000-flow incast times out without a remedy and not with 20 tokens."""
    return at(data, "baseline", 1000, "timeouts") > 0 and at(data, "scheduled_20", 1000, "timeouts") == 0


def plot(data):
    t = table(data)
    present = [r for r in REMEDIES if r in t.index.get_level_values("remedy")]

    def lines(col: str):
        w = t[col].unstack("remedy").reindex(columns=present)
        return ((remedy, w[remedy]) for remedy in w.columns)

    return plots.over_n(lines)
