"""fanin.analysis: FCT and slowdown by flow size, percentiles with their counts, CDFs; the
figure `--plot` picks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import fanin
from fanin import Scenario
from fanin.analysis import bucket_labels, cdf, fct_by_size, percentiles, size_buckets
from fanin.plot import figure_kind, plot_fct_by_size, standard_figure


def flows(rows: list[tuple[int, float | None]]) -> pd.DataFrame:
    """(size, FCT in µs or None for unfinished) rows; the ideal FCT is 1 µs."""
    fct = pd.array([None if f is None else int(f * 1e6) for _, f in rows], dtype="UInt64")
    return pd.DataFrame(
        {
            "size_bytes": pd.array([s for s, _ in rows], dtype="UInt64"),
            "fct_ps": fct,
            "slowdown": [np.nan if f is None else f for _, f in rows],
            "completed": [f is not None for _, f in rows],
        }
    )


def test_buckets_are_inclusive_at_their_upper_edge() -> None:
    assert bucket_labels() == ["<=10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", ">10MB"]
    b = size_buckets(pd.Series([10_000, 10_001, 1_000_000, 50_000_000]))
    assert b.tolist() == ["<=10KB", "10KB-100KB", "100KB-1MB", ">10MB"]
    with pytest.raises(ValueError, match="rise strictly"):
        size_buckets(pd.Series([1]), edges=(100, 10))


def test_statistics_per_bucket_cover_completed_flows_and_say_how_many() -> None:
    f = flows([(5_000, 2.0), (8_000, 4.0), (9_000, None), (50_000, 10.0), (2_000_000, None)])
    t = fct_by_size(f).set_index("bucket")
    assert t.loc["<=10KB", ["flows", "completed"]].tolist() == [3, 2]
    assert t.loc["<=10KB", "fct_mean_us"] == pytest.approx(3.0)
    assert t.loc["<=10KB", "slowdown_p50"] == pytest.approx(3.0)
    assert t.loc["<=10KB", "slowdown_p99"] == pytest.approx(np.percentile([2.0, 4.0], 99))
    # A bucket whose flows all failed to finish, and an empty one, have no statistics.
    assert t.loc["1MB-10MB", ["flows", "completed"]].tolist() == [1, 0]
    assert pd.isna(t.loc["1MB-10MB", "fct_p99_us"]) and pd.isna(t.loc[">10MB", "fct_mean_us"])


def test_percentiles_and_cdf_skip_nulls() -> None:
    p = percentiles([1.0, None, 3.0, np.nan, 2.0])
    assert p == {"n": 3, "mean": 2.0, "p50": 2.0, "p99": pytest.approx(2.98)}
    assert percentiles([]) == {"n": 0, "mean": None, "p50": None, "p99": None}
    c = cdf(pd.Series([3.0, None, 1.0, 2.0]))
    assert c["x"].tolist() == [1.0, 2.0, 3.0] and c["p"].tolist() == pytest.approx([1 / 3, 2 / 3, 1.0])
    assert cdf([]).empty


def test_the_figure_fits_the_workload(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    incast = fanin.run(Scenario.from_dict(small_incast))
    assert figure_kind(incast) == "incast"
    mix = dict(small_incast)
    mix["duration"] = "2ms"
    mix["workload"] = [{"kind": "poisson", "load": 0.3, "sizes": "websearch_dctcp2010_cdf.txt", "stop": "1ms"}]
    poisson = fanin.run(Scenario.from_dict(mix))
    assert figure_kind(poisson) == "by_size"
    for r, name in ((incast, "incast.png"), (poisson, "mix.png")):
        png = standard_figure(r, tmp_path / name)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_fct_by_size(poisson, tmp_path / "again.png").read_bytes() == (tmp_path / "mix.png").read_bytes()
