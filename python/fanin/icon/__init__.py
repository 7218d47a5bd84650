"""The ICON study (Rezaei et al., "ICON: Incast Congestion Control using Packet Pacing",
COMSNETS '19): per-run reductions of its leaf-spine runs and the statistics its figures
pool over seeds. `experiments/icon/` uses them.
"""

from __future__ import annotations

from .analysis import (
    BASELINES,
    LABELS,
    LONG_BYTES,
    SCHEMES,
    burst_durations_us,
    fct_histogram,
    pooled_quantile,
    queue_quantile,
    run_summary,
)

__all__ = [
    "BASELINES",
    "LABELS",
    "LONG_BYTES",
    "SCHEMES",
    "burst_durations_us",
    "fct_histogram",
    "pooled_quantile",
    "queue_quantile",
    "run_summary",
]
