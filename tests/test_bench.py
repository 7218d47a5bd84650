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
