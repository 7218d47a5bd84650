"""The native module's contract, called directly."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import small_incast_dict
from fanin import Scenario, _native

DTYPES = {"u8": 8, "i8": 8, "u4": 4, "f8": 8, "bool": 1, "u8?": 9, "f8?": 9}  # nullable: the value, then a validity byte


def test_version() -> None:
    assert _native.version().count(".") == 2


def test_validate_and_error_args() -> None:
    s = Scenario.from_dict(small_incast_dict())
    assert _native.validate(s.to_toml(), s.search_dirs()) == {"name": "test-small-incast", "seed": 1}
    s.set("transport.cc", "nope")
    with pytest.raises(_native.ScenarioError) as info:
        _native.validate(s.to_toml(), [])
    line, path, allowed = info.value.args
    assert path == "transport.cc" and "dctcp" in allowed and line.startswith("transport.cc: ")
    assert isinstance(info.value, ValueError)


def test_run_returns_columns_and_reports_progress() -> None:
    s = Scenario.from_dict(small_incast_dict())
    calls: list[tuple[int, int | None]] = []
    tables, summary = _native.run(s.to_toml(), s.search_dirs(), lambda now, h: calls.append((now, h)), 0)
    assert calls, "progress was never reported"
    nows = [c[0] for c in calls]
    assert nows == sorted(nows)
    assert all(isinstance(v, float) for v in summary.values())
    for key in ("events", "packet_hops", "sim_end_ps"):
        assert key in summary
    assert "flows" in tables
    for name, cols in tables.items():
        lengths = set()
        for col, dtype, data in cols:
            assert isinstance(col, str)
            if dtype == "str":  # Arrow's layout: i32 offsets, then the UTF-8 text they cut
                offsets, utf8 = data
                ends = np.frombuffer(offsets, dtype="<i4")
                assert ends[0] == 0 and ends[-1] == len(utf8) and (np.diff(ends) >= 0).all()
                utf8.decode()
                lengths.add(len(ends) - 1)
            else:
                assert dtype in DTYPES, dtype
                assert isinstance(data, bytes) and len(data) % DTYPES[dtype] == 0
                lengths.add(len(data) // DTYPES[dtype])
        assert len(lengths) <= 1, f"{name}: columns of different lengths"


def test_progress_exception_stops_the_run() -> None:
    s = Scenario.from_dict(small_incast_dict())

    def boom(now: int, horizon: Any) -> None:
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        _native.run(s.to_toml(), s.search_dirs(), boom, 1_000_000)


def test_the_engine_opens_files_only_inside_its_search_folders(tmp_path: Path) -> None:
    """Python checks file fields first; the engine refuses on its own too (defence in depth)."""
    secret = tmp_path / "outside" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("1 0\n2 1\n")
    inside = tmp_path / "data"
    inside.mkdir()
    (inside / "escape.txt").symlink_to(secret)
    d = small_incast_dict() | {"duration": "1ms"}
    for name in (str(secret), "../outside/secret.txt", "escape.txt"):
        d["workload"] = [{"kind": "poisson", "load": 0.1, "sizes": name}]
        with pytest.raises(_native.ScenarioError) as e:
            _native.validate(Scenario.from_dict(d).to_toml(), [str(inside)])
        assert "not found in" in e.value.args[0] and "1 0" not in e.value.args[0]
    (inside / "mine.txt").write_text("1 0\n2 1\n")
    d["workload"] = [{"kind": "poisson", "load": 0.1, "sizes": "mine.txt"}]
    assert _native.validate(Scenario.from_dict(d).to_toml(), [str(inside)])["name"]
