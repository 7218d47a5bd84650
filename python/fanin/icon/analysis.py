"""Reductions of one ICON run, and the pooled statistics over seeds.

The spec (`icon.md` §2, Metrics) pools the flows of the three seeds before taking
percentiles. A run's flows are reduced in its worker to a histogram of flow completion
times on geometric bins 0.2 % wide (exact enough for a percentile, small enough to keep
for a hundred runs); the histograms of a point's seeds add up, and the percentile is read
from the sum.
"""

from __future__ import annotations

import re
import tomllib

from typing import Any

import numpy as np
import pandas as pd

from fanin import Results

#: Flows of this size and above are the long flows (1 MB); the rest are U[8, 32] KB.
LONG_BYTES = 1_000_000
#: The paper's four schemes (Figs 4-8, legend order), then ICON under the introduction's
#: reading of its rate (each sender C / n; spec §4.1), run beside Eq. 1's.
SCHEMES = ("dctcp", "ictcp", "ia_icon", "icon", "icon_fair")
#: The schemes ICON is compared with.
BASELINES = ("dctcp", "ictcp", "ia_icon")
LABELS = {"dctcp": "DCTCP", "ictcp": "ICTCP", "ia_icon": "IA-ICON", "icon": "ICON (Eq. 1)", "icon_fair": "ICON (C/n)"}

# FCT histogram bins: edges 1 us x 1.002^k (ps), up to past 100 s.
_BIN_RATIO = 1.002
_BIN_FIRST_PS = 1e6


def _bin_of(fct_ps: np.ndarray) -> np.ndarray:
    return np.floor(np.log(np.maximum(fct_ps, _BIN_FIRST_PS) / _BIN_FIRST_PS) / np.log(_BIN_RATIO)).astype(np.int64)


def _bin_value_ms(bins: np.ndarray) -> np.ndarray:
    """A bin's geometric middle, in milliseconds."""
    return _BIN_FIRST_PS * _BIN_RATIO ** (bins + 0.5) / 1e9


def fct_histogram(flows: pd.DataFrame, cls: str) -> pd.DataFrame:
    """Completed flows' FCTs as (class, bin, count) rows."""
    done = flows[flows["completed"]]
    if not len(done):
        return pd.DataFrame({"cls": pd.Series(dtype=str), "bin": pd.Series(dtype="int64"), "count": pd.Series(dtype="int64")})
    bins = _bin_of(done["fct_ps"].astype("float64").to_numpy())
    b, n = np.unique(bins, return_counts=True)
    return pd.DataFrame({"cls": cls, "bin": b, "count": n})


def pooled_quantile(hist: pd.DataFrame, q: float) -> float:
    """The q-quantile (ms) of the flows in ``hist`` (rows of one or more runs, one class)."""
    h = hist.groupby("bin")["count"].sum().sort_index()
    total = h.sum()
    if total == 0:
        return float("nan")
    idx = int(np.searchsorted(h.cumsum().to_numpy(), q * total, side="left"))
    return float(_bin_value_ms(np.asarray([h.index[min(idx, len(h) - 1)]]))[0])


def _switch_ports(ports: pd.DataFrame) -> pd.DataFrame:
    """Switch egress ports (a host's NIC is named `h<i>->...`)."""
    return ports[~ports["port_name"].str.match(r"h\d+->")]


def run_summary(results: Results) -> dict[str, Any]:
    """One run's scalars: flows measured and unfinished, long-flow throughput sums, drops."""
    f = results.flows
    m = f[f["measured"]]
    long = m[m["size_bytes"] >= LONG_BYTES]
    short = m[m["size_bytes"] < LONG_BYTES]
    long_done = long[long["completed"]]
    gbps = 8.0 * long_done["size_bytes"].astype("float64") / long_done["fct_ps"].astype("float64") * 1e3
    sw = _switch_ports(results.ports)
    return {
        "short_flows": len(short),
        "short_unfinished": int((~short["completed"]).sum()),
        "incast_flows": int((short["incast_id"] >= 0).sum()),
        "long_flows": len(long),
        "long_unfinished": int((~long["completed"]).sum()),
        "long_gbps_sum": float(gbps.sum()),
        "long_done": len(long_done),
        "d_max": int(sw["dropped_pkts"].max()),
        "drops": int(sw["dropped_pkts"].sum()),
        "timeouts": int(m["timeouts"].sum()),
    }


def short_histograms(results: Results) -> pd.DataFrame:
    """FCT histograms of the measured short flows: all, incast responses, one-to-one."""
    f = results.flows
    short = f[f["measured"] & (f["size_bytes"] < LONG_BYTES)]
    parts = [
        fct_histogram(short, "short"),
        fct_histogram(short[short["incast_id"] >= 0], "incast"),
        fct_histogram(short[short["incast_id"] < 0], "one_to_one"),
    ]
    return pd.concat(parts, ignore_index=True)


def burst_durations_us(events: pd.DataFrame, end_ps: int) -> np.ndarray:
    """Durations (us) of the maximal intervals in which a traced port held >= 2 packets.

    ``events`` is a ``queue_events`` table (the length at every change); an interval still
    open at ``end_ps`` is cut there.
    """
    out: list[float] = []
    for _, q in events.sort_values(["port", "time_ps"], kind="stable").groupby("port"):
        t = q["time_ps"].to_numpy()
        busy = q["packets"].to_numpy() >= 2
        start = None
        for ti, b in zip(t, busy, strict=True):
            if b and start is None:
                start = ti
            elif not b and start is not None:
                out.append((ti - start) / 1e6)
                start = None
        if start is not None:
            out.append((end_ps - start) / 1e6)
    return np.asarray(out)


def queue_cdf(hist: pd.DataFrame) -> pd.DataFrame:
    """(packets_ahead, cdf) of arrivals pooled from an ``arrival_queues`` histogram."""
    h = hist.groupby("packets_ahead")["arrivals"].sum().sort_index()
    return pd.DataFrame({"packets_ahead": h.index.to_numpy(), "cdf": (h.cumsum() / h.sum()).to_numpy()})


def queue_quantile(hist: pd.DataFrame, q: float) -> float:
    c = queue_cdf(hist)
    if not len(c):
        return float("nan")
    return float(c["packets_ahead"].to_numpy()[np.searchsorted(c["cdf"].to_numpy(), q, side="left")])


# ---- derives shared by the figures (one function each, so runs and their reductions are
# cached once and reused by every figure that sweeps the same point) --------------------


def derive_runs(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame([run_summary(results)])


def derive_fct(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    return short_histograms(results)


def derive_arrival_queues(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """The run's ``arrival_queues`` pooled over the traced ports: (packets_ahead, arrivals)."""
    q = results.table("arrival_queues")
    h = q.groupby("packets_ahead", as_index=False)["arrivals"].sum()
    return h.astype({"packets_ahead": "int64", "arrivals": "int64"})


def derive_bursts(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """Durations (us) of the bursts at the traced ports within the measured window."""
    window = measure_window_ps(results)
    ev = results.table("queue_events")
    ev = ev[(ev["time_ps"] >= window[0]) & (ev["time_ps"] < window[1])]
    return pd.DataFrame({"duration_us": burst_durations_us(ev, window[1])})


def measure_window_ps(results: Results) -> tuple[int, int]:
    """The scenario's ``[measure]`` window in picoseconds (the whole run without one)."""
    m = tomllib.loads(results.manifest.get("scenario", "")).get("measure", {})
    return _ps(m.get("from", "0s")), _ps(m.get("until", "1000000s"))


_UNIT_PS = {"ps": 1, "ns": 10**3, "us": 10**6, "ms": 10**9, "s": 10**12}


def _ps(t: str) -> int:
    m = re.fullmatch(r"\s*([0-9.]+)\s*(ps|ns|us|ms|s)\s*", t)
    if m is None:
        raise ValueError(f"measure: {t!r} is not a time such as '10ms'")
    return round(float(m.group(1)) * _UNIT_PS[m.group(2)])
