"""The production half of the IMC '24 entry (Figs. 1-4): the simulated rack's counters
through `fanin bursts`, and the hook for a real testbed's Millisampler files."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import fanin
from fanin.imc24 import production
from test_bursts_analysis import known_host, write_host
from tests.conftest import ROOT

RACK = ROOT / "experiments" / "imc24" / "production" / "rack.toml"


def test_rack_has_two_receivers_per_service_with_the_specs_degrees() -> None:
    doc = tomllib.loads(RACK.read_text())
    by_receiver: dict[str, list[int]] = {}
    for w in doc["workload"]:
        assert len(w["senders"]) == w["degree"] and len(set(w["senders"])) == w["degree"]
        assert all(int(s[1:]) >= 100 for s in w["senders"]), "senders live outside rack 0 (h0-h99)"
        by_receiver.setdefault(w["receiver"], []).append(w["degree"])
    assert by_receiver == {
        "h0": [250, 12],
        "h1": [250, 12],
        "h2": [40, 15],
        "h3": [40, 15],
        "h4": [225],
        "h5": [275],
    }
    assert set(production.SERVICES) == set(by_receiver)
    assert doc["record"]["hosts"] == {"bin": "1ms", "hosts": sorted(by_receiver)}


def test_a_short_rack_run_labels_its_counters_by_service() -> None:
    sc = fanin.Scenario.from_toml(RACK.read_text())
    sc.set("duration", "310ms")
    counters = production.rack_counters(fanin.run(sc))
    assert sorted(counters["host"].unique()) == sorted(production.SERVICES)
    assert dict(zip(counters["host"], counters["dataset"], strict=True)) == production.SERVICES
    assert set(counters["rack"]) == {"rack0"} and set(counters["bin_ps"]) == {10**9}
    # The 250-ms warm-up is left out and time starts after it: every host has the bins
    # 0-59 ms and the one the run's end (60 ms) opens.
    assert set(counters.groupby("host").size()) == {61} and counters["bin_start_ps"].min() == 0
    found = production.bursts_of(counters)
    # The aggregators' 12-flow incasts are bursts below 20 flows (a flow's bytes may all
    # fall outside the burst's bins: 11 of 12 happens); their 250-flow ones are incasts
    # of more than 200.
    agg = found.bursts[found.bursts["dataset"] == "aggregator"]
    assert 10 <= agg["flows"].min() <= 12 and agg["flows"].max() > 200 and agg["incast"].any()


def test_without_a_testbed_run_the_part_is_skipped_with_a_reason(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(production.TESTBED_ENV, raising=False)
    monkeypatch.setattr("fanin.testbed.netns.unavailable_reason", lambda: "network namespaces need root")
    counters, why = production.testbed_counters()
    assert counters is None and why.startswith("skipped:") and production.TESTBED_ENV in why
    assert "network namespaces need root" in why
    monkeypatch.setenv(production.TESTBED_ENV, str(tmp_path / "missing"))
    counters, why = production.testbed_counters()
    assert counters is None and "is not a directory" in why
    monkeypatch.setenv(production.TESTBED_ENV, str(tmp_path))
    counters, why = production.testbed_counters()
    assert counters is None and "no host counters" in why


def test_a_testbed_run_dir_of_millisampler_files_is_read(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    write_host(tmp_path, "incast", "0", "1", **known_host())
    monkeypatch.setenv(production.TESTBED_ENV, str(tmp_path))
    counters, why = production.testbed_counters()
    assert why == "" and counters is not None
    assert set(counters["dataset"]) == {"testbed"} and len(counters) == 20
    found = production.bursts_of(counters)
    # known_host's bursts: bins 2-4, 8 and 18-19.
    assert list(found.bursts["duration_ps"] // 10**9) == [3, 1, 2]


def test_the_figure_runs_its_own_testbed_incast_where_the_machine_can(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from fanin.testbed.ebpf import unavailable_reason as ebpf_unavailable
    from fanin.testbed.netns import unavailable_reason

    why = unavailable_reason() or ebpf_unavailable("millisampler")
    if why:
        pytest.skip(why)
    monkeypatch.delenv(production.TESTBED_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    counters, why = production.testbed_counters()
    assert why == "" and counters is not None and set(counters["dataset"]) == {"testbed"}
    # Every host of the run has its counters: the receiver, the router and 8 senders.
    assert counters["host"].nunique() >= 9
    # Every byte of the 5 incasts (8 x 100 KB each) came in at the receiver (the host that
    # took in the most), headers and retransmissions on top.
    received = counters.groupby("host")["ingress_bytes"].sum().max()
    assert 5 * 8 * 100_000 <= received <= 1.5 * 5 * 8 * 100_000
    # And they show as bursts against the 100 Mb/s bottleneck, each incast at least one.
    assert len(production.bursts_of(counters).bursts) >= 5
    # Kept: a second call reads the same run instead of running again.
    run_json = (tmp_path / "fanin" / "imc24-testbed" / "testbed.json").stat().st_mtime_ns
    production.testbed_counters()
    assert (tmp_path / "fanin" / "imc24-testbed" / "testbed.json").stat().st_mtime_ns == run_json
