"""A lone flow: its FCT against the engine's ideal FCT and against line rate."""

from __future__ import annotations

import tomllib
from typing import Any

import matplotlib.pyplot as plt
import pandas as pd

from fanin import Results


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """One row: the flow's size, FCT, ideal FCT, and the payload share of a wire packet."""
    flows = results.flows
    transport = tomllib.loads(results.manifest["scenario"]).get("transport", {})
    mtu = int(str(transport.get("mtu", "1500B")).removesuffix("B"))
    header = int(str(transport.get("header", "40B")).removesuffix("B"))
    return pd.DataFrame(
        {
            "size_bytes": flows["size_bytes"],
            "fct_ps": flows["fct_ps"],
            "ideal_fct_ps": flows["ideal_fct_ps"],
            "slowdown": flows["slowdown"],
            "completed": flows["completed"],
            "payload_share": (mtu - header) / mtu,
        }
    )


def max_slowdown_error(df: pd.DataFrame) -> float:
    """Largest |FCT / ideal FCT - 1| over the sizes (every flow must complete)."""
    if not df["completed"].all():
        return float("inf")
    return float((df["slowdown"] - 1.0).abs().max())


def goodput_share(df: pd.DataFrame) -> float:
    """The largest flow's goodput as a share of line rate x payload share (analytic: -> 1)."""
    big = df.loc[df["size_bytes"].idxmax()]
    goodput_bps = big["size_bytes"] * 8 / (big["fct_ps"] * 1e-12)
    return float(goodput_bps / (10e9 * big["payload_share"]))


def plot(df: pd.DataFrame) -> plt.Figure:
    fig, ax = plt.subplots()
    d = df.sort_values("size_bytes")
    ax.loglog(d["size_bytes"] / 1e3, d["fct_ps"] / 1e6, "o", label="fanin FCT")
    ax.loglog(d["size_bytes"] / 1e3, d["ideal_fct_ps"] / 1e6, "k--", lw=0.8, label="ideal FCT")
    ax.set_xlabel("flow size (KB)")
    ax.set_ylabel("flow completion time (µs)")
    ax.legend()
    return fig
