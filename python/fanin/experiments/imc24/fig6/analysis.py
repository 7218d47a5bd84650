"""Fig. 6: queue-disc length over 2 ms bursts at 100, 150, 200 and 500 flows; the share of
the queue's time integral in the burst's first millisecond, against a 15 ms burst."""

from __future__ import annotations

from pathlib import Path

from fanin.imc24 import analysis
from fanin.sweep import load_module

common = load_module(Path(__file__).parent.parent / "common.py", "imc24_common")


derive = {"bursts": analysis.burst_table, "grid": analysis.queue_grid}


def first_ms_share_2ms_100(data) -> float:
    return common.seed_median(data["bursts"], "first_ms_share", variant="d2_n100")


def first_ms_share_15_over_2(data) -> float:
    return common.seed_median(data["bursts"], "first_ms_share", variant="d15_n100") / first_ms_share_2ms_100(data)


def first_ms_share_2ms_min(data) -> float:
    """The smallest first-ms share over the 2 ms runs (100 to 500 flows)."""
    return min(common.seed_median(data["bursts"], "first_ms_share", variant=f"d2_n{n}") for n in (100, 150, 200, 500))


def plot(data):
    panels = [(f"{n} flows, 2 ms", {"variant": f"d2_n{n}"}) for n in (100, 150, 200, 500)]
    return common.queue_plot(data["grid"], panels, xmax_ms=2.5)
