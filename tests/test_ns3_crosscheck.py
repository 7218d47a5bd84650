"""ns-3 cross-check of the DCTCP incast (optional: skipped without ns-3's bindings).

Install the bindings with ``pip install ns3`` (the 3.44 wheel; importing takes ~15 s).
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import pytest

_MODULE_PATH = (
    pathlib.Path(__file__).resolve().parents[1] / "python" / "fanin" / "crosscheck" / "ns3_incast.py"
)


def _load_crosscheck():
    """The module, from the installed fanin package or straight from the source tree."""
    try:
        from fanin.crosscheck import ns3_incast  # noqa: PLC0415

        return ns3_incast
    except ImportError:
        spec = importlib.util.spec_from_file_location("fanin_ns3_incast", _MODULE_PATH)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # dataclasses need the module registered
        spec.loader.exec_module(mod)
        return mod


xc = _load_crosscheck()


@pytest.fixture(scope="module")
def ns3():
    # Checked here, not at collection: when ns-3 is installed the check imports it (~15 s).
    if not xc.available():
        pytest.skip("ns-3 Python bindings not importable (`from ns import ns` failed; pip install ns3)")
    return xc


def test_ideal_arithmetic():
    # 4 x 50 kB at MSS 1460: 35 segments each (34 full + 360 B), 42 B of headers per frame.
    assert xc.segments_per_sender(50_000) == 35
    assert xc.wire_bytes(4, 50_000) == 4 * (50_000 + 35 * 42)
    # 64 MB: 52.67 ms of 1502-B frames at 10 Gb/s (51.2 ms of payload).
    assert xc.ideal_ict_ps(64, 1_000_000, with_rtt=False) == 52_673_024_000
    # base RTT at 10 Gb/s, 1 us per link: 4 us + 2 x 1.2016 us + 2 x 33.6 ns
    assert xc.base_rtt_ps(10_000_000_000, 1_000_000) == 4_000_000 + 2 * 1_201_600 + 2 * 33_600


def test_tiny_incast_completes_near_line_rate(ns3):
    senders, size = 4, 50_000
    r = ns3.run_ns3_incast(senders=senders, bytes_per_sender=size)
    wire_ideal = ns3.ideal_ict_ps(senders, size, with_rtt=False)
    ideal = ns3.ideal_ict_ps(senders, size, with_rtt=True)  # + one base RTT
    assert r.stalled_flows == 0, r
    assert wire_ideal <= r.ict_ps <= 1.5 * ideal, (r.ict_ps, wire_ideal, ideal)
    assert r.drops == 0
    assert r.rtos == 0
    assert len(r.flow_fct_ps) == senders
    assert max(r.flow_fct_ps) == r.ict_ps
    assert all(0 < f <= r.ict_ps for f in r.flow_fct_ps)
    assert r.run_wall_s > 0 and r.setup_wall_s > 0
    assert r.events is not None and r.events > 0
    assert r.ns3_version.startswith("3.")
