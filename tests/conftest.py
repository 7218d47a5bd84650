"""Shared scenarios for the Python tests: small, so the suite stays fast on the real engine."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "scenarios" / "incast_dumbbell.toml"

# A suite started in the background of a script (`make test &`) inherits SIGINT ignored, and
# every child would too (an ignored signal stays ignored across exec), so the tests that stop a
# run with Ctrl-C would see it never arrive. A handler here is reset to the default in children.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def small_incast_dict() -> dict[str, Any]:
    """8-to-1 DCTCP incast, 64 KB each, flows + bottleneck queue recorded."""
    return {
        "name": "test-small-incast",
        "seed": 1,
        "topology": {"kind": "dumbbell", "senders": 8, "host_link": {"rate": "10Gbps", "delay": "1us"}},
        "switch": {"queue": {"limit": "1000pkt", "marking": {"kind": "step", "threshold": "65pkt"}}},
        "transport": {"cc": "dctcp", "mtu": "1500B", "min_rto": "200us", "init_cwnd": "10pkt"},
        "workload": [{"kind": "incast", "degree": 8, "bytes_per_sender": "64KB", "start": "0s"}],
        "record": {"flows": True, "queues": {"ports": "bottleneck", "interval": "1us"}},
    }


def small_fat_tree_dict() -> dict[str, Any]:
    """k = 4 fat-tree, permutation of 16 flows of 200 KB: ECMP makes the seed matter."""
    link = {"rate": "10Gbps", "delay": "1us"}
    return {
        "name": "test-fat-tree-k4",
        "seed": 1,
        "topology": {"kind": "fat_tree", "k": 4, "host_link": link, "fabric_link": link},
        "switch": {"queue": {"limit": "1000pkt", "marking": {"kind": "step", "threshold": "65pkt"}}},
        "transport": {"cc": "dctcp"},
        "workload": [{"kind": "permutation", "bytes": "200KB", "start": "0s"}],
        "record": {"flows": True},
    }


def cut_off_dict() -> dict[str, Any]:
    """Two 4-to-1 incasts in a 2 ms run: the first (64 KB each) ends, the second (10 MB each,
    from 1 ms) cannot."""
    return {
        "name": "test-cut-off",
        "seed": 1,
        "duration": "2ms",
        "topology": {"kind": "dumbbell", "senders": 4, "host_link": {"rate": "10Gbps", "delay": "1us"}},
        "transport": {"cc": "dctcp"},
        "workload": [
            {"kind": "incast", "degree": 4, "bytes_per_sender": "64KB", "start": "0s"},
            {"kind": "incast", "degree": 4, "bytes_per_sender": "10MB", "start": "1ms"},
        ],
        "record": {"flows": True},
    }


@pytest.fixture(autouse=True)
def own_run_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test, and each fanin it starts, gets an empty default run cache: the per-user one
    would carry runs over from earlier tests and sessions (and fill the user's ~/.cache)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


@pytest.fixture
def cut_off() -> dict[str, Any]:
    return cut_off_dict()


@pytest.fixture
def small_incast() -> dict[str, Any]:
    return small_incast_dict()


@pytest.fixture
def small_fat_tree() -> dict[str, Any]:
    return small_fat_tree_dict()


def fanin_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs the `fanin` command in a fresh interpreter (as a user would)."""
    return subprocess.run([sys.executable, "-m", "fanin", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def running_testbed(*args: str) -> Iterator[subprocess.Popen[str]]:
    """`fanin testbed ...` running in its own session (so a test can signal it); whatever it
    leaves is killed and `fanin testbed clean` removes what it made, even on the unchanged code."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fanin", "testbed", *args], stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    yield proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    fanin_cli("testbed", "clean")


def one_line(stderr: str) -> str:
    """The one line a bad input may print: no second line, no traceback, no panic."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr and "panicked" not in stderr, stderr
    return lines[0]
