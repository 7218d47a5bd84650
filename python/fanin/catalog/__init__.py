"""The experiment catalog: ``experiments/<paper>/<figure>/`` -> sweep + analysis + claims.

A figure directory holds ``figure.toml`` (title, the ``[sweep]`` and its ``[quick]``
reduction), the scenario TOML it names, ``analysis.py`` (``derive``, ``plot``, metric
functions), ``claims.toml`` and ``README.md``. docs/catalog.md is the authors' guide.
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from fanin.catalog.claims import Claim, ClaimsError, load_claims
from fanin.sweep import Sweep, SweepError, load_module

__all__ = ["CatalogError", "ClaimsError", "Figure", "Paper", "find_catalog", "load_paper", "paper_names"]

CATALOG_ENV = "FANIN_CATALOG"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_FIGURE_KEYS = ("title", "order", "sweep", "quick")


class CatalogError(ValueError):
    """Bad catalog input (unknown paper or figure, malformed figure.toml)."""


@dataclass
class Figure:
    """One figure of a paper: how to run it and what it must show."""

    paper: str
    name: str
    dir: Path
    title: str
    sweep: Sweep | None  # None: an analytic figure, computed without runs
    module: ModuleType | None  # analysis.py
    claims: list[Claim]
    order: float = 0.0

    @property
    def derive(self) -> Any:
        return getattr(self.module, "derive", None) if self.module is not None else None

    def run(self, **kwargs: Any) -> Any:
        """The figure's data, as metrics and plot() get it: the sweep's DataFrame (or dict).

        Keyword arguments go to :meth:`fanin.Sweep.run` (``jobs``, ``cache``, ``progress``);
        an analytic figure (no sweep) gives an empty DataFrame.
        """
        if self.sweep is None:
            import pandas as pd

            return pd.DataFrame()
        return self.sweep.run(derive=self.derive, **kwargs)

    @property
    def readme(self) -> str:
        p = self.dir / "README.md"
        return p.read_text(encoding="utf-8") if p.is_file() else ""


@dataclass
class Paper:
    name: str
    dir: Path
    title: str
    citation: str
    figures: list[Figure] = field(default_factory=list)

    def figure(self, name: str) -> Figure:
        for f in self.figures:
            if f.name == name:
                return f
        raise CatalogError(
            f"unknown figure {name!r} of {self.name} (allowed: {', '.join(f.name for f in self.figures)})"
        )


def find_catalog(catalog: str | os.PathLike[str] | None = None) -> Path:
    """The experiments tree: ``catalog``, else $FANIN_CATALOG, else the one that ships in the
    package (``fanin/experiments``; the repository's ``experiments/`` links to it), else
    ./experiments."""
    candidates = []
    if catalog is not None:
        candidates = [Path(catalog)]
    elif os.environ.get(CATALOG_ENV):
        candidates = [Path(os.environ[CATALOG_ENV])]
    else:
        candidates = [Path(__file__).resolve().parents[1] / "experiments", Path.cwd() / "experiments"]
    for c in candidates:
        if c.is_dir():
            return c
    raise CatalogError(f"no experiment catalog at {candidates[0]} (give one with --catalog DIR)")


def paper_names(catalog: Path) -> list[str]:
    """Papers in the catalog: directories holding at least one figure."""
    return sorted(
        p.name for p in catalog.iterdir() if p.is_dir() and _NAME.match(p.name) and any(p.glob("*/figure.toml"))
    )


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise CatalogError(f"{path}: not valid TOML: {e}") from None


def _quick(sweep: Mapping[str, Any], quick: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The sweep with ``[quick]``'s keys replacing its own (``set`` tables merge)."""
    out = dict(sweep)
    for k, v in quick.items():
        if k == "set" and isinstance(v, Mapping):
            out["set"] = {**dict(sweep.get("set", {})), **v}
        elif k == "scenario" or k in ("axes", "zip", "variants", "seeds", "tables"):
            out[k] = v
        else:
            raise CatalogError(f"{where}: [quick] key {k!r} is not a sweep key")
    return out


def load_figure(paper: str, d: Path, *, quick: bool = False) -> Figure:
    spec_path = d / "figure.toml"
    spec = _read_toml(spec_path)
    unknown = set(spec) - set(_FIGURE_KEYS)
    if unknown:
        raise CatalogError(f"{spec_path}: unknown key {sorted(unknown)[0]!r} (allowed: {', '.join(_FIGURE_KEYS)})")
    module = None
    if (d / "analysis.py").is_file():
        # One module name per file and content: two catalogs with the same paper names do
        # not collide, and an edited analysis.py is imported afresh.
        source = d / "analysis.py"
        tag = hashlib.sha256(str(source.resolve()).encode() + source.read_bytes()).hexdigest()[:12]
        module = load_module(d / "analysis.py", f"fanin_catalog_{tag}_{paper}_{d.name}".replace("-", "_"))
    sweep = None
    if "sweep" in spec:
        full = dict(spec["sweep"])
        reduced = _quick(full, spec["quick"], str(spec_path)) if "quick" in spec else full
        try:  # both are checked whichever runs, so a broken [quick] shows in a full repro too
            sweeps = [
                Sweep.from_dict(raw, d, where=f"{spec_path}: [{name}]")
                for raw, name in ((full, "sweep"), (reduced, "quick"))
            ]
        except SweepError as e:
            raise CatalogError(str(e)) from None
        sweep = sweeps[1] if quick else sweeps[0]
    elif "quick" in spec:
        raise CatalogError(f"{spec_path}: [quick] without [sweep]")
    claims_path = d / "claims.toml"
    claims = load_claims(claims_path, module) if claims_path.is_file() else []
    order = spec.get("order", 0)
    if not isinstance(order, int | float):
        raise CatalogError(f"{spec_path}: order: expected a number")
    return Figure(paper, d.name, d, str(spec.get("title", d.name)), sweep, module, claims, float(order))


def load_paper(
    name: str, catalog: str | os.PathLike[str] | None = None, *, quick: bool = False, figures: list[str] | None = None
) -> Paper:
    """Loads a paper's figures (all, or the named ones), checking every file."""
    root = find_catalog(catalog)
    names = paper_names(root)
    if name not in names:
        raise CatalogError(f"unknown paper {name!r} (allowed: {', '.join(names) or 'none in ' + str(root)})")
    d = root / name
    meta = _read_toml(d / "paper.toml") if (d / "paper.toml").is_file() else {}
    paper = Paper(name, d, str(meta.get("title", name)), str(meta.get("citation", "")))
    fig_dirs = sorted(p.parent for p in d.glob("*/figure.toml"))
    available = [p.name for p in fig_dirs]
    for f in figures or []:
        if f not in available:
            raise CatalogError(f"unknown figure {f!r} of {name} (allowed: {', '.join(available)})")
    for fd in fig_dirs:
        if figures and fd.name not in figures:
            continue
        paper.figures.append(load_figure(name, fd, quick=quick))
    paper.figures.sort(key=lambda f: (f.order, f.name))
    return paper


def figure_names(name: str, catalog: str | os.PathLike[str] | None = None) -> list[tuple[str, str]]:
    """(figure, title) of every figure of a paper, in report order, without loading modules."""
    d = find_catalog(catalog) / name
    rows = []
    for p in sorted(d.glob("*/figure.toml")):
        spec = _read_toml(p)
        rows.append((float(spec.get("order", 0)), p.parent.name, str(spec.get("title", p.parent.name))))
    return [(n, t) for _, n, t in sorted(rows)]
