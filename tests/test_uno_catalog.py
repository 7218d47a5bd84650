"""The Uno (SC '25) catalog entry: the figures that run today, with --quick."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from fanin.catalog.repro import repro
from fanin.catalog.uno import base_rtts_s, derive_failure, derive_fct, min_jfi_after, rates_with_jfi


def test_fig1b_analytic_crossovers(tmp_path: Path) -> None:
    r = repro("uno", quick=True, jobs=1, out=tmp_path / "uno", figures=["fig1b"])
    status = {c["id"]: c["status"] for c in r.claims if c["figure"] == "fig1b"}
    assert status["crossover-20ms"] == "pass"
    assert status["crossover-10us"] == "pass"
    # The paper's "256 KiB" is not where the formula crosses 50%: a documented failure.
    assert status["intra-throughput-bound-above-256KiB"] == "fail"
    assert (tmp_path / "uno" / "figures" / "fig1b.svg").is_file()


def test_class_base_rtts_match_the_spec() -> None:
    intra, inter = base_rtts_s('[topology]\nkind = "multi_dc"\npreset = "uno"\n')
    assert intra == pytest.approx(14.02752e-6, rel=1e-9)
    assert inter == pytest.approx(1792.04128e-6, rel=1e-9)
    ratios = []
    for d in ("46.5us", "214.5us", "886.5us", "3574.5us"):
        intra, inter = base_rtts_s(f'[topology]\nlong_haul_link = {{ delay = "{d}" }}\n')
        ratios.append(round(inter / 14e-6))  # the paper's labels: over a 14 us intra RTT
    assert ratios == [8, 32, 128, 512]


def test_fct_statistics_by_class() -> None:
    flows = pd.DataFrame(
        {
            "src": [0, 1, 2, 130],
            "dst": [5, 200, 3, 4],
            "size_bytes": [1000, 10_000_000, 2000, 5000],
            "fct_ps": [20_000_000, 3_000_000_000, 10_000_000, 2_000_000_000],
            "completed": [True, True, True, False],
        }
    )
    run = SimpleNamespace(flows=flows, manifest={"scenario": "[topology]\n"})
    d = derive_fct(run, {}).set_index("class")  # type: ignore[arg-type]
    assert d.loc["intra", "flows"] == 2 and d.loc["inter", "flows"] == 2
    assert d.loc["inter", "completed"] == 1
    assert d.loc["intra", "mean_fct_us"] == pytest.approx(15.0)
    assert d.loc["all", "p99_fct_us"] == pytest.approx(np.percentile([20.0, 3000.0, 10.0], 99))
    # 10 us for 2000 B: below the 14 us base RTT, so the slowdown floors at 1.
    inter_ideal = 1792.04128e-6 + 10_000_000 * 8 / 100e9
    assert d.loc["inter", "mean_slowdown"] == pytest.approx(3e-3 / inter_ideal)
    assert d.loc["intra", "p99_slowdown"] >= 1.0


def test_fig12_quick_runs_every_scheme_on_the_uno_topology(tmp_path: Path) -> None:
    """The first 200 flows of the 40% matrix under the four schemes, per-class buffers: every
    flow completes and every claim gets a value (pass or fail, never an error)."""
    r = repro("uno", quick=True, jobs=1, out=tmp_path / "uno", figures=["fig12"])
    claims = [c for c in r.claims if c["figure"] == "fig12"]
    assert claims and all(c["status"] in ("pass", "fail") for c in claims), claims
    data = pd.read_parquet(tmp_path / "uno" / "data" / "fig12.parquet")
    assert set(data["variant"]) == {"uno_ecmp", "uno", "gemini", "mprdma_bbr"}
    assert (data["flows"] == data["completed"]).all()
    assert (data[data["class"] == "all"]["flows"] == 200).all()
    assert (data[data["class"] == "inter"]["flows"] > 0).all()


def test_rates_jain_index_per_window_while_every_flow_sends() -> None:
    """Two flows (one inter, one intra): a window where one sent nothing counts it at 0; the
    windows from the first flow's last sending window on are dropped."""
    flows = pd.DataFrame({"flow_id": [0, 1], "src": [0, 130], "dst": [240, 240], "completed": [False, False], "finish_ps": [0, 0]})
    ms = 100_000_000_000  # 100 ms in ps
    gbps = [10, 30, 20, 0, 5, 5, 5]
    rates = pd.DataFrame(
        {
            "time_ps": [ms, ms, 2 * ms, 2 * ms, 3 * ms, 3 * ms, 4 * ms],
            "flow_id": [0, 1, 0, 1, 0, 1, 0],
            "sent_bytes": [g * 1_000_000 for g in gbps],
            "sent_rate_bps": [g * 1e9 for g in gbps],
        }
    )
    d = rates_with_jfi(SimpleNamespace(flows=flows, rates=rates))  # type: ignore[arg-type]
    # Flow 1 last sends in the 300 ms window: that window and later ones are dropped.
    assert sorted(d["time_ms"].unique()) == [100.0, 200.0]
    assert d.set_index("flow_id")["inter"].to_dict() == {0: True, 1: False}
    jfi = d.drop_duplicates("time_ms").set_index("time_ms")["jfi"]
    assert jfi[100.0] == pytest.approx(40**2 / (2 * (10**2 + 30**2)))  # 0.8
    assert jfi[200.0] == pytest.approx(0.5)  # flow 1 sent nothing
    assert min_jfi_after(d, 100.0) == pytest.approx(0.5)
    assert min_jfi_after(d, 150.0) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="no rate window after"):
        min_jfi_after(d, 250.0)


def test_fig8_quick_draws_unos_rate_panel(tmp_path: Path) -> None:
    """The 4+4 incast cut at 20 ms: Uno's rates (and only Uno's) in 300 us windows, eight
    flows (four per class) per window, an index in (0, 1], and the top-panel figure."""
    repro("uno", quick=True, jobs=1, out=tmp_path / "uno", figures=["fig8"])
    rates = pd.read_parquet(tmp_path / "uno" / "data" / "fig8-rates.parquet")
    assert set(rates["variant"]) == {"uno"}
    per_window = rates.groupby("time_ms")
    assert (per_window["flow_id"].nunique() == 8).all()
    assert (per_window["inter"].sum() == 4).all()
    # Window ends on the 300 us grid (a window in which nothing was acknowledged is absent).
    windows = rates["time_ms"].unique() / 0.3
    assert windows == pytest.approx(np.round(windows))
    assert ((rates["jfi"] > 0) & (rates["jfi"] <= 1 + 1e-12)).all()
    assert rates["rate_gbps"].max() <= 100.0
    assert (tmp_path / "uno" / "figures" / "fig8-rates.svg").is_file()


def test_a_failure_run_with_an_unfinished_flow_has_no_fct() -> None:
    """Fig. 13's derive: the mean and p99 over the flows (numpy's linear p99), and null, never
    0, when a flow did not finish."""
    flows = pd.DataFrame({"completed": [True, True], "fct_ps": [2e9, 4e9]})
    row = derive_failure(SimpleNamespace(flows=flows), {}).iloc[0]
    assert (row["mean_fct_ms"], row["p99_fct_ms"]) == (3.0, 2 + 2 * 0.99)
    flows = pd.DataFrame({"completed": [True, False], "fct_ps": [2e9, None]})
    row = derive_failure(SimpleNamespace(flows=flows), {}).iloc[0]
    assert row["completed"] == 1 and np.isnan(row["mean_fct_ms"]) and np.isnan(row["p99_fct_ms"])
