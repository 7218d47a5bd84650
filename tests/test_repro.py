"""`fanin repro`: a fixture catalog end to end, partial reruns, bad input; the real
`foundation` entry with --quick."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
import tomli_w

from conftest import fanin_cli, small_incast_dict
from fanin.catalog import CatalogError, load_paper
from fanin.catalog.repro import repro

ANALYSIS = """
import matplotlib.pyplot as plt
import pandas as pd


def derive(results, point):
    inc = results.incasts
    return pd.DataFrame({"flows": [len(results.flows)], "ict_ps": [int(inc["ict_ps"].max())]})


def flows_equal_n(df):
    return bool((df["flows"] == df["N"]).all())


def mean_ict_us(df):
    return float(df["ict_ps"].mean() / 1e6)


def plot(df):
    fig, ax = plt.subplots()
    ax.plot(df["N"], df["ict_ps"] / 1e6, "o-")
    ax.set_xlabel("senders N")
    ax.set_ylabel("incast completion time (µs)")
    return fig
"""

CLAIMS = """
[[claim]]
id = "one-flow-per-sender"
text = "every sender has one flow"
metric = "flows_equal_n"
paper = true
tolerance = { kind = "true" }

[[claim]]
id = "impossible"
text = "the incast completes in no time"
metric = "mean_ict_us"
paper = 0.0
tolerance = { kind = "<=", value = 0 }

[[claim]]
id = "informative"
text = "report-only: the ICT is below a second"
metric = "mean_ict_us"
paper = 1e6
tolerance = { kind = "<=" }
gating = false
"""


def write_toy_catalog(root: Path) -> Path:
    """Paper `toy`: figure `incast` (2 runs), figure `analytic` (no runs)."""
    paper = root / "toy"
    fig = paper / "incast"
    fig.mkdir(parents=True)
    (paper / "paper.toml").write_text('title = "A toy paper"\n')
    scenario = small_incast_dict()
    scenario["record"] = {"flows": True}
    (fig / "scenario.toml").write_text(tomli_w.dumps(scenario))
    (fig / "figure.toml").write_text(
        'title = "ICT against N"\norder = 1\n[sweep]\nscenario = "scenario.toml"\ntables = []\n'
        '[sweep.axes]\nN = { path = ["topology.senders", "workload[0].degree"], values = [2, 3] }\n'
        '[quick.axes]\nN = { path = ["topology.senders", "workload[0].degree"], values = [2] }\n'
    )
    (fig / "analysis.py").write_text(ANALYSIS)
    (fig / "claims.toml").write_text(CLAIMS)
    (fig / "README.md").write_text("# Toy\n\nThe incast completion time grows with N.\n")
    ana = paper / "analytic"
    ana.mkdir()
    (ana / "figure.toml").write_text('title = "Two to the tenth"\norder = 2\n')
    (ana / "analysis.py").write_text("def kibi(data):\n    return 2.0 ** 10\n")
    (ana / "claims.toml").write_text(
        '[[claim]]\nid = "kibi"\ntext = "a KiB"\nmetric = "kibi"\npaper = 1024\n'
        'tolerance = { kind = "abs", value = 0 }\n'
    )
    return root


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    return write_toy_catalog(tmp_path / "catalog")


def statuses(claims: list[dict[str, Any]]) -> dict[str, str]:
    return {f"{c['figure']}/{c['id']}": c["status"] for c in claims}


def test_repro_writes_figures_data_and_reports(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    r = repro("toy", catalog=toy, out=out, jobs=1)
    assert statuses(r.claims) == {
        "incast/one-flow-per-sender": "pass",
        "incast/impossible": "fail",
        "incast/informative": "pass",
        "analytic/kibi": "pass",
    }
    assert (r.runs, r.executed) == (2, 2)
    for f in ("figures/incast.png", "figures/incast.svg", "data/incast.parquet", "claims.json", "report.md"):
        assert (out / f).stat().st_size > 0, f
    data = pd.read_parquet(out / "data" / "incast.parquet")
    assert list(data["N"]) == [2, 3] and list(data["flows"]) == [2, 3]
    fanin_ict = {c["id"]: c["fanin"] for c in r.claims}["informative"]
    assert fanin_ict == pytest.approx(data["ict_ps"].mean() / 1e6)  # the report's number is the runs'
    html = (out / "report.html").read_text()
    assert "<svg" in html and 'src="http' not in html and "figures/" not in html  # self-contained
    assert "FAIL" in html and "impossible" in html
    md = (out / "report.md").read_text()
    assert "4 claims: 3 pass, 1 fail, 0 error (2 of 3 gating claims pass)" in md
    assert "The incast completion time grows with N." in md


def test_rerun_uses_cache_and_partial_rerun_merges(toy: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    repro("toy", catalog=toy, out=out, jobs=1)
    (toy / "toy" / "analytic" / "analysis.py").write_text(
        "def kibi(data):\n    return 1000.0\n\n\ndef plot(data):\n    raise ValueError('no axes')\n"
    )
    r = repro("toy", catalog=toy, out=out, jobs=1, figures=["analytic"])
    assert r.plot_errors == {"analytic": "ValueError: no axes"}
    assert "plot failed:** ValueError: no axes" in (out / "report.md").read_text()
    assert statuses(r.claims) == {
        "incast/one-flow-per-sender": "pass",
        "incast/impossible": "fail",
        "incast/informative": "pass",
        "analytic/kibi": "fail",  # rerun: the new value; the other figure's entry kept
    }
    doc = json.loads((out / "claims.json").read_text())
    assert [f["name"] for f in doc["figures"]] == ["incast", "analytic"]
    assert "figures/incast" in (out / "report.md").read_text()
    again = repro("toy", catalog=toy, out=out, jobs=1, figures=["incast"])
    assert (again.runs, again.executed) == (2, 0)


def test_quick_uses_the_reduced_sweep(toy: Path) -> None:
    paper = load_paper("toy", toy, quick=True)
    sweep = paper.figure("incast").sweep
    assert sweep is not None and [p.labels["N"] for p in sweep.points()] == [2]
    with pytest.raises(CatalogError, match=r"unknown figure 'nope'.*allowed: analytic, incast"):
        load_paper("toy", toy, figures=["nope"])


def test_cli_list_and_bad_input(toy: Path, tmp_path: Path) -> None:
    r = fanin_cli("repro", "--list", "--catalog", str(toy))
    assert r.returncode == 0, r.stderr
    assert "toy" in r.stdout and "incast" in r.stdout and "Two to the tenth" in r.stdout

    def one_line_exit_2(*args: str) -> str:
        r = fanin_cli("repro", *args, "--catalog", str(toy), "-o", str(tmp_path / "o"))
        assert r.returncode == 2, r.stderr
        lines = [x for x in r.stderr.splitlines() if x.strip()]
        assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
        return r.stderr

    assert "unknown paper 'nope' (allowed: toy)" in one_line_exit_2("nope")
    assert "allowed: analytic, incast" in one_line_exit_2("toy", "--figure", "nope")
    (toy / "toy" / "analytic" / "claims.toml").write_text('[[claim]]\nid = "k"\ntext = "t"\nmetric = "kibi"\n')
    err = one_line_exit_2("toy")
    assert "analytic/claims.toml" in err and "claim k" in err and "tolerance" in err
    assert not (tmp_path / "o").exists()  # nothing written on bad input


def test_foundation_quick_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "foundation"
    r = fanin_cli("repro", "foundation", "--quick", "--jobs", "2", "-o", str(out), "--quiet")
    assert r.returncode == 0, r.stderr
    doc = json.loads((out / "claims.json").read_text())
    failing = [c["id"] for f in doc["figures"] for c in f["claims"] if c["status"] != "pass"]
    assert failing == [], r.stdout  # the analytic facts hold in the engine
    assert {f["name"] for f in doc["figures"]} == {"lone_flow", "dctcp_queue"}
    assert (out / "figures" / "dctcp_queue-queue.svg").is_file()
    assert "0 fail" in r.stdout


def test_plot_helpers_draw_what_they_return() -> None:
    import matplotlib.pyplot as plt

    from fanin.catalog.plots import cdf, grouped_bars, mean_minmax

    df = pd.DataFrame({"N": [8, 8, 16, 16], "cc": ["a", "b", "a", "b"], "q": [1.0, 3.0, 5.0, 9.0]})
    fig, ax = plt.subplots()
    g = mean_minmax(ax, df, "N", "q")
    assert g.to_dict("list") == {"N": [8, 16], "mean": [2.0, 7.0], "min": [1.0, 5.0], "max": [3.0, 9.0]}
    assert list(ax.lines[0].get_ydata()) == [2.0, 7.0]
    cdf(ax, [3.0, 1.0, 2.0])
    assert list(ax.lines[-1].get_ydata()) == pytest.approx([1 / 3, 2 / 3, 1.0])
    bars = grouped_bars(ax, df, "N", "cc", "q")
    assert len(ax.patches) == 4 and list(bars["mean"]) == [1.0, 3.0, 5.0, 9.0]
    plt.close(fig)


@pytest.mark.parametrize(
    "text, message",
    [
        ('title = "x"\ncolour = 1\n', "unknown key 'colour'"),
        ('[sweep]\nscenario = "scenario.toml"\n[quick]\nspeed = 2\n', "[quick] key 'speed'"),
        ('[sweep]\nscenario = "missing.toml"\n', "[sweep].scenario: scenario file not found"),
        ('[sweep]\nscenario = "scenario.toml"\n[sweep.axes]\nN = 3\n', "[sweep].axes.N: expected a list of values"),
        ('[sweep]\nscenario = "scenario.toml"\nseeds = "many"\n', "[sweep].seeds: expected n"),
        ('[sweep]\nscenario = "scenario.toml"\nseeds = [1, -1]\n', "[sweep].seeds: need at least one seed"),
        ('[sweep]\nscenario = "scenario.toml"\ntables = "flows"\n', "[sweep].tables: expected a list"),
        ('[sweep]\nscenario = "scenario.toml"\n[[sweep.zip]]\na = [1]\nb = [1, 2]\n', "zip[0]: axes that vary"),
        ("[quick]\nseeds = 1\n", "[quick] without [sweep]"),
        ("title = \n", "not valid TOML"),
    ],
)
def test_malformed_figure_files_name_file_and_field(toy: Path, text: str, message: str) -> None:
    (toy / "toy" / "incast" / "figure.toml").write_text(text)
    with pytest.raises(CatalogError) as e:
        load_paper("toy", toy)
    assert message in str(e.value) and "incast/figure.toml" in str(e.value)


def test_figure_run_and_sweep_command(toy: Path, tmp_path: Path) -> None:
    fig = load_paper("toy", toy, quick=True).figure("incast")
    data = fig.run(cache=tmp_path / "cache")
    assert list(data.columns) == ["N", "seed", "flows", "ict_ps"] and list(data["flows"]) == [2]
    sweep_file = toy / "toy" / "incast" / "sweep.toml"
    sweep_file.write_text('scenario = "scenario.toml"\nseeds = [1, 2]\n')
    r = fanin_cli("sweep", str(sweep_file), "-o", str(tmp_path / "s.parquet"), "--cache", str(tmp_path / "c"), "-q")
    assert r.returncode == 0, r.stderr
    assert "2 runs (2 executed, 0 cached)" in r.stdout
    runs = pd.read_parquet(tmp_path / "s.parquet")
    assert list(runs["seed"]) == [1, 2] and (runs["flows_completed"] == 8).all()


def test_every_catalog_entry_loads_and_validates() -> None:
    """Each paper's files parse, its metrics exist, and every run of its full and quick
    sweeps is a scenario the engine accepts (without running anything)."""
    from fanin.catalog import find_catalog, paper_names

    root = find_catalog()
    assert "foundation" in paper_names(root)
    for name in paper_names(root):
        for quick in (False, True):
            for fig in load_paper(name, root, quick=quick).figures:
                assert fig.claims, f"{name}/{fig.name} has no claims"
                if fig.sweep is not None:
                    fig.sweep.validate()


def test_bad_override_names_the_figure(toy: Path, tmp_path: Path) -> None:
    from fanin import ScenarioError

    fig = toy / "toy" / "incast" / "figure.toml"
    fig.write_text(fig.read_text() + '[sweep.variants]\nwarp = { "transport.cc" = "warp" }\n')
    with pytest.raises(ScenarioError) as e:
        repro("toy", catalog=toy, out=tmp_path / "o", jobs=1)
    assert e.value.path == "transport.cc" and "variant=warp" in str(e.value) and "incast/figure.toml" in str(e.value)
    assert not (tmp_path / "o").exists()


def test_error_bars_of_equal_seeds_are_zero_not_negative() -> None:
    """The mean of equal values can round one ulp past them; matplotlib refuses a negative bar."""
    import numpy as np

    from fanin.catalog.plots import minmax_err

    mean = np.array([0.1, 0.2, 0.3]).sum() / 3  # rounds past the min/max below
    err = minmax_err(np.array([mean]), np.array([0.2000000000000001]), np.array([0.1999999999999999]))
    assert err.tolist() == [[0.0], [0.0]]
    err = minmax_err(np.array([2.0]), np.array([1.0]), np.array([4.0]))
    assert err.tolist() == [[1.0], [2.0]]


def test_the_catalog_list_fits_80_columns() -> None:
    import os
    import subprocess
    import sys

    env = dict(os.environ, COLUMNS="80")
    r = subprocess.run([sys.executable, "-m", "fanin", "repro", "--list"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["paper", "figure", "runs", "quick", "runs", "claims", "title"]
    assert all(len(line) <= 80 for line in lines), max(lines, key=len)
    # One line per figure: a figure's name starts each line after the paper column.
    assert any(line.split()[:2] == ["foundation", "lone_flow"] for line in lines)


def test_the_catalog_ships_inside_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An installed wheel has no repository beside it: the catalog must be package data."""
    import fanin
    from fanin.catalog import CATALOG_ENV, find_catalog

    monkeypatch.delenv(CATALOG_ENV, raising=False)
    monkeypatch.chdir(tmp_path)  # no ./experiments to fall back on
    found = find_catalog()
    assert found == Path(fanin.__file__).resolve().parent / "experiments"
    assert (found / "imc24" / "fig5" / "figure.toml").is_file()
