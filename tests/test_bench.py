"""The benchmark scenarios are valid, and the ns-3 comparison reads scenario (a) right."""

from __future__ import annotations

import pytest

from fanin import Scenario
from fanin.bench import BENCH_DIR, CASES, ns3_params


@pytest.mark.parametrize("key", sorted(CASES))
def test_bench_scenarios_validate(key: str) -> None:
    Scenario.load(BENCH_DIR / CASES[key].file).validate()


def test_ns3_parameters_of_scenario_a() -> None:
    p = ns3_params(BENCH_DIR / CASES["a"].file)
    assert p == dict(
        senders=64, bytes_per_sender=1_000_000, rate_bps=10_000_000_000, link_delay_ps=1_000_000,
        ecn_threshold_pkts=65, buffer_pkts=1000, mtu=1500, min_rto_ps=200_000_000, init_cwnd_pkts=10,
        dctcp_g=1 / 16, seed=1,
    )  # fmt: skip


def _run(wall_s: float, hops: int = 1_000_000, peak_mb: float = 100.0) -> dict[str, object]:
    return {"summary": {"wall_s": wall_s, "packet_hops": hops, "events": hops}, "ict_ps": None, "peak_mb": peak_mb}


def test_repeated_runs_report_the_median_run_and_the_range() -> None:
    from fanin.bench import combine

    row = combine([_run(0.2), _run(0.1, peak_mb=130.0), _run(0.4)])
    assert row["summary"]["wall_s"] == 0.2  # the median run, not the fastest
    assert row["rate_range"] == pytest.approx((2.5, 10.0))
    assert row["peak_mb"] == 130.0 and row["repeats"] == 3


def test_repeat_below_one_is_refused() -> None:
    from fanin.bench import main

    with pytest.raises(ValueError, match="--repeat: must be at least 1"):
        main(repeat=0)


def test_the_history_appends_one_line_per_run_and_returns_the_previous(tmp_path) -> None:
    from fanin.bench import CASES, append_history, combine, history_entry, read_history

    path = tmp_path / "h" / "bench.jsonl"
    first = history_entry([(CASES["a"], combine([_run(0.1)])), (CASES["e"], None)], "abc1234", "2026-11-27 10:00 UTC")
    # 1,000,000 hops in 0.1 s: 10 M hops/s; a case that could not run is left out.
    assert first["rows"] == {
        "a": {"mhops_per_s": 10.0, "range": [10.0, 10.0], "wall_s": 0.1, "setup_s": None, "packet_hops": 1_000_000,
              "peak_mb": 100.0, "repeats": 1},
    }  # fmt: skip
    assert append_history(path, first) is None
    second = history_entry([(CASES["a"], combine([_run(0.08), _run(0.125)]))], "def5678+", "2026-11-27 11:00 UTC")
    assert append_history(path, second) == first
    assert [e["build"] for e in read_history(path)] == ["abc1234", "def5678+"]
    # The median of two runs is the faster one (index (2 - 1) // 2 = 0 of the walls, sorted).
    assert second["rows"]["a"]["mhops_per_s"] == pytest.approx(12.5)


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("garbage\n", "line 1 is not a bench history entry"),
        ('{"build": "abc", "date": "d", "rows": {}}\n\n[1, 2]\n', "line 3 is not a bench history entry"),
        ('{"x": 1}\n', "line 1 is not a bench history entry"),
        (None, "is a directory"),
    ],
)
def test_a_history_that_is_not_one_is_refused_before_any_run(tmp_path, monkeypatch, content, says) -> None:
    from fanin import bench

    path = tmp_path / "bench.jsonl"
    if content is None:
        path.mkdir()
    else:
        path.write_text(content)
    ran = []
    monkeypatch.setattr(bench, "run_case", lambda case: ran.append(case))
    with pytest.raises(ValueError, match=f"--json: .*{says}"):
        bench.main(only="a", history=path)
    assert ran == [], "nothing runs"
    if content is not None:
        assert path.read_text() == content, "the file is left as it was"


def test_the_only_option_names_every_scenario() -> None:
    import typer

    from fanin.bench import CASES
    from fanin.cli import app

    bench_cmd = typer.main.get_command(app).commands["bench"]  # type: ignore[attr-defined]
    only = next(p for p in bench_cmd.params if p.name == "only")
    assert only.help.split(": ")[-1].split(",") == list(CASES)


def test_the_comparison_shows_the_change_against_the_previous_entry() -> None:
    from rich.console import Console

    from fanin.bench import comparison_table

    before = {"build": "abc1234", "date": "d0", "rows": {"a": {"mhops_per_s": 10.0, "setup_s": 0.01, "peak_mb": 120.0}}}
    now = {"build": "x", "date": "d1", "rows": {"a": {"mhops_per_s": 12.5, "setup_s": 0.02, "peak_mb": 121.0},
                                                 "d": {"mhops_per_s": 8.0, "setup_s": 0.3, "peak_mb": 300.0}}}  # fmt: skip
    console = Console(width=200, record=True)
    console.print(comparison_table(before, now))
    text = console.export_text()
    assert "against abc1234 (d0)" in text
    assert "+25.0%" in text
    (d_line,) = [line for line in text.splitlines() if line.strip().startswith("(d)")]
    assert d_line.split()[:4] == ["(d)", "-", "8.0", "new"]


def test_a_case_without_its_data_file_is_not_available(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from fanin import bench

    monkeypatch.setattr("fanin.workloads.artifact_dirs", lambda: [])
    assert not bench.available(CASES["e"]) and bench.available(CASES["a"])
    console = Console(width=250, record=True)
    console.print(bench.speed_table([(CASES["e"], None)]))
    assert "not available (websearchIntra_AlibabaInter_5000f_40l.cm missing)" in console.export_text()


def test_two_thread_rows_are_their_one_thread_rows_on_two_threads() -> None:
    from fanin.bench import speedup_lines

    for one, two in (("e", "e2"), ("g", "g2")):
        c1, c2 = CASES[one], CASES[two]
        assert (c2.file, c2.needs, c1.threads, c2.threads) == (c1.file, c1.needs, 1, 2)
    assert CASES["g"].file.endswith("uno/scenarios/uno.toml")
    # (c2) and (d2) are (c) and (d) cut by pod on two threads: the same scenarios but for
    # their [partition].
    for one, two in (("c", "c2"), ("d", "d2")):
        whole, cut = (Scenario.load(BENCH_DIR / CASES[k].file).to_dict() for k in (one, two))
        assert cut.pop("partition") == {"by": "pod", "parts": 2}
        assert cut.pop("name") != whole.pop("name") and cut == whole
        assert (CASES[one].threads, CASES[two].threads) == (1, 2)
    row = lambda wall, fastest=None, n=1: {"summary": {"wall_s": wall}, "fastest_wall_s": fastest or wall, "repeats": n}  # noqa: E731
    e, e2, g, g2 = (CASES[k] for k in ("e", "e2", "g", "g2"))
    assert speedup_lines([(e, row(1.8)), (e2, row(1.0))]) == ["(e2) against (e): 1.80x the run-loop speed on 2 threads"]
    assert speedup_lines([(e, row(1.8)), (e2, None)]) == []
    # Fig 10 is judged on the median runs against the 1.8x; the fastest are shown.
    # Ratios are shown rounded down (1 / 0.6 = 1.667 reads 1.66).
    lines = speedup_lines([(g, row(1.0, 0.9, 3)), (g2, row(0.6, 0.45, 3))])
    assert lines == ["(g2) against (g): 1.66x the run-loop speed on 2 threads (median runs; fastest runs 2.00x): "
                     "[red]FAIL[/] (>= 1.8x)"]  # fmt: skip
    assert speedup_lines([(g, row(1.0)), (g2, row(0.5))])[0].endswith("2.00x the run-loop speed on 2 threads: [green]pass[/] (>= 1.8x)")


def test_k32_is_judged_as_a_share_of_k16() -> None:
    from fanin import bench
    from fanin.bench import scale_lines

    row = lambda hops, wall, fastest=None, n=1: {"summary": {"wall_s": wall, "packet_hops": hops}, "fastest_wall_s": fastest or wall, "repeats": n}  # noqa: E731
    c, d = CASES["c"], CASES["d"]
    # No absolute mark of its own: the issue asks for 0.8x of k = 16's speed.
    assert d.min_mhops_per_s is None and bench._target(d) == ">= 0.8x (c)'s Mhops/s (below)"
    assert scale_lines([(c, row(20e6, 1.0)), (d, None)]) == []
    assert scale_lines([(c, row(20e6, 1.0)), (d, row(8e6, 0.5))]) == ["(d) against (c): 0.80x the packet-hops/s: [green]pass[/] (>= 0.8x)"]
    # Rates, not wall times: (d) runs fewer hops in a shorter run.
    # The row itself shows the verdict too (and, without (c) beside it, only its memory's).
    assert bench._share_met(d, [(c, row(20e6, 1.0)), (d, row(16e6, 1.0))])
    assert not bench._share_met(d, [(c, row(20e6, 1.0)), (d, row(10e6, 1.0))])
    assert bench._share_met(d, [(d, row(10e6, 1.0))]) and bench._share_met(c, [(c, row(20e6, 1.0))])
    lines = scale_lines([(c, row(20e6, 1.0, 0.8, 3)), (d, row(10e6, 1.0, 0.5, 3))])
    assert lines == ["(d) against (c): 0.50x the packet-hops/s (median runs; fastest runs 0.80x): [red]FAIL[/] (>= 0.8x)"]


def test_k32_is_set_against_k16_at_its_own_load_without_a_target() -> None:
    from fanin import bench
    from fanin.bench import scale_lines

    # (d16) is (c)'s network for (d)'s time, with (d)'s 8,192 flows: eight permutations.
    c, d, d16 = (Scenario.load(BENCH_DIR / CASES[k].file).to_dict() for k in ("c", "d", "d16"))
    assert d16["topology"] == c["topology"] and d16["duration"] == d["duration"]
    assert [w["kind"] for w in d16["workload"]] == ["permutation"] * 8 and d["topology"]["k"] ** 3 // 4 == 8 * 16**3 // 4
    row = lambda hops, wall: {"summary": {"wall_s": wall, "packet_hops": hops}, "fastest_wall_s": wall, "repeats": 1}  # noqa: E731
    rows = [(CASES["c"], row(20e6, 1.0)), (CASES["d"], row(10e6, 1.0)), (CASES["d16"], row(10e6, 1.0))]
    assert scale_lines(rows) == [
        "(d) against (c): 0.50x the packet-hops/s: [red]FAIL[/] (>= 0.8x)",
        "(d) against (d16): 1.00x the packet-hops/s",
    ]
    # The verdict on (d) stays the one against (c); (d16) has no target of its own.
    assert bench._target(CASES["d"]) == ">= 0.8x (c)'s Mhops/s (below)" and bench._target(CASES["d16"]) == "no target"
    assert not bench._share_met(CASES["d"], rows) and bench._share_met(CASES["d16"], rows)


def test_combine_keeps_the_fastest_run_loop() -> None:
    from fanin.bench import combine

    assert combine([_run(0.2), _run(0.1), _run(0.4)])["fastest_wall_s"] == 0.1


def test_the_machine_is_measured_before_the_runs_and_kept_in_the_history(tmp_path, monkeypatch) -> None:
    from rich.console import Console

    from fanin import bench

    order: list[str] = []
    figures = {"walk_ns_4mb": 36.4, "walk_ns_64mb": 151.0, "fresh_huge_page_ms": None}

    def measured() -> dict:
        order.append("machine")
        return dict(figures)

    def ran(case) -> dict:
        order.append(case.key)
        return _run(0.1)

    monkeypatch.setattr(bench, "machine", measured)
    monkeypatch.setattr(bench, "run_case", ran)
    monkeypatch.setattr(bench, "back_memory", lambda: order.append("backed"))
    path = tmp_path / "bench.jsonl"
    console = Console(width=300, record=True)
    bench.main(only="a", repeat=2, history=path, console=console)
    assert order == ["machine", "backed", "a", "backed", "a"], "measured once, before the runs; memory backed before each"
    text = console.export_text()
    assert "machine, before the runs: a step of a random walk 36 ns over 4 MB, 151 ns over 64 MB" in text
    assert "fresh huge page not measured" in text
    (entry,) = bench.read_history(path)
    assert entry["machine"] == figures
    # The next run's comparison shows the machine then and now.
    figures["walk_ns_4mb"], figures["fresh_huge_page_ms"] = 12.0, 0.35
    console = Console(width=400, record=True)
    bench.main(only="a", history=path, console=console)
    text = console.export_text()
    assert "machine then: a step of a random walk 36 ns over 4 MB" in text
    assert "now: a step of a random walk 12 ns over 4 MB, 151 ns over 64 MB; the first touch of a fresh huge page 0.35 ms" in text


def test_the_machine_probes_give_figures_here() -> None:
    from fanin import _native

    ns = _native.machine_walk_ns(2 << 20, 10_000)
    assert ns > 0
    ms = _native.machine_fresh_huge_page_ms(4 << 20)
    assert ms is None or ms >= 0


def test_an_entry_without_the_machine_compares_without_it() -> None:
    from fanin.bench_machine import machine_change

    now = {"build": "b", "date": "d1", "rows": {}, "machine": {"walk_ns_4mb": 36.0}}
    assert machine_change({"build": "a", "date": "d0", "rows": {}}, now) is None
    assert machine_change({"build": "a", "date": "d0", "rows": {}, "machine": "fast"}, now) is None
    text = machine_change({"build": "a", "date": "d0", "rows": {}, "machine": {}}, now)
    assert text is not None and text.startswith("machine then: a step of a random walk - ns over 4 MB")
    odd = {"build": "a", "date": "d0", "rows": {}, "machine": {"walk_ns_4mb": "x", "fresh_huge_page_ms": "y"}}
    assert machine_change(odd, now) == (
        "machine then: a step of a random walk - ns over 4 MB, - ns over 64 MB; the first touch of a fresh huge page"
        " - ms; now: a step of a random walk 36 ns over 4 MB, - ns over 64 MB; the first touch of a fresh huge page"
        " not measured"
    )


def test_the_machine_is_measured_in_a_child_process(monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    from fanin import bench_machine as bench

    m = bench.machine()
    assert set(m) == {"walk_ns_4mb", "walk_ns_64mb", "fresh_huge_page_ms"}
    assert m["walk_ns_4mb"] > 0 and m["walk_ns_64mb"] > 0
    # Not in this process: a case's child starts with its parent's resident set as its
    # peak, so the walks' 64 MB must not be the parent's.
    monkeypatch.setattr(bench, "probe_machine", lambda: pytest.fail("measured in the parent"))
    commands = []
    real_run = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda cmd, **kw: commands.append(cmd) or real_run(cmd, **kw))
    assert set(bench.machine()) == set(m)
    assert [c[1:] for c in commands] == [["-m", "fanin.bench", "--machine"]]


def test_a_case_s_peak_is_its_own_not_the_bench_s(tmp_path) -> None:
    import subprocess
    import sys

    # This process holds 200 MB more than a child needs; a child's peak must not start there.
    held = bytearray(200 << 20)
    held[:: 4096] = b"\x01" * len(held[:: 4096])
    code = "from fanin.bench_machine import own_peak_mb; print(own_peak_mb())"
    peak = float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert 1 < peak < 190, peak
    del held


def test_every_other_round_runs_the_cases_in_reverse(monkeypatch) -> None:
    from rich.console import Console

    from fanin import bench

    order: list[str] = []
    monkeypatch.setattr(bench, "machine", lambda: {})
    monkeypatch.setattr(bench, "back_memory", lambda: None)
    monkeypatch.setattr(bench, "run_case", lambda case: order.append(case.key) or _run(0.1))
    bench.main(only="a,b,c", repeat=3, console=Console(record=True))
    assert order == ["a", "b", "c", "c", "b", "a", "a", "b", "c"]


def test_a_ratio_just_under_its_target_does_not_read_as_met() -> None:
    from fanin.bench import CASES, combine, speedup_lines

    # 1.797x: shown as 1.79, not 1.80 beside a FAIL.
    rows = [(CASES["g"], combine([_run(1.797)])), (CASES["g2"], combine([_run(1.0)]))]
    (line,) = speedup_lines(rows)
    assert line.startswith("(g2) against (g): 1.79x") and "FAIL" in line
    rows = [(CASES["g"], combine([_run(1.8)])), (CASES["g2"], combine([_run(1.0)]))]
    (line,) = speedup_lines(rows)
    assert line.startswith("(g2) against (g): 1.80x") and "pass" in line


def test_backing_memory_touches_and_frees_it() -> None:
    import subprocess
    import sys

    # In a fresh process, whose peak starts low: the first call raises it by the memory
    # touched, the second (the first's memory freed) does not raise it again.
    code = (
        "from fanin.bench_machine import back_memory, own_peak_mb\n"
        "a = own_peak_mb(); back_memory(64); b = own_peak_mb(); back_memory(64); print(a, b, own_peak_mb())"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    a, b, c = (float(x) for x in out.split())
    assert b - a >= 60, (a, b)
    assert c - b < 8, (b, c)
