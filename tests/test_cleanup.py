"""Interrupts clean up: pool workers die with their parent, whatever kills it, and no hidden
temporary result folder outlives the process that was writing it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import fanin_cli
from fanin import Scenario
from fanin._proc import Terminated, popen_dying_with_this_process, sigterm_interrupts

WAIT_S = 20.0  # generous: a deadline for something that should happen, never a measurement


def proc_stat(pid: int) -> list[str] | None:
    """Fields of /proc/<pid>/stat after the command name; None once the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return None


def children(parent: int) -> dict[int, str]:
    """The live children of ``parent``: pid -> start time (to tell a reused pid apart)."""
    found = {}
    for d in Path("/proc").iterdir():
        fields = proc_stat(int(d.name)) if d.name.isdigit() else None
        if fields and int(fields[1]) == parent and fields[0] != "Z":
            found[int(d.name)] = fields[19]
    return found


def alive(pid: int, start: str) -> bool:
    fields = proc_stat(pid)
    return fields is not None and fields[0] != "Z" and fields[19] == start


def until(condition: Callable[[], Any], what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        got = condition()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting: {what}")


@contextmanager
def reaped(procs: dict[int, str]) -> Iterator[None]:
    """Kills whatever the test leaves alive (on the unchanged code, the orphaned workers)."""
    try:
        yield
    finally:
        for pid, start in procs.items():
            if alive(pid, start):
                os.kill(pid, signal.SIGKILL)


def hidden_temps(root: Path) -> list[Path]:
    return [p for p in root.rglob(".*") if p.name.endswith((".tmp", ".old"))]


@pytest.fixture
def long_sweep(tmp_path: Path, small_incast: dict[str, Any]) -> list[str]:
    """`fanin sweep -j 2` of a small incast over many seeds: busy long after its workers start."""
    small_incast["record"] = {"flows": True}
    Scenario.from_dict(small_incast).save(tmp_path / "base.toml")
    (tmp_path / "sweep.toml").write_text('scenario = "base.toml"\nseeds = 5000\n')
    cli = [sys.executable, "-m", "fanin", "sweep", str(tmp_path / "sweep.toml"), "-j", "2", "-q"]
    return [*cli, "-o", str(tmp_path / "rows.parquet"), "--cache", str(tmp_path / "cache")]


def start_with_workers(args: list[str]) -> tuple[subprocess.Popen[str], dict[int, str]]:
    """Starts the sweep in its own session and waits until both workers have finished runs;
    returns it and its children (the two workers, multiprocessing's resource tracker)."""
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, start_new_session=True)
    cache = Path(args[-1])
    until(lambda: len(workers(children(proc.pid))) == 2, "the sweep's workers")
    until(lambda: cache.is_dir() and len(list(cache.glob("*/*/manifest.json"))) >= 4, "runs in the cache")
    return proc, children(proc.pid)


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


def workers(procs: dict[int, str]) -> dict[int, str]:
    """The pool's workers among ``procs`` (while they live)."""
    return {p: s for p, s in procs.items() if b"spawn_main" in cmdline(p)}


def test_workers_die_with_a_killed_sweep(long_sweep: list[str]) -> None:
    proc, kids = start_with_workers(long_sweep)
    with reaped(kids):
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(WAIT_S)
        until(lambda: not any(alive(p, s) for p, s in kids.items()), f"children {sorted(kids)} to die")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_interrupted_sweep_stops_its_workers(long_sweep: list[str], signum: int, code: int) -> None:
    """As Ctrl-C (the whole process group) or a service manager's stop (the parent) would."""
    proc, kids = start_with_workers(long_sweep)
    pool = workers(kids)
    with reaped(kids):
        if signum == signal.SIGINT:
            os.killpg(proc.pid, signum)
        else:
            os.kill(proc.pid, signum)
        assert proc.wait(WAIT_S) == code
        assert not [p for p, s in pool.items() if alive(p, s)]  # gone by the time the sweep exits
        # multiprocessing's resource tracker leaves once the sweep has closed its end of the pipe
        until(lambda: not any(alive(p, s) for p, s in kids.items()), f"children {sorted(kids)} to die")
        assert proc.stderr is not None and proc.stderr.read().strip() == "error: interrupted"
    cache = Path(long_sweep[-1])
    assert not hidden_temps(cache)  # the killed workers' half-written runs are removed too
    assert not (cache.parent / "rows.parquet").exists()


# ---------------------------------------------------------------- hidden temporary folders

WRITER = """
import os, signal, sys, time
from pathlib import Path
from fanin._fs import atomic_dir
with atomic_dir(Path(sys.argv[1])) as tmp:
    (tmp / "manifest.json").write_text("{}")
    print(tmp, flush=True)
    if sys.argv[2] == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(60)
"""


def writer(target: Path, then: str) -> tuple[subprocess.Popen[str], Path]:
    """A process in the middle of writing ``target`` (atomic_dir); returns it and its hidden folder."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(target), then], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    tmp = Path(proc.stdout.readline().strip())
    assert tmp.parent == target.parent and tmp.name.startswith(f".{target.name}.") and tmp.is_dir()
    return proc, tmp


def test_next_write_removes_a_killed_writers_folder_but_not_a_live_ones(
    tmp_path: Path, small_incast: dict[str, Any]
) -> None:
    scenario = tmp_path / "small.toml"
    Scenario.from_dict(small_incast).save(scenario)
    killed, stale = writer(tmp_path / "res", "die")
    killed.wait(WAIT_S)
    assert killed.returncode == -signal.SIGKILL and stale.is_dir()
    live, busy = writer(tmp_path / "other", "sleep")
    try:
        r = fanin_cli("run", str(scenario), "-o", str(tmp_path / "res"), "-q")
        assert r.returncode == 0, r.stderr
        assert not stale.exists()
        assert busy.is_dir()  # a concurrent writer's folder stays
        assert (tmp_path / "res" / "manifest.json").is_file()
    finally:
        live.kill()
        live.wait()


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_write_removes_its_folder(tmp_path: Path, signum: int) -> None:
    proc, tmp = writer(tmp_path / "res", "sleep")
    proc.send_signal(signum)
    _, stderr = proc.communicate(timeout=WAIT_S)
    assert proc.returncode != 0, stderr
    assert not tmp.exists()
    assert list(tmp_path.iterdir()) == []


def _blocked_signals(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return int(next(line for line in status if line.startswith("SigBlk:")).split()[1], 16)


def test_a_child_dying_with_this_process_can_be_stopped() -> None:
    # Interrupts wait while the child starts; the child must not keep them blocked, or a
    # SIGTERM meant to stop it (the testbed's scripts report on it) would wait forever.
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    child = popen_dying_with_this_process(["sleep", "30"])
    try:
        assert _blocked_signals(child.pid) & ((1 << (signal.SIGTERM - 1)) | (1 << (signal.SIGINT - 1))) == 0
        assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before
        child.send_signal(signal.SIGTERM)
        assert child.wait(WAIT_S) == -signal.SIGTERM
    finally:
        child.kill()
        child.wait()


_kill_after_fork: list[int] = []
# Seconds the hook lingers after each signal: time for another thread's handler to trip.
_linger_after_kill: list[float] = [0.0]


def _kill_in_hook() -> None:
    for s in _kill_after_fork:
        os.kill(os.getpid(), s)
        time.sleep(_linger_after_kill[0])


os.register_at_fork(after_in_parent=_kill_in_hook)


def test_sigterm_while_a_child_starts_is_not_lost() -> None:
    # A SIGTERM that lands in the parent's at-fork hooks (Python code, run when Popen has a
    # preexec_fn) raised there and was dropped: the testbed ran on to its end.
    _kill_after_fork.append(signal.SIGTERM)
    try:
        with pytest.raises(Terminated), sigterm_interrupts():
            popen_dying_with_this_process(["true"]).wait(WAIT_S)
    finally:
        _kill_after_fork.clear()


def test_sigterm_taken_by_another_thread_while_a_child_starts_is_not_lost() -> None:
    # A thread that blocks no signal (pyarrow's pool starts several) is where the kernel sends
    # a SIGTERM this thread blocks; Python then runs the handler here, inside the at-fork hooks.
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    _kill_after_fork.append(signal.SIGTERM)
    _linger_after_kill[0] = 0.1
    try:
        with pytest.raises(Terminated), sigterm_interrupts():
            popen_dying_with_this_process(["true"]).wait(WAIT_S)
    finally:
        _kill_after_fork.clear()
        _linger_after_kill[0] = 0.0
        stop.set()
        other.join()
