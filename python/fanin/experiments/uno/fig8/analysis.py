"""Fig. 8: 8 x 1 GB incasts into host 240: Uno's per-flow rates (top) and the completion
times of every scheme (bottom; ideal about 650 ms)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results
from fanin.catalog.uno import SCHEMES, min_jfi_after, rate_lines, rates_with_jfi

NAMES = {"0_8_1000MB.cm": "8 inter / 0 intra", "4_4_1000MB.cm": "4 inter / 4 intra", "8_0_1000MB.cm": "0 inter / 8 intra"}
# 8 x 1e9 B of payload in 4160 B packets of 4096 B through one 100 Gb/s port.
IDEAL_MS = 8e9 * 4160 / 4096 * 8 / 100e9 * 1e3


def derive_fct(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    # Not from `point`: Fig 3's Uno run is the same run as this 4+4 one, and the cache
    # derives it once, with whichever figure's point came first.
    f = results.flows
    done = f[f["completed"]]
    fct_ms = done["fct_ps"].astype(float) / 1e9
    return pd.DataFrame(
        {
            "flows": [len(f)],
            "completed": [len(done)],
            "mean_fct_ms": [float(fct_ms.mean()) if len(done) else np.nan],
            "p99_fct_ms": [float(np.percentile(fct_ms, 99)) if len(done) else np.nan],
        }
    )


def derive_rates(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """Uno's per-flow rates and their JFI while all flows run (empty for the schemes that
    record no rates)."""
    return rates_with_jfi(results)


derive = {"fct": derive_fct, "rates": derive_rates}


def _values(data: dict[str, pd.DataFrame], stat: str) -> pd.DataFrame:
    df = data["fct"]
    if (df["completed"] < df["flows"]).any():
        raise ValueError("some 1 GB flows did not complete within the run")
    return df.pivot_table(index="incast", columns="variant", values=stat)


def uno_matches_or_beats(data: dict[str, pd.DataFrame]) -> bool:
    """In every incast, Uno's mean and p99 FCT <= 1.05 x the best other scheme's."""
    ok = True
    for stat in ("mean_fct_ms", "p99_fct_ms"):
        t = _values(data, stat)
        others = [c for c in t.columns if c != "uno"]
        ok &= bool((t["uno"] <= 1.05 * t[others].min(axis=1)).all())
    return ok


def uno_p99_over_ideal(data: dict[str, pd.DataFrame]) -> float:
    """Uno's worst p99 FCT over the incasts, as a multiple of the ideal 650 ms."""
    return float(_values(data, "p99_fct_ms")["uno"].max() / IDEAL_MS)


def _uno_rates(data: dict[str, pd.DataFrame]) -> pd.DataFrame:
    r = data["rates"]
    return r[r["variant"] == "uno"] if not r.empty else r


def uno_min_jfi_after_100ms(data: dict[str, pd.DataFrame]) -> float:
    """The smallest JFI of Uno's rates from 100 ms on, over the three incasts."""
    r = _uno_rates(data)
    if r.empty:
        raise ValueError("no Uno rate samples")
    return min(min_jfi_after(g) for _, g in r.groupby("incast"))


def plot_rates(data: dict[str, pd.DataFrame]) -> plt.Figure:
    """Top panel: Uno's per-flow rates per incast, the fair share dashed."""
    r = _uno_rates(data)
    incasts = [i for i in NAMES if i in set(r["incast"])]
    fig, axes = plt.subplots(1, len(incasts), figsize=(3.2 * len(incasts), 2.6), sharey=True, squeeze=False)
    for ax, i in zip(axes[0], incasts, strict=True):
        rate_lines(ax, r[r["incast"] == i], NAMES[i])
    axes[0][0].set_ylabel("Uno rate (Gb/s)\nblue inter, orange intra")
    return fig


def plot(data: dict[str, pd.DataFrame]) -> dict[str, plt.Figure]:
    df = data["fct"]
    out = {"rates": plot_rates(data)} if not _uno_rates(data).empty else {}
    incasts = [i for i in NAMES if i in set(df["incast"])]
    schemes = [v for v in SCHEMES if v in set(df["variant"])]
    for stat in ("mean_fct_ms", "p99_fct_ms"):
        fig, ax = plt.subplots(figsize=(5, 2.6))
        w = 0.8 / len(schemes)
        for i, v in enumerate(schemes):
            ys = [df[(df["variant"] == v) & (df["incast"] == inc)][stat].mean() for inc in incasts]
            ax.bar(np.arange(len(incasts)) + (i - (len(schemes) - 1) / 2) * w, ys, w, label=SCHEMES[v])
        ax.axhline(IDEAL_MS, color="k", ls="--", lw=0.7, label="ideal")
        ax.set_xticks(np.arange(len(incasts)), [NAMES[inc] for inc in incasts])
        ax.set_ylabel(f"{stat.split('_')[0]} FCT (ms)")
        ax.legend(fontsize=6)
        out[stat.split("_")[0]] = fig
    return out
