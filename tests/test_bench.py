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
