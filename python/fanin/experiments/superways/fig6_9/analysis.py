"""Figs. 6-9 (and Fig. 2's DT curve): per topology and load, the short flows' p99 and median
FCT and the long flows' mean throughput, each run's value averaged over seeds and the four
incast degrees ("average among various incast degrees"); Fig. 7 and 9 are Superways' gain on
each base topology.

Short flows are those of at most 10 KiB (background and incast responses), p99 and p50 by
nearest rank over a run's completed ones; long flows are those of at least 64 KiB, the
aggregators' 64 KiB responses included (spec §2, Metrics); the other reading, the long
flows alone (at least 100 KiB, between long-flow nodes), is kept beside it. A reduction is
(base - super) / base, a speedup super / base - 1, "on average" the mean over loads.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results

SHORT_BYTES = 10 * 1024
LONG_BYTES = 64 * 1024
LONG_ONLY_BYTES = 100 * 1024
LONG_SHARE = 0.7
BASES = ("leaf_spine", "jellyfish", "bcube", "subways")
FIG6 = ("leaf_spine", "bcube", "jellyfish", "subways", "leaf_spine_dt", "superways_leaf_spine")
LABELS = {
    "leaf_spine": "Leaf-spine",
    "bcube": "BCube",
    "jellyfish": "Jellyfish",
    "subways": "Subways",
    "leaf_spine_dt": "Leaf-spine + DT",
    "superways_leaf_spine": "Superways/Leaf-spine",
}


def _nearest_rank(x: np.ndarray, q: float) -> float:
    if not len(x):
        return float("nan")
    s = np.sort(x)
    return float(s[max(int(np.ceil(q * len(s))) - 1, 0)])


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    f = results.flows
    short = f[f["size_bytes"] <= SHORT_BYTES]
    done = short[short["completed"]]["fct_ps"].astype("float64").to_numpy() / 1e9
    long = f[(f["size_bytes"] >= LONG_BYTES) & f["completed"]]
    gbps = 8.0 * long["size_bytes"].astype("float64") / long["fct_ps"].astype("float64") * 1e3
    long_only = gbps[long["size_bytes"] >= LONG_ONLY_BYTES]
    return pd.DataFrame(
        [
            {
                "p99_ms": _nearest_rank(done, 0.99),
                "p50_ms": _nearest_rank(done, 0.50),
                "long_gbps": float(gbps.mean()) if len(gbps) else float("nan"),
                "long_only_gbps": float(long_only.mean()) if len(long_only) else float("nan"),
                "short_flows": len(short),
                "unfinished": int((~f["completed"]).sum()),
                "drops": int(results.ports["dropped_pkts"].sum()),
            }
        ]
    )


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Per series and load (%): means over seeds and degrees."""
    d = df.assign(rho=(df["long_load"] / LONG_SHARE * 100).round().astype(int))
    return d.groupby(["variant", "rho"], as_index=False)[["p99_ms", "p50_ms", "long_gbps", "long_only_gbps", "unfinished", "drops"]].mean()


def _by(df: pd.DataFrame, col: str) -> pd.DataFrame:
    return table(df).pivot(index="rho", columns="variant", values=col)


def reduction(df: pd.DataFrame, base: str, col: str = "p99_ms") -> pd.Series:
    t = _by(df, col)
    return 1 - t[f"superways_{base}"] / t[base]


def speedup(df: pd.DataFrame, base: str, col: str = "long_gbps") -> pd.Series:
    t = _by(df, col)
    return t[f"superways_{base}"] / t[base] - 1


# ---- Fig 6 ------------------------------------------------------------------------------


def superways_tail_share_of_best_other_max(df: pd.DataFrame) -> float:
    """The largest, over loads, of Superways/LS's p99 over the best other Fig. 6 series."""
    t = _by(df, "p99_ms")
    others = [c for c in FIG6 if c != "superways_leaf_spine" and c in t.columns]
    return float((t["superways_leaf_spine"] / t[others].min(axis=1)).max())


def dt_over_ls_low_load_max(df: pd.DataFrame, dt: str = "leaf_spine_dt") -> float:
    t = _by(df, "p99_ms")
    low = t[t.index <= 30]
    return float((low[dt] / low["leaf_spine"]).max())


def dt_high_over_low(df: pd.DataFrame, dt: str = "leaf_spine_dt") -> float:
    """DT's p99 at loads >= 60 % (their mean) over its p99 at <= 30 %."""
    t = _by(df, "p99_ms")[dt]
    return float(t[t.index >= 60].mean() / t[t.index <= 30].mean())


# ---- Fig 7 / Table 2 --------------------------------------------------------------------


def tail_reduction_pct(df: pd.DataFrame, base: str) -> float:
    return float(100 * reduction(df, base).mean())


def tail_reductions_spread_pts(df: pd.DataFrame) -> float:
    r = [tail_reduction_pct(df, b) for b in BASES]
    return float(max(r) - min(r))


def median_reduction_best_pct(df: pd.DataFrame) -> float:
    return float(max(100 * reduction(df, b, "p50_ms").mean() for b in BASES))


def fct_factor_over_bases(df: pd.DataFrame) -> float:
    """Abstract: base p99 / Superways p99, averaged over loads and the four bases."""
    return float(np.mean([(1 / (1 - reduction(df, b))).mean() for b in BASES]))


# ---- Figs 8-9 ---------------------------------------------------------------------------


def superways_throughput_share_of_best_other_high_min(df: pd.DataFrame) -> float:
    t = _by(df, "long_gbps")
    high = t[t.index >= 60]
    others = [c for c in FIG6 if c != "superways_leaf_spine" and c in t.columns]
    return float((high["superways_leaf_spine"] / high[others].max(axis=1)).min())


def speedup_pct(df: pd.DataFrame, base: str) -> float:
    return float(100 * speedup(df, base).mean())


def long_only_speedup_pct(df: pd.DataFrame, base: str) -> float:
    """Fig. 9's other reading: the long flows alone, without the incasts' 64 KiB responses."""
    return float(100 * speedup(df, base, "long_only_gbps").mean())


def leaf_spine_speedup_largest(df: pd.DataFrame) -> bool:
    s = {b: speedup_pct(df, b) for b in BASES}
    return max(s, key=s.get) == "leaf_spine"


def throughput_factor_over_bases(df: pd.DataFrame) -> float:
    return float(np.mean([(1 + speedup(df, b)).mean() for b in BASES]))


# ---- plots ------------------------------------------------------------------------------


def series_over_load(t: pd.DataFrame, labels: dict[str, str], col: str, ylabel: str, log: bool) -> plt.Figure:
    """One line per series of ``labels`` (those that ran) of ``table``'s ``col`` over load."""
    fig, ax = plt.subplots()
    for v in [s for s in labels if s in set(t["variant"])]:
        d = t[t["variant"] == v]
        ax.plot(d["rho"], d[col], "o-", ms=3, label=labels[v])
    ax.set_xlabel("load (%)")
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
    ax.legend(fontsize=7)
    return fig


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    t = table(df)
    fig6 = {s: LABELS[s] for s in FIG6}
    out = {
        "fig6": series_over_load(t, fig6, "p99_ms", "99th percentile FCT, short flows (ms)", True),
        "fig8": series_over_load(t, fig6, "long_gbps", "average throughput, long flows (Gb/s)", False),
    }
    for name, fn, label in (("fig7", reduction, "reduction in p99 FCT, short flows (%)"), ("fig9", speedup, "long-flow throughput speedup (%)")):
        fig, ax = plt.subplots()
        for b in BASES:
            s = fn(df, b)
            ax.plot(s.index, 100 * s.to_numpy(), "o-", ms=3, label=f"Superways/{LABELS[b]}")
        ax.set_xlabel("load (%)")
        ax.set_ylabel(label)
        ax.legend(fontsize=7)
        out[name] = fig
    fig, ax = plt.subplots()
    d = t[t["variant"] == "leaf_spine_dt"]
    ax.plot(d["rho"], d["p99_ms"], "o-", ms=3, label="Leaf-spine + DT (RTO_min 10 ms)")
    ax.set_xlabel("load (%)")
    ax.set_ylabel("99th percentile FCT, short flows (ms)")
    ax.legend(fontsize=7)
    out["fig2"] = fig
    return out
