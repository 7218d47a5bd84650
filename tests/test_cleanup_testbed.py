"""Interrupted testbed runs clean up: SIGINT/SIGTERM remove everything the run made; after a
SIGKILL its processes die with it and `fanin testbed clean` (or the next run) removes the rest.

Runs where network namespaces can be made (root, iproute2, Linux); elsewhere skipped with the reason.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import fanin_cli, running_testbed
from fanin.testbed.netns import unavailable_reason
from test_cleanup import alive, cmdline, hidden_temps, proc_stat, reaped, until

STATE_DIR = Path("/run/fanin")  # where a run records what it made (fanin.testbed.leftovers)
REASON = unavailable_reason()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"testbed unavailable: {REASON}")


def namespaces(prefix: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n")
    return [line.split()[0] for line in listed if line.startswith(prefix)]


def inside(ns: str) -> dict[int, str]:
    """Processes in namespace ``ns``: pid -> start time."""
    pids = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True).stdout.split()
    return {int(p): fields[19] for p in pids if (fields := proc_stat(int(p)))}


def capturing(proc: subprocess.Popen[str]) -> dict[int, str]:
    """Once the run's capture is running: every process in the run's namespaces."""
    receiver = f"fanin-{proc.pid}-r"
    procs = inside(receiver) if receiver in namespaces(receiver) else {}
    started = any(b"_capture.py" in cmdline(p) for p in procs)
    return {p: s for ns in namespaces(f"fanin-{proc.pid}-") for p, s in inside(ns).items()} if started else {}


@pytest.fixture
def incast(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """`fanin testbed incast` with one sender and 100 bursts 50 ms apart: busy for seconds."""
    yield from running_testbed("incast", "--senders", "1", "--bursts", "100", "-o", str(tmp_path / "tb"))


def test_killed_run_is_cleaned_up(incast: subprocess.Popen[str], tmp_path: Path) -> None:
    procs = until(lambda: capturing(incast), "the run's capture")
    record = STATE_DIR / f"fanin-{incast.pid}.json"
    made = json.loads(record.read_text())
    assert made["pid"] == incast.pid and sorted(made["namespaces"]) == sorted(namespaces(f"fanin-{incast.pid}-"))
    with reaped(procs):
        incast.kill()
        incast.wait()
        until(lambda: not any(alive(p, s) for p, s in procs.items()), "the run's processes to die with it")
    [partial] = hidden_temps(tmp_path)
    assert made["output"] == str(partial)

    r = fanin_cli("testbed", "clean")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sorted(line for line in lines if "namespace" in line) == sorted(
        f"removed namespace {ns}" for ns in made["namespaces"]
    )
    assert f"removed partial output {partial}" in lines
    assert not namespaces(f"fanin-{incast.pid}-") and not partial.exists() and not record.exists()
    assert fanin_cli("testbed", "clean").stdout.strip() == "nothing left by killed testbed runs"


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_run_removes_what_it_made(
    incast: subprocess.Popen[str], tmp_path: Path, signum: int, code: int
) -> None:
    procs = until(lambda: capturing(incast), "the run's capture")
    with reaped(procs):
        if signum == signal.SIGINT:  # Ctrl-C: the whole process group
            os.killpg(incast.pid, signum)
        else:
            incast.send_signal(signum)
        assert incast.wait(60) == code
        assert incast.stderr is not None and incast.stderr.read().strip() == "error: interrupted"
        assert not [p for p, s in procs.items() if alive(p, s)]
    assert not namespaces(f"fanin-{incast.pid}-")
    assert list(tmp_path.iterdir()) == []  # no output, no partial output
    assert not (STATE_DIR / f"fanin-{incast.pid}.json").exists()


@pytest.fixture
def dead_runs_leftovers() -> Iterator[tuple[str, subprocess.Popen[str], str]]:
    """A namespace of a run that is gone with a process still inside, and one of a live process."""
    gone = subprocess.Popen(["true"])
    gone.wait()
    owner = subprocess.Popen(["sleep", "60"])
    dead_ns, live_ns = f"fanin-{gone.pid}-r", f"fanin-{owner.pid}-r"
    for ns in (dead_ns, live_ns):
        subprocess.run(["ip", "netns", "add", ns], check=True)
    stray = subprocess.Popen(["ip", "netns", "exec", dead_ns, "sleep", "60"])
    until(lambda: inside(dead_ns), "the stray process in the namespace")
    yield dead_ns, stray, live_ns
    for p in (owner, stray):
        p.kill()
        p.wait()
    for ns in (dead_ns, live_ns):
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def test_clean_removes_only_dead_runs_leftovers(dead_runs_leftovers: tuple[str, subprocess.Popen[str], str]) -> None:
    dead_ns, stray, live_ns = dead_runs_leftovers
    r = fanin_cli("testbed", "clean")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [
        f"killed process {stray.pid} (sleep) in namespace {dead_ns}",
        f"removed namespace {dead_ns}",
    ]
    assert stray.wait(10) == -signal.SIGKILL
    assert namespaces(dead_ns) == [] and namespaces(live_ns) == [live_ns]


def test_a_new_run_removes_dead_runs_leftovers_first(
    dead_runs_leftovers: tuple[str, subprocess.Popen[str], str], tmp_path: Path
) -> None:
    dead_ns, _, live_ns = dead_runs_leftovers
    r = fanin_cli("testbed", "incast", "--senders", "1", "--bursts", "1", "-o", str(tmp_path / "tb"))
    assert r.returncode == 0, r.stderr
    assert f"removed namespace {dead_ns}" in r.stdout.splitlines()
    assert namespaces(dead_ns) == [] and namespaces(live_ns) == [live_ns]
    assert (tmp_path / "tb" / "testbed.json").is_file()
