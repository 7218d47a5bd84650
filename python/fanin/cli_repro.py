"""`fanin repro` and `fanin sweep`: the catalog and sweeps from the command line."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from fanin.cli import DataDirOption, SetOption, data_dirs, fail, out, user_errors


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
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", help="parallel processes (default: all CPUs)")] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="report directory")] = None,
    cache: Annotated[Path | None, typer.Option(help="run cache (default: OUTPUT/cache)")] = None,
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
        if jobs is not None and jobs < 1:
            fail("--jobs: must be >= 1")
        from fanin.catalog.repro import repro as run_repro
        from fanin.report import counts

        r = run_repro(
            paper,
            figures=figure,
            quick=quick,
            jobs=jobs,
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
    output: Annotated[Path, typer.Option("-o", "--output", help="Parquet file: one row per run")],
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="parallel processes")] = 1,
    cache: Annotated[Path | None, typer.Option(help="run cache (default: out/cache)")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar")] = False,
    data_dir: DataDirOption = None,
    set_: SetOption = None,
) -> None:
    """Run a sweep file; write one row per run (labels + summary scalars) as Parquet."""
    from fanin.overrides import parse_assignments
    from fanin.sweep import Sweep

    with catalog_errors():
        if jobs < 1:
            fail("--jobs: must be >= 1")
        overrides = parse_assignments(set_ or [])
        sw = Sweep.load(file, data_dirs=data_dirs(data_dir))
        if overrides:
            sw.override(overrides)
        df = sw.run(jobs=jobs, cache=cache, progress=not quiet)
        output.parent.mkdir(parents=True, exist_ok=True)
        df.drop(columns=["run_dir"]).to_parquet(output, index=False)
    s = df.attrs["sweep"]
    out.print(f"{s['runs']} runs ({s['executed']} executed, {s['cached']} cached): {escape(str(output))}")


def register(app: typer.Typer) -> None:
    app.command("repro")(repro)
    app.command("sweep")(sweep)
