"""Fig. 2: when one flow's packets go on the wire, unpaced and paced by ICON (n = 1).

The engine reports the bytes the sender hands its NIC per microsecond (`rates`); a lone
flow's NIC is a FIFO at line rate, so a packet starts on the wire when it is handed over or
when the one before it has left, whichever is later.
"""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results

MSS = 1460
FRAME_US = 1500 * 8 / 10e9 * 1e6  # 1.2 us at 10 Gb/s
WINDOW = 10


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    r = results.table("rates")
    r = r[r["sent_bytes"] > 0].sort_values("time_ps")
    interval_ps = int(np.diff(results.table("rates")["time_ps"].unique()).min())
    handed: list[float] = []
    for t, b in zip(r["time_ps"], r["sent_bytes"], strict=True):
        handed += [(t - interval_ps) / 1e6] * -(-int(b) // MSS)
    wire: list[float] = []
    for h in handed:
        wire.append(max(h, wire[-1] + FRAME_US) if wire else h)
    return pd.DataFrame({"packet": np.arange(len(wire)), "start_us": wire})


def _first_window_gaps(df: pd.DataFrame, variant: str) -> np.ndarray:
    d = df[df["variant"] == variant].sort_values("packet")
    return np.diff(d["start_us"].to_numpy()[:WINDOW])


def paced_spacing_us(df: pd.DataFrame) -> float:
    """Median start-to-start spacing of the paced flow's first window."""
    return float(np.median(_first_window_gaps(df, "paced")))


def paced_idle_gap_us(df: pd.DataFrame) -> float:
    """The same, less the frame's own 1.2 us on the wire: the idle time between packets."""
    return paced_spacing_us(df) - FRAME_US


def normal_window_span_us(df: pd.DataFrame) -> float:
    """How long the unpaced first window takes on the wire: back to back, 9 frames."""
    return float(_first_window_gaps(df, "normal").sum())


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    fig, axes = plt.subplots(2, 1, sharex=True, figsize=(6.4, 3.6))
    for ax, (v, label) in zip(axes, (("normal", "normal TCP"), ("paced", "ICON (paced)")), strict=True):
        d = df[df["variant"] == v]
        for s in d["start_us"]:
            ax.axvspan(s, s + FRAME_US, color="C0" if v == "normal" else "C1", lw=0)
        ax.set_yticks([])
        ax.set_ylabel(label, rotation=0, ha="right", va="center")
    axes[-1].set_xlabel("time (us): each bar is one 1500 B packet on the sender's link")
    return {"fig2": fig}
