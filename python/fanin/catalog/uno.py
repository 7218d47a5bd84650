"""Helpers for the Uno (SC '25) catalog entry: flow classes, FCT statistics and slowdowns as
the artifact computes them, and the paper's grouped-bar figures.

Hosts ``0 .. 127`` are datacenter 0 and ``128 .. 255`` datacenter 1 on the Uno topology
(``multi_dc``, ``preset = "uno"``); a flow is *inter* when its ends lie in different ones.
Statistics follow the artifact's scripts: mean and p99 (numpy's linear interpolation) of
the FCT, and the slowdown ``max(1, FCT / (base RTT of the class + size x 8 / 100 Gb/s))``
with the class base RTTs of the spec (section 0), not fanin's per-path ideal FCT.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results, _native

HOSTS_PER_DC = 128
LINK_BPS = 100e9
PACKET_BYTES = 4160
ACK_BYTES = 64
LINK_DELAY_S = 1e-6
DEFAULT_WAN_DELAY_S = 886.5e-6
SCHEMES = {"uno_ecmp": "Uno+ECMP", "uno": "Uno", "gemini": "Gemini", "mprdma_bbr": "MPRDMA+BBR"}
CLASSES = ("all", "intra", "inter")
FAIR_SHARE_GBPS = 100 / 8  # eight flows into one 100 Gb/s port (Figs 3 and 8)

def seconds(text: str) -> float:
    """A time in the scenario grammar (``"886.5us"``) in seconds."""
    return _native.parse_time(text) / 1e12


def base_rtts_s(scenario_text: str) -> tuple[float, float]:
    """(intra, inter) base RTT of the spec: a full packet out and a 64 B ACK back,
    store-and-forward over 6 hops (intra) or 9 hops with the WAN link (inter)."""
    topo = tomllib.loads(scenario_text).get("topology", {})
    wan = topo.get("long_haul_link", {}).get("delay")
    d_wan = seconds(wan) if wan else DEFAULT_WAN_DELAY_S
    per_hop = (PACKET_BYTES + ACK_BYTES) * 8 / LINK_BPS
    intra = 2 * 6 * LINK_DELAY_S + 6 * per_hop
    inter = 2 * (8 * LINK_DELAY_S + d_wan) + 9 * per_hop
    return intra, inter


def flow_classes(flows: pd.DataFrame) -> pd.Series:
    inter = (flows["src"] // HOSTS_PER_DC) != (flows["dst"] // HOSTS_PER_DC)
    return inter.map({True: "inter", False: "intra"})


def derive_fct(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """One row per flow class (all, intra, inter): flows, completed, mean and p99 FCT (µs)
    and slowdown, over the completed flows."""
    flows = results.flows
    intra_rtt, inter_rtt = base_rtts_s(results.manifest["scenario"])
    cls = flow_classes(flows)
    fct_s = flows["fct_ps"].astype(float) * 1e-12
    ideal_s = np.where(cls == "inter", inter_rtt, intra_rtt) + flows["size_bytes"] * 8 / LINK_BPS
    d = pd.DataFrame({"class": cls, "fct_us": fct_s * 1e6, "slowdown": np.maximum(1.0, fct_s / ideal_s), "completed": flows["completed"]})
    rows = []
    for name in CLASSES:
        sel = d if name == "all" else d[d["class"] == name]
        done = sel[sel["completed"]]
        rows.append(
            {
                "class": name,
                "flows": len(sel),
                "completed": len(done),
                "mean_fct_us": float(done["fct_us"].mean()) if len(done) else np.nan,
                "p99_fct_us": float(np.percentile(done["fct_us"], 99)) if len(done) else np.nan,
                "mean_slowdown": float(done["slowdown"].mean()) if len(done) else np.nan,
                "p99_slowdown": float(np.percentile(done["slowdown"], 99)) if len(done) else np.nan,
            }
        )
    return pd.DataFrame(rows)


def value(df: pd.DataFrame, variant: str, cls: str, stat: str, **where: Any) -> float:
    """One number of the sweep table: ``stat`` (a column) of ``variant`` for class ``cls``,
    averaged over seeds and any rows matching ``where`` (axis values)."""
    sel = df[(df["variant"] == variant) & (df["class"] == cls)]
    for k, v in where.items():
        sel = sel[sel[k] == v]
    if sel.empty:
        raise KeyError(f"no runs for variant={variant}, class={cls}, {where}")
    if (sel["completed"] < sel["flows"]).any():
        raise ValueError(f"{variant} {cls} {where}: {int((sel['flows'] - sel['completed']).sum())} flows did not complete")
    return float(sel[stat].mean())


def lowest(df: pd.DataFrame, variant: str, cls: str, stat: str, **where: Any) -> bool:
    """Whether ``variant`` has the smallest ``stat`` of all schemes in the table."""
    schemes = [v for v in SCHEMES if v in set(df["variant"])]
    mine = value(df, variant, cls, stat, **where)
    return all(mine <= value(df, v, cls, stat, **where) for v in schemes if v != variant)


def fct_bars(
    df: pd.DataFrame, group: str, groups: Sequence[Any], stat: str, classes: Sequence[str], *, scale: float = 1.0, unit: str = "µs", log: bool = False
) -> plt.Figure:
    """One panel per class, bars of ``stat`` per scheme grouped by ``group`` (as the paper)."""
    schemes = [v for v in SCHEMES if v in set(df["variant"])]
    fig, axes = plt.subplots(1, len(classes), figsize=(3.2 * len(classes), 2.6), squeeze=False)
    width = 0.8 / max(len(schemes), 1)
    for ax, cls in zip(axes[0], classes, strict=True):
        sub = df[df["class"] == cls]
        for i, v in enumerate(schemes):
            ys = [sub[(sub["variant"] == v) & (sub[group] == g)][stat].mean() * scale for g in groups]
            xs = np.arange(len(groups)) + (i - (len(schemes) - 1) / 2) * width
            ax.bar(xs, ys, width, label=SCHEMES[v])
        ax.set_xticks(np.arange(len(groups)), [str(g) for g in groups])
        ax.set_title(cls.capitalize(), fontsize=8)
        # `mean_fct_us` scaled to ms reads "mean FCT (ms)": the column's unit suffix goes.
        name = stat.removesuffix("_us").removesuffix("_ms").replace("_", " ").replace("fct", "FCT")
        ax.set_ylabel(f"{name} ({unit})")
        if log:
            ax.set_yscale("log")
    axes[0][0].legend(fontsize=6)
    return fig


def rates_with_jfi(results: Results) -> pd.DataFrame:
    """Per-flow sending rates (bytes sent, retransmissions included, per window of the
    ``rates`` table: the artifact's measure) while every flow still sends: one row per
    (window, flow) with the flow's class and the window's Jain index, for the windows
    before the first flow's last sending window (a flow sends its last bytes up to an RTT
    before it completes; that window is partial). A window in which a flow sent nothing
    counts as rate 0."""
    f = results.flows.set_index("flow_id")
    r = results.rates
    cols = ["time_ms", "flow_id", "inter", "rate_gbps", "jfi"]
    if r.empty:
        return pd.DataFrame({c: pd.Series(dtype=float) for c in cols})
    end_ps = r[r["sent_bytes"] > 0].groupby("flow_id")["time_ps"].max().min()
    times = np.sort(r["time_ps"].unique())
    times = times[times < end_ps]
    grid = pd.MultiIndex.from_product([times, f.index], names=["time_ps", "flow_id"])
    rates = r.set_index(["time_ps", "flow_id"])["sent_rate_bps"].reindex(grid, fill_value=0.0).reset_index()
    ends = f.loc[rates["flow_id"]]
    rates["inter"] = (ends["src"].to_numpy() // HOSTS_PER_DC) != (ends["dst"].to_numpy() // HOSTS_PER_DC)
    x = rates.groupby("time_ps")["sent_rate_bps"]
    jfi = (x.sum() ** 2 / (x.count() * x.apply(lambda v: (v**2).sum()))).rename("jfi")
    rates = rates.merge(jfi.reset_index(), on="time_ps")
    rates["time_ms"] = rates["time_ps"] / 1e9
    rates["rate_gbps"] = rates["sent_rate_bps"] / 1e9
    return rates[cols]


def jfi_series(rates: pd.DataFrame) -> pd.Series:
    """The Jain index per window (ms) of one run's ``rates_with_jfi`` rows."""
    return rates.drop_duplicates("time_ms").set_index("time_ms")["jfi"]


def min_jfi_after(rates: pd.DataFrame, from_ms: float = 100.0) -> float:
    """The smallest Jain index of the windows from ``from_ms`` on (while all flows send):
    the spec's fairness check is that it stays >= 0.9."""
    j = jfi_series(rates)
    after = j[j.index >= from_ms]
    if after.empty:
        raise ValueError(f"no rate window after {from_ms} ms (all flows must still run then)")
    return float(after.min())


def rate_lines(ax: Any, rates: pd.DataFrame, title: str) -> None:
    """One line per flow (blue inter, orange intra) and the fair share, dashed."""
    for _, g in rates.groupby("flow_id"):
        ax.plot(g["time_ms"], g["rate_gbps"], lw=0.6, color="C0" if g["inter"].iloc[0] else "C1")
    ax.axhline(FAIR_SHARE_GBPS, color="k", ls="--", lw=0.8)
    ax.set_title(title, fontsize=8)
    ax.set_xlabel("time (ms)")
    ax.set_ylim(0, 100)


# ---- Fig 13: failures ---------------------------------------------------------------------

FAILURE_SCHEMES = {"spray": "Spraying", "unolb": "UnoLB", "plb": "PLB"}


def derive_failure(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """A Fig 13 run: its flows' mean and p99 FCT (ms; numpy's linear p99, as the artifact's
    violin script), and how many finished (an unfinished flow leaves both null)."""
    f = results.flows
    done = f[f["completed"]]
    fct_ms = done["fct_ps"].astype(float).to_numpy() / 1e9
    whole = len(done) == len(f)
    return pd.DataFrame(
        [
            {
                "flows": len(f),
                "completed": len(done),
                "mean_fct_ms": float(fct_ms.mean()) if whole else np.nan,
                "p99_fct_ms": float(np.percentile(fct_ms, 99)) if whole else np.nan,
            }
        ]
    )


def failure_means(df: pd.DataFrame, col: str = "mean_fct_ms") -> pd.Series:
    """Per variant: the mean over seeds of each run's ``col``."""
    return df.groupby("variant")[col].mean()


def failure_mean_ratio(df: pd.DataFrame, a: str, b: str, col: str = "mean_fct_ms") -> float:
    """Variant a's mean over seeds of ``col`` over variant b's."""
    m = failure_means(df, col)
    return float(m[a] / m[b])


def failure_violins(df: pd.DataFrame, ylabel: str, col: str = "mean_fct_ms") -> Any:
    """Violins of the per-seed values of ``col``, one per variant, with each one's p99 marked."""
    import matplotlib.pyplot as plt

    variants = [v for v in df["variant"].drop_duplicates()]
    data = [df[df["variant"] == v][col].dropna().to_numpy() for v in variants]
    fig, ax = plt.subplots(figsize=(7, 3.2))
    shown = [(i, d) for i, d in enumerate(data) if len(d)]
    ax.violinplot([d for _, d in shown], positions=[i for i, _ in shown], showmeans=True)
    ax.scatter([i for i, _ in shown], [np.percentile(d, 99) for _, d in shown], marker="_", s=200, color="k", label="p99")
    ax.set_xticks(range(len(variants)), variants, fontsize=7)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7)
    return fig
