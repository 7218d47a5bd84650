"""Millisampler per-host files: one gzipped JSON per host and snapshot.

The public syncMillisampler data (``facebookresearch/Millisampler-data``) lays them out as
``dayD-hH-zip/rackId_R_hostId_H.txt.gz``; each file holds the arrays ``ingressBytes``,
``egressBytes``, ``inRxmitBytes``, ``outRxmitBytes``, ``inCongestionExperiencedBytes`` and
``connections`` (one value per bin) and the metadata ``server_hostname`` and
``sampling_freq`` (bins per second).
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fanin.bursts.counters import PS_PER_S, BurstInputError, concat, series_frame

FIELDS = {
    "ingressBytes": "ingress_bytes",
    "egressBytes": "egress_bytes",
    "inRxmitBytes": "in_rxmit_bytes",
    "outRxmitBytes": "out_rxmit_bytes",
    "inCongestionExperiencedBytes": "in_ce_bytes",
    "connections": "connections",
}
"""Millisampler's array names -> the tidy table's columns."""

_NAME = re.compile(r"^rackId_(?P<rack>[^_]+)_hostId_(?P<host>.+?)\.(?:txt|json)(?:\.gz)?$")
_SUFFIXES = (".txt.gz", ".json.gz", ".txt", ".json")


def is_millisampler_file(path: Path) -> bool:
    return path.name.endswith(_SUFFIXES)


@dataclass
class Skipped:
    """Files a folder read passed over, with the reason for each."""

    no_counters: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.no_counters) + len(self.malformed)

    def extend(self, other: Skipped) -> None:
        self.no_counters += other.no_counters
        self.malformed += other.malformed

    def lines(self) -> list[str]:
        return describe_skipped(self.no_counters, self.malformed)


def describe_skipped(no_counters: list[str], malformed: list[str]) -> list[str]:
    """One line per kind of skipped file, with one example."""
    out = []
    if no_counters:
        out.append(f"{len(no_counters)} file(s) without counters skipped, e.g. {no_counters[0]}")
    if malformed:
        out.append(f"{len(malformed)} malformed file(s) skipped, e.g. {malformed[0]}")
    return out


class NoCounters(BurstInputError):
    """A well-formed file that carries no ``ingressBytes`` series (the data set has some)."""


def _load_json(path: Path) -> Any:
    raw = path.read_bytes()
    try:
        text = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
        return json.loads(text)
    except (OSError, EOFError, zlib.error) as e:
        raise BurstInputError(f"{path}: not a readable gzip file ({e})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BurstInputError(f"{path}: not JSON ({e})") from None


def _bin_ps(path: Path, doc: dict[str, Any]) -> int:
    freq = doc.get("sampling_freq")
    try:
        hz = float(freq)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        hz = float("nan")
    if not hz > 0:
        raise BurstInputError(f"{path}: sampling_freq must be a positive number of bins per second, got {freq!r}")
    return round(PS_PER_S / hz)


def _array(path: Path, doc: dict[str, Any], key: str, n: int | None) -> list[int]:
    values = doc[key]
    if not isinstance(values, list) or not all(isinstance(v, int | float) and v >= 0 for v in values):
        raise BurstInputError(f"{path}: {key} must be an array of non-negative numbers")
    if n is not None and len(values) != n:
        raise BurstInputError(f"{path}: {key} has {len(values)} values, ingressBytes has {n}")
    return [int(v) for v in values]


def read_file(path: str | Path, dataset: str = "") -> pd.DataFrame:
    """One host's snapshot. Raises :class:`NoCounters` for a file without counters and
    :class:`BurstInputError` for a malformed one.

    Counter arrays other than ``ingressBytes`` may be absent (they read as zeros).
    """
    p = Path(path)
    doc = _load_json(p)
    if not isinstance(doc, dict):
        raise BurstInputError(f"{p}: expected a JSON object, found {type(doc).__name__}")
    if not doc.get("ingressBytes"):
        raise NoCounters(f"{p}: no counters (ingressBytes is missing or empty)")
    n = len(doc["ingressBytes"])
    arrays = {col: _array(p, doc, key, n) for key, col in FIELDS.items() if key in doc}
    m = _NAME.match(p.name)
    rack, host = (m["rack"], m["host"]) if m else ("", str(doc.get("server_hostname") or p.name.split(".")[0]))
    snapshot = p.parent.name.removesuffix("-zip")
    keys = {"dataset": dataset or snapshot, "source": "millisampler", "snapshot": snapshot, "rack": rack, "host": host}
    return series_frame(keys, _bin_ps(p, doc), arrays)


def read_folder(path: str | Path, dataset: str = "") -> tuple[pd.DataFrame, Skipped]:
    """Every Millisampler file under ``path`` (recursively), in name order.

    Files without counters and malformed files are skipped and listed, never fatal; a folder
    with no usable file at all is an error.
    """
    root = Path(path)
    files = sorted(f for f in root.rglob("*") if f.is_file() and is_millisampler_file(f))
    skipped = Skipped()
    frames = []
    for f in files:
        try:
            frames.append(read_file(f, dataset or root.name))
        except NoCounters:
            skipped.no_counters.append(str(f))
        except BurstInputError as e:
            skipped.malformed.append(str(e))
    if not frames:
        found = f"{len(files)} file(s): " + "; ".join(skipped.lines()) if files else "no *.txt.gz / *.json(.gz) files"
        raise BurstInputError(f"{root}: no host counters found ({found})")
    return concat(frames), skipped
