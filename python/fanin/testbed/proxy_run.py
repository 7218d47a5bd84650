"""What a proxy testbed run is asked to do and what it records (``proxy.json``), apart
from the run itself (:mod:`fanin.testbed.proxy`) so its results module can read them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PAYLOAD_BYTES = 1400  # each DATA packet's payload in the testbed's protocol


@dataclass
class ProxySettings:
    """What a run does; every knob is recorded with its results (proxy.json)."""

    duration_s: float = 30.0  # each proxy's latency phase
    window: int = 8  # packets in flight in the latency phase
    senders: int = 4
    packets_per_sender: int = 1000
    rate_bps: int = 100_000_000  # the bottleneck toward the proxy, and the long-haul path
    buffer_bytes: int = 30_000  # the trimmer's modelled buffer at the bottleneck
    delay_us: int = 1000  # one way, on the long-haul path
    incast_window: int = 32  # each sender's initial (and largest) window in the incast
    rto_ms: float = 200.0
    keep_captures: bool = False  # the latency phase's captures (~30 MB per second of run); the incast's stay


@dataclass
class ProxyRun:
    settings: ProxySettings
    latency: dict[str, Any] = field(default_factory=dict)  # per proxy: sender, receiver, loader counts, files
    incast: dict[str, Any] = field(default_factory=dict)
    cpu_latency_held: bool = False  # idle CPUs kept polling (fanin.testbed.cpu_latency)
