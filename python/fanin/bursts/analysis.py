"""Bursts in host counters, with the definitions of Canel et al. (IMC '24, section 3).

- A *burst* is a maximal run of bins whose ingress rate, ``ingress_bytes·8/Δ``, is strictly
  above half the line rate R, measured at the receiving host.
- Its *duration* is bins x Δ; its *size* is the sum of ``ingress_bytes`` (ours: the paper
  defines no size); its *active flows* reduce the per-bin ``connections`` with ``max`` (the
  default) or ``mean``; it is an *incast* with more than 25 active flows.
- *ECN %* = 100·ΣinCE/Σingress; *retransmission %* = 100·ΣinRxmit/(R/8·duration), the paper's
  "% of NIC line rate"; *utilisation* = Σingress·8/(R·T) per host snapshot; *burst bytes
  share* = the share of the ingress bytes that fall in bursts.
- A burst that touches the first or last bin of its snapshot is kept and flagged ``truncated``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import pandas as pd

from fanin.bursts.counters import COLUMNS, KEYS, PS_PER_S, BurstInputError
from fanin.bursts.units import format_rate, parse_rate_bps

CANDIDATE_RATES_BPS = (10 * 10**9, 25 * 10**9, 50 * 10**9, 100 * 10**9, 200 * 10**9)
"""Line rates an inference may choose from (the spec's candidate set)."""

FRAME_SLACK_BYTES = 1538
"""A bin may hold one frame more than R·Δ (a frame straddling the bin edge is counted whole)."""

INCAST_FLOWS = 25
BURST_THRESHOLD = Fraction(1, 2)
FLOW_REDUCERS = ("max", "mean")
HOST = ("dataset", "source", "rack", "host")
"""A host across snapshots: its NIC, hence its line rate, does not change."""


@dataclass
class Bursts:
    """What :func:`find` measures, as DataFrames (columns in ``docs/bursts.md``)."""

    bursts: pd.DataFrame
    hosts: pd.DataFrame
    racks: pd.DataFrame
    stability: pd.DataFrame
    sensitivity: pd.DataFrame
    params: dict[str, Any] = field(default_factory=dict)

    def tables(self) -> dict[str, pd.DataFrame]:
        return {
            "bursts": self.bursts,
            "hosts": self.hosts,
            "racks": self.racks,
            "stability": self.stability,
            "sensitivity": self.sensitivity,
        }

    def summary(self) -> pd.DataFrame:
        """One row per dataset: the numbers ``fanin bursts`` prints."""
        return summarize(self.bursts, self.hosts)


# ------------------------------------------------------------------ line rate


def _rate_bps(bytes_: pd.Series, ps: pd.Series) -> pd.Series:
    """Bytes per interval as bits per second, in floats (bytes·8·10^12 overflows 64-bit integers)."""
    return bytes_.astype(np.float64) * (8 * PS_PER_S) / ps.astype(np.float64)


def _peak_bytes(counters: pd.DataFrame) -> pd.DataFrame:
    """Per host: the largest bin, as bytes and as a rate."""
    frame = counters[list(HOST)].assign(peak_rate_bps=_rate_bps(counters["ingress_bytes"], counters["bin_ps"]))
    return frame.groupby(list(HOST), sort=False, as_index=False)["peak_rate_bps"].max()


def infer_line_rate(peak_rate_bps: float, bin_ps: int) -> int | None:
    """The smallest candidate R whose bin (plus one frame of slack) holds the peak, or None."""
    slack_bps = FRAME_SLACK_BYTES * 8 * PS_PER_S / bin_ps
    return next((r for r in CANDIDATE_RATES_BPS if peak_rate_bps <= r + slack_bps), None)


def line_rates(counters: pd.DataFrame, given_bps: int | None) -> pd.DataFrame:
    """Per host: ``line_rate_bps`` and its ``line_rate_origin`` (given, recorded or inferred)."""
    peaks = _peak_bytes(counters)
    recorded = counters.groupby(list(HOST), sort=False, as_index=False)["line_rate_bps"].max()
    finest = counters.groupby(list(HOST), sort=False, as_index=False)["bin_ps"].min()
    table = peaks.merge(recorded, on=list(HOST)).merge(finest, on=list(HOST))
    rates, origins = [], []
    for row in table.itertuples(index=False):
        if given_bps:
            rates.append(given_bps), origins.append("given")
        elif row.line_rate_bps > 0:
            rates.append(int(row.line_rate_bps)), origins.append("recorded")
        else:
            r = infer_line_rate(row.peak_rate_bps, int(row.bin_ps))
            if r is None:
                raise BurstInputError(
                    f"host {row.host} ({row.dataset}): peak bin rate {format_rate(row.peak_rate_bps)}bps is above "
                    f"every candidate line rate ({', '.join(map(format_rate, CANDIDATE_RATES_BPS))}); give --line-rate"
                )
            rates.append(r), origins.append("inferred")
    return table[list(HOST)].assign(line_rate_bps=rates, line_rate_origin=origins)


# ------------------------------------------------------------------ bursts


def _threshold_bytes(rate_bps: pd.Series, bin_ps: pd.Series) -> np.ndarray:
    """Largest ingress_bytes that is not a burst bin: bytes·8/Δ > R/2  <=>  bytes > ⌊R·Δ/(16·10^12)⌋.

    Exact rational arithmetic (R·Δ overflows 64 bits), once per distinct (R, Δ) pair.
    """
    pairs = {(int(r), int(b)) for r, b in zip(rate_bps, bin_ps, strict=True)}
    threshold = {(r, b): math.floor(BURST_THRESHOLD * r * b / (8 * PS_PER_S)) for r, b in pairs}
    return np.fromiter(
        (threshold[(int(r), int(b))] for r, b in zip(rate_bps, bin_ps, strict=True)), np.int64, len(rate_bps)
    )


def _burst_rows(frame: pd.DataFrame, flows: str, incast_flows: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-burst table and per-series (host snapshot) bounds of the sorted, rated counters."""
    series = frame.groupby(list(KEYS), sort=False).ngroup().to_numpy()
    b = (frame["bin_start_ps"] // frame["bin_ps"]).to_numpy()
    hot = frame["ingress_bytes"].to_numpy() > _threshold_bytes(frame["line_rate_bps"], frame["bin_ps"])
    prev_hot = np.r_[False, hot[:-1]] & np.r_[False, series[1:] == series[:-1]] & np.r_[False, b[1:] == b[:-1] + 1]
    start = hot & ~prev_hot
    burst_id = np.where(hot, np.cumsum(start) - 1, -1)
    bounds = pd.DataFrame({"series": series, "bin": b}).groupby("series")["bin"].agg(["min", "max"])
    rows = frame.assign(
        series=series, bin=b, burst_id=burst_id, rate=_rate_bps(frame["ingress_bytes"], frame["bin_ps"])
    )[hot]
    agg = rows.groupby("burst_id", sort=True).agg(
        **{k: (k, "first") for k in KEYS},
        series=("series", "first"),
        first_bin=("bin", "min"),
        last_bin=("bin", "max"),
        bin_ps=("bin_ps", "first"),
        bins=("bin", "size"),
        bytes=("ingress_bytes", "sum"),
        flows_max=("connections", "max"),
        flows_mean=("connections", "mean"),
        ce_bytes=("in_ce_bytes", "sum"),
        rxmit_bytes=("in_rxmit_bytes", "sum"),
        peak_rate_bps=("rate", "max"),
        line_rate_bps=("line_rate_bps", "first"),
    )
    if agg.empty:
        return _empty_bursts(), bounds
    agg["burst"] = agg.groupby("series").cumcount()
    agg["start_ps"] = agg["first_bin"] * agg["bin_ps"]
    agg["duration_ps"] = agg["bins"] * agg["bin_ps"]
    agg["flows"] = agg[f"flows_{flows}"].astype(float)
    agg["incast"] = agg["flows"] > incast_flows
    agg["ecn_pct"] = 100 * agg["ce_bytes"] / agg["bytes"]
    agg["rxmit_pct"] = 100 * _rate_bps(agg["rxmit_bytes"], agg["duration_ps"]) / agg["line_rate_bps"]
    agg["truncated"] = (agg["first_bin"].to_numpy() == bounds["min"].reindex(agg["series"]).to_numpy()) | (
        agg["last_bin"].to_numpy() == bounds["max"].reindex(agg["series"]).to_numpy()
    )
    return agg[list(BURST_COLUMNS)].reset_index(drop=True), bounds


BURST_COLUMNS = (
    *KEYS,
    "burst",
    "start_ps",
    "bins",
    "bin_ps",
    "duration_ps",
    "bytes",
    "flows_max",
    "flows_mean",
    "flows",
    "incast",
    "ce_bytes",
    "ecn_pct",
    "rxmit_bytes",
    "rxmit_pct",
    "peak_rate_bps",
    "line_rate_bps",
    "truncated",
)


def _empty_bursts() -> pd.DataFrame:
    return pd.DataFrame({c: pd.Series([], dtype=object if c in KEYS else float) for c in BURST_COLUMNS})


def _host_rows(frame: pd.DataFrame, bursts: pd.DataFrame) -> pd.DataFrame:
    """Per host snapshot: utilisation, burst frequency, shares."""
    g = frame.assign(rate=_rate_bps(frame["ingress_bytes"], frame["bin_ps"])).groupby(list(KEYS), sort=False)
    hosts = g.agg(
        bin_ps=("bin_ps", "first"),
        bins=("bin_start_ps", "size"),
        line_rate_bps=("line_rate_bps", "first"),
        line_rate_origin=("line_rate_origin", "first"),
        ingress_bytes=("ingress_bytes", "sum"),
        peak_rate_bps=("rate", "max"),
    )
    hosts["duration_ps"] = hosts["bins"] * hosts["bin_ps"]
    per = bursts.groupby(list(KEYS), sort=False).agg(
        bursts=("burst", "size"),
        burst_bytes=("bytes", "sum"),
        incasts=("incast", "sum"),
        flows_mean=("flows", "mean"),
        flows_p99=("flows", lambda s: float(np.quantile(s, 0.99))),
        rxmit_bursts=("rxmit_bytes", lambda s: int((s > 0).sum())),
    )
    hosts = hosts.join(per, how="left")
    for c in ("bursts", "burst_bytes", "incasts", "rxmit_bursts"):
        hosts[c] = hosts[c].fillna(0).astype(np.int64)
    seconds = hosts["duration_ps"] / PS_PER_S
    hosts["bursts_per_s"] = hosts["bursts"] / seconds
    hosts["utilisation"] = _rate_bps(hosts["ingress_bytes"], hosts["duration_ps"]) / hosts["line_rate_bps"]
    hosts["burst_bytes_share"] = hosts["burst_bytes"] / hosts["ingress_bytes"].where(hosts["ingress_bytes"] > 0)
    hosts["incast_share"] = hosts["incasts"] / hosts["bursts"].where(hosts["bursts"] > 0)
    return hosts.reset_index()[list(HOST_COLUMNS)]


HOST_COLUMNS = (
    *KEYS,
    "bin_ps",
    "bins",
    "duration_ps",
    "line_rate_bps",
    "line_rate_origin",
    "ingress_bytes",
    "peak_rate_bps",
    "utilisation",
    "bursts",
    "bursts_per_s",
    "burst_bytes",
    "burst_bytes_share",
    "incasts",
    "incast_share",
    "flows_mean",
    "flows_p99",
    "rxmit_bursts",
)


def _p(q: float) -> Callable[[pd.Series], float]:
    return lambda s: float(np.quantile(s, q)) if len(s) else float("nan")


def _rack_rows(hosts: pd.DataFrame, bursts: pd.DataFrame) -> pd.DataFrame:
    """Per rack snapshot (hosts without a rack form the rack "")."""
    by = ["dataset", "source", "snapshot", "rack"]
    racks = hosts.groupby(by, sort=False).agg(
        hosts=("host", "size"),
        ingress_bytes=("ingress_bytes", "sum"),
        burst_bytes=("burst_bytes", "sum"),
        bursts=("bursts", "sum"),
        incasts=("incasts", "sum"),
        bursts_per_s_mean=("bursts_per_s", "mean"),
        utilisation_mean=("utilisation", "mean"),
    )
    flows = bursts.groupby(by, sort=False)["flows"].agg(flows_mean="mean", flows_p99=_p(0.99))
    racks = racks.join(flows, how="left")
    racks["burst_bytes_share"] = racks["burst_bytes"] / racks["ingress_bytes"].where(racks["ingress_bytes"] > 0)
    racks["incast_share"] = racks["incasts"] / racks["bursts"].where(racks["bursts"] > 0)
    return racks.reset_index()


def _stability(hosts: pd.DataFrame) -> pd.DataFrame:
    """Per host across snapshots (Fig. 3b): mean and p99 flows, with their coefficient of variation."""
    g = hosts.dropna(subset=["flows_mean"]).groupby(list(HOST), sort=False)

    def cv(s: pd.Series) -> float:
        return float(s.std(ddof=0) / s.mean()) if len(s) and s.mean() > 0 else float("nan")

    return g.agg(
        snapshots=("snapshot", "size"),
        flows_mean=("flows_mean", "mean"),
        flows_mean_cv=("flows_mean", cv),
        flows_p99=("flows_p99", "mean"),
        flows_p99_cv=("flows_p99", cv),
        bursts_per_s=("bursts_per_s", "mean"),
    ).reset_index()


def summarize(bursts: pd.DataFrame, hosts: pd.DataFrame) -> pd.DataFrame:
    """Per dataset: the headline numbers of the paper's Figs. 1, 2 and 4."""
    rows = []
    for dataset, h in hosts.groupby("dataset", sort=False):
        b = bursts[bursts["dataset"] == dataset]
        ms = b["duration_ps"] / 1e9
        rows.append(
            {
                "dataset": dataset,
                "hosts": h[["source", "rack", "host"]].drop_duplicates().shape[0],
                "snapshots": h["snapshot"].nunique(),
                "line_rate": ", ".join(
                    sorted(
                        {
                            f"{format_rate(r)} {o}"
                            for r, o in zip(h["line_rate_bps"], h["line_rate_origin"], strict=True)
                        }
                    )
                ),
                "bursts": len(b),
                "bursts_per_s_p50": _p(0.5)(h["bursts_per_s"]),
                "duration_ms_p50": _p(0.5)(ms),
                "duration_ms_p99": _p(0.99)(ms),
                "short_share": float((ms <= 2).mean()) if len(b) else float("nan"),
                "flows_p50": _p(0.5)(b["flows"]),
                "flows_p99": _p(0.99)(b["flows"]),
                "incast_share": float(b["incast"].mean()) if len(b) else float("nan"),
                "ecn_pct_p95": _p(0.95)(b["ecn_pct"]),
                "marked_share": float((b["ce_bytes"] > 0).mean()) if len(b) else float("nan"),
                "rxmit_share": float((b["rxmit_bytes"] > 0).mean()) if len(b) else float("nan"),
                "rxmit_pct_max": float(b["rxmit_pct"].max()) if len(b) else float("nan"),
                "utilisation_mean": float(h["utilisation"].mean()),
                "burst_bytes_share": float(h["burst_bytes"].sum() / h["ingress_bytes"].sum())
                if h["ingress_bytes"].sum()
                else float("nan"),
            }
        )
    return pd.DataFrame(rows)


def _measure(counters: pd.DataFrame, rates: pd.DataFrame, flows: str, incast_flows: int) -> tuple[pd.DataFrame, ...]:
    frame = counters.drop(columns="line_rate_bps").merge(rates, on=list(HOST), how="inner", sort=False)
    bursts, _ = _burst_rows(frame, flows, incast_flows)
    hosts = _host_rows(frame, bursts)
    return bursts, hosts


def _sensitivity(
    counters: pd.DataFrame, rates: pd.DataFrame, flows: str, incast_flows: int, base: pd.DataFrame
) -> pd.DataFrame:
    """The summary again with every inferred rate moved one candidate down and one up."""
    inferred = rates["line_rate_origin"] == "inferred"
    if not inferred.any():
        return pd.DataFrame()
    rows = [base.assign(shift=0, hosts_left_out=0)]
    for shift in (-1, 1):
        idx = rates["line_rate_bps"].map({r: i for i, r in enumerate(CANDIDATE_RATES_BPS)}) + shift
        ok = ~inferred | idx.between(0, len(CANDIDATE_RATES_BPS) - 1)
        moved = rates[ok].copy()
        moved.loc[inferred[ok], "line_rate_bps"] = [CANDIDATE_RATES_BPS[int(i)] for i in idx[ok & inferred]]
        if moved.empty:
            continue
        b, h = _measure(counters, moved, flows, incast_flows)
        rows.append(summarize(b, h).assign(shift=shift, hosts_left_out=int((~ok).sum())))
    out = pd.concat(rows, ignore_index=True)
    return out[["shift", "hosts_left_out", *[c for c in out.columns if c not in ("shift", "hosts_left_out")]]]


def find(
    counters: pd.DataFrame,
    line_rate: int | str | None = None,
    *,
    flows: str = "max",
    incast_flows: int = INCAST_FLOWS,
) -> Bursts:
    """Finds the bursts in a tidy counters table (from :func:`fanin.bursts.load`).

    ``line_rate`` (bits/s, or a string such as ``"25G"``) applies to every host; without it a
    host's rate is the recorded one (fanin results) or inferred from its peak bin, and the
    ``sensitivity`` table repeats the summary with each inferred rate one candidate lower
    and higher. ``flows`` reduces per-bin connections over a burst (``max`` or ``mean``).
    """
    missing = [c for c in COLUMNS if c not in counters.columns]
    if missing:
        raise BurstInputError(f"counters: missing column(s) {', '.join(missing)} (see fanin.bursts.COLUMNS)")
    if flows not in FLOW_REDUCERS:
        raise BurstInputError(f"--flows: {flows!r} is not a reducer (allowed: {', '.join(FLOW_REDUCERS)})")
    given = parse_rate_bps(line_rate) if isinstance(line_rate, str) else line_rate
    if given is not None and given <= 0:
        raise BurstInputError("--line-rate: must be positive")
    if counters.empty:
        raise BurstInputError("no host counters to analyse")
    counters = counters.sort_values([*KEYS, "bin_start_ps"], kind="stable", ignore_index=True)
    rates = line_rates(counters, given)
    bursts, hosts = _measure(counters, rates, flows, incast_flows)
    base = summarize(bursts, hosts)
    params: Mapping[str, Any] = {
        "line_rate_bps": given,
        "flows": flows,
        "incast_flows": incast_flows,
        "threshold": float(BURST_THRESHOLD),
    }
    return Bursts(
        bursts,
        hosts,
        _rack_rows(hosts, bursts),
        _stability(hosts),
        _sensitivity(counters, rates, flows, incast_flows, base),
        dict(params),
    )
