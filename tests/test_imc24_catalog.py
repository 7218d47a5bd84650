"""The IMC '24 catalog entry: its files load and check, and its scenarios are the study's.

The engine's behaviour in the three modes is tested in crates/engine/tests/imc24.rs; the
full entry runs with `fanin repro imc24` (see experiments/imc24/README.md)."""

from __future__ import annotations

import tomllib

import pytest

from fanin import Scenario
from fanin.catalog import load_paper
from fanin.imc24 import BDP_PKTS, response_bytes, scenario
from tests.conftest import ROOT

ENTRY = ROOT / "experiments" / "imc24"


@pytest.mark.parametrize("quick", [False, True])
def test_entry_loads_with_every_figure_and_claim(quick: bool) -> None:
    paper = load_paper("imc24", ROOT / "experiments", quick=quick)
    names = [f.name for f in paper.figures]
    assert names == ["fig5", "fig6", "fig7", "sweep", "remedies", "clamp_sweep", "prediction", "production"]


@pytest.mark.parametrize(("file", "mode"), [("fidelity.toml", "fidelity"), ("paper_mode.toml", "paper")])
def test_scenario_files_are_the_builders(file: str, mode: str) -> None:
    on_disk = tomllib.loads((ENTRY / file).read_text())
    built = scenario(100, 15, 11, mode)
    assert on_disk == built
    Scenario.from_dict(built)  # and it is valid


def test_study_arithmetic() -> None:
    assert BDP_PKTS == 25
    # ceil(D x 1.25 GB/s / N): the spec's response sizes.
    assert [response_bytes(15, n) for n in (100, 500, 1000)] == [187_500, 37_500, 18_750]
    assert response_bytes(2, 100) == 25_000


def test_crosscheck_cli_rejects_bad_input() -> None:
    from tests.conftest import fanin_cli

    r = fanin_cli("crosscheck", "imc24", "--modes", "bogus")
    assert r.returncode == 2
    assert "--modes" in r.stderr and "Traceback" not in r.stderr
