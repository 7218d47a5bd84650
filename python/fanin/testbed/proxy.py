"""`fanin testbed proxy`: the proxy paper's testbed (HotNets '25 §4, Figs 4-5) in namespaces.

Two phases, each on its own network (proxynet.py), in one run:

1. **Latency**: one flow of the testbed's protocol (a window of packets in flight, as fast as
   the machine carries it) through the streamlined proxy (TC eBPF), then through the naive one
   (user-space relay). Per packet: the streamlined program's own run time (lower bound, Fig. 5a),
   sender egress to receiver ingress from two captures (upper bound, Fig. 5b) and TC ingress to
   TC egress around the relay (Fig. 4), per path (data, ACK).
2. **Incast**: ``senders`` flows at once through the switch's port toward the proxy (tbf +
   trimmer) and the streamlined proxy, over a long-haul path (a user-space delay line). Trimmed
   headers become NACKs at the proxy, senders retransmit; every byte must arrive, and the
   counters (trimmed, NACKed, retransmitted) must agree with the captures.
"""

from __future__ import annotations

import json
import subprocess
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from fanin._fs import atomic_dir
from fanin._proc import sigterm_interrupts
from fanin.testbed.cpu_latency import cpu_latency_held
from fanin.testbed.ebpf import Loader
from fanin.testbed.ebpf import unavailable_reason as ebpf_unavailable_reason
from fanin.testbed.leftovers import clean_leftovers, recorded
from fanin.testbed.netns import TestbedUnavailable, unavailable_reason
from fanin.testbed.procs import await_line, kill, spawn, stop
from fanin.testbed.proxy_results import write_results
from fanin.testbed.proxy_run import PAYLOAD_BYTES, ProxyRun, ProxySettings
from fanin.testbed.proxynet import PROXY_PORT, RECEIVER_ADDR, RELAY, ProxyNetwork

PROXY_JSON = "proxy.json"  # a folder holding it is a proxy run, which a new run may replace
PROXIES = ("streamlined", "naive")
SNAP_BYTES = 58  # captures keep the headers: Ethernet, IPv4, UDP and the protocol's 16 B
PROGRAMS = ("streamlined", "naive", "trimmer")
QUICK = {"duration_s": 2.0, "packets_per_sender": 300}  # `--quick`: a few seconds in all


def _proxy(net: ProxyNetwork, proxy: str, out: Path, tag: str) -> tuple[Loader, list[subprocess.Popen[str]]]:
    """The proxy's program (and relay): latency samples into ``<tag>_<proxy>_samples.bin``,
    packets per path into ``<tag>_<proxy>_counts.bin``."""
    records = ("--ringbuf", f"samples:{out / f'{tag}_{proxy}_samples.bin'}",
               "--dump", f"counts:{out / f'{tag}_{proxy}_counts.bin'}")  # fmt: skip
    exec_args = net.exec_args(net.proxy)
    if proxy == "streamlined":
        return Loader.start(exec_args, proxy, *records, "--attach", "streamlined_ingress:eth0:ingress"), []
    relay = spawn(exec_args, "_relay.py", RELAY[1])
    await_line(relay, "ready", 10, "naive proxy's relay")
    loader = Loader.start(exec_args, proxy, *records, "--config", f"0=@{RELAY[0]}", "--config", "1=@eth0",
                          "--attach", "to_relay:eth0:ingress",
                          "--attach", f"from_relay:{RELAY[0]}:ingress")  # fmt: skip
    return loader, [relay]


def _captures(net: ProxyNetwork, out: Path, tag: str) -> list[subprocess.Popen[str]]:
    caps = []
    for ns, host in ((net.sender, "sender"), (net.receiver, "receiver")):
        pcap = str(out / f"{tag}_{host}.pcap")
        caps.append(spawn(net.exec_args(ns), "_capture.py", "eth0", pcap, "", str(SNAP_BYTES)))
        await_line(caps[-1], "ready", 10, f"{host}'s capture")
    return caps


def _senders(net: ProxyNetwork, configs: list[dict[str, Any]], timeout_s: float) -> list[dict[str, Any]]:
    procs = [spawn(net.exec_args(net.sender), "_psender.py", json.dumps(c), stdin=True) for c in configs]
    try:
        for p in procs:
            await_line(p, "ready", 10, "sender")
        for p in procs:  # all at once: an incast
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        return [json.loads(await_line(p, "{", timeout_s, "sender's report")) for p in procs]
    finally:
        kill(procs)


def _finish(caps: list[subprocess.Popen[str]], host_names: tuple[str, ...] = ("sender", "receiver")) -> dict[str, int]:
    """Stops the captures once their sockets are drained; the frames each kernel dropped."""
    return {h: int(stop(c, f"{h}'s capture").split()[1]) for c, h in zip(caps, host_names, strict=True)}


def _latency_phase(net: ProxyNetwork, s: ProxySettings, proxy: str, out: Path) -> dict[str, Any]:
    procs: list[subprocess.Popen[str]] = []
    loader: Loader | None = None
    try:
        receiver = spawn(net.exec_args(net.receiver), "_preceiver.py")
        procs.append(receiver)
        await_line(receiver, "ready", 10, "receiver")
        loader, relay = _proxy(net, proxy, out, "latency")
        procs += relay
        caps = _captures(net, out, f"latency_{proxy}")
        procs += caps
        cfg = {"flow": 1, "dst": RECEIVER_ADDR, "payload": PAYLOAD_BYTES, "window": s.window, "rto_ms": s.rto_ms,
               "duration_s": s.duration_s}  # fmt: skip
        [sent] = _senders(net, [cfg], s.duration_s + 60)
        time.sleep(0.05)  # the last ACKs reach the captures
        drops = _finish(caps)
        received = json.loads(stop(receiver, "receiver"))
        relayed = json.loads(stop(relay[0], "relay")) if relay else None
        loader.stop()
        return {"sender": sent, "receiver": received, "relay": relayed, "capture_drops": drops}
    finally:
        if loader is not None:
            loader.kill()
        kill(procs)


def _incast_phase(net: ProxyNetwork, s: ProxySettings, out: Path) -> dict[str, Any]:
    procs: list[subprocess.Popen[str]] = []
    loaders: list[Loader] = []
    try:
        delay = spawn(net.exec_args(net.wan), "_delay.py", "lan", "rcv", str(s.delay_us))
        procs.append(delay)
        await_line(delay, "ready", 10, "delay line")
        receiver = spawn(net.exec_args(net.receiver), "_preceiver.py")
        procs.append(receiver)
        await_line(receiver, "ready", 10, "receiver")
        loaders.append(Loader.start(net.exec_args(net.switch), "trimmer",
                                    "--config", f"0={s.rate_bps}", "--config", f"1={s.buffer_bytes}",
                                    "--dump", f"trims:{out / 'incast_trimmer_trims.bin'}",
                                    "--attach", f"trim_egress:{PROXY_PORT}:egress"))  # fmt: skip
        loader, _ = _proxy(net, "streamlined", out, "incast")
        loaders.append(loader)
        caps = _captures(net, out, "incast")
        procs += caps
        configs = [{"flow": i + 1, "dst": RECEIVER_ADDR, "payload": PAYLOAD_BYTES, "window": s.incast_window,
                    "rto_ms": s.rto_ms, "packets": s.packets_per_sender} for i in range(s.senders)]  # fmt: skip
        sent = _senders(net, configs, 120)
        time.sleep(0.05 + 2 * s.delay_us / 1e6)
        drops = _finish(caps)
        received = json.loads(stop(receiver, "receiver"))
        for ld in loaders:
            ld.stop()
        return {"senders": sent, "receiver": received, "capture_drops": drops, "tbf": net.tbf_stats()}
    finally:
        for ld in loaders:
            ld.kill()
        kill(procs)


def run_proxy(out_dir: str | Path, settings: ProxySettings | None = None) -> ProxyRun:
    """Runs both phases and writes their raw records into ``out_dir`` (whole or not at all):
    captures, ringbuf samples, BPF counters and ``proxy.json``; :mod:`fanin.testbed.proxy_results`
    turns them into tables, figures and the summary.

    What killed runs left is removed first; an error, Ctrl-C or SIGTERM removes everything this
    run made, and ``fanin testbed clean`` what a SIGKILLed one left.
    """
    s = settings or ProxySettings()
    reason = unavailable_reason() or ebpf_unavailable_reason(*PROGRAMS)
    if reason:
        raise TestbedUnavailable(reason)
    clean_leftovers()
    run = ProxyRun(s)
    latency_net, incast_net = ProxyNetwork(long_haul=False), ProxyNetwork(long_haul=True, rate_bps=s.rate_bps)
    with sigterm_interrupts(), atomic_dir(out_dir, marker=PROXY_JSON) as out:
        with recorded(latency_net.namespaces(), latency_net.links(), out), cpu_latency_held() as held:
            run.cpu_latency_held = held
            with latency_net:
                for proxy in PROXIES:
                    run.latency[proxy] = _latency_phase(latency_net, s, proxy, out)
            with incast_net:
                run.incast = _incast_phase(incast_net, s, out)
        write_results(out, run)
        if not s.keep_captures:
            for pcap in out.glob("latency_*.pcap"):
                pcap.unlink()
        (out / PROXY_JSON).write_text(json.dumps(asdict(run), indent=2) + "\n", encoding="utf-8")
    return run
