"""Table 1 from the drop model: per setup, the blocks of 10 packets that lost 1, 2 and 3
packets, their rates per block, and the packet loss rate, beside the paper's measurement
(320 M blocks of 10 packets of 2 KiB on each path). The measured counts are the model's
inputs as rates; the run checks that the engine draws them, and scales its counts to the
paper's 320 M blocks."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results

PAPER_BLOCKS = 320e6
# Table 1: blocks with 1, 2, 3 losses and the measured packet loss rate.
PAPER = {"setup1": ((97_403, 23_984, 5_007), 5.01e-5), "setup2": ((12_785, 7_262, 1_560), 1.22e-5)}
COLUMNS = ("blocks_1_loss", "blocks_2_losses", "blocks_3_losses")


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    f = results.faults.iloc[0]
    return pd.DataFrame(
        [{"blocks": int(f["blocks"]), **{c: int(f[c]) for c in COLUMNS}, "lost_pkts": int(f["lost_pkts"]), "packets": int(f["blocks"]) * 10}]
    )


def _row(df: pd.DataFrame, setup: str) -> pd.Series:
    return df[df["variant"] == setup].iloc[0]


def rate(df: pd.DataFrame, setup: str, losses: int) -> float:
    """Blocks with exactly ``losses`` losses per block."""
    r = _row(df, setup)
    return float(r[COLUMNS[losses - 1]] / r["blocks"])


def paper_rate(setup: str, losses: int) -> float:
    return PAPER[setup][0][losses - 1] / PAPER_BLOCKS


def rate_over_paper(df: pd.DataFrame, setup: str, losses: int) -> float:
    return rate(df, setup, losses) / paper_rate(setup, losses)


def loss_rate(df: pd.DataFrame, setup: str) -> float:
    """Packets the model dropped per packet that crossed the port."""
    r = _row(df, setup)
    return float(r["lost_pkts"] / r["packets"])


def table(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for setup in PAPER:
        for k in (1, 2, 3):
            r = _row(df, setup)
            rows.append(
                {
                    "setup": setup,
                    "losses": k,
                    "paper blocks": PAPER[setup][0][k - 1],
                    "fanin blocks (scaled to 320 M)": round(r[COLUMNS[k - 1]] / r["blocks"] * PAPER_BLOCKS),
                    "fanin blocks": int(r[COLUMNS[k - 1]]),
                    "paper rate": paper_rate(setup, k),
                    "fanin rate": rate(df, setup, k),
                }
            )
    return pd.DataFrame(rows)


def plot(df: pd.DataFrame) -> plt.Figure:
    fig, ax = plt.subplots()
    x = np.arange(3)
    for i, setup in enumerate(PAPER):
        ax.bar(x + 0.2 * (2 * i - 1) - 0.1, [paper_rate(setup, k) for k in (1, 2, 3)], 0.2, label=f"{setup}, paper")
        ax.bar(x + 0.2 * (2 * i - 1) + 0.1, [rate(df, setup, k) for k in (1, 2, 3)], 0.2, label=f"{setup}, fanin")
    ax.set_xticks(x, ["1 loss", "2 losses", "3 losses"])
    ax.set_yscale("log")
    ax.set_ylabel("blocks of 10 packets, per block")
    ax.legend(fontsize=7)
    return fig
