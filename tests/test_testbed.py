"""The namespace testbed: a real kernel-TCP incast, captured and measured by the burst pipeline.

Runs where network namespaces can be made (root, iproute2, Linux); elsewhere it is skipped
with the reason.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import fanin.bursts as fb
from conftest import fanin_cli
from fanin.testbed.cpu_latency import PM_QOS_FILE, cpu_latency_held, current_cpu_latency_us
from fanin.testbed.incast import IncastRun, compare, run_incast
from fanin.testbed.netns import RECEIVER_ADDR, Network, unavailable_reason

REASON = unavailable_reason()
needs_namespaces = pytest.mark.skipif(REASON is not None, reason=f"testbed unavailable: {REASON}")
SENDERS, SIZE, BURSTS, RATE = 4, 100_000, 3, 100_000_000


def namespaces() -> str:
    return subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout


def measure(out: Path) -> tuple[IncastRun, fb.Bursts, pd.DataFrame]:
    run = run_incast(out, senders=SENDERS, bytes_per_sender=SIZE, bursts=BURSTS, rate_bps=RATE)
    found = fb.find(fb.load(out / "capture.pcap"), RATE)
    return run, found, compare(run, out, found.bursts[found.bursts["host"] == RECEIVER_ADDR])


def as_sent(table: pd.DataFrame) -> bool:
    return bool(table["matches"].all() and (table["found_flows_max"] == SENDERS).all())


@needs_namespaces
def test_real_incast_bursts_are_found(tmp_path: Path) -> None:
    # The host can still stall a vCPU for a bin or two (steal): measured on a Firecracker guest,
    # 7 runs in 10 had every burst found whole, the others one burst in two. Try again.
    for attempt in range(5):
        run, found, table = measure(tmp_path / str(attempt))
        if as_sent(table):
            break
    print(table.to_string())
    # held wherever the kernel offers it: without it an idle VM's shaper runs slow
    assert run.cpu_latency_held == os.access(PM_QOS_FILE, os.W_OK)
    assert [sum(b["bytes"]) for b in run.bursts] == [SENDERS * SIZE] * BURSTS  # the receiver got everything
    assert table["matches"].all(), table.to_string()  # one burst each, all its new payload but edge bins
    rx = found.bursts[found.bursts["host"] == RECEIVER_ADDR]
    assert len(rx) == BURSTS
    assert (rx["flows_max"] == SENDERS).all()  # the fair bottleneck keeps every sender active
    # the bottleneck holds: over a burst the rate stays at or below R. Capture timestamps
    # bunch frames a busy CPU delayed, so a bin may hold more than R allows and the burst's
    # span in whole bins may come out a bin short (411,808 B in 32 bins once: R + 3 %):
    # allow one bin of that slack, not a rate above R.
    bin_s = 1e-3
    assert (rx["bytes"] * 8 <= RATE * 1.02 * (rx["duration_ps"] / 1e12 + bin_s)).all()
    assert not rx["truncated"].any()
    prefix = Network(1, RATE).prefix + "-"
    assert not any(ns.startswith(prefix) for ns in namespaces().split())


@pytest.mark.skipif(not os.access(PM_QOS_FILE, os.W_OK), reason=f"{PM_QOS_FILE} not writable here")
def test_cpu_latency_request_lasts_as_long_as_the_run() -> None:
    before = current_cpu_latency_us()
    assert before > 0
    with cpu_latency_held() as held:
        assert held and current_cpu_latency_us() == 0
    assert current_cpu_latency_us() == before
    with pytest.raises(RuntimeError, match="boom"), cpu_latency_held():
        raise RuntimeError("boom")
    assert current_cpu_latency_us() == before  # an error in the run lets it go too


def test_cpu_latency_request_is_optional(tmp_path: Path) -> None:
    with cpu_latency_held(str(tmp_path / "no-such-device")) as held:
        assert not held


@needs_namespaces
def test_namespaces_are_removed_even_on_failure() -> None:
    net = Network(2, RATE)
    with pytest.raises(RuntimeError, match="boom"), net:
        assert net.receiver in namespaces()
        raise RuntimeError("boom")
    assert not any(ns in namespaces() for ns in net.namespaces())


def test_bad_queue_is_one_line(tmp_path: Path) -> None:
    r = fanin_cli("testbed", "incast", "--queue", "red", "-o", str(tmp_path / "t"))
    assert r.returncode == 2
    assert [line for line in r.stderr.splitlines() if line.strip()] == [
        line for line in r.stderr.splitlines() if "--queue" in line
    ]
    assert not (tmp_path / "t").exists()
