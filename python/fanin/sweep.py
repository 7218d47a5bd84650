"""Many runs of one scenario: axes, zipped axes, labelled variants and seeds, run in local
processes, each run cached so that an interrupted sweep resumes where it stopped.

>>> sw = Sweep(Scenario.load("scenarios/incast_dumbbell.toml"),          # doctest: +SKIP
...            axes={"degree": Axis(["topology.senders", "workload[0].degree"], [4, 8, 16])},
...            variants={"dctcp": {}, "newreno": {"transport.cc": "newreno"}}, seeds=3)
>>> df = sw.run(jobs=2, progress=True)                                   # doctest: +SKIP

``df`` has one row per run (the labels ``variant``, ``degree``, ``seed``, the run's summary
scalars and ``run_dir``), or, with ``derive=fn``, the rows ``fn(results, point)`` returned
for every run with the labels prepended. Runs are cached in :func:`default_cache` unless
``cache`` says otherwise. The format of a sweep file is in docs/catalog.md.
"""

from __future__ import annotations

import itertools
import os
import pickle
import tomllib
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cloudpickle
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from fanin._fs import MANIFEST, atomic_write_bytes, remove_stale_temps
from fanin._proc import deferred_interrupts, kill_pool, sigterm_interrupts, worker_pool
from fanin.derive_ref import Derive, DeriveRef, load_module  # noqa: F401 (load_module: re-exported)
from fanin.results import Results
from fanin.run_key import default_cache, run_key
from fanin.scenario import DataDirs, Scenario
from fanin.sweep_table import RUN_DIR, derived_table, summary_table

"""Reduces one run to a small table: ``derive(results, point) -> DataFrame``."""
ProgressFn = Callable[[int, int], None]
"""Called with ``(runs finished, runs in total)`` as runs finish (cached ones count at once)."""

_SEED = "seed"
_VARIANT = "variant"
_CHECK_S = 0.2  # how often a parallel sweep looks for Ctrl-C or SIGTERM while runs go on


class SweepError(ValueError):
    """A sweep that cannot run: ``where`` names the file or field, ``message`` what is wrong."""

    def __init__(self, where: str, message: str) -> None:
        self.where, self.message = where, message
        super().__init__(f"{where}: {message}" if where else message)


@dataclass(frozen=True)
class Axis:
    """One varying quantity: every path in ``paths`` takes each of ``values`` in turn."""

    paths: Sequence[str]
    values: Sequence[Any]

    def __post_init__(self) -> None:
        if isinstance(self.paths, str):
            object.__setattr__(self, "paths", [self.paths])


@dataclass(frozen=True)
class Variant:
    """A labelled group of overrides; ``scenario`` replaces the sweep's base scenario."""

    set: Mapping[str, Any] = field(default_factory=dict)
    scenario: Scenario | None = None


@dataclass
class Point:
    """One run of a sweep: its labels (the DataFrame columns) and the scenario it runs."""

    labels: dict[str, Any]
    scenario: Scenario
    seed: int


def _as_axis(name: str, spec: Axis | Sequence[Any]) -> Axis:
    return spec if isinstance(spec, Axis) else Axis([name], list(spec))


def _as_variant(spec: Variant | Mapping[str, Any]) -> Variant:
    return spec if isinstance(spec, Variant) else Variant(dict(spec))


class Sweep:
    """A base scenario, what varies, and the seeds.

    - ``axes``: column name -> :class:`Axis` or a list of values (then the name is the field
      path); every combination of the axes runs (a product, first axis outermost);
    - ``zip``: groups of axes that vary together (equal lengths), one column per axis;
    - ``variants``: label -> overrides (``{"transport.cc": "newreno"}``) or :class:`Variant`,
      in a ``variant`` column;
    - ``seeds``: a list, or n for seeds 1..n, innermost;
    - ``set``: overrides applied to every run first;
    - ``tables``: which result tables to keep in the cache (None: all; ``[]``: none, only
      what ``derive`` makes).
    """

    def __init__(
        self,
        base: Scenario,
        *,
        axes: Mapping[str, Axis | Sequence[Any]] | None = None,
        zip: Sequence[Mapping[str, Axis | Sequence[Any]]] = (),
        variants: Mapping[str, Variant | Mapping[str, Any]] | None = None,
        seeds: int | Sequence[int] = 1,
        set: Mapping[str, Any] | None = None,
        tables: Sequence[str] | None = None,
        name: str = "",
    ) -> None:
        self.base = base
        self.axes = {k: _as_axis(k, v) for k, v in (axes or {}).items()}
        self.zip = [{k: _as_axis(k, v) for k, v in group.items()} for group in zip]
        self.variants = {k: _as_variant(v) for k, v in (variants or {}).items()}
        self.seeds = list(range(1, seeds + 1)) if isinstance(seeds, int) else list(seeds)
        self.set = dict(set or {})
        self.tables = None if tables is None else sorted(tables)
        self.name = name or base.name
        self.origin = ""  # the file it was read from, for error messages
        self._check()

    def _check(self) -> None:
        if not self.seeds or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in self.seeds):
            raise SweepError("seeds", "need at least one seed; seeds are integers >= 0 (or n for 1..n)")
        columns = [*self.axes, *(k for g in self.zip for k in g)]
        if self.variants:
            columns.append(_VARIANT)
        dup = {c for c in columns if columns.count(c) > 1 or c == _SEED}
        if dup:
            raise SweepError("axes", f"column name used twice or reserved: {', '.join(sorted(dup))}")
        for name, axis in [*self.axes.items(), *((k, a) for g in self.zip for k, a in g.items())]:
            if not axis.values:
                raise SweepError(f"axes.{name}", "no values")
        for i, group in enumerate(self.zip):
            lengths = {len(a.values) for a in group.values()}
            if len(lengths) > 1:
                raise SweepError(f"zip[{i}]", f"axes that vary together need equal lengths, got {sorted(lengths)}")

    # ------------------------------------------------------------ points

    def points(self) -> list[Point]:
        """Every run, in order: variants, zip groups, axes, then seeds innermost."""
        variants: list[tuple[dict[str, Any], Variant]] = (
            [({_VARIANT: k}, v) for k, v in self.variants.items()] if self.variants else [({}, Variant())]
        )
        groups: list[list[dict[str, tuple[Axis, Any]]]] = [
            [{k: (a, a.values[i]) for k, a in g.items()} for i in range(len(next(iter(g.values())).values))]
            for g in self.zip
            if g
        ]
        groups += [[{k: (a, v)} for v in a.values] for k, a in self.axes.items()]
        points = []
        for (vlabel, variant), *choice in itertools.product(variants, *groups):
            base = (variant.scenario or self.base).copy()
            try:
                for path, value in {**self.set, **variant.set}.items():
                    base.set(path, value)
                labels = dict(vlabel)
                for picked in choice:
                    for col, (axis, value) in picked.items():
                        for path in axis.paths:
                            base.set(path, value)
                        labels[col] = value
            except KeyError as e:
                raise SweepError(self.origin, f"cannot set {e.args[0]}") from None
            for seed in self.seeds:
                points.append(Point({**labels, _SEED: seed}, base, seed))
        return points

    def override(self, overrides: Mapping[str, Any]) -> None:
        """Sets fields in every run over the sweep's own ``set`` (``fanin sweep --set``).

        A field an axis or a variant varies cannot be overridden: the sweep would replace
        the value in the runs that vary it.
        """
        from fanin import overrides as ov

        given = ov.canonical(overrides)
        varied = [(p, f"axes.{n}") for g in [self.axes, *self.zip] for n, a in g.items() for p in a.paths]
        varied += [(p, f"variants.{label}") for label, v in self.variants.items() for p in v.set]
        for path in given:
            for field_path, where in varied:
                if ov.overlaps(path, field_path):
                    raise SweepError(path, f"the sweep varies {field_path} ({where}); an override would be replaced")
        for s in [self.base, *(v.scenario for v in self.variants.values() if v.scenario is not None)]:
            ov.apply(s, given)  # a path that cannot be set fails here, saying why
        self.set = {**{k: v for k, v in self.set.items() if k not in given}, **given}
        ov.check(self.points()[0].scenario, given)

    def validate(self) -> None:
        """Asks the engine about every run's scenario; raises ScenarioError naming the run."""
        from fanin.errors import ScenarioError

        for p in self.points():
            try:
                p.scenario.validate()
            except ScenarioError as e:
                where = ", ".join(f"{k}={v}" for k, v in p.labels.items() if k != _SEED) or "base"
                of = f" of {self.origin}" if self.origin else ""
                raise ScenarioError(e.path, f"{e.message} (in the run {where}{of})", e.allowed) from None

    # ------------------------------------------------------------ files

    @classmethod
    def from_dict(
        cls, d: Mapping[str, Any], base_dir: str | os.PathLike[str], *, where: str = "sweep", data_dirs: DataDirs = ()
    ) -> Sweep:
        """A sweep from its TOML form (docs/catalog.md); scenario files resolve in ``base_dir``,
        the files they name in their own folder, ``data_dirs`` and fanin's data."""
        dirs = list(data_dirs)  # read once per scenario file
        allowed = {"scenario", "axes", "zip", "variants", "seeds", "set", "tables", "name"}
        unknown = set(d) - allowed
        if unknown:
            raise SweepError(where, f"unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(sorted(allowed))})")
        if "scenario" not in d:
            raise SweepError(where, "missing `scenario` (the base scenario's TOML file)")
        base = _load_scenario(Path(base_dir), d["scenario"], f"{where}.scenario", dirs)

        def axes(spec: Any, at: str) -> dict[str, Axis | list[Any]]:
            if not isinstance(spec, Mapping):
                raise SweepError(at, "expected a table of axes")
            out: dict[str, Axis | list[Any]] = {}
            for name, v in spec.items():
                if isinstance(v, list):
                    out[name] = v
                elif isinstance(v, Mapping) and set(v) == {"path", "values"} and isinstance(v["values"], list):
                    out[name] = Axis(v["path"], v["values"])
                else:
                    raise SweepError(f"{at}.{name}", "expected a list of values or { path = ..., values = [...] }")
            return out

        variants: dict[str, Variant] = {}
        for label, v in dict(d.get("variants", {})).items():
            if not isinstance(v, Mapping):
                raise SweepError(f"{where}.variants.{label}", "expected a table of overrides")
            overrides = {k: x for k, x in v.items() if k != "scenario"}
            other = (
                _load_scenario(Path(base_dir), v["scenario"], f"{where}.variants.{label}.scenario", dirs)
                if "scenario" in v
                else None
            )
            variants[label] = Variant(overrides, other)
        zips = d.get("zip", [])
        if not isinstance(zips, list):
            raise SweepError(f"{where}.zip", "expected an array of tables ([[zip]])")
        seeds, tables, fixed = d.get("seeds", 1), d.get("tables"), d.get("set", {})
        if not isinstance(seeds, int | list) or isinstance(seeds, bool):
            raise SweepError(f"{where}.seeds", "expected n (seeds 1..n) or a list of integers")
        if tables is not None and not (isinstance(tables, list) and all(isinstance(t, str) for t in tables)):
            raise SweepError(f"{where}.tables", "expected a list of table names")
        if not isinstance(fixed, Mapping):
            raise SweepError(f"{where}.set", "expected a table of overrides")
        try:
            sweep = cls(
                base,
                axes=axes(d.get("axes", {}), f"{where}.axes"),
                zip=[axes(g, f"{where}.zip[{i}]") for i, g in enumerate(zips)],
                variants=variants,
                seeds=seeds,
                set=fixed,
                tables=tables,
                name=str(d.get("name", "")),
            )
        except SweepError as e:
            raise SweepError(f"{where}.{e.where}" if e.where else where, e.message) from None
        sweep.origin = where
        return sweep

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, data_dirs: DataDirs = ()) -> Sweep:
        """Reads a sweep TOML file (its keys at top level); ``data_dirs`` as in :meth:`Scenario.load`."""
        p = Path(path)
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as e:
            raise SweepError(str(p), f"not valid TOML: {e}") from None
        return cls.from_dict(data, p.parent, where=str(p), data_dirs=data_dirs)

    # ------------------------------------------------------------ running

    def run(
        self,
        *,
        derive: Derive | Mapping[str, Derive] | None = None,
        jobs: int = 1,
        cache: str | os.PathLike[str] | None = None,
        progress: bool | ProgressFn = False,
        executor: Executor | None = None,
        run_dir: bool = False,
    ) -> Any:
        """Runs every point (cached runs are not run again) and returns one DataFrame.

        ``derive`` reduces each run (in the worker process) and is cached beside it; a dict
        of them returns a dict of DataFrames, and ``run_dir=True`` adds each row's run
        folder to them (the table without derive always has it). ``cache`` defaults to
        :func:`default_cache`. ``df.attrs["sweep"]`` says how many runs there were and how
        many were executed. ``executor``: see :func:`run_sweeps`.
        """
        return run_sweeps(
            [(self, derive)], jobs=jobs, cache=cache, progress=progress, executor=executor, run_dir=run_dir
        )[0]


def _load_scenario(base_dir: Path, name: Any, where: str, data_dirs: DataDirs) -> Scenario:
    if not isinstance(name, str):
        raise SweepError(where, "expected a file name")
    path = base_dir / name
    if not path.is_file():
        raise SweepError(where, f"scenario file not found: {path}")
    return Scenario.load(path, data_dirs=data_dirs)


# ---------------------------------------------------------------- running the tasks


@dataclass
class _Task:
    run_dir: str
    toml: str
    base_dir: str | None
    seed: int
    labels: dict[str, Any]
    tables: list[str] | None
    derives: list[DeriveRef]
    data_dirs: list[str] = field(default_factory=list)

    def done(self) -> bool:
        d = Path(self.run_dir)
        return (d / MANIFEST).is_file() and all(r.path(d).is_file() for r in self.derives)


def _execute_packed(task: bytes) -> bool:
    """:func:`_execute` in a worker, of a task pickled with cloudpickle (see :func:`_pack`)."""
    return _execute(pickle.loads(task))


def _pack(task: _Task) -> bytes:
    """The task as a worker gets it: a derive function the worker could not import (from
    ``__main__``, a notebook, or defined inside a function) travels by value."""
    try:
        packed: bytes = cloudpickle.dumps(task)
        return packed
    except Exception as e:
        name = next((r.qualname for r in task.derives if not r.portable()), "a derive")
        raise SweepError("derive", f"{name} cannot be sent to worker processes ({e}); run with jobs=1") from None


def _execute(task: _Task) -> bool:
    """Runs one task unless its outputs are cached; True if the engine ran."""
    from fanin.run import run

    d = Path(task.run_dir)
    missing = [r for r in task.derives if not r.path(d).is_file()]
    have_run = (d / MANIFEST).is_file()
    if have_run and not missing:
        return False
    # Derive needs the full tables: reload only if nothing was left out of the cache.
    ran = not have_run or task.tables is not None
    if ran:
        scenario = Scenario.from_toml(task.toml, base_dir=task.base_dir, data_dirs=task.data_dirs)
        results = run(scenario, seed=task.seed)
    else:
        results = Results.from_parquet(d)
    point = dict(task.labels)
    frames = {}
    for ref in missing:
        try:
            frame = ref.resolve()(results, point)
            if not isinstance(frame, pd.DataFrame):
                raise TypeError(f"derive {ref.qualname} returned {type(frame).__name__}, not a DataFrame")
        except Exception as e:  # say which run, keep the traceback
            e.add_note(f"in derive {ref.qualname} of the run {point} ({task.run_dir})")
            raise
        frames[ref] = frame
    if ran:
        if task.tables is not None:
            results.tables = {k: v for k, v in results.tables.items() if k in task.tables}
        _keep_derived(d, lambda: results.to_parquet(d))
    for ref, frame in frames.items():
        buf = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf)
        atomic_write_bytes(ref.path(d), buf.getvalue().to_pybytes())
    return ran


def _keep_derived(run_dir: Path, write: Callable[[], Any]) -> None:
    """Replacing a run directory keeps the derived tables already made beside it."""
    saved = {}
    derived = run_dir / "derived"
    if derived.is_dir():
        saved = {p.name: p.read_bytes() for p in derived.glob("*.parquet")}
    write()
    for name, data in saved.items():
        atomic_write_bytes(derived / name, data)


# ---------------------------------------------------------------- the runner


class _Bar:
    def __init__(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._p = Progress(
            TextColumn("[bold]runs"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True, emoji=False),
            transient=True,
        )
        self._task = self._p.add_task("runs", total=total)

    def __enter__(self) -> _Bar:
        self._p.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self._p.__exit__(*exc)  # type: ignore[arg-type]

    def __call__(self, done: int, total: int) -> None:
        self._p.update(self._task, completed=done, total=total)


def _tasks(sweep: Sweep, derives: list[DeriveRef], cache: Path) -> list[_Task]:
    tasks = []
    for p in sweep.points():
        key = run_key(p.scenario, p.seed, sweep.tables)
        base_dir = str(p.scenario.base_dir) if p.scenario.base_dir is not None else None
        run_dir = cache / key[:2] / key
        dirs = [str(d) for d in p.scenario.data_dirs]
        tasks.append(_Task(str(run_dir), p.scenario.to_toml(), base_dir, p.seed, p.labels, sweep.tables, derives, dirs))
    return tasks


def _refs(derive: Derive | Mapping[str, Derive] | None) -> list[DeriveRef]:
    if derive is None:
        return []
    if callable(derive):
        return [DeriveRef("derive", derive)]
    return [DeriveRef(name, fn) for name, fn in derive.items()]


def run_sweeps(
    sweeps: Sequence[tuple[Sweep, Derive | Mapping[str, Derive] | None]],
    *,
    jobs: int = 1,
    cache: str | os.PathLike[str] | None = None,
    progress: bool | ProgressFn = False,
    executor: Executor | None = None,
    run_dir: bool = False,
) -> list[Any]:
    """Runs several sweeps in one pool with one progress bar; one result per sweep (as Sweep.run).

    ``executor`` replaces the local process pool with any ``concurrent.futures.Executor``
    (a Dask cluster's ``client.get_executor()``, say); the workers must share the cache
    directory and import fanin. Tasks reach workers pickled with cloudpickle.
    """
    if jobs < 1:
        raise SweepError("jobs", "must be >= 1")
    cache_dir = (Path(cache) if cache is not None else default_cache()).absolute()  # rows name their runs
    for sweep, _ in sweeps:
        sweep.validate()
    plans = []
    for sweep, derive in sweeps:
        refs = _refs(derive)
        plans.append((sweep, derive, refs, _tasks(sweep, refs, cache_dir)))
    pending = [t for t in _merged([t for *_, tasks in plans for t in tasks]) if not t.done()]
    total = len({t.run_dir for *_, tasks in plans for t in tasks})
    parallel = executor is not None or (jobs > 1 and len(pending) > 1)
    packed = [_pack(t) for t in pending] if parallel else []  # a derive that cannot travel: before any run

    bar = _Bar(total) if progress is True else None
    report: ProgressFn | None = bar if bar is not None else (progress if callable(progress) else None)
    done = total - len(pending)

    def tick(n: int) -> None:
        if report:
            report(done + n, total)

    with bar if bar is not None else _Null(), sigterm_interrupts():
        tick(0)
        if not parallel:
            ran = set()
            for i, t in enumerate(pending):
                if _execute(t):
                    ran.add(t.run_dir)
                tick(i + 1)
        elif executor is not None:
            with deferred_interrupts() as check:
                ran = _drain(executor, pending, packed, tick, check)
        else:
            ran = _drain_own_pool(min(jobs, len(pending)), pending, packed, tick)
    return [_collect(derive, refs, tasks, _stats(tasks, ran), run_dir) for _, derive, refs, tasks in plans]


def _merged(tasks: list[_Task]) -> list[_Task]:
    """One task per run directory, with every derive any sweep asks of that run."""
    by_dir: dict[str, _Task] = {}
    for t in tasks:
        if t.run_dir not in by_dir:
            by_dir[t.run_dir] = replace(t, derives=list(t.derives))
        else:
            have = by_dir[t.run_dir].derives
            have += [r for r in t.derives if all(r.path(Path("")) != h.path(Path("")) for h in have)]
    return list(by_dir.values())


def _stats(tasks: list[_Task], ran: set[str]) -> dict[str, int]:
    runs = {t.run_dir for t in tasks}
    executed = len(runs & ran)
    return {"runs": len(runs), "cached": len(runs) - executed, "executed": executed}


class _Null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def _drain_own_pool(workers: int, pending: list[_Task], packed: list[bytes], tick: Callable[[int], Any]) -> set[str]:
    """As :func:`_drain` in local worker processes, which an interrupt stops at once."""
    pool = worker_pool(workers)
    with deferred_interrupts() as check:  # a second Ctrl-C does not cut the cleanup short either
        try:
            ran = _drain(pool, pending, packed, tick, check)
        except KeyboardInterrupt:  # Ctrl-C or SIGTERM: runs already under way are not waited for
            kill_pool(pool)
            for d in {p for t in pending for p in (Path(t.run_dir).parent, Path(t.run_dir) / "derived")}:
                remove_stale_temps(d)  # what the killed workers were writing
            raise
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
    return ran


def _drain(
    pool: Executor, pending: list[_Task], packed: list[bytes], tick: Callable[[int], Any], check: Callable[[], None]
) -> set[str]:
    """Submits every task (``packed``: the same, pickled); returns the run directories the
    engine ran. ``check()`` raises on an interrupt that came meanwhile (see
    :func:`fanin._proc.deferred_interrupts`)."""
    ran: set[str] = set()
    finished = 0
    futures: dict[Future[bool], _Task] = {}
    try:
        futures = {pool.submit(_execute_packed, blob): t for t, blob in zip(pending, packed, strict=True)}
        waiting = set(futures)
        while waiting:
            check()
            ready, waiting = wait(waiting, timeout=_CHECK_S, return_when=FIRST_COMPLETED)
            for f in ready:
                if f.result():
                    ran.add(futures[f].run_dir)
                finished += 1
                tick(finished)
    except BaseException:
        for f in futures:
            f.cancel()
        raise
    return ran


def _collect(derive: Any, refs: list[DeriveRef], tasks: list[_Task], stats: dict[str, int], run_dir: bool) -> Any:
    labels = [t.labels for t in tasks]
    dirs = [Path(t.run_dir) for t in tasks]
    if not refs:
        frame = summary_table(labels, dirs)
        frame.attrs["sweep"] = stats
        return frame
    out: dict[str, pd.DataFrame] = {}
    reserved = [*(labels[0] if labels else {}), *([RUN_DIR] if run_dir else [])]
    for ref in refs:
        parts = [pd.read_parquet(ref.path(d)) for d in dirs]
        clash = next((c for c in reserved if any(c in p.columns for p in parts)), None)
        if clash is not None:
            what = "the run folder column" if clash == RUN_DIR else "a sweep label"
            raise SweepError(ref.qualname, f"derived column {clash!r} has the name of {what}")
        frame = derived_table(labels, parts, dirs if run_dir else None)
        frame.attrs["sweep"] = stats
        out[ref.name] = frame
    return out["derive"] if callable(derive) else out
