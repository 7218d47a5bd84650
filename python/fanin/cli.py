"""`fanin`: a thin command-line shell over the Python API."""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from fanin import __version__, cli_repro
from fanin._fs import check_replaceable
from fanin.cli_bursts import bursts_cmd
from fanin.cli_common import DataDirOption, SetOption, data_dirs, err, fail, out, user_errors
from fanin.cli_crosscheck import crosscheck_app
from fanin.cli_plan import plan_app
from fanin.cli_testbed import sample_cmd, testbed_app

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="fanin: a fast, deterministic packet-level incast simulator.",
)


def _fmt(value: float | None, spec: str = ",.0f", unit: str = "") -> str:
    return "-" if value is None else f"{value:{spec}}{unit}"


def summary_table(h: dict[str, float | None]) -> Table:
    t = Table(show_header=False, box=None, padding=(0, 2))
    t.add_column(style="bold")
    t.add_column(justify="right")
    windowed = h["measured_flows"] is not None
    which = "measured, completed" if windowed else "completed"
    rows: list[tuple[str, str]] = [
        ("flows", f"{_fmt(h['flows_completed'])} of {_fmt(h['flows'])} completed"),
        (f"FCT mean / p99 ({which})", f"{_fmt(h['fct_mean_ms'], '.3f')} / {_fmt(h['fct_p99_ms'], '.3f')} ms"),
        (f"slowdown mean / p99 ({which})", f"{_fmt(h['slowdown_mean'], '.2f')} / {_fmt(h['slowdown_p99'], '.2f')}"),
    ]
    if windowed:
        measured = f"{_fmt(h['measured_flows_completed'])} of {_fmt(h['measured_flows'])} completed"
        rows.insert(1, ("measured flows", measured))
    if h["incasts"]:
        rows += [
            ("incasts", f"{_fmt(h['incasts_completed'])} of {_fmt(h['incasts'])} completed"),
            (
                f"ICT mean / max ({which})",
                f"{_fmt(h['ict_mean_ms'], '.3f')} / {_fmt(h['ict_max_ms'], '.3f')} ms (ideal {_fmt(h['ideal_ict_mean_ms'], '.3f')} ms)",
            ),
        ]
    rows += [
        ("drops / ECN marks", f"{_fmt(h['drops'])} / {_fmt(h['marks'])}"),
        ("events", _fmt(h["events"])),
        ("packet-hops", _fmt(h["packet_hops"])),
        ("wall time", _fmt(h["wall_s"], ".3f", " s")),
        ("speed", _fmt(h["mpkt_hops_per_s"], ".2f", " M packet-hops/s")),
    ]
    for k, v in rows:
        t.add_row(k, v)
    return t


@app.command("run")
def run_cmd(
    scenario: Annotated[Path, typer.Argument(help="scenario TOML file")],
    output: Annotated[Path, typer.Option("-o", "--output", help="result directory (Parquet + manifest.json)")],
    seed: Annotated[int | None, typer.Option(help="override the scenario's seed")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no progress bar, no summary")] = False,
    plot: Annotated[Path | None, typer.Option(help="also write a figure to this PNG: slowdown by flow size for a mix of flows, else the queue and per-flow FCT")] = None,
    data_dir: DataDirOption = None,
    set_: SetOption = None,
    threads: Annotated[int, typer.Option(help="threads for a multi_dc run, cut per datacenter, or a run cut by \\[partition] (the same tables for every number)")] = 1,
) -> None:
    """Run a scenario and write its results to a directory."""
    from fanin.overrides import parse_assignments
    from fanin.results import headline, unfinished
    from fanin.run import run, streams_flows
    from fanin.scenario import Scenario

    with user_errors():
        overrides = parse_assignments(set_ or [])
        check_replaceable(output)  # before a long run, not after it
        # A streaming scenario's flows go to disk as the run goes, beside the result.
        streams = streams_flows(Scenario.load(scenario, data_dirs=data_dirs(data_dir), set=overrides))
        streamed = output.parent / f".{output.name}.{os.getpid()}.flows.parquet"
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", UserWarning)
                results = run(scenario, progress=not quiet, seed=seed, data_dirs=data_dirs(data_dir), set=overrides, threads=threads, flows_to=streamed if streams else None)
            for w in caught:
                err.print(f"[yellow]warning:[/] {escape(str(w.message))}", soft_wrap=True)
            results.to_parquet(output)
        finally:
            streamed.unlink(missing_ok=True)
        if plot is not None:
            from fanin.plot import standard_figure

            standard_figure(results, plot)
    if not quiet:
        h = headline(results)
        out.print(summary_table(h))
        if (line := unfinished(h)) is not None:
            err.print(f"[yellow]warning:[/] {escape(line)}", soft_wrap=True)
        out.print(f"results: {escape(str(output))}" + (f", figure: {escape(str(plot))}" if plot else ""))


@app.command()
def validate(
    scenario: Annotated[Path, typer.Argument(help="scenario TOML file")],
    data_dir: DataDirOption = None,
    set_: SetOption = None,
) -> None:
    """Check a scenario without running it."""
    from fanin.overrides import parse_assignments
    from fanin.scenario import Scenario

    with user_errors():
        info = Scenario.load(scenario, data_dirs=data_dirs(data_dir), set=parse_assignments(set_ or [])).validate()
    out.print(f"ok: {escape(str(info['name']))}")


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario files, for editors (Taplo, Even Better TOML)."""
    import json

    from fanin.schema import scenario_schema

    # Plain stdout: rich would read the JSON's brackets as markup.
    sys.stdout.write(json.dumps(scenario_schema(), indent=2, ensure_ascii=False) + "\n")


@app.command()
def bench(
    compare: Annotated[str | None, typer.Option(help="also run scenario (a) in another simulator: ns3")] = None,
    only: Annotated[str | None, typer.Option(help="comma-separated subset of the scenarios: a,b,c,c2,d,d2,d16,e,e2,f,g,g2")] = None,
    repeat: Annotated[int, typer.Option(help="runs of each scenario; the table shows the median and the range")] = 3,
    json_history: Annotated[
        Path | None,
        typer.Option("--json", help="append this run's figures (build, date) to this JSON-lines file and compare with its last entry"),
    ] = None,
) -> None:
    """Time the fixed benchmark scenarios, each in a fresh process."""
    from fanin import bench as b

    with user_errors():
        b.main(only=only, compare=compare, repeat=repeat, history=json_history, console=out, fail=fail)


@app.command()
def version() -> None:
    """Print fanin's version."""
    out.print(f"fanin {__version__}")


def _print_version(given: bool) -> None:
    if given:
        version()
        raise typer.Exit()


@app.callback()
def _options(
    _version: Annotated[
        bool, typer.Option("--version", help="print fanin's version and exit", is_eager=True, callback=_print_version)
    ] = False,
) -> None:
    """Options that come before the command (the app's help text stays the Typer's)."""


def main(argv: list[str] | None = None) -> None:
    app(args=argv if argv is not None else sys.argv[1:], prog_name="fanin")


cli_repro.register(app)
app.add_typer(crosscheck_app, name="crosscheck")
app.command("bursts")(bursts_cmd)
app.add_typer(testbed_app, name="testbed")
app.command("sample")(sample_cmd)
app.add_typer(plan_app, name="plan")
