"""`fanin crosscheck tcp`: the gates, a row's verdict over one or several seeds, and the
table, records and files the rows are written as (see ``ns3_tcp``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from fanin.crosscheck.ns3_tcp_grid import (
    GATE,
    K_PKTS,
    STEADY_BUFFER,
    STEADY_DURATION_PS,
    STEADY_WARMUP_PS,
    Case,
    GridError,
    Row,
    Side,
    size_label,
)

# --------------------------------------------------------------------------- gates


def within(value: float | None, ref: float | None, rel: float = GATE, floor: float = 0.0) -> bool:
    """|value - ref| <= max(floor, rel x |ref|); None on either side fails."""
    if value is None or ref is None:
        return False
    return abs(value - ref) <= max(floor, rel * abs(ref)) + 1e-9


def gates(case: Case, f: Side, n: Side) -> list[str]:
    """The metrics on which fanin (f) is outside its tolerance around ns-3 (n)."""
    failed = []
    if case.kind == "incast":
        if not within(f.ict_us, n.ict_us):
            failed.append("ict")
        if not within(f.fct_p50_us, n.fct_p50_us):
            failed.append("fct_p50")
        if not within(f.drops, n.drops):
            failed.append("drops")
        if not within(f.timed_out_flows, n.timed_out_flows, floor=1.0):
            failed.append("timed_out")
    else:
        if not within(f.queue_min, n.queue_min):
            failed.append("q_min")
        if not within(f.queue_max, n.queue_max):
            failed.append("q_max")
    return failed


def judge(case: Case, f: Side, n: Side) -> Row:
    """One run on each side: the gates alone decide."""
    return judge_runs(case, [f], [n])


# The gated incast metrics, as (gate name, Side attribute).
SPREAD_METRICS = (("ict", "ict_us"), ("fct_p50", "fct_p50_us"), ("drops", "drops"), ("timed_out", "timed_out_flows"))
_MEDIAN_FIELDS = (
    "ict_us",
    "fct_p50_us",
    "fct_p99_us",
    "drops",
    "bottleneck_drops",
    "marks",
    "retx_bytes",
    "timed_out_flows",
    "timeouts",
    "recoveries",
    "cwr_sack_timeouts",
    "completed",
    "queue_min",
    "queue_max",
    "queue_mean",
    "queue_period_us",
)


def median_side(runs: Sequence[Side]) -> Side:
    """Each metric's median over the runs (a time that is None in any run stays None: a
    flow that did not finish has no completion time); run times add up."""
    if len(runs) == 1:
        return runs[0]
    m = Side(flows=runs[0].flows, run_s=sum(r.run_s for r in runs), offsets_ps=list(runs[0].offsets_ps))
    for name in _MEDIAN_FIELDS:
        vals = [getattr(r, name) for r in runs]
        if any(v is None for v in vals):
            continue
        med = float(np.median(vals))
        setattr(m, name, med if isinstance(vals[0], float) else int(round(med)))
    m.notes = sorted({note for r in runs for note in r.notes})
    return m


def spread(runs: Sequence[Side], attr: str) -> tuple[float, float] | None:
    vals = [getattr(r, attr) for r in runs]
    if any(v is None for v in vals):
        return None
    return float(min(vals)), float(max(vals))


def judge_runs(case: Case, f_runs: Sequence[Side], n_runs: Sequence[Side]) -> Row:
    """Gates on the medians over seeds. With two or more seeds, an incast metric that
    misses its gate still passes when fanin's median lies within ns-3's own range over
    the seeds (widened by the gate): ns-3 moved that far under a sub-ns change of start
    times, so the difference says nothing about a rule. The row's verdict says so."""
    f, n = median_side(f_runs), median_side(n_runs)
    ns3_done = case.kind == "steady" or all(r.completed == r.flows for r in n_runs)
    ns3_ok = ns3_done and (case.kind == "incast" or n.queue_min is not None)
    row = Row(case, f, n, [], "", list(f_runs), list(n_runs))
    if not ns3_ok:
        row.verdict = "n/a: ns-3 did not finish"
        return row
    failed = gates(case, f, n)
    if case.kind == "incast" and len(n_runs) > 1:
        for gate, attr in SPREAD_METRICS:
            rng = spread(n_runs, attr)
            value = getattr(f, attr)
            if gate not in failed or rng is None or value is None:
                continue
            floor = 1.0 if gate == "timed_out" else 0.0
            lo, hi = rng[0] - max(floor, GATE * rng[0]), rng[1] + max(floor, GATE * rng[1])
            if lo - 1e-9 <= value <= hi + 1e-9:
                failed.remove(gate)
                row.in_spread.append(gate)
    row.failed = failed
    if failed:
        row.verdict = "FAIL: " + ", ".join(failed)
    elif row.in_spread:
        row.verdict = "ok in ns-3's spread: " + ", ".join(row.in_spread)
    else:
        row.verdict = "ok"
    return row


# --------------------------------------------------------------------------- output


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def pair(f: float | None, n: float | None, spec: str = ".0f") -> str:
    return f"{_fmt(f, spec)} / {_fmt(n, spec)}"


_SPREAD_TEXT = {"ict": ("ICT", 1e-3, "ms", ".2f"), "fct_p50": ("FCT p50", 1e-3, "ms", ".2f"),
                "drops": ("drops", 1, "", ".0f"), "timed_out": ("TO flows", 1, "", ".0f")}


def note(row: Row) -> str:
    notes = row.fanin.notes + row.ns3.notes
    for gate, attr in SPREAD_METRICS:
        rng = spread(row.ns3_runs, attr) if gate in row.in_spread else None
        if rng is not None:
            name, scale, unit, spec = _SPREAD_TEXT[gate]
            lo, hi = (format(v * scale, spec) for v in rng)
            notes.append(f"ns-3 over {len(row.ns3_runs)} seeds: {name} {lo}-{hi}{' ' + unit if unit else ''}")
    return "; ".join(notes)


def to_records(rows: Iterable[Row]) -> list[dict[str, Any]]:
    """One flat dict per row: the case, then every fanin_* and ns3_* metric, then the verdict."""
    out = []
    for r in rows:
        rec: dict[str, Any] = asdict(r.case)
        for side, prefix in ((r.fanin, "fanin_"), (r.ns3, "ns3_")):
            for k, v in asdict(side).items():
                if k in ("notes", "offsets_ps"):
                    continue
                rec[prefix + k] = v
        rec["seeds"] = max(1, len(r.ns3_runs))
        for _, attr in SPREAD_METRICS:
            rng = spread(r.ns3_runs, attr) if len(r.ns3_runs) > 1 else None
            rec[f"ns3_{attr}_min"], rec[f"ns3_{attr}_max"] = rng if rng else (None, None)
        rec["speedup"] = r.speedup
        rec["failed"] = ",".join(r.failed)
        rec["verdict"] = r.verdict
        rec["note"] = note(r)
        out.append(rec)
    return out


GATES_TEXT = (
    "gates: ICT, FCT p50 and drops within 10 % of ns-3; timed-out (TO) flows within max(1, 10 %);"
    " steady-state queue min and max within 10 %. With several seeds: medians over the seeds, and an incast"
    " metric outside its gate but inside ns-3's own range over the seeds (+- 10 %) passes as 'in ns-3's spread'."
    " speed-up = ns-3 Simulator::Run / fanin run loop."
)


def tables(rows: Sequence[Row], ns3_dctcp: str = "floored") -> list[Any]:
    """The rows as rich Tables: the incast rows, then the steady-state rows (each if any)."""
    from rich.markup import escape
    from rich.table import Table

    inc = [r for r in rows if r.case.kind == "incast"]
    st = [r for r in rows if r.case.kind == "steady"]
    out = []
    legend = "cells: fanin / ns-3"
    speed = lambda r: "-" if r.speedup is None else f"{r.speedup:.0f}x"  # noqa: E731
    if inc:
        t = Table(title=f"TCP incast, 10 Gb/s star ({legend}; ns-3 DCTCP: {ns3_dctcp})", title_justify="left")
        cols = ("cc", "d us", "N", "buf", "size", "ICT ms", "FCT p50 ms", "FCT p99 ms", "drops", "retx KB")
        for col in (*cols, "TO flows", "recov", "speed-up", "verdict", "note"):
            t.add_column(col, justify="left" if col in ("cc", "verdict", "note", "size") else "right")
        ms = lambda v: None if v is None else v / 1e3  # noqa: E731
        for r in inc:
            c, f, s = r.case, r.fanin, r.ns3
            t.add_row(
                c.cc,
                str(c.delay_us),
                str(c.n),
                str(c.buffer_pkts),
                size_label(c.size_bytes),
                pair(ms(f.ict_us), ms(s.ict_us), ".3f"),
                pair(ms(f.fct_p50_us), ms(s.fct_p50_us), ".3f"),
                pair(ms(f.fct_p99_us), ms(s.fct_p99_us), ".3f"),
                pair(f.drops, s.drops, "d"),
                pair(f.retx_bytes / 1e3, s.retx_bytes / 1e3, ".0f"),
                pair(f.timed_out_flows, s.timed_out_flows, "d"),
                pair(f.recoveries, s.recoveries, "d"),
                speed(r),
                escape(r.verdict),
                escape(note(r)),
            )
        out.append(t)
    if st:
        t = Table(
            title=f"DCTCP long flows, K = {K_PKTS}, buffer {STEADY_BUFFER} pkts, bottleneck queue disc over"
            f" {STEADY_WARMUP_PS // 10**9}-{STEADY_DURATION_PS // 10**9} ms ({legend})",
            title_justify="left",
        )
        cols = ("flows", "d us", "queue min", "queue max", "queue mean", "period us", "marks", "drops", "speed-up")
        for col in (*cols, "verdict", "note"):
            t.add_column(col, justify="left" if col in ("verdict", "note") else "right")
        for r in st:
            c, f, s = r.case, r.fanin, r.ns3
            t.add_row(
                str(c.n),
                str(c.delay_us),
                pair(f.queue_min, s.queue_min, ".0f"),
                pair(f.queue_max, s.queue_max, ".0f"),
                pair(f.queue_mean, s.queue_mean, ".1f"),
                pair(f.queue_period_us, s.queue_period_us, ".0f"),
                pair(f.marks, s.marks, "d"),
                pair(f.drops, s.drops, "d"),
                speed(r),
                escape(r.verdict),
                escape(note(r)),
            )
        out.append(t)
    return out


def write_table(rows: Sequence[Row], path: str | Path) -> Path:
    """Writes the rows as CSV (``.csv``) or Parquet (``.parquet``), atomically."""
    import os

    import pandas as pd

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".csv", ".parquet"):
        raise GridError("-o", f"`{p.name}`: unknown file type (allowed: .csv, .parquet)")
    df = pd.DataFrame(to_records(rows))
    tmp = p.with_name(f".{p.name}.tmp-{os.getpid()}")
    if suffix == ".csv":
        df.to_csv(tmp, index=False)
    else:
        df.to_parquet(tmp, index=False)
    os.replace(tmp, p)
    return p
