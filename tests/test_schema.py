"""`fanin schema`: the JSON Schema editors check scenario files with, held to the engine.

jsonschema is not among fanin's dependencies, so a small checker below implements the
keywords the schema uses, and a test fails if the schema starts using any other.
Every bundled scenario must pass; a few wrong ones must not; and every field list,
every choice list and every per-kind field list must be what the engine accepts.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, fanin_cli, small_fat_tree_dict, small_incast_dict
from fanin import Scenario, ScenarioError
from fanin.overrides import parse_path
from fanin.schema import BYTE_UNITS, RATE_UNITS, SIZE_UNITS, TIME_UNITS, scenario_schema

Schema = dict[str, Any]
SCHEMA = scenario_schema()
BAD = "no-such-value"

# ------------------------------------------------------------------ a checker for the subset used

ANNOTATIONS = {"$schema", "$defs", "title", "description", "default"}
KEYWORDS = {"$ref", "type", "enum", "const", "pattern", "minimum", "maximum", "exclusiveMinimum", "minItems"}
KEYWORDS |= {"items", "properties", "additionalProperties", "required", "propertyNames", "anyOf", "allOf", "if", "then"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


def resolve(node: Schema) -> Schema:
    if "$ref" not in node:
        return node
    name = node["$ref"].removeprefix("#/$defs/")
    return {**SCHEMA["$defs"][name], **{k: v for k, v in node.items() if k != "$ref"}}


def _object_errors(value: dict[str, Any], node: Schema, at: str) -> list[str]:
    errors = [f"{at}: missing {k}" for k in node.get("required", []) if k not in value]
    props = node.get("properties", {})
    for key, v in value.items():
        if key in props:
            errors += violations(v, props[key], f"{at}.{key}")
        elif node.get("additionalProperties") is False:
            errors.append(f"{at}: unknown field {key}")
        if "propertyNames" in node:
            errors += violations(key, node["propertyNames"], f"{at}: name {key}")
    return errors


def _combinator_errors(value: Any, node: Schema, at: str) -> list[str]:
    errors: list[str] = []
    if "anyOf" in node and all(violations(value, alt, at) for alt in node["anyOf"]):
        errors.append(f"{at}: matches no alternative")
    for part in node.get("allOf", []):
        errors += violations(value, part, at)
    if "if" in node and not violations(value, node["if"], at):
        errors += violations(value, node.get("then", {}), at)
    return errors


def violations(value: Any, node: Schema, at: str = "") -> list[str]:
    """What is wrong with ``value`` under ``node``: empty when it validates."""
    node = resolve(node)
    if "type" in node and not TYPES[node["type"]](value):
        return [f"{at}: not {node['type']}"]
    errors = _combinator_errors(value, node, at)
    if "enum" in node and value not in node["enum"]:
        errors.append(f"{at}: {value!r} not in {node['enum']}")
    if "const" in node and value != node["const"]:
        errors.append(f"{at}: {value!r} is not {node['const']!r}")
    if isinstance(value, str) and "pattern" in node and not re.search(node["pattern"], value):
        errors.append(f"{at}: {value!r} does not match")
    if isinstance(value, int | float) and not isinstance(value, bool):
        if value < node.get("minimum", value) or value > node.get("maximum", value):
            errors.append(f"{at}: {value} out of range")
        if "exclusiveMinimum" in node and value <= node["exclusiveMinimum"]:
            errors.append(f"{at}: {value} not above {node['exclusiveMinimum']}")
    if isinstance(value, list):
        if len(value) < node.get("minItems", 0):
            errors.append(f"{at}: too few items")
        for i, item in enumerate(value):
            errors += violations(item, node.get("items", {}), f"{at}[{i}]")
    if isinstance(value, dict):
        errors += _object_errors(value, node, at)
    return errors


def keywords(node: Any) -> Iterator[str]:
    """Every keyword the schema uses (property names and enum values are not keywords)."""
    if isinstance(node, dict):
        for k, v in node.items():
            yield k
            if k in ("properties", "$defs"):
                for sub in v.values():
                    yield from keywords(sub)
            elif k not in ("enum", "required", "const", "default"):
                yield from keywords(v)
    elif isinstance(node, list):
        for item in node:
            yield from keywords(item)


def test_the_schema_uses_only_what_the_checker_checks() -> None:
    assert set(keywords(SCHEMA)) <= KEYWORDS | ANNOTATIONS
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_the_checker_rejects_what_it_should() -> None:
    assert violations({"a": 1}, {"type": "object", "properties": {}, "additionalProperties": False})
    assert violations(True, {"type": "integer"}) and not violations(2, {"type": "number"})
    assert violations("x", {"anyOf": [{"type": "integer"}, {"enum": ["y"]}]})
    rule = {"if": {"properties": {"k": {"const": "a"}}}, "then": {"propertyNames": {"enum": ["k"]}}}
    assert violations({"k": "a", "z": 1}, rule) and not violations({"k": "b", "z": 1}, rule)


# ------------------------------------------------------------------ the files the repository ships


def scenario_files() -> list[Path]:
    """Every scenario file: examples, benchmarks, the catalog's, and test fixtures."""
    files = [*ROOT.glob("scenarios/*.toml"), *ROOT.glob("python/fanin/bench/*.toml")]
    files += ROOT.glob("crates/engine/tests/fixtures/*.toml")
    for figure in ROOT.glob("experiments/**/figure.toml"):
        text = figure.read_text(encoding="utf-8")
        for name in re.findall(r'scenario = "([^"]+)"', text):
            files.append((figure.parent / name).resolve())
    return sorted(set(files))


def test_every_bundled_scenario_file_validates() -> None:
    files = scenario_files()
    assert len(files) >= 10, files  # the catalog's scenarios were found
    for path in files:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
        assert violations(doc, SCHEMA) == [], path


def test_every_catalog_run_and_documented_example_validates() -> None:
    """Sweeps' runs (their `set`, axes and variants applied), the docs' example, the tests' own."""
    from fanin.catalog import find_catalog, load_paper, paper_names

    root = find_catalog(None)
    docs = []
    for paper in paper_names(root):
        for figure in load_paper(paper, root).figures:
            docs += [p.scenario.data for p in (figure.sweep.points() if figure.sweep else [])]
    assert len(docs) > 20
    example = re.search(r"```toml\n(.*?)```", (ROOT / "docs" / "scenario.md").read_text(encoding="utf-8"), re.S)
    assert example is not None
    docs += [tomllib.loads(example.group(1)), small_incast_dict(), small_fat_tree_dict()]
    for doc in docs:
        assert violations(doc, SCHEMA) == [], doc.get("name")


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (lambda d: d.update(trasport={"cc": "dctcp"}), ": unknown field trasport"),
        (lambda d: d.update(seed="7"), ".seed: not integer"),
        (lambda d: d["topology"].update(senders="8"), ".topology.senders: not integer"),
        (lambda d: d["transport"].update(cc="cubic"), ".transport.cc: matches no alternative"),
        (lambda d: d["transport"].update(min_rto="200"), ".transport.min_rto: '200' does not match"),
        (lambda d: d["workload"][0].update(load=0.5), ".workload[0]: name load"),
        (lambda d: d["topology"].update(k=4), ".topology: name k"),
        (lambda d: d.pop("workload"), ": missing workload"),
    ],
)
def test_wrong_files_are_rejected(edit: Any, where: str) -> None:
    doc = small_incast_dict()
    edit(doc)
    assert any(e.startswith(where) for e in violations(doc, SCHEMA)), violations(doc, SCHEMA)


def test_fanin_schema_prints_the_schema() -> None:
    r = fanin_cli("schema")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == SCHEMA


# ------------------------------------------------------------------ held to the engine


def walk(node: Schema, path: str = "", seen: set[str] | None = None) -> Iterator[tuple[str, Schema]]:
    """(scenario path, schema node) for every node, each $defs entry at its first place only."""
    seen = set() if seen is None else seen
    if "$ref" in node:
        if node["$ref"] in seen:
            return
        seen.add(node["$ref"])
    node = resolve(node)
    yield path, node
    for alt in node.get("anyOf", []):
        yield from walk(alt, path, seen)
    for key, sub in node.get("properties", {}).items():
        yield from walk(sub, f"{path}.{key}" if path else key, seen)
    if "items" in node:
        yield from walk(node["items"], f"{path}[0]", seen)


def engine_error(doc: dict[str, Any]) -> ScenarioError | None:
    try:
        Scenario.from_dict(doc).validate()
    except ScenarioError as e:
        return e
    return None


def at(path: str, value: dict[str, Any]) -> dict[str, Any]:
    """A document holding ``value`` at ``path`` (an index: a one-entry array) and nothing else."""
    doc: Any = value
    for key in reversed(parse_path(path) if path else []):
        doc = [doc] if isinstance(key, int) else {key: doc}
    return doc


def object_nodes() -> list[tuple[str, Schema]]:
    return [(p, n) for p, n in walk(SCHEMA) if n.get("additionalProperties") is False]


# Fields serde reads in both [switch] and [host] that validation then refuses in one of them.
REFUSED_LATER = {"switch": {"tsq": True, "limit_output": "1MiB"}, "host": {"inter_queue": {}, "buffer": {}}}


@pytest.mark.parametrize(("path", "node"), object_nodes(), ids=[p or "top" for p, _ in object_nodes()])
def test_every_table_lists_the_fields_the_engine_reads(path: str, node: Schema) -> None:
    field = f"{path}.not_a_field" if path else "not_a_field"
    doc = at(path, {"not_a_field": 1})
    e = engine_error(doc)
    assert e is not None and e.path == field and e.message == "unknown field", e
    refused = REFUSED_LATER.get(path, {})
    assert set(e.allowed) == set(node["properties"]) | set(refused)
    for name, value in refused.items():
        e = engine_error({**small_incast_dict(), path: {name: value}})
        assert e is not None and e.path == f"{path}.{name}" and "only" in e.message, e


def with_fields(edits: dict[str, Any]) -> dict[str, Any]:
    """The small incast with some fields set (dotted paths)."""
    s = Scenario.from_dict(small_incast_dict())
    for path, value in edits.items():
        s.set(path, value)
    return s.data


MULTI_DC = {"kind": "multi_dc", "long_haul_link": {"delay": "1ms"}}
# Where each choice is read: a scenario that reaches the check, per path of an enum.
REACHES = {
    "topology.kind": {},
    "topology.superways.to": {"topology": {"kind": "leaf_spine", "leaves": 3, "spines": 2, "hosts_per_leaf": 2, "superways": {"per_rack": 1, "links": 1}}},
    "topology.level": {"topology": {"kind": "bcube", "leaves": 2, "spines": 1, "hosts_per_leaf": 2}},
    "topology.preset": {"topology": {"kind": "multi_dc"}},
    "topology.fabric": {"topology": {**MULTI_DC, "interconnect": "backbone"}},
    "topology.interconnect": {"topology": {**MULTI_DC, "fabric": "fat_tree", "k": 4}},
    "switch.queue.marking.kind": {},
    "switch.queue.control.service": {"switch.queue.control": {}},
    "switch.queue.schedule": {},
    "switch.buffer.kind": {"switch.buffer": {}},
    "transport.cc": {},
    "transport.cc.intra": {"transport.cc": {}},
    "transport.cc.inter": {"transport.cc": {}},
    "transport.recovery": {},
    "transport.ecn_echo": {},
    "transport.timestamp": {},
    "transport.rto": {},
    "transport.nack_decrease": {},
    "transport.mprdma.variant": {"transport.cc": "mprdma", "transport.mprdma": {}},
    "transport.icon.variant": {"transport.icon": {}},
    "transport.icon.rate": {"transport.icon": {}},
    "transport.icon.pace_scope": {"transport.icon": {}},
    "transport.erasure.scope": {"transport.recovery": "basic", "transport.erasure": {}},
    "workload[0].kind": {},
    "workload[0].pick": {},
    "workload[0].scheme": {"workload": [{"kind": "proxy_incast", "degree": 2, "bytes_per_sender": "1KB"}]},
    "workload[0].proxy_order": {
        "workload": [{"kind": "proxy_incast", "scheme": "naive", "proxy": "s1", "degree": 2, "bytes_per_sender": "1KB"}]
    },
    "workload[0].sampling": {
        "workload": [{"kind": "poisson", "load": 0.5, "sizes": "alibaba_storage2019_cdf.txt", "stop": "1ms"}]
    },
    "workload[0].capacity": {"workload": [{"kind": "poisson", "load": 0.5, "sizes": "constant 1KB", "stop": "1ms"}]},
    "workload[0].remember": {"workload": [{"kind": "rpc_incast", "degree": 2, "bytes_per_sender": "1KB"}]},
    "workload[0].rwnd_strategy": {"workload": [{"kind": "rpc_incast", "degree": 2, "bytes_per_sender": "1KB"}]},
    "routing.lb": {},
    "record.flows": {},
    "event[0].action": {"event": [{}]},
    "event[0].preset": {"event": [{"at": "0s", "link": "bottleneck", "action": "drop"}]},
    "partition.by": {},
}


def enum_nodes() -> list[tuple[str, list[str]]]:
    return [(p, n["enum"]) for p, n in walk(SCHEMA) if "enum" in n]


def test_every_choice_list_is_reached_by_a_test() -> None:
    assert sorted(p for p, _ in enum_nodes()) == sorted(REACHES)


@pytest.mark.parametrize(("path", "choices"), enum_nodes(), ids=[p for p, _ in enum_nodes()])
def test_every_choice_list_is_the_engines(path: str, choices: list[str]) -> None:
    doc = Scenario.from_dict(with_fields(REACHES[path])).set(path, BAD).data
    e = engine_error(doc)
    assert e is not None and e.path == path, e
    assert e.allowed == choices


def sample(node: Schema) -> Any:
    """A value of the field's TOML type (whether the engine then likes it does not matter)."""
    node = resolve(node)
    if "anyOf" in node:
        return sample(node["anyOf"][0])
    if "enum" in node:
        return node["enum"][0]
    return {"string": "1", "integer": 1, "number": 0.5, "boolean": True, "object": {}, "array": []}[node["type"]]


def kind_rules() -> list[tuple[str, Schema, str, str, list[str]]]:
    """(path, node, discriminator, value, fields it allows) of every per-kind rule."""
    out = []
    for path, node in walk(SCHEMA):
        for rule in node.get("allOf", []):
            ((key, cond),) = rule["if"]["properties"].items()
            out.append((path, node, key, cond["const"], rule["then"]["propertyNames"]["enum"]))
    return out


@pytest.mark.parametrize(
    ("path", "node", "key", "value", "allowed"), kind_rules(), ids=[f"{r[0]}.{r[2]}={r[3]}" for r in kind_rules()]
)
def test_every_kind_takes_the_fields_the_engine_reads(
    path: str, node: Schema, key: str, value: str, allowed: list[str]
) -> None:
    for field, sub in node["properties"].items():
        if field == key:
            continue
        base = {**small_incast_dict(), "event": [{}]} if path.startswith("event") else small_incast_dict()
        doc = Scenario.from_dict(base).set(path, {key: value, field: sample(sub)}).data
        e = engine_error(doc)
        # The engine says "kind", or the discriminator's name where it is not `kind` (an action).
        says = [f"does not apply to {word} `{value}`" for word in ("kind", key)]
        refused = e is not None and e.path == f"{path}.{field}" and any(m in e.message for m in says)
        assert refused == (field not in allowed), (field, e)


# Quantity spellings whose fate does not depend on the value's size: the schema's pattern
# and the engine's parser must agree on each.
SPELLINGS = {
    "duration": [
        "1ms",
        "1 ms",
        " 2.5us ",
        ".5ms",
        "5.ms",
        "1_000us",
        "+1s",
        "3µs",
        "1e3us",
        "-1ms",
        "5",
        "ms",
        "1 sec",
    ],
    "topology.host_link.rate": ["10Gbps", "10 Gbps", "2.5Gbps", "10gbps", "10G", "1_0Mbps", "Gbps"],
    "switch.queue.limit": ["1000pkt", "1 MB", "64KiB", "2000 B", "10pkts", "1e3pkt", "100", "1.5.0KB"],
    "transport.min_rto": ["200us", "2rtt", "1.5 rtt", "1e1rtt", "rtt", "2 RTT"],
    "transport.init_cwnd": ["10pkt", "1bdp", "0.5bdp", "64KB", "bdp", "1 bdps"],
}


@pytest.mark.parametrize("path", SPELLINGS)
def test_quantity_patterns_agree_with_the_engine(path: str) -> None:
    node = dict(walk(SCHEMA))[path]
    for text in SPELLINGS[path]:
        accepted = engine_error(Scenario.from_dict(small_incast_dict()).set(path, text).data) is None
        assert (re.search(node["pattern"], text) is not None) == accepted, (path, text)


@pytest.mark.parametrize(
    ("path", "units"),
    [
        ("duration", TIME_UNITS),
        ("topology.host_link.rate", RATE_UNITS),
        ("workload[0].bytes_per_sender", BYTE_UNITS),
        ("switch.queue.limit", SIZE_UNITS),
    ],
)
def test_units_are_the_engines(path: str, units: list[str]) -> None:
    e = engine_error(with_fields({path: "1 furlong"}))
    assert e is not None and e.path == path and e.allowed == units, e
