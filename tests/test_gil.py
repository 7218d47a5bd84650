"""The engine runs with the GIL released: Python threads keep going during a run."""

from __future__ import annotations

import threading
import time

import pytest

import fanin
from fanin import Scenario
from fanin.bench import BENCH_DIR


def test_python_thread_progresses_during_a_run() -> None:
    stop = threading.Event()
    ticks = 0

    def ticker() -> None:
        nonlocal ticks
        while not stop.is_set():
            time.sleep(0.001)  # releases the GIL, then needs it back to count
            ticks += 1

    thread = threading.Thread(target=ticker, daemon=True)
    thread.start()
    try:
        s = Scenario.load(BENCH_DIR / "b_fattree8.toml")
        for duration_ms in (2, 20, 200):  # until the run is long enough to tell
            s.set("duration", f"{duration_ms}ms")
            before = ticks
            t0 = time.perf_counter()
            # One chunk for the whole run: with the GIL held the ticker could not count at all.
            fanin.run(s, progress_every_ps=10**15)
            wall = time.perf_counter() - t0
            during = ticks - before
            if wall >= 0.1:
                break
        else:
            pytest.skip(f"runs too short to tell ({wall:.3f} s)")
    finally:
        stop.set()
        thread.join()
    # A held GIL allows at most a tick or two (at the edges of the call); a released one
    # allows about one per millisecond of the run.
    assert during >= max(5, int(wall * 1000) // 10), (during, wall)
