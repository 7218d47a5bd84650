"""Rates and bin widths given on the command line: ``25G``, ``100Mbps``, ``1ms``, ``100us``,
read by the engine's parser, so they are written as in scenario files."""

from __future__ import annotations

from collections.abc import Callable

from fanin import _native
from fanin.bursts.counters import BurstInputError

def _parse(text: str, parse: Callable[[str], int], option: str) -> int:
    """One quantity in the scenario files' grammar (the engine's parser), or one line naming
    the option and the accepted units."""
    try:
        value = parse(text)
    except ValueError as e:
        raise BurstInputError(f"{option}: {e}") from None
    if value <= 0:
        raise BurstInputError(f"{option}: {text!r} must be positive")
    return value


def parse_rate_bps(text: str, option: str = "--line-rate") -> int:
    """``25G``, ``25Gbps``, ``100Mbps`` (powers of 1000) -> bits per second."""
    return _parse(text, _native.parse_rate, option)


def parse_time_ps(text: str, option: str = "--bin") -> int:
    """``1ms``, ``100us``, ``10ms`` -> picoseconds."""
    return _parse(text, _native.parse_time, option)


def parse_bytes(text: str, option: str) -> int:
    """``100KB`` (10^3), ``64KiB`` (2^10), ``1500B`` -> bytes."""
    return _parse(text, _native.parse_bytes, option)


def format_rate(bps: float) -> str:
    for unit, scale in (("T", 1e12), ("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if bps >= scale:
            return f"{bps / scale:g}{unit}"
    return f"{bps:g}bps"
