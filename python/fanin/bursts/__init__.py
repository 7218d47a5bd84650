"""Bursts in host counters, measured the way Canel et al. (IMC '24) measure them.

>>> import fanin.bursts as fb
>>> counters = fb.load("day1-h1-zip", "out/sim", "receiver.pcap")   # doctest: +SKIP
>>> found = fb.find(counters, line_rate="25G")                        # doctest: +SKIP
>>> found.bursts[["host", "duration_ps", "flows", "incast"]]          # doctest: +SKIP

Readers (``load``) give one tidy table of per-host, per-bin counters; ``find`` applies the
paper's definitions; ``write`` stores the tables (Parquet) and the figures.
"""

from fanin.bursts.analysis import CANDIDATE_RATES_BPS, Bursts, find
from fanin.bursts.counters import COLUMNS, COUNTERS, KEYS, BurstInputError, BurstInputWarning
from fanin.bursts.load import load

__all__ = [
    "CANDIDATE_RATES_BPS",
    "COLUMNS",
    "COUNTERS",
    "KEYS",
    "BurstInputError",
    "BurstInputWarning",
    "Bursts",
    "find",
    "load",
]
