"""The machine under `fanin bench`, and the fresh processes its cases run in.

Bench speeds, and their ratios, move with the machine: a virtual machine's share of the
cache, its CPUs' speed, and its host's backing of fresh memory change between hours
(docs/performance.md, "The machine moved"). So the bench measures the machine before its
runs (`machine`), starts every case on memory that is backed (`back_memory`), and reads a
case's peak memory as its own process's (`own_peak_mb`). Each case, and the machine's
probe, runs in a child `python -m fanin.bench` whose last output line is its JSON
(`run_child`).
"""

from __future__ import annotations

import json
import mmap
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

from fanin import _native

# A walk over what a cache serves, over what only memory holds, and the mapping whose
# first touches are timed.
CACHE_WALK_BYTES = 4 << 20
MEMORY_WALK_BYTES = 64 << 20
WALK_STEPS = 2_000_000
FRESH_BYTES = 64 << 20
# Memory every case starts on (`back_memory`): more than any case's peak.
BACKED_MB = 512


def run_child(args: list[str], what: str) -> dict[str, Any]:
    """The JSON a fresh ``python -m fanin.bench ARGS`` prints last; ``RuntimeError`` naming
    ``what`` with the child's last error line if it fails."""
    proc = subprocess.run([sys.executable, "-m", "fanin.bench", *args], capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"{what} failed: {last}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def own_peak_mb() -> float:
    """This process's peak resident set, MB: the kernel's high-water mark of its own memory
    (``VmHWM``) where Linux keeps one. Not ``ru_maxrss`` there: a child's starts at its
    parent's resident set at the fork and keeps it across exec, so every case that needs
    less than the bench's own process (about 120 MB) read as that."""
    try:
        for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0  # kB
    except (OSError, ValueError, IndexError):
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def back_memory(mb: int = BACKED_MB) -> None:
    """Touches ``mb`` of fresh memory and frees it, just before a case starts. A virtual
    machine whose host takes free memory back (about two seconds after it is freed) would
    otherwise start each case on as much still-backed memory as the case before it happened
    to free, and a huge page that has to be backed again costs 5-7 ms to touch instead of
    0.35: a case bigger than the one before it ran partly cold. So every case starts alike."""
    size = mb << 20
    with mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS) as m:
        if hasattr(mmap, "MADV_HUGEPAGE"):
            m.madvise(mmap.MADV_HUGEPAGE)
        for offset in range(0, size, mmap.PAGESIZE):
            m[offset] = 1


def machine() -> dict[str, float | None]:
    """What this machine serves fast now (about a second), measured in a fresh process as
    the cases are (a child starts with its parent's resident set as its peak, so the
    walks' buffers must not grow this one's): nanoseconds a step of a random walk through
    every line of 4 MB and of 64 MB, each step waiting for the one before, and milliseconds
    the first touch of a fresh huge page takes (``None``: not measured here). Two bench
    runs compare only as far as these agree."""
    return run_child(["--machine"], "bench: measuring the machine")


def probe_machine() -> dict[str, float | None]:
    """`machine`'s figures, measured in this process."""
    return {
        "walk_ns_4mb": _native.machine_walk_ns(CACHE_WALK_BYTES, WALK_STEPS),
        "walk_ns_64mb": _native.machine_walk_ns(MEMORY_WALK_BYTES, WALK_STEPS),
        "fresh_huge_page_ms": _native.machine_fresh_huge_page_ms(FRESH_BYTES),
    }


def machine_text(m: dict[str, Any]) -> str:
    """The machine's figures in a phrase (a figure that is not a number reads as "-")."""

    def fig(key: str, spec: str) -> str:
        v = m.get(key)
        return f"{float(v):{spec}}" if isinstance(v, int | float) else "-"

    page = "not measured" if m.get("fresh_huge_page_ms") is None else f"{fig('fresh_huge_page_ms', '.2f')} ms"
    return (
        f"a step of a random walk {fig('walk_ns_4mb', '.0f')} ns over 4 MB, {fig('walk_ns_64mb', '.0f')} ns"
        f" over 64 MB; the first touch of a fresh huge page {page}"
    )


def machine_change(before: dict[str, Any], now: dict[str, Any]) -> str | None:
    """The machine then and now, where both bench history entries have it (an entry written
    before the bench measured it has none)."""
    then, host = before.get("machine"), now.get("machine")
    if not (isinstance(then, dict) and isinstance(host, dict)):
        return None
    return f"machine then: {machine_text(then)}; now: {machine_text(host)}"
