"""DCTCP's queue bound: after the first round trips the queue peaks near K + N packets.

"Steady state" is the middle of the incast, from 20% to 80% of its completion time: the
first round trips (every sender's initial window at once) and the tail (senders finishing)
are excluded. The window was fixed before any run.
"""

from __future__ import annotations

import tomllib
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results
from fanin.catalog.plots import mean_minmax

STEADY = (0.2, 0.8)
"""The part of the incast completion time counted as steady state."""


def _pkts(quantity: str) -> int:
    return int(str(quantity).removesuffix("pkt"))


def _steady(results: Results) -> pd.DataFrame:
    q, inc = results.queues, results.incasts
    t0, t1 = int(inc["first_start_ps"].min()), int(inc["last_finish_ps"].max())
    lo, hi = t0 + STEADY[0] * (t1 - t0), t0 + STEADY[1] * (t1 - t0)
    return q[(q["time_ps"] >= lo) & (q["time_ps"] <= hi)]


def summary(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """One row per run: steady-state peak and mean queue, K, drops, marks, ICT vs ideal."""
    doc = tomllib.loads(results.manifest["scenario"])
    queue = doc["switch"]["queue"]
    marking = queue.get("marking", {})
    k = _pkts(marking["threshold"]) if marking.get("kind") == "step" else -1
    steady = _steady(results)
    inc = results.incasts
    return pd.DataFrame(
        {
            "K_pkts": [k],
            "limit_pkts": [_pkts(queue["limit"])],
            "init_cwnd_pkts": [_pkts(doc["transport"]["init_cwnd"])],
            "peak_queue_pkts": [int(steady["packets"].max())],
            "mean_queue_pkts": [float(steady["packets"].mean())],
            "max_queue_pkts": [int(results.queues["packets"].max())],
            "drops": [int(results.summary.get("drops", 0))],
            "marks": [int(results.summary.get("marks", 0))],
            "ict_ps": [int(inc["ict_ps"].max())],
            "ideal_ict_ps": [int(inc["ideal_ict_ps"].max())],
            "completed": [bool(inc["completed"].all())],
        }
    )


def series(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """The bottleneck queue every 10 us (for the figure; the run records it every 1 us)."""
    q = results.queues
    q = q[q["time_ps"] % 10_000_000 == 0]
    return pd.DataFrame({"time_ps": q["time_ps"], "packets": q["packets"]})


derive = {"summary": summary, "series": series}


def _runs(data: dict[str, pd.DataFrame], variant: str) -> pd.DataFrame:
    s = data["summary"]
    return s[s["variant"] == variant]


def dctcp_peak_over_bound(data: dict[str, pd.DataFrame]) -> float:
    """max over N and seeds of DCTCP's steady-state peak queue / (K + N)."""
    d = _runs(data, "dctcp")
    return float((d["peak_queue_pkts"] / (d["K_pkts"] + d["N"])).max())


def dctcp_drops_initial_windows_fit(data: dict[str, pd.DataFrame]) -> float:
    """DCTCP's drops in the runs where every sender's initial window fits in the buffer at once."""
    d = _runs(data, "dctcp")
    return float(d[d["N"] * d["init_cwnd_pkts"] <= d["limit_pkts"]]["drops"].sum())


def newreno_peak_share_of_buffer(data: dict[str, pd.DataFrame]) -> float:
    """min over N and seeds of NewReno's steady-state peak queue / buffer limit."""
    d = _runs(data, "newreno")
    return float((d["peak_queue_pkts"] / d["limit_pkts"]).min())


def dctcp_mean_queue_below_newreno(data: dict[str, pd.DataFrame]) -> bool:
    """At every N, DCTCP's mean steady-state queue is below NewReno's."""
    m = data["summary"].groupby(["N", "variant"])["mean_queue_pkts"].mean().unstack()
    return bool((m["dctcp"] < m["newreno"]).all())


def worst_ict_over_ideal(data: dict[str, pd.DataFrame]) -> float:
    s = data["summary"]
    if not s["completed"].all():
        return float("inf")
    return float((s["ict_ps"] / s["ideal_ict_ps"]).max())


def plot(data: dict[str, pd.DataFrame]) -> dict[str, plt.Figure]:
    s, ser = data["summary"], data["series"]
    n_show = int(s["N"].max())
    fig_t, ax = plt.subplots()
    for variant, style in (("newreno", "-"), ("dctcp", "-")):
        d = ser[(ser["variant"] == variant) & (ser["N"] == n_show) & (ser["seed"] == ser["seed"].min())]
        ax.plot(d["time_ps"] / 1e9, d["packets"], style, lw=0.8, label=variant)
    k = int(s["K_pkts"].max())
    ax.axhline(k, color="k", ls=":", lw=0.8, label=f"K = {k}")
    ax.axhline(k + n_show, color="k", ls="--", lw=0.8, label=f"K + N = {k + n_show}")
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("queue length (packets)")
    ax.set_title(f"{n_show}-to-1 incast")
    ax.legend(loc="upper right")

    fig_n, ax = plt.subplots()
    for variant, marker in (("newreno", "s"), ("dctcp", "o")):
        mean_minmax(ax, _runs(data, variant), "N", "peak_queue_pkts", fmt=marker + "-", label=f"{variant} peak")
    ns = np.array(sorted(s["N"].unique()))
    ax.plot(ns, k + ns, "k--", lw=0.8, label="K + N")
    ax.set_xlabel("senders N")
    ax.set_ylabel("steady-state peak queue (packets)")
    ax.legend()
    return {"queue": fig_t, "peak": fig_n}
