"""Overrides (`--set PATH=VALUE`, `fanin.run(set=...)`): parsed as TOML values, checked by
the engine, named in its errors, and part of what identifies a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import tomli_w

import fanin
from conftest import fanin_cli, one_line
from fanin import Scenario, ScenarioError
from fanin.overrides import apply, parse_assignment, parse_assignments, parse_path, parse_value
from fanin.run_key import run_key
from fanin.sweep import Sweep, SweepError


def write(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(tomli_w.dumps(data))
    return path



@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("32", 32),
        ("2.5", 2.5),
        ("true", True),
        ('"dctcp"', "dctcp"),
        ("dctcp", "dctcp"),
        ("200us", "200us"),
        ("25Gbps", "25Gbps"),
        (" 1.5 ms ", "1.5 ms"),
        ("[1, 2]", [1, 2]),
        ('["s0", "s1"]', ["s0", "s1"]),
        ('{ kind = "step", threshold = "20pkt" }', {"kind": "step", "threshold": "20pkt"}),
        ("a=b", "a=b"),
    ],
)
def test_values_read_as_toml_else_as_bare_strings(text: str, value: Any) -> None:
    assert parse_value(text) == value
    assert type(parse_value(text)) is type(value)


@pytest.mark.parametrize("text", ["", "[1,", '"open', "{ kind = }", "1\nseed = 2"])
def test_malformed_values_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_value(text)


def test_paths_take_indices_in_brackets_or_as_dotted_numbers() -> None:
    assert parse_path("workload[0].degree") == parse_path("workload.0.degree") == ["workload", 0, "degree"]
    assert parse_assignment("workload.0.degree=32") == ("workload[0].degree", 32)
    assert parse_assignments(["seed=1", "transport.cc=newreno", "seed=2"]) == {"transport.cc": "newreno", "seed": 2}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("transport.cc", "expected PATH=VALUE"),
        ("=dctcp", "expected PATH=VALUE"),
        ("workload[x].degree=3", "bad index [x]"),
        ("workload[-1].degree=3", "bad index [-1]"),
        ("transport..cc=dctcp", "bad field path"),
        ("name=[1,", "is not a TOML value"),
    ],
)
def test_malformed_assignments_say_why(text: str, says: str) -> None:
    with pytest.raises(ScenarioError, match=says.replace("[", r"\[")):
        parse_assignment(text)


def test_apply_sets_a_copy_and_refuses_paths_that_cannot_exist(small_incast: dict[str, Any]) -> None:
    base = Scenario.from_dict(small_incast)
    out = apply(base, {"workload.0.degree": 4, "transport.dctcp.g": 0.5, "routing": {"lb": "spray"}})
    assert out.get("workload[0].degree") == 4 and out.get("transport.dctcp.g") == 0.5
    assert base.get("workload[0].degree") == 8 and "routing" not in base  # the original is untouched
    with pytest.raises(ScenarioError, match=r"index \[1\] is out of range: workload has 1 entry"):
        apply(base, {"workload[1].degree": 4})
    with pytest.raises(ScenarioError, match=r"index \[0\] is out of range: host is not set"):
        apply(base, {"host[0].tsq": True})
    with pytest.raises(ScenarioError, match=r'topology.kind is a value \("dumbbell"\), not a table'):
        apply(base, {"topology.kind.x": 1})
    with pytest.raises(ScenarioError, match="topology is a table, not an array"):
        apply(base, {"topology[0]": 1})


def test_a_misspelt_override_is_named_in_the_engines_error(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    path = write(tmp_path / "s.toml", small_incast)
    with pytest.raises(ScenarioError) as e:
        Scenario.load(path, set={"trasport.cc": "dctcp"})
    assert e.value.path == "trasport" and "transport" in e.value.allowed
    assert "override trasport.cc" in str(e.value)
    with pytest.raises(ScenarioError) as e:
        fanin.run(path, set={"workload.0.degree": "many"})
    assert e.value.path == "workload[0].degree" and "override workload[0].degree" in str(e.value)


def test_run_applies_overrides_and_records_them(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    path = write(tmp_path / "s.toml", small_incast)
    plain = fanin.run(path)
    r = fanin.run(path, set={"transport.cc": "newreno", "workload.0.degree": 4})
    assert r.manifest["overrides"] == {"transport.cc": "newreno", "workload[0].degree": 4}
    ran = Scenario.from_toml(r.manifest["scenario"])
    assert ran.get("transport.cc") == "newreno" and ran.get("workload[0].degree") == 4
    assert len(r.flows) == 4 and r.summary["marks"] == 0 < plain.summary["marks"]  # newreno sends no ECT
    assert "overrides" not in plain.manifest
    assert Scenario.load(path).get("transport.cc") == "dctcp"  # the file is not changed
    same = fanin.run(Scenario.load(path), set={"workload[0].degree": 4, "transport.cc": "newreno"})
    assert same.manifest["scenario_sha256"] == r.manifest["scenario_sha256"] != plain.manifest["scenario_sha256"]


def test_overrides_change_the_cache_key(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    path = write(tmp_path / "s.toml", small_incast)

    def key(**overrides: Any) -> str:
        return run_key(Scenario.load(path, set=overrides), seed=1)

    assert key() != key(**{"transport.min_rto": "1ms"}) != key(**{"transport.min_rto": "2ms"})
    assert key(**{"transport.min_rto": "1ms"}) == key(**{"transport.min_rto": "1ms"})


def sweep_file(tmp_path: Path, small_incast: dict[str, Any]) -> Path:
    write(tmp_path / "s.toml", small_incast)
    (tmp_path / "sweep.toml").write_text(
        'scenario = "s.toml"\nset = { "transport.min_rto" = "1ms" }\n'
        '[axes]\n"workload[0].bytes_per_sender" = ["16KB", "32KB"]\n'
        '[variants]\ndctcp = {}\nslow = { "transport.init_cwnd" = "2pkt" }\n'
    )
    return tmp_path / "sweep.toml"


def test_sweep_overrides_beat_its_set_but_not_what_it_varies(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    sw = Sweep.load(sweep_file(tmp_path, small_incast))
    keys = [run_key(p.scenario, p.seed) for p in sw.points()]
    sw.override({"transport.min_rto": "2ms", "workload.0.degree": 4})
    points = sw.points()
    assert {(p.scenario.get("transport.min_rto"), p.scenario.get("workload[0].degree")) for p in points} == {("2ms", 4)}
    assert not set(keys) & {run_key(p.scenario, p.seed) for p in points}
    with pytest.raises(SweepError, match=r"varies workload\[0\].bytes_per_sender \(axes"):
        sw.override({"workload[0]": {"kind": "incast"}})
    with pytest.raises(SweepError, match=r"varies transport.init_cwnd \(variants.slow\)"):
        sw.override({"transport.init_cwnd": "4pkt"})
    with pytest.raises(ScenarioError, match="override trasport"):
        sw.override({"trasport.min_rto": "2ms"})


def test_cli_run_validate_and_sweep_take_set(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    scenario = write(tmp_path / "s.toml", small_incast)
    out = tmp_path / "res"
    r = fanin_cli("run", str(scenario), "-o", str(out), "-q", "--set", "transport.cc=newreno", "--set", "seed=3")
    assert r.returncode == 0, r.stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["overrides"] == {"transport.cc": "newreno", "seed": 3} and manifest["seed"] == 3
    r = fanin_cli("validate", str(scenario), "--set", 'name="renamed"', "--set", "topology.host_link.rate=25Gbps")
    assert r.returncode == 0 and r.stdout.strip() == "ok: renamed", r.stderr
    sweep = sweep_file(tmp_path, small_incast)
    r = fanin_cli(
        "sweep",
        str(sweep),
        "-o",
        str(tmp_path / "s.parquet"),
        "--cache",
        str(tmp_path / "c"),
        "-q",
        "--set",
        "transport.min_rto=3ms",
    )
    assert r.returncode == 0, r.stderr
    texts = [json.loads(m.read_text())["scenario"] for m in (tmp_path / "c").rglob("manifest.json")]
    assert len(texts) == 4 and all(Scenario.from_toml(t).get("transport.min_rto") == "3ms" for t in texts)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--set", "trasport.cc=dctcp"], "trasport: unknown field (in the override trasport.cc) (allowed: name,"),
        (["--set", "transport.cc=cubic"], "transport.cc: unknown value `cubic` (in the override transport.cc)"),
        (["--set", "transport.cc"], "--set transport.cc: expected PATH=VALUE"),
        (["--set", "workload[a].degree=2"], "workload[a].degree: bad index [a]"),
        (["--set", "workload.3.degree=2"], "workload[3].degree: index [3] is out of range: workload has 1 entry"),
    ],
)
def test_cli_bad_overrides_are_one_line_and_write_nothing(
    tmp_path: Path, small_incast: dict[str, Any], args: list[str], says: str
) -> None:
    scenario = write(tmp_path / "s.toml", small_incast)
    r = fanin_cli("run", str(scenario), "-o", str(tmp_path / "res"), *args)
    assert r.returncode == 2
    assert says in one_line(r.stderr)
    assert [p.name for p in tmp_path.iterdir()] == ["s.toml"]
    r = fanin_cli("sweep", str(sweep_file(tmp_path, small_incast)), "-o", str(tmp_path / "x.parquet"), *args)
    assert r.returncode == 2
    assert says in one_line(r.stderr)
