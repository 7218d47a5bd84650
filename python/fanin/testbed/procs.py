"""Talking to the testbed's child processes: each announces with one stdout line when it is ready."""

from __future__ import annotations

import contextlib
import selectors
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from fanin._proc import popen_dying_with_this_process

HERE = Path(__file__).resolve().parent


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


def spawn(exec_args: Sequence[str], script: str, *args: str, stdin: bool = False) -> subprocess.Popen[str]:
    """Runs one of the testbed's standalone scripts (next to this file) inside the namespace
    ``exec_args`` enters, with a list of arguments (no shell), dying with this process."""
    # Dying with this process: a killed run leaves no capture running as root.
    return popen_dying_with_this_process(
        [*exec_args, sys.executable, str(HERE / script), *args],
        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(proc: subprocess.Popen[str], what: str, timeout_s: float = 30.0) -> str:
    """SIGTERMs a script that reports on its way out; its last stdout line."""
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=timeout_s)
    lines = out.strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"testbed {what} failed ({err.strip().splitlines()[-1] if err.strip() else 'no report'})")
    return lines[-1]


def kill(procs: Sequence[subprocess.Popen[str]]) -> None:
    for p in procs:
        with contextlib.suppress(ProcessLookupError):
            p.kill()
        p.wait(10)
