"""Partitioned runs (issue 23): a multi_dc run cut per datacenter writes the same result
files on 1, 2 and 3 threads, through the API and the CLI; bad thread counts name the field."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import fanin
from conftest import fanin_cli, one_line

# Two leaf-spine datacenters joined by border switches over 20 us WAN links; flows across in
# both directions and inside each, some starting at the same instant, into shared receivers
# with short queues (drops and retransmissions across the WAN).
TWO_DCS = """
name = "two-dcs"
seed = 3
[topology]
kind = "multi_dc"
dcs = 2
fabric = "leaf_spine"
leaves = 2
spines = 2
hosts_per_leaf = 4
interconnect = "border"
wan_links = 2
host_link = { rate = "10Gbps", delay = "1us" }
fabric_link = { rate = "40Gbps", delay = "1us" }
long_haul_link = { rate = "40Gbps", delay = "20us" }
[switch.queue]
limit = "30pkt"
[record]
flows = true
"""

FLOWS = [(0, 8, 0), (1, 8, 0), (2, 9, 0), (8, 0, 0), (9, 1, 3), (3, 4, 0), (12, 13, 3), (5, 15, 0), (15, 5, 0)]


@pytest.fixture
def two_dcs(tmp_path: Path) -> Path:
    text = TWO_DCS
    for src, dst, start in FLOWS:
        text += f'[[workload]]\nkind = "flow"\nsrc = "h{src}"\ndst = "h{dst}"\nbytes = "200KB"\nstart = "{start}us"\n'
    path = tmp_path / "two_dcs.toml"
    path.write_text(text)
    return path


def files(directory: Path) -> dict[str, bytes]:
    """Every result file but the wall-clock timings."""
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.name != "timing.json"}


def test_result_files_are_byte_identical_for_1_2_and_3_threads(two_dcs: Path, tmp_path: Path) -> None:
    written = {}
    for threads in (1, 2, 3):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # the run is cut: no "not partitioned" warning
            results = fanin.run(two_dcs, threads=threads)
        written[threads] = files(results.to_parquet(tmp_path / f"t{threads}"))
    assert {"flows.parquet", "ports.parquet", "manifest.json"} <= set(written[1])
    assert written[2] == written[1] and written[3] == written[1]
    flows = results.tables["flows"]
    assert flows.num_rows == len(FLOWS) and all(flows.column("completed").to_pylist())
    assert sum(results.tables["ports"].column("dropped_pkts").to_pylist()) > 0, "the queues must overflow"


def test_cli_threads_writes_the_same_files(two_dcs: Path, tmp_path: Path) -> None:
    for threads in ("1", "2"):
        r = fanin_cli("run", str(two_dcs), "-o", str(tmp_path / threads), "-q", "--threads", threads)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
    assert files(tmp_path / "2") == files(tmp_path / "1")


@pytest.mark.parametrize("bad", [0, -2, 1.5, True, "2"])
def test_a_bad_thread_count_names_the_field(two_dcs: Path, bad: object) -> None:
    with pytest.raises(fanin.ScenarioError) as e:
        fanin.run(two_dcs, threads=bad)  # type: ignore[arg-type]
    assert e.value.path == "threads" and "at least 1" in e.value.message


def test_cli_bad_thread_count_is_one_line(two_dcs: Path, tmp_path: Path) -> None:
    r = fanin_cli("run", str(two_dcs), "-o", str(tmp_path / "out"), "--threads", "0")
    assert r.returncode == 2
    assert one_line(r.stderr).startswith("error: threads: must be a whole number of at least 1")
    assert not (tmp_path / "out").exists()


def test_a_run_that_cannot_be_cut_warns_and_runs_whole(tmp_path: Path) -> None:
    dumbbell = fanin.Scenario.from_toml(
        'name = "dumbbell"\n[topology]\nkind = "dumbbell"\nsenders = 2\n'
        '[[workload]]\nkind = "flow"\nsrc = "s0"\ndst = "r0"\nbytes = "10KB"\n'
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        two = fanin.run(dumbbell, threads=2)
    assert [str(w.message) for w in caught] == ["threads=2: this run is not partitioned (the topology has one datacenter); it runs on one thread"]
    assert files(two.to_parquet(tmp_path / "2")) == files(fanin.run(dumbbell).to_parquet(tmp_path / "1"))


def test_a_streamed_flows_table_runs_whole_and_keeps_its_rows(two_dcs: Path, tmp_path: Path) -> None:
    # A streamed flow is retired once none of its packets is left in the network, which a
    # flow across datacenters spreads over two partitions: such a run stays whole, says why,
    # and streams the rows the partitioned run keeps.
    kept = fanin.run(two_dcs, threads=2).flows.sort_values("flow_id").reset_index(drop=True)
    with pytest.warns(UserWarning, match="streamed flows tables"):
        streamed = fanin.run(two_dcs, threads=2, set={"record.flows": "stream"}, flows_to=tmp_path / "f.parquet")
    rows = streamed.flows.sort_values("flow_id").reset_index(drop=True)
    assert len(rows) == len(FLOWS) and rows["completed"].all()
    assert rows[["flow_id", "fct_ps", "retx_bytes"]].equals(kept[["flow_id", "fct_ps", "retx_bytes"]])


# A k = 4 fat-tree cut into two parts of whole pods: every host sends to one in another pod
# (across the cut, through the cores) into short queues.
PODS = """
name = "pods"
seed = 5
[topology]
kind = "fat_tree"
k = 4
[partition]
by = "pod"
[switch.queue]
limit = "10pkt"
[[workload]]
kind = "permutation"
bytes = "100KB"
[record]
flows = true
"""


def test_a_cut_by_pod_writes_the_same_files_on_1_and_2_threads(tmp_path: Path) -> None:
    path = tmp_path / "pods.toml"
    path.write_text(PODS)
    for threads in ("1", "2"):
        r = fanin_cli("run", str(path), "-o", str(tmp_path / threads), "-q", "--threads", threads)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
    assert files(tmp_path / "2") == files(tmp_path / "1")
    # Its own tables: the uncut run is another order of the same network's ties.
    cut = fanin.run(path, threads=2).flows
    whole = fanin.run(fanin.Scenario.from_toml(PODS.replace('[partition]\nby = "pod"\n', ""))).flows
    assert len(cut) == len(whole) == 16 and cut["completed"].all() and whole["completed"].all()


def test_a_cut_that_cannot_be_made_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(fanin.ScenarioError) as e:
        fanin.run(fanin.Scenario.from_toml(PODS.replace('by = "pod"', 'by = "pod"\nparts = 9')))
    assert (e.value.path, e.value.message) == ("partition.parts", "must be between 2 and 4, got 9")
    path = tmp_path / "bad.toml"
    path.write_text(PODS.replace('flows = true', 'flows = true\nqueues = { interval = "10us", ports = "all" }'))
    r = fanin_cli("run", str(path), "-o", str(tmp_path / "out"), "--threads", "2")
    assert r.returncode == 2
    assert one_line(r.stderr) == "error: partition.by: [record] queue, rate and window series are not partitioned yet"
    assert not (tmp_path / "out").exists()


def test_a_cut_by_pod_streams_the_same_file_on_1_and_2_threads(tmp_path: Path) -> None:
    # Poisson arrivals, each flow retired at an epoch's end once its packets are gone: the
    # streamed file is the same on any number of threads, and holds the kept table's rows.
    poisson = PODS.replace('kind = "permutation"\nbytes = "100KB"', 'kind = "poisson"\nload = 0.5\nsizes = "loguniform 2KB 50KB"\nstop = "5ms"')
    poisson = poisson.replace('limit = "10pkt"', 'limit = "100pkt"')  # no losses: flows end within microseconds
    path = tmp_path / "stream.toml"
    path.write_text(poisson.replace("flows = true", 'flows = "stream"'))
    for threads in ("1", "2"):
        r = fanin_cli("run", str(path), "-o", str(tmp_path / threads), "-q", "--threads", threads)
        assert r.returncode == 0, r.stderr
        assert r.stderr == ""
    assert files(tmp_path / "2") == files(tmp_path / "1")
    kept = fanin.run(fanin.Scenario.from_toml(poisson), threads=2)
    streamed = fanin.Results.from_parquet(tmp_path / "1")
    assert streamed.summary["flow_slots"] < len(kept.flows) / 20, streamed.summary["flow_slots"]
    assert not streamed.flows["flow_id"].is_monotonic_increasing  # in the order flows left
    by_id = streamed.flows.sort_values("flow_id").reset_index(drop=True)
    assert len(kept.flows) > 400 and by_id.equals(kept.flows)
