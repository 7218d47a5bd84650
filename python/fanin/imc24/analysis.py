"""Reducing an IMC '24 run (an ``rpc_incast`` with ``queue_events``) to what its figures need.

Every rule here was fixed before looking at results:

* **Measured bursts**: bursts 2-11 (index >= 1); burst 1 starts every connection in slow
  start and is left out, as in the paper.
* **Mid-burst**: from 2 ms after the burst start to 1 ms before its end (the spec's window).
* **Queue**: the bottleneck's queue-disc length (``tor_a->r0``), a step function of time
  recorded at every change.
* **Mode of a burst**: ``timeouts`` if any retransmission timeout fired during it; else
  ``degenerate`` if the mid-burst queue never falls below K and the median window at the
  responses' start is 1 MSS; else ``healthy``. A burst also has ``stragglers`` when some
  response starts with a window of at least 4 MSS (flows that grew in the previous tail).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from fanin import Results

from .scenario import BDP_PKTS, FRAME_BYTES, HOST_RATE_BPS, K_PKTS, MSS_BYTES

BOTTLENECK = "tor_a->r0"
MID_FROM_PS = 2_000_000_000
MID_TO_END_PS = 1_000_000_000
FIRST_MS_PS = 1_000_000_000
GRID_PS = 10_000_000  # the figures' 10 us step grid
STRAGGLER_MSS = 4
DISC_CAPACITY_PKTS = 1334
PKT_TIME_US = FRAME_BYTES * 8 / HOST_RATE_BPS * 1e6  # 1.2016 us per packet at 10 Gb/s


def queue_steps(results: Results, port: str = BOTTLENECK) -> tuple[np.ndarray, np.ndarray]:
    """The queue-disc length of ``port`` as steps: value ``v[i]`` from ``t[i]`` on."""
    q = results.table("queue_events")
    q = q[q["port_name"] == port]
    t = np.concatenate([[0], q["time_ps"].to_numpy(np.int64)])
    v = np.concatenate([[0], q["packets"].to_numpy(np.int64)])
    return t, v


def _window(t: np.ndarray, v: np.ndarray, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """The steps restricted to [a, b): times clipped to a, the level at a included."""
    i = max(int(np.searchsorted(t, a, side="right")) - 1, 0)
    j = max(int(np.searchsorted(t, b, side="left")), i + 1)  # a burst that never ended: its start
    tt = t[i:j].copy()
    tt[0] = a
    return tt, v[i:j]


def step_stats(t: np.ndarray, v: np.ndarray, a: int, b: int) -> dict[str, float]:
    """Time-weighted statistics of a step function over [a, b)."""
    if b <= a:
        nan = float("nan")
        return dict(mean=nan, min=nan, max=nan, below_k=nan, down_crossings=nan, integral=nan)
    tt, vv = _window(t, v, a, b)
    dt = np.diff(np.append(tt, b)).astype(float)
    span = float(b - a)
    down = int(np.sum((vv[:-1] >= K_PKTS) & (vv[1:] < K_PKTS)))
    return dict(
        mean=float(np.sum(dt * vv) / span),
        min=float(vv.min()),
        max=float(vv.max()),
        below_k=float(np.sum(dt[vv < K_PKTS]) / span),
        down_crossings=float(down),
        integral=float(np.sum(dt * vv)),
    )


def burst_table(results: Results, point: dict[str, Any] | None = None) -> pd.DataFrame:
    """One row per burst: BCT, drops, timeouts, CE share, queue statistics, start windows, mode."""
    b = results.table("bursts")
    resp = results.table("responses")
    t, v = queue_steps(results)
    # A burst the run's end cut off is looked at up to that end; its counts are null.
    run_end = int(results.summary.get("sim_end_ps", 0))
    rows = []
    for _, x in b.iterrows():
        done = bool(x["completed"])
        start, end = int(x["start_ps"]), int(x["end_ps"]) if done else run_end
        whole = step_stats(t, v, start, end)
        mid = step_stats(t, v, start + MID_FROM_PS, end - MID_TO_END_PS)
        first = step_stats(t, v, start, min(end, start + FIRST_MS_PS))
        tt, vv = _window(t, v, start, end)
        full = np.nonzero(vv >= DISC_CAPACITY_PKTS - 1)[0]
        cw = resp[resp["burst"] == x["burst"]]["start_cwnd_bytes"].to_numpy() / MSS_BYTES
        median_cwnd = float(np.median(cw))
        if not done:
            mode = "unfinished"
        elif x["timeouts"] > 0:
            mode = "timeouts"
        elif mid["min"] >= K_PKTS and median_cwnd == 1.0:
            mode = "degenerate"
        else:
            mode = "healthy"
        n, size = int(x["degree"]), int(x["response_bytes"])
        wire = n * (size + -(-size // MSS_BYTES) * (FRAME_BYTES - 1500 + 52))
        rows.append(
            dict(
                burst=int(x["burst"]),
                measured=bool(x["burst"] >= 1),
                completed=done,
                bct_ms=(end - start) / 1e9 if done else float("nan"),
                min_bct_ms=wire * 8 / HOST_RATE_BPS * 1e3,
                throughput_gbps=n * size * 8 / ((end - start) / 1e12) / 1e9 if done else float("nan"),
                drops=int(x["drops"]) if done else None,
                timeouts=int(x["timeouts"]) if done else None,
                ce_share=float(x["ce_bytes"] / x["rx_bytes"]) if x["rx_bytes"] else float("nan"),
                mean_queue=whole["mean"],
                max_queue=whole["max"],
                delay_us=whole["mean"] * PKT_TIME_US,
                share_at_or_above_k=1.0 - whole["below_k"],
                mid_mean=mid["mean"],
                mid_min=mid["min"],
                mid_max=mid["max"],
                mid_below_k=mid["below_k"],
                mid_at_or_above_k=1.0 - mid["below_k"],
                mid_down_crossings=mid["down_crossings"],
                first_ms_peak=first["max"],
                first_ms_share=first["integral"] / whole["integral"] if whole["integral"] > 0 else float("nan"),
                full_at_ms=(int(tt[full[0]]) - start) / 1e9 if len(full) else float("nan"),
                median_start_cwnd_mss=median_cwnd,
                max_start_cwnd_mss=float(cw.max()),
                mode=mode,
                stragglers=bool(cw.max() >= STRAGGLER_MSS),
                bdp_pkts=BDP_PKTS,
            )
        )
    frame = pd.DataFrame(rows)
    if len(frame):
        frame[["drops", "timeouts"]] = frame[["drops", "timeouts"]].astype("Int64")
    return frame


def queue_grid(results: Results, point: dict[str, Any] | None = None) -> pd.DataFrame:
    """The queue disc on a 10 us grid from each measured burst's start, averaged over bursts."""
    b = results.table("bursts")
    b = b[(b["burst"] >= 1) & b["completed"]]
    if b.empty:
        return pd.DataFrame({"t_us": [], "packets": []})
    t, v = queue_steps(results)
    longest = int((b["end_ps"] - b["start_ps"]).max())
    offsets = np.arange(0, longest + GRID_PS, GRID_PS, dtype=np.int64)
    acc = np.zeros(len(offsets))
    for start, end in zip(b["start_ps"], b["end_ps"], strict=True):
        at = int(start) + offsets
        level = v[np.searchsorted(t, at, side="right") - 1].astype(float)
        level[at > int(end)] = 0.0  # the burst is over: nothing of it is queued
        acc += level
    return pd.DataFrame({"t_us": offsets / 1e6, "packets": acc / len(b)})


def inflight_samples(results: Results) -> pd.DataFrame:
    """Window samples of active responses in measured bursts, with time from the burst start."""
    w = results.table("windows")
    b = results.table("bursts")
    b = b[(b["burst"] >= 1) & b["completed"]]
    starts = b["start_ps"].to_numpy(np.int64)
    ends = b["end_ps"].to_numpy(np.int64)
    tw = w["time_ps"].to_numpy(np.int64)
    i = np.searchsorted(starts, tw, side="right") - 1
    ok = (i >= 0) & (tw <= ends[np.clip(i, 0, None)])
    s = w[ok].copy()
    s["burst_start_ps"] = starts[i[ok]]
    s["burst_end_ps"] = ends[i[ok]]
    s["t_us"] = (s["time_ps"] - s["burst_start_ps"]) / 1e6
    return s


def inflight_bands(results: Results, point: dict[str, Any] | None = None) -> pd.DataFrame:
    """Fig 7: per 10 us of burst time, the pooled per-flow bytes in flight (KB): mean and
    the p0/25/50/75/95/100 bands, and the total over flows / BDP."""
    s = inflight_samples(results)
    s["bin_us"] = (s["t_us"] // (GRID_PS / 1e6)) * (GRID_PS / 1e6)
    kb = s["in_flight_bytes"] / 1e3
    g = kb.groupby(s["bin_us"])
    out = pd.DataFrame({"mean_kb": g.mean()})
    for p in (0, 25, 50, 75, 95, 100):
        out[f"p{p}_kb"] = g.quantile(p / 100)
    bursts = s["burst_start_ps"].nunique()
    total = s.groupby(["bin_us", "time_ps"])["in_flight_bytes"].sum().groupby(level=0).mean()
    out["total_over_bdp"] = total / (BDP_PKTS * 1500)
    out["bursts"] = bursts
    return out.reset_index().rename(columns={"bin_us": "t_us"})


def inflight_summary(results: Results, point: dict[str, Any] | None = None) -> pd.DataFrame:
    """Fig 7's two numbers: mid-burst p100/p50 of bytes in flight, and the mean in the last
    millisecond over the mid-burst mean."""
    s = inflight_samples(results)
    rel_end = s["burst_end_ps"] - s["time_ps"]
    mid = s[(s["time_ps"] - s["burst_start_ps"] >= MID_FROM_PS) & (rel_end >= MID_TO_END_PS)]["in_flight_bytes"]
    tail = s[rel_end < FIRST_MS_PS]["in_flight_bytes"]
    return pd.DataFrame(
        {
            "mid_p50_bytes": [float(mid.quantile(0.5))],
            "mid_p100_bytes": [float(mid.max())],
            "mid_mean_bytes": [float(mid.mean())],
            "end_mean_bytes": [float(tail.mean())],
        }
    )
