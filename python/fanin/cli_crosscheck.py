"""`fanin crosscheck`: fanin beside ns-3 (optional: pip install fanin[ns3]).

`imc24`: the IMC '24 study; `tcp`: a grid of TCP incasts and DCTCP long flows with a
verdict per row (fanin.crosscheck.ns3_tcp).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.table import Table

from fanin.cli_common import console, err, fail, out, user_errors

if TYPE_CHECKING:
    from fanin.crosscheck.ns3_tcp_grid import Row

crosscheck_app = typer.Typer(no_args_is_help=True, help="Compare fanin with another simulator (optional extras).")


@crosscheck_app.command("imc24")
def imc24(
    n: Annotated[str, typer.Option("--n", help="comma-separated flow counts")] = "100,500,1000",
    modes: Annotated[str, typer.Option(help="comma-separated: fidelity, paper")] = "fidelity,paper",
    duration_ms: Annotated[float, typer.Option("--duration-ms", help="burst length D")] = 15.0,
    bursts: Annotated[int, typer.Option(help="bursts per run (the first is not measured)")] = 11,
    seed: int = 1,
) -> None:
    """The IMC '24 DCTCP incast in fanin and ns-3: BCT, mean queue, drops, run-loop speed."""
    with user_errors():
        try:
            ns_list = tuple(int(x) for x in n.split(","))
        except ValueError:
            fail(f"--n: expected comma-separated integers, got {n!r}")
        mode_list = tuple(m.strip() for m in modes.split(","))
        bad = [m for m in mode_list if m not in ("fidelity", "paper")]
        if bad or bursts < 2 or any(x < 1 for x in ns_list):
            fail("--modes: allowed fidelity, paper; --bursts >= 2; --n >= 1")
        if importlib.util.find_spec("ns") is None:
            fail("ns-3's Python bindings are not installed (pip install 'fanin[ns3]')")
        from fanin.crosscheck.ns3_imc24 import crosscheck

        cases, setup_s = crosscheck(ns_list, mode_list, duration_ms, bursts, seed)
    t = Table(title=f"IMC '24 incast, D = {duration_ms:g} ms, bursts 2-{bursts} (fanin / ns-3)")
    for col in ("mode", "N", "BCT ms", "mean queue pkts", "drops/burst", "run s", "speed-up"):
        t.add_column(col, justify="right")
    for c in cases:
        f, s = c.fanin, c.ns3
        t.add_row(
            c.mode,
            str(c.n),
            f"{f.bct_ms:.3f} / {s.bct_ms:.3f}",
            f"{f.mean_queue_pkts:.1f} / {s.mean_queue_pkts:.1f}",
            f"{f.drops_per_burst:.1f} / {s.drops_per_burst:.1f}",
            f"{f.run_s:.2f} / {s.run_s:.1f}",
            f"{s.run_s / f.run_s:.0f}x",
        )
    out.print(t)
    out.print(f"ns-3 import and C++ build: {setup_s:.1f} s (not counted)")


@crosscheck_app.command("tcp")
def tcp(
    cc: Annotated[str | None, typer.Option("--cc", help="comma-separated: newreno, dctcp \\[all]")] = None,
    n: Annotated[str | None, typer.Option("--n", help="incast senders, comma-separated [8,32,64,128]")] = None,
    buffer: Annotated[str | None, typer.Option("--buffer", help="drop-tail buffer in packets [50,200,400]")] = None,
    size: Annotated[str | None, typer.Option("--size", help="bytes per sender [64KiB,1MiB]")] = None,
    delay: Annotated[str | None, typer.Option("--delay", help="one-way delay per link in us [2,10,25]")] = None,
    flows: Annotated[str | None, typer.Option("--flows", help="long flows of the steady-state rows [2,10,40]")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="comma-separated: incast, steady \\[both]")] = None,
    quick: Annotated[bool, typer.Option("--quick", help="a small subset (options given still apply)")] = False,
    ns3_dctcp: Annotated[
        str, typer.Option("--ns3-dctcp", help="ns-3's DCTCP: floored (1-MSS floor) or mainline")
    ] = "floored",
    jobs: Annotated[int, typer.Option("-j", "--jobs", help="parallel processes (each imports ns-3 once)")] = 1,
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="also write the rows to a .csv or .parquet file")
    ] = None,
    seed: int = 1,
    jitter_ns: Annotated[
        int,
        typer.Option(
            "--jitter-ns",
            help="incast senders start up to this many ns apart, the same offsets in both (0: all at t = 0,"
            " where the order of same-picosecond events decides ties)",
        ),
    ] = 1,
    seeds: Annotated[
        int,
        typer.Option(
            "--seeds",
            help="run each incast row with this many seeds (start offsets); gates on the medians, and a"
            " metric inside ns-3's own range over the seeds passes as such",
        ),
    ] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no line per finished row")] = False,
) -> None:
    """A grid of TCP incasts (NewReno, DCTCP) and DCTCP long flows in fanin and ns-3, with gates per row."""
    import time

    with user_errors():
        from fanin.crosscheck import ns3_tcp as x

        try:
            sel = x.selection(cc=cc, n=n, buffer=buffer, size=size, delay=delay, flows=flows, kind=kind, quick=quick)
            if ns3_dctcp not in x.NS3_DCTCP:
                raise x.GridError("--ns3-dctcp", f"unknown value `{ns3_dctcp}` (allowed: {', '.join(x.NS3_DCTCP)})")
            if jobs < 1:
                raise x.GridError("-j", f"`{jobs}` is not a number of processes (allowed: 1 or more)")
            if not 0 <= jitter_ns <= 1_000_000:
                raise x.GridError("--jitter-ns", f"`{jitter_ns}` is out of range (allowed: 0 to 1000000)")
            if not 1 <= seeds <= 100:
                raise x.GridError("--seeds", f"`{seeds}` is out of range (allowed: 1 to 100)")
            if seeds > 1 and jitter_ns == 0:
                raise x.GridError("--seeds", "more than one seed needs --jitter-ns > 0 (with 0 every seed runs the same)")
            if output is not None:
                if output.suffix.lower() not in (".csv", ".parquet"):
                    raise x.GridError("-o", f"`{output.name}`: unknown file type (allowed: .csv, .parquet)")
                if not output.parent.is_dir():
                    raise x.GridError("-o", f"`{output.parent}` is not a directory")
        except x.GridError as e:
            fail(str(e))
        cases = x.grid(sel)
        if not cases:
            fail("the selection is empty (steady-state rows need --cc to include dctcp and --kind to include steady)")
        if importlib.util.find_spec("ns") is None:
            fail("ns-3's Python bindings are not installed (pip install 'fanin[ns3]')")

        total = len(cases)
        finished = [0]

        def on_row(i: int, row: Row) -> None:
            finished[0] += 1
            if not quiet:
                err.print(
                    f"[{finished[0]}/{total}] {escape(row.case.label)}: {escape(row.verdict)}"
                    f" (fanin {row.fanin.run_s:.2f} s, ns-3 {row.ns3.run_s:.1f} s)",
                    highlight=False,
                    soft_wrap=True,
                )

        t0 = time.perf_counter()
        rows, setup_s = x.run_grid(
            cases, jobs=jobs, ns3_dctcp=ns3_dctcp, seed=seed, jitter_ns=jitter_ns, seeds=seeds, on_row=on_row
        )
        wall = time.perf_counter() - t0
        if output is not None:
            x.write_table(rows, output)
    print_tcp_tables(rows, ns3_dctcp)
    failed = sum(1 for r in rows if r.verdict.startswith("FAIL"))
    na = sum(1 for r in rows if r.verdict.startswith("n/a"))
    spread = sum(1 for r in rows if r.in_spread and not r.failed)
    out.print(
        f"{len(rows)} rows: {len(rows) - failed - na} ok ({spread} of them within ns-3's own spread over"
        f" {seeds} seeds), {failed} FAIL, {na} n/a; total {wall:.0f} s with -j {jobs}"
        f" (ns-3 import and C++ build {setup_s:.1f} s per process, not counted in speed-ups)"
        + (f"; rows written to {escape(str(output))}" if output is not None else ""),
        soft_wrap=True,
    )


def print_tcp_tables(rows: Sequence[Row], ns3_dctcp: str = "floored") -> None:
    from fanin.crosscheck import ns3_tcp as x

    # Wide enough for every column whatever the terminal (or file) is: a squeezed table
    # truncates the "fanin / ns-3" cells.
    wide = console(width=max(out.width, 250))
    for t in x.tables(rows, ns3_dctcp):
        wide.print(t)
    wide.print(x.GATES_TEXT)
