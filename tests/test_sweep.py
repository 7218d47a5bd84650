"""fanin.sweep: the runs a sweep makes, the cache that makes it resumable."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from fanin import Results, Scenario
from fanin.run_key import run_key
from fanin.sweep import Axis, Sweep, SweepError

CALLS: list[dict[str, Any]] = []


def flows_derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    CALLS.append(point)
    f = results.flows
    return pd.DataFrame({"fct_ps": f["fct_ps"], "size_bytes": f["size_bytes"]})


def small(small_incast: dict[str, Any]) -> Scenario:
    small_incast["record"] = {"flows": True}
    return Scenario.from_dict(small_incast)


def test_points_product_zip_variants_seeds(small_incast: dict[str, Any]) -> None:
    sw = Sweep(
        small(small_incast),
        axes={"N": Axis(["topology.senders", "workload[0].degree"], [2, 4])},
        zip=[
            {
                "size": Axis("workload[0].bytes_per_sender", ["10KB", "20KB"]),
                "K": Axis("switch.queue.marking.threshold", ["20pkt", "40pkt"]),
            }
        ],
        variants={"dctcp": {}, "newreno": {"transport.cc": "newreno"}},
        seeds=2,
        set={"transport.min_rto": "1ms"},
    )
    points = sw.points()
    assert len(points) == 2 * 2 * 2 * 2
    first = points[0]
    assert first.labels == {"variant": "dctcp", "size": "10KB", "K": "20pkt", "N": 2, "seed": 1}
    assert [p.labels["seed"] for p in points[:2]] == [1, 2]  # seeds innermost
    last = points[-1]
    assert last.labels == {"variant": "newreno", "size": "20KB", "K": "40pkt", "N": 4, "seed": 2}
    s = last.scenario
    assert (s.get("topology.senders"), s.get("workload[0].degree")) == (4, 4)  # one axis, two fields
    assert s.get("transport.cc") == "newreno" and s.get("transport.min_rto") == "1ms"
    assert s.get("switch.queue.marking.threshold") == "40pkt"
    assert sw.base.get("transport.cc") == "dctcp"  # the base is never edited


@pytest.mark.parametrize(
    "kwargs, where",
    [
        ({"zip": [{"a": Axis("seed", [1, 2]), "b": Axis("name", [1])}]}, "zip[0]"),
        ({"axes": {"a": []}}, "axes.a"),
        ({"axes": {"seed": [1]}}, "axes"),
        ({"seeds": 0}, "seeds"),
        ({"seeds": [1, -2]}, "seeds"),
    ],
)
def test_bad_sweeps_are_refused(small_incast: dict[str, Any], kwargs: dict[str, Any], where: str) -> None:
    with pytest.raises(SweepError) as e:
        Sweep(small(small_incast), **kwargs)
    assert e.value.where == where


def test_bad_value_names_the_run(small_incast: dict[str, Any], tmp_path: Path) -> None:
    sw = Sweep(small(small_incast), variants={"ok": {}, "bad": {"transport.cc": "warp"}})
    with pytest.raises(Exception) as e:
        sw.run(cache=tmp_path)
    assert "transport.cc" in str(e.value) and "variant=bad" in str(e.value)
    assert not any(tmp_path.iterdir())  # nothing ran before the check


def test_interrupted_sweep_resumes_without_redoing_runs(small_incast: dict[str, Any], tmp_path: Path) -> None:
    sw = Sweep(small(small_incast), axes={"workload[0].bytes_per_sender": ["8KB", "16KB", "24KB"]}, seeds=2)
    n, k = 6, 4

    def stop_after_k(done: int, total: int) -> None:
        assert total == n
        if done == k:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        sw.run(cache=tmp_path / "c", progress=stop_after_k)
    resumed = sw.run(cache=tmp_path / "c")
    assert resumed.attrs["sweep"] == {"runs": n, "cached": k, "executed": n - k}
    again = sw.run(cache=tmp_path / "c")
    assert again.attrs["sweep"]["executed"] == 0
    fresh = sw.run(cache=tmp_path / "fresh")
    cols = ["workload[0].bytes_per_sender", "seed", "events", "packet_hops", "flows_completed", "drops"]
    pd.testing.assert_frame_equal(resumed[cols], fresh[cols])
    assert list(resumed["workload[0].bytes_per_sender"]) == ["8KB", "8KB", "16KB", "16KB", "24KB", "24KB"]
    r = Results.from_parquet(resumed["run_dir"][0])  # each row points at its cached run
    assert set(r.flows["size_bytes"]) == {8000}


def test_changed_scenario_reruns_only_the_changed_runs(small_incast: dict[str, Any], tmp_path: Path) -> None:
    base = small(small_incast)
    Sweep(base, axes={"workload[0].degree": [2, 4]}).run(cache=tmp_path)
    changed = Sweep(base.copy().set("transport.min_rto", "2ms"), axes={"workload[0].degree": [2, 4]})
    assert changed.run(cache=tmp_path).attrs["sweep"]["executed"] == 2
    grown = Sweep(base, axes={"workload[0].degree": [2, 4, 8]})
    assert grown.run(cache=tmp_path).attrs["sweep"] == {"runs": 3, "cached": 2, "executed": 1}


def test_run_key_covers_seed_tables_and_named_files(tmp_path: Path) -> None:
    (tmp_path / "sizes_cdf.txt").write_text("1000 0\n2000 1\n")
    s = Scenario.from_dict(
        {"name": "x", "workload": [{"kind": "poisson", "sizes": "sizes_cdf.txt"}]}, base_dir=tmp_path
    )
    key = run_key(s, 1)
    assert run_key(s, 1) == key
    assert run_key(s, 2) != key
    assert run_key(s, 1, ["flows"]) != key
    (tmp_path / "sizes_cdf.txt").write_text("1000 0\n3000 1\n")
    assert run_key(s, 1) != key  # the file the scenario names changed


def test_derive_rows_are_labelled_and_cached(small_incast: dict[str, Any], tmp_path: Path) -> None:
    CALLS.clear()
    sw = Sweep(small(small_incast), axes={"N": Axis(["topology.senders", "workload[0].degree"], [2, 3])}, tables=[])
    df = sw.run(derive=flows_derive, cache=tmp_path)
    assert list(df.columns) == ["N", "seed", "fct_ps", "size_bytes"]
    assert list(df.groupby("N").size()) == [2, 3]  # one row per flow of each run
    assert len(CALLS) == 2 and CALLS[0] == {"N": 2, "seed": 1}
    again = sw.run(derive=flows_derive, cache=tmp_path)
    assert len(CALLS) == 2 and again.attrs["sweep"]["executed"] == 0
    pd.testing.assert_frame_equal(df, again)
    both = sw.run(derive={"flows": flows_derive}, cache=tmp_path)
    assert set(both) == {"flows"} and len(both["flows"]) == 5


def test_derive_key_follows_the_helpers_an_analysis_imports(tmp_path: Path) -> None:
    """Editing a helper module that a figure's analysis imports reruns its derive."""
    import sys

    from fanin.derive_ref import DeriveRef, load_module

    (tmp_path / "fig_helpers.py").write_text("def scale():\n    return 1\n")
    (tmp_path / "fig_analysis.py").write_text(
        "from fig_helpers import scale\n\ndef derive(results, point):\n    return scale()\n"
    )

    def key() -> str:
        for name in ("fig_helpers", "fig_analysis"):
            sys.modules.pop(name, None)
        sys.path.insert(0, str(tmp_path))
        try:
            module = load_module(tmp_path / "fig_analysis.py", "fig_analysis")
            return DeriveRef("d", module.derive).key
        finally:
            sys.path.remove(str(tmp_path))

    before = key()
    assert key() == before
    (tmp_path / "fig_helpers.py").write_text("def scale():\n    return 2\n")
    assert key() != before


def test_sweep_file(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    small(small_incast).save(tmp_path / "base.toml")
    (tmp_path / "sweep.toml").write_text(
        'scenario = "base.toml"\nseeds = [3]\n[axes]\n'
        'N = { path = ["topology.senders", "workload[0].degree"], values = [2, 4] }\n'
        '[variants.reno]\n"transport.cc" = "newreno"\n'
    )
    sw = Sweep.load(tmp_path / "sweep.toml")
    assert [p.labels for p in sw.points()] == [
        {"variant": "reno", "N": 2, "seed": 3},
        {"variant": "reno", "N": 4, "seed": 3},
    ]
    (tmp_path / "bad.toml").write_text('scenario = "base.toml"\naxis = {}\n')
    with pytest.raises(SweepError, match="unknown key 'axis'"):
        Sweep.load(tmp_path / "bad.toml")


def ict_derive(results: Results, point: dict[str, Any]) -> pd.DataFrame:
    return pd.DataFrame({"ict_ps": results.incasts["ict_ps"]})


def test_sweeps_share_runs_and_any_executor_runs_them(small_incast: dict[str, Any], tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from fanin.sweep import run_sweeps

    sw = Sweep(small(small_incast), axes={"workload[0].degree": [2, 4, 6]})
    with ThreadPoolExecutor(2) as pool:  # the engine releases the GIL
        flows, icts = run_sweeps([(sw, flows_derive), (sw, ict_derive)], cache=tmp_path, executor=pool)
    # each run ran once, for both figures' derives
    assert flows.attrs["sweep"] == icts.attrs["sweep"] == {"runs": 3, "cached": 0, "executed": 3}
    assert list(icts["workload[0].degree"]) == [2, 4, 6] and len(flows) == 12
    serial = sw.run(derive=ict_derive, cache=tmp_path / "serial")
    pd.testing.assert_frame_equal(icts, serial, check_like=False)
    lock = threading.Lock()  # a derive holding one cannot reach another process

    def locked(results: Results, point: dict[str, Any]) -> pd.DataFrame:
        with lock:
            return pd.DataFrame()

    with pytest.raises(SweepError, match=r"derive: .*locked cannot be sent to worker processes .*lock"):
        Sweep(small(small_incast), seeds=[7, 8]).run(derive=locked, cache=tmp_path / "locked", jobs=2)
    assert not (tmp_path / "locked").exists()  # refused before any run
