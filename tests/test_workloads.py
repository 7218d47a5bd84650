"""fanin.workloads: .cm matrices and the mixed intra/inter Poisson generator."""

from __future__ import annotations

from pathlib import Path

import pytest

import fanin
import fanin.workloads as w
from fanin import ScenarioError

ALIBABA_STORAGE_MEAN = 40_870.0  # linear interpolation of the CDF (its file header says so)
WEBSEARCH_MEAN = 1_711_250.0


def _artifact(name: str) -> Path:
    try:
        return w.find(name)
    except FileNotFoundError:
        pytest.skip(f"{name} is not available (set {w.ARTIFACT_ENV})")


def test_packaged_matrix_reads() -> None:
    df = w.read_cm("4_4_1000MB.cm")
    assert len(df) == 8
    assert set(df["dst"]) == {240}
    assert sorted(df["src"]) == [0, 10, 20, 30, 130, 140, 150, 160]
    assert (df["size_bytes"] == 1_000_000_000).all()


@pytest.mark.parametrize(("load", "span_ms"), [(0.4, 1.46), (0.6, 1.00), (0.8, 0.71)])
def test_generator_matches_the_artifact_matrices(load: float, span_ms: float) -> None:
    """The first 5000 flows span what the artifact's files span, with its class mix and sizes."""
    art = w.read_cm(_artifact(f"websearchIntra_AlibabaInter_5000f_{int(load * 100)}l.cm"))
    assert art["start_ps"].max() / 1e9 == pytest.approx(span_ms, abs=0.005)
    gen = w.mixed_poisson(load=load, seed=11)
    assert len(gen) == 5000
    assert gen["start_ps"].max() / 1e9 == pytest.approx(span_ms, rel=0.10)
    assert gen["inter_dc"].mean() == pytest.approx(0.2, abs=0.02)
    intra, inter = gen[~gen["inter_dc"]], gen[gen["inter_dc"]]
    assert intra["size_bytes"].max() <= 2_000_000
    assert intra["size_bytes"].mean() == pytest.approx(ALIBABA_STORAGE_MEAN, rel=0.15)
    assert inter["size_bytes"].mean() == pytest.approx(WEBSEARCH_MEAN, rel=0.2)
    assert intra["size_bytes"].median() == pytest.approx(art["size_bytes"][(art.src // 128) == (art.dst // 128)].median(), rel=0.15)
    assert (gen["src"] != gen["dst"]).all()
    assert ((gen["src"] // 128 == gen["dst"] // 128) != gen["inter_dc"]).all()


def test_write_cm_round_trips_and_runs(tmp_path: Path) -> None:
    path = tmp_path / "mine.cm"
    flows = w.write_cm(path, hosts=8, datacenters=1, intra_fraction=1.0, load=0.3, flows=20, seed=5, nic_rate_bps=10**10)
    back = w.read_cm(path)
    assert list(back["id"]) == list(range(1, 21))
    for col in ("src", "dst", "start_ps", "size_bytes"):
        assert list(back[col]) == list(flows[col])
    link = {"rate": "10Gbps", "delay": "1us"}
    topo = {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 4, "host_link": link, "fabric_link": link}
    from_file = fanin.Scenario.from_dict(
        {"seed": 5, "topology": topo, "workload": [{"kind": "matrix", "file": "mine.cm"}], "record": {"flows": True}},
        base_dir=tmp_path,
    )
    generated = fanin.Scenario.from_dict(
        {
            "seed": 5,
            "topology": topo,
            "workload": [
                {
                    "kind": "mixed_poisson",
                    "load": 0.3,
                    "flows": 20,
                    "intra_fraction": 1.0,
                    "intra_sizes": "alibaba_storage2019_cdf.txt",
                    "inter_sizes": "websearch_dctcp2010_cdf.txt",
                }
            ],
            "record": {"flows": True},
        }
    )
    a, b = fanin.run(from_file).flows, fanin.run(generated).flows
    # The .cm keeps whole picoseconds, so the scenario's own draw and the file agree exactly.
    for col in ("src", "dst", "start_ps", "size_bytes", "fct_ps"):
        assert list(a[col]) == list(b[col])


def test_malformed_matrix_names_file_line_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.cm"
    bad.write_text("Nodes 4\nConnections 1\n0->1 id 1 start 0 size -5\n")
    with pytest.raises(ValueError, match=r"bad.cm: line 3, field `size`"):
        w.read_cm(bad)
    s = fanin.Scenario.from_dict(
        {"topology": {"kind": "star", "senders": 4}, "workload": [{"kind": "matrix", "file": "bad.cm"}]}, base_dir=tmp_path
    )
    with pytest.raises(ScenarioError, match=r"workload\[0\].file: `bad.cm` line 3, field `size`"):
        s.validate()
