"""What identifies a cached run: the canonical scenario, the seed, the engine binary, the
contents of every file the scenario names, and the tables kept. Two runs with the same key
give byte-identical results, so the sweep cache reuses one for the other."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from fanin.scenario import Scenario

_ENGINE: str | None = None


def engine_hash() -> str:
    """sha256 of the engine's binary: a rebuilt engine reruns everything."""
    global _ENGINE
    if _ENGINE is None:
        from fanin import _native

        h = hashlib.sha256(_native.version().encode())
        with open(_native.__file__, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _ENGINE = h.hexdigest()
    return _ENGINE


def _strings(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, Mapping):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)


def _named_files(scenario: Scenario) -> list[tuple[str, str]]:
    """(name, sha256) of every file the scenario names, found where the engine looks."""
    found = []
    for s in sorted(set(_strings(scenario.data))):
        if "/" not in s and "." not in s:
            continue
        for d in scenario.search_dirs():
            p = Path(d) / s
            if p.is_file():
                found.append((s, hashlib.sha256(p.read_bytes()).hexdigest()))
                break
    return found


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
    return Path("out") / "cache"
