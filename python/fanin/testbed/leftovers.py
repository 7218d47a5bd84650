"""What a testbed run made, recorded so that what a killed run leaves can be found and removed.

Each run names everything it makes ``fanin-<pid>-…`` (namespaces) or ``fanin-<pid>a|b`` (a
veth pair in the host's namespace until it is moved) and, before making any of it, writes
``/run/fanin/fanin-<pid>.json``: its pid and start time (so a reused pid is not taken for
it), its namespaces and links, and its partial output folder. The run removes the record
when it has removed everything. A record, namespace or link whose process is gone is a
leftover: :func:`clean_leftovers` kills the processes still inside its namespaces, deletes
the namespaces and links, removes the partial output folder and the record.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fanin._fs import atomic_write_bytes

STATE_DIR = Path("/run/fanin")  # tmpfs, emptied at boot as /run/netns is
PREFIX = "fanin-"
_OWNED = re.compile(rf"^({re.escape(PREFIX)}(\d+))(?:-.+|[ab])$")
_GONE_S = 5.0  # how long killed processes get to leave a namespace before it is deleted


def run_prefix(pid: int) -> str:
    return f"{PREFIX}{pid}"


def _started(pid: int) -> str | None:
    """The process's start time (clock ticks after boot), None if there is no such process."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


@dataclass
class Record:
    """One run's record: who made it and what it made."""

    pid: int
    started: str | None
    namespaces: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    output: str | None = None

    @property
    def path(self) -> Path:
        return STATE_DIR / f"{run_prefix(self.pid)}.json"

    def owner_alive(self) -> bool:
        now = _started(self.pid)
        return now is not None and (self.started is None or now == self.started)

    def save(self) -> None:
        text = json.dumps(asdict(self), indent=2) + "\n"
        atomic_write_bytes(self.path, text.encode())


@contextmanager
def recorded(namespaces: list[str], links: list[str], output: Path | None) -> Iterator[Record]:
    """Records what this process is about to make, until everything is removed again."""
    pid = os.getpid()
    record = Record(pid, _started(pid), namespaces, links, str(output.resolve()) if output else None)
    record.save()
    try:
        yield record
    finally:
        record.path.unlink(missing_ok=True)


def _ip(*args: str) -> list[str]:
    r = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    return r.stdout.splitlines() if r.returncode == 0 else []


def _records() -> dict[str, Record]:
    found = {}
    for path in sorted(STATE_DIR.glob(f"{PREFIX}*.json")):
        try:
            found[path.stem] = Record(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            continue  # half-written or foreign: judged by the names alone
    return found


def _owned(names: list[str]) -> dict[str, list[str]]:
    """Names made by a fanin run, by the run's prefix."""
    by_run: dict[str, list[str]] = {}
    for name in names:
        m = _OWNED.match(name)
        if m:
            by_run.setdefault(m[1], []).append(name)
    return by_run


def _kill_inside(ns: str) -> list[str]:
    said = []
    pids = [int(p) for p in _ip("netns", "pids", ns) if p.strip().isdigit()]
    for pid in pids:
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            os.kill(pid, signal.SIGKILL)
        except (FileNotFoundError, ProcessLookupError):
            continue
        said.append(f"killed process {pid} ({comm}) in namespace {ns}")
    deadline = time.monotonic() + _GONE_S
    while pids and time.monotonic() < deadline and _ip("netns", "pids", ns):
        time.sleep(0.05)
    return said


def _gone(prefix: str, record: Record | None) -> bool:
    """Without a record (it is written before anything is made, so only when it was lost),
    the pid in the names alone decides."""
    if record is not None:
        return not record.owner_alive()
    return _started(int(prefix[len(PREFIX) :])) is None


def clean_leftovers() -> list[str]:
    """Removes what runs that are gone left behind; returns one line per thing removed."""
    records = _records()
    namespaces = _owned([line.split()[0] for line in _ip("netns", "list") if line.strip()])
    links = _owned([line.split(":")[1].strip().split("@")[0] for line in _ip("-o", "link", "show")])
    said: list[str] = []
    for prefix in sorted(set(records) | set(namespaces) | set(links)):
        record = records.get(prefix)
        if not _gone(prefix, record):
            continue
        for ns in sorted(namespaces.get(prefix, [])):
            said += _kill_inside(ns)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
            said.append(f"removed namespace {ns}")
        for link in sorted(links.get(prefix, [])):
            subprocess.run(["ip", "link", "del", link], capture_output=True, timeout=30)
            said.append(f"removed link {link}")
        if record is not None:
            if record.output and Path(record.output).exists():
                shutil.rmtree(record.output, ignore_errors=True)
                said.append(f"removed partial output {record.output}")
            record.path.unlink(missing_ok=True)
    return said
