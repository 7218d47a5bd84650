"""Fig. 5: queue-disc length over a 15 ms burst at 100, 500 and 1000 flows, in the
artifact's fidelity mode (and the paper's single-queue mode for the delay claim).
Per-burst facts come from ``fanin.imc24.analysis`` (rules in its docstring)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fanin.imc24 import analysis
from fanin.sweep import load_module

common = load_module(Path(__file__).parent.parent / "common.py", "imc24_common")


derive = {"bursts": analysis.burst_table, "grid": analysis.queue_grid}


def _med(data, column, how="mean", **where):
    return common.seed_median(data["bursts"], column, how, **where)


def _fid(n: int) -> dict[str, Any]:
    return {"variant": "fidelity", "N": n}


def bdp_pkts(data) -> float:
    return float(data["bursts"]["bdp_pkts"].iloc[0])


def down_crossings_100(data) -> float:
    return _med(data, "mid_down_crossings", **_fid(100))


def below_k_share_100(data) -> float:
    return _med(data, "mid_below_k", **_fid(100))


def max_over_capacity_100(data) -> float:
    return _med(data, "mid_max", "max", **_fid(100)) / common.CAPACITY_PKTS


def bct_over_min_100(data) -> float:
    d = common.measured(data["bursts"], **_fid(100))
    return float((d["bct_ms"] / d["min_bct_ms"]).groupby(d["seed"]).mean().median())


def bct_ms_100(data) -> float:
    return _med(data, "bct_ms", **_fid(100))


def spike_ratio_100(data) -> float:
    """Peak of the burst-averaged queue in the first ms over its mean over the burst."""
    g = data["grid"]
    g = g[(g["variant"] == "fidelity") & (g["N"] == 100)]
    ratios = []
    for _, s in g.groupby("seed"):
        s = s[s["packets"] > 0] if (s["packets"] > 0).any() else s
        ratios.append(s[s["t_us"] <= 1000]["packets"].max() / s["packets"].mean())
    return float(pd.Series(ratios).median())


def mid_min_500(data) -> float:
    return _med(data, "mid_min", "min", **_fid(500))


def median_start_cwnd_500(data) -> float:
    return _med(data, "median_start_cwnd_mss", "median", **_fid(500))


def delay_us_500_fidelity(data) -> float:
    return _med(data, "delay_us", **_fid(500))


def delay_us_500_paper_over_n_minus_bdp(data) -> float:
    d = _med(data, "delay_us", variant="paper", N=500)
    return d / ((500 - bdp_pkts(data)) * 1.2)


def bct_ms_500(data) -> float:
    return _med(data, "bct_ms", **_fid(500))


def drops_500(data) -> float:
    return _med(data, "drops", "max", **_fid(500))


def ce_share_500(data) -> float:
    return _med(data, "ce_share", **_fid(500))


def ce_share_100_over_500(data) -> float:
    return _med(data, "ce_share", **_fid(100)) / ce_share_500(data)


def bct_ms_1000(data) -> float:
    return _med(data, "bct_ms", **_fid(1000))


def drops_per_burst_1000(data) -> float:
    return _med(data, "drops", **_fid(1000))


def full_at_ms_1000(data) -> float:
    return _med(data, "full_at_ms", "min", **_fid(1000))


def max_start_cwnd_100(data) -> float:
    return _med(data, "max_start_cwnd_mss", "max", **_fid(100))


def modes(data) -> str:
    """The most common mode of the measured bursts at each N (fidelity)."""
    d = common.measured(data["bursts"], variant="fidelity")
    return ", ".join(f"{n}: {m.mode()[0]}" for n, m in d.groupby("N")["mode"])


def modes_as_paper(data) -> bool:
    return modes(data) == "100: healthy, 500: degenerate, 1000: timeouts"


def plot(data):
    panels = [(f"({c}) {n} flows", {"variant": "fidelity", "N": n}) for c, n in zip("abc", (100, 500, 1000), strict=True)]
    return common.queue_plot(data["grid"], panels)

