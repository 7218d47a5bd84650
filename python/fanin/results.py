"""What a run produced: Arrow tables, DataFrames, Parquet on disk (schema: docs/results.md)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fanin._fs import MANIFEST, atomic_dir

if TYPE_CHECKING:
    import pandas as pd

    from fanin._native import Column as NativeColumn

TIMING = "timing.json"

_U64, _I64, _U32, _F64, _BOOL, _STR = pa.uint64(), pa.int64(), pa.uint32(), pa.float64(), pa.bool_(), pa.string()

SCHEMAS: dict[str, list[tuple[str, pa.DataType]]] = {
    "flows": [
        ("flow_id", _U64),
        ("src", _U32),
        ("dst", _U32),
        ("src_name", _STR),
        ("dst_name", _STR),
        ("size_bytes", _U64),
        ("start_ps", _U64),
        ("recv_done_ps", _U64),
        ("finish_ps", _U64),
        ("fct_ps", _U64),
        ("ideal_fct_ps", _U64),
        ("slowdown", _F64),
        ("bytes_acked", _U64),
        ("retx_bytes", _U64),
        ("timeouts", _U64),
        ("fast_recoveries", _U64),
        ("nacks", _U64),
        ("nacks_sent", _U64),
        ("via", _I64),
        ("incast_id", _I64),
        ("completed", _BOOL),
        ("measured", _BOOL),
    ],
    "incasts": [
        ("incast_id", _I64),
        ("workload", _U32),
        ("burst", _U32),
        ("degree", _U32),
        ("receiver", _U32),
        ("bytes_per_sender", _U64),
        ("first_start_ps", _U64),
        ("last_finish_ps", _U64),
        ("ict_ps", _U64),
        ("ideal_ict_ps", _U64),
        ("last_delivery_ps", _U64),
        ("completed", _BOOL),
        ("measured", _BOOL),
    ],
    "queues": [("time_ps", _U64), ("port", _U32), ("port_name", _STR), ("bytes", _U64), ("packets", _U64), ("phantom_bytes", _U64)],
    "rates": [("time_ps", _U64), ("flow_id", _U64), ("acked_bytes", _U64), ("rate_bps", _F64), ("sent_bytes", _U64), ("sent_rate_bps", _F64)],
    "hosts": [
        ("host", _U32),
        ("host_name", _STR),
        ("bin_start_ps", _U64),
        ("ingress_bytes", _U64),
        ("egress_bytes", _U64),
        ("in_rxmit_bytes", _U64),
        ("out_rxmit_bytes", _U64),
        ("in_ce_bytes", _U64),
        ("connections", _U64),
    ],
    "queue_events": [("time_ps", _U64), ("port", _U32), ("port_name", _STR), ("packets", _U64)],
    "arrival_queues": [("port", _U32), ("port_name", _STR), ("packets_ahead", _U64), ("arrivals", _U64)],
    "windows": [
        ("time_ps", _U64),
        ("flow_id", _U64),
        ("cwnd_bytes", _U64),
        ("in_flight_bytes", _U64),
        ("alpha", _F64),
    ],
    "bursts": [
        ("workload", _U32),
        ("burst", _U32),
        ("degree", _U32),
        ("response_bytes", _U64),
        ("start_ps", _U64),
        ("end_ps", _U64),
        ("bct_ps", _U64),
        ("responses_done", _U32),
        ("drops", _U64),
        ("marks", _U64),
        ("timeouts", _U64),
        ("rx_bytes", _U64),
        ("ce_bytes", _U64),
        ("completed", _BOOL),
    ],
    "responses": [
        ("workload", _U32),
        ("burst", _U32),
        ("flow_id", _U64),
        ("src_name", _STR),
        ("request_ps", _U64),
        ("write_ps", _U64),
        ("done_ps", _U64),
        ("start_cwnd_bytes", _U64),
        ("start_alpha", _F64),
        ("end_cwnd_bytes", _U64),
        ("timeouts", _U64),
        ("granted", _BOOL),
        ("completed", _BOOL),
    ],
    "ports": [
        ("port", _U32),
        ("port_name", _STR),
        ("rate_bps", _U64),
        ("delay_ps", _U64),
        ("tx_bytes", _U64),
        ("tx_pkts", _U64),
        ("enqueued_bytes", _U64),
        ("enqueued_pkts", _U64),
        ("dropped_bytes", _U64),
        ("dropped_pkts", _U64),
        ("marked_bytes", _U64),
        ("marked_pkts", _U64),
        ("max_queue_bytes", _U64),
        ("max_queue_pkts", _U64),
        ("trimmed_bytes", _U64),
        ("trimmed_pkts", _U64),
    ],
    "faults": [
        ("port", _U32),
        ("port_name", _STR),
        ("failed_bytes", _U64),
        ("failed_pkts", _U64),
        ("lost_bytes", _U64),
        ("lost_pkts", _U64),
        ("blocks", _U64),
        ("blocks_1_loss", _U64),
        ("blocks_2_losses", _U64),
        ("blocks_3_losses", _U64),
        ("blocks_more_losses", _U64),
    ],
    "erasure": [
        ("flow_id", _U64),
        ("blocks", _U64),
        ("coded_bytes", _U64),
        ("parity_pkts", _U64),
        ("parity_nacks_sent", _U64),
        ("parity_nacks", _U64),
        ("rebuilt_blocks", _U64),
    ],
}
"""The documented columns of the standard tables, exactly as the engine produces them."""

_ARROW_TYPES: dict[str, pa.DataType] = {"u8": _U64, "i8": _I64, "u4": _U32, "f8": _F64}

# Fixed writer options: the same table gives the same bytes (no timestamps are written).
_PARQUET_OPTIONS: dict[str, Any] = dict(
    compression="zstd",
    compression_level=3,
    use_dictionary=True,
    write_statistics=True,
    version="2.6",
    data_page_version="1.0",
    row_group_size=1 << 20,
    store_schema=True,
    write_page_index=False,
)


# ParquetWriter takes the row group size per write, the rest when opened.
_WRITER_OPTIONS = {k: v for k, v in _PARQUET_OPTIONS.items() if k != "row_group_size"}


def native_table(cols: Sequence[NativeColumn]) -> pa.Table:
    """One native table (``[(column, dtype, data), ...]``) as Arrow."""
    return pa.table({col: column_to_arrow(dtype, data) for col, dtype, data in cols})


class FlowStream:
    """The ``flows`` table of a streaming run (``[record] flows = "stream"``), as the engine
    hands it out: appended to the Parquet file ``path`` chunk by chunk, or kept in memory
    as Arrow chunks without one. Rows are in the order flows finished and left memory, then
    the flows alive at the end; sort by ``flow_id`` for id order."""

    def __init__(self, path: str | os.PathLike[str] | None) -> None:
        self.path = None if path is None else Path(path)
        self.rows = 0
        self.chunks = 0
        self._writer: pq.ParquetWriter | None = None
        self._chunks: list[pa.Table] = []

    def __call__(self, cols: Sequence[NativeColumn]) -> None:
        self.add(native_table(cols))

    def add(self, t: pa.Table) -> None:
        self.rows += t.num_rows
        self.chunks += 1
        if self.path is None:
            self._chunks.append(t)
            return
        if self._writer is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._writer = pq.ParquetWriter(self.path, t.schema, **_WRITER_OPTIONS)
        self._writer.write_table(t, row_group_size=_PARQUET_OPTIONS["row_group_size"])

    def close(self) -> pa.Table | None:
        """Ends the stream; returns the whole table, or None when it went to the file."""
        if self._writer is not None:
            self._writer.close()
            return None
        return pa.concat_tables(self._chunks)


def is_timing(name: str) -> bool:
    """Summary scalars that measure the machine, not the simulation (they vary run to run)."""
    return "wall" in name or name.endswith("_per_s")


def column_to_arrow(dtype: str, data: bytes | tuple[bytes, bytes]) -> pa.Array:
    """One native column (see ``fanin._native.run``) as an Arrow array."""
    if dtype in _ARROW_TYPES:
        assert isinstance(data, bytes)
        typ = _ARROW_TYPES[dtype]
        n = len(data) // (typ.bit_width // 8)
        return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(data)])  # no copy
    if dtype.endswith("?") and dtype[:-1] in _ARROW_TYPES:
        # Values, then one validity byte per row: work the run did not finish is null.
        assert isinstance(data, bytes)
        typ = _ARROW_TYPES[dtype[:-1]]
        n = len(data) // (typ.bit_width // 8 + 1)
        values, valid = data[: len(data) - n], np.frombuffer(data, dtype=np.uint8, offset=len(data) - n)
        mask = pa.array(valid.astype(np.bool_), type=_BOOL).buffers()[1]
        return pa.Array.from_buffers(typ, n, [mask, pa.py_buffer(values)], null_count=int(n - np.count_nonzero(valid)))
    if dtype == "bool":
        assert isinstance(data, bytes)
        return pa.array(np.frombuffer(data, dtype=np.uint8).astype(np.bool_), type=_BOOL)
    if dtype in ("str", "str64"):
        # (offsets, utf8) in Arrow's layout: the two buffers are wrapped, not copied.
        offsets, utf8 = data
        typ, width = (_STR, 4) if dtype == "str" else (pa.large_string(), 8)
        return pa.Array.from_buffers(typ, len(offsets) // width - 1, [None, pa.py_buffer(offsets), pa.py_buffer(utf8)])
    raise ValueError(f"unknown column dtype {dtype!r} from the engine")


NULLABLE: dict[str, tuple[str, ...]] = {
    "flows": ("size_bytes", "recv_done_ps", "finish_ps", "fct_ps", "slowdown"),
    "incasts": ("last_finish_ps", "ict_ps", "last_delivery_ps"),
    "bursts": ("end_ps", "bct_ps", "drops", "marks", "timeouts"),
    "responses": ("done_ps", "end_cwnd_bytes", "timeouts"),
}
"""Columns that are null where the run ended before the work did (docs/results.md)."""


def _schema_type(table: str, col: str) -> pa.DataType:
    return dict(SCHEMAS.get(table, [])).get(col, _F64)


def _nullable_ints(t: pa.Table, col: str) -> pd.Series:
    """An Arrow integer column as pandas ``UInt64``/``Int64`` without a trip through floats."""
    import pandas as pd  # here, not at the top: a CLI command that makes no DataFrame skips it

    return t.column(col).to_pandas(types_mapper={_U64: pd.UInt64Dtype(), _U32: pd.UInt32Dtype(), _I64: pd.Int64Dtype()}.get)


def empty_table(name: str) -> pa.Table:
    """A table with the documented columns of ``name`` and no rows."""
    return pa.table({c: pa.array([], type=t) for c, t in SCHEMAS.get(name, [])})


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class Results:
    """The tables, summary scalars and manifest of one run.

    ``flows``, ``incasts``, ``queues``, ``hosts`` and ``ports`` are pandas DataFrames (a fresh
    one per access; empty with the documented columns when the run did not record that
    table). ``tables`` holds the Arrow tables the engine returned; ``files`` the tables
    written to Parquet as the run went (a streamed ``flows`` table), read when asked for.
    """

    def __init__(
        self,
        tables: Mapping[str, pa.Table],
        summary: Mapping[str, float],
        manifest: Mapping[str, Any],
        files: Mapping[str, Path] | None = None,
    ):
        self.tables: dict[str, pa.Table] = dict(tables)
        self.summary: dict[str, float] = dict(summary)
        self.manifest: dict[str, Any] = dict(manifest)
        self.files: dict[str, Path] = dict(files or {})

    @classmethod
    def from_native(
        cls,
        tables: Mapping[str, Sequence[NativeColumn]],
        summary: Mapping[str, float],
        manifest: Mapping[str, Any],
    ) -> Results:
        arrow = {
            name: native_table(cols)
            for name, cols in tables.items()
            if cols  # a table without columns was not recorded
        }
        return cls(arrow, summary, manifest)

    # ------------------------------------------------------------ DataFrames

    def arrow(self, name: str, columns: Sequence[str] | None = None) -> pa.Table | None:
        """Table ``name`` as Arrow (``columns`` only, if given), from memory or its file; None
        if the run did not record it."""
        if name in self.files:
            return pq.read_table(self.files[name], columns=list(columns) if columns is not None else None)
        t = self.tables.get(name)
        return t if t is None or columns is None else t.select(list(columns))

    def table(self, name: str, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """Table ``name`` as a DataFrame (empty with the documented columns if absent), or
        only some of its ``columns`` (a streamed table of millions of flows is read in part).

        Integer columns that may hold nulls (times of work that did not finish) are pandas'
        nullable integers (``UInt64``, missing is ``<NA>``) whether or not this run has a
        null in them, so their dtype does not depend on how a run ended; statistics such as
        ``mean()`` skip the missing values."""
        t = self.arrow(name, columns)
        empty = empty_table(name)
        frame: pd.DataFrame = (t if t is not None else empty if columns is None else empty.select(list(columns))).to_pandas()
        for col in NULLABLE.get(name, ()):
            if col in frame and pa.types.is_integer(_schema_type(name, col)):
                frame[col] = _nullable_ints(t, col) if t is not None else frame[col].astype("UInt64")
        return frame

    @property
    def flows(self) -> pd.DataFrame:
        return self.table("flows")

    @property
    def incasts(self) -> pd.DataFrame:
        return self.table("incasts")

    @property
    def queues(self) -> pd.DataFrame:
        return self.table("queues")

    @property
    def hosts(self) -> pd.DataFrame:
        return self.table("hosts")

    @property
    def rates(self) -> pd.DataFrame:
        return self.table("rates")

    @property
    def ports(self) -> pd.DataFrame:
        return self.table("ports")

    @property
    def faults(self) -> pd.DataFrame:
        return self.table("faults")

    @property
    def erasure(self) -> pd.DataFrame:
        return self.table("erasure")

    def __repr__(self) -> str:
        counts = {n: t.num_rows for n, t in self.tables.items()}
        counts.update({n: pq.ParquetFile(p).metadata.num_rows for n, p in self.files.items()})
        rows = ", ".join(f"{n}={k}" for n, k in sorted(counts.items()))
        return f"Results({self.manifest.get('name')!r}, seed={self.manifest.get('seed')}, {rows})"

    # ------------------------------------------------------------ Parquet

    def to_parquet(self, directory: str | os.PathLike[str]) -> Path:
        """Writes ``<table>.parquet`` per table, ``manifest.json`` and ``timing.json``.

        The directory appears whole or not at all; an existing result there is replaced.
        Everything but ``timing.json`` (wall-clock measurements) is byte-identical for the
        same scenario and seed.
        """
        target = Path(directory)
        with atomic_dir(target) as tmp:
            files: dict[str, str] = {}
            for name in sorted(self.tables):
                path = tmp / f"{name}.parquet"
                pq.write_table(self.tables[name], path, **_PARQUET_OPTIONS)
                files[path.name] = _sha256(path)
            for name, streamed in sorted(self.files.items()):
                path = tmp / f"{name}.parquet"
                shutil.copyfile(streamed, path)
                files[path.name] = _sha256(path)
            manifest = dict(self.manifest)
            manifest["summary"] = {k: v for k, v in sorted(self.summary.items()) if not is_timing(k)}
            manifest["files"] = files
            (tmp / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            timing = {k: v for k, v in sorted(self.summary.items()) if is_timing(k)}
            (tmp / TIMING).write_text(json.dumps(timing, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        self.manifest = manifest
        self.files = {name: target / f"{name}.parquet" for name in self.files}
        return target

    @classmethod
    def from_parquet(cls, directory: str | os.PathLike[str], *, verify: bool = True) -> Results:
        """Loads a directory written by :meth:`to_parquet` (checking file hashes if ``verify``)."""
        d = Path(directory)
        manifest = json.loads((d / MANIFEST).read_text(encoding="utf-8"))
        tables: dict[str, pa.Table] = {}
        for file, digest in manifest.get("files", {}).items():
            path = d / file
            if verify and _sha256(path) != digest:
                raise ValueError(f"{path}: content does not match the manifest's sha256")
            tables[Path(file).stem] = pq.read_table(path)
        summary = dict(manifest.get("summary", {}))
        if (d / TIMING).is_file():
            summary.update(json.loads((d / TIMING).read_text(encoding="utf-8")))
        return cls(tables, summary, manifest)


def unfinished(h: Mapping[str, float | None]) -> str | None:
    """One line saying what the run's end cut off, or None when everything finished. With a
    ``[measure]`` window only the measured flows and incasts count: cutting off the others is
    how such a run ends."""
    parts = []
    counts = (("flows", "flows_completed", "flows"), ("incasts", "incasts_completed", "incasts"))
    if h.get("measured_flows") is not None:
        counts = tuple((f"measured_{n}", f"measured_{k}", f"measured {w}") for n, k, w in counts)
    for total, done, what in counts:
        n, k = h.get(total), h.get(done)
        if n is not None and k is not None and k < n:
            parts.append(f"{n - k:,.0f} of {n:,.0f} {what}")
    if not parts:
        return None
    end = h.get("sim_end_ms")
    when = f" (at {end:.3f} ms)" if end is not None else ""
    return f"{' and '.join(parts)} did not finish by the end of the run{when}: their times are null, and completion statistics cover the completed ones"


def headline(results: Results) -> dict[str, float | None]:
    """The numbers `fanin run` prints: flow and incast completion, drops, marks, speed.

    Times are in milliseconds; completion statistics describe the completed flows and
    incasts only (the counts say how many), and with a ``[measure]`` window the measured ones
    only; a statistic with nothing to describe is None.
    """
    # Only the columns used: a streamed flows table may hold millions of rows.
    flows = results.table("flows", columns=["completed", "measured", "fct_ps", "slowdown"])
    incasts, s = results.incasts, results.summary
    windowed = s.get("measured_flows") is not None  # the scenario has a [measure] window

    def described(table: pd.DataFrame) -> pd.DataFrame:
        """The rows whose times the statistics describe."""
        return table[table["measured"]] if windowed and len(table) else table

    done = flows[flows["completed"]] if len(flows) else flows
    incasts_done = incasts[incasts["completed"]] if len(incasts) else incasts
    timed, ict = described(done), described(incasts_done)["ict_ps"]

    def stat(values: pd.Series, q: float | None, scale: float = 1.0) -> float | None:
        if not len(values):
            return None
        v = values.to_numpy(dtype=np.float64) / scale
        return float(v.mean()) if q is None else float(np.quantile(v, q))

    wall = s.get("wall_s")
    hops = s.get("packet_hops")
    return {
        "flows": float(len(flows)) if len(flows) else s.get("flows"),
        "flows_completed": float(len(done)) if len(flows) else s.get("flows_completed"),
        "fct_mean_ms": stat(timed["fct_ps"], None, 1e9),
        "fct_p99_ms": stat(timed["fct_ps"], 0.99, 1e9),
        "slowdown_mean": stat(timed["slowdown"], None),
        "slowdown_p99": stat(timed["slowdown"], 0.99),
        "incasts": float(len(incasts)),
        "incasts_completed": float(len(incasts_done)),
        "measured_flows": s.get("measured_flows"),
        "measured_flows_completed": s.get("measured_flows_completed"),
        "measured_incasts": float(len(described(incasts))) if windowed else None,
        "measured_incasts_completed": float(len(described(incasts_done))) if windowed else None,
        "sim_end_ms": s["sim_end_ps"] / 1e9 if s.get("sim_end_ps") is not None else None,
        "ict_mean_ms": stat(ict, None, 1e9),
        "ict_max_ms": stat(ict, 1.0, 1e9),
        "ideal_ict_mean_ms": stat(described(incasts_done)["ideal_ict_ps"], None, 1e9),
        "drops": s.get("drops"),
        "marks": s.get("marks"),
        "events": s.get("events"),
        "packet_hops": hops,
        "wall_s": wall,
        "mpkt_hops_per_s": hops / wall / 1e6 if hops is not None and wall else None,
    }
