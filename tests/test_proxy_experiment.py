"""The proxy paper's catalog entry (experiments/proxy): every run of the full sweeps is a
valid scenario, and on the paper's own two-datacenter topology an incast that fits in the
buffers (the 20 MB case) loses nothing and gains nothing from a proxy, while a proxy
finishes a lossy incast at a 1 s long haul in one RTT plus the transfer."""

from __future__ import annotations

from pathlib import Path

import pytest

import fanin
from fanin.catalog import load_paper

SCENARIO = Path(__file__).resolve().parents[1] / "experiments" / "proxy" / "scenario.toml"


def test_every_run_of_the_full_entry_validates() -> None:
    paper = load_paper("proxy")
    assert [f.name for f in paper.figures] == ["fig2_degree", "fig2_size", "fig3_latency"]
    for fig in paper.figures:
        assert fig.claims, fig.name
        fig.sweep.validate()
        assert len(fig.sweep.points()) == {"fig2_degree": 90, "fig2_size": 90, "fig3_latency": 105}[fig.name]


def _run(scheme: str, **overrides: object) -> fanin.Results:
    s = fanin.Scenario.load(SCENARIO)
    s.set("workload[0].scheme", scheme)
    for path, value in overrides.items():
        s.set(path.replace("__", "."), value)
    return fanin.run(s)


def test_twenty_megabytes_fit_no_loss_no_gain() -> None:
    icts = {}
    for scheme in ("baseline", "naive", "streamlined"):
        r = _run(scheme, **{"workload[0]__total_bytes": "20MB"})
        assert r.summary["trims"] == 0 and r.summary["drops"] == 0, scheme
        icts[scheme] = float(r.incasts["ict_ps"].iloc[0])
    assert max(icts.values()) / min(icts.values()) < 1.05, icts


@pytest.mark.parametrize("scheme", ["naive", "streamlined"])
def test_at_a_one_second_long_haul_a_proxy_needs_one_rtt(scheme: str) -> None:
    r = _run(scheme, **{"topology__long_haul_link": {"delay": "1s"}})
    assert r.summary["trims"] > 0 or scheme == "naive"
    ict_s = float(r.incasts["ict_ps"].iloc[0]) / 1e12
    assert ict_s == pytest.approx(4.0 + 100e6 * 8 / 100e9, rel=0.01)


def test_streamlined_repairs_a_head_segment_trimmed_again_and_again_without_a_timeout() -> None:
    """200 MB over 4 senders: Streamlined's retransmissions are trimmed again at the proxy's
    ToR, some many times over, so a sender's cumulative ACK can stand still for longer than
    its RTO while NACKs keep repairing the segment. Each NACK of the first unacknowledged
    segment restarts the timer (as htsim gives every resend its own deadline): no timeout
    fires, and Streamlined ends next to Naive, as it does at 100 MB."""
    stream = _run("streamlined", **{"workload[0]__total_bytes": "200MB"})
    naive = _run("naive", **{"workload[0]__total_bytes": "200MB"})
    assert stream.summary["timeouts"] == 0
    assert stream.summary["nacks"] == stream.summary["trims"] > 0
    s, n = (float(r.incasts["ict_ps"].iloc[0]) for r in (stream, naive))
    assert s / n < 1.05, (s, n)


def test_streamlined_pays_for_fast_feedback_only_at_a_small_degree() -> None:
    """The paper's Fig. 2 (left) shape under the scenario's NACK rule (halve once per window):
    at N = 2 each sender needs half the bottleneck, and a second halving leaves the link
    idle, so Streamlined is slower than Naive; at N = 16 the halved windows still fill it."""
    icts = {}
    for scheme in ("naive", "streamlined"):
        for n in (2, 16):
            r = _run(scheme, **{"workload[0]__degree": n})
            icts[scheme, n] = float(r.incasts["ict_ps"].iloc[0])
    assert icts["streamlined", 2] > 1.1 * icts["naive", 2], icts
    assert icts["streamlined", 16] < 1.1 * icts["naive", 16], icts
