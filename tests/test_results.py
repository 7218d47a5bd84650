"""Results: DataFrames, Parquet on disk, manifest, determinism."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import fanin
from fanin import Results, Scenario
from fanin.results import SCHEMAS, column_to_arrow, headline, unfinished
from fanin.run import scenario_hash

EXPECTED_DTYPES = {
    "flow_id": np.uint64, "src": np.uint32, "dst": np.uint32, "size_bytes": pd.UInt64Dtype(),
    "start_ps": np.uint64, "fct_ps": pd.UInt64Dtype(), "ideal_fct_ps": np.uint64, "slowdown": np.float64,
    "retx_bytes": np.uint64, "timeouts": np.uint64, "incast_id": np.int64, "completed": np.bool_,
}  # fmt: skip


def test_flows_columns_and_dtypes(small_incast: dict[str, Any]) -> None:
    r = fanin.run(Scenario.from_dict(small_incast))
    flows = r.flows
    assert len(flows) == 8
    for col, _ in SCHEMAS["flows"]:
        assert col in flows.columns, col
    for col, dtype in EXPECTED_DTYPES.items():
        assert flows[col].dtype == dtype, (col, flows[col].dtype)
    assert pd.api.types.is_string_dtype(flows["src_name"]) or flows["src_name"].dtype == object
    assert flows["flow_id"].is_unique
    assert flows["completed"].all()
    assert (flows["fct_ps"] >= flows["ideal_fct_ps"]).all()
    assert (flows["incast_id"] >= 0).all()
    assert len(r.incasts) == 1 and r.incasts["degree"].iloc[0] == 8
    assert len(r.queues) > 0
    assert set(r.queues.columns) >= {c for c, _ in SCHEMAS["queues"]}
    assert r.summary["flows"] == 8 and r.summary["flows_completed"] == 8
    assert r.manifest["name"] == "test-small-incast" and r.manifest["seed"] == 1


def test_names_come_as_strings_row_by_row(small_incast: dict[str, Any]) -> None:
    r = fanin.run(Scenario.from_dict(small_incast))
    # The star names its senders s0, s1, ... and its receiver r0.
    assert sorted(r.flows["src_name"]) == [f"s{i}" for i in range(8)] and set(r.flows["dst_name"]) == {"r0"}
    assert r.arrow("ports").schema.field("port_name").type == pa.string()
    names = list(r.ports["port_name"])
    assert len(set(names)) == len(names) == len(r.ports) and all(re.fullmatch(r"\w+->\w+", n) for n in names)


def test_string_columns_are_read_in_arrows_layout() -> None:
    values = ["", "µs", "sw0->h1", "", "ü"]
    utf8 = "".join(values).encode()
    ends = np.cumsum([0] + [len(v.encode()) for v in values])
    a = column_to_arrow("str", (ends.astype("<i4").tobytes(), utf8))
    assert a.type == pa.string() and a.to_pylist() == values and a.null_count == 0
    b = column_to_arrow("str64", (ends.astype("<i8").tobytes(), utf8))
    assert b.type == pa.large_string() and b.to_pylist() == values
    assert column_to_arrow("str", (np.zeros(1, "<i4").tobytes(), b"")).to_pylist() == []


def test_documented_schemas_are_what_the_engine_produces(small_incast: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_incast)
    s.set("record.hosts", {"bin": "1ms"})
    s.set("record.queue_events", {})
    s.set("record.windows", {})
    s.set("record.rates", {"interval": "10us"})
    s.set("event", [{"at": "1s", "link": "bottleneck", "action": "fail"}])
    s.set("transport.recovery", "basic")
    s.set("transport.erasure", {"scope": "all"})
    r = fanin.run(s)
    # bursts and responses come with a request/response incast (tests/test_imc24.py).
    assert set(r.tables) == set(SCHEMAS) - {"bursts", "responses"}
    for name, table in r.tables.items():
        assert [(f.name, f.type) for f in table.schema] == SCHEMAS[name], name


def test_absent_tables_are_empty_with_their_columns(small_incast: dict[str, Any]) -> None:
    r = fanin.run(Scenario.from_dict(small_incast))  # records no host counters
    assert "hosts" not in r.tables
    hosts = r.hosts
    assert len(hosts) == 0
    assert list(hosts.columns) == [c for c, _ in SCHEMAS["hosts"]]
    assert hosts["ingress_bytes"].dtype == np.uint64


def test_failure_drops_are_apart_from_buffer_drops(small_incast: dict[str, Any]) -> None:
    """A black-holed bottleneck from 20 us: the 8 x 64 KB incast cannot finish, its losses are
    in `faults` and `failure_drops`, none in `ports` or `drops`; without events no such table."""
    assert len(fanin.run(Scenario.from_dict(small_incast)).faults) == 0
    s = Scenario.from_dict(small_incast).set("duration", "2ms")
    s.set("event", [{"at": "20us", "link": "bottleneck", "action": "fail"}])
    r = fanin.run(s)
    faults = r.faults
    assert list(faults["port_name"]) == ["sw0->r0"]
    lost = int(faults["failed_pkts"].iloc[0])
    assert lost > 0 and r.summary["failure_drops"] == lost
    assert r.summary["drops"] == 0 and r.ports["dropped_pkts"].sum() == 0
    assert r.summary["flows_completed"] == 0


def test_erasure_table_has_a_row_per_coded_flow(small_incast: dict[str, Any]) -> None:
    """(8, 2) blocks on every flow of the 8 x 64 KB incast: 64,000 B in 1,460 B segments is
    6 blocks (70,080 B of data positions, 87,600 B coded); without coding, no table."""
    assert len(fanin.run(Scenario.from_dict(small_incast)).erasure) == 0
    s = Scenario.from_dict(small_incast).set("transport.recovery", "basic")
    s.set("transport.erasure", {"scope": "all"})
    r = fanin.run(s)
    e = r.erasure
    assert list(e["flow_id"]) == list(range(8))
    assert set(e["blocks"]) == {6} and set(e["coded_bytes"]) == {87_600} and set(e["parity_pkts"]) == {12}
    assert list(r.flows["size_bytes"]) == [64_000] * 8 and list(r.flows["bytes_acked"]) == [87_600] * 8
    assert r.summary["parity_nacks"] == e["parity_nacks_sent"].sum()
    assert r.summary["rebuilt_blocks"] == e["rebuilt_blocks"].sum()


def test_parquet_round_trip_and_manifest(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_incast)
    r = fanin.run(s)
    out = r.to_parquet(tmp_path / "res")
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted([f"{t}.parquet" for t in r.tables] + ["manifest.json", "timing.json"])
    m = json.loads((out / "manifest.json").read_text())
    assert m["scenario"] == s.to_toml()
    assert m["name"] == "test-small-incast" and m["seed"] == 1
    assert m["fanin_version"] == fanin.__version__
    assert m["scenario_sha256"] == scenario_hash(s.to_toml(), 1)
    for file, digest in m["files"].items():
        assert hashlib.sha256((out / file).read_bytes()).hexdigest() == digest
    assert "wall_s" not in m["summary"] and m["summary"]["flows"] == 8
    back = Results.from_parquet(out)
    assert set(back.tables) == set(r.tables)
    for name in r.tables:
        assert back.tables[name].equals(r.tables[name]), name
    pd.testing.assert_frame_equal(back.flows, r.flows)
    assert back.summary == r.summary
    assert sorted(p.name for p in tmp_path.iterdir()) == ["res"]  # no temporaries left


def test_from_parquet_detects_a_changed_file(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    out = fanin.run(Scenario.from_dict(small_incast)).to_parquet(tmp_path / "res")
    (out / "flows.parquet").write_bytes(b"not parquet")
    with pytest.raises(ValueError, match="sha256"):
        Results.from_parquet(out)


def test_same_seed_gives_byte_identical_files(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    small_incast["record"]["hosts"] = {"bin": "10us"}
    s = Scenario.from_dict(small_incast)
    a = fanin.run(s).to_parquet(tmp_path / "a")
    b = fanin.run(s).to_parquet(tmp_path / "b")
    files = sorted(p.name for p in a.iterdir() if p.name != "timing.json")
    assert "flows.parquet" in files and "hosts.parquet" in files and "manifest.json" in files
    for f in files:
        assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_different_seed_gives_different_flows(small_fat_tree: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_fat_tree)
    one = fanin.run(s).flows
    two = fanin.run(s, seed=2).flows
    assert fanin.run(s, seed=1).flows.equals(one)
    cols = ["src", "dst", "fct_ps"]
    assert not one[cols].equals(two[cols])


def test_rewrite_replaces_a_result_but_never_a_foreign_dir(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    r = fanin.run(Scenario.from_dict(small_incast))
    target = tmp_path / "res"
    r.to_parquet(target)
    r.to_parquet(target)  # an earlier result is replaced
    assert (target / "manifest.json").is_file()
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep me")
    with pytest.raises(FileExistsError):
        r.to_parquet(foreign)
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine", "res"]


def test_plot(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    from fanin.plot import queue_and_fct

    r = fanin.run(Scenario.from_dict(small_incast))
    png = queue_and_fct(r, tmp_path / "fig" / "q.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 10_000


def test_unfinished_work_is_null_not_zero(tmp_path: Path, cut_off: dict[str, Any]) -> None:
    r = fanin.run(Scenario.from_dict(cut_off))
    flows, incasts = r.flows, r.incasts
    assert flows["completed"].tolist() == [True] * 4 + [False] * 4
    for col in ("finish_ps", "fct_ps", "recv_done_ps"):
        assert flows[col].isna().tolist() == [False] * 4 + [True] * 4, col
    assert flows["slowdown"].isna().sum() == 4
    assert incasts["ict_ps"].isna().tolist() == [False, True]
    # Statistics skip the missing: the mean is the completed incast's time, not half of it.
    assert incasts["ict_ps"].mean() == incasts["ict_ps"].iloc[0] > 0
    assert flows["fct_ps"].mean() == flows["fct_ps"].iloc[:4].astype(float).mean()
    # Nulls survive Parquet, in Arrow and in pandas.
    back = Results.from_parquet(r.to_parquet(tmp_path / "res"))
    assert back.tables["flows"].column("fct_ps").null_count == 4
    assert back.tables["incasts"].column("ict_ps").null_count == 1
    assert back.incasts["ict_ps"].dtype == pd.UInt64Dtype()
    h = headline(r)
    assert (h["flows"], h["flows_completed"], h["incasts"], h["incasts_completed"]) == (8, 4, 2, 1)
    assert h["ict_max_ms"] == pytest.approx(incasts["ict_ps"].iloc[0] / 1e9)
    line = unfinished(h)
    assert line is not None and line.startswith("4 of 8 flows and 1 of 2 incasts did not finish")


def test_a_run_that_finished_has_no_unfinished_line(small_incast: dict[str, Any]) -> None:
    r = fanin.run(Scenario.from_dict(small_incast))
    assert unfinished(headline(r)) is None
    assert not r.flows["fct_ps"].isna().any()


def measured_mix(duration: str) -> dict[str, Any]:
    """A small leaf-spine under 200 KB flows and 4-sender incast events arriving without a
    stop, the flows and incasts starting in [0.5, 1.5) ms measured."""
    link = {"rate": "10Gbps", "delay": "1us"}
    arrivals = {"load": 0.15, "capacity": "uplinks", "sizes": "uniform 8KB 32KB"}
    return {
        "name": "test-measured",
        "duration": duration,
        "topology": {"kind": "leaf_spine", "leaves": 4, "spines": 2, "hosts_per_leaf": 4, "host_link": link},
        "switch": {"queue": {"limit": "200pkt", "marking": {"kind": "step", "threshold": "65pkt"}}},
        "transport": {"cc": "dctcp", "min_rto": "1ms"},
        "workload": [
            {"kind": "poisson", **arrivals, "sizes": "constant 200KB"},
            {"kind": "poisson_incast", **arrivals, "degree": 4},
        ],
        "measure": {"from": "0.5ms", "until": "1.5ms"},
    }


def test_measured_columns_say_what_started_in_the_window() -> None:
    r = fanin.run(Scenario.from_dict(measured_mix("50ms")))
    flows, incasts = r.flows, r.incasts
    assert flows["measured"].dtype == np.bool_ and incasts["measured"].dtype == np.bool_
    def in_window(start: pd.Series) -> list[bool]:
        return ((start >= 500_000_000) & (start < 1_500_000_000)).tolist()

    assert flows["measured"].tolist() == in_window(flows["start_ps"])
    assert incasts["measured"].tolist() == in_window(incasts["first_start_ps"])
    measured = flows[flows["measured"]]
    assert len(measured) > 10 and measured["completed"].all() and incasts[incasts["measured"]]["completed"].all()
    assert r.summary["measured_flows"] == r.summary["measured_flows_completed"] == len(measured)
    # The run ended at the last measured flow's end, cutting off later arrivals (null).
    assert r.summary["sim_end_ps"] == measured["finish_ps"].max() < 50e9
    assert (flows["start_ps"] >= 1_500_000_000).any() and flows["finish_ps"].isna().any()
    h = headline(r)
    assert (h["measured_flows"], h["measured_flows_completed"]) == (len(measured), len(measured))
    assert h["fct_p99_ms"] == pytest.approx(np.quantile(measured["fct_ps"].astype(float), 0.99) / 1e9)
    assert unfinished(h) is None, "unmeasured flows are cut off by design"


def test_measured_flows_cut_off_by_the_duration_are_null_and_counted() -> None:
    r = fanin.run(Scenario.from_dict(measured_mix("1.6ms")))
    flows = r.flows
    measured = flows[flows["measured"]]
    assert r.summary["sim_end_ps"] == 1_600_000_000
    late = measured[~measured["completed"]]
    assert len(late) > 0 and late["fct_ps"].isna().all() and late["finish_ps"].isna().all()
    assert r.summary["measured_flows_completed"] == len(measured) - len(late) < r.summary["measured_flows"]
    line = unfinished(headline(r))
    assert line is not None and line.startswith(f"{len(late)} of {len(measured)} measured flows")


def test_results_doc_lists_the_documented_columns() -> None:
    """docs/results.md, SCHEMAS and (test above) the engine agree, column for column."""
    text = (Path(__file__).parent.parent / "docs" / "results.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## (\w+)\.parquet.*?\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert {name for name, _ in sections} == set(SCHEMAS)
    for name, body in sections:
        rows = [line.split("|")[1] for line in body.splitlines() if line.startswith("| ") and "| column |" not in line]
        assert [c.strip() for row in rows for c in row.split(",")] == [c for c, _ in SCHEMAS[name]], name
