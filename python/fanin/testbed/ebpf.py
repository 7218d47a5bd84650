"""The testbed's eBPF programs, run through the project's own loader (``make bpf`` builds both).

``fanin-bpf`` (bpf/loader.c) loads one object, attaches its programs to interfaces with tcx
links and, when told to stop, drains its ringbuf into a file and dumps its array maps. The links
belong to the loader process, so however it dies the kernel detaches the programs: a killed run
leaves no filter behind, on a namespace's interface or the host's. Every loader is started with
a list of arguments (never a shell string) and dies with the process that started it.
"""

from __future__ import annotations

import contextlib
import os
import platform
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fanin._proc import popen_dying_with_this_process
from fanin.testbed.procs import await_line

BPF_DIR = Path(__file__).resolve().parent / "bpf"
BUILD = BPF_DIR / "build"
LOADER = BUILD / "fanin-bpf"
TCX_KERNEL = (6, 6)  # tcx links (BPF_TCX_INGRESS/EGRESS) came with Linux 6.6


def program(name: str) -> Path:
    """The compiled object of ``bpf/<name>.bpf.c``."""
    return BUILD / f"{name}.bpf.o"


def _kernel() -> tuple[int, int]:
    parts = platform.release().split(".")
    try:
        return int(parts[0]), int(parts[1].split("-")[0])
    except (IndexError, ValueError):
        return (0, 0)


def unavailable_reason(*names: str) -> str | None:
    """Why the eBPF programs ``names`` cannot run here, in one line; None if they can."""
    if os.geteuid() != 0:
        return "eBPF needs root"
    if _kernel() < TCX_KERNEL:
        return f"eBPF tcx links need Linux {'.'.join(map(str, TCX_KERNEL))} or later (this is {platform.release()})"
    missing = [p.name for p in (LOADER, *(program(n) for n in names)) if not p.is_file()]
    if missing:
        return (
            f"eBPF programs not built ({', '.join(missing)} missing in {BUILD}; "
            "run `make bpf`, which needs clang and libbpf-dev)"
        )
    return None


def attached(exec_args: Sequence[str], iface: str) -> tuple[int, int]:
    """How many tcx programs ``iface`` has at ingress and at egress (in the namespace ``exec_args`` enters)."""
    r = subprocess.run([*exec_args, str(LOADER), "--query", iface], capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip())
    words = r.stdout.split()
    return int(words[1]), int(words[3])


@dataclass
class Loader:
    """One running ``fanin-bpf``: ``mono_ns`` and ``real_ns`` are its time origin on
    bpf_ktime_get_ns()'s clock and on CLOCK_REALTIME (the captures' clock), read back to back."""

    proc: subprocess.Popen[str]
    mono_ns: int = 0
    real_ns: int = 0

    @classmethod
    def start(cls, exec_args: Sequence[str], name: str, *options: str, timeout_s: float = 20.0) -> Loader:
        """Loads ``bpf/<name>.bpf.c``'s object with ``options`` (see loader.c), inside the
        namespace ``exec_args`` enters (empty: this one); returns once it is attached."""
        proc = popen_dying_with_this_process(
            [*exec_args, str(LOADER), str(program(name)), *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        loader = cls(proc)
        line = loader._line(timeout_s, f"eBPF loader for {name}")
        _, mono, real = line.split()
        loader.mono_ns, loader.real_ns = int(mono), int(real)
        return loader

    def _line(self, timeout_s: float, what: str) -> str:
        return await_line(self.proc, "ready" if not self.mono_ns else "done", timeout_s, what)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Detaches, drains the ringbuf and dumps the maps into the files its options named."""
        self.proc.send_signal(signal.SIGTERM)
        self._line(timeout_s, "eBPF loader's dump")
        self.proc.wait(timeout_s)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        self.proc.wait(10)
