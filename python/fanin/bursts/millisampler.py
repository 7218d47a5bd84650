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
import math
import re
import warnings
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from fanin.bursts.counters import PS_PER_S, BurstInputError, BurstInputWarning, concat, series_frame
from fanin.bursts.units import format_rate

FIELDS = {
    "ingressBytes": "ingress_bytes",
    "egressBytes": "egress_bytes",
    "inRxmitBytes": "in_rxmit_bytes",
    "outRxmitBytes": "out_rxmit_bytes",
    "inCongestionExperiencedBytes": "in_ce_bytes",
    "connections": "connections",
}
"""Millisampler's array names -> the tidy table's columns."""

MAX_RATE_BPS = 10**13
"""10 Tbit/s, several times the fastest Ethernet: a bin with more bytes than this moves in it is corrupt."""

MAX_CONNECTIONS = 2**32 - 1
"""More connections than this would take terabytes of socket state: a larger count is corrupt."""

MAX_SAMPLING_HZ = 10**9
"""Bins of 1 ns at the finest (the table counts time in picoseconds)."""

_NAME = re.compile(r"^rackId_(?P<rack>[^_]+)_hostId_(?P<host>.+?)\.(?:txt|json)(?:\.gz)?$")
_SUFFIXES = (".txt.gz", ".json.gz", ".txt", ".json")


def is_millisampler_file(path: Path) -> bool:
    return path.name.endswith(_SUFFIXES)


@dataclass
class Skipped:
    """Files a folder read passed over, with the reason for each, out of ``files`` it found."""

    no_counters: list[str] = field(default_factory=list)
    malformed: list[str] = field(default_factory=list)
    files: int = 0

    def __len__(self) -> int:
        return len(self.no_counters) + len(self.malformed)

    def extend(self, other: Skipped) -> None:
        self.no_counters += other.no_counters
        self.malformed += other.malformed
        self.files += other.files

    def summary(self) -> str:
        """One line: how many files were skipped, of how many, and why (one example)."""
        example = self.malformed[0] if self.malformed else f"{self.no_counters[0]}: no counters"
        head = f"skipped {len(self)} of {self.files} files"
        if len(self) == 1:
            return f"{head}: {example}"
        kinds = [f"{len(self.malformed)} malformed"] if self.malformed else []
        kinds += [f"{len(self.no_counters)} without counters"] if self.no_counters else []
        return f"{head} ({', '.join(kinds)}), e.g. {example}"


class NoCounters(BurstInputError):
    """A well-formed file that carries no ``ingressBytes`` series (the data set has some)."""


def _load_json(path: Path) -> Any:
    raw = path.read_bytes()
    try:
        data = gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except (OSError, EOFError, zlib.error) as e:
        raise BurstInputError(f"{path}: not a readable gzip file ({e})") from None
    if not data.strip():
        raise BurstInputError(f"{path}: empty file (expected a Millisampler JSON object)")
    try:
        text = data.decode("utf-8-sig")  # JSON is UTF-8; a byte-order mark is tolerated, as json.loads does
    except UnicodeDecodeError as e:
        raise BurstInputError(f"{path}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start:,})") from None
    try:
        return json.loads(text)
    except ValueError as e:  # also a number too long for Python to read
        raise BurstInputError(f"{path}: not JSON ({e})") from None
    except RecursionError:
        raise BurstInputError(f"{path}: not JSON (nested too deeply)") from None


def _bin_ps(path: Path, doc: dict[str, Any]) -> int:
    freq = doc.get("sampling_freq")
    try:
        hz = float(freq) if not isinstance(freq, bool) else math.nan  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        hz = math.nan
    if not 1 <= hz <= MAX_SAMPLING_HZ:
        raise BurstInputError(
            f"{path}: sampling_freq must be a positive number of bins per second "
            f"(allowed: 1 to {MAX_SAMPLING_HZ:,}), got {freq!r}"
        )
    return round(PS_PER_S / hz)


def _shown(value: object) -> str:
    """A value as the file spells it (JSON), cut to a readable length."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _value_problem(value: object, limit: int) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"not a number ({_shown(value)})"
    if isinstance(value, float) and not math.isfinite(value):
        return f"not a finite number ({_shown(value)})"
    if value < 0:
        return f"negative ({_shown(value)})"
    if value > limit:
        return f"too large ({_shown(value)})"
    return None


def _limit(key: str, bin_ps: int) -> tuple[int, str]:
    """The largest value a counter can hold in one bin, and why."""
    if key == "connections":
        return MAX_CONNECTIONS, "connections"
    most = MAX_RATE_BPS * bin_ps // (8 * PS_PER_S)
    return most, f"bytes {format_rate(MAX_RATE_BPS)}bps moves in a {bin_ps / 1e9:g} ms bin"


def _array(path: Path, doc: dict[str, Any], key: str, n: int | None, bin_ps: int) -> list[int]:
    values = doc[key]
    if not isinstance(values, list):
        raise BurstInputError(f"{path}: {key} must be an array of non-negative numbers, found {_shown(values)}")
    limit, unit = _limit(key, bin_ps)
    whole = all(type(v) is int for v in values)  # the usual case, checked at C speed
    if not (whole and (not values or (0 <= min(values) and max(values) <= limit))):
        for i, v in enumerate(values):
            if problem := _value_problem(v, limit):
                raise BurstInputError(
                    f"{path}: bin {i}: {key}: {problem}; allowed: non-negative numbers up to {limit:,} ({unit})"
                )
    if n is not None and len(values) != n:
        raise BurstInputError(f"{path}: {key} has {len(values)} values, ingressBytes has {n}")
    return values if whole else [int(v) for v in values]


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
        raise NoCounters(f"{p}: no counters (ingressBytes is missing or empty; expected arrays {', '.join(FIELDS)})")
    n = len(doc["ingressBytes"]) if isinstance(doc["ingressBytes"], list) else None
    bin_ps = _bin_ps(p, doc)
    arrays = {col: _array(p, doc, key, n, bin_ps) for key, col in FIELDS.items() if key in doc}
    m = _NAME.match(p.name)
    rack, host = (m["rack"], m["host"]) if m else ("", str(doc.get("server_hostname") or p.name.split(".")[0]))
    snapshot = p.parent.name.removesuffix("-zip")
    keys = {"dataset": dataset or snapshot, "source": "millisampler", "snapshot": snapshot, "rack": rack, "host": host}
    return series_frame(keys, bin_ps, arrays)


def read_folder(path: str | Path, dataset: str = "") -> tuple[pd.DataFrame, Skipped]:
    """Every Millisampler file under ``path`` (recursively), in name order.

    Files without counters and malformed files are skipped and listed, never fatal (one
    :class:`BurstInputWarning` says how many and why); a folder with no usable file at all is an error.
    """
    root = Path(path)
    files = sorted(f for f in root.rglob("*") if f.is_file() and is_millisampler_file(f))
    skipped = Skipped(files=len(files))
    frames = []
    for f in files:
        try:
            frames.append(read_file(f, dataset or root.name))
        except NoCounters:
            skipped.no_counters.append(str(f))
        except BurstInputError as e:
            skipped.malformed.append(str(e))
    if not frames:
        found = skipped.summary() if files else f"no {' / '.join('*' + s for s in _SUFFIXES)} files"
        raise BurstInputError(f"{root}: no host counters found ({found})")
    if skipped:
        warnings.warn(f"{root}: {skipped.summary()}", BurstInputWarning, stacklevel=2)
    return concat(frames), skipped
