"""Fig. 8: the short flows' pooled p99 FCT per scheme, load and incast degree."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from fanin.icon import analysis as icon

LONG_SHARE = 0.7

derive = {"runs": icon.derive_runs, "fct": icon.derive_fct}


def table(data: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """p99 (ms) of the short flows, per scheme, load rho (%) and degree."""
    fct = data["fct"]
    fct = fct[fct["cls"] == "short"].assign(rho=(fct["long_load"] / LONG_SHARE * 100).round().astype(int))
    rows = [
        {"variant": v, "rho": rho, "degree": int(n), "p99_ms": icon.pooled_quantile(h, 0.99)}
        for (v, rho, n), h in fct.groupby(["variant", "rho", "degree"])
    ]
    return pd.DataFrame(rows).sort_values(["variant", "rho", "degree"]).reset_index(drop=True)


def tail_rise_with_degree_min(data: dict[str, pd.DataFrame]) -> float:
    """The smallest p99(next degree) / p99(degree) over schemes, loads and degree steps."""
    t = table(data).pivot_table(index=["variant", "rho"], columns="degree", values="p99_ms")
    steps = [t[b] / t[a] for a, b in zip(t.columns[:-1], t.columns[1:], strict=True)]
    return float(min(s.min() for s in steps))


def icon_tail_share_of_best_other_max(data: dict[str, pd.DataFrame], scheme: str = "icon") -> float:
    """The largest, over degrees and loads, of ICON's p99 / the best baseline's."""
    t = table(data).pivot_table(index=["rho", "degree"], columns="variant", values="p99_ms")
    others = [c for c in icon.BASELINES if c in t.columns]
    return float((t[scheme] / t[others].min(axis=1)).max())


def plot(data: dict[str, pd.DataFrame]) -> dict[str, plt.Figure]:
    t = table(data)
    loads = sorted(set(t["rho"]))
    fig, axes = plt.subplots(1, len(loads), figsize=(4.0 * len(loads), 3.2), squeeze=False)
    for ax, rho in zip(axes[0], loads, strict=True):
        for v in [s for s in icon.SCHEMES if s in set(t["variant"])]:
            d = t[(t["variant"] == v) & (t["rho"] == rho)]
            ax.plot(d["degree"], d["p99_ms"], "o-", ms=3, label=icon.LABELS[v])
        ax.set_title(f"load {rho} %", fontsize=9)
        ax.set_xlabel("incast degree")
        ax.set_yscale("log")
    axes[0][0].set_ylabel("99th percentile FCT, short flows (ms)")
    axes[0][0].legend(fontsize=7)
    return {"fig8": fig}
