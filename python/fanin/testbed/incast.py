"""`fanin testbed incast`: a real kernel-TCP incast in network namespaces, captured at the receiver.

N sender namespaces answer a receiver's requests through a router whose port toward the
receiver is rate-limited; the receiver's interface is captured to pcap, and the capture goes
through the same burst pipeline as Millisampler files and simulations.
"""

from __future__ import annotations

import json
import math
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fanin._fs import atomic_dir
from fanin._proc import sigterm_interrupts
from fanin.testbed.collector import Collector, bins_for
from fanin.testbed.cpu_latency import cpu_latency_held
from fanin.testbed.ebpf import unavailable_reason as ebpf_unavailable_reason
from fanin.testbed.leftovers import clean_leftovers, recorded
from fanin.testbed.netns import (
    RECEIVER_ADDR,
    ROUTER_RECEIVER_SIDE,
    Network,
    TestbedUnavailable,
    sender_addr,
    unavailable_reason,
)
from fanin.testbed.procs import await_line, kill, spawn

PORT = 5001
MARKER = "fanin-testbed-marker"
CAPTURE = "capture.pcap"
TESTBED_JSON = "testbed.json"  # a folder holding it is a testbed run, which a new run may replace
TAIL_S = 0.02
COLLECTORS = (None, "ebpf")
MILLISAMPLER = "millisampler"  # the collector's folder in a run's output


@dataclass
class IncastRun:
    """What the testbed did: its setting and, per burst, the request time, completion time
    (CLOCK_REALTIME ns, the capture's clock) and the bytes each sender delivered; and the
    frames the capture socket dropped (a busy machine can overrun it)."""

    senders: int
    bytes_per_sender: int
    rate_bps: int
    queue: str
    period_ns: int
    marker_ns: int = 0
    bursts: list[dict[str, object]] = field(default_factory=list)
    capture: str = CAPTURE
    capture_drops: int = 0
    buffer_bytes: int | None = None
    collector: str | None = None
    millisampler: list[str] = field(default_factory=list)  # the collector's files, one per host
    cpu_latency_held: bool = False  # idle CPUs kept polling (fanin.testbed.cpu_latency)


def default_period_ns(senders: int, bytes_per_sender: int, rate_bps: int) -> int:
    """Twice a burst's drain time (payload plus 5% of headers), rounded up to whole ms, at least 50 ms."""
    drain_ms = senders * bytes_per_sender * 1.05 * 8 / rate_bps * 1e3
    return max(50, math.ceil(2 * drain_ms)) * 10**6


def run_incast(
    out_dir: str | Path,
    *,
    senders: int = 4,
    bytes_per_sender: int = 100_000,
    bursts: int = 3,
    rate_bps: int = 100_000_000,
    period_ns: int | None = None,
    queue: str = "fair",
    buffer_bytes: int | None = None,
    collector: str | None = None,
    timeout_s: float = 60.0,
) -> IncastRun:
    """Runs the incast and writes ``capture.pcap`` and ``testbed.json`` into ``out_dir``
    (which appears whole or not at all). ``buffer_bytes`` bounds the bottleneck queue (default:
    no drops); ``collector="ebpf"`` also counts every host with the eBPF Millisampler
    (:mod:`fanin.testbed.collector`) into ``out_dir/millisampler/``.

    What killed runs left is removed first. On an error, Ctrl-C or SIGTERM everything this
    run made goes (processes, namespaces, the partial output); after a SIGKILL,
    :func:`fanin.testbed.leftovers.clean_leftovers` (``fanin testbed clean``, or the next
    run) removes it.
    """
    if collector not in COLLECTORS:
        raise ValueError(f"--collector: {collector!r} (allowed: {', '.join(c for c in COLLECTORS if c)})")
    reason = unavailable_reason() or (collector and ebpf_unavailable_reason("millisampler"))
    if reason:
        raise TestbedUnavailable(reason)
    clean_leftovers()
    run = IncastRun(
        senders, bytes_per_sender, rate_bps, queue, period_ns or default_period_ns(senders, bytes_per_sender, rate_bps)
    )
    run.buffer_bytes, run.collector = buffer_bytes, collector
    net = Network(senders, rate_bps, queue, buffer_bytes)
    with sigterm_interrupts(), atomic_dir(out_dir, marker=TESTBED_JSON) as out:
        with recorded(net.namespaces(), net.links(), out), net, cpu_latency_held() as held:
            run.cpu_latency_held = held
            report = _exchange(net, run, bursts, out, timeout_s)
        run.marker_ns, run.bursts = report["marker_ns"], report["bursts"]
        (out / TESTBED_JSON).write_text(json.dumps(asdict(run), indent=2) + "\n", encoding="utf-8")
    return run


def _exchange(net: Network, run: IncastRun, bursts: int, out: Path, timeout_s: float) -> dict[str, Any]:
    """Starts the senders, the receiver and the capture, lets ``bursts`` bursts run; the receiver's report."""
    procs: list[subprocess.Popen[str]] = []
    collectors: dict[str, Collector] = {}
    try:
        for i in range(run.senders):
            procs.append(spawn(net.exec_args(net.sender(i)), "_sender.py", str(PORT), str(run.bytes_per_sender)))
            await_line(procs[-1], "listening", 10, f"sender {i}")
        cfg = {
            "senders": [sender_addr(i) for i in range(run.senders)],
            "port": PORT,
            "bytes": run.bytes_per_sender,
            "bursts": bursts,
            "period_ns": run.period_ns,
            "marker_addr": ROUTER_RECEIVER_SIDE,
        }
        receiver = spawn(net.exec_args(net.receiver), "_receiver.py", json.dumps(cfg), stdin=True)
        procs.append(receiver)
        await_line(receiver, "connected", 10, "receiver")
        if run.collector:
            collectors = _start_collectors(net, run, bursts, timeout_s)
        capture = spawn(net.exec_args(net.receiver), "_capture.py", net.receiver_iface, str(out / CAPTURE), MARKER)
        procs.append(capture)
        await_line(capture, "ready", 10, "capture")
        assert receiver.stdin is not None
        receiver.stdin.write("go\n")
        receiver.stdin.flush()
        report: dict[str, Any] = json.loads(await_line(receiver, "{", timeout_s, "receiver's report"))
        time.sleep(TAIL_S)  # quiet bins after the last burst, so it is not cut off by the capture's end
        capture.send_signal(signal.SIGTERM)
        run.capture_drops = int(await_line(capture, "drops", 10, "capture's report").split()[1])
        for c in collectors.values():
            run.millisampler.append(str(c.stop(out / MILLISAMPLER, "testbed", "testbed").relative_to(out)))
    finally:
        for c in collectors.values():
            c.kill()
        kill(procs)
    return report


def _start_collectors(net: Network, run: IncastRun, bursts: int, timeout_s: float) -> dict[str, Collector]:
    """One eBPF Millisampler per host on its interface, named by its address."""
    hosts = {RECEIVER_ADDR: net.receiver, **{sender_addr(i): net.sender(i) for i in range(run.senders)}}
    bins = bins_for((bursts + 1) * run.period_ns / 1e9 + timeout_s)
    collectors: dict[str, Collector] = {}
    for addr, ns in hosts.items():
        collectors[addr] = Collector(net.exec_args(ns), "eth0", addr, bins)
        collectors[addr].start()
    return collectors


def compare(run: IncastRun, out_dir: str | Path, found_bursts: pd.DataFrame) -> pd.DataFrame:
    """Per burst the testbed sent: payload sent vs the burst found at the receiver.

    ``found_*`` come from the burst pipeline (bins above half the bottleneck rate);
    ``wire_bytes`` are the frame bytes the senders' packets of that burst put on the
    receiver's link (from the capture, between request and completion), ``found_payload``
    the new TCP payload inside the found burst's bins (retransmitted segments are counted
    apart, in ``found_rxmit_bytes``, as frame bytes). A burst ``matches`` when exactly one
    burst is found for it and its payload is all there but for what the two edge bins may
    leave out: a first or last bin holding less than half a bin at line rate is, by the
    definition, not part of the burst.
    """
    from fanin.bursts.capture import packet_table

    bin_ps = int(found_bursts["bin_ps"].iloc[0]) if len(found_bursts) else 10**9
    edge_allowance = 2 * (run.rate_bps * bin_ps // (16 * 10**12))  # two edge bins, each below half the line

    pk = packet_table(Path(out_dir) / run.capture)
    t0_ns = pk.attrs["first_ns"]
    rx = pk[pk["dst"] == RECEIVER_ADDR]
    rows = []
    for k, sent in enumerate(run.bursts):
        lo, hi = int(sent["request_ns"]) - t0_ns, int(sent["done_ns"]) - t0_ns  # type: ignore[call-overload]
        window = rx[(rx["time_ns"] >= lo) & (rx["time_ns"] <= hi)]
        ends = found_bursts["start_ps"] + found_bursts["duration_ps"]
        b = found_bursts[(found_bursts["start_ps"] // 1000 <= hi) & (ends // 1000 >= lo)]
        in_bins = pd.Series(False, index=rx.index)
        for start_ps, duration_ps in zip(b["start_ps"], b["duration_ps"], strict=True):
            in_bins |= (rx["time_ns"] >= start_ps // 1000) & (rx["time_ns"] < (start_ps + duration_ps) // 1000)
        rows.append(
            {
                "burst": k,
                "sent_payload_bytes": int(sum(sent["bytes"])),  # type: ignore[call-overload]
                "wire_bytes": int(window["frame_bytes"].sum()),
                "found_bursts": len(b),
                "found_bytes": int(b["bytes"].sum()),
                "found_payload_bytes": int(rx.loc[in_bins & ~rx["rxmit"], "payload_bytes"].sum()),
                "found_rxmit_bytes": int(b["rxmit_bytes"].sum()),
                "found_duration_ms": float(b["duration_ps"].sum() / 1e9),
                "found_flows_max": int(b["flows_max"].max()) if len(b) else 0,
                "found_flows_mean": float(b["flows_mean"].mean()) if len(b) else 0.0,
                "completion_ms": (int(sent["done_ns"]) - int(sent["request_ns"])) / 1e6,  # type: ignore[call-overload]
            }
        )
        r = rows[-1]
        r["matches"] = (
            r["found_bursts"] == 1 and 0 <= r["sent_payload_bytes"] - r["found_payload_bytes"] <= edge_allowance
        )
    return pd.DataFrame(rows)
