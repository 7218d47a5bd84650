"""Derive functions that travel to worker processes, and the cache key of what they make.

A sweep's derive function turns one run's `Results` into a table; the table is cached
beside the run under a key that changes whenever the function's source, or the source of
a fanin or sibling module it uses, changes. Workers find a module's function again by module
file and qualified name; one defined in ``__main__`` (a script, a notebook) or inside another
function travels by value (the task is pickled with cloudpickle).
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

__all__ = ["Derive", "DeriveRef", "DeriveReferenceError", "load_derive", "load_module"]


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
        """Whether a worker can import the function, by module name or file."""
        return "<" not in self.qualname and self.module != "__main__" and self.file is not None

    def __getstate__(self) -> dict[str, Any]:
        # An importable function travels by name (a worker imports its module once); any
        # other only by value, which plain pickle refuses and cloudpickle does.
        return {k: v for k, v in self.__dict__.items() if k != "fn" or not self.portable()}

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


class DeriveReferenceError(ValueError):
    """A ``MODULE:FUNCTION`` or ``FILE.py:FUNCTION`` reference that names no derive."""


_FORM = "expected MODULE:FUNCTION or FILE.py:FUNCTION"


def load_derive(reference: str) -> Derive | dict[str, Derive]:
    """The derive a reference names: ``pkg.module:function`` (importable) or
    ``path/to/file.py:function`` (its folder goes on sys.path, as a script's does); the
    attribute may also be a dict of them, as a catalog figure's ``derive``. Raises
    :class:`DeriveReferenceError` saying what is wrong."""
    target, colon, name = reference.rpartition(":")
    if not colon or not target or not name:
        raise DeriveReferenceError(_FORM)
    module = _import_target(target)
    found: Any = module
    for part in name.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise DeriveReferenceError(f"{target} has no `{name}`")
    if callable(found) or (isinstance(found, dict) and found and all(callable(f) for f in found.values())):
        return found  # type: ignore[no-any-return]
    raise DeriveReferenceError(f"`{name}` in {target} is not a function or a dict of functions")


def _import_target(target: str) -> ModuleType:
    is_file = target.endswith(".py") or os.sep in target
    if is_file and not Path(target).is_file():
        raise DeriveReferenceError(f"no such file: {target} ({_FORM})")
    try:
        if not is_file:
            return importlib.import_module(target)
        path = Path(target).resolve()
        if str(path.parent) not in sys.path:  # its sibling modules import, as a script's do
            sys.path.insert(0, str(path.parent))
        # A name no other module has: the workers import the file under it again.
        tag = hashlib.sha256(str(path).encode()).hexdigest()[:12]
        return load_module(path, f"fanin_derive_{tag}_{path.stem}".replace("-", "_"))
    except ModuleNotFoundError as e:
        if not is_file and e.name is not None and (target == e.name or target.startswith(f"{e.name}.")):
            raise DeriveReferenceError(f"no module named {target!r} ({_FORM}; a file needs the .py)") from None
        raise DeriveReferenceError(f"importing {target} failed: ModuleNotFoundError: {e}") from None
    except Exception as e:  # the user's module fails as it loads: say how, in one line
        raise DeriveReferenceError(f"importing {target} failed: {type(e).__name__}: {e}") from None
