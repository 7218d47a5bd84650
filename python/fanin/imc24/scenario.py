"""The IMC '24 artifact's dumbbell as a fanin scenario (spec: bursts_imc24.md, section 2).

receiver -- ToR_A == ToR_B -- N senders: 10 Gb/s host links, 100 Gb/s between the ToRs,
5 us per link; 1500-B IP packets with 52 B of IP+TCP headers (timestamps) and 2 B of PPP:
1502-B frames, MSS 1448. RED on every device as a step marker at 65 packets (MinTh =
MaxTh = 65, QW = 1, LInterm = 1, gentle and wait on). DCTCP senders, g = 1/16, 1-MSS floor,
IW 10, min RTO 200 ms with a 1 ms clock granularity, every segment ACKed; ns-3's loss
recovery (SACK with three blocks, PRR for loss and CWR, its duplicate-ACK rules).

Two modes (spec section 5):
* ``fidelity`` (the artifact): a 100-packet device FIFO under a 1334-packet queue disc,
  classic (RFC 3168, latched) ECN echo at the receiver;
* ``paper``: one 1333-packet queue, DCTCP's per-packet echo.
"""

from __future__ import annotations

import math
from typing import Any

K_PKTS = 65
MSS_BYTES = 1448
FRAME_BYTES = 1502
HOST_RATE_BPS = 10_000_000_000
LINK_DELAY_US = 5
# Propagation RTT (3 links each way) x 10 Gb/s, in 1500-B packets: 30 us -> 37.5 kB = 25.
BDP_PKTS = round(6 * LINK_DELAY_US * 1e-6 * HOST_RATE_BPS / 8 / 1500)
MODES = ("fidelity", "paper")


def response_bytes(duration_ms: float, n: int) -> int:
    """ceil(D x 1.25 GB/s / N): every sender's share of D of the receiver's link."""
    return math.ceil(duration_ms * 1e-3 * 1.25e9 / n)


def scenario(
    n: int,
    duration_ms: float = 15,
    bursts: int = 11,
    mode: str = "fidelity",
    seed: int = 1,
    *,
    windows_interval: str | None = None,
) -> dict[str, Any]:
    """The study's scenario as a dict (``fanin.Scenario.from_dict``)."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
    fidelity = mode == "fidelity"
    queue: dict[str, Any] = {
        "limit": "1334pkt" if fidelity else "1333pkt",
        "marking": {"kind": "red", "min": f"{K_PKTS}pkt", "max": f"{K_PKTS}pkt", "weight": 1, "p_max": 1},
    }
    if fidelity:
        queue["device_queue"] = "100pkt"
    record: dict[str, Any] = {"flows": False, "queue_events": {"ports": ["bottleneck", "core"]}}
    if windows_interval:
        record["windows"] = {"interval": windows_interval}
    return {
        "name": f"imc24-{mode}-n{n}-d{duration_ms:g}ms",
        "seed": seed,
        "max_duration": "120s",
        "topology": {
            "kind": "dumbbell",
            "senders": n,
            "host_link": {"rate": "10Gbps", "delay": f"{LINK_DELAY_US}us"},
            "core_link": {"rate": "100Gbps", "delay": f"{LINK_DELAY_US}us"},
        },
        "switch": {"queue": queue},
        "host": {"queue": queue},
        "transport": {
            "cc": "dctcp",
            "recovery": "ns3",
            "mtu": "1500B",
            "header": "52B",
            "framing": "2B",
            "init_cwnd": "10pkt",
            "min_cwnd": "1pkt",
            "min_rto": "200ms",
            "rto_granularity": "1ms",
            "delayed_ack": 1,
            "ecn_echo": "classic" if fidelity else "dctcp",
            "dctcp": {"g": 0.0625},
        },
        "workload": [
            {
                "kind": "rpc_incast",
                "degree": n,
                "total_bytes": f"{round(duration_ms * 1_250_000)}B",  # D x 1.25 GB/s, ceil(/N) each
                "count": bursts,
                "gap": "1s",
                "request_jitter": "100us",
                "response_jitter": "100us",
            }
        ],
        "record": record,
    }
