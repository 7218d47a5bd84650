"""The Superways (WWW '21) catalog entry: its files load, the cost figures (Figs. 10-11) come
from fanin.plan.cost with no runs, and the report prints exact dollar amounts. The simulated
figures run with `fanin repro superways`."""

from __future__ import annotations

from pathlib import Path

from fanin.catalog import load_paper
from fanin.catalog.claims import fmt_value
from fanin.catalog.repro import repro
from tests.conftest import ROOT


def test_entry_loads() -> None:
    paper = load_paper("superways", ROOT / "experiments")
    assert [f.name for f in paper.figures] == ["fig6_9", "fig10", "fig11", "fig12"]
    assert [f.sweep is None for f in paper.figures] == [False, True, True, False]


def test_cost_figures_reproduce_the_papers_dollars(tmp_path: Path) -> None:
    r = repro("superways", jobs=1, out=tmp_path / "sw", figures=["fig10", "fig11"])
    got = {c["id"]: (c["status"], c["fanin"]) for c in r.claims}
    assert got["subways-cost"] == ("pass", 435_840)
    assert got["superways-3pct"] == ("pass", 28_820)
    assert got["nine-times-cheaper-at-5pct-model-b"][0] == "pass"
    assert got["break-even-links"] == ("pass", 14)
    assert (tmp_path / "sw" / "figures" / "fig10.svg").is_file()
    assert "435,840 $" in (tmp_path / "sw" / "report.md").read_text()


def test_whole_numbers_print_in_full_and_others_to_four_digits() -> None:
    assert fmt_value(435_840.0, "$") == "435,840 $"
    assert fmt_value(12.3456, "x") == "12.35 x"
    assert fmt_value(1234.0) == "1234"  # below 10,000: as before
    assert fmt_value(2.5e12) == "2.5e+12"
