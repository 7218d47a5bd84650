"""Talking to the testbed's child processes: each announces with one stdout line when it is ready."""

from __future__ import annotations

import contextlib
import selectors
import subprocess


def await_line(proc: subprocess.Popen[str], expected: str, timeout_s: float, what: str) -> str:
    """The next stdout line of ``proc`` (which must start with ``expected``), or an error
    carrying the last line the process wrote to stderr."""
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    ready = sel.select(timeout_s)
    sel.close()
    line = proc.stdout.readline() if ready else ""
    if not line.startswith(expected):
        if ready:  # end of output: the process is exiting; give it a moment to say why
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(2)
        err = proc.stderr.read() if proc.poll() is not None and proc.stderr else ""
        raise RuntimeError(
            f"testbed {what} did not start ({err.strip().splitlines()[-1] if err.strip() else 'timeout'})"
        )
    return line
