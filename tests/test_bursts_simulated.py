"""fanin's own host counters through the burst pipeline, and the `fanin bursts` command."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import fanin
import fanin.bursts as fb
from conftest import fanin_cli
from test_bursts_analysis import known_host, write_host

MSS, HEADER = 1460, 40
SIZE = 560_000  # 8 x 560 KB at 10 Gbit/s: every bin of a burst, edges included, is above half the line rate

SCENARIO = f"""
name = "bursts-sim"
duration = "35ms"
[topology]
kind = "star"
senders = 8
host_link = {{ rate = "10Gbps", delay = "2us" }}
[switch.queue]
limit = "1000pkt"
marking = {{ kind = "step", threshold = "65pkt" }}
[transport]
cc = "dctcp"
min_rto = "200us"
[[workload]]
kind = "incast"
degree = 8
bytes_per_sender = "{SIZE}B"
count = 3
period = "10ms"
start = "2ms"
[record]
hosts = {{ hosts = ["r0", "s0"] }}
"""


@pytest.fixture(scope="module")
def sim() -> fanin.Results:
    return fanin.run(fanin.Scenario.from_toml(SCENARIO))


def test_simulated_incast_bursts_carry_the_flows_bytes(sim: fanin.Results) -> None:
    found = fb.find(fb.load(sim))  # line rate from the run's ports: 10 Gbit/s
    assert set(found.hosts["line_rate_origin"]) == {"recorded"}
    assert set(found.hosts["line_rate_bps"]) == {10 * 10**9}
    b = found.bursts
    assert list(b["host"]) == ["r0"] * 3  # one burst per incast, none at the sender
    assert list(b["start_ps"]) == [2 * 10**9, 12 * 10**9, 22 * 10**9]
    flows = sim.flows
    assert (flows["retx_bytes"] == 0).all()
    wire = SIZE + HEADER * math.ceil(SIZE / MSS)  # frame bytes of one flow
    assert list(b["bytes"]) == [8 * wire] * 3
    assert list(b["flows_max"]) == [8, 8, 8]
    assert b["peak_rate_bps"].max() <= 1.001 * 10e9  # a bin holds at most one extra frame
    r0 = found.hosts.set_index("host").loc["r0"]
    assert r0["burst_bytes_share"] == pytest.approx(1.0)  # r0 receives nothing but the incasts
    assert r0["bursts"] == 3


def test_result_directory_and_cli(sim: fanin.Results, tmp_path: Path) -> None:
    run_dir = sim.to_parquet(tmp_path / "run")
    out = tmp_path / "study"
    r = fanin_cli("bursts", str(run_dir), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "bursts" in r.stdout and "10G recorded" in r.stdout
    for name in ("counters", "bursts", "hosts", "racks", "stability", "summary"):
        assert (out / f"{name}.parquet").is_file()
    for name in ("timeline.png", "cdfs.png", "stability.png"):
        assert (out / name).stat().st_size > 10_000
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "bursts" and manifest["inputs"] == [str(run_dir)]
    import pandas as pd

    assert len(pd.read_parquet(out / "bursts.parquet")) == 3


def test_cli_mixes_inputs_and_reports_skips(tmp_path: Path) -> None:
    write_host(tmp_path / "ms", "day1-h1", "7", "11", **known_host())
    empty = tmp_path / "ms" / "day1-h1-zip" / "rackId_7_hostId_99.txt.gz"
    empty.write_bytes(b"")
    r = fanin_cli("bursts", str(tmp_path / "ms"), "--line-rate", "10G", "--no-plots", "-o", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert f"ms: skipped 1 of 2 files: {empty}: empty file" in r.stderr
    assert not (tmp_path / "o" / "timeline.png").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["{d}/absent"], "no such file"),
        (["{d}/bad.txt.gz"], "not JSON"),
        (["{d}/ms", "--line-rate", "fast"], "--line-rate"),
    ],
)
def test_cli_bad_input_exits_2_and_writes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    (tmp_path / "bad.txt.gz").write_bytes(b"{not json")
    write_host(tmp_path / "ms", "day1-h1", "7", "11", **known_host())
    out = tmp_path / "o"
    r = fanin_cli("bursts", *[a.format(d=tmp_path) for a in args], "-o", str(out))
    assert r.returncode == 2, r.stdout
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in r.stderr, r.stderr
    assert not out.exists()
