"""The sweep DataFrame's types: integer labels and counts stay integers, a value some runs
lack is missing (<NA>) in a nullable integer column, and every row names its run folder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from fanin import Results, Scenario
from fanin.sweep import Axis, Sweep


def small(small_incast: dict[str, Any]) -> Scenario:
    small_incast["record"] = {"flows": True}
    return Scenario.from_dict(small_incast)


def test_one_row_per_run_keeps_integers_and_names_the_run(small_incast: dict[str, Any], tmp_path: Path) -> None:
    sweep = Sweep(small(small_incast), axes={"N": Axis(["topology.senders", "workload[0].degree"], [2, 3])})
    df = sweep.run(cache=tmp_path)
    for col in ("N", "seed", "flows", "flows_completed", "drops", "events", "packet_hops", "sim_end_ps"):
        assert df[col].dtype == "int64", (col, df[col].dtype)
    assert df["wall_s"].dtype == "float64"
    assert list(df["seed"]) == [1, 1] and list(df["flows"]) == [2, 3]
    for n, run_dir in zip(df["N"], df["run_dir"], strict=True):
        assert Path(run_dir).is_absolute() and Path(run_dir).parent.parent == tmp_path
        assert len(Results.from_parquet(run_dir).flows) == n


def uneven(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    """No rows for N = 2 (an empty frame's columns are floats), and `fct_ps` only for N = 4:
    as a derive that reports what it found does."""
    flows = results.flows
    if point["N"] == 2:
        return pd.DataFrame({"flow": [], "fct_ps": []})
    frame = pd.DataFrame({"flow": range(len(flows))})
    if point["N"] == 4:
        frame["fct_ps"] = flows["fct_ps"].to_numpy()
    return frame


def test_derived_rows_keep_integers_when_runs_lack_rows_or_columns(
    small_incast: dict[str, Any], tmp_path: Path
) -> None:
    sweep = Sweep(small(small_incast), axes={"N": Axis(["topology.senders", "workload[0].degree"], [2, 3, 4])})
    df = sweep.run(derive=uneven, cache=tmp_path, run_dir=True)
    assert list(df.columns) == ["N", "seed", "flow", "fct_ps", "run_dir"]
    assert df["N"].dtype == df["seed"].dtype == df["flow"].dtype == "int64"
    assert df["fct_ps"].dtype == "UInt64"  # (as the flows table's) N = 3 has none: <NA>, not NaN in floats
    assert list(df["N"]) == [3, 3, 3, 4, 4, 4, 4]
    assert df["fct_ps"].isna().tolist() == [True] * 3 + [False] * 4
    assert all(Path(d).is_dir() for d in df["run_dir"])
    assert df.groupby("N")["run_dir"].nunique().tolist() == [1, 1]
    plain = sweep.run(derive=uneven, cache=tmp_path)
    assert "run_dir" not in plain.columns  # only when asked: a figure's data keeps its columns
