"""Standard figures (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter, ScalarFormatter

from fanin import _native
from fanin._fs import atomic_write_bytes
from fanin.analysis import SIZE_EDGES, bucket_labels, cdf, fct_by_size, size_buckets
from fanin.results import Results


def _time_axis(t_ps: np.ndarray) -> tuple[np.ndarray, str]:
    span = float(t_ps.max()) if t_ps.size else 0.0
    if span >= 5e9:  # >= 5 ms: milliseconds
        return t_ps / 1e9, "time (ms)"
    return t_ps / 1e6, "time (µs)"


def queue_and_fct(results: Results, path: str | os.PathLike[str]) -> Path:
    """Two panels: bottleneck queue depth over time, and per-flow FCT next to the ideal FCT.

    The queue panel draws every port in the ``queues`` table (KB, with the packet count on
    the right axis when one port is recorded); the FCT panel draws completed flows in
    flow-id order. Written atomically as PNG; returns the path.
    """
    queues, flows = results.queues, results.flows
    title = results.manifest.get("name", "")
    seed = results.manifest.get("seed")
    fig, (ax_q, ax_f) = figure(2, f"{title} (seed {seed})" if seed is not None else title)

    if len(queues):
        ports = list(dict.fromkeys(queues["port_name"]))
        for port in ports[:8]:
            q = queues[queues["port_name"] == port]
            x, xlabel = _time_axis(q["time_ps"].to_numpy(dtype=np.float64))
            ax_q.step(x, q["bytes"].to_numpy(dtype=np.float64) / 1e3, where="post", label=port, lw=1)
        if len(ports) == 1:
            pk = ax_q.secondary_yaxis(
                "right", functions=(lambda kb: kb * 1e3 / _mtu(results), lambda p: p * _mtu(results) / 1e3)
            )
            pk.set_ylabel(f"queue depth ({_mtu(results)} B packets)")
        if len(ports) > 1:
            ax_q.legend(fontsize="small", title="port" if len(ports) <= 8 else f"first 8 of {len(ports)} ports")
        ax_q.set_xlabel(xlabel)
        ax_q.set_ylabel("queue depth (KB)")
        # The recorded ports are whatever the scenario asked for, not necessarily a bottleneck.
        ax_q.set_title(f"queue at {ports[0]}" if len(ports) == 1 else "queues")
        ax_q.grid(alpha=0.3)
    else:
        ax_q.text(0.5, 0.5, "no queue series recorded\n([record] queues = ...)", ha="center", va="center")
        ax_q.set_axis_off()

    done = flows[flows["completed"]] if len(flows) else flows
    if len(done):
        done = done.sort_values("flow_id")
        x = np.arange(len(done))
        marker = "o" if len(done) <= 200 else "."
        ax_f.plot(x, done["fct_ps"].to_numpy(dtype=np.float64) / 1e9, marker, ms=4, label="FCT")
        ax_f.plot(x, done["ideal_fct_ps"].to_numpy(dtype=np.float64) / 1e9, "_", ms=8, color="k", label="ideal FCT")
        ax_f.set_xlabel("flow (in flow-id order)")
        ax_f.set_ylabel("flow completion time (ms)")
        missing = len(flows) - len(done)
        ax_f.set_title("per-flow FCT" + (f" ({missing} flows did not complete)" if missing else ""))
        ax_f.set_ylim(bottom=0)
        ax_f.legend(fontsize="small")
        ax_f.grid(alpha=0.3)
    else:
        ax_f.text(0.5, 0.5, "no completed flows recorded", ha="center", va="center")
        ax_f.set_axis_off()

    return save(fig, path)


def figure(panels: int, title: str) -> tuple[Figure, list[Axes]]:
    """A figure of ``panels`` stacked panels under ``title``."""
    fig, axes = plt.subplots(panels, 1, figsize=(9, 3.5 * panels), constrained_layout=True, squeeze=False)
    fig.suptitle(title)
    return fig, list(axes[:, 0])


def save(fig: Figure, path: str | os.PathLike[str]) -> Path:
    """Writes ``fig`` as PNG atomically (no timestamp: the same figure gives the same bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120, metadata={"Software": None})
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


def plot_fct_by_size(
    source: Results | pd.DataFrame,
    path: str | os.PathLike[str],
    edges: Sequence[int] = SIZE_EDGES,
    title: str = "",
) -> Path:
    """Two panels: the slowdown's median and p99 per size bucket (with each bucket's count of
    completed flows), and the CDF of the slowdown per bucket. PNG, written atomically."""
    flows = source.flows if isinstance(source, Results) else source
    table = fct_by_size(flows, edges)
    fig, (ax_b, ax_c) = figure(2, title or (source.manifest.get("name", "") if isinstance(source, Results) else ""))
    x = np.arange(len(table))
    for off, col, label in ((-0.2, "slowdown_p50", "median"), (0.2, "slowdown_p99", "p99")):
        ax_b.bar(x + off, table[col].astype("float64").fillna(0.0), width=0.4, label=label)
    ax_b.set_xticks(x, [f"{b}\n{c} of {n}" for b, c, n in zip(table["bucket"], table["completed"], table["flows"], strict=True)])
    ax_b.set_ylabel("slowdown (FCT / ideal FCT)")
    ax_b.set_title("slowdown by flow size (completed flows of each bucket)")
    ax_b.legend(fontsize="small")
    buckets = size_buckets(flows["size_bytes"], edges)
    done = flows["completed"].astype(bool)
    for label in bucket_labels(edges):
        c = cdf(flows.loc[done & (buckets == label), "slowdown"])
        if len(c):
            ax_c.step(c["x"], c["p"], where="post", label=label)
    ax_c.set_xscale("log")
    ax_c.xaxis.set_major_formatter(ScalarFormatter())  # 1, 2, 10 rather than 10^0
    ax_c.xaxis.set_minor_formatter(NullFormatter())
    ax_c.set_xlabel("slowdown")
    ax_c.set_ylabel("CDF")
    ax_c.legend(fontsize="small", title="flow size")
    for ax in (ax_b, ax_c):
        ax.grid(alpha=0.3)
    return save(fig, path)


def figure_kind(results: Results) -> str:
    """``"by_size"`` for a mix of flow sizes outside incasts (a Poisson or traffic-matrix
    workload, where a flow's id says nothing), else ``"incast"``."""
    flows = results.flows
    outside_incasts = flows[flows["incast_id"] < 0] if len(flows) else flows
    mixed = len(outside_incasts) and size_buckets(outside_incasts["size_bytes"]).nunique() > 1
    return "by_size" if mixed else "incast"


def standard_figure(results: Results, path: str | os.PathLike[str]) -> Path:
    """The figure that fits the run (:func:`figure_kind`): slowdown by flow size, or the
    queue and per-flow FCT of an incast."""
    if figure_kind(results) == "by_size":
        return plot_fct_by_size(results, path)
    return queue_and_fct(results, path)


def _mtu(results: Results) -> int:
    """The scenario's MTU in bytes (1500 when the scenario leaves it out)."""
    import tomllib

    try:
        mtu = tomllib.loads(results.manifest.get("scenario", "")).get("transport", {}).get("mtu", "1500B")
        return _native.parse_bytes(str(mtu))
    except (ValueError, tomllib.TOMLDecodeError):
        return 1500
