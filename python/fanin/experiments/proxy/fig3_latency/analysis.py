"""Fig. 3: incast completion time against the long-haul link latency L (1 us to 1 s), N = 4,
100 MB, log axes."""

from __future__ import annotations

from pathlib import Path

import tomllib

import numpy as np
import pandas as pd

from fanin.sweep import load_module

common = load_module(Path(__file__).parent.parent / "common.py", "fanin_catalog_proxy_common")
X = "L_s"
_UNIT = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
LINE_BPS = 100e9


def _seconds(q: str) -> float:
    for unit in ("us", "ms", "s"):
        if q.endswith(unit):
            return float(q.removesuffix(unit)) * _UNIT[unit]
    raise ValueError(f"latency {q!r} has no unit")


def derive(results, point):
    # From the run's scenario: an identical run of another figure may be shared (the cache).
    doc = tomllib.loads(results.manifest["scenario"])
    return common.run_row(results, point).assign(L_s=_seconds(doc["topology"]["long_haul_link"]["delay"]))


def _at(df: pd.DataFrame, seconds: float) -> pd.Series:
    m = common.means(df, X)
    return m.loc[np.isclose(m.index, seconds)].iloc[0]


def proxies_win_from_100us(df: pd.DataFrame) -> bool:
    d = df[df[X] >= 100e-6 - 1e-12]
    return bool(all((common.pct_reduction(d, X, s) > 0).all() for s in ("naive", "streamlined")))


def short_latency_gain_below_5pct(df: pd.DataFrame) -> float:
    """max over L <= 10 us and both proxies of the % reduction."""
    d = df[df[X] <= 10e-6 + 1e-12]
    return float(max(common.pct_reduction(d, X, s).max() for s in ("naive", "streamlined")))


def baseline_ms_at_100us(df: pd.DataFrame) -> float:
    return float(_at(df, 100e-6)["baseline"])


def naive_pct_reduction_at_100us(df: pd.DataFrame) -> float:
    m = _at(df, 100e-6)
    return float(100 * (1 - m["naive"] / m["baseline"]))


def streamlined_pct_reduction_at_100us(df: pd.DataFrame) -> float:
    m = _at(df, 100e-6)
    return float(100 * (1 - m["streamlined"] / m["baseline"]))


def proxies_gap_at_100us(df: pd.DataFrame) -> float:
    m = _at(df, 100e-6)
    return float(abs(m["streamlined"] - m["naive"]) / m["naive"])


def proxies_over_4l_plus_transfer_at_1s(df: pd.DataFrame) -> float:
    """The worse proxy's mean ICT at L = 1 s over 4L + S / line rate."""
    m = _at(df, 1.0)
    expect_ms = (4 * 1.0 + df["total_bytes"].max() * 8 / LINE_BPS) * 1e3
    return float(max(m["naive"], m["streamlined"]) / expect_ms)


def baseline_over_proxies_at_1s(df: pd.DataFrame) -> float:
    m = _at(df, 1.0)
    return float(m["baseline"] / np.mean([m["naive"], m["streamlined"]]))


def baseline_s_at_1s(df: pd.DataFrame) -> float:
    return float(_at(df, 1.0)["baseline"] / 1e3)


def saving_grows_with_l(df: pd.DataFrame) -> bool:
    """% reduction non-decreasing in L from 100 us (1 pp of noise allowed), both proxies."""
    d = df[df[X] >= 100e-6 - 1e-12]
    return bool(all((np.diff(common.pct_reduction(d, X, s).to_numpy()) >= -1.0).all() for s in ("naive", "streamlined")))


def physics_floor(df: pd.DataFrame) -> float:
    """min over runs of ICT / (S / line rate + 4L): below 1 would beat the speed of light."""
    floor_ms = (df["total_bytes"] * 8 / LINE_BPS + 4 * df[X]) * 1e3
    return float((df["ict_ms"] / floor_ms).min())


def plot(df: pd.DataFrame):
    return common.plot_ict(df, X, "long-haul link latency L (s)", log=True)
