"""The authors' code's variants (spec §1.4 [code], §2 "code-intended option", §4): the same
metrics as Figs. 6-9 (the same derive) for its shared-buffer module, its second-NIC "BCube"
and its flow-size mixes, each beside the paper-text setting that Figs. 6-9 run."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from fanin.sweep import load_module

figs6_9 = load_module(Path(__file__).parent.parent / "fig6_9" / "analysis.py", "fanin_catalog_superways_fig6_9")
derive = figs6_9.derive
tail_reduction_pct = figs6_9.tail_reduction_pct
speedup_pct = figs6_9.speedup_pct
long_only_speedup_pct = figs6_9.long_only_speedup_pct
LABELS = {
    "leaf_spine": "Leaf-spine",
    "leaf_spine_dt_code": "Leaf-spine + DT (code: alpha 2, 9 MB, 1 ms)",
    "bcube_code": "BCube (code: 2nd NIC to leaf i mod 10)",
    "superways_bcube_code": "Superways/BCube (code)",
    "leaf_spine_code_mix": "Leaf-spine, code's size mixes",
    "superways_leaf_spine_code_mix": "Superways/Leaf-spine, code's size mixes",
}


def dt_code_over_ls_low_load_max(df: pd.DataFrame) -> float:
    return figs6_9.dt_over_ls_low_load_max(df, "leaf_spine_dt_code")


def dt_code_high_over_low(df: pd.DataFrame) -> float:
    return figs6_9.dt_high_over_low(df, "leaf_spine_dt_code")


def plot(df: pd.DataFrame) -> dict[str, plt.Figure]:
    t = figs6_9.table(df)
    return {
        "p99": figs6_9.series_over_load(t, LABELS, "p99_ms", "99th percentile FCT, short flows (ms)", True),
        "throughput": figs6_9.series_over_load(t, LABELS, "long_gbps", "average throughput, flows >= 64 KiB (Gb/s)", False),
    }
