"""Shared by the testbed's standalone scripts (they run by path, so this sits next to them)."""

import os


def realtime() -> None:
    """Real-time priority where allowed: on a busy machine a sleeping sender would otherwise
    answer a request milliseconds late and the incast would not be one."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    except (AttributeError, OSError):
        pass
