"""Derive functions that travel to worker processes, and the cache key of what they make.

A sweep's derive function turns one run's `Results` into a table; the table is cached
beside the run under a key that changes whenever the function's source, or the source of
a fanin or sibling module it uses, changes. Workers find the function again by module file
and qualified name.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pandas as pd

from fanin.results import Results

Derive = Callable[[Results, dict[str, Any]], pd.DataFrame]

__all__ = ["Derive", "DeriveRef", "load_module"]


def load_module(path: str | os.PathLike[str], name: str) -> ModuleType:
    """Imports a Python file under ``name`` (once per process); workers find it the same way."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


_FANIN_DIR = Path(__file__).resolve().parent


def _source_closure(module: ModuleType) -> list[str]:
    """The files of ``module`` and of every module it uses, directly or through those, that
    lives in the fanin package or beside ``module`` (the helpers a figure's analysis
    imports); sorted, so the derive key is stable. Libraries are left out: their versions
    do not change under a cache."""
    own = Path(module.__file__ or "").resolve()
    roots = (_FANIN_DIR, own.parent)
    seen: dict[str, ModuleType] = {}
    todo = [module]
    while todo:
        m = todo.pop()
        f = getattr(m, "__file__", None)
        if not f or not f.endswith(".py"):
            continue
        path = Path(f).resolve()
        if str(path) in seen or not any(path.is_relative_to(r) for r in roots):
            continue
        seen[str(path)] = m
        for value in vars(m).values():
            used = value if isinstance(value, ModuleType) else sys.modules.get(getattr(value, "__module__", "") or "")
            if used is not None:
                todo.append(used)
    return sorted(seen)


class DeriveRef:
    """A derive function that can travel to a worker: by module file and qualified name."""

    def __init__(self, name: str, fn: Derive) -> None:
        self.name, self.fn = name, fn
        self.module, self.qualname = fn.__module__, fn.__qualname__
        mod = sys.modules.get(self.module)
        self.file = getattr(mod, "__file__", None)
        if mod is not None and self.file and Path(self.file).is_file():
            # Any edit of the module, or of a fanin or sibling module it uses, reruns derive.
            source = b"".join(Path(f).read_bytes() for f in _source_closure(mod))
        else:
            source = fn.__code__.co_code + repr(fn.__code__.co_consts).encode()
        self.key = hashlib.sha256(source + self.qualname.encode()).hexdigest()[:16]

    def portable(self) -> bool:
        return "<" not in self.qualname and self.module != "__main__" and self.file is not None

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "fn"}

    def resolve(self) -> Derive:
        fn = self.__dict__.get("fn")
        if fn is None:
            try:
                module = importlib.import_module(self.module)
            except ImportError:
                assert self.file is not None
                module = load_module(self.file, self.module)
            found: Any = module
            for part in self.qualname.split("."):
                found = getattr(found, part)
            self.fn = fn = found
        return fn  # type: ignore[no-any-return]

    def path(self, run_dir: Path) -> Path:
        return run_dir / "derived" / f"{self.name}-{self.key}.parquet"
