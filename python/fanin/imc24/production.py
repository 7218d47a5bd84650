"""The production half of IMC '24 (Figs. 1-4) on counters fanin can produce: a simulated
rack of service hosts (``experiments/imc24/production/rack.toml``) and, once the eBPF
collector of the namespace testbed exists, the counters of a real kernel-TCP incast.

Both go through :mod:`fanin.bursts`, the pipeline ``fanin bursts`` runs on the public
Millisampler dataset, so the same definitions (burst, duration, active flows, ECN and
retransmission shares) apply to all three sources.

The testbed hook: :func:`testbed_counters` reads the Millisampler JSON files of a testbed
run directory named by ``$FANIN_IMC24_TESTBED`` (what ``fanin testbed incast --collector
ebpf -o DIR`` writes); without one it returns no counters and the reason, which the
figure shows in place of the testbed panel.
"""

from __future__ import annotations

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


def testbed_dir() -> tuple[Path | None, str]:
    """The testbed run directory to read, or None and why there is none."""
    name = os.environ.get(TESTBED_ENV)
    if not name:
        return None, (
            f"skipped: no testbed run (set ${TESTBED_ENV} to the directory of a "
            "`fanin testbed incast --collector ebpf` run; the eBPF collector is not merged yet)"
        )
    path = Path(name)
    if not path.is_dir():
        return None, f"skipped: ${TESTBED_ENV} = {name} is not a directory"
    return path, ""


def testbed_counters() -> tuple[pd.DataFrame | None, str]:
    """The testbed run's Millisampler counters (dataset ``testbed``), or None and the reason."""
    path, why = testbed_dir()
    if path is None:
        return None, why
    try:
        counters = load(path)
    except BurstInputError as e:
        return None, f"skipped: {path}: {e}"
    counters["dataset"] = "testbed"
    return counters, ""
