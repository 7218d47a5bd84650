"""Run one scenario."""

from __future__ import annotations

import hashlib
import os
import time
import warnings
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pyarrow as pa

from fanin import _native
from fanin.errors import ScenarioError
from fanin.limits import memory_limit as memory_limit_bytes
from fanin.overrides import canonical, overridden
from fanin.results import FlowStream, Results, is_timing, native_table
from fanin.scenario import DataDirs, Scenario
from fanin.scenario_files import engine_errors

ProgressFn = Callable[[int, "int | None"], None]
"""Called between chunks of the run with ``(now_ps, horizon_ps or None)``."""


def scenario_hash(toml_text: str, seed: int) -> str:
    """sha256 of the scenario text followed by ``"\\nseed = <seed>\\n"``: what determines a result."""
    return hashlib.sha256(f"{toml_text}\nseed = {seed}\n".encode()).hexdigest()


def streams_flows(scenario: Scenario) -> bool:
    """Whether a run of ``scenario`` hands its flow rows out as it goes."""
    return scenario.get("record.flows", None) == "stream"


def _as_scenario(
    scenario_or_path: Scenario | str | os.PathLike[str], data_dirs: DataDirs, overrides: Mapping[str, Any]
) -> Scenario:
    if not isinstance(scenario_or_path, Scenario):
        return Scenario.load(scenario_or_path, data_dirs=data_dirs, set=overrides)
    scenario = overridden(scenario_or_path, overrides)
    extra = list(data_dirs)
    if not extra:
        return scenario
    scenario = scenario.copy()
    scenario.data_dirs += [Path(d).resolve() for d in extra]
    return scenario


class _RichProgress:
    """A progress bar over simulated time (rich, on stderr)."""

    def __init__(self, label: str) -> None:
        from rich.console import Console
        from rich.markup import escape
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            TextColumn("{task.fields[sim]}"),
            TimeElapsedColumn(),
            console=Console(stderr=True, emoji=False),  # a name such as `s:x:0` is text, not an emoji
            transient=True,
        )
        self._task = self._progress.add_task(escape(label), total=None, sim="")

    def __enter__(self) -> _RichProgress:
        self._progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, now_ps: int, horizon_ps: int | None) -> None:
        sim = f"{now_ps / 1e9:,.3f} ms simulated"
        if horizon_ps:
            sim += f" of {horizon_ps / 1e9:,.3f} ms"
        self._progress.update(self._task, completed=now_ps, total=horizon_ps, sim=sim)


def thread_count(threads: object) -> int:
    """``threads`` as given to :func:`run`: a whole number of at least 1, else a
    :class:`ScenarioError` naming it."""
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ScenarioError("threads", f"must be a whole number of at least 1, got {threads!r}", ["1", "2", "..."])
    return threads


def run(
    scenario_or_path: Scenario | str | os.PathLike[str],
    *,
    progress: bool | ProgressFn = False,
    seed: int | None = None,
    progress_every_ps: int = 0,
    data_dirs: DataDirs = (),
    memory_limit: int | str | None = None,
    set: Mapping[str, Any] | None = None,
    threads: int = 1,
    flows_to: str | os.PathLike[str] | None = None,
) -> Results:
    """Runs a scenario (a :class:`Scenario` or a path to a TOML file) and returns its results.

    ``progress=True`` shows a progress bar over simulated time; a callable gets
    ``(now_ps, horizon_ps)`` between chunks of ``progress_every_ps`` simulated picoseconds
    (0: about 200 chunks, at most 1 ms each). ``seed`` overrides the scenario's seed, and
    ``set`` any of its fields: ``{"transport.cc": "newreno", "workload[0].degree": 32}``
    (recorded in the manifest as ``overrides``; the scenario is not changed).
    ``memory_limit`` (bytes or a size such as ``"16GB"``; default: see :mod:`fanin.limits`)
    refuses, before anything is built, a scenario estimated to need more.
    ``threads``: with 2 or more, a ``multi_dc`` run is cut into one partition per
    datacenter, which run in parallel on up to this many threads; its tables are the same
    for every number of threads, and as one thread's (docs/performance.md, "Two threads,
    one run"). A scenario with ``[partition]`` is cut into parts of whole pods as it asks,
    on one thread as on many, with tables of its own (docs/scenario.md). A run that cannot
    be cut runs on one thread and warns when more were asked.
    A scenario with ``[record] flows = "stream"`` frees each flow once it has finished and
    hands its row out as the run goes: with ``flows_to`` (a ``.parquet`` path; for a scenario
    that does not stream, a warning and nothing written) the rows are appended there and ``results.flows`` reads the file; without, they are
    kept as Arrow (about 100 bytes a flow instead of the flow's state). Streamed rows come in the order
    flows finished, then the flows left at the end: sort by ``flow_id`` for id order.
    The GIL is released while the engine runs; Ctrl-C interrupts between chunks.
    Files the scenario names are read from its own folder, ``data_dirs`` and fanin's data only.
    Raises :class:`fanin.ScenarioError` for a scenario that cannot run.
    """
    threads = thread_count(threads)
    overrides = canonical(set or {})
    scenario = _as_scenario(scenario_or_path, data_dirs, overrides)
    limit = memory_limit_bytes(memory_limit)
    if seed is not None:
        scenario = scenario.copy().set("seed", seed)
    text = scenario.to_toml()
    if "name" not in scenario or "seed" not in scenario:
        scenario.validate(memory_limit=limit)  # the engine's defaults, under this run's limit
    name, actual_seed = scenario.name, scenario.seed
    engine_text, files = scenario.engine_input()
    if flows_to is not None and not streams_flows(scenario):
        warnings.warn(
            f"flows_to={os.fspath(flows_to)!r}: this scenario does not stream its flows "
            '([record] flows = "stream"), so nothing is written there; the flows table is in the results',
            stacklevel=2,
        )

    bar = _RichProgress(name) if progress is True else None
    callback: ProgressFn | None = bar if bar is not None else (progress if callable(progress) else None)
    with bar if bar is not None else nullcontext():
        t0 = time.perf_counter()
        stream = FlowStream(flows_to)
        with engine_errors(files):  # the resolved files; the engine too reads only inside the roots
            tables, summary = _native.run(engine_text, scenario.search_dirs(), callback, progress_every_ps, limit, threads, stream)
        wall = time.perf_counter() - t0
    streamed: dict[str, Path] = {}
    if stream.chunks:  # the scenario streamed its flows table
        whole = stream.close()
        if whole is None:
            streamed["flows"] = Path(flows_to)  # type: ignore[arg-type]
        else:
            tables["flows"] = whole

    summary = dict(summary)
    summary.setdefault("wall_s", wall)
    manifest: dict[str, Any] = {
        "name": name,
        "seed": actual_seed,
        "fanin_version": _native.version(),
        "scenario": text,
        "scenario_sha256": scenario_hash(text, actual_seed),
        "summary": {k: v for k, v in sorted(summary.items()) if not is_timing(k)},
    }
    if overrides:  # the scenario text has them applied; this says which fields were not the file's
        manifest["overrides"] = overrides
    arrow = {k: v if isinstance(v, pa.Table) else native_table(v) for k, v in tables.items() if isinstance(v, pa.Table) or v}
    return Results(arrow, summary, manifest, files=streamed)
