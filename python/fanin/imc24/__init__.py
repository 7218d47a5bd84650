"""The IMC '24 DCTCP incast study (Canel et al., "Understanding Incast Bursts in Modern
Datacenters", section 4): its scenario in both modes and the analysis of its runs.

* :func:`scenario` builds the dumbbell of the paper's ns-3 artifact as a fanin scenario;
* :mod:`fanin.imc24.analysis` reduces a run to per-burst facts (BCT, queue statistics,
  start windows, the burst's mode), the burst-averaged queue and the bytes-in-flight bands.

`experiments/imc24/` uses both; so does `fanin crosscheck imc24`.
"""

from __future__ import annotations

from .scenario import BDP_PKTS, K_PKTS, MSS_BYTES, response_bytes, scenario

__all__ = ["BDP_PKTS", "K_PKTS", "MSS_BYTES", "response_bytes", "scenario"]
