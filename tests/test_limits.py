"""Scenarios too large for the machine end in one line naming the field, before anything
large is built (issue 17: a 100,000-sender star used to abort the interpreter)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import tomli_w

import fanin
from conftest import fanin_cli, one_line
from fanin.limits import ENV, MACHINE_SHARE, machine_memory, memory_limit


def star(senders: int) -> dict[str, Any]:
    return {
        "name": "big-star",
        "topology": {"kind": "star", "senders": senders, "host_link": {"rate": "10Gbps", "delay": "1us"}},
        "workload": [{"kind": "incast", "degree": 64, "bytes_per_sender": "1KB"}],
    }


def write(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "s.toml"
    path.write_text(tomli_w.dumps(data))
    return path



def test_a_100000_sender_star_validates_within_the_default_limit(tmp_path: Path) -> None:
    # Issue 23: routing tables by destination class (one for the whole star), not the 40 GB
    # of a cell per node and host that issue 17 refused.
    r = fanin_cli("validate", str(write(tmp_path, star(100_000))))
    assert r.returncode == 0, r.stderr


def test_the_interpreter_survives_and_the_limit_is_a_setting(tmp_path: Path) -> None:
    scenario = write(tmp_path, star(2000))  # about 0.8 MB of ports
    with pytest.raises(fanin.ScenarioError) as e:
        fanin.run(scenario, memory_limit="100KB")
    assert e.value.path == "topology" and "over the memory limit of 0.0 GB" in str(e.value)
    assert fanin.run(scenario, memory_limit="1GB").summary["flows"] == 64


def test_a_fine_grained_series_names_its_record_field(tmp_path: Path) -> None:
    data = star(256) | {"duration": "5s", "record": {"queues": {"ports": "all", "interval": "1us"}}}  # ~90 GB
    r = fanin_cli("validate", str(write(tmp_path, data)))
    assert r.returncode == 2
    assert one_line(r.stderr).startswith("error: record.queues: the run would need at least"), r.stderr


def test_the_default_is_a_share_of_the_machine_and_the_environment_overrides_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert memory_limit() == int(machine_memory() * MACHINE_SHARE)
    monkeypatch.setenv(ENV, "2GiB")
    assert memory_limit() == 2 << 30
    assert memory_limit(12345) == 12345
    monkeypatch.setenv(ENV, "lots")
    with pytest.raises(fanin.ScenarioError) as e:
        memory_limit()
    assert e.value.path == ENV and "units" in str(e.value)


def test_a_bad_environment_value_is_one_line(tmp_path: Path) -> None:
    env_before = os.environ.get(ENV)
    os.environ[ENV] = "-3"
    try:
        r = fanin_cli("validate", str(write(tmp_path, star(8))))
    finally:
        if env_before is None:
            del os.environ[ENV]
        else:
            os.environ[ENV] = env_before
    assert r.returncode == 2
    assert one_line(r.stderr).startswith(f"error: {ENV}:"), r.stderr


def test_a_4096_leaf_fabric_is_refused_under_a_small_limit_before_its_routes_are_built() -> None:
    link = {"rate": "10Gbps", "delay": "1us"}
    data = {
        "name": "wide",
        "topology": {"kind": "leaf_spine", "leaves": 4096, "spines": 16, "hosts_per_leaf": 16, "host_link": link, "fabric_link": link},
        "workload": [{"kind": "incast", "degree": 64, "bytes_per_sender": "1KB", "receiver": "h0"}],
    }
    with pytest.raises(fanin.ScenarioError) as e:
        # 4,096 destination classes: 135 MB of tables (a cell per node and host took 19 GB).
        fanin.Scenario.from_dict(data).validate(memory_limit="100MB")
    assert e.value.path == "topology" and "routing tables: 8225 rows x 4096 destination classes" in str(e.value)
