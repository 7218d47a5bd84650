"""`fanin crosscheck tcp`: the grid, the gates, the wire-byte equivalence of the two sides and
the command's argument errors run without ns-3; the tests that run ns-3 skip without its
bindings (pip install 'fanin[ns3]'; CI installs none)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fanin
from conftest import fanin_cli, one_line
from fanin.crosscheck import ns3_tcp as x

FULL_INCAST = 2 * 3 * 4 * 3 * 2  # cc x delay x N x buffer x size
FULL_STEADY = 3 * 3  # flows x delay


def assert_one_clean_line(stderr: str) -> None:
    one_line(stderr)


# --------------------------------------------------------------------------- grid


def test_full_grid() -> None:
    cases = x.grid()
    assert len(cases) == FULL_INCAST + FULL_STEADY
    assert len(set(cases)) == len(cases)
    inc = [c for c in cases if c.kind == "incast"]
    assert {c.cc for c in inc} == {"newreno", "dctcp"}
    assert {c.n for c in inc} == {8, 32, 64, 128}
    assert {c.buffer_pkts for c in inc} == {50, 200, 400}
    assert {c.size_bytes for c in inc} == {65536, 1048576}
    assert {c.delay_us for c in inc} == {2, 10, 25}
    steady = [c for c in cases if c.kind == "steady"]
    assert {(c.cc, c.buffer_pkts) for c in steady} == {("dctcp", x.STEADY_BUFFER)}
    assert sorted({c.n for c in steady}) == [2, 10, 40]


def test_selection_filters_and_quick() -> None:
    sel = x.selection(cc="dctcp", n="8,64,8", buffer="50", size="64KiB,1MiB", delay="10", kind="incast")
    cases = x.grid(sel)
    assert [(c.n, c.size_bytes) for c in cases] == [(8, 65536), (8, 1048576), (64, 65536), (64, 1048576)]
    assert all(c.cc == "dctcp" and c.buffer_pkts == 50 and c.delay_us == 10 for c in cases)
    # Steady-state rows are DCTCP only, and follow --delay and --flows.
    assert x.grid(x.selection(cc="newreno", kind="steady")) == []
    steady = x.grid(x.selection(kind="steady", flows="2", delay="2,25"))
    assert [(c.n, c.delay_us) for c in steady] == [(2, 2), (2, 25)]
    quick = x.grid(x.selection(quick=True))
    assert 0 < len(quick) <= 8
    assert {c.kind for c in quick} == {"incast", "steady"}
    # An option given with --quick still applies.
    assert {c.cc for c in x.grid(x.selection(quick=True, cc="newreno"))} == {"newreno"}


@pytest.mark.parametrize(
    ("kwargs", "option", "allowed"),
    [
        ({"cc": "cubic"}, "--cc", "newreno, dctcp"),
        ({"n": "8,-1"}, "--n", "positive integer"),
        ({"n": "8,,64"}, "--n", "comma-separated"),
        ({"buffer": "0"}, "--buffer", "positive integer"),
        ({"size": "1.5MiB"}, "--size", "KiB, MiB"),
        ({"delay": "ten"}, "--delay", "positive integer"),
        ({"kind": "long"}, "--kind", "incast, steady"),
    ],
)
def test_selection_errors_name_the_option(kwargs: dict[str, str], option: str, allowed: str) -> None:
    with pytest.raises(x.GridError) as e:
        x.selection(**kwargs)
    assert e.value.option == option
    assert str(e.value).startswith(option + ":") and allowed in str(e.value)


def test_ns3_writes_after_staggered_handshakes() -> None:
    # Connections open 10 us apart (all SYNs at once would overflow a 50-packet buffer),
    # the data follows 1 ms after the last one.
    assert x.start_ps(8) == 80_000_000 + 1_000_000_000
    assert x.start_ps(128) == 1_280_000_000 + 1_000_000_000


def test_parse_size_units() -> None:
    assert x.parse_size("64KiB") == 65536
    assert x.parse_size(" 1MiB ") == 1 << 20
    assert x.parse_size("100KB") == 100_000
    assert x.size_label(65536) == "64KiB" and x.size_label(1 << 20) == "1MiB" and x.size_label(1000) == "1000B"


# --------------------------------------------------------------------------- gates


def side(**kw: object) -> x.Side:
    base: dict[str, object] = {"ict_us": 1000.0, "fct_p50_us": 500.0, "drops": 100, "timed_out_flows": 20}
    base.update(flows=8, completed=8)
    base.update(kw)
    return x.Side(**base)  # type: ignore[arg-type]


INCAST = x.Case("incast", "dctcp", 8, 200, 65536, 10)
STEADY = x.Case("steady", "dctcp", 10, x.STEADY_BUFFER, x.STEADY_BYTES, 10)


def test_within() -> None:
    assert x.within(110.0, 100.0) and x.within(90.0, 100.0)
    assert not x.within(110.01, 100.0) and not x.within(89.9, 100.0)
    assert x.within(0, 0) and not x.within(1, 0)  # zero drops must match exactly
    assert x.within(1, 0, floor=1) and not x.within(2, 0, floor=1)
    assert not x.within(None, 1.0) and not x.within(1.0, None)


def test_incast_gates() -> None:
    ref = side()
    assert x.gates(INCAST, side(), ref) == []
    assert x.gates(INCAST, side(ict_us=1100.0, fct_p50_us=450.0, drops=110, timed_out_flows=22), ref) == []
    assert x.gates(INCAST, side(ict_us=1101.0), ref) == ["ict"]
    assert x.gates(INCAST, side(fct_p50_us=449.0), ref) == ["fct_p50"]
    assert x.gates(INCAST, side(drops=89), ref) == ["drops"]
    # Timed-out flows: max(1, 10 %) -- 2 of 20 here, 1 when ns-3 has few.
    assert x.gates(INCAST, side(timed_out_flows=23), ref) == ["timed_out"]
    assert x.gates(INCAST, side(timed_out_flows=1), side(timed_out_flows=0)) == []
    assert x.gates(INCAST, side(timed_out_flows=2), side(timed_out_flows=0)) == ["timed_out"]
    assert x.gates(INCAST, side(drops=1), side(drops=0)) == ["drops"]
    # fanin did not finish: its ICT and FCT are missing, both fail.
    assert x.gates(INCAST, side(ict_us=None, fct_p50_us=None), ref) == ["ict", "fct_p50"]


def test_steady_gates_and_verdicts() -> None:
    ref = x.Side(queue_min=30.0, queue_max=80.0)
    assert x.gates(STEADY, x.Side(queue_min=33.0, queue_max=72.0), ref) == []
    assert x.gates(STEADY, x.Side(queue_min=34.0, queue_max=88.5), ref) == ["q_min", "q_max"]
    assert x.judge(STEADY, x.Side(queue_min=30.0, queue_max=80.0), ref).verdict == "ok"
    row = x.judge(INCAST, side(ict_us=2000.0, drops=0), side())
    assert row.verdict == "FAIL: ict, drops" and row.failed == ["ict", "drops"]
    stalled = x.judge(INCAST, side(), side(completed=7, ict_us=None))
    assert stalled.verdict.startswith("n/a") and stalled.failed == []


def test_seeds_gate_on_medians_and_ns3s_own_spread() -> None:
    # Medians: fanin's 1000/1300/1400 against ns-3's 1000/1000/1100 -> 1300 vs 1000: ICT fails
    # the 10 % gate, but ns-3 itself reached 1100 (+10 % = 1210): still outside, a FAIL.
    f = [side(ict_us=v) for v in (1000.0, 1300.0, 1400.0)]
    n = [side(ict_us=v) for v in (1000.0, 1000.0, 1100.0)]
    row = x.judge_runs(INCAST, f, n)
    assert row.fanin.ict_us == 1300.0 and row.ns3.ict_us == 1000.0
    assert row.verdict == "FAIL: ict" and row.in_spread == []
    # ns-3 moved by a whole RTO between seeds: fanin's median inside that range passes, says so.
    n = [side(ict_us=v) for v in (1000.0, 1000.0, 11000.0)]
    row = x.judge_runs(INCAST, f, n)
    assert row.failed == [] and row.in_spread == ["ict"]
    assert row.verdict == "ok in ns-3's spread: ict"
    assert "ns-3 over 3 seeds: ICT 1.00-11.00 ms" in x.note(row)
    rec = x.to_records([row])[0]
    assert (rec["seeds"], rec["ns3_ict_us_min"], rec["ns3_ict_us_max"]) == (3, 1000.0, 11000.0)
    # One seed: the gates alone, as before.
    assert x.judge_runs(INCAST, f[1:2], n[:1]).verdict == "FAIL: ict"
    # A run that did not finish leaves its time out of the median: None, never 0.
    assert x.median_side([side(ict_us=None), side()]).ict_us is None


def test_grid_seeds_need_jitter() -> None:
    with pytest.raises(x.GridError, match="--seeds"):
        x.run_grid([INCAST], seeds=2, jitter_ns=0)
    # A steady-state row runs once whatever the seeds.
    assert len(x.case_seeds(STEADY, 1, 5)) == 1 and list(x.case_seeds(INCAST, 4, 3)) == [4, 5, 6]


# --------------------------------------------------------------------------- queue statistics


def test_step_stats_ignores_instants() -> None:
    t = np.array([0, 10, 10, 20, 30, 30, 40], dtype=np.int64)
    v = np.array([5, 0, 7, 9, 3, 100, 4], dtype=np.int64)  # 0 and 3 last no time
    mn, mx, mean = x.step_stats(t, v, 5, 45)
    assert (mn, mx) == (4.0, 100.0)
    assert mean == pytest.approx((5 * 5 + 7 * 10 + 9 * 10 + 100 * 10 + 4 * 5) / 40)
    assert x.step_stats(t, v, -1, 10) is None  # the series starts after t0


def test_oscillation_period() -> None:
    dt = 1.0
    t = np.arange(20_000) * dt
    saw = 60 + 10 * ((t % 437.0) / 437.0)
    assert x.oscillation_period(saw, dt) == pytest.approx(437.0, rel=0.01)
    rng = np.random.default_rng(1)
    noisy = 60 + 8 * np.sin(2 * np.pi * t / 250.0) + rng.normal(0, 2, len(t))
    assert x.oscillation_period(noisy, dt) == pytest.approx(250.0, rel=0.02)
    assert x.oscillation_period(np.full(1000, 65.0), dt) is None


# --------------------------------------------------------------------------- equivalence


def test_wire_bytes_match_ns3() -> None:
    """fanin's mtu/header/framing give ns-3's frames: 1448 B payload + 52 B IP/TCP/TS + 2 B PPP."""
    assert (x.MSS, x.HEADER) == (1448, 52)
    for case in (INCAST, x.Case("incast", "newreno", 32, 50, 1 << 20, 2)):
        s = x.fanin_scenario(case)
        assert x.fanin_frame_bytes(s) == x.ns3_frame_bytes(x.MSS) == 1502
        assert x.fanin_frame_bytes(s, 376) == x.ns3_frame_bytes(376)  # a short last segment
        assert x.fanin_frame_bytes(s, 0) == x.ns3_frame_bytes(0) == 54  # a pure ACK
    # ns-3's ACKs grow with SACK blocks (fanin's do not): 3 blocks fill the 40-B option space.
    assert [x.ns3_frame_bytes(0, k) for k in (1, 2, 3)] == [62, 70, 78]
    assert 10 + 2 + 8 * 3 <= 40 < 10 + 2 + 8 * 4  # TS + SACK option bytes: 3 blocks fit, 4 do not


def test_fanin_scenarios_validate_and_match_settings() -> None:
    for case in x.grid(x.selection(n="8", buffer="50", size="64KiB", delay="2", flows="2")):
        d = x.fanin_scenario(case)
        fanin.Scenario.from_dict(d).validate()
        t, q = d["transport"], d["switch"]["queue"]
        assert t["min_rto"] == t["initial_rto"] == "10ms" and t["rto_granularity"] == "1ms"
        assert (t["init_cwnd"], t["delayed_ack"], t["sack"]) == ("10pkt", 1, True)
        assert q == d["host"]["queue"] and q["device_queue"] == "1pkt"
        assert d["topology"]["host_link"] == {"rate": "10Gbps", "delay": f"{case.delay_us}us"}
        if case.cc == "dctcp":
            assert t["ecn"] and t["min_cwnd"] == "1pkt" and t["dctcp"]["g"] == 1 / 16
            assert q["marking"]["min"] == q["marking"]["max"] == "65pkt" and q["marking"]["gentle"] is False
        else:
            assert not t["ecn"] and t["min_cwnd"] == "2pkt" and "marking" not in q
        assert t["recovery"] == "ns3"  # ns-3 3.44's loss-recovery rules
        # ns-3's NIC queues (no TCP Small Queues): the explicit [host.queue] keeps them.
        assert fanin.Scenario.from_dict(d).get("host.tsq", None) is None and "queue" in d["host"]


def test_jitter_gives_both_sides_the_same_starts() -> None:
    case = x.Case("incast", "newreno", 8, 200, 65536, 10)
    d = x.fanin_scenario(case, jitter_ns=1000)
    assert d["workload"][0]["jitter"] == "1000ns"
    side_ = x.run_fanin(case, jitter_ns=1000)
    assert len(side_.offsets_ps) == 8 and 0 < max(side_.offsets_ps) < 1_000_000
    assert x.run_fanin(case).offsets_ps == [0] * 8


def test_fanin_lossless_incast_sends_ns3_frames() -> None:
    """8 x 64 KiB NewReno (no loss): the bottleneck serialises exactly ns-3's frames, and the
    incast completes when ns-3 3.44 says it does (476.616001 us, measured with this grid's
    ns-3 half; ns-3 rounds the start by 1 ps)."""
    case = x.Case("incast", "newreno", 8, 200, 65536, 10)
    r = fanin.run(fanin.Scenario.from_dict(x.fanin_scenario(case)))
    bn = r.ports[r.ports["port_name"] == "sw0->r0"].iloc[0]
    segs = -(-65536 // x.MSS)
    assert int(bn["tx_pkts"]) == 8 * segs
    assert int(bn["tx_bytes"]) == 8 * (65536 + segs * (x.HEADER + x.PPP))
    assert int(r.incasts["ict_ps"].iloc[0]) == pytest.approx(476_616_001, abs=1_000)
    side_ = x.run_fanin(case)
    assert side_.drops == 0 and side_.completed == 8 and side_.ict_us == pytest.approx(476.616, abs=0.001)


# --------------------------------------------------------------------------- output


def fake_rows() -> list[x.Row]:
    a = x.judge(INCAST, side(), side(ict_us=2000.0))
    a.ns3.notes.append("ns-3 RTO in CWR despite SACKs 3")
    a.fanin.run_s, a.ns3.run_s = 0.01, 1.0
    f = x.Side(queue_min=30.0, queue_max=80.0, queue_period_us=500.0)
    b = x.judge(STEADY, f, x.Side(queue_min=30.0, queue_max=80.0))
    return [a, b]


def test_write_table_csv_and_parquet(tmp_path: Path) -> None:
    rows = fake_rows()
    for name in ("rows.csv", "rows.parquet"):
        p = x.write_table(rows, tmp_path / name)
        df = pd.read_csv(p) if name.endswith(".csv") else pd.read_parquet(p)
        assert list(df["verdict"]) == ["FAIL: ict", "ok"]
        assert df["speedup"].iloc[0] == pytest.approx(100.0)
        assert {"fanin_ict_us", "ns3_ict_us", "ns3_cwr_sack_timeouts", "note"} <= set(df.columns)
    with pytest.raises(x.GridError, match="allowed: .csv, .parquet"):
        x.write_table(rows, tmp_path / "rows.txt")


def test_printed_tables() -> None:
    import io

    from rich.console import Console

    con = Console(width=250, record=True, file=io.StringIO())
    for t in x.tables(fake_rows()):
        con.print(t)
    text = con.export_text()
    assert "FAIL: ict" in text and "1.000 / 2.000" in text and "100x" in text
    assert "ns-3 RTO in CWR despite SACKs 3" in text
    assert "30 / 30" in text and "500 / -" in text


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--cc", "cubic"], "--cc: unknown value `cubic` (allowed: newreno, dctcp)"),
        (["--n", "8,x"], "--n: `x` is not a positive integer"),
        (["--size", "1GB"], "--size: `1GB` is not a size"),
        (["--kind", "bursts"], "--kind: unknown value `bursts` (allowed: incast, steady)"),
        (["--ns3-dctcp", "linux"], "--ns3-dctcp: unknown value `linux` (allowed: floored, mainline)"),
        (["-j", "0"], "-j: `0` is not a number of processes"),
        (["-o", "rows.txt"], "-o: `rows.txt`: unknown file type (allowed: .csv, .parquet)"),
        (["--cc", "newreno", "--kind", "steady"], "the selection is empty"),
        (["--seeds", "0"], "--seeds: `0` is out of range (allowed: 1 to 100)"),
        (["--seeds", "3", "--jitter-ns", "0"], "--seeds: more than one seed needs --jitter-ns > 0"),
        (["--jitter-ns", "-1"], "--jitter-ns: `-1` is out of range"),
    ],
)
def test_cli_rejects_bad_input(args: list[str], expected: str) -> None:
    r = fanin_cli("crosscheck", "tcp", *args)
    assert r.returncode == 2, r.stderr
    assert_one_clean_line(r.stderr)
    assert expected in r.stderr


# --------------------------------------------------------------------------- with ns-3

needs_ns3 = pytest.mark.skipif(
    importlib.util.find_spec("ns") is None or importlib.util.find_spec("cppyy") is None,
    reason="ns-3 Python bindings not installed (`from ns import ns` unavailable; pip install 'fanin[ns3]')",
)


@pytest.fixture(scope="module")
def ns3() -> None:
    from fanin.crosscheck import ns3_incast

    if not ns3_incast.available():  # the real import (~15 s) when the wheel is there
        pytest.skip("ns-3 Python bindings not importable (`from ns import ns` failed)")
    x.ns3_setup()


@needs_ns3
def test_lossless_incast_agrees_with_ns3(ns3: None) -> None:
    case = x.Case("incast", "newreno", 8, 200, 65536, 10)
    row = x.run_case(case)
    assert row.verdict == "ok", row
    assert row.ns3.ict_us == pytest.approx(row.fanin.ict_us, abs=0.001)  # identical frames and timing
    assert row.ns3.drops == row.ns3.timed_out_flows == row.ns3.retx_bytes == 0
    assert row.ns3.notes == []  # in particular the RTO after the handshake is MinRto, as fanin's initial_rto
    assert row.ns3.run_s > 0 and row.fanin.run_s > 0


@needs_ns3
def test_ns3_dctcp_variants_and_steady_state(ns3: None) -> None:
    case = x.Case("incast", "dctcp", 8, 200, 65536, 10)
    floored = x.run_ns3(case, "floored")
    mainline = x.run_ns3(case, "mainline")
    for s in (floored, mainline):
        assert s.completed == 8 and s.marks > 0 and s.drops == 0
    steady = x.run_ns3(x.Case("steady", "dctcp", 2, x.STEADY_BUFFER, x.STEADY_BYTES, 2))
    assert steady.completed == 0 and steady.drops == 0
    assert steady.queue_min is not None and steady.queue_max is not None
    assert steady.queue_min <= x.K_PKTS + 2 <= steady.queue_max + 2
