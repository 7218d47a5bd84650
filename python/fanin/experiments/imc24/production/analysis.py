"""Figs. 1, 2a-c, 3 and 4b-c of IMC '24 drawn with `fanin bursts`'s own functions from
the 1 ms host counters of a simulated rack (two aggregator, two storage and two video
hosts answering request/response incasts), plus, when a testbed run is given, the
counters a real kernel-TCP incast left in Millisampler files. Every claim is
report-only: the paper's numbers are production measurements, the rack is fanin's
choice of services."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.bursts import plots
from fanin.imc24 import production

derive = production.rack_counters


def _found(data: pd.DataFrame):
    return production.bursts_of(data)


def _bursts(data: pd.DataFrame, services: tuple[str, ...] = ()) -> pd.DataFrame:
    b = _found(data).bursts
    return b[b["dataset"].isin(services)] if services else b


def aggregator_utilisation(data) -> float:
    """Fig. 1: mean utilisation of the aggregator host snapshots."""
    h = _found(data).hosts
    return float(h.loc[h["dataset"] == "aggregator", "utilisation"].mean())


def aggregator_max_flows(data) -> float:
    """Fig. 1: the most active flows in an aggregator burst."""
    return float(_bursts(data, ("aggregator",))["flows"].max())


def bursts_per_s_p50(data) -> float:
    """Fig. 2a: median bursts per second over host snapshots."""
    return float(_found(data).hosts["bursts_per_s"].median())


def short_share(data) -> float:
    """Fig. 2b: share of bursts of 1-2 ms."""
    return float((_bursts(data)["duration_ps"] <= 2e9).mean())


def incast_share(data) -> float:
    """Fig. 2c: share of bursts with more than 25 active flows."""
    return float(_bursts(data)["incast"].mean())


def flows_p99(data) -> float:
    """Fig. 2c: p99 of active flows per burst."""
    return float(_bursts(data)["flows"].quantile(0.99))


def small_share_storage_aggregator(data) -> float:
    """Fig. 2c: share of storage and aggregator bursts with fewer than 20 flows."""
    return float((_bursts(data, ("storage", "aggregator"))["flows"] < 20).mean())


def video_snapshot_cv(data) -> float:
    """Fig. 3a: coefficient of variation over snapshots of video's mean flows per burst."""
    b = _bursts(data, ("video",))
    m = b.groupby("snapshot")["flows"].mean()
    return float(m.std(ddof=0) / m.mean())


def ecn_pct_p95(data) -> float:
    """Fig. 4b: p95 of the ECN-marked share of a burst's bytes (%)."""
    return float(_bursts(data)["ecn_pct"].quantile(0.95))


def unmarked_share(data) -> float:
    """Fig. 4b: share of bursts with no CE-marked byte."""
    return float((_bursts(data)["ce_bytes"] == 0).mean())


def rxmit_share(data) -> float:
    """Fig. 4c: share of bursts with retransmitted bytes."""
    return float((_bursts(data)["rxmit_bytes"] > 0).mean())


def _note(text: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(8, 1.2))
    ax.axis("off")
    ax.text(0.0, 0.5, text, fontsize=8, va="center", wrap=True)
    return fig


def testbed_figure() -> plt.Figure:
    """The testbed's counters as Figs. 1 and 2a-c / 4b-c, or the reason they are skipped."""
    counters, why = production.testbed_counters()
    if counters is None:
        return _note(f"Real kernel-TCP incast (namespace testbed, eBPF collector): {why}")
    return plots.cdfs_figure(production.bursts_of(counters))


def plot(data):
    found = _found(data)
    aggregator = found.hosts[found.hosts["dataset"] == "aggregator"].sort_values("snapshot").iloc[0]
    series = {k: str(aggregator[k]) for k in ("dataset", "source", "snapshot", "rack", "host")}
    counters = data[[c for c in data.columns if c not in ("variant", "seed")]]
    out = {
        "fig1": plots.timeline_figure(counters, found, series),
        "fig2-4": plots.cdfs_figure(found),
        "fig3": plots.stability_figure(found),
        "testbed": testbed_figure(),
    }
    return out
