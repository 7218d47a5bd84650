"""Files a scenario names: read only from its folder, --data-dir folders and fanin's data;
errors name the file and line but never quote it; the run cache hashes only file fields;
a scenario file that is not UTF-8 or nests too deeply is one line and exit 2."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import tomli_w

import fanin
import fanin.workloads as w
from conftest import fanin_cli
from fanin import Scenario, ScenarioError
from fanin.run_key import run_key
from fanin.scenario import DATA_DIR
from test_cli import assert_one_clean_line
from test_scenario import poisson

SECRET = "secret-first-line-7f3a"  # what must never reach the terminal
GOOD_CDF = (DATA_DIR / "websearch_dctcp2010_cdf.txt").read_text()


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """A scenario folder, a folder beside it holding a secret, and an extra data folder."""
    folders = {name: tmp_path / name for name in ("scenarios", "outside", "extra")}
    for d in folders.values():
        d.mkdir()
    (folders["outside"] / "secret.txt").write_text(f"{SECRET}\n1 1\n")
    (folders["extra"] / "mine_cdf.txt").write_text(GOOD_CDF)
    return folders


def scenario_file(folder: Path, sizes: str, name: str = "s.toml") -> Path:
    path = folder / name
    path.write_text(tomli_w.dumps(poisson(sizes)))
    return path


def refused(r: Any, field: str = "workload[0].sizes") -> None:
    assert r.returncode == 2, r.stderr
    assert_one_clean_line(r.stderr)
    assert field in r.stderr
    assert SECRET not in r.stderr + r.stdout


# ------------------------------------------------------------ where files may come from


def test_absolute_path_outside_the_roots_is_refused_naming_the_roots(layout: dict[str, Path]) -> None:
    s = scenario_file(layout["scenarios"], str(layout["outside"] / "secret.txt"))
    r = fanin_cli("validate", str(s))
    refused(r)
    assert "outside the folders" in r.stderr
    assert str(layout["scenarios"].resolve()) in r.stderr and str(DATA_DIR) in r.stderr
    assert "--data-dir" in r.stderr


def test_dotdot_escape_is_refused_even_if_the_file_exists(layout: dict[str, Path]) -> None:
    for sizes in ("../outside/secret.txt", "../outside/no_such_file.txt"):
        r = fanin_cli("validate", str(scenario_file(layout["scenarios"], sizes)))
        refused(r)
        assert "outside the folders" in r.stderr  # the same answer: nothing told about the outside


def test_symlink_leading_outside_is_refused(layout: dict[str, Path]) -> None:
    os.symlink(layout["outside"] / "secret.txt", layout["scenarios"] / "link_cdf.txt")
    r = fanin_cli("run", str(scenario_file(layout["scenarios"], "link_cdf.txt")), "-o", str(layout["extra"] / "out"))
    refused(r)
    assert "outside the folders" in r.stderr
    assert not (layout["extra"] / "out").exists()


def test_a_root_given_with_data_dir_lets_the_file_in(layout: dict[str, Path]) -> None:
    s = scenario_file(layout["scenarios"], str(layout["outside"] / "secret.txt"))
    r = fanin_cli("validate", str(s), "--data-dir", str(layout["outside"]))
    refused(r)  # now read, and its content is wrong: the message still quotes none of it
    assert "secret.txt` line 1: not a row of numbers" in r.stderr


def test_scenario_folder_subfolders_bundled_data_and_data_dir_are_accepted(layout: dict[str, Path]) -> None:
    (layout["scenarios"] / "cdfs").mkdir()
    (layout["scenarios"] / "cdfs" / "own_cdf.txt").write_text(GOOD_CDF)
    own = fanin_cli("validate", str(scenario_file(layout["scenarios"], "cdfs/own_cdf.txt")))
    assert own.returncode == 0, own.stderr
    bundled = fanin_cli("validate", str(scenario_file(layout["scenarios"], "websearch_dctcp2010_cdf.txt")))
    assert bundled.returncode == 0, bundled.stderr

    extra = scenario_file(layout["scenarios"], "mine_cdf.txt")
    missing = fanin_cli("validate", str(extra))
    refused(missing)
    assert "cannot read `mine_cdf.txt`: not found in:" in missing.stderr
    other = layout["scenarios"].parent / "other"
    other.mkdir()
    found = fanin_cli("validate", str(extra), "--data-dir", str(other), "--data-dir", str(layout["extra"]))
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "ok: test-poisson"


def test_data_dir_that_is_not_a_folder_is_one_line(layout: dict[str, Path]) -> None:
    s = scenario_file(layout["scenarios"], "websearch_dctcp2010_cdf.txt")
    r = fanin_cli("validate", str(s), "--data-dir", str(layout["scenarios"] / "nope"))
    assert r.returncode == 2
    assert_one_clean_line(r.stderr)
    assert "--data-dir" in r.stderr and "nope" in r.stderr


def test_python_api_takes_data_dirs(layout: dict[str, Path]) -> None:
    path = scenario_file(layout["scenarios"], "mine_cdf.txt")
    with pytest.raises(ScenarioError, match=r"workload\[0\]\.sizes: cannot read `mine_cdf.txt`"):
        Scenario.load(path).validate()
    assert Scenario.load(path, data_dirs=[layout["extra"]]).validate()["name"] == "test-poisson"
    assert fanin.run(path, data_dirs=[layout["extra"]]).summary["flows"] > 0
    assert fanin.run(Scenario.load(path), data_dirs=[str(layout["extra"])]).summary["flows"] > 0
    with pytest.raises(ScenarioError, match="outside the folders"):
        Scenario.from_dict(poisson(str(layout["outside"] / "secret.txt")), base_dir=layout["scenarios"]).validate()


def test_sweep_takes_data_dir(layout: dict[str, Path]) -> None:
    scenario_file(layout["scenarios"], "mine_cdf.txt")
    sweep = layout["scenarios"] / "sweep.toml"
    sweep.write_text('scenario = "s.toml"\nseeds = [1, 2]\n')
    cache, out = layout["scenarios"].parent / "cache", layout["scenarios"].parent / "rows.parquet"
    r = fanin_cli("sweep", str(sweep), "-o", str(out), "--cache", str(cache), "-q")
    refused(r)
    r = fanin_cli("sweep", str(sweep), "-o", str(out), "--cache", str(cache), "-q", "--data-dir", str(layout["extra"]))
    assert r.returncode == 0, r.stderr
    assert "2 runs (2 executed" in r.stdout


def test_inline_sizes_name_no_file_and_a_missing_file_lists_the_forms(layout: dict[str, Path]) -> None:
    inline = scenario_file(layout["scenarios"], "uniform 8KB 32KB")
    r = fanin_cli("validate", str(inline))
    assert r.returncode == 0, r.stderr
    assert Scenario.load(inline).named_files() == []
    incast = Scenario.from_dict(poisson("constant 20KB"))
    incast.set("workload[0].kind", "poisson_incast").set("workload[0].degree", 3)
    assert incast.named_files() == [] and incast.validate()["name"] == "test-poisson"
    for sizes in ("loguniform 100KiB 10MiB", "discrete 1KiB:0.7 2KiB:0.3"):
        s = Scenario.from_dict(poisson(sizes))
        assert s.named_files() == [] and s.validate()["name"] == "test-poisson", sizes
    r = fanin_cli("validate", str(scenario_file(layout["scenarios"], "uniform8KB 32KB")))
    refused(r)
    assert "not found in" in r.stderr
    assert '(allowed: a CDF file name, "uniform <min> <max>", "loguniform <min> <max>", "constant <size>", "discrete <size>:<probability> ...")' in r.stderr
    r = fanin_cli("validate", str(scenario_file(layout["scenarios"], "uniform 32KB")))
    refused(r)
    assert "workload[0].sizes: `uniform 32KB`: uniform takes two sizes, got 1 (allowed: a CDF file name" in r.stderr


# ------------------------------------------------------------ errors quote no file content


def test_bad_cdf_line_names_file_and_line_not_its_text(layout: dict[str, Path]) -> None:
    (layout["scenarios"] / "bad_cdf.txt").write_text(f"# header\n0 0\n{SECRET} 50\n100 100\n")
    r = fanin_cli("validate", str(scenario_file(layout["scenarios"], "bad_cdf.txt")))
    refused(r)
    assert "workload[0].sizes: `bad_cdf.txt` line 3: not a row of numbers" in r.stderr


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Nodes 8\nConnections 1\n0->1 id 1 start 0 size {SECRET}\n", "line 3, field `size`: the value is not"),
        (f"{SECRET} 8\nConnections 1\n0->1 id 1 start 0 size 5\n", "line 1: unknown header line"),
        (f"Nodes 8\nConnections 1\n0->1 id 1 start 0 {SECRET}\n", "line 3: every key needs a value"),
    ],
)
def test_bad_matrix_names_file_line_and_field_not_its_text(layout: dict[str, Path], text: str, expected: str) -> None:
    (layout["scenarios"] / "bad.cm").write_text(text)
    doc = poisson("x")
    doc["workload"] = [{"kind": "matrix", "file": "bad.cm"}]
    path = layout["scenarios"] / "m.toml"
    path.write_text(tomli_w.dumps(doc))
    r = fanin_cli("validate", str(path))
    refused(r, "workload[0].file")
    assert f"`bad.cm` {expected}" in r.stderr
    with pytest.raises(ValueError) as info:  # the Python reader of .cm files says as little
        w.read_cm(layout["scenarios"] / "bad.cm")
    assert expected in str(info.value) and SECRET not in str(info.value)


def test_mixed_poisson_generator_names_the_bad_cdf_not_its_text(layout: dict[str, Path]) -> None:
    bad = layout["scenarios"] / "bad_cdf.txt"
    bad.write_text(f"0 0\n{SECRET} 100\n")
    with pytest.raises(ValueError) as info:
        w.mixed_poisson(hosts=4, inter_sizes=str(bad), flows=5)
    assert str(info.value) == f"{bad}: line 2: not a row of numbers"


# ------------------------------------------------------------ the run cache key


def test_cache_key_ignores_strings_that_merely_name_a_file(layout: dict[str, Path]) -> None:
    folder = layout["scenarios"]
    (folder / "sizes_cdf.txt").write_text(GOOD_CDF)
    (folder / "notes.txt").write_text("one")
    doc = poisson("sizes_cdf.txt")
    doc["name"] = "notes.txt"  # a string field, not a file field
    doc["workload"].append({"kind": "flow", "src": "h0", "dst": str(layout["outside"] / "secret.txt"), "bytes": "1KB"})
    s = Scenario.from_dict(doc, base_dir=folder)
    key = run_key(s, 1)
    (folder / "notes.txt").write_text("two")
    (layout["outside"] / "secret.txt").write_text("changed")
    assert run_key(s, 1) == key
    (folder / "sizes_cdf.txt").write_text(GOOD_CDF + "# a comment\n")
    assert run_key(s, 1) != key  # the declared file's content changed


def test_cache_key_follows_a_data_dir_file_by_content(layout: dict[str, Path]) -> None:
    s = Scenario.from_dict(poisson("mine_cdf.txt"), base_dir=layout["scenarios"], data_dirs=[layout["extra"]])
    key = run_key(s, 1)
    assert run_key(s.copy(), 1) == key  # the copy keeps the data folders
    (layout["extra"] / "mine_cdf.txt").write_text(GOOD_CDF + "\n")
    assert run_key(s, 1) != key


# ------------------------------------------------------------ scenario files that do not parse


def refused_in_one_line(tmp_path: Path, path: Path, command: str) -> str:
    """Runs `fanin validate|run` on a file that cannot be read: exit 2, one line, nothing written."""
    out = tmp_path / "out"
    r = fanin_cli(command, str(path), *(["-o", str(out)] if command == "run" else []))
    assert r.returncode == 2, r.stderr
    assert_one_clean_line(r.stderr)
    assert not out.exists()
    return r.stderr


@pytest.mark.parametrize("command", ["validate", "run"])
def test_scenario_file_that_is_not_utf8_is_one_line(tmp_path: Path, command: str) -> None:
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'seed = 1\nname = "caf\xe9"\n')
    assert f"{path} is not UTF-8 text (line 2, byte offset 20)" in refused_in_one_line(tmp_path, path, command)


@pytest.mark.parametrize("command", ["validate", "run"])
@pytest.mark.parametrize("nesting", ["[" * 500 + "]" * 500, "{a = " * 500 + "1" + "}" * 500])
def test_deeply_nested_scenario_is_one_line(tmp_path: Path, command: str, nesting: str) -> None:
    path = tmp_path / "deep.toml"
    path.write_text(f'name = "deep"\nx = {nesting}\n')
    line = refused_in_one_line(tmp_path, path, command)
    assert f"{path} is not valid TOML: arrays or tables nested more than" in line
