"""The scenario examples in docs/scenario.md are accepted as written: a whole scenario on
its own, a fragment merged into a scenario of the kind its section is about. A field
renamed or a rule tightened without the documentation fails here."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from fanin import Scenario

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "scenario.md"
BENCH = ROOT / "python" / "fanin" / "bench"


def snippets() -> list[str]:
    return re.findall(r"```toml\n(.*?)```", DOC.read_text(), re.S)


def merged(base: dict[str, Any], fragment: dict[str, Any]) -> dict[str, Any]:
    """`base` with `fragment`'s tables merged in key by key (arrays of tables replace)."""
    out = copy.deepcopy(base)
    for key, value in fragment.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merged(out[key], value)
        else:
            out[key] = value
    return out


def paragraphs(text: str) -> list[str]:
    """A snippet's examples: the blocks its blank lines separate."""
    return [p for p in text.split("\n\n") if p.strip()]


def leaf_spine() -> dict[str, Any]:
    """The documented ICON mix: a 20 x 10 leaf-spine with hosts h0 ... h399."""
    return tomllib.loads(next(s for s in snippets() if 'kind = "leaf_spine"' in s))


def uno_two_dc() -> dict[str, Any]:
    """Bench (e)'s two datacenters (UnoCC, basic recovery) with a permutation, so that no
    artifact file is needed."""
    d = tomllib.loads((BENCH / "e_uno_two_dc.toml").read_text())
    d["workload"] = [{"kind": "permutation", "start": "0s", "bytes": "1MB"}]
    return d


def superways_incasts() -> dict[str, Any]:
    """The aggregators and senders of the Superways scenario (the documentation elides them)."""
    d = tomllib.loads((ROOT / "experiments" / "superways" / "scenario.toml").read_text())
    w = next(w for w in d["workload"] if w["kind"] == "aggregator_incast")
    return {"aggregators": w["aggregators"], "senders": w["senders"]}


def contexts(snippet: str) -> list[tuple[str, dict[str, Any]]]:
    """The scenarios a snippet is checked as: (label, scenario)."""
    doc = tomllib.loads(snippet)
    if "topology" in doc and "workload" in doc:
        return [(doc["name"], doc)]
    if "topology" in doc and doc["topology"].get("kind") == "jellyfish":
        return [("jellyfish", {**leaf_spine(), "topology": doc["topology"]})]
    if "superways" in doc:
        # Two forms, the first a line of [topology], the second its own table.
        inline, table = (tomllib.loads(p) for p in paragraphs(snippet))
        first = leaf_spine()
        first["topology"].update(inline)
        return [("superways per_rack", first), ("superways servers", merged(leaf_spine(), table))]
    if "routing" in doc:
        # Superways' pinned routes: leaf0 -> spine1 -> h19 is one of h19's extra links.
        base = merged(leaf_spine(), {"topology": {"superways": {"per_rack": 19, "links": 3}}})
        return [("routing.static", merged(base, doc))]
    if "workload" in doc:
        (w,) = doc["workload"]
        return [(w["kind"], {**leaf_spine(), "workload": [{**w, **superways_incasts()}]})]
    if "event" in doc:
        # Uno's WAN and border examples on two datacenters, the cable cut on a leaf-spine.
        out = []
        for p in paragraphs(snippet):
            events = tomllib.loads(p)["event"]
            base = uno_two_dc() if "leaf0" not in p else leaf_spine()
            out.append((f"event {events[0]['link']}", {**base, "event": events}))
        return out
    if "partition" in doc:
        return [("partition", merged(tomllib.loads((BENCH / "c_fattree16.toml").read_text()), doc))]
    if "erasure" in doc.get("transport", {}):
        return [("transport.erasure", merged(uno_two_dc(), doc))]
    return [(next(iter(doc)), merged(leaf_spine(), doc))]


def test_every_example_is_checked() -> None:
    # A new kind of example must get a context above, not fall through unchecked.
    labels = [label for s in snippets() for label, _ in contexts(s)]
    assert len(snippets()) >= 10 and len(labels) == len(set(labels))
    for expected in ("jellyfish", "superways servers", "routing.static", "aggregator_incast", "partition"):
        assert expected in labels


@pytest.mark.parametrize("snippet", snippets(), ids=lambda s: s.strip().splitlines()[0][:40])
def test_the_documented_example_is_accepted(snippet: str) -> None:
    for label, scenario in contexts(snippet):
        try:
            Scenario.from_dict(scenario).validate()
        except Exception as e:  # the message says which field, and the label which example
            pytest.fail(f"{label}: {e}")
