"""The tidy table of host counters every reader produces (one row per host and bin).

The counter columns are Millisampler's (Ghabashneh et al., IMC '22; Canel et al., IMC '24)
under fanin's names; ``docs/bursts.md`` has the mapping and the units.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

KEYS = ("dataset", "source", "snapshot", "rack", "host")
"""Which series a row belongs to: a (dataset, source, snapshot, rack, host) is one host's snapshot."""

COUNTERS = ("ingress_bytes", "egress_bytes", "in_rxmit_bytes", "out_rxmit_bytes", "in_ce_bytes", "connections")

COLUMNS = (*KEYS, "bin_ps", "bin_start_ps", *COUNTERS, "line_rate_bps")
"""``line_rate_bps`` is the NIC rate when the input records it (fanin results), else 0."""

PS_PER_S = 10**12


class BurstInputError(ValueError):
    """Input that cannot be measured: a malformed file, a missing path, a bad option.

    ``str()`` is one line that names the file or option and says what is wrong.
    """


class BurstInputWarning(UserWarning):
    """Input measured only in part: a capture cut short, files of a folder skipped.

    ``str()`` is one line that names the input, what was left out and why.
    """


def series_frame(
    keys: Mapping[str, str], bin_ps: int, counters: Mapping[str, Sequence[int] | np.ndarray], line_rate_bps: int = 0
) -> pd.DataFrame:
    """One host's snapshot as rows of the tidy table; bins are dense from 0."""
    n = len(counters["ingress_bytes"])
    data: dict[str, object] = {k: [keys.get(k, "")] * n for k in KEYS}
    data["bin_ps"] = np.full(n, bin_ps, dtype=np.int64)
    data["bin_start_ps"] = np.arange(n, dtype=np.int64) * bin_ps
    for c in COUNTERS:
        data[c] = np.asarray(counters.get(c, np.zeros(n)), dtype=np.int64)
    data["line_rate_bps"] = np.full(n, line_rate_bps, dtype=np.int64)
    return pd.DataFrame(data, columns=list(COLUMNS))


def concat(frames: Iterable[pd.DataFrame]) -> pd.DataFrame:
    """Joins tables; an empty input gives an empty table with the documented columns."""
    parts = [f for f in frames if len(f)]
    if not parts:
        return empty()
    out = pd.concat(parts, ignore_index=True)
    return out[list(COLUMNS)]


def empty() -> pd.DataFrame:
    data: dict[str, object] = {k: pd.Series([], dtype=object) for k in KEYS}
    for c in ("bin_ps", "bin_start_ps", *COUNTERS, "line_rate_bps"):
        data[c] = pd.Series([], dtype=np.int64)
    return pd.DataFrame(data, columns=list(COLUMNS))


def rebin(counters: pd.DataFrame, bin_ps: int) -> pd.DataFrame:
    """Coarser bins: each new bin sums whole old bins (bytes add up).

    ``connections`` of a coarse bin is the maximum over its sub-bins, a lower bound of the
    distinct connections in it (the counters do not say which connections they were).
    """
    if counters.empty or (counters["bin_ps"] == bin_ps).all():
        return counters
    old = counters["bin_ps"].to_numpy()
    if (bin_ps % old).any() or (old > bin_ps).any():
        have = ", ".join(f"{b / 1e9:g}ms" for b in sorted(set(old.tolist())))
        raise BurstInputError(f"--bin: {bin_ps / 1e9:g}ms is not a whole multiple of the recorded bin ({have})")
    frame = counters.assign(bin_start_ps=counters["bin_start_ps"] // bin_ps * bin_ps, bin_ps=bin_ps)
    agg = {c: "sum" for c in COUNTERS} | {"connections": "max", "line_rate_bps": "max"}
    out = frame.groupby([*KEYS, "bin_ps", "bin_start_ps"], sort=False, as_index=False).agg(agg)
    return out[list(COLUMNS)]
