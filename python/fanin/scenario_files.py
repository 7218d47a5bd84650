"""The files a scenario names: which fields name them, where they may live, and what the
engine is told about them.

A file field resolves only inside the roots (the scenario's folder, the folders given with
``--data-dir``, fanin's bundled data, the Uno artifact folders). The engine is handed the
resolved absolute path and the roots, and itself refuses to open anything outside them.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w

from fanin.errors import ScenarioError, native_errors

FILE_FIELDS: Mapping[str, tuple[str, ...]] = {
    "poisson": ("sizes",),
    "poisson_incast": ("sizes",),
    "matrix": ("file",),
    "mixed_poisson": ("intra_sizes", "inter_sizes"),
}
"""The fields each workload kind hands to the engine's file loader
(crates/engine/src/scenario/workload.rs and matrix.rs); no other field names a file."""

INLINE_SIZES = ("uniform", "loguniform", "constant", "discrete")
"""First words of a ``sizes`` value that is a distribution, not a file (``"uniform 8KB 32KB"``,
``"constant 1MB"``; ``Cdf::inline`` in crates/engine/src/workload/cdf.rs)."""

SIZE_FORMS = (
    "a CDF file name",
    '"uniform <min> <max>"',
    '"loguniform <min> <max>"',
    '"constant <size>"',
    '"discrete <size>:<probability> ..."',
)
"""What a ``sizes`` field may hold, as the engine lists them in its errors."""


def names_a_file(key: str, value: str) -> bool:
    """Whether a file field's value is a file name (a ``sizes`` field may be a distribution)."""
    words = value.split()
    return key != "sizes" or not words or words[0] not in INLINE_SIZES


@dataclass(frozen=True)
class NamedFile:
    index: int  # of the [[workload]]
    key: str  # one of its FILE_FIELDS
    name: str  # as the scenario writes it
    path: Path  # resolved, inside one of the roots

    @property
    def field(self) -> str:
        return f"workload[{self.index}].{self.key}"


def declared(data: Mapping[str, Any]) -> list[tuple[int, str, str]]:
    """(workload index, field, name) of every file the engine will ask for, in document order."""
    workloads = data.get("workload")
    if not isinstance(workloads, list):
        return []
    found: list[tuple[int, str, str]] = []
    for i, w in enumerate(workloads):
        kind = w.get("kind") if isinstance(w, Mapping) else None
        keys = FILE_FIELDS.get(kind, ()) if isinstance(kind, str) else ()
        # Other types, and distributions: the engine reads them.
        found += [(i, key, w[key]) for key in keys if isinstance(w.get(key), str) and names_a_file(key, w[key])]
    return found


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: treat as the path itself, which is no file
        return path


def resolve(field: str, name: str, roots: Sequence[Path]) -> Path:
    """The file ``name`` in the first root that holds it (``roots`` already resolved). A name
    leading out of a root (``..``, a symlink) or an absolute path outside every root is
    refused whether or not it exists, so the error tells nothing about what lies outside."""
    searched = ", ".join(map(str, roots))
    forms = SIZE_FORMS if field.endswith(".sizes") else ()
    outside = ScenarioError(
        field, f"`{name}` is outside the folders files are read from ({searched}); add one with --data-dir"
    )
    if not name or "\0" in name:
        raise ScenarioError(field, f"`{name}` is not a file name")
    given = Path(name)
    if given.is_absolute():
        real = _real(given)
        if not any(real.is_relative_to(r) for r in roots):
            raise outside
        if real.is_file():
            return real
    else:
        for root in roots:
            real = _real(root / given)
            if not real.is_relative_to(root):
                raise outside
            if real.is_file():
                return real
    raise ScenarioError(field, f"cannot read `{name}`: not found in: {searched}", forms)


def resolve_all(data: Mapping[str, Any], roots: Sequence[Path]) -> list[NamedFile]:
    real_roots = [_real(r) for r in roots]
    return [NamedFile(i, key, n, resolve(f"workload[{i}].{key}", n, real_roots)) for i, key, n in declared(data)]


def engine_text(data: Mapping[str, Any], text: str, files: Sequence[NamedFile]) -> str:
    """The scenario as the engine reads it: each file field holds its resolved absolute path."""
    if not files:
        return text
    doc = copy.deepcopy(dict(data))
    for f in files:
        doc["workload"][f.index][f.key] = str(f.path)
    rendered: str = tomli_w.dumps(doc)  # renders whatever to_toml() rendered: the data is plain TOML
    return rendered


# ------------------------------------------------------------ errors

def _named(e: ScenarioError, files: Sequence[NamedFile]) -> ScenarioError:
    """The engine's error about a file, naming it as the scenario does (the engine's parsers
    give line numbers and never quote the file)."""
    f = next((f for f in files if f.field == e.path), None)
    if f is None:
        return e
    read, content = f"cannot read `{f.path}`: ", f"`{f.path}` "
    if e.message.startswith(read):
        return ScenarioError(e.path, f"cannot read `{f.name}`: {e.message[len(read) :]}", e.allowed)
    if e.message.startswith(content):
        return ScenarioError(e.path, f"`{f.name}` {e.message[len(content) :]}", e.allowed)
    return e


@contextmanager
def engine_errors(files: Sequence[NamedFile]) -> Iterator[None]:
    """:func:`fanin.errors.native_errors`, with file errors named as the scenario names the file."""
    try:
        with native_errors():
            yield
    except ScenarioError as e:
        raise _named(e, files) from None
