"""The figures a burst study draws: a host timeline (Fig. 1), CDFs (Figs. 2a-c, 4b, 4c) and
flow-count stability over snapshots (Fig. 3)."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.bursts.analysis import Bursts
from fanin.bursts.counters import KEYS, PS_PER_S

PathLike = str | os.PathLike[str]


def busiest(found: Bursts) -> dict[str, str]:
    """The host snapshot with the most bytes in bursts (the default timeline)."""
    hosts = found.hosts.sort_values(["burst_bytes", "ingress_bytes"], ascending=False, kind="stable")
    return {k: str(hosts.iloc[0][k]) for k in KEYS}


def timeline(
    counters: pd.DataFrame, found: Bursts, path: PathLike, series: dict[str, str] | None = None, window_s: float = 2.0
) -> Path:
    """Fig. 1: ingress rate, active flows, CE rate and retransmission rate of one host, first ``window_s``."""
    return _save(timeline_figure(counters, found, series, window_s), path)


def timeline_figure(
    counters: pd.DataFrame, found: Bursts, series: dict[str, str] | None = None, window_s: float = 2.0
) -> plt.Figure:
    """:func:`timeline`'s figure, unsaved (``series``: the host snapshot, default the busiest)."""
    key = series or busiest(found)
    mask = np.logical_and.reduce([counters[k] == v for k, v in key.items()])
    s = counters[mask].sort_values("bin_start_ps")
    s = s[s["bin_start_ps"] < window_s * PS_PER_S]
    host = found.hosts[np.logical_and.reduce([found.hosts[k] == v for k, v in key.items()])].iloc[0]
    t_ms = s["bin_start_ps"] / 1e9
    to_gbps = 8 * PS_PER_S / s["bin_ps"] / 1e9
    rate_g = host["line_rate_bps"] / 1e9
    fig, ax = plt.subplots(4, 1, figsize=(8, 8), sharex=True)
    panels = [
        (s["ingress_bytes"] * to_gbps, "ingress (Gbit/s)"),
        (s["connections"], "active flows"),
        (s["in_ce_bytes"] * to_gbps, "CE-marked (Gbit/s)"),
        (s["in_rxmit_bytes"] * to_gbps, "retransmitted (Gbit/s)"),
    ]
    for a, (y, label) in zip(ax, panels, strict=True):
        a.step(t_ms, y, where="post", lw=0.8)
        a.set_ylabel(label)
        a.grid(alpha=0.3)
    for a in (ax[0], ax[2], ax[3]):
        a.axhline(rate_g, color="k", ls=":", lw=0.8)
    ax[0].axhline(rate_g / 2, color="r", ls="--", lw=0.8, label="burst threshold (50% of line rate)")
    ax[0].legend(loc="upper right", fontsize=8)
    ax[1].axhline(25, color="r", ls="--", lw=0.8)
    ax[-1].set_xlabel("time (ms)")
    where = key["dataset"] if key["dataset"] == key["snapshot"] else f"{key['dataset']} {key['snapshot']}"
    fig.suptitle(
        f"{where} host {key['host']}: utilisation {host['utilisation']:.1%}, "
        f"{host['bursts']} bursts, R = {rate_g:g} Gbit/s (first {window_s:g} s)",
        fontsize=10,
    )
    return fig


def _cdf(ax: plt.Axes, values: pd.Series, label: str) -> None:
    v = np.sort(values.dropna().to_numpy(dtype=float))
    if len(v):
        ax.step(v, np.arange(1, len(v) + 1) / len(v), where="post", label=f"{label} (n={len(v)})")


def cdfs(found: Bursts, path: PathLike) -> Path:
    """Figs. 2a-c, 4b, 4c: one line per dataset."""
    return _save(cdfs_figure(found), path)


def cdfs_figure(found: Bursts) -> plt.Figure:
    """:func:`cdfs`'s figure, unsaved."""
    fig, ax = plt.subplots(1, 5, figsize=(20, 3.8))
    b, h = found.bursts, found.hosts
    for dataset in h["dataset"].unique():
        bd = b[b["dataset"] == dataset]
        _cdf(ax[0], h.loc[h["dataset"] == dataset, "bursts_per_s"], dataset)
        _cdf(ax[1], bd["duration_ps"] / 1e9, dataset)
        _cdf(ax[2], bd["flows"], dataset)
        _cdf(ax[3], bd["ecn_pct"], dataset)
        _cdf(ax[4], bd["rxmit_pct"], dataset)
    labels = [
        "(a) bursts per second (per host snapshot)",
        "(b) burst duration (ms)",
        "(c) active flows per burst",
        "ECN-marked bytes (% of burst)",
        "retransmissions (% of line rate)",
    ]
    for a, label in zip(ax, labels, strict=True):
        a.set_xlabel(label)
        a.set_ylabel("CDF")
        a.grid(alpha=0.3)
    ax[2].axvline(25, color="r", ls="--", lw=0.8)
    ax[0].legend(fontsize=7)
    return fig


def stability(found: Bursts, path: PathLike) -> Path:
    """Fig. 3: (a) mean flows per burst in each snapshot; (b) per host mean and p99 over snapshots."""
    return _save(stability_figure(found), path)


def stability_figure(found: Bursts) -> plt.Figure:
    """:func:`stability`'s figure, unsaved."""
    fig, ax = plt.subplots(1, 2, figsize=(12, 4))
    per_snapshot = found.bursts.groupby(["dataset", "snapshot"], sort=True)["flows"].mean().reset_index()
    for dataset, g in per_snapshot.groupby("dataset", sort=False):
        ax[0].plot(g["snapshot"], g["flows"], marker="o", label=dataset)
    ax[0].set_xlabel("snapshot")
    ax[0].set_ylabel("mean active flows per burst")
    ax[0].tick_params(axis="x", rotation=60, labelsize=7)
    st = found.stability.reset_index(drop=True)
    x = np.arange(len(st))
    ax[1].scatter(x, st["flows_mean"], marker="o", label="mean")
    ax[1].scatter(x, st["flows_p99"], marker="^", label="p99")
    ax[1].set_xticks(x, st["host"], rotation=60, fontsize=6)
    ax[1].set_xlabel("host")
    ax[1].set_ylabel("active flows per burst (over snapshots)")
    for a in ax:
        a.grid(alpha=0.3)
        a.legend(fontsize=7)
    return fig


def _save(fig: plt.Figure, path: PathLike) -> Path:
    p = Path(path)
    fig.tight_layout()
    fig.savefig(p, dpi=120)
    plt.close(fig)
    return p
