"""An eBPF Millisampler: 1 ms host counters from TC ingress and egress, written as the public
Millisampler files (``fanin.bursts.millisampler`` reads them unchanged).

Per bin (bpf/millisampler.bpf.c says how each is counted, on the capture reader's basis):
``ingressBytes``, ``egressBytes``, ``inRxmitBytes``, ``outRxmitBytes``,
``inCongestionExperiencedBytes``, ``connections``. Besides the public format's metadata
(``server_hostname``, ``sampling_freq``) a file carries ``start_realtime_ns``, bin 0's start on
CLOCK_REALTIME (the clock captures use), which the public reader ignores.
"""

from __future__ import annotations

import gzip
import json
import math
import socket
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from fanin._fs import atomic_dir, atomic_write_bytes
from fanin._proc import sigterm_interrupts
from fanin.bursts.millisampler import FIELDS
from fanin.testbed.ebpf import Loader

BIN_NS = 1_000_000  # Millisampler's 1 ms
SAMPLING_HZ = 10**9 // BIN_NS
ARRAYS = tuple(FIELDS)  # struct bin's fields, in this order
BIN = np.dtype([(k, "<u8") for k in ARRAYS])
INFO = "collector.info"  # a folder holding it is a `fanin sample` run, which a new one may replace


def millisampler_path(out: Path, snapshot: str, rack: str, host: str) -> Path:
    """Where the public data set keeps a host's snapshot: ``<snapshot>-zip/rackId_R_hostId_H.txt.gz``."""
    return out / f"{snapshot}-zip" / f"rackId_{rack}_hostId_{host}.txt.gz"


@dataclass
class Collector:
    """One host's collector on ``iface`` inside the namespace ``exec_args`` enters."""

    exec_args: Sequence[str]
    iface: str
    host: str
    max_bins: int
    loader: Loader | None = None
    late_packets: int = 0
    _tmp: tempfile.TemporaryDirectory[str] = field(
        default_factory=lambda: tempfile.TemporaryDirectory(prefix="fanin-ms-")
    )

    def start(self) -> Collector:
        raw = Path(self._tmp.name)
        self.loader = Loader.start(
            self.exec_args,
            "millisampler",
            "--max-entries", f"bins:{self.max_bins}",
            "--config", "0=now",
            "--config", f"1={BIN_NS}",
            "--attach", f"sample_ingress:{self.iface}:ingress",
            "--attach", f"sample_egress:{self.iface}:egress",
            "--dump", f"bins:{raw / 'bins'}",
            "--dump", f"late:{raw / 'late'}",
        )  # fmt: skip
        return self

    def stop(self, out: Path, snapshot: str, rack: str) -> Path:
        """Stops counting and writes the host's file under ``out``; returns its path."""
        assert self.loader is not None
        elapsed_ns = time.monotonic_ns() - self.loader.mono_ns  # bpf_ktime_get_ns()'s clock
        self.loader.stop()
        raw = Path(self._tmp.name)
        bins = np.fromfile(raw / "bins", dtype=BIN)[: min(self.max_bins, elapsed_ns // BIN_NS + 1)]
        self.late_packets = int(np.fromfile(raw / "late", dtype="<u8")[0])
        self._tmp.cleanup()
        doc: dict[str, object] = {"server_hostname": self.host, "sampling_freq": SAMPLING_HZ}
        doc |= {k: bins[k].tolist() for k in ARRAYS}
        doc |= {"start_realtime_ns": self.loader.real_ns, "late_packets": self.late_packets}
        path = millisampler_path(out, snapshot, rack, self.host)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, gzip.compress(json.dumps(doc).encode(), mtime=0))
        return path

    def kill(self) -> None:
        if self.loader is not None:
            self.loader.kill()
        self._tmp.cleanup()


def bins_for(duration_s: float) -> int:
    """Bins for a run of ``duration_s`` plus slack for start-up (a bin past the last is not counted)."""
    return math.ceil(duration_s * SAMPLING_HZ) + 10 * SAMPLING_HZ


def sample(iface: str, duration_s: float, out_dir: str | Path) -> Path:
    """``fanin sample``: counts ``iface`` of this host for ``duration_s`` and writes
    ``out_dir/<iface>-zip/rackId_local_hostId_<hostname>.txt.gz`` (the folder appears whole or not at all)."""
    with sigterm_interrupts(), atomic_dir(out_dir, marker=INFO) as out:
        collector = Collector([], iface, socket.gethostname().split(".")[0].replace("_", "-"), bins_for(duration_s))
        try:
            collector.start()
            time.sleep(duration_s)
            path = collector.stop(out, iface, "local")
        finally:
            collector.kill()
        file = str(path.relative_to(out))
        info = {"iface": iface, "duration_s": duration_s, "file": file, "late_packets": collector.late_packets}
        (out / INFO).write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    return Path(out_dir) / path.relative_to(out)


def read_counters(path: Path) -> dict[str, object]:
    """A collector file as written (the public arrays and this collector's metadata)."""
    doc: dict[str, object] = json.loads(gzip.decompress(path.read_bytes()))
    return doc


def agreement(capture: Path, millisampler_file: Path, host: str) -> pd.DataFrame:
    """Per 1 ms bin of the collector, over the bins the capture covers whole (its first and last
    are partial): ``host``'s ingress bytes, retransmitted ingress bytes and connections, as the
    collector counted them (``ebpf_*``) and as the capture's packets give them (``capture_*``),
    binned from the collector's bin 0 (``start_realtime_ns``, both on CLOCK_REALTIME)."""
    from fanin.bursts.capture import packet_table

    doc = read_counters(millisampler_file)
    pk = packet_table(capture)
    pk = pk[pk["dst"] == host]
    k = (pk["time_ns"] + pk.attrs["first_ns"] - int(doc["start_realtime_ns"])) // BIN_NS  # type: ignore[call-overload]
    first = int(pk.attrs["first_ns"] - int(doc["start_realtime_ns"])) // BIN_NS + 1  # type: ignore[call-overload]
    bins = pd.RangeIndex(first, int(k.max()))
    by_bin = pk.assign(bin=k, rxmit_bytes=pk["frame_bytes"] * pk["rxmit"]).groupby("bin")
    cap = by_bin.agg(
        capture_bytes=("frame_bytes", "sum"),
        capture_rxmit_bytes=("rxmit_bytes", "sum"),
        capture_rxmit_segments=("rxmit", "sum"),
        capture_connections=("flow", "nunique"),
    )
    table = cap.reindex(bins, fill_value=0).astype("int64")
    ours = {"ebpf_bytes": "ingressBytes", "ebpf_rxmit_bytes": "inRxmitBytes", "ebpf_connections": "connections"}
    for col, key in ours.items():
        values = np.asarray(doc[key], dtype=np.int64)
        table[col] = values[bins.start : bins.stop] if bins.stop <= len(values) else 0
    return table.rename_axis("bin").reset_index()
