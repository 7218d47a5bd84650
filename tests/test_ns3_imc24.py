"""fanin against mainline ns-3 on a small IMC '24 incast (skipped without ns-3's bindings:
pip install 'fanin[ns3]'; CI installs none). The full comparison is `fanin crosscheck imc24`."""

from __future__ import annotations

import importlib.util

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ns") is None or importlib.util.find_spec("cppyy") is None,
    reason="ns-3 Python bindings not installed (pip install ns3)",
)


def test_small_incast_agrees_with_ns3() -> None:
    from fanin.crosscheck import ns3_imc24 as x

    x.ns3_setup()
    f = x.run_fanin(40, 2, 3, "fidelity")
    s = x.run_ns3(40, 2, 3, "fidelity")
    assert abs(f.bct_ms - s.bct_ms) <= 0.1 * s.bct_ms, (f, s)
    assert f.drops_per_burst == s.drops_per_burst == 0
