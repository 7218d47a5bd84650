"""The production half of IMC '24 (Figs. 1-4) on counters fanin can produce: a simulated
rack of service hosts (``experiments/imc24/production/rack.toml``) and, once the eBPF
collector of the namespace testbed exists, the counters of a real kernel-TCP incast.

Both go through :mod:`fanin.bursts`, the pipeline ``fanin bursts`` runs on the public
Millisampler dataset, so the same definitions (burst, duration, active flows, ECN and
retransmission shares) apply to all three sources.

The testbed: :func:`testbed_counters` reads the Millisampler JSON files of a testbed run
directory named by ``$FANIN_IMC24_TESTBED`` (what ``fanin testbed incast --collector ebpf
-o DIR`` writes), else of the figure's own run (:func:`own_testbed_run`) where this
machine can run one; otherwise it returns no counters and the reason, which the figure
shows in place of the testbed panel.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pandas as pd

from fanin import Results
from fanin.bursts import BurstInputError, Bursts, find, load
from fanin.bursts.simulated import from_results

SERVICES = {"h0": "aggregator", "h1": "aggregator", "h2": "storage", "h3": "storage", "h4": "video", "h5": "video"}
"""The rack's receivers and the service each runs (rack.toml's workloads)."""

RACK = "rack0"
TESTBED_ENV = "FANIN_IMC24_TESTBED"
WARMUP_PS = 250 * 10**9
"""Left out of every snapshot: the connections' first incasts start in slow start, overflow
and wait for the 200 ms RTO, which a production host's long-lived connections do not."""


def rack_counters(results: Results, point: dict[str, Any] | None = None) -> pd.DataFrame:
    """A rack run's 1 ms host counters after the warm-up (:data:`WARMUP_PS`, then time 0),
    labelled by service (the ``dataset``) and rack; one seed is one snapshot."""
    c = from_results(results)
    c = c[c["host"].isin(list(SERVICES)) & (c["bin_start_ps"] >= WARMUP_PS)].copy()
    c["bin_start_ps"] -= WARMUP_PS
    c["dataset"] = c["host"].map(SERVICES)
    c["rack"] = RACK
    return c


def bursts_of(counters: pd.DataFrame) -> Bursts:
    """The paper's definitions on the counters (the recorded 10 Gb/s line rate, max flows)."""
    cols = [c for c in counters.columns if c not in ("variant", "seed")]
    return find(counters[cols].reset_index(drop=True))


TESTBED_RUN: dict[str, Any] = {
    "senders": 8,
    "bytes_per_sender": 100_000,
    "bursts": 5,
    "queue": "fifo",
    "buffer_bytes": 30_000,
    "collector": "ebpf",
}
"""The incast the figure runs itself when no run is named: 8 kernel-TCP senders answer 5
requests of 100 KB each through a 100 Mb/s port with a 30 KB FIFO (so bursts drop and
retransmit), every host counted by the eBPF Millisampler."""


def testbed_dir() -> tuple[Path | None, str]:
    """The testbed run directory to read (``$FANIN_IMC24_TESTBED``, else the figure's own
    run), or None and why there is none."""
    name = os.environ.get(TESTBED_ENV)
    if not name:
        return own_testbed_run()
    path = Path(name)
    if not path.is_dir():
        return None, f"skipped: ${TESTBED_ENV} = {name} is not a directory"
    return path, ""


def own_testbed_run() -> tuple[Path | None, str]:
    """:data:`TESTBED_RUN` in the namespace testbed, run once and kept in the run cache
    (a real run is not reproducible, so it is not run again), when this machine allows it
    (root, namespaces, the eBPF programs built by ``make bpf``)."""
    from fanin.run_key import default_cache
    from fanin.testbed import TestbedUnavailable, run_incast
    from fanin.testbed.ebpf import unavailable_reason as ebpf_unavailable
    from fanin.testbed.netns import unavailable_reason

    why = unavailable_reason() or ebpf_unavailable("millisampler")
    if why:
        return None, f"skipped: this machine cannot run the testbed ({why}); set ${TESTBED_ENV} to a run's directory"
    out = default_cache() / "imc24-testbed"
    if not (out / "testbed.json").is_file():
        try:
            run_incast(out, **TESTBED_RUN)
        except (TestbedUnavailable, RuntimeError, OSError) as e:
            return None, f"skipped: the testbed run failed ({e})"
    return out, ""


def testbed_counters() -> tuple[pd.DataFrame | None, str]:
    """The testbed run's Millisampler counters (dataset ``testbed``), or None and the reason."""
    path, why = testbed_dir()
    if path is None:
        return None, why
    rate = _bottleneck_rate(path)
    if (path / "millisampler").is_dir():  # a whole testbed run: its collector's folder
        path = path / "millisampler"
    try:
        counters = load(path)
    except BurstInputError as e:
        return None, f"skipped: {path}: {e}"
    counters["dataset"] = "testbed"
    if rate:
        # The veths record their own 10 Gb/s; a burst is measured against the bottleneck.
        counters["line_rate_bps"] = rate
    return counters, ""


def _bottleneck_rate(run_dir: Path) -> int | None:
    """A testbed run's bottleneck rate (bits/s) from its ``testbed.json``, if it has one."""
    try:
        return int(json.loads((run_dir / "testbed.json").read_text(encoding="utf-8"))["rate_bps"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
