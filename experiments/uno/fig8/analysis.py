"""Fig. 8 (bottom): completion of 8 x 1 GB incasts into host 240 (ideal about 650 ms)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results
from fanin.catalog.uno import SCHEMES

NAMES = {"0_8_1000MB.cm": "8 inter / 0 intra", "4_4_1000MB.cm": "4 inter / 4 intra", "8_0_1000MB.cm": "0 inter / 8 intra"}
# 8 x 1e9 B of payload in 4160 B packets of 4096 B through one 100 Gb/s port.
IDEAL_MS = 8e9 * 4160 / 4096 * 8 / 100e9 * 1e3


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    f = results.flows
    done = f[f["completed"]]
    fct_ms = done["fct_ps"].astype(float) / 1e9
    return pd.DataFrame(
        {
            "incast_name": [NAMES[point["incast"]]],
            "flows": [len(f)],
            "completed": [len(done)],
            "mean_fct_ms": [float(fct_ms.mean()) if len(done) else np.nan],
            "p99_fct_ms": [float(np.percentile(fct_ms, 99)) if len(done) else np.nan],
        }
    )


def _values(df: pd.DataFrame, stat: str) -> pd.DataFrame:
    if (df["completed"] < df["flows"]).any():
        raise ValueError("some 1 GB flows did not complete within the run")
    return df.pivot_table(index="incast", columns="variant", values=stat)


def uno_matches_or_beats(df: pd.DataFrame) -> bool:
    """In every incast, Uno's mean and p99 FCT <= 1.05 x the best other scheme's."""
    ok = True
    for stat in ("mean_fct_ms", "p99_fct_ms"):
        t = _values(df, stat)
        others = [c for c in t.columns if c != "uno"]
        ok &= bool((t["uno"] <= 1.05 * t[others].min(axis=1)).all())
    return ok


def uno_p99_over_ideal(df: pd.DataFrame) -> float:
    """Uno's worst p99 FCT over the incasts, as a multiple of the ideal 650 ms."""
    return float(_values(df, "p99_fct_ms")["uno"].max() / IDEAL_MS)


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    out = {}
    incasts = [n for n in NAMES.values() if n in set(df["incast_name"])]
    schemes = [v for v in SCHEMES if v in set(df["variant"])]
    for stat in ("mean_fct_ms", "p99_fct_ms"):
        fig, ax = plt.subplots(figsize=(5, 2.6))
        w = 0.8 / len(schemes)
        for i, v in enumerate(schemes):
            ys = [df[(df["variant"] == v) & (df["incast_name"] == n)][stat].mean() for n in incasts]
            ax.bar(np.arange(len(incasts)) + (i - (len(schemes) - 1) / 2) * w, ys, w, label=SCHEMES[v])
        ax.axhline(IDEAL_MS, color="k", ls="--", lw=0.7, label="ideal")
        ax.set_xticks(np.arange(len(incasts)), incasts)
        ax.set_ylabel(f"{stat.split('_')[0]} FCT (ms)")
        ax.legend(fontsize=6)
        out[stat.split("_")[0]] = fig
    return out
