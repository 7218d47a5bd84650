"""Parallel sweeps from where users start them: a plain script without a main guard, and a
notebook whose derive function lives in a `__main__` no worker can import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from fanin import Scenario
from fanin.sweep import Sweep

SCRIPT = """
import json, os, sys
import pandas as pd
import fanin

print("script body ran", flush=True)
scenario = fanin.Scenario.from_dict(json.loads(sys.argv[1]))
sweep = fanin.Sweep(scenario, axes={"workload[0].bytes_per_sender": ["8KB", "16KB"]})


def per_flow(results, point):
    return pd.DataFrame({"size_bytes": results.flows["size_bytes"], "pid": os.getpid()})


rows = sweep.run(jobs=2, cache=sys.argv[2])
flows = sweep.run(derive=per_flow, jobs=2, cache=sys.argv[2])
sizes, pids = sorted(map(int, set(flows["size_bytes"]))), sorted(map(int, set(flows["pid"])))
print(json.dumps({"runs": len(rows), "sizes": sizes, "workers": pids, "script": os.getpid()}))
"""


def small(small_incast: dict[str, Any]) -> dict[str, Any]:
    small_incast["record"] = {"flows": True}
    small_incast["topology"]["senders"] = small_incast["workload"][0]["degree"] = 2
    return small_incast


def test_script_without_main_guard_runs_a_parallel_sweep(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    script = tmp_path / "plain_script.py"
    script.write_text(SCRIPT)
    r = subprocess.run(
        [sys.executable, str(script), json.dumps(small(small_incast)), str(tmp_path / "cache")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines.count("script body ran") == 1  # the workers did not run the script again
    got = json.loads(lines[-1])
    assert got["runs"] == 2 and got["sizes"] == [8000, 16000]
    assert got["workers"] and got["script"] not in got["workers"]  # derive ran in the workers


NOTEBOOK_CELL = """
import os
import pandas as pd

PS_PER_NS = 1000

def fct_ns(results, point):
    return pd.DataFrame({"fct_ns": results.flows["fct_ps"] // PS_PER_NS, "pid": os.getpid()})
"""


def test_derive_defined_in_a_notebook_runs_in_workers(tmp_path: Path, small_incast: dict[str, Any]) -> None:
    cell: dict[str, Any] = {"__name__": "__main__"}
    exec(NOTEBOOK_CELL, cell)  # as a notebook cell defines it: in __main__, with no file to import
    derive = cell["fct_ns"]
    assert derive.__module__ == "__main__" and not hasattr(sys.modules["__main__"], "fct_ns")
    sweep = Sweep(Scenario.from_dict(small(small_incast)), seeds=[1, 2])
    parallel = sweep.run(derive=derive, jobs=2, cache=tmp_path / "parallel")
    assert parallel.attrs["sweep"]["executed"] == 2
    assert os.getpid() not in set(parallel["pid"])
    serial = sweep.run(derive=derive, jobs=1, cache=tmp_path / "serial")
    cols = ["seed", "fct_ns"]
    pd.testing.assert_frame_equal(parallel[cols], serial[cols])
    assert len(serial) == 4 and (serial["fct_ns"] > 0).all()
