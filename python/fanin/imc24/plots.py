"""The remedies' and the clamp sweep's figure: BCT, drops, timeouts and queue over N, one
line per setting."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import matplotlib.pyplot as plt
import pandas as pd

PANELS = (("bct_ms", "BCT (ms)"), ("drops", "drops per burst"), ("timeouts", "timeouts per burst"), ("mean_queue", "mean queue (packets)"))


def over_n(lines: Callable[[str], Iterable[tuple[str, pd.Series]]]) -> plt.Figure:
    """One panel per column of :data:`PANELS`; ``lines(column)`` gives each line's label and
    its values indexed by N."""
    fig, axes = plt.subplots(1, len(PANELS), figsize=(16, 3.2))
    for ax, (col, label) in zip(axes, PANELS, strict=True):
        for i, (name, s) in enumerate(lines(col)):
            ax.plot(s.index, s.values, marker="o", ms=3, lw=1, color=f"C{i}", label=name)
        ax.set_xscale("log")
        ax.set_xlabel("flows (N)")
        ax.set_ylabel(label)
        # BCT is never 0; counts and queues often are: linear up to 1, log above.
        if col == "bct_ms":
            ax.set_yscale("log")
        else:
            ax.set_yscale("symlog", linthresh=1)
            ax.set_ylim(bottom=0)
    axes[0].legend(fontsize=6, loc="upper left")
    return fig
