"""Superways placed by its own heuristic (spec §1.2-1.3): the extra links and the leaf/extra
split `fanin plan place` gives the Figs. 6-9 apps, run at d = 96 (the only degree where it
adds a link), beside leaf-spine and the code's hard-wired 3 links. The metrics are Figs.
6-9's (the same derive)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from fanin.plan import place
from fanin.plan.inputs import parse_apps
from fanin.sweep import load_module

figs6_9 = load_module(Path(__file__).parent.parent / "fig6_9" / "analysis.py", "fanin_catalog_superways_fig6_9")
derive = figs6_9.derive
DEGREES = (48, 64, 80, 96)
# The short responses' mean under the text's mix (spec §2) and the code's FlowSizeShort.
FLOW_SIZES = {"text mix (2,278 B)": "2278B", "code (3,533 B)": "3533B"}
LABELS = {"leaf_spine": "Leaf-spine", "superways_leaf_spine": "Superways, code (3 links)", "superways_heuristic": "Superways, heuristic"}


def plan(d: int, flow_size: str) -> tuple[int, int]:
    """(extra links, senders kept on the leaf) for one app of degree d with its expected d/20
    local senders (8 of the 160 incast senders share its rack), Table 1's parameters."""
    params = {"alpha": 0.8, "flow_size": flow_size, "leaf_buffer": "240000B", "spine_buffer": "240000B", "theta": 4}
    p, apps = parse_apps({"parameters": params, "app": [{"name": "a", "degree": d, "local_senders": round(Fraction(d, 20))}]})
    placed = place(apps, p)
    return placed.servers[0].links, placed.apps[0].leaf_senders


def heuristic_links_at_96(df: pd.DataFrame) -> float:
    return float(plan(96, FLOW_SIZES["code (3,533 B)"])[0])


def heuristic_links_below_96(df: pd.DataFrame) -> float:
    """The most links the heuristic gives any d <= 80 or any d at the text mix's size."""
    cases = [(d, s) for d in DEGREES for s in FLOW_SIZES.values() if d < 96 or s == "2278B"]
    return float(max(plan(d, s)[0] for d, s in cases))


def _p99(df: pd.DataFrame, variant: str) -> pd.Series:
    """Per load: the variant's p99 (mean over seeds)."""
    t = figs6_9.table(df)
    return t[t["variant"] == variant].set_index("rho")["p99_ms"]


def heuristic_reduction_pct(df: pd.DataFrame) -> float:
    """Fig. 7's reduction for the heuristic's placement on leaf-spine, mean over loads."""
    return float(100 * (1 - _p99(df, "superways_heuristic") / _p99(df, "leaf_spine")).mean())


def heuristic_over_code_p99(df: pd.DataFrame) -> float:
    return float((_p99(df, "superways_heuristic") / _p99(df, "superways_leaf_spine")).mean())


def plot(df: pd.DataFrame) -> plt.Figure:
    return figs6_9.series_over_load(figs6_9.table(df), LABELS, "p99_ms", "99th percentile FCT, short flows (ms), d = 96", True)
