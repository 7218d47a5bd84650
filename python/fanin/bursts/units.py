"""Rates and bin widths given on the command line: ``25G``, ``100Mbps``, ``1ms``, ``100us``."""

from __future__ import annotations

import re
from fractions import Fraction

from fanin.bursts.counters import BurstInputError

_NUMBER = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*([A-Za-zµ]*)\s*$")
_RATE_UNITS = {"": 1, "bps": 1, "k": 10**3, "kbps": 10**3, "m": 10**6, "mbps": 10**6, "g": 10**9, "gbps": 10**9}
_RATE_UNITS |= {"t": 10**12, "tbps": 10**12}
_BYTE_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30}
_TIME_UNITS_PS = {"ps": 1, "ns": 10**3, "us": 10**6, "µs": 10**6, "ms": 10**9, "s": 10**12}


def _parse(text: str, units: dict[str, int], option: str, allowed: str, fold: bool) -> int:
    m = _NUMBER.match(text)
    unit = m.group(2).lower() if m and fold else (m.group(2) if m else "")
    if not m or unit not in units:
        raise BurstInputError(f"{option}: cannot read {text!r} (allowed: a number and one of {allowed})")
    value = Fraction(m.group(1)) * units[unit]
    if value.denominator != 1 or value <= 0:
        raise BurstInputError(f"{option}: {text!r} must be a positive whole number of {allowed.split(',')[0]}")
    return int(value)


def parse_rate_bps(text: str, option: str = "--line-rate") -> int:
    """``25G``, ``25Gbps``, ``100M``, ``400Mbps`` (powers of 1000) -> bits per second."""
    return _parse(text, _RATE_UNITS, option, "bps, K, M, G, T (optionally with bps: 25Gbps)", fold=True)


def parse_time_ps(text: str, option: str = "--bin") -> int:
    """``1ms``, ``100us``, ``10ms`` -> picoseconds."""
    return _parse(text, _TIME_UNITS_PS, option, "ps, ns, us, ms, s", fold=False)


def parse_bytes(text: str, option: str) -> int:
    """``100KB`` (10^3), ``64KiB`` (2^10), ``1500B`` -> bytes."""
    return _parse(text, _BYTE_UNITS, option, "B, KB, MB, GB, KiB, MiB, GiB", fold=False)


def format_rate(bps: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g}{unit}"
    return f"{bps:g}bps"
