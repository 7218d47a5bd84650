"""The eBPF Millisampler collector (`fanin testbed incast --collector ebpf`, `fanin sample`):
its 1 ms counters against the capture of the same run, and what a run leaves behind.

Runs where network namespaces and the testbed's eBPF programs can be used (root, Linux 6.6+,
`make bpf`); elsewhere skipped with the reason.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import fanin.bursts as fb
from conftest import fanin_cli
from fanin.testbed.collector import agreement, read_counters
from fanin.testbed.ebpf import attached
from fanin.testbed.ebpf import unavailable_reason as ebpf_unavailable
from fanin.testbed.incast import run_incast
from fanin.testbed.leftovers import run_prefix
from fanin.testbed.netns import RECEIVER_ADDR, sender_addr, unavailable_reason
from test_cleanup import until

REASON = unavailable_reason() or ebpf_unavailable("millisampler")
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"eBPF collector unavailable: {REASON}")
FRAME = 1514  # one full-size frame: 14 B Ethernet + 1500 B IP
SENDERS = 4


def test_collector_agrees_with_the_capture(tmp_path: Path) -> None:
    """A fifo bottleneck of 30 KB under 4 x 100 KB drops, so TCP retransmits: the receiver's
    1 ms bins agree with the capture to one frame, its retransmitted bytes to the segment."""
    out = tmp_path / "tb"
    run = run_incast(
        out, senders=SENDERS, bursts=2, queue="fifo", buffer_bytes=30_000, collector="ebpf", rate_bps=100_000_000
    )
    assert run.capture_drops == 0
    files = {read_counters(out / f)["server_hostname"]: out / f for f in run.millisampler}
    assert sorted(files) == sorted([RECEIVER_ADDR, *(sender_addr(i) for i in range(SENDERS))])
    t = agreement(out / "capture.pcap", files[RECEIVER_ADDR], RECEIVER_ADDR)
    print(t[t["ebpf_bytes"] != t["capture_bytes"]].to_string())
    busy = t[t["capture_bytes"] > 0]
    assert len(busy) >= 2 * 30  # two bursts of 400 KB at 100 Mbit/s: 32 ms each
    # the collector's clock reads a few us after the capture's, so a frame may cross a bin edge
    assert (t["ebpf_bytes"] - t["capture_bytes"]).abs().max() <= FRAME
    assert abs(int(t["ebpf_bytes"].sum()) - int(t["capture_bytes"].sum())) <= 2 * FRAME  # the two edge bins
    segments = int(t["capture_rxmit_segments"].sum())
    assert segments > 0, "the 30 KB buffer should have dropped (no retransmission to compare)"
    assert t["ebpf_rxmit_bytes"].sum() == t["capture_rxmit_bytes"].sum()  # every retransmitted segment
    assert (t["ebpf_connections"] - t["capture_connections"]).abs().max() <= 1
    assert t["ebpf_connections"].max() == SENDERS

    # `fanin bursts` reads the folder as it reads the public data set
    counters = fb.load(out / "millisampler")
    assert sorted(counters["host"].unique()) == sorted(files)
    rx = counters[counters["host"] == RECEIVER_ADDR]
    as_written: list[int] = read_counters(files[RECEIVER_ADDR])["ingressBytes"]  # type: ignore[assignment]
    assert int(rx["ingress_bytes"].sum()) == sum(as_written)
    # every sender's segments leave it: its egress holds at least what reached the receiver from it
    for i in range(SENDERS):
        sent = counters[counters["host"] == sender_addr(i)]
        assert sent["egress_bytes"].sum() >= 2 * 100_000 and sent["out_rxmit_bytes"].sum() > 0


@pytest.fixture
def namespace() -> Iterator[str]:
    """An empty namespace of this test process (`fanin testbed clean` would remove it if we were killed)."""
    ns = f"{run_prefix(os.getpid())}-sample"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
    yield ns
    subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def _sample(ns: str, out: str, duration: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, sys.executable, "-m", "fanin", "sample", "lo", "--duration", duration, "-o", out],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _datagrams(ns: str, count: int, size: int) -> None:
    """``count`` UDP datagrams of ``size`` bytes to a socket listening on the namespace's loopback."""
    code = (
        "import socket,sys; r=socket.socket(2,2); r.bind(('127.0.0.1',9999)); s=socket.socket(2,2)\n"
        "for _ in range(int(sys.argv[1])): s.sendto(bytes(int(sys.argv[2])),('127.0.0.1',9999)); r.recv(65536)"
    )
    subprocess.run(["ip", "netns", "exec", ns, sys.executable, "-c", code, str(count), str(size)], check=True)


def _tcx_programs(ns: str) -> int:
    return sum(attached(["ip", "netns", "exec", ns], "lo"))


def test_sample_counts_every_frame(namespace: str, tmp_path: Path) -> None:
    """On a quiet loopback: 200 datagrams of 1000 B are 200 x (14 + 20 + 8 + 1000) B each way."""
    proc = _sample(namespace, str(tmp_path / "s"), "2")
    until(lambda: _tcx_programs(namespace) == 2, "the collector's programs on lo")
    _datagrams(namespace, 200, 1000)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    [path] = (tmp_path / "s").rglob("*.txt.gz")
    host = socket.gethostname().split(".")[0]
    assert path.parent.name == "lo-zip" and path.name == f"rackId_local_hostId_{host}.txt.gz"
    doc = read_counters(path)
    assert doc["sampling_freq"] == 1000 and doc["late_packets"] == 0
    assert sum(doc["ingressBytes"]) == sum(doc["egressBytes"]) == 200 * 1042  # type: ignore[arg-type]
    assert max(doc["connections"]) == 1 and sum(doc["inRxmitBytes"]) == 0  # type: ignore[arg-type]
    assert not _tcx_programs(namespace)  # detached on exit
    counters = fb.load(tmp_path / "s")
    assert int(counters["ingress_bytes"].sum()) == 200 * 1042


def test_killed_sample_leaves_no_program(namespace: str, tmp_path: Path) -> None:
    proc = _sample(namespace, str(tmp_path / "s"), "60")
    until(lambda: _tcx_programs(namespace), "the collector's programs on lo")
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    until(lambda: not _tcx_programs(namespace), "the kernel to detach the programs with their loader")


def test_unknown_interface_is_one_line(tmp_path: Path) -> None:
    r = fanin_cli("sample", "no-such-if0", "--duration", "1", "-o", str(tmp_path / "s"))
    assert r.returncode == 2
    assert r.stderr.strip() == "error: IFACE: no interface named 'no-such-if0' in this namespace (see `ip link`)"
    assert not (tmp_path / "s").exists()
