"""Figs. 4-7: per load and scheme, the short flows' pooled median and p99 FCT, the long
flows' mean throughput and the most packets one switch port dropped."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.catalog.plots import mean_minmax
from fanin.icon import analysis as icon

LONG_SHARE = 0.7

# The derives live in fanin.icon, so Fig. 8's runs at degree 26 are these runs, cached once.
derive = {"runs": icon.derive_runs, "fct": icon.derive_fct}


def _rho(df: pd.DataFrame) -> pd.Series:
    return (df["long_load"] / LONG_SHARE * 100).round().astype(int)


def table(data: dict[str, pd.DataFrame], cls: str = "short") -> pd.DataFrame:
    """Per scheme and load (%): pooled p50/p99 FCT (ms), mean long throughput (Gb/s), the
    seeds' mean of the largest per-port drop count, total drops and unfinished flows."""
    runs = data["runs"].assign(rho=lambda d: _rho(d))
    fct = data["fct"].assign(rho=lambda d: _rho(d))
    rows = []
    for (v, rho), r in runs.groupby(["variant", "rho"]):
        h = fct[(fct["variant"] == v) & (fct["rho"] == rho) & (fct["cls"] == cls)]
        rows.append(
            {
                "variant": v,
                "rho": rho,
                "p50_ms": icon.pooled_quantile(h, 0.50),
                "p99_ms": icon.pooled_quantile(h, 0.99),
                "long_gbps": r["long_gbps_sum"].sum() / max(r["long_done"].sum(), 1),
                "d_max": r["d_max"].mean(),
                "drops": r["drops"].mean(),
                "unfinished": int(r["short_unfinished"].sum() + r["long_unfinished"].sum()),
            }
        )
    return pd.DataFrame(rows).sort_values(["variant", "rho"]).reset_index(drop=True)


def _by(data: dict[str, pd.DataFrame], col: str) -> pd.DataFrame:
    """col as a (rho x scheme) table."""
    return table(data).pivot(index="rho", columns="variant", values=col)


def _others(t: pd.DataFrame) -> list[str]:
    """The baselines ICON is compared with (never the other reading of ICON)."""
    return [c for c in icon.BASELINES if c in t.columns]


# ---- Fig 4: median ----------------------------------------------------------------------


def median_rises_with_load(data: dict[str, pd.DataFrame]) -> bool:
    t = _by(data, "p50_ms")
    return all((t[c].diff().dropna() >= -0.1 * t[c].shift().dropna()).all() and t[c].iloc[-1] > t[c].iloc[0] for c in t.columns)


def icon_median_ratio_min(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    """The smallest, over the other schemes, of the mean over loads of ICON's p50 / theirs."""
    t = _by(data, "p50_ms")
    return min(float((t[scheme] / t[c]).mean()) for c in _others(t))


def icon_median_ratio_max(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "p50_ms")
    return max(float((t[scheme] / t[c]).mean()) for c in _others(t))


def icon_median_vs_dctcp_at_80(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "p50_ms")
    return float(1 - t[scheme].iloc[-1] / t["dctcp"].iloc[-1])


# ---- Figs 4-5: tail over median ------------------------------------------------------------


def baseline_tail_over_median_min(data: dict[str, pd.DataFrame]) -> float:
    p50, p99 = _by(data, "p50_ms"), _by(data, "p99_ms")
    return float(min((p99[c] / p50[c]).min() for c in ("dctcp", "ictcp")))


def baseline_tail_over_median_max(data: dict[str, pd.DataFrame]) -> float:
    p50, p99 = _by(data, "p50_ms"), _by(data, "p99_ms")
    return float(max((p99[c] / p50[c]).max() for c in ("dctcp", "ictcp")))


def icon_closes_the_gap(data: dict[str, pd.DataFrame], scheme: str = "icon") -> bool:
    """ICON's mean p99/p50 is the smallest of the four."""
    p50, p99 = _by(data, "p50_ms"), _by(data, "p99_ms")
    gap = {c: float((p99[c] / p50[c]).mean()) for c in p50.columns}
    return min((g for g in gap if g in (*_others(p50), scheme)), key=gap.get) == scheme


# ---- Fig 5: tail ----------------------------------------------------------------------------


def baseline_tail_rises(data: dict[str, pd.DataFrame]) -> float:
    """The smaller of DCTCP's and ICTCP's p99(80 %) / p99(10 %)."""
    t = _by(data, "p99_ms")
    return float(min(t[c].iloc[-1] / t[c].iloc[0] for c in ("dctcp", "ictcp")))


def tail_reduction_vs_ictcp_mean(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "p99_ms")
    return float((1 - t[scheme] / t["ictcp"]).mean())


def tail_reduction_vs_ictcp_at_80(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "p99_ms")
    return float(1 - t[scheme].iloc[-1] / t["ictcp"].iloc[-1])


def icon_tail_share_of_best_other_max(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    """The largest, over loads, of ICON's p99 / the best other scheme's."""
    t = _by(data, "p99_ms")
    return float((t[scheme] / t[_others(t)].min(axis=1)).max())


def tail_reduction_vs_dctcp_max(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "p99_ms")
    return float((1 - t[scheme] / t["dctcp"]).max())


def ia_icon_tail_over_ictcp(data: dict[str, pd.DataFrame]) -> float:
    t = _by(data, "p99_ms")
    return float((t["ia_icon"] / t["ictcp"]).mean())


# ---- Fig 6: throughput ---------------------------------------------------------------------


def throughput_falls_with_load(data: dict[str, pd.DataFrame]) -> bool:
    t = _by(data, "long_gbps")
    return all(t[c].iloc[-1] < t[c].iloc[0] for c in t.columns)


def ictcp_over_dctcp_high_load_min(data: dict[str, pd.DataFrame]) -> float:
    t = _by(data, "long_gbps")
    high = t[t.index >= 60]
    return float((high["ictcp"] / high["dctcp"]).min())


def icon_throughput_share_of_best_min(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "long_gbps")
    return float((t[scheme] / t[_others(t)].max(axis=1)).min())


def icon_throughput_gain_vs_ictcp(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "long_gbps")
    return float((t[scheme] / t["ictcp"] - 1).mean())


def icon_throughput_gain_vs_dctcp_max(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "long_gbps")
    return float((t[scheme] / t["dctcp"] - 1).max())


def ia_icon_throughput_over_ictcp(data: dict[str, pd.DataFrame]) -> float:
    t = _by(data, "long_gbps")
    return float((t["ia_icon"] / t["ictcp"]).mean())


# ---- Fig 7: drops ---------------------------------------------------------------------------


def baseline_drops_rise(data: dict[str, pd.DataFrame]) -> bool:
    t = _by(data, "d_max")
    return bool(t["dctcp"].iloc[-1] > t["dctcp"].iloc[0] and t["ictcp"].iloc[-1] > t["ictcp"].iloc[0])


def drop_ratio_vs_icon_min(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    """The smaller of ICTCP's and DCTCP's mean over loads of (D + 1) / (D_ICON + 1)."""
    t = _by(data, "d_max")
    return float(min(((t[c] + 1) / (t[scheme] + 1)).mean() for c in ("ictcp", "dctcp")))


def icon_total_drops_share_of_dctcp(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    t = _by(data, "drops")
    return float(t[scheme].sum() / max(t["dctcp"].sum(), 1))


# ---- plot -----------------------------------------------------------------------------------


def plot(data: dict[str, pd.DataFrame]) -> dict[str, plt.Figure]:
    t = table(data)
    out = {}
    panels = [
        ("fig4", "p50_ms", "median FCT, short flows (ms)", False),
        ("fig5", "p99_ms", "99th percentile FCT, short flows (ms)", True),
        ("fig6", "long_gbps", "average throughput, long flows (Gb/s)", False),
        ("fig7", "d_max", "maximum packet drops at a port", False),
    ]
    for name, col, label, log in panels:
        fig, ax = plt.subplots()
        for v in [s for s in icon.SCHEMES if s in set(t["variant"])]:
            d = t[t["variant"] == v]
            ax.plot(d["rho"], d[col], "o-", label=icon.LABELS[v], ms=3)
        if col == "d_max":
            runs = data["runs"].assign(rho=lambda d: _rho(d))
            for v in [s for s in icon.SCHEMES if s in set(runs["variant"])]:
                mean_minmax(ax, runs[runs["variant"] == v], "rho", "d_max", fmt="none", ecolor="0.6")
        ax.set_xlabel("load (% of bisection)")
        ax.set_ylabel(label)
        if log:
            ax.set_yscale("log")
        ax.legend(fontsize=7)
        out[name] = fig
    return out


def summary_table(data: dict[str, pd.DataFrame]) -> pd.DataFrame:
    return table(data).assign(p50_ms=lambda d: d["p50_ms"].round(3), p99_ms=lambda d: d["p99_ms"].round(3))


