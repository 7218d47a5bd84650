"""Fig. 1: the durations of the bursts at leaf0's host-facing ports: each maximal interval in
which a port holds at least two packets (spec §2, Fig. 1 burst), within the measured window."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.icon import analysis as icon

derive = icon.derive_bursts


def p90_duration_us(df: pd.DataFrame) -> float:
    return float(np.quantile(df["duration_us"], 0.9))


def median_duration_us(df: pd.DataFrame) -> float:
    return float(np.quantile(df["duration_us"], 0.5))


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    fig, ax = plt.subplots()
    d = np.sort(df["duration_us"].to_numpy())
    ax.step(d, np.arange(1, len(d) + 1) / len(d), where="post")
    ax.set_xscale("log")
    ax.axvline(80, color="0.6", ls=":", lw=1)
    ax.text(80, 0.05, " base RTT", color="0.4", fontsize=8)
    ax.set_xlabel("burst duration (us)")
    ax.set_ylabel("CDF")
    return {"fig1": fig}
