"""`fanin repro`: run a paper's figures, measure its claims, write figures and reports.

Output directory (default ``out/repro/<paper>``, ``out/repro/<paper>-quick`` with quick):
``figures/<figure>[-<name>].png|svg``, ``data/<figure>[-<name>].parquet`` (the sweep's
DataFrames), ``claims.json``, ``report.md``, ``report.html``. Runs are cached where sweeps
cache them (:func:`fanin.sweep.default_cache` unless ``cache`` says otherwise). Rerunning
some figures merges them into the report.
"""

from __future__ import annotations

import io
import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from fanin._fs import atomic_write_bytes
from fanin._proc import default_workers
from fanin.catalog import Figure, Paper, load_paper
from fanin.catalog.claims import ClaimResult, evaluate
from fanin.sweep import ProgressFn, run_sweeps

CLAIMS_JSON = "claims.json"


@dataclass
class ReproResult:
    out: Path
    paper: Paper
    claims: list[dict[str, Any]]  # every claim in the report (merged with earlier figures)
    ran: list[ClaimResult]  # the claims of the figures run now
    runs: int
    executed: int
    wall_s: float
    plot_errors: dict[str, str]  # figure -> the exception its plot() raised
    peak_rss_bytes: int  # the largest resident memory of this process or any worker


def default_output(paper: str, quick: bool) -> Path:
    return Path("out") / "repro" / (f"{paper}-quick" if quick else paper)


@contextmanager
def paper_style() -> Iterator[None]:
    """Matplotlib settings close to the papers' figures: small serif text, thin lines, light grid."""
    import matplotlib.pyplot as plt

    rc = {
        "font.family": "serif",
        "font.size": 9,
        "axes.titlesize": 9,
        "axes.labelsize": 9,
        "legend.fontsize": 8,
        "xtick.labelsize": 8,
        "ytick.labelsize": 8,
        "lines.linewidth": 1.2,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "figure.figsize": (4.0, 2.8),
        "figure.constrained_layout.use": True,
        "savefig.dpi": 150,
        "svg.hashsalt": "fanin",  # stable ids: the same figure gives the same SVG
    }
    with plt.rc_context(rc):  # type: ignore[arg-type]
        yield


def _save_figure(fig: Any, base: Path) -> None:
    import matplotlib.pyplot as plt

    for fmt in ("png", "svg"):
        buf = io.BytesIO()
        meta = {"Software": None} if fmt == "png" else {"Date": None, "Creator": None}
        fig.savefig(buf, format=fmt, metadata=meta)
        atomic_write_bytes(base.with_suffix(f".{fmt}"), buf.getvalue())
    plt.close(fig)


def _plots(figure: Figure, data: Any, out: Path) -> tuple[list[str], str]:
    """Runs the figure's plot(); returns the image paths (without suffix) and any error."""
    plot = getattr(figure.module, "plot", None) if figure.module is not None else None
    if plot is None:
        return [], ""
    try:
        with paper_style():
            made = plot(data)
            figs = made if isinstance(made, dict) else {"": made}
            images = []
            for name, fig in figs.items():
                stem = figure.name + (f"-{name}" if name else "")
                _save_figure(fig, out / "figures" / stem)
                images.append(f"figures/{stem}")
    except Exception as e:  # a broken plot is reported beside the claims, not a lost repro
        return [], f"{type(e).__name__}: {e}"
    return images, ""


def _write_readme(figure: Figure, out: Path) -> str | None:
    """A copy of the figure's README beside the report, so the report's link survives the
    report folder being moved or uploaded (the catalog may be in site-packages); None
    when the figure has none."""
    if not figure.readme:
        return None
    rel = f"readme/{figure.name}.md"
    atomic_write_bytes(out / rel, figure.readme.encode("utf-8"))
    return rel


def _write_data(figure: Figure, data: Any, out: Path) -> list[str]:
    frames = data if isinstance(data, dict) else {"": data}
    files = []
    for name, frame in frames.items():
        if not isinstance(frame, pd.DataFrame) or frame.empty:
            continue
        frame = frame.drop(columns=["run_dir"], errors="ignore")
        buf = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), buf, compression="zstd")
        rel = f"data/{figure.name}" + (f"-{name}" if name else "") + ".parquet"
        atomic_write_bytes(out / rel, buf.getvalue().to_pybytes())
        files.append(rel)
    return files


def _stats(data: Any) -> dict[str, int]:
    frame = next(iter(data.values())) if isinstance(data, dict) and data else data
    return dict(getattr(frame, "attrs", {}).get("sweep", {"runs": 0, "executed": 0}))


def repro(
    paper: str,
    *,
    figures: list[str] | None = None,
    quick: bool = False,
    jobs: int | None = None,
    out: str | os.PathLike[str] | None = None,
    cache: str | os.PathLike[str] | None = None,
    catalog: str | os.PathLike[str] | None = None,
    progress: bool | ProgressFn = False,
) -> ReproResult:
    """Runs a paper's figures (all or ``figures``) and writes the report into ``out``;
    ``jobs`` defaults to one process per CPU."""
    t0 = time.perf_counter()
    p = load_paper(paper, catalog, quick=quick, figures=figures)
    out_dir = Path(out) if out is not None else default_output(paper, quick)
    with_runs = [f for f in p.figures if f.sweep is not None]
    results = run_sweeps(
        [(f.sweep, f.derive) for f in with_runs],  # type: ignore[misc]
        jobs=jobs or default_workers(),
        cache=cache,
        progress=progress,
    )
    data_of = {f.name: d for f, d in zip(with_runs, results, strict=True)}  # (as Figure.run gives it)

    entries: list[dict[str, Any]] = []
    ran: list[ClaimResult] = []
    for f in p.figures:
        data = data_of.get(f.name, pd.DataFrame())
        claims = evaluate(f.name, f.claims, data, f.module)
        ran += claims
        images, plot_error = _plots(f, data, out_dir)
        stats = _stats(data)
        entries.append(
            {
                "name": f.name,
                "title": f.title,
                "readme": f.readme,
                "readme_path": _write_readme(f, out_dir),
                "runs": stats.get("runs", 0),
                "executed": stats.get("executed", 0),
                "images": images,
                "plot_error": plot_error,
                "data": _write_data(f, data, out_dir),
                "claims": [c.to_dict() for c in claims],
            }
        )
    doc = _merge(out_dir, p, quick, entries)
    _write_reports(out_dir, doc)
    all_claims = [c for f in doc["figures"] for c in f["claims"]]
    runs = sum(e["runs"] for e in entries)
    executed = sum(e["executed"] for e in entries)
    plot_errors = {e["name"]: e["plot_error"] for e in entries if e["plot_error"]}
    wall = time.perf_counter() - t0
    return ReproResult(out_dir, p, all_claims, ran, runs, executed, wall, plot_errors, peak_rss_bytes())


def peak_rss_bytes() -> int:
    """Peak resident memory of this process or of its largest finished child (Linux: KiB units)."""
    import resource

    kib = max(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    )
    return int(kib) * 1024


def _merge(out_dir: Path, p: Paper, quick: bool, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """This run's figures replace their earlier entries; the paper's other figures stay."""
    from fanin import __version__
    from fanin.catalog import figure_names

    earlier: dict[str, dict[str, Any]] = {}
    path = out_dir / CLAIMS_JSON
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            old = {}
        if old.get("paper") == p.name and old.get("quick") == quick:
            earlier = {f["name"]: f for f in old.get("figures", [])}
    earlier.update({e["name"]: e for e in entries})
    order = [name for name, _ in figure_names(p.name, p.dir.parent)]
    figures = [earlier[n] for n in order if n in earlier]  # figures gone from the catalog drop out
    return {
        "paper": p.name,
        "title": p.title,
        "citation": p.citation,
        "quick": quick,
        "fanin_version": __version__,
        "figures": figures,
    }


def _write_reports(out_dir: Path, doc: dict[str, Any]) -> None:
    from fanin.report import render_html, render_markdown

    atomic_write_bytes(out_dir / CLAIMS_JSON, (json.dumps(doc, indent=2, default=_json) + "\n").encode())
    atomic_write_bytes(out_dir / "report.md", render_markdown(doc).encode())
    atomic_write_bytes(out_dir / "report.html", render_html(doc, out_dir).encode())


def _json(x: Any) -> Any:
    if hasattr(x, "item"):
        return x.item()
    return str(x)
