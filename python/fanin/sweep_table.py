"""The DataFrames a sweep returns: each run's labels, then its summary scalars or the rows
its derive made, and the run's folder in the cache.

Types are kept: integer labels stay integers whatever rows a run has, the engine's counts
(which it reports as floats) become integers, and an integer column that some runs lack is
nullable (``Int64``, missing as ``<NA>``) rather than floats with NaN.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fanin._fs import MANIFEST
from fanin.results import TIMING

RUN_DIR = "run_dir"
_EXACT = 2**53  # floats up to here hold every integer exactly


def summary_table(labels: Sequence[Mapping[str, Any]], run_dirs: Sequence[Path]) -> pd.DataFrame:
    """One row per run: labels, the summary counts of its manifest, its timing, ``run_dir``."""
    if not labels:
        return pd.DataFrame()
    manifests = [json.loads((d / MANIFEST).read_text(encoding="utf-8")).get("summary", {}) for d in run_dirs]
    timings = [json.loads((d / TIMING).read_text(encoding="utf-8")) if (d / TIMING).is_file() else {} for d in run_dirs]
    columns: dict[str, Any] = {k: _label_values(labels, k) for k in labels[0]}
    for name in _keys(manifests):
        if name not in columns:  # the summary's seed is the label's
            columns[name] = _counts([m.get(name) for m in manifests])
    for name in _keys(timings):
        columns[name] = pd.array([t.get(name, np.nan) for t in timings], dtype="float64")
    columns[RUN_DIR] = [str(d) for d in run_dirs]
    return pd.DataFrame(columns)


def derived_table(
    labels: Sequence[Mapping[str, Any]], frames: Sequence[pd.DataFrame], run_dirs: Sequence[Path] | None
) -> pd.DataFrame:
    """Every run's derived rows, its labels in front (typed from all runs, so a run without
    rows changes nothing) and, if ``run_dirs`` is given, its folder last."""
    lengths = [len(f) for f in frames]
    table = _concat(frames)
    for i, name in enumerate(labels[0] if labels else {}):
        dtype = pd.Series(_label_values(labels, name)).dtype
        table.insert(i, name, pd.array(_repeat([lab[name] for lab in labels], lengths), dtype=dtype))
    if run_dirs is not None:
        table[RUN_DIR] = _repeat([str(d) for d in run_dirs], lengths)
    return table


def _label_values(labels: Sequence[Mapping[str, Any]], name: str) -> list[Any]:
    return [lab[name] for lab in labels]


def _repeat(values: Sequence[Any], lengths: Sequence[int]) -> list[Any]:
    return [v for v, n in zip(values, lengths, strict=True) for _ in range(n)]


def _keys(dicts: Sequence[Mapping[str, Any]]) -> list[str]:
    return list(dict.fromkeys(k for d in dicts for k in d))


def _whole(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and float(value).is_integer()


def _counts(values: Sequence[Any]) -> Any:
    """Whole numbers as integers (nullable if a run lacks the value); anything else as floats."""
    present = [v for v in values if v is not None]
    if present and all(_whole(v) and abs(v) < _EXACT for v in present):
        dtype = "int64" if len(present) == len(values) else "Int64"
        return pd.array([None if v is None else int(v) for v in values], dtype=dtype)
    return pd.array([np.nan if v is None else v for v in values], dtype="float64")


def _nullable(column: pd.Series) -> pd.Series:
    """numpy integers and booleans as pandas' nullable types, which hold a missing value
    without turning the column into floats or objects."""
    dtype = column.dtype
    if not isinstance(dtype, np.dtype) or dtype.kind not in "iub":
        return column
    if dtype.kind == "b":
        return column.astype("boolean")
    return column.astype(f"{'UInt' if dtype.kind == 'u' else 'Int'}{dtype.itemsize * 8}")  # int32 -> Int32


def _concat(frames: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """The frames one below the other. Runs without rows only add their columns (their
    dtypes, often floats or objects for an empty frame, would otherwise win), and a column
    some runs lack is made nullable before NaN could fill it."""
    columns = _keys([dict.fromkeys(f.columns) for f in frames])
    full = [f for f in frames if len(f)]
    if not full:
        return pd.DataFrame(columns=columns)
    lacking = {c for c in columns if any(c not in f.columns for f in full)}
    full = [f.assign(**{c: _nullable(f[c]) for c in lacking if c in f.columns}) for f in full]
    return pd.concat(full, ignore_index=True).reindex(columns=columns)
