"""Table 2's testbed columns and Fig. 14, on a simulated analog of the paper's 16-server,
1 Mb/s testbed: per topology, with and without Superways, the p99 FCT of the short flows
(the 4 KB background flows and the apps' 4 KB responses, as in the simulation's metric; the
responses alone are kept beside it) and the mean throughput of the 1 MB flows, each
averaged over the 10 repetitions (seeds); and the apps' server's access link against a
worker's (Fig. 14: the aggregator's bandwidth utilization)."""

from __future__ import annotations

from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin import Results

SHORT_BYTES = 4000
LONG_BYTES = 1_000_000
AGGREGATOR = "h15"
HOSTS = 16
BASES = ("leaf_spine", "jellyfish", "bcube", "subways")
LABELS = {"leaf_spine": "Leaf-spine", "jellyfish": "Jellyfish", "bcube": "BCube", "subways": "Subways"}


def _nearest_rank(x: np.ndarray, q: float) -> float:
    if not len(x):
        return float("nan")
    s = np.sort(x)
    return float(s[max(int(np.ceil(q * len(s))) - 1, 0)])


def _into(ports: pd.DataFrame, host: str) -> int:
    """Bytes sent to `host` over every link it has (its leaf's and any extra ones)."""
    return int(ports[ports["port_name"].str.endswith(f"->{host}")]["tx_bytes"].sum())


def derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    f = results.flows
    done = f[f["completed"]]
    short = done[done["size_bytes"] <= SHORT_BYTES]
    responses = short[short["incast_id"] >= 0]
    long = done[done["size_bytes"] >= LONG_BYTES]
    mbps = 8.0 * long["size_bytes"].astype("float64") / long["fct_ps"].astype("float64") * 1e6
    ms = lambda d: d["fct_ps"].astype("float64").to_numpy() / 1e9  # noqa: E731
    workers = [_into(results.ports, f"h{h}") for h in range(HOSTS) if f"h{h}" != AGGREGATOR]
    return pd.DataFrame(
        [
            {
                "p99_ms": _nearest_rank(ms(short), 0.99),
                "responses_p99_ms": _nearest_rank(ms(responses), 0.99),
                "long_mbps": float(mbps.mean()) if len(mbps) else float("nan"),
                "aggregator_over_worker": _into(results.ports, AGGREGATOR) / float(np.mean(workers)),
                "unfinished": int((~f["completed"]).sum()),
                "drops": int(results.ports["dropped_pkts"].sum()),
            }
        ]
    )


def table(df: pd.DataFrame) -> pd.DataFrame:
    """Per series: means over the repetitions."""
    cols = ["p99_ms", "responses_p99_ms", "long_mbps", "aggregator_over_worker", "unfinished", "drops"]
    return df.groupby("variant")[cols].mean()


def reduction_pct(df: pd.DataFrame, base: str, col: str = "p99_ms") -> float:
    t = table(df)[col]
    return float(100 * (1 - t[f"superways_{base}"] / t[base]))


def gain_pct(df: pd.DataFrame, base: str) -> float:
    t = table(df)["long_mbps"]
    return float(100 * (t[f"superways_{base}"] / t[base] - 1))


def gain_largest_on(df: pd.DataFrame, base: str) -> bool:
    g = {b: gain_pct(df, b) for b in BASES}
    return max(g, key=g.get) == base


def gain_smallest_on(df: pd.DataFrame, base: str) -> bool:
    g = {b: gain_pct(df, b) for b in BASES}
    return min(g, key=g.get) == base


def aggregator_over_worker(df: pd.DataFrame) -> float:
    return float(table(df).loc["leaf_spine", "aggregator_over_worker"])


def plot(df: pd.DataFrame) -> plt.Figure:
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.2))
    x = np.arange(len(BASES))
    for ax, fn, label in ((axes[0], reduction_pct, "reduction in p99 FCT, short flows (%)"), (axes[1], gain_pct, "long-flow throughput gain (%)")):
        ax.bar(x, [fn(df, b) for b in BASES], 0.6)
        ax.set_xticks(x, [LABELS[b] for b in BASES], fontsize=8)
        ax.set_ylabel(label, fontsize=8)
    return fig
