"""The engine pieces of the IMC '24 study from Python: tables and their schemas, errors."""

from __future__ import annotations

from typing import Any

import pytest

import fanin
from fanin import Scenario
from fanin.results import SCHEMAS


def rpc_dict(n: int = 12, bursts: int = 3) -> dict[str, Any]:
    queue = {"limit": "1334pkt", "device_queue": "100pkt", "marking": {"kind": "red", "min": "65pkt", "max": "65pkt", "weight": 1, "p_max": 1}}
    return {
        "name": "test-rpc-incast",
        "topology": {
            "kind": "dumbbell",
            "senders": n,
            "host_link": {"rate": "10Gbps", "delay": "5us"},
            "core_link": {"rate": "100Gbps", "delay": "5us"},
        },
        "switch": {"queue": queue},
        "transport": {"cc": "dctcp", "header": "52B", "framing": "2B", "min_cwnd": "1pkt", "ecn_echo": "classic"},
        "workload": [
            {
                "kind": "rpc_incast",
                "degree": n,
                "total_bytes": "1.2MB",
                "count": bursts,
                "gap": "10ms",
                "request_jitter": "100us",
                "response_jitter": "100us",
            }
        ],
        "record": {"flows": True, "queue_events": {"ports": ["bottleneck", "core"]}, "windows": {"interval": "20us"}},
    }


def test_rpc_tables_have_their_documented_schemas() -> None:
    r = fanin.run(Scenario.from_dict(rpc_dict()))
    for name in ("bursts", "responses", "queue_events", "windows"):
        assert [(f.name, f.type) for f in r.tables[name].schema] == SCHEMAS[name], name
    bursts = r.table("bursts")
    assert list(bursts["burst"]) == [0, 1, 2]
    assert bursts["completed"].all()
    # Bursts follow each other gap after the previous end.
    assert (bursts["start_ps"].iloc[1:].to_numpy() == bursts["end_ps"].iloc[:-1].to_numpy() + 10**10).all()
    responses = r.table("responses")
    assert len(responses) == 3 * 12 and responses["completed"].all()
    assert (responses["done_ps"] > responses["write_ps"]).all()
    assert (responses["write_ps"] > responses["request_ps"]).all()
    # One flow per connection, carrying every burst's bytes.
    assert len(r.flows) == 12 and (r.flows["size_bytes"] == 3 * 100_000).all()
    q = r.table("queue_events")
    assert set(q["port_name"]) <= {"tor_a->r0", "tor_b->tor_a"}
    assert (q.groupby("port")["time_ps"].diff().dropna() >= 0).all()
    w = r.table("windows")
    assert (w["cwnd_bytes"] >= 1448).all() and w["alpha"].between(0, 1).all()


def test_same_seed_same_bursts() -> None:
    a = fanin.run(Scenario.from_dict(rpc_dict(bursts=2))).table("responses")
    b = fanin.run(Scenario.from_dict(rpc_dict(bursts=2))).table("responses")
    assert a.equals(b)


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        ("workload[0].gap", "-1s", "workload[0].gap"),
        ("workload[0].tokens", 0.5, "workload[0].tokens"),
        ("switch.queue.device_queue", "1MB", "switch.queue.device_queue"),
        ("record.windows.interval", "1ns", "record.windows.interval"),
    ],
)
def test_bad_rpc_fields_name_the_field(path: str, value: Any, field: str) -> None:
    s = Scenario.from_dict(rpc_dict())
    s.set(path, value)
    with pytest.raises(fanin.ScenarioError) as e:
        fanin.run(s)
    assert str(e.value).startswith(field), str(e.value)
