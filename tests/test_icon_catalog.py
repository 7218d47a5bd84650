"""The ICON (COMSNETS '19) catalog entry: its files load, its reductions compute what the
spec defines, and Fig. 2 regenerates from two small runs.

The engine's side (pacing, the degree, the micro-test, the 80 us RTT) is tested in
crates/engine/tests/icon.rs; the full entry runs with `fanin repro icon`."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fanin.catalog import load_paper
from fanin.catalog.repro import repro
from fanin.icon import analysis as icon
from tests.conftest import ROOT

FIGURES = ["bursts", "timeline", "loads", "degree", "queues"]


@pytest.mark.parametrize("quick", [False, True])
def test_entry_loads_with_every_figure_and_claim(quick: bool) -> None:
    paper = load_paper("icon", ROOT / "experiments", quick=quick)
    assert [f.name for f in paper.figures] == FIGURES
    loads = paper.figure("loads")
    variants = {p.labels["variant"] for p in loads.sweep.points()}
    assert variants == set(icon.SCHEMES)


def test_degree_26_is_the_loads_run() -> None:
    """Fig. 8's degree-26 points are Figs. 4-7's runs (one cache entry, not two)."""
    paper = load_paper("icon", ROOT / "experiments")
    key = lambda p: (p.scenario.to_toml(), p.seed)  # noqa: E731
    loads = {key(p) for p in paper.figure("loads").sweep.points()}
    degree = [p for p in paper.figure("degree").sweep.points()]
    shared = [p for p in degree if key(p) in loads]
    assert len(shared) == len(degree) // 3 and all(p.labels["degree"] == 26 for p in shared)


def test_pooled_quantile_reads_the_summed_histograms() -> None:
    a = pd.DataFrame({"completed": True, "fct_ps": np.full(99, 1e9)})  # 1 ms
    b = pd.DataFrame({"completed": [True, False], "fct_ps": [10e9, np.nan]})  # 10 ms, unfinished
    h = pd.concat([icon.fct_histogram(a, "short"), icon.fct_histogram(b, "short")])
    assert int(h["count"].sum()) == 100
    assert icon.pooled_quantile(h, 0.5) == pytest.approx(1.0, rel=2e-3)
    assert icon.pooled_quantile(h, 0.995) == pytest.approx(10.0, rel=2e-3)


def test_bursts_are_the_intervals_with_two_packets_queued() -> None:
    us = 1_000_000
    ev = pd.DataFrame(
        {
            "port": [1, 1, 1, 1, 2, 2, 2],
            "time_ps": [0, 5 * us, 45 * us, 50 * us, 10 * us, 12 * us, 90 * us],
            "packets": [1, 2, 3, 1, 2, 1, 2],
        }
    )
    # Port 1: >= 2 from 5 us to 50 us; port 2: 10-12 us, then open from 90 us to the end.
    d = icon.burst_durations_us(ev, end_ps=100 * us)
    assert sorted(d) == pytest.approx([2.0, 10.0, 45.0])


def test_queue_quantiles_pool_the_ports() -> None:
    h = pd.DataFrame({"packets_ahead": [0, 3, 70], "arrivals": [90, 9, 1]})
    assert icon.queue_quantile(h, 0.5) == 0
    assert icon.queue_quantile(h, 0.95) == 3
    assert icon.queue_quantile(h, 0.999) == 70


def test_the_measured_window_comes_from_the_run_scenario() -> None:
    run = SimpleNamespace(manifest={"scenario": '[measure]\nfrom = "10ms"\nuntil = "1.5s"\n'})
    assert icon.measure_window_ps(run) == (10_000_000_000, 1_500_000_000_000)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="measure"):
        icon.measure_window_ps(SimpleNamespace(manifest={"scenario": '[measure]\nfrom = "ten"\n'}))  # type: ignore[arg-type]


def test_fig2_pacing_spreads_the_window_over_the_rtt(tmp_path: Path) -> None:
    r = repro("icon", quick=True, jobs=1, out=tmp_path / "icon", figures=["timeline"])
    status = {c["id"]: (c["status"], c["fanin"]) for c in r.claims}
    assert status["paced-idle-gap"][0] == "pass"
    assert status["normal-back-to-back"] == ("pass", pytest.approx(10.8, abs=0.01))
    assert (tmp_path / "icon" / "figures" / "timeline-fig2.svg").is_file()
