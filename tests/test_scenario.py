"""Scenario: load, edit, save; dotted access; errors that name the field."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fanin
from conftest import DEMO
from fanin import Scenario, ScenarioError
from fanin.scenario import DATA_DIR, split_path


def test_load_edit_save_round_trip(tmp_path: Path) -> None:
    s = Scenario.load(DEMO)
    assert s.name == "incast-dumbbell"
    assert s.seed == 1
    assert s.base_dir == DEMO.parent.resolve()
    # Unedited: the original text, comments included.
    assert s.to_toml() == DEMO.read_text()
    s.set("transport.cc", "newreno").set("workload[0].degree", 16)
    s["seed"] = 7
    out = tmp_path / "edited.toml"
    s.save(out)
    t = Scenario.load(out)
    assert t == s
    assert t.get("transport.cc") == "newreno"
    assert t["workload"][0]["degree"] == 16
    assert t.seed == 7
    assert [p.name for p in tmp_path.iterdir()] == ["edited.toml"]  # no temporary left behind


def test_save_replaces_atomically(tmp_path: Path) -> None:
    out = tmp_path / "s.toml"
    out.write_text("old")
    Scenario.load(DEMO).save(out)
    assert Scenario.load(out) == Scenario.load(DEMO)


def test_dotted_get_and_set(small_incast: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_incast)
    assert s.get("topology.host_link.rate") == "10Gbps"
    assert s.get("workload[0].degree") == 8
    assert s.get("switch.queue.marking.threshold") == "65pkt"
    assert s.get("no.such.field", None) is None
    with pytest.raises(KeyError):
        s.get("workload[3].degree")
    s.set("switch.queue.marking", {"kind": "none"})
    assert s["switch"]["queue"]["marking"] == {"kind": "none"}
    s.set("record.hosts.bin", "1ms")  # missing tables are created
    assert s.get("record.hosts") == {"bin": "1ms"}
    with pytest.raises(KeyError):
        s.set("workload[5].degree", 3)
    with pytest.raises(KeyError):
        s.get("a..b")


def test_split_path() -> None:
    assert split_path("workload[0].degree") == ["workload", 0, "degree"]
    assert split_path("a.b[1][2].c") == ["a", "b", 1, 2, "c"]
    for bad in ("", "[0]", "a.", "a[x]"):
        with pytest.raises(KeyError):
            split_path(bad)


def test_from_dict_and_copy_are_independent(small_incast: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_incast)
    small_incast["seed"] = 99
    assert s.seed == 1
    c = s.copy()
    c.set("workload[0].degree", 2)
    assert s.get("workload[0].degree") == 8


def test_direct_edit_of_nested_dict_is_seen(small_incast: dict[str, Any]) -> None:
    s = Scenario.from_toml(Scenario.from_dict(small_incast).to_toml())
    s["transport"]["cc"] = "newreno"
    assert 'cc = "newreno"' in s.to_toml()


toml_scalars = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.text(max_size=20),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
)


@settings(max_examples=50, deadline=None)
@given(value=toml_scalars, key=st.from_regex(r"[a-z][a-z0-9_]{0,10}", fullmatch=True))
def test_set_save_load_round_trips_any_toml_value(tmp_path_factory: Any, value: Any, key: str) -> None:
    s = Scenario.load(DEMO)
    s.set(f"extra.{key}", value)
    path = tmp_path_factory.mktemp("rt") / "s.toml"
    s.save(path)
    assert Scenario.load(path).get(f"extra.{key}") == value


def test_validate_ok(small_incast: dict[str, Any]) -> None:
    info = Scenario.from_dict(small_incast).validate()
    assert info == {"name": "test-small-incast", "seed": 1}


def test_unknown_cc_names_the_field_and_the_choices(small_incast: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_incast).set("transport.cc", "warp-speed")
    with pytest.raises(ScenarioError) as info:
        s.validate()
    e = info.value
    assert isinstance(e, ValueError)
    assert e.path == "transport.cc"
    assert "dctcp" in e.allowed and "newreno" in e.allowed
    assert e.message and not e.message.startswith("transport.cc")  # the path is not repeated
    line = str(e)
    assert "\n" not in line
    assert line.startswith("transport.cc: ")
    assert "dctcp" in line
    again = pickle.loads(pickle.dumps(e))
    assert (again.path, again.message, again.allowed) == (e.path, e.message, e.allowed)


def test_run_raises_the_python_scenario_error(small_incast: dict[str, Any]) -> None:
    s = Scenario.from_dict(small_incast).set("transport.cc", "warp-speed")
    with pytest.raises(fanin.ScenarioError) as info:
        fanin.run(s)
    assert info.value.path == "transport.cc"


def test_bad_toml_is_a_scenario_error() -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_toml("name = \n")
    assert "not valid TOML" in str(info.value)


def test_missing_file() -> None:
    with pytest.raises(FileNotFoundError):
        Scenario.load("no/such/scenario.toml")


def poisson(sizes: str) -> dict[str, Any]:
    link = {"rate": "10Gbps", "delay": "1us"}
    return {
        "name": "test-poisson",
        "seed": 1,
        "duration": "1ms",
        "topology": {
            "kind": "leaf_spine",
            "leaves": 2,
            "spines": 2,
            "hosts_per_leaf": 4,
            "host_link": link,
            "fabric_link": link,
        },
        "workload": [{"kind": "poisson", "load": 0.3, "sizes": sizes, "start": "0s", "stop": "1ms"}],
    }


def test_workload_files_resolve_against_the_package_data() -> None:
    assert (DATA_DIR / "websearch_dctcp2010_cdf.txt").is_file()
    Scenario.from_dict(poisson("websearch_dctcp2010_cdf.txt")).validate()


def test_workload_files_resolve_against_the_scenario_dir_first(tmp_path: Path) -> None:
    (tmp_path / "mine_cdf.txt").write_text((DATA_DIR / "websearch_dctcp2010_cdf.txt").read_text())
    Scenario.from_dict(poisson("mine_cdf.txt"), base_dir=tmp_path).validate()
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(poisson("mine_cdf.txt"), base_dir=tmp_path / "elsewhere").validate()
    assert info.value.path.startswith("workload[0]")
