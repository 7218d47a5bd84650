"""What identifies a cached run: the canonical scenario, the seed, the engine binary, the
contents of the files its file fields name (those the engine reads), and the tables kept.
Two runs with the same key give byte-identical results, so the sweep cache reuses one for
the other."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from pathlib import Path

from fanin.scenario import Scenario

_ENGINE: str | None = None


def engine_hash() -> str:
    """sha256 of the engine's binary: a rebuilt engine reruns everything."""
    global _ENGINE
    if _ENGINE is None:
        from fanin import _native

        _ENGINE = _file_sha256(Path(_native.__file__), prefix=_native.version().encode())
    return _ENGINE


def _file_sha256(path: Path, prefix: bytes = b"") -> str:
    """sha256 of ``prefix`` followed by the file's bytes."""
    h = hashlib.sha256(prefix)
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _named_files(scenario: Scenario) -> list[tuple[str, str]]:
    """(name, sha256) of each file the engine reads for the scenario, by name; no other string
    counts, even one that happens to name a file. (The shape of earlier keys, so runs cached
    before stay cached.)"""
    return sorted({(f.name, _file_sha256(f.path)) for f in scenario.named_files()})


def run_key(scenario: Scenario, seed: int, tables: Sequence[str] | None = None) -> str:
    """What decides a cached run: canonical scenario, seed, engine binary, named files, kept tables."""
    doc = scenario.to_dict()
    doc["seed"] = seed
    payload = {
        "scenario": doc,
        "engine": engine_hash(),
        "files": _named_files(scenario),
        "tables": None if tables is None else sorted(tables),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def default_cache() -> Path:
    """Where runs are cached unless told: one folder per user, shared by every sweep and
    repro (a key never names two different runs): ``$XDG_CACHE_HOME/fanin``, else
    ``~/.cache/fanin``."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"  # XDG: ignore a relative one
    return base / "fanin"
