"""Run one scenario."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from typing import Any

from fanin import _native
from fanin.errors import native_errors
from fanin.overrides import canonical, overridden
from fanin.results import Results, is_timing
from fanin.scenario import Scenario

ProgressFn = Callable[[int, "int | None"], None]
"""Called between chunks of the run with ``(now_ps, horizon_ps or None)``."""


def scenario_hash(toml_text: str, seed: int) -> str:
    """sha256 of the scenario text followed by ``"\\nseed = <seed>\\n"``: what determines a result."""
    return hashlib.sha256(f"{toml_text}\nseed = {seed}\n".encode()).hexdigest()


def _as_scenario(scenario_or_path: Scenario | str | os.PathLike[str], overrides: Mapping[str, Any]) -> Scenario:
    if isinstance(scenario_or_path, Scenario):
        return overridden(scenario_or_path, overrides)
    return Scenario.load(scenario_or_path, set=overrides)


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


def run(
    scenario_or_path: Scenario | str | os.PathLike[str],
    *,
    progress: bool | ProgressFn = False,
    seed: int | None = None,
    progress_every_ps: int = 0,
    set: Mapping[str, Any] | None = None,
) -> Results:
    """Runs a scenario (a :class:`Scenario` or a path to a TOML file) and returns its results.

    ``progress=True`` shows a progress bar over simulated time; a callable gets
    ``(now_ps, horizon_ps)`` between chunks of ``progress_every_ps`` simulated picoseconds
    (0: about 200 chunks, at most 1 ms each). ``seed`` overrides the scenario's seed, and
    ``set`` any of its fields: ``{"transport.cc": "newreno", "workload[0].degree": 32}``
    (recorded in the manifest as ``overrides``; the scenario is not changed).
    The GIL is released while the engine runs; Ctrl-C interrupts between chunks.
    Raises :class:`fanin.ScenarioError` for a scenario that cannot run.
    """
    overrides = canonical(set or {})
    scenario = _as_scenario(scenario_or_path, overrides)
    if seed is not None:
        scenario = scenario.copy().set("seed", seed)
    text = scenario.to_toml()
    name, actual_seed = scenario.name, scenario.seed  # asks the engine only if not written

    bar = _RichProgress(name) if progress is True else None
    callback: ProgressFn | None = bar if bar is not None else (progress if callable(progress) else None)
    with bar if bar is not None else nullcontext():
        t0 = time.perf_counter()
        with native_errors():
            tables, summary = _native.run(text, scenario.search_dirs(), callback, progress_every_ps)
        wall = time.perf_counter() - t0

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
    return Results.from_native(tables, summary, manifest)
