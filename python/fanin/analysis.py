"""The analysis every flow-level study does: completion time and slowdown by flow size,
percentiles that say how many values they describe, and CDFs (the figure of them is
:func:`fanin.plot.plot_fct_by_size`).

Statistics cover the completed flows only (an unfinished flow's FCT is null); every table
says how many flows a row describes and how many of them completed, so a percentile over a
handful of flows, or over the survivors of a run cut short, is visible as such.

Size buckets default to the ones datacenter transport papers plot FCTs in (pFabric, Homa,
HPCC and their successors): up to 10 KB, 10-100 KB, 100 KB-1 MB, 1-10 MB and above, in
decimal bytes. Pass other edges for a workload with its own classes (ICON's short flows are
8-32 KB, Uno's small flows are under 100 kB).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from fanin.results import Results

SIZE_EDGES: tuple[int, ...] = (10_000, 100_000, 1_000_000, 10_000_000)
"""Upper bounds (bytes, inclusive) of all but the last bucket."""

PERCENTILES: tuple[float, ...] = (50.0, 99.0)


def _flows(source: Results | pd.DataFrame) -> pd.DataFrame:
    return source.flows if isinstance(source, Results) else source


def _size_label(b: float) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if b >= scale:
            return f"{b / scale:g}{unit}"
    return f"{b:g}B"


def bucket_labels(edges: Sequence[int] = SIZE_EDGES) -> list[str]:
    """``["<=10KB", "10KB-100KB", ..., ">10MB"]`` for ``edges``."""
    if not edges:
        return ["all"]
    inner = [f"{_size_label(lo)}-{_size_label(hi)}" for lo, hi in zip(edges, edges[1:], strict=False)]
    return [f"<={_size_label(edges[0])}", *inner, f">{_size_label(edges[-1])}"]


def size_buckets(sizes: pd.Series, edges: Sequence[int] = SIZE_EDGES) -> pd.Series:
    """Each flow's bucket label (an ordered categorical); a flow without a size has none."""
    if list(edges) != sorted(set(edges)):
        raise ValueError(f"edges must rise strictly: {list(edges)}")
    bins = [-np.inf, *map(float, edges), np.inf]
    values = pd.to_numeric(sizes, errors="coerce").astype("float64")
    return pd.cut(values, bins=bins, labels=bucket_labels(edges), right=True)


def percentiles(values: Iterable[float] | pd.Series, qs: Sequence[float] = PERCENTILES) -> dict[str, float | int | None]:
    """``{"n": count, "mean": ..., "p50": ..., "p99": ...}`` over the values that are not null
    (numpy's linear interpolation); statistics of nothing are None, never 0."""
    v = pd.to_numeric(pd.Series(values), errors="coerce").astype("float64").dropna().to_numpy()
    out: dict[str, float | int | None] = {"n": int(v.size), "mean": float(v.mean()) if v.size else None}
    for q in qs:
        out[f"p{q:g}"] = float(np.percentile(v, q)) if v.size else None
    return out


def fct_by_size(
    source: Results | pd.DataFrame,
    edges: Sequence[int] = SIZE_EDGES,
    qs: Sequence[float] = PERCENTILES,
) -> pd.DataFrame:
    """One row per size bucket: flows, completed, FCT (µs) and slowdown mean and percentiles
    over the completed flows of the bucket."""
    flows = _flows(source)
    buckets = size_buckets(flows["size_bytes"], edges)
    rows = []
    for label in bucket_labels(edges):
        f = flows[buckets == label]
        done = f[f["completed"].astype(bool)]
        fct = percentiles(done["fct_ps"].astype("float64") / 1e6, qs)
        slow = percentiles(done["slowdown"], qs)
        row: dict[str, object] = {"bucket": label, "flows": len(f), "completed": len(done)}
        row |= {f"fct_{k}_us": v for k, v in fct.items() if k != "n"}
        row |= {f"slowdown_{k}": v for k, v in slow.items() if k != "n"}
        rows.append(row)
    return pd.DataFrame(rows).astype({"flows": "int64", "completed": "int64"})


def cdf(values: Iterable[float] | pd.Series) -> pd.DataFrame:
    """The empirical CDF of the values that are not null: columns ``x`` (sorted) and ``p``
    (the share of values at or below ``x``)."""
    v = np.sort(pd.to_numeric(pd.Series(values), errors="coerce").astype("float64").dropna().to_numpy())
    return pd.DataFrame({"x": v, "p": np.arange(1, v.size + 1) / v.size if v.size else v})
