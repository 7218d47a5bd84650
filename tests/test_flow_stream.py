"""`[record] flows = "stream"` (issue 23): finished flows leave the engine's memory and their
rows go to Parquet as the run goes; the rows equal those of a run that keeps every flow."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

import fanin
from conftest import fanin_cli
from fanin import Scenario
from fanin import _native

# A k = 4 fat-tree under Poisson arrivals of 10 KB flows, 50 % load: 40,245 flows over 40 ms (16 x 10 Gb/s x 0.5 / 80 kbit = 1 M/s),
# each living some tens of microseconds each, so a few dozen are alive at once.
POISSON: dict[str, Any] = {
    "name": "stream",
    "seed": 5,
    "topology": {
        "kind": "fat_tree",
        "k": 4,
        "host_link": {"rate": "10Gbps", "delay": "1us"},
        "fabric_link": {"rate": "10Gbps", "delay": "1us"},
    },
    "switch": {"queue": {"limit": "100pkt", "marking": {"kind": "step", "threshold": "20pkt"}}},
    "transport": {"cc": "dctcp"},
    "workload": [{"kind": "poisson", "load": 0.5, "sizes": "constant 10KB", "stop": "40ms"}],
}


def _run(flows: object, **kw: Any) -> fanin.Results:
    return fanin.run(Scenario.from_dict({**POISSON, "record": {"flows": flows}}), **kw)


def test_streamed_parquet_rows_equal_the_kept_table(tmp_path: Path) -> None:
    kept = _run(True)
    n = len(kept.flows)
    assert n == kept.summary["flows"] == kept.summary["flows_completed"] == 40_245
    path = tmp_path / "flows.parquet"
    streamed = _run("stream", flows_to=path)
    assert "flows" not in streamed.tables and streamed.files == {"flows": path}
    # Written in chunks of 2^17 rows at most, finish order; one row per flow.
    meta = pq.ParquetFile(path).metadata
    assert meta.num_rows == n
    got = streamed.flows.sort_values("flow_id").reset_index(drop=True)
    assert got.equals(kept.flows), "streamed rows differ from the kept table"
    assert not streamed.flows["flow_id"].is_monotonic_increasing, "rows come in the order flows finished"
    assert streamed.ports.equals(kept.ports)
    drop = ("wall_s", "setup_wall_s", "flow_slots")
    assert {k: v for k, v in streamed.summary.items() if k not in drop} == {k: v for k, v in kept.summary.items() if k not in drop}
    # Flow state for a few dozen flows at once, not 40,245.
    assert streamed.summary["flow_slots"] < 200  # 98
    # On disk as a result directory: the streamed file is part of it, hashed in the manifest.
    out = streamed.to_parquet(tmp_path / "result")
    assert pq.read_table(out / "flows.parquet").equals(pq.read_table(path))
    assert "flows.parquet" in streamed.manifest["files"]


def test_without_a_file_the_chunks_are_kept_in_memory() -> None:
    kept, streamed = _run(True), _run("stream")
    assert streamed.flows.sort_values("flow_id").reset_index(drop=True).equals(kept.flows)


def test_the_engine_hands_out_rows_in_chunks_of_the_budget() -> None:
    chunks: list[int] = []
    text = Scenario.from_dict({**POISSON, "record": {"flows": "stream"}}).to_toml()
    tables, summary = _native.run(text, [], on_flows=lambda cols: chunks.append(len(cols[0][2]) // 8), flow_rows=5000)
    assert "flows" not in tables
    assert sum(chunks) == summary["flows"] == 40_245
    # Eight chunks of 5,000 (one more row at most: a drop in the same event), then the rest.
    assert len(chunks) == 9 and all(5000 <= c <= 5001 for c in chunks[:-1]), chunks


def test_fanin_run_writes_the_streamed_table_into_its_result(tmp_path: Path) -> None:
    scenario = tmp_path / "s.toml"
    scenario.write_text(Scenario.from_dict({**POISSON, "record": {"flows": "stream"}}).to_toml())
    r = fanin_cli("run", str(scenario), "-o", str(tmp_path / "res"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert pq.ParquetFile(tmp_path / "res" / "flows.parquet").metadata.num_rows == 40_245
    # The file streamed beside the result is gone.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res", "s.toml"]


def test_a_file_for_a_scenario_that_does_not_stream_is_warned_about(tmp_path: Path) -> None:
    short = {**POISSON, "workload": [{**POISSON["workload"][0], "stop": "1ms"}]}
    path = tmp_path / "flows.parquet"
    with pytest.warns(UserWarning, match=r'does not stream its flows \(\[record\] flows = "stream"\)'):
        r = fanin.run(Scenario.from_dict({**short, "record": {"flows": True}}), flows_to=path)
    assert not path.exists() and len(r.flows) == r.summary["flows"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fanin.run(Scenario.from_dict({**short, "record": {"flows": "stream"}}), flows_to=path)
    assert path.exists()
    # `fanin run` streams only a streaming scenario, so it has nothing to warn about (here
    # one without a [record] table at all).
    scenario = tmp_path / "s.toml"
    scenario.write_text(Scenario.from_dict(short).to_toml())
    cli = fanin_cli("run", str(scenario), "-o", str(tmp_path / "res"), "--quiet")
    assert cli.returncode == 0 and cli.stderr == "", cli.stderr
