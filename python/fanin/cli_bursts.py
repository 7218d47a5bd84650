"""`fanin bursts`: measure bursts in host counters (fanin results, Millisampler files, captures)."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return "-" if v != v else f"{v:,.3g}"
    return str(v)


_ROWS = [
    ("hosts", "hosts", 1),
    ("snapshots", "snapshots", 1),
    ("line rate", "line_rate", 1),
    ("bursts", "bursts", 1),
    ("bursts/s per host, median", "bursts_per_s_p50", 1),
    ("duration median / p99 (ms)", "duration_ms", 1),
    ("bursts of 1-2 ms (%)", "short_share", 100),
    ("active flows median / p99", "flows", 1),
    ("incasts, > 25 flows (%)", "incast_share", 100),
    ("ECN-marked bytes, p95 burst (%)", "ecn_pct_p95", 1),
    ("bursts with any CE (%)", "marked_share", 100),
    ("bursts with retransmissions (%)", "rxmit_share", 100),
    ("retransmissions, max (% of line rate)", "rxmit_pct_max", 1),
    ("utilisation, mean (%)", "utilisation_mean", 100),
    ("ingress bytes in bursts (%)", "burst_bytes_share", 100),
]


def summary_table(summary: object) -> Table:
    import pandas as pd

    assert isinstance(summary, pd.DataFrame)
    t = Table(box=None, padding=(0, 2))
    t.add_column("")
    for d in summary["dataset"]:
        t.add_column(escape(str(d)), justify="right")
    for label, key, scale in _ROWS:
        cells = []
        for _, row in summary.iterrows():
            if key in ("duration_ms", "flows"):
                cells.append(f"{_fmt(row[key + '_p50'])} / {_fmt(row[key + '_p99'])}")
            else:
                v = row[key]
                cells.append(_fmt(v * scale if isinstance(v, float) else v))
        t.add_row(label, *cells)
    return t


@contextmanager
def input_warnings() -> Iterator[list[str]]:
    """Collects the lines of every BurstInputWarning raised inside; other warnings show as usual."""
    from fanin.bursts import BurstInputWarning

    lines: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BurstInputWarning)
        yield lines
    for w in caught:
        if issubclass(w.category, BurstInputWarning):
            lines.append(str(w.message))
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def bursts_cmd(
    paths: Annotated[list[Path], typer.Argument(help="fanin result dirs, Millisampler folders/files, pcap(ng) files")],
    output: Annotated[Path, typer.Option("-o", "--output", help="directory for the tables (Parquet) and figures")],
    line_rate: Annotated[
        str | None,
        typer.Option("--line-rate", help="NIC rate of every host, e.g. 25G; default: recorded (fanin) or inferred"),
    ] = None,
    bin: Annotated[str | None, typer.Option("--bin", help="bin of captures (default 1ms); re-bins counters")] = None,
    flows: Annotated[str, typer.Option(help="active flows of a burst from per-bin connections: max | mean")] = "max",
    no_plots: Annotated[bool, typer.Option("--no-plots", help="tables only")] = False,
) -> None:
    """Find bursts (bins above 50% of line rate at the receiver) and write per-burst, per-host
    and per-rack tables and figures."""
    import fanin.bursts as fb
    from fanin._fs import check_replaceable
    from fanin.bursts.output import write
    from fanin.cli_common import err, fail, out, user_errors

    with user_errors():
        try:
            check_replaceable(output)
            with input_warnings() as notes:  # printed only once the study is written
                counters = fb.load(*paths, bin=bin)
            found = fb.find(counters, line_rate, flows=flows)
            write(found, counters, output, inputs=[str(p) for p in paths], figures=not no_plots, warnings=notes)
        except fb.BurstInputError as e:
            fail(str(e))
    for line in notes:
        err.print(f"[yellow]warning:[/] {escape(line)}", soft_wrap=True)
    out.print(summary_table(found.summary()))
    if len(found.sensitivity):
        s = found.sensitivity
        out.print(
            "line rate inferred: bursts under the neighbouring candidates (shift -1 / 0 / +1): "
            + "; ".join(
                f"{escape(str(d))}: "
                + ", ".join(
                    f"{int(r.shift):+d}: {r.bursts}"
                    + (f" ({r.hosts_left_out} hosts left out)" if r.hosts_left_out else "")
                    for r in g.itertuples()
                )
                for d, g in s.groupby("dataset", sort=False)
            )
        )
    out.print(f"tables and figures: {escape(str(output))}")
