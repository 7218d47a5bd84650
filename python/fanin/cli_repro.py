"""`fanin repro` and `fanin sweep`: the catalog and sweeps from the command line.

Both take the same -j (default: one process per CPU) and --cache (default: the per-user run
cache, fanin.sweep.default_cache); -o names only what the command writes, never the cache.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from fanin.cli_common import DataDirOption, SetOption, data_dirs, fail, out, user_errors

JobsOption = Annotated[int | None, typer.Option("--jobs", "-j", help="parallel processes (default: one per CPU)")]
CacheOption = Annotated[
    Path | None, typer.Option(help="run cache (default: $XDG_CACHE_HOME/fanin, else ~/.cache/fanin)")
]


def _workers(jobs: int | None) -> int:
    from fanin._proc import default_workers

    if jobs is not None and jobs < 1:
        fail("--jobs: must be >= 1")
    return jobs or default_workers()


@contextmanager
def catalog_errors() -> Iterator[None]:
    """Bad catalog or sweep input: one line, exit 2 (as a bad scenario)."""
    from fanin.catalog import CatalogError, ClaimsError
    from fanin.sweep import SweepError

    with user_errors():
        try:
            yield
        except (CatalogError, ClaimsError, SweepError) as e:
            fail(str(e))


def _list(catalog: Path | None) -> None:
    from fanin.catalog import find_catalog, load_paper, paper_names

    root = find_catalog(catalog)
    rows = []
    for paper in paper_names(root):
        full, quick = load_paper(paper, root), load_paper(paper, root, quick=True)
        for i, (f, q) in enumerate(zip(full.figures, quick.figures, strict=True)):
            runs = [str(len(x.sweep.points())) if x.sweep is not None else "-" for x in (f, q)]
            rows.append((paper if i == 0 else "", f.name, *runs, str(len(f.claims)), f.title))
    header = ("paper", "figure", "runs", "quick runs", "claims", "title")
    widths = [max(len(header[j]), *(len(r[j]) for r in rows)) for j in range(5)]
    # One line per figure at any width: only the title, last, gives way (its README has it whole).
    room = max(10, out.width - sum(widths) - 2 * len(widths))
    for r in [header, *rows]:
        cells = [c.rjust(w) if 2 <= j <= 4 else c.ljust(w) for j, (c, w) in enumerate(zip(r, widths, strict=False))]
        title = r[5] if len(r[5]) <= room else r[5][: room - 1] + "…"
        out.print(escape("  ".join([*cells, title])), soft_wrap=True)


def repro(
    paper: Annotated[str | None, typer.Argument(help="paper to reproduce (see --list)")] = None,
    figure: Annotated[list[str] | None, typer.Option("--figure", "-f", help="only this figure (repeatable)")] = None,
    quick: Annotated[bool, typer.Option(help="reduced runs, for smoke checks")] = False,
    jobs: JobsOption = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="report directory")] = None,
    cache: CacheOption = None,
    catalog: Annotated[Path | None, typer.Option(help="experiments tree (default: the repository's)")] = None,
    list_: Annotated[bool, typer.Option("--list", help="list papers and figures")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
) -> None:
    """Regenerate a paper's figures and its paper-vs-fanin claims table."""
    with catalog_errors():
        if list_:
            _list(catalog)
            return
        if paper is None:
            fail("give a paper (fanin repro --list shows them)")
        workers = _workers(jobs)
        from fanin.catalog.repro import repro as run_repro
        from fanin.report import counts

        r = run_repro(
            paper,
            figures=figure,
            quick=quick,
            jobs=workers,
            out=output,
            cache=cache,
            catalog=catalog,
            progress=not quiet,
        )
    c = counts([x.to_dict() for x in r.ran])
    out.print(
        f"{escape(paper)}: {len(r.ran)} claims in {len(r.paper.figures)} figures: {c['pass']} pass, "
        f"{c['fail']} fail, {c['error']} error; {r.runs} runs ({r.executed} executed), {r.wall_s:.1f} s, "
        f"peak memory {r.peak_rss_bytes / 2**20:,.0f} MiB"
    )
    for x in r.ran:
        if x.status != "pass":
            kind = "gating" if x.gating else "report-only"
            out.print(f"  {x.status}: {escape(x.figure)}/{escape(x.id)} ({kind})")
    for name, error in r.plot_errors.items():
        out.print(f"  plot failed: {escape(name)}: {escape(error)}")
    out.print(f"report: {escape(str(r.out / 'report.html'))}")


def sweep(
    file: Annotated[Path, typer.Argument(help="sweep TOML file (docs/catalog.md)")],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Parquet file of the table (a dict derive: FILE-<name>.parquet each)")
    ],
    derive: Annotated[
        str | None,
        typer.Option(help="MODULE:FUNCTION or FILE.py:FUNCTION: rows of each run, derive(results, point) -> DataFrame"),
    ] = None,
    jobs: JobsOption = None,
    cache: CacheOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    data_dir: DataDirOption = None,
    set_: SetOption = None,
) -> None:
    """Run a sweep file; write one row per run (labels, summary scalars, run_dir) as Parquet,
    or with --derive the rows derive made (labels, its columns, run_dir)."""
    from fanin.derive_ref import DeriveReferenceError, load_derive
    from fanin.overrides import parse_assignments
    from fanin.sweep import Sweep

    with catalog_errors():
        workers = _workers(jobs)
        overrides = parse_assignments(set_ or [])
        sw = Sweep.load(file, data_dirs=data_dirs(data_dir))
        if overrides:
            sw.override(overrides)
        try:
            fn = load_derive(derive) if derive is not None else None
        except DeriveReferenceError as e:
            fail(f"--derive {derive}: {e}")
        result = sw.run(derive=fn, jobs=workers, cache=cache, progress=not quiet, run_dir=True)
        tables = result if isinstance(result, dict) else {"": result}
        written = [_write_table(frame, output, name) for name, frame in tables.items()]
    stats = next(iter(tables.values())).attrs["sweep"]
    files = ", ".join(escape(str(w)) for w in written)
    out.print(f"{stats['runs']} runs ({stats['executed']} executed, {stats['cached']} cached): {files}")


def _write_table(frame: Any, output: Path, name: str) -> Path:
    """One table of a sweep: ``output``, or ``<stem>-<name><suffix>`` beside it for a dict derive's."""
    from fanin._fs import atomic_write_bytes

    path = output.with_name(f"{output.stem}-{name}{output.suffix}") if name else output
    buf = io.BytesIO()
    frame.to_parquet(buf, index=False)
    atomic_write_bytes(path, buf.getvalue())
    return path


def register(app: typer.Typer) -> None:
    app.command("repro")(repro)
    app.command("sweep")(sweep)
