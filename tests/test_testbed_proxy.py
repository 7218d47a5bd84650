"""`fanin testbed proxy`: the proxy paper's streamlined (TC eBPF) and naive (user-space) proxies
in namespaces, their per-packet latency, and an incast with trimming through the streamlined one.

Runs where namespaces and the testbed's eBPF programs can be used (root, Linux 6.6+, `make
bpf`); elsewhere skipped with the reason.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from conftest import fanin_cli, running_testbed
from fanin.testbed.ebpf import unavailable_reason as ebpf_unavailable
from fanin.testbed.netns import unavailable_reason
from fanin.testbed.proxy import PROGRAMS, ProxySettings, run_proxy
from test_cleanup import until

REASON = unavailable_reason() or ebpf_unavailable(*PROGRAMS)
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"proxy testbed unavailable: {REASON}")
STATE_DIR = Path("/run/fanin")


def namespaces(prefix: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n")
    return [line.split()[0] for line in listed if line.startswith(prefix)]


def test_proxies_measured_and_incast_recovers_every_byte(tmp_path: Path) -> None:
    s = ProxySettings(duration_s=1.0, senders=4, packets_per_sender=200)
    run = run_proxy(tmp_path / "px", s)
    out = tmp_path / "px"
    agreement = json.loads((out / "incast.json").read_text())
    c = agreement["counters"]
    print(json.dumps(agreement, indent=1))
    # 4 senders x 32 packets of 1454 B at once into a 30 KB buffer drained at 100 Mbit/s: trims
    assert c["trimmed (trimmer)"] > 0
    assert agreement["checks"] == dict.fromkeys(agreement["checks"], True)
    assert c["payload bytes received (capture)"] == 4 * 200 * 1400
    assert c["header-only at the receiver (capture)"] == 0 and c["timeouts (senders)"] == 0

    lat = pd.read_parquet(out / "latency.parquet")
    summary = pd.read_parquet(out / "summary.parquet").set_index(["phase", "proxy", "measure", "path"])
    for proxy, measure in (("streamlined", "lower_bound"), ("naive", "relay"), ("streamlined", "upper_bound")):
        sent = run.latency[proxy]["sender"]["sent"]
        for path in ("data", "ack"):  # one sample per packet each way: every packet passed the hook
            assert summary.loc[("latency", proxy, measure, path), "samples"] == sent, (proxy, measure, path)
    lower = summary.loc[("latency", "streamlined", "lower_bound", "data")]
    relay = summary.loc[("latency", "naive", "relay", "data")]
    # the program runs in well under a microsecond; a trip through user space takes tens
    assert lower["median_us"] < 1.0 and relay["median_us"] > 5.0
    assert relay["paper_p99_us"] == 359.17 and lower["paper_median_us"] == 0.42
    nacks = lat[(lat["phase"] == "incast") & (lat["path"] == "nack")]
    assert len(nacks) == c["NACKs sent (proxy)"]  # one run-time sample per NACK made
    assert (out / "fig4_naive.png").stat().st_size > 0 and (out / "fig5_streamlined.png").stat().st_size > 0
    assert not list(out.glob("latency_*.pcap"))  # dropped after use unless kept
    assert not namespaces(f"fanin-{os.getpid()}-")


@pytest.fixture
def proxy_run(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    yield from running_testbed("proxy", "--duration", "60", "-o", str(tmp_path / "px"))


def _loaded(proc: subprocess.Popen[str]) -> bool:
    """The streamlined proxy's loader runs in the run's proxy namespace."""
    ns = f"fanin-{proc.pid}-prx"
    if ns not in namespaces(ns):
        return False
    pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
    # A process of the namespace can end between the listing and the read (`_cmdline`).
    return any(b"fanin-bpf" in _cmdline(Path(f"/proc/{p}")) for p in pids)


def test_sigterm_removes_everything(proxy_run: subprocess.Popen[str], tmp_path: Path) -> None:
    until(lambda: _loaded(proxy_run), "the run's proxy program")
    proxy_run.send_signal(signal.SIGTERM)
    assert proxy_run.wait(60) == 143
    assert not namespaces(f"fanin-{proxy_run.pid}-")
    assert list(tmp_path.iterdir()) == []
    assert not (STATE_DIR / f"fanin-{proxy_run.pid}.json").exists()
    assert not [p for p in Path("/proc").glob("[0-9]*") if b"_psender.py" in _cmdline(p)]


def _cmdline(p: Path) -> bytes:
    try:
        return (p / "cmdline").read_bytes()
    except OSError:
        return b""


def test_killed_run_is_cleaned_up(proxy_run: subprocess.Popen[str]) -> None:
    until(lambda: _loaded(proxy_run), "the run's proxy program")
    made = namespaces(f"fanin-{proxy_run.pid}-")
    proxy_run.kill()
    proxy_run.wait()
    r = fanin_cli("testbed", "clean")
    assert r.returncode == 0, r.stderr
    assert sorted(line for line in r.stdout.splitlines() if line.startswith("removed namespace")) == sorted(
        f"removed namespace {ns}" for ns in made
    )
    assert not namespaces(f"fanin-{proxy_run.pid}-")


def test_bad_rate_is_one_line(tmp_path: Path) -> None:
    r = fanin_cli("testbed", "proxy", "--rate", "fast", "-o", str(tmp_path / "px"))
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "--rate" in lines[0], r.stderr
    assert not (tmp_path / "px").exists()
