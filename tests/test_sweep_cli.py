"""`fanin sweep` from the command line: --derive by file or module, the tables it writes
(labels, integer counts, run_dir), bad references, and the run cache it shares with
`fanin repro`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import fanin_cli, one_line
from fanin import Scenario

DERIVES = """
import pandas as pd

def per_flow(results, point):
    return pd.DataFrame({"size_bytes": results.flows["size_bytes"]})

def per_run(results, point):
    return pd.DataFrame({"flows": [len(results.flows)]})

both = {"flows": per_flow, "runs": per_run}
NOT_A_FUNCTION = 3
"""

SWEEP = 'scenario = "base.toml"\nseeds = [1, 2]\n[axes]\n"workload[0].bytes_per_sender" = ["8KB", "16KB"]\n'
SIZE = "workload[0].bytes_per_sender"


@pytest.fixture
def folder(tmp_path: Path, small_incast: dict[str, Any]) -> Path:
    """A sweep of 4 small runs, and a file of derive functions beside it."""
    small_incast["record"] = {"flows": True}
    Scenario.from_dict(small_incast).save(tmp_path / "base.toml")
    (tmp_path / "sweep.toml").write_text(SWEEP)
    (tmp_path / "my_derives.py").write_text(DERIVES)
    return tmp_path


def test_derive_from_a_file_in_parallel(folder: Path) -> None:
    out, cache = folder / "flows.parquet", folder / "c"
    derive = f"{folder / 'my_derives.py'}:per_flow"
    r = fanin_cli(
        "sweep", str(folder / "sweep.toml"), "--derive", derive, "-j", "2", "-o", str(out), "--cache", str(cache)
    )
    assert r.returncode == 0, r.stderr
    assert "4 runs (4 executed, 0 cached)" in r.stdout
    assert pq.read_schema(out).field("seed").type == pa.int64()
    flows = pd.read_parquet(out)
    assert list(flows.columns) == [SIZE, "seed", "size_bytes", "run_dir"]
    assert len(flows) == 4 * 8  # a row per flow
    assert set(zip(flows[SIZE], flows["size_bytes"], strict=True)) == {("8KB", 8000), ("16KB", 16000)}
    assert flows["run_dir"].nunique() == 4
    assert all(Path(d).is_dir() and Path(d).parent.parent == cache for d in flows["run_dir"])


def test_derive_by_module_with_several_tables_and_the_plain_table(folder: Path) -> None:
    out, cache = folder / "s.parquet", folder / "c"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    args = [sys.executable, "-m", "fanin", "sweep", str(folder / "sweep.toml"), "-o", str(out), "--cache", str(cache)]
    r = subprocess.run([*args, "--derive", "my_derives:both"], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "s-flows.parquet" in r.stdout and "s-runs.parquet" in r.stdout and not out.exists()
    runs = pd.read_parquet(folder / "s-runs.parquet")
    assert runs["flows"].dtype == runs["seed"].dtype == "int64" and list(runs["flows"]) == [8] * 4
    assert len(pd.read_parquet(folder / "s-flows.parquet")) == 32
    r = fanin_cli(*args[3:], "-q")  # no derive: a row per run
    assert r.returncode == 0, r.stderr
    rows = pd.read_parquet(out)
    for col in ("seed", "flows_completed", "drops", "events", "sim_end_ps"):
        assert rows[col].dtype == "int64", col
    assert list(rows["seed"]) == [1, 2, 1, 2] and (rows["flows_completed"] == 8).all()
    assert [Path(d).is_dir() for d in rows["run_dir"]] == [True] * 4
    assert set(rows["run_dir"]) == set(runs["run_dir"])  # the runs the derive read


@pytest.mark.parametrize(
    ("reference", "says"),
    [
        ("my_derives.py", "expected MODULE:FUNCTION or FILE.py:FUNCTION"),
        ("missing.py:per_flow", "no such file: missing.py"),
        ("no_such_module_here:per_flow", "no module named 'no_such_module_here'"),
        ("my_derives.py:nope", "my_derives.py has no `nope`"),
        ("my_derives.py:NOT_A_FUNCTION", "`NOT_A_FUNCTION` in my_derives.py is not a function or a dict of functions"),
        ("broken.py:per_flow", "importing broken.py failed: SyntaxError"),
    ],
)
def test_bad_derive_reference_is_one_line(folder: Path, reference: str, says: str) -> None:
    (folder / "broken.py").write_text("def per_flow(results, point)\n    return None\n")
    r = fanin_cli("sweep", "sweep.toml", "--derive", reference, "-o", "out.parquet", "--cache", "c", cwd=folder)
    assert r.returncode == 2
    assert f"--derive {reference}: {says}" in one_line(r.stderr)
    assert not (folder / "out.parquet").exists() and not (folder / "c").exists()


def test_sweep_and_repro_share_one_default_cache(folder: Path, tmp_path: Path) -> None:
    """Neither writes a cache where it runs or beside its output: both use the per-user one
    (XDG_CACHE_HOME, set for every test), so the repro finds the sweep's runs."""
    work = tmp_path / "work"
    work.mkdir()
    r = fanin_cli("sweep", str(folder / "sweep.toml"), "-o", str(tmp_path / "rows.parquet"), "-q", cwd=work)
    assert r.returncode == 0, r.stderr
    cache = Path(os.environ["XDG_CACHE_HOME"]) / "fanin"
    assert all(Path(d).parent.parent == cache for d in pd.read_parquet(tmp_path / "rows.parquet")["run_dir"])
    figure = tmp_path / "catalog" / "toy" / "sizes"
    figure.mkdir(parents=True)
    (figure / "scenario.toml").write_text((folder / "base.toml").read_text())
    (figure / "figure.toml").write_text(
        "[sweep]\n" + SWEEP.replace("base.toml", "scenario.toml").replace("[axes]", "[sweep.axes]")
    )
    report = tmp_path / "report"
    r = fanin_cli("repro", "toy", "--catalog", str(tmp_path / "catalog"), "-o", str(report), "-q", cwd=work)
    assert r.returncode == 0, r.stderr
    assert "4 runs (0 executed)" in r.stdout
    assert list(work.iterdir()) == [] and not (report / "cache").exists()
