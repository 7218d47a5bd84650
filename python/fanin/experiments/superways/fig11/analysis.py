"""Fig. 11: what more extra links per incast server cost (high degrees, theta = 1 at 10G,
shallow buffers need L > 1): 70 incast servers (3 % of 2,304), spines bought as the links
need ports (model B), beside Subways type-1."""

from __future__ import annotations

from fractions import Fraction

import matplotlib.pyplot as plt
import pandas as pd

from fanin.plan import cost

SHARE = Fraction(3, 100)
LINKS = range(1, 5)  # spec §2: L in 1..4


def table(_: pd.DataFrame | None = None) -> pd.DataFrame:
    return pd.DataFrame([{"L": L, "dollars": cost.superways(SHARE, L, "B").total} for L in LINKS])


def dearest_over_subways(_: pd.DataFrame) -> float:
    """The largest L's cost as a share of Subways type-1's (below 1: still cheaper)."""
    return float(table()["dollars"].max()) / cost.Subways(cost.SERVERS).total


def links_until_subways_costs_less(_: pd.DataFrame) -> float:
    """The first L at which Superways (3 %, model B) costs as much as Subways (reported)."""
    L = 1
    while cost.superways(SHARE, L, "B").total < cost.Subways(cost.SERVERS).total:
        L += 1
    return float(L)


def plot(_: pd.DataFrame) -> plt.Figure:
    t = table()
    fig, ax = plt.subplots()
    ax.bar(t["L"], t["dollars"], 0.6, label="Superways (3 %, model B)")
    ax.axhline(cost.Subways(cost.SERVERS).total, color="0.3", ls="--", label="Subways type-1")
    ax.set_xlabel("extra links per incast server (L)")
    ax.set_ylabel("cost ($)")
    ax.legend(fontsize=7)
    return fig
