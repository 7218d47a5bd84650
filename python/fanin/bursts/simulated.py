"""fanin's own host counters (``Results.hosts``) in the tidy table.

The receiver's line rate is known here: it is the rate of the port that delivers to the host
(``ports`` table, ``<switch>-><host>``), so a simulated run needs no inference.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pandas as pd

from fanin._fs import MANIFEST
from fanin.bursts.counters import COLUMNS, BurstInputError, empty
from fanin.bursts.units import parse_time_ps
from fanin.results import Results


def is_result_dir(path: Path) -> bool:
    return path.is_dir() and (path / MANIFEST).is_file()


def _bin_ps(results: Results, hosts: pd.DataFrame) -> int:
    starts = np.unique(hosts["bin_start_ps"].to_numpy())
    if len(starts) >= 2:
        return int(starts[1] - starts[0])
    scenario = tomllib.loads(results.manifest.get("scenario", "")) if results.manifest.get("scenario") else {}
    record = scenario.get("record", {}).get("hosts", {})
    return parse_time_ps(record.get("bin", "1ms") if isinstance(record, dict) else "1ms", "record.hosts.bin")


def _line_rates(results: Results) -> dict[str, int]:
    """Host name -> rate of the port that delivers to it (its NIC's ingress line rate)."""
    ports = results.ports
    rates: dict[str, int] = {}
    for name, rate in zip(ports["port_name"], ports["rate_bps"], strict=True):
        if "->" in name:
            rates[name.split("->", 1)[1]] = int(rate)
    return rates


def from_results(results: Results, dataset: str = "") -> pd.DataFrame:
    """``results.hosts`` as the tidy table (an empty table if the run recorded no hosts)."""
    hosts = results.hosts
    if hosts.empty:
        return empty()
    bin_ps = _bin_ps(results, hosts)
    snapshot = f"{results.manifest.get('name', 'run')}-seed{results.manifest.get('seed', '')}"
    rates = _line_rates(results)
    out = pd.DataFrame(
        {
            "dataset": dataset or snapshot,
            "source": "fanin",
            "snapshot": snapshot,
            "rack": "",
            "host": hosts["host_name"].astype(str),
            "bin_ps": np.int64(bin_ps),
            "bin_start_ps": hosts["bin_start_ps"].astype(np.int64),
        }
    )
    for c in ("ingress_bytes", "egress_bytes", "in_rxmit_bytes", "out_rxmit_bytes", "in_ce_bytes", "connections"):
        out[c] = hosts[c].astype(np.int64)
    out["line_rate_bps"] = out["host"].map(rates).fillna(0).astype(np.int64)
    return out[list(COLUMNS)]


def read_result_dir(path: str | Path, dataset: str = "") -> pd.DataFrame:
    p = Path(path)
    try:
        results = Results.from_parquet(p)
    except (ValueError, OSError) as e:
        raise BurstInputError(f"{p}: not a readable fanin result ({e})") from None
    frame = from_results(results, dataset or p.name)
    if frame.empty:
        raise BurstInputError(f"{p}: the run recorded no host counters (add [record] hosts = {{}} to the scenario)")
    return frame
