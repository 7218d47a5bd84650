"""Fig. 10: Subways type-1 against Superways at 3, 4 and 5 % of 2,304 servers hosting
aggregators, one extra link each, under both readings of how many spines Superways buys
(model A: the text's 2; model B: as the links need ports). The prices and models are
fanin.plan.cost's, the same as `fanin plan cost`."""

from __future__ import annotations

from fractions import Fraction

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from fanin.plan import cost

SHARES = (3, 4, 5)  # per cent of the servers


def table(_: pd.DataFrame | None = None) -> pd.DataFrame:
    rows = [{"scheme": "Subways type-1", "share_pct": None, "model": None, "dollars": cost.Subways(cost.SERVERS).total}]
    for model in cost.MODELS:
        for p in SHARES:
            s = cost.superways(Fraction(p, 100), 1, model)
            rows.append({"scheme": "Superways", "share_pct": p, "model": model, "dollars": s.total})
    return pd.DataFrame(rows)


def _ratio(p: int, model: str) -> float:
    return float(cost.ratio(Fraction(p, 100), 1, model))


def subways_dollars(_: pd.DataFrame) -> float:
    return float(cost.Subways(cost.SERVERS).total)


def superways_3pct_dollars(_: pd.DataFrame) -> float:
    return float(cost.superways(Fraction(3, 100), 1, "A").total)


def ratio_5pct_model_a(_: pd.DataFrame) -> float:
    return _ratio(5, "A")


def ratio_5pct_model_b(_: pd.DataFrame) -> float:
    return _ratio(5, "B")


def plot(_: pd.DataFrame) -> plt.Figure:
    t = table()
    fig, ax = plt.subplots()
    x = np.arange(len(SHARES))
    for i, model in enumerate(cost.MODELS):
        d = t[t["model"] == model]
        ax.bar(x + (i - 0.5) * 0.35, d["dollars"], 0.35, label=f"Superways, model {model}")
    ax.axhline(subways_dollars(t), color="0.3", ls="--", label="Subways type-1")
    ax.set_xticks(x, [f"{p} %" for p in SHARES])
    ax.set_xlabel("servers hosting aggregators (L = 1)")
    ax.set_ylabel("cost ($)")
    ax.set_yscale("log")
    ax.legend(fontsize=7)
    return fig
