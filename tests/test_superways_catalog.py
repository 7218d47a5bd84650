"""The Superways (WWW '21) catalog entry: its files load, the cost figures (Figs. 10-11) come
from fanin.plan.cost with no runs, and the report prints exact dollar amounts. The simulated
figures run with `fanin repro superways`."""

from __future__ import annotations

from pathlib import Path

from fanin import Scenario, run
from fanin.catalog import load_paper
from fanin.catalog.claims import fmt_value
from fanin.catalog.repro import repro
from fanin.sweep import load_module
from tests.conftest import ROOT


def test_entry_loads() -> None:
    paper = load_paper("superways", ROOT / "experiments")
    assert [f.name for f in paper.figures] == ["fig6_9", "fig10", "fig11", "fig12", "heuristic", "testbed", "code"]
    assert [f.sweep is None for f in paper.figures] == [False, True, True, False, False, False, False]


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


def _analysis(figure: str):  # noqa: ANN202 (a catalog module)
    return load_module(ROOT / "experiments" / "superways" / figure / "analysis.py", f"test_superways_{figure}")


def test_the_heuristic_adds_a_link_only_at_d_96_with_the_codes_flow_size() -> None:
    h = _analysis("heuristic")
    assert h.plan(96, "3533B") == (1, 84)  # the worked example: 5 local + 79 on the leaf
    assert [h.plan(d, "3533B") for d in (48, 64, 80)] == [(0, 48), (0, 64), (0, 80)]
    assert h.plan(96, "2278B") == (0, 96)


def test_the_testbed_analogs_shortcuts_cut_the_apps_tail() -> None:
    """Reduced testbed run (20 s of arrivals, one seed): Superways' 2 links to h15 cut the apps'
    responses' p99 on leaf-spine, and h15 receives more than twice a worker's bytes."""
    tb = _analysis("testbed")
    def scenario(superways: bool) -> Scenario:
        s = Scenario.load(ROOT / "experiments" / "superways" / "testbed" / "scenario.toml")
        for i in range(5):
            s.set(f"workload[{i}].stop", "20s")
        return s.set("topology.superways", {"servers": [{"server": "h15", "links": 2}]}) if superways else s

    ls, sw = (tb.derive(run(scenario(s)), {}).iloc[0] for s in (False, True))
    assert ls["unfinished"] == sw["unfinished"] == 0
    assert sw["responses_p99_ms"] < 0.8 * ls["responses_p99_ms"], (ls["responses_p99_ms"], sw["responses_p99_ms"])
    assert ls["aggregator_over_worker"] > 2
