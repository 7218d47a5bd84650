"""Keeping the CPUs out of halt while a testbed runs (a PM QoS request, as cyclictest makes).

The bottleneck is a kernel shaper (htb, tbf) that sends the next frame when its timer fires.
On a virtual machine whose idle vCPUs halt, waking one for that timer can take most of a
millisecond, and the link then runs far below its rate for tens of ms (measured in
docs/bursts.md, "The testbed"). A CPU latency request of 0 us keeps idle CPUs polling.

The kernel keeps the request while the file stays open and drops it when the file closes, also
when the process is killed, so nothing outlives the run. Where the file is absent or not
writable the run goes on without it and says so (``cpu_latency_held`` in its record).
"""

from __future__ import annotations

import os
import struct
from collections.abc import Iterator
from contextlib import contextmanager

PM_QOS_FILE = "/dev/cpu_dma_latency"


@contextmanager
def cpu_latency_held(path: str = PM_QOS_FILE) -> Iterator[bool]:
    """Holds a 0 us CPU latency request for the ``with`` block; yields whether the kernel took it."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError:
        yield False
        return
    try:
        try:
            held = os.write(fd, struct.pack("i", 0)) == 4
        except OSError:
            held = False
        yield held
    finally:
        os.close(fd)


def current_cpu_latency_us(path: str = PM_QOS_FILE) -> int:
    """The CPU latency the kernel now allows (the strictest request held; 2,000,000,000 when none)."""
    with open(path, "rb") as f:
        return int(struct.unpack("i", f.read(4))[0])
